/* Shared by run.c (one device: the whole run) and run_devices.c (one
 * thread per device); not a public interface. */
#ifndef HLO_INTERP_RUN_INTERNAL_H
#define HLO_INTERP_RUN_INTERNAL_H

#include <stddef.h>

#include "interp/memspace.h"
#include "interp/collective/rendezvous.h"
#include "interp/run.h"

/* Which device a run_device call is, in a run of replicas x partitions. */
typedef struct RunDevice {
  Rendezvous *rendezvous; /* NULL for a single device */
  int64_t id, replicas, partitions;
  bool trace;             /* only one device writes the trace */
  MemHostBudget *host;    /* host memory shared by the devices, or NULL */
} RunDevice;

/* Binds the inputs and evaluates the entry computation on one device (the
 * whole run of a single-device run; one thread of a multi-device run). */
bool run_device(const Module *m, const RunOptions *opt, const RunInput *inputs, int ninputs,
                const RunDevice *dev, RunResult *res, Error *err);

/* Runs replicas x partitions (> 1) devices, one thread each, all joined
 * before returning: res becomes device 0's result, res->devices the
 * others'.  The error is the first device failure, prefixed with its
 * device. */
bool run_devices(const Module *m, const RunOptions *opt, const RunInput *inputs, int ninputs,
                 int64_t replicas, int64_t partitions, RunResult *res, Error *err);

#endif
