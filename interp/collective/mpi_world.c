/* Devices as MPI processes (interp/collective/mpi_world.h). */
#include "interp/collective/mpi_world.h"

#include <stdlib.h>

bool mpi_launched(void) {
  const char *s = getenv("OMPI_COMM_WORLD_SIZE");
  return (s && *s) || getenv("PMIX_RANK") != NULL;
}

#ifndef HLO_HAVE_MPI

bool mpi_world_init(int *rank, int *size, Error *err) {
  *rank = 0;
  *size = 1;
  return error_set(err, ERR_USAGE, -1,
                   "this process was started by mpirun, but this build of hlotools has no MPI "
                   "(install libopenmpi-dev and rebuild; docs/mpi.md), or run it without mpirun");
}
int mpi_world_exit(int status) { return status; }
void mpi_world_agree(void) {}
MpiExchange *mpi_exchange_new(int ndevices, int lo, int hi, const char *const *names) {
  (void)ndevices, (void)lo, (void)hi, (void)names;
  return NULL;
}
void mpi_exchange_run(MpiExchange *x, Rendezvous *r) {
  (void)x;
  rdv_abort(r, -1, "this build has no MPI");
}
const MpiTraffic *mpi_exchange_traffic(const MpiExchange *x, int *n) {
  (void)x;
  *n = 0;
  return NULL;
}
void mpi_exchange_free(MpiExchange *x) { (void)x; }
int64_t mpi_exchange_peak_bytes(const MpiExchange *x) {
  (void)x;
  return 0;
}
bool mpi_gather_blobs(const void *mine, int64_t nbytes, void ***data, int64_t **sizes,
                      Error *err) {
  (void)mine, (void)nbytes, (void)data, (void)sizes;
  return error_set(err, ERR_RUNTIME, -1, "this build has no MPI");
}

#else

#include <inttypes.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "layout/etype.h"

static bool inited, agreed;
static int world_rank, world_size;

bool mpi_world_init(int *rank, int *size, Error *err) {
  int provided = 0;
  if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    return error_set(err, ERR_RUNTIME, -1, "MPI could not start (MPI_Init_thread)");
  inited = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  *rank = world_rank;
  *size = world_size;
  if (provided < MPI_THREAD_FUNNELED)
    return error_set(err, ERR_RUNTIME, -1,
                     "this MPI library gives no thread support (MPI_THREAD_FUNNELED)");
  return true;
}

void mpi_world_agree(void) { agreed = true; }

int mpi_world_exit(int status) {
  if (!inited) return status;
  fflush(stdout);
  fflush(stderr);
  if (status == 0 || agreed) {
    MPI_Finalize();
    return status;
  }
  /* This rank failed on its own (before the run, or reading its inputs):
   * the others may be waiting for it at an exchange. */
  MPI_Abort(MPI_COMM_WORLD, status);
  return status;
}

/* Arrays travel in 64-byte units: every array starts aligned for any
 * element type, and counts of units reach 128 GiB within MPI's int. */
enum { UNIT = 64 };

enum { ST_PUBLISHED = 1, ST_ENDED, ST_ABORTED };

/* What each rank says at each exchange. */
typedef struct Header {
  int32_t status;
  int32_t failed;     /* ST_ABORTED: the device whose run failed, or -1 */
  int64_t key;        /* ST_PUBLISHED: the collective's byte offset in the module */
  int64_t nmeta;      /* int64 words describing the local devices' arrays */
  int64_t units;      /* UNIT-sized blocks of array data */
  int64_t bytes;      /* the arrays' own bytes (units without padding) */
  char at[64];        /* the collective's name */
  char reason[1024];  /* ST_ABORTED */
} Header;

struct MpiExchange {
  int n, lo, hi;
  const char *const *names;
  Header *headers;               /* one per rank */
  int *counts, *displs;          /* scratch for Allgatherv */
  int64_t *meta, *all_meta;      /* sent, received descriptions */
  unsigned char *data, *all_data;
  KArray *arrays;                /* remote devices' arrays (into all_data) */
  int64_t *dims;                 /* their dims (into all_meta) */
  MPI_Datatype unit;
  MpiTraffic *traffic;
  int ntraffic, captraffic;
  int64_t peak_bytes;
};

