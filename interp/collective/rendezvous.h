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
 * needs no other device. */
#ifndef HLO_INTERP_COLLECTIVE_RENDEZVOUS_H
#define HLO_INTERP_COLLECTIVE_RENDEZVOUS_H

#include <stdbool.h>

#include "base/error.h"
#include "parser/ir.h"

typedef struct Rendezvous Rendezvous;

/* names[d] describes device d in messages ("device 1 (replica 1)"); the
 * strings must outlive the rendezvous. */
Rendezvous *rdv_new(int ndevices, const char *const *names);
void rdv_free(Rendezvous *r);

/* Posts `payload` for collective `in` and waits for every device.  False
 * (err set) when a device failed or finished, or the devices reached
 * different collectives. */
bool rdv_publish(Rendezvous *r, int device, const Instr *in, const void *payload, Error *err);
/* What device d posted for the current collective (valid between
 * rdv_publish and rdv_release). */
const void *rdv_payload(const Rendezvous *r, int device);
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

#endif
