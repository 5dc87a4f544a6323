/* A mutex + condition variable barrier with abort (interp/collective/rendezvous.h).
 * Two independent generation counters: one for publishing (which aborts),
 * one for releasing (which waits for everyone regardless: a peer may still
 * be reading this device's operands). */
#include "interp/collective/rendezvous.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct Rendezvous {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int n;
  int lo, hi;  /* the devices this process runs */
  bool ranked; /* the other devices run in other ranks (rdv_wait_local) */
  bool ready;  /* ranked: every local device has published, not yet opened */
  const char *const *names;
  int arrived, released, finished;
  uint64_t gen, release_gen;
  const Instr **posted;
  const KArray **payload;
  int *npayload;
  bool aborted;
  bool *stopped;     /* per device: released by the abort, not failed itself */
  int failed_device; /* whose run failed, or -1 (a mismatch, an early end) */
  char reason[sizeof(((Error *)0)->msg)];
};

static void free_arrays(Rendezvous *r) {
  free(r->posted);
  free(r->payload);
  free(r->npayload);
  free(r->stopped);
  free(r);
}

Rendezvous *rdv_new_ranked(int ndevices, const char *const *names, int lo, int hi) {
  Rendezvous *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->posted = calloc((size_t)ndevices, sizeof *r->posted);
  r->payload = calloc((size_t)ndevices, sizeof *r->payload);
  r->npayload = calloc((size_t)ndevices, sizeof *r->npayload);
  r->stopped = calloc((size_t)ndevices, sizeof *r->stopped);
  if (!r->posted || !r->payload || !r->npayload || !r->stopped ||
      pthread_mutex_init(&r->mu, NULL) != 0) {
    free_arrays(r);
    return NULL;
  }
  if (pthread_cond_init(&r->cv, NULL) != 0) {
    pthread_mutex_destroy(&r->mu);
    free_arrays(r);
    return NULL;
  }
  r->n = hi - lo;
  r->lo = lo;
  r->hi = hi;
  r->ranked = hi - lo != ndevices;
  r->names = names;
  r->failed_device = -1;
  return r;
}

Rendezvous *rdv_new(int ndevices, const char *const *names) {
  return rdv_new_ranked(ndevices, names, 0, ndevices);
}

void rdv_free(Rendezvous *r) {
  if (!r) return;
  pthread_cond_destroy(&r->cv);
  pthread_mutex_destroy(&r->mu);
  free_arrays(r);
}

/* With the lock held: abort with the reason (the first abort wins). */
static void abort_locked(Rendezvous *r, int failed_device, const char *reason) {
  if (!r->aborted) {
    r->aborted = true;
    r->failed_device = failed_device;
    snprintf(r->reason, sizeof r->reason, "%s", reason);
  }
  pthread_cond_broadcast(&r->cv);
}

/* With the lock held: device leaves a wait because of the abort. */
static bool aborted_error(Rendezvous *r, int device, Error *err) {
  r->stopped[device] = true;
  return error_set(err, ERR_RUNTIME, -1, "%s", r->reason);
}

/* Some device posted a collective: the first one's instruction, or NULL. */
static const Instr *waiting_at(const Rendezvous *r) {
  for (int i = r->lo; i < r->hi; i++)
    if (r->posted[i]) return r->posted[i];
  return NULL;
}

bool rdv_publish(Rendezvous *r, int device, const Instr *in, const KArray *arrays, int n,
                 Error *err) {
  char why[sizeof r->reason];
  pthread_mutex_lock(&r->mu);
  if (r->aborted) {
    bool ok = aborted_error(r, device, err);
    pthread_mutex_unlock(&r->mu);
    return ok;
  }
  if (r->finished > 0) {
    snprintf(why, sizeof why,
             "%s reached collective %s, but %d device%s had already finished the program "
             "(the devices ran different collectives)",
             r->names[device], in->name, r->finished, r->finished == 1 ? "" : "s");
    abort_locked(r, -1, why);
    bool ok = aborted_error(r, device, err);
    pthread_mutex_unlock(&r->mu);
    return ok;
  }
  r->posted[device] = in;
  r->payload[device] = arrays;
  r->npayload[device] = n;
  uint64_t my = r->gen;
  if (++r->arrived == r->n) {
    for (int i = r->lo; i < r->hi; i++) {
      if (r->posted[i] == in) continue;
      snprintf(why, sizeof why,
               "the devices reached different collectives: %s is at %s, %s at %s",
               r->names[device], in->name, r->names[i], r->posted[i]->name);
      abort_locked(r, -1, why);
      bool ok = aborted_error(r, device, err);
      pthread_mutex_unlock(&r->mu);
      return ok;
    }
    if (!r->ranked) {
      r->arrived = 0;
      for (int i = r->lo; i < r->hi; i++) r->posted[i] = NULL;
      r->gen++;
      pthread_cond_broadcast(&r->cv);
      pthread_mutex_unlock(&r->mu);
      return true;
    }
    /* The other ranks' devices: the exchanging thread opens the gate. */
    r->ready = true;
    pthread_cond_broadcast(&r->cv);
  }
  while (r->gen == my && !r->aborted) pthread_cond_wait(&r->cv, &r->mu);
  /* Passed when the generation moved, even if an abort came after it:
   * then every device passed and will call rdv_release. */
  bool ok = r->gen != my || aborted_error(r, device, err);
  pthread_mutex_unlock(&r->mu);
  return ok;
}

