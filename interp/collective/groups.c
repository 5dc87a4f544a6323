/* Collective participants (interp/collective/groups.h). */
#include "interp/collective/groups.h"

#include <inttypes.h>
#include <stdlib.h>

#include "interp/collective/send_recv_pairs.h"

static bool has_global_ids_field(Opcode op) {
  switch (op) {
  case OP_ALL_REDUCE: case OP_ALL_REDUCE_START: case OP_REDUCE_SCATTER:
  case OP_ALL_GATHER: case OP_ALL_GATHER_START:
    return true;
  default: return false;
  }
}

bool collective_group_mode(const Instr *in, CollectiveGroupMode *mode, Error *err) {
  const Attr *ch = ir_attr(in, ATTR_CHANNEL_ID);
  const Attr *ug = ir_attr(in, ATTR_USE_GLOBAL_DEVICE_IDS);
  bool global = ug && ug->kind == AV_BOOL && ug->v.b;
  if (!ch) {
    if (global)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "use_global_device_ids=true needs a channel_id");
    *mode = CG_CROSS_REPLICA;
  } else if (!has_global_ids_field(in->op)) {
    *mode = CG_CROSS_PARTITION;
  } else {
    *mode = global ? CG_FLATTENED_ID : CG_CROSS_REPLICA_AND_PARTITION;
  }
  return true;
}

static const ReplicaGroups *groups_of(const Instr *in) {
  const Attr *a = ir_attr(in, ATTR_REPLICA_GROUPS);
  return a && a->kind == AV_REPLICA_GROUPS && a->v.groups.ngroups > 0 ? &a->v.groups : NULL;
}

static const char *mode_ids(CollectiveGroupMode mode) {
  switch (mode) {
  case CG_CROSS_PARTITION: return "partition";
  case CG_FLATTENED_ID: return "global device";
  default: return "replica";
  }
}

/* The listed group holding `id` (ids below `count`, none twice). */
static bool find_group(const Instr *in, const ReplicaGroups *g, CollectiveGroupMode mode,
                       int64_t count, int64_t id, const IntList **out, Error *err) {
  *out = NULL;
  for (int i = 0; i < g->ngroups; i++)
    for (int j = 0; j < g->groups[i].n; j++) {
      int64_t x = g->groups[i].v[j];
      if (x < 0 || x >= count)
        return error_set(err, ERR_RUNTIME, in->offset,
                         "replica_groups name %s id %" PRId64
                         ", but the run has %" PRId64 " (see --replicas / --partitions)",
                         mode_ids(mode), x, count);
      if (x != id) continue;
      if (*out)
        return error_set(err, ERR_RUNTIME, in->offset,
                         "%s id %" PRId64 " appears twice in replica_groups",
                         mode_ids(mode), id);
      *out = &g->groups[i];
    }
  if (!*out)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "%s id %" PRId64 " is in no replica group",
                     mode_ids(mode), id);
  return true;
}

bool collective_group(const Instr *in, int64_t replicas, int64_t partitions, int64_t device,
                      int64_t *members, int *n, int *index, Error *err) {
  CollectiveGroupMode mode;
  if (!collective_group_mode(in, &mode, err)) return false;
  int64_t r = device / partitions, p = device % partitions;
  const ReplicaGroups *g = groups_of(in);
  if (!g && mode == CG_FLATTENED_ID)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "use_global_device_ids=true needs replica_groups");
  int64_t count = mode == CG_CROSS_PARTITION ? partitions
                  : mode == CG_FLATTENED_ID  ? replicas * partitions
                                             : replicas;
  int64_t my = mode == CG_CROSS_PARTITION ? p : mode == CG_FLATTENED_ID ? device : r;
  const IntList *grp = NULL;
  if (g && !find_group(in, g, mode, count, my, &grp, err)) return false;
  int64_t size = grp ? grp->n : count;
  *n = 0;
  *index = -1;
  for (int64_t k = 0; k < size; k++) {
    int64_t id = grp ? grp->v[k] : k;
    switch (mode) {
    case CG_CROSS_REPLICA: members[(*n)++] = id * partitions + p; break;
    case CG_CROSS_PARTITION: members[(*n)++] = r * partitions + id; break;
    case CG_FLATTENED_ID: members[(*n)++] = id; break;
    case CG_CROSS_REPLICA_AND_PARTITION:
      for (int64_t q = 0; q < partitions; q++) members[(*n)++] = id * partitions + q;
      break;
    }
  }
  for (int i = 0; i < *n; i++)
    if (members[i] == device) *index = i;
  return true;
}

