/* The meeting point of the devices of a multi-device run (one thread per
 * device, interp/run_devices.c): every collective is a rendezvous of all devices.
 *
 * Devices execute the same program, so the k-th collective each device
 * executes is the same instruction.  A collective runs in two phases:
 *
 *   rdv_publish   post this device's operands (any pointer) and wait until
 *                 every device has posted; the instructions must agree.
 *   (compute)     read the posted operands of the group (read-only).
 *   rdv_release   wait until every device has finished reading; only then
 *                 may the posted operands be freed.
 *
 * Failure never hangs: a device whose run fails calls rdv_fail (waiters
 * then fail with "device N failed: ..."), a device whose run ends calls
 * rdv_finish (a device still waiting at a collective then fails).
 * rdv_release waits even after a failure, because peers may still be
 * reading this device's operands; it never blocks for long since reading
 * needs no other device.
 *
 * Ranked runs (mpirun, interp/collective/mpi_world.h): this process runs
 * only the devices [lo, hi) of the run.  When every local device has
 * published (or ended, or the run aborted), one thread of the process
 * (rdv_wait_local) exchanges with the other ranks, posts their devices'
 * operands (rdv_post_remote) and lets the local devices compute
 * (rdv_open), or aborts them with the other rank's reason (rdv_abort).
 * The payload is explicit data (arrays: type, dims, bytes) so that it can
 * travel. */
#ifndef HLO_INTERP_COLLECTIVE_RENDEZVOUS_H
#define HLO_INTERP_COLLECTIVE_RENDEZVOUS_H

#include <stdbool.h>

#include "base/error.h"
#include "kernels/k_types.h"
#include "parser/ir.h"

typedef struct Rendezvous Rendezvous;

/* names[d] describes device d in messages ("device 1 (replica 1)"); the
 * strings must outlive the rendezvous. */
Rendezvous *rdv_new(int ndevices, const char *const *names);
/* A rendezvous of which this process runs devices [lo, hi) only. */
Rendezvous *rdv_new_ranked(int ndevices, const char *const *names, int lo, int hi);
void rdv_free(Rendezvous *r);

/* Posts the n arrays of this device for collective `in` (read-only, alive
 * until rdv_release) and waits for every device.  False (err set) when a
 * device failed or finished, or the devices reached different
 * collectives. */
bool rdv_publish(Rendezvous *r, int device, const Instr *in, const KArray *arrays, int n,
                 Error *err);
/* What device d posted for the current collective, *n arrays (valid
 * between rdv_publish and rdv_release). */
const KArray *rdv_payload(const Rendezvous *r, int device, int *n);
/* Waits until every device has finished reading the posted operands.
 * False (err set) when the run was aborted meanwhile.  A device that has
 * failed on its own while computing passes err NULL: it keeps its error
 * and is not counted as stopped by the abort (rdv_stopped_by_abort). */
bool rdv_release(Rendezvous *r, int device, Error *err);

/* The run of `device` failed with msg: abort the rendezvous (the first
 * failure is the one reported). */
void rdv_fail(Rendezvous *r, int device, const char *msg);
/* The run of `device` ended normally. */
void rdv_finish(Rendezvous *r, int device);
/* Whether device left a collective because the run was aborted (its error
 * is the abort's reason), rather than failing on its own. */
bool rdv_stopped_by_abort(Rendezvous *r, int device);
/* The device whose failure aborted the run, or -1; its message. */
int rdv_failed_device(const Rendezvous *r, const char **msg);

/* --- ranked runs: the one thread that talks to the other ranks --- */

typedef enum {
  RDV_LOCAL_PUBLISHED, /* every local device waits at *at */
  RDV_LOCAL_ENDED,     /* every local device ended its program */
  RDV_LOCAL_ABORTED,   /* the run aborted here: *failed (-1 if none), reason */
} RdvLocal;

/* Waits until one of the above holds for the local devices. */
RdvLocal rdv_wait_local(Rendezvous *r, const Instr **at, int *failed, char *reason,
                        size_t reason_size);
/* Remote device d's arrays for the collective being exchanged (alive until
 * the local devices have released it). */
void rdv_post_remote(Rendezvous *r, int device, const KArray *arrays, int n);
/* Every device's operands are in place: the local devices compute. */
void rdv_open(Rendezvous *r);
/* Another rank failed or disagreed: abort the local devices with reason
 * (failed: the global device whose run failed, or -1). */
void rdv_abort(Rendezvous *r, int failed, const char *reason);

#endif
