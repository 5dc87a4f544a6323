/* Old-style XLA:CPU custom calls (old_call.h) and the status functions a
 * user's library calls back. */
#include "interp/custom_call/old_call.h"

#include <stdlib.h>
#include <string.h>

#include "hlotools/custom_call_status.h"
#include "interp/custom_call/call_leaves.h"

/* What XlaCustomCallStatus is inside hlotools. */
struct XlaCustomCallStatus_ {
  bool failed;
  char message[1024];
};

void XlaCustomCallStatusSetSuccess(XlaCustomCallStatus *status) {
  if (status) status->failed = false;
}

void XlaCustomCallStatusSetFailure(XlaCustomCallStatus *status, const char *message,
                                   size_t message_len) {
  if (!status) return;
  status->failed = true;
  size_t n = message ? message_len : 0;
  if (n >= sizeof status->message) n = sizeof status->message - 1;
  if (n) memcpy(status->message, message, n);
  status->message[n] = '\0';
}

typedef void OriginalFn(void *out, const void **ins);
typedef void StatusFn(void *out, const void **ins, XlaCustomCallStatus *status);
typedef void UnifiedFn(void *out, const void **ins, const char *opaque, size_t opaque_len,
                       XlaCustomCallStatus *status);

static const char *opaque_of(const Instr *in) {
  for (int i = 0; i < in->nattrs; i++)
    if (in->attrs[i].name && strcmp(in->attrs[i].name, "opaque") == 0 &&
        in->attrs[i].kind == AV_STRING)
      return in->attrs[i].v.s ? in->attrs[i].v.s : "";
  return "";
}

/* The pointer for one operand: its data, or for a tuple the table of its
 * elements' data (tables in `tables`, nleaves slots).  *leaf walks the
 * flattened leaves of cl. */
static const void *operand_pointer(const Value *v, const CallLeaves *cl, int *leaf,
                                   const void **tables, int *ntables) {
  if (v->ntuple > 0 || (v->shape && shape_is_tuple(v->shape))) {
    const void **t = &tables[*ntables];
    *ntables += v->ntuple;
    for (int i = 0; i < v->ntuple; i++) t[i] = operand_pointer(v->elems[i], cl, leaf, tables, ntables);
    return t;
  }
  int view = cl->leaf_view[(*leaf)++];
  return view >= 0 ? cl->ins.a[view].data : NULL;
}

static bool fn_call(const Instr *in, const char *target, OldCallFn *fn, OldCallKind kind, void *out,
                    const void **ins, Error *err) {
  XlaCustomCallStatus status = {0};
  const char *opaque = opaque_of(in);
  switch (kind) {
  case OLD_CALL_ORIGINAL: ((OriginalFn *)fn)(out, ins); break;
  case OLD_CALL_STATUS_RETURNING: ((StatusFn *)fn)(out, ins, &status); break;
  case OLD_CALL_STATUS_RETURNING_UNIFIED:
    ((UnifiedFn *)fn)(out, ins, opaque, strlen(opaque), &status);
    break;
  }
  if (!status.failed) return true;
  return error_set(err, ERR_RUNTIME, in->offset, "custom-call %s failed: %s", target,
                   status.message);
}

bool old_call_run(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target, OldCallFn *fn,
                  OldCallKind kind, const Shape *rs, Value **out, Error *err) {
  CallLeaves cl;
  if (!call_leaves_open(ctx, fr, in, target, rs, &cl, err)) return false;
  /* Every operand and every tuple element takes at most one slot. */
  size_t slots = (size_t)(in->noperands + 2 * cl.nleaves + 1);
  const void **ins = calloc(slots, sizeof *ins);
  void **outs = calloc((size_t)cl.outs.n + 1, sizeof *outs);
  bool ok = ins && outs;
  if (!ok) error_set(err, ERR_RUNTIME, -1, "out of memory");
  if (ok) {
    int leaf = 0, ntables = in->noperands;
    for (int k = 0; k < in->noperands; k++)
      ins[k] = operand_pointer(frame_operand(fr, in, k), &cl, &leaf, ins, &ntables);
    for (int k = 0; k < cl.outs.n; k++) outs[k] = cl.outs.a[k].data;
    void *result = shape_is_tuple(rs) ? (void *)outs : outs[0];
    ok = fn_call(in, target, fn, kind, result, ins, err);
  }
  free(ins);
  free(outs);
  return call_leaves_close(ctx, rs, &cl, ok, out, err);
}
