/* Which devices take part in a collective with a given device, following
 * XLA's CollectiveOpGroupMode (xla/service/collective_ops_utils.cc):
 *
 *   no channel_id                        cross-replica: replica_groups hold
 *                                        replica ids; the group is those
 *                                        replicas of the device's partition
 *   channel_id, use_global_device_ids    flattened ids: replica_groups hold
 *     =true                              global ids r * partitions + p
 *   channel_id, use_global_device_ids    cross-replica-and-partition: the
 *     =false (all-reduce, all-gather,    listed replicas, every partition
 *     reduce-scatter)                    of each (replica-major)
 *   channel_id, ops without that field   cross-partition: replica_groups
 *     (all-to-all, collective-permute,   hold partition ids of the device's
 *     collective-broadcast)              replica
 *
 * Empty replica_groups mean one group of every replica (every partition for
 * cross-partition).  Devices are numbered by XLA's default assignment:
 * global id = replica * partitions + partition.  Iota groups come expanded
 * from the parser (ReplicaGroups.groups). */
#ifndef HLO_INTERP_COLLECTIVE_GROUPS_H
#define HLO_INTERP_COLLECTIVE_GROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "parser/ir.h"

/* The most devices a run may have (interp/run.c checks). */
enum { COLLECTIVE_MAX_DEVICES = 64 };

typedef enum {
  CG_CROSS_REPLICA,
  CG_CROSS_PARTITION,
  CG_CROSS_REPLICA_AND_PARTITION,
  CG_FLATTENED_ID
} CollectiveGroupMode;

bool collective_group_mode(const Instr *in, CollectiveGroupMode *mode, Error *err);

/* The group of global device `device` among replicas x partitions devices:
 * members[0..*n) in the group's order (members has room for replicas *
 * partitions ids), *index = device's position in it. */
bool collective_group(const Instr *in, int64_t replicas, int64_t partitions, int64_t device,
                      int64_t *members, int *n, int *index, Error *err);

/* collective-permute: the global device `device` receives from (*source,
 * -1 when no pair targets it).  Pairs hold replica ids without channel_id,
 * partition ids with one. */
bool collective_permute_source(const Instr *in, int64_t replicas, int64_t partitions,
                               int64_t device, int64_t *source, Error *err);

/* The smallest device grid the module's collectives name, for modules
 * whose header gives neither replica_count nor num_partitions (dumps often
 * omit them): every id in replica_groups, source_target_pairs and the
 * _xla_send_recv_source_target_pairs of device-to-device send / recv must
 * exist.  Ids read as partition ids (cross-partition, collective-permute
 * with channel_id) or global ids (use_global_device_ids) grow the
 * partitions, replica ids the replicas.  1 x 1 when nothing asks for
 * more. */
void collective_grid_needed(const Module *m, int64_t *replicas, int64_t *partitions);

#endif