const KArray *rdv_payload(const Rendezvous *r, int device, int *n) {
  *n = r->npayload[device];
  return r->payload[device];
}

bool rdv_release(Rendezvous *r, int device, Error *err) {
  (void)device;
  pthread_mutex_lock(&r->mu);
  if (++r->released == r->n) {
    r->released = 0;
    r->release_gen++;
    pthread_cond_broadcast(&r->cv);
  } else {
    uint64_t my = r->release_gen;
    while (r->release_gen == my) pthread_cond_wait(&r->cv, &r->mu);
  }
  bool ok = !r->aborted || !err || aborted_error(r, device, err);
  pthread_mutex_unlock(&r->mu);
  return ok;
}

void rdv_fail(Rendezvous *r, int device, const char *msg) {
  char why[sizeof r->reason];
  snprintf(why, sizeof why, "%s failed: %s", r->names[device], msg);
  pthread_mutex_lock(&r->mu);
  r->finished++;
  abort_locked(r, device, why);
  pthread_mutex_unlock(&r->mu);
}

void rdv_finish(Rendezvous *r, int device) {
  pthread_mutex_lock(&r->mu);
  r->finished++;
  const Instr *at = waiting_at(r);
  if (r->finished == r->n) pthread_cond_broadcast(&r->cv); /* rdv_wait_local */
  if (r->arrived > 0 && at && !r->aborted) {
    char why[sizeof r->reason];
    snprintf(why, sizeof why,
             "%s finished the program while %d device%s wait%s at collective %s "
             "(the devices ran different collectives)",
             r->names[device], r->arrived, r->arrived == 1 ? "" : "s",
             r->arrived == 1 ? "s" : "", at->name);
    abort_locked(r, -1, why);
  }
  pthread_mutex_unlock(&r->mu);
}

bool rdv_stopped_by_abort(Rendezvous *r, int device) {
  pthread_mutex_lock(&r->mu);
  bool stopped = r->stopped[device];
  pthread_mutex_unlock(&r->mu);
  return stopped;
}

int rdv_failed_device(const Rendezvous *r, const char **msg) {
  if (msg) *msg = r->aborted ? r->reason : NULL;
  return r->aborted ? r->failed_device : -1;
}

/* --- ranked runs --- */

RdvLocal rdv_wait_local(Rendezvous *r, const Instr **at, int *failed, char *reason,
                        size_t reason_size) {
  pthread_mutex_lock(&r->mu);
  while (!r->aborted && !r->ready && r->finished < r->n) pthread_cond_wait(&r->cv, &r->mu);
  RdvLocal what;
  if (r->aborted) {
    what = RDV_LOCAL_ABORTED;
    *failed = r->failed_device;
    snprintf(reason, reason_size, "%s", r->reason);
  } else if (r->ready) {
    what = RDV_LOCAL_PUBLISHED;
    *at = waiting_at(r);
  } else {
    what = RDV_LOCAL_ENDED;
  }
  pthread_mutex_unlock(&r->mu);
  return what;
}

void rdv_post_remote(Rendezvous *r, int device, const KArray *arrays, int n) {
  pthread_mutex_lock(&r->mu);
  r->payload[device] = arrays;
  r->npayload[device] = n;
  pthread_mutex_unlock(&r->mu);
}

void rdv_open(Rendezvous *r) {
  pthread_mutex_lock(&r->mu);
  r->ready = false;
  r->arrived = 0;
  for (int i = r->lo; i < r->hi; i++) r->posted[i] = NULL;
  r->gen++;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
}

void rdv_abort(Rendezvous *r, int failed, const char *reason) {
  pthread_mutex_lock(&r->mu);
  abort_locked(r, failed, reason);
  pthread_mutex_unlock(&r->mu);
}
