/* Devices as MPI processes (docs/mpi.md): a run launched by `mpirun -np K`
 * spreads its replicas x partitions devices over the K ranks, rank k
 * running the contiguous block [k * n/K, (k+1) * n/K) with the usual
 * thread per device.
 *
 * At every rendezvous the process's main thread (the only one that calls
 * MPI: MPI_THREAD_FUNNELED) exchanges with the other ranks, once every
 * local device has published: a fixed header per rank (status, the
 * collective, the failure message), then every local device's operands.
 * Every rank then holds every device's operands and the in-process
 * collective code runs unchanged, in the same fixed order: results are
 * bit-identical to the in-process run whatever K is.  A rank whose device
 * failed says so in its header; every rank then aborts with that message,
 * so no rank waits for ever.
 *
 * Builds without MPI (HLO_HAVE_MPI unset) keep the interface: only
 * mpi_launched works, mpi_world_init says the build has no MPI. */
#ifndef HLO_INTERP_COLLECTIVE_MPI_WORLD_H
#define HLO_INTERP_COLLECTIVE_MPI_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "interp/collective/rendezvous.h"

/* Whether mpirun (Open MPI, or any PMIx launcher) started this process:
 * OMPI_COMM_WORLD_SIZE or PMIX_RANK in the environment.  Reads the
 * environment only: a plain start never initialises MPI. */
bool mpi_launched(void);

/* MPI_Init_thread (funnelled); *rank, *size of MPI_COMM_WORLD.  False
 * (err set) when this build has no MPI or MPI cannot start. */
bool mpi_world_init(int *rank, int *size, Error *err);
/* Ends the MPI job of this process (status its exit status): MPI_Finalize
 * when the status is 0 or every rank agreed on the failure
 * (mpi_world_agree), else MPI_Abort, the last resort against ranks left
 * waiting for this one.  No-op when MPI was not initialised. */
int mpi_world_exit(int status);
/* Every rank reached the same verdict on the run (success, or a failure
 * they all report): finalising cannot leave a rank waiting. */
void mpi_world_agree(void);

/* Traffic of one collective instruction on this rank (--stats). */
typedef struct MpiTraffic {
  const Instr *instr;
  int64_t count;                /* exchanges */
  int64_t bytes_sent, bytes_received;
} MpiTraffic;

typedef struct MpiExchange MpiExchange;

/* The exchanger of a ranked run of ndevices devices, this rank running
 * [lo, hi); names[d] names every device in messages. */
MpiExchange *mpi_exchange_new(int ndevices, int lo, int hi, const char *const *names);
/* Exchanges at every rendezvous of r until every device of every rank
 * ended or the run aborted (r is then aborted with the reason, on every
 * rank).  Runs in the thread that initialised MPI. */
void mpi_exchange_run(MpiExchange *x, Rendezvous *r);
/* Per-collective traffic of this rank, *n entries (valid until freed). */
const MpiTraffic *mpi_exchange_traffic(const MpiExchange *x, int *n);
/* The most bytes of operands (sent and received) held for one exchange. */
int64_t mpi_exchange_peak_bytes(const MpiExchange *x);
/* Frees the received operands: only once the local devices have stopped. */
void mpi_exchange_free(MpiExchange *x);

/* Rank 0 receives one blob from each other rank (sizes[k], data[k], both
 * allocated, rank 0's own entry empty); every other rank sends its blob.
 * Collective over MPI_COMM_WORLD. */
bool mpi_gather_blobs(const void *mine, int64_t nbytes, void ***data, int64_t **sizes,
                      Error *err);

#endif