int64_t mpi_exchange_peak_bytes(const MpiExchange *x) { return x ? x->peak_bytes : 0; }

MpiExchange *mpi_exchange_new(int ndevices, int lo, int hi, const char *const *names) {
  MpiExchange *x = calloc(1, sizeof *x);
  if (!x) return NULL;
  x->n = ndevices;
  x->lo = lo;
  x->hi = hi;
  x->names = names;
  x->headers = calloc((size_t)world_size, sizeof *x->headers);
  x->counts = calloc((size_t)world_size, sizeof *x->counts);
  x->displs = calloc((size_t)world_size, sizeof *x->displs);
  if (!x->headers || !x->counts || !x->displs) {
    mpi_exchange_free(x);
    return NULL;
  }
  MPI_Type_contiguous(UNIT, MPI_BYTE, &x->unit);
  MPI_Type_commit(&x->unit);
  return x;
}

static void drop_buffers(MpiExchange *x) {
  free(x->meta);
  free(x->all_meta);
  free(x->data);
  free(x->all_data);
  free(x->arrays);
  x->meta = x->all_meta = NULL;
  x->data = x->all_data = NULL;
  x->arrays = NULL;
}

void mpi_exchange_free(MpiExchange *x) {
  if (!x) return;
  drop_buffers(x);
  if (x->unit) MPI_Type_free(&x->unit);
  free(x->headers);
  free(x->counts);
  free(x->displs);
  free(x->traffic);
  free(x);
}

const MpiTraffic *mpi_exchange_traffic(const MpiExchange *x, int *n) {
  *n = x ? x->ntraffic : 0;
  return x ? x->traffic : NULL;
}

static int64_t array_bytes(const KArray *a) {
  int64_t n = 1;
  for (int k = 0; k < a->rank; k++) n *= a->dims[k];
  return n * (int64_t)k_elem_size(a->etype);
}

static int64_t units_of(int64_t bytes) { return (bytes + UNIT - 1) / UNIT; }

/* The local devices' posted arrays as meta words (per device: n; per
 * array: etype, rank, dims..., bytes) and UNIT-aligned data. */
static bool pack(MpiExchange *x, Rendezvous *r, Header *h) {
  int64_t nmeta = 0, units = 0, bytes = 0;
  for (int d = x->lo; d < x->hi; d++) {
    int na;
    const KArray *a = rdv_payload(r, d, &na);
    nmeta += 1;
    for (int i = 0; i < na; i++) {
      nmeta += 3 + a[i].rank;
      units += units_of(array_bytes(&a[i]));
      bytes += array_bytes(&a[i]);
    }
  }
  h->bytes = bytes;
  x->meta = malloc((size_t)(nmeta ? nmeta : 1) * sizeof *x->meta);
  x->data = malloc((size_t)(units ? units : 1) * UNIT);
  if (!x->meta || !x->data) return false;
  int64_t m = 0;
  unsigned char *p = x->data;
  for (int d = x->lo; d < x->hi; d++) {
    int na;
    const KArray *a = rdv_payload(r, d, &na);
    x->meta[m++] = na;
    for (int i = 0; i < na; i++) {
      int64_t nb = array_bytes(&a[i]);
      x->meta[m++] = a[i].etype;
      x->meta[m++] = a[i].rank;
      for (int k = 0; k < a[i].rank; k++) x->meta[m++] = a[i].dims[k];
      x->meta[m++] = nb;
      if (nb) memcpy(p, a[i].data, (size_t)nb);
      p += units_of(nb) * UNIT;
    }
  }
  h->nmeta = nmeta;
  h->units = units;
  return true;
}

/* Points the remote devices' posted arrays into the received buffers. */
static bool unpack(MpiExchange *x, Rendezvous *r, int64_t total_arrays) {
  x->arrays = malloc((size_t)(total_arrays ? total_arrays : 1) * sizeof *x->arrays);
  if (!x->arrays) return false;
  int64_t m = 0, unit = 0, next = 0;
  int per = x->hi - x->lo;
  for (int k = 0; k < world_size; k++) {
    for (int d = k * per; d < (k + 1) * per; d++) {
      int na = (int)x->all_meta[m++];
      KArray *a = &x->arrays[next];
      for (int i = 0; i < na; i++) {
        a[i].etype = (EType)x->all_meta[m++];
        a[i].rank = (int)x->all_meta[m++];
        a[i].dims = &x->all_meta[m];
        m += a[i].rank;
        int64_t bytes = x->all_meta[m++];
        a[i].data = x->all_data + unit * UNIT;
        unit += units_of(bytes);
      }
      next += na;
      if (d < x->lo || d >= x->hi) rdv_post_remote(r, d, a, na);
    }
  }
  return true;
}