bool collective_permute_source(const Instr *in, int64_t replicas, int64_t partitions,
                               int64_t device, int64_t *source, Error *err) {
  bool cross_partition = ir_attr(in, ATTR_CHANNEL_ID) != NULL;
  int64_t count = cross_partition ? partitions : replicas;
  int64_t r = device / partitions, p = device % partitions;
  int64_t my = cross_partition ? p : r;
  const Attr *a = ir_attr(in, ATTR_SOURCE_TARGET_PAIRS);
  *source = -1;
  if (!a || a->kind != AV_INT_LISTS || (a->v.lists.depth != 2 && a->v.lists.flat.n > 0))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "source_target_pairs must be a list of {source,target} pairs");
  for (int i = 0; a->v.lists.depth == 2 && i < a->v.lists.n; i++) {
    const IntList *pr = &a->v.lists.lists[i];
    if (pr->n != 2)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "each source_target_pair must have two ids");
    for (int k = 0; k < 2; k++)
      if (pr->v[k] < 0 || pr->v[k] >= count)
        return error_set(err, ERR_RUNTIME, in->offset,
                         "source_target_pairs name %s id %" PRId64
                         ", but the run has %" PRId64 " (see --replicas / --partitions)",
                         cross_partition ? "partition" : "replica", pr->v[k], count);
    if (pr->v[1] != my) continue;
    int64_t from = cross_partition ? r * partitions + pr->v[0] : pr->v[0] * partitions + p;
    if (*source >= 0 && *source != from)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "%s %" PRId64 " is the target of more than one pair",
                       cross_partition ? "partition" : "replica", my);
    *source = from;
  }
  return true;
}

static bool is_collective(Opcode op) {
  switch (op) {
  case OP_ALL_REDUCE: case OP_ALL_REDUCE_START: case OP_REDUCE_SCATTER: case OP_ALL_GATHER:
  case OP_ALL_GATHER_START: case OP_ALL_TO_ALL: case OP_RAGGED_ALL_TO_ALL:
  case OP_COLLECTIVE_BROADCAST: case OP_COLLECTIVE_PERMUTE: case OP_COLLECTIVE_PERMUTE_START:
    return true;
  default: return false;
  }
}

/* The largest id in in's replica_groups or source_target_pairs, or -1. */
/* Devices a grid needs for an id to exist: id + 1, capped at the most a run
 * may have (an id of INT64_MAX must not wrap round to a one-device run; the
 * capped run reports the id it cannot place). */
static int64_t devices_for_id(int64_t id) {
  return id >= COLLECTIVE_MAX_DEVICES ? COLLECTIVE_MAX_DEVICES : id + 1;
}

static int64_t max_id(const Instr *in) {
  int64_t mx = -1;
  const ReplicaGroups *g = groups_of(in);
  for (int i = 0; g && i < g->ngroups; i++)
    for (int j = 0; j < g->groups[i].n; j++)
      if (g->groups[i].v[j] > mx) mx = g->groups[i].v[j];
  const Attr *a = ir_attr(in, ATTR_SOURCE_TARGET_PAIRS);
  if (a && a->kind == AV_INT_LISTS && a->v.lists.depth == 2)
    for (int i = 0; i < a->v.lists.n; i++)
      for (int j = 0; j < a->v.lists.lists[i].n; j++)
        if (a->v.lists.lists[i].v[j] > mx) mx = a->v.lists.lists[i].v[j];
  return mx;
}

/* A device-to-device send / recv: the devices its pairs name (partition ids
 * with a positive channel_id, replica ids with none or channel_id=0, as in
 * interp/collective/send_recv.c), 0 for none or host transfers. */
static int64_t send_recv_need(const Instr *in, bool *by_partition) {
  *by_partition = false;
  const Attr *host = ir_attr(in, ATTR_IS_HOST_TRANSFER);
  if ((in->op != OP_SEND && in->op != OP_RECV) || (host && host->v.b)) return 0;
  int64_t(*pairs)[2] = malloc(sizeof(int64_t[SEND_RECV_MAX_PAIRS][2]));
  int n = 0;
  int64_t need = 0;
  if (pairs && send_recv_pairs(in, pairs, &n, NULL))
    for (int k = 0; k < n; k++)
      for (int j = 0; j < 2; j++)
        if (pairs[k][j] >= need) need = devices_for_id(pairs[k][j]);
  free(pairs);
  const Attr *ch = ir_attr(in, ATTR_CHANNEL_ID);
  *by_partition = ch && ch->v.i > 0;
  return need;
}

void collective_grid_needed(const Module *m, int64_t *replicas, int64_t *partitions) {
  int64_t r = 1, p = 1, flat = 1;
  for (int c = 0; c < m->ncomps; c++)
    for (int i = 0; i < m->comps[c]->ninstrs; i++) {
      const Instr *in = m->comps[c]->instrs[i];
      bool by_partition;
      int64_t sr = send_recv_need(in, &by_partition);
      if (sr > COLLECTIVE_MAX_DEVICES) sr = COLLECTIVE_MAX_DEVICES;
      if (by_partition && sr > p) p = sr;
      if (!by_partition && sr > r) r = sr;
      CollectiveGroupMode mode;
      if (!is_collective(in->op) || !collective_group_mode(in, &mode, NULL)) continue;
      int64_t need = devices_for_id(max_id(in));
      switch (mode) {
      case CG_CROSS_PARTITION: if (need > p) p = need; break;
      case CG_FLATTENED_ID: if (need > flat) flat = need; break;
      default: if (need > r) r = need; break;
      }
    }
  /* Global ids r * partitions + p below r * partitions: widen the
   * partitions (SPMD programs use global ids over partitions). */
  if (r * p < flat) p = (flat + r - 1) / r;
  *replicas = r;
  *partitions = p;
}
