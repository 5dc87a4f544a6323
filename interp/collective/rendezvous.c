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
  const char *const *names;
  int arrived, released, finished;
  uint64_t gen, release_gen;
  const Instr **posted;
  const void **payload;
  bool aborted;
  bool *stopped;     /* per device: released by the abort, not failed itself */
  int failed_device; /* whose run failed, or -1 (a mismatch, an early end) */
  char reason[sizeof(((Error *)0)->msg)];
};

Rendezvous *rdv_new(int ndevices, const char *const *names) {
  Rendezvous *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->posted = calloc((size_t)ndevices, sizeof *r->posted);
  r->payload = calloc((size_t)ndevices, sizeof *r->payload);
  r->stopped = calloc((size_t)ndevices, sizeof *r->stopped);
  if (!r->posted || !r->payload || !r->stopped || pthread_mutex_init(&r->mu, NULL) != 0) {
    free(r->posted);
    free(r->payload);
    free(r->stopped);
    free(r);
    return NULL;
  }
  if (pthread_cond_init(&r->cv, NULL) != 0) {
    pthread_mutex_destroy(&r->mu);
    free(r->posted);
    free(r->payload);
    free(r->stopped);
    free(r);
    return NULL;
  }
  r->n = ndevices;
  r->names = names;
  r->failed_device = -1;
  return r;
}

void rdv_free(Rendezvous *r) {
  if (!r) return;
  pthread_cond_destroy(&r->cv);
  pthread_mutex_destroy(&r->mu);
  free(r->posted);
  free(r->payload);
  free(r->stopped);
  free(r);
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
  for (int i = 0; i < r->n; i++)
    if (r->posted[i]) return r->posted[i];
  return NULL;
}

bool rdv_publish(Rendezvous *r, int device, const Instr *in, const void *payload, Error *err) {
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
  r->payload[device] = payload;
  if (++r->arrived == r->n) {
    for (int i = 0; i < r->n; i++) {
      if (r->posted[i] == in) continue;
      snprintf(why, sizeof why,
               "the devices reached different collectives: %s is at %s, %s at %s",
               r->names[device], in->name, r->names[i], r->posted[i]->name);
      abort_locked(r, -1, why);
      bool ok = aborted_error(r, device, err);
      pthread_mutex_unlock(&r->mu);
      return ok;
    }
    r->arrived = 0;
    for (int i = 0; i < r->n; i++) r->posted[i] = NULL;
    r->gen++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return true;
  }
  uint64_t my = r->gen;
  while (r->gen == my && !r->aborted) pthread_cond_wait(&r->cv, &r->mu);
  /* Passed when the generation moved, even if an abort came after it:
   * then every device passed and will call rdv_release. */
  bool ok = r->gen != my || aborted_error(r, device, err);
  pthread_mutex_unlock(&r->mu);
  return ok;
}

const void *rdv_payload(const Rendezvous *r, int device) { return r->payload[device]; }

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