static void count_traffic(MpiExchange *x, const Instr *in, int64_t sent, int64_t received) {
  for (int i = 0; i < x->ntraffic; i++) {
    if (x->traffic[i].instr != in) continue;
    x->traffic[i].count++;
    x->traffic[i].bytes_sent += sent;
    x->traffic[i].bytes_received += received;
    return;
  }
  if (x->ntraffic == x->captraffic) {
    int cap = x->captraffic ? 2 * x->captraffic : 16;
    MpiTraffic *t = realloc(x->traffic, (size_t)cap * sizeof *t);
    if (!t) return; /* statistics only */
    x->traffic = t;
    x->captraffic = cap;
  }
  x->traffic[x->ntraffic++] = (MpiTraffic){in, 1, sent, received};
}

/* The verdict when not every rank published the same collective: the
 * lowest rank that aborted gives the reason; else the ranks disagree. */
static void verdict(MpiExchange *x, Rendezvous *r) {
  int per = x->hi - x->lo;
  for (int k = 0; k < world_size; k++) {
    const Header *h = &x->headers[k];
    if (h->status != ST_ABORTED) continue;
    if (k != world_rank) rdv_abort(r, -1, h->reason);
    return;
  }
  const Header *pub = NULL;
  int kp = -1, ke = -1;
  for (int k = 0; k < world_size; k++) {
    if (x->headers[k].status == ST_PUBLISHED && !pub) pub = &x->headers[kp = k];
    if (x->headers[k].status == ST_ENDED && ke < 0) ke = k;
  }
  if (!pub) return; /* every rank ended: the run is over */
  char why[1024];
  if (ke >= 0) {
    snprintf(why, sizeof why,
             "the devices ran different collectives: %s waits at %s, but the devices of "
             "rank %d finished the program",
             x->names[kp * per], pub->at, ke);
  } else {
    int k = 0;
    while (k < world_size && x->headers[k].key == pub->key) k++;
    snprintf(why, sizeof why, "the devices reached different collectives: %s is at %s, %s at %s",
             x->names[kp * per], pub->at, x->names[k * per], x->headers[k].at);
  }
  rdv_abort(r, -1, why);
}

void mpi_exchange_run(MpiExchange *x, Rendezvous *r) {
  for (;;) {
    Header mine;
    memset(&mine, 0, sizeof mine);
    const Instr *at = NULL;
    int failed = -1;
    RdvLocal what = rdv_wait_local(r, &at, &failed, mine.reason, sizeof mine.reason);
    mine.failed = failed;
    if (what == RDV_LOCAL_PUBLISHED) {
      /* Every local device has released the previous exchange; after an
       * abort some may still be reading it (freed by mpi_exchange_free). */
      drop_buffers(x);
      mine.status = ST_PUBLISHED;
      mine.key = at->offset;
      snprintf(mine.at, sizeof mine.at, "%s", at->name);
      if (!pack(x, r, &mine)) {
        mine.status = ST_ABORTED;
        mine.failed = -1;
        snprintf(mine.reason, sizeof mine.reason, "rank %d: out of memory exchanging %s",
                 world_rank, at->name);
        rdv_abort(r, -1, mine.reason);
      }
    } else {
      mine.status = what == RDV_LOCAL_ENDED ? ST_ENDED : ST_ABORTED;
    }
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, x->headers, (int)sizeof mine, MPI_BYTE,
                  MPI_COMM_WORLD);
    bool same = true;
    int64_t nmeta = 0, units = 0, bytes = 0;
    for (int k = 0; k < world_size; k++) {
      bytes += x->headers[k].bytes;
      same = same && x->headers[k].status == ST_PUBLISHED && x->headers[k].key == x->headers[0].key;
      nmeta += x->headers[k].nmeta;
      units += x->headers[k].units;
    }
    if (!same) {
      verdict(x, r);
      return;
    }
    if (nmeta > INT_MAX || units > INT_MAX) {
      rdv_abort(r, -1, "a collective's operands exceed what one MPI exchange carries (128 GiB)");
      return;
    }
    x->all_meta = malloc((size_t)(nmeta ? nmeta : 1) * sizeof *x->all_meta);
    x->all_data = malloc((size_t)(units ? units : 1) * UNIT);
    /* Every rank allocates; one that cannot still takes part (MPI needs the
     * receive buffer), so exchange the outcome first. */
    int have = x->all_meta && x->all_data, all_have = 0;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_have) {
      char why[128];
      snprintf(why, sizeof why, "out of memory on a rank exchanging %s", mine.at);
      rdv_abort(r, -1, why);
      return;
    }
    int64_t off = 0;
    for (int k = 0; k < world_size; k++) {
      x->counts[k] = (int)x->headers[k].nmeta;
      x->displs[k] = (int)off;
      off += x->headers[k].nmeta;
    }
    MPI_Allgatherv(x->meta, (int)mine.nmeta, MPI_INT64_T, x->all_meta, x->counts, x->displs,
                   MPI_INT64_T, MPI_COMM_WORLD);
    off = 0;
    for (int k = 0; k < world_size; k++) {
      x->counts[k] = (int)x->headers[k].units;
      x->displs[k] = (int)off;
      off += x->headers[k].units;
    }
    MPI_Allgatherv(x->data, (int)mine.units, x->unit, x->all_data, x->counts, x->displs, x->unit,
                   MPI_COMM_WORLD);
    int64_t arrays = 0;
    for (int d = 0, m = 0; d < x->n; d++) { /* count arrays: one word per device plus theirs */
      int na = (int)x->all_meta[m++];
      arrays += na;
      for (int i = 0; i < na; i++) m += 3 + (int)x->all_meta[m + 1];
    }
    if (!unpack(x, r, arrays)) {
      rdv_abort(r, -1, "out of memory exchanging a collective's operands");
      return;
    }
    int64_t held = (mine.units + units) * UNIT + (mine.nmeta + nmeta) * 8;
    if (held > x->peak_bytes) x->peak_bytes = held;
    /* Allgather: each rank's arrays go to every other rank. */
    count_traffic(x, at, mine.bytes * (world_size - 1), bytes - mine.bytes);
    rdv_open(r);
  }
}

bool mpi_gather_blobs(const void *mine, int64_t nbytes, void ***data, int64_t **sizes,
                      Error *err) {
  int64_t *all = world_rank == 0 ? calloc((size_t)world_size, sizeof *all) : NULL;
  int64_t dummy = 0;
  MPI_Gather(&nbytes, 1, MPI_INT64_T, all ? all : &dummy, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  /* Rank 0 makes room for everything first and says whether it could, so
   * that no sender is left waiting. */
  void **bufs = NULL;
  int ok = 1;
  if (world_rank == 0) {
    bufs = all ? calloc((size_t)world_size, sizeof *bufs) : NULL;
    ok = bufs != NULL;
    for (int k = 1; ok && k < world_size; k++)
      ok = (bufs[k] = malloc((size_t)(all[k] ? all[k] : 1))) != NULL;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok) {
    for (int k = 0; bufs && k < world_size; k++) free(bufs[k]);
    free(bufs);
    free(all);
    return error_set(err, ERR_RUNTIME, -1, "out of memory on rank 0 gathering the results");
  }
  /* Sent in pieces: MPI counts are ints. */
  const int64_t piece = (int64_t)1 << 30;
  if (world_rank != 0) {
    for (int64_t o = 0; o < nbytes; o += piece) {
      int64_t len = nbytes - o < piece ? nbytes - o : piece;
      MPI_Send((const char *)mine + o, (int)len, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
    return true;
  }
  for (int k = 1; k < world_size; k++)
    for (int64_t o = 0; o < all[k]; o += piece) {
      int64_t len = all[k] - o < piece ? all[k] - o : piece;
      MPI_Recv((char *)bufs[k] + o, (int)len, MPI_BYTE, k, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  *data = bufs;
  *sizes = all;
  return true;
}

#endif
