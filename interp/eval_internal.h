/* Shared between the evaluator's files (not a public interface). */
#ifndef HLO_INTERP_EVAL_INTERNAL_H
#define HLO_INTERP_EVAL_INTERNAL_H

#include <stdio.h>
#include <stdlib.h>

#include "interp/eval.h"

/* EVAL_ASSERT(cond): an invariant the verifier guarantees for every module
 * the evaluator runs (an attribute the parser requires, an operand count
 * the row's arity fixes, a shape inference checks).  The evaluator trusts
 * the verifier: such a check aborts with its text only when
 * HLO_DEBUG_CHECKS is defined or in the sanitizer build (HLO_SANITIZE),
 * and costs nothing otherwise (the project builds RelWithDebInfo without
 * NDEBUG, so a plain assert() would stay on).  What the data decides (an
 * index out of range, a bad parameter binding, out of memory) and what the
 * verifier relaxes (docs/hlo-text.md 8.1) stay runtime errors; when in
 * doubt, a check stays one. */
#if defined(HLO_DEBUG_CHECKS) || defined(__SANITIZE_ADDRESS__)
#define EVAL_DEBUG_CHECKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EVAL_DEBUG_CHECKS 1
#endif
#endif
#ifdef EVAL_DEBUG_CHECKS
#define EVAL_ASSERT(cond)                                                                  \
  ((cond) ? (void)0                                                                        \
          : (fprintf(stderr, "%s:%d: evaluator invariant failed: %s\n", __FILE__, __LINE__, \
                     #cond),                                                               \
             abort()))
#else
#define EVAL_ASSERT(cond) ((void)0)
#endif

typedef struct Frame {
  const CompPlan *plan;
  Value **vals;
  /* Map mode: result shapes replacing the scalar instruction shapes. */
  const Shape *const *override;
  /* When set, the frame owns the argument references: a parameter moves its
   * argument out (args[n] = NULL) instead of taking another reference, so
   * that it can die inside the computation (see eval_run_taking). */
  bool take_args;
  /* A debugging hook looks at operands after the instruction ran: no
   * result may take over an operand's buffer (eval_can_donate). */
  bool keep_operands;
  /* The computation's arguments (borrowed; the frame's own array when
   * take_args), read by parameter. */
  Value *const *args;
  int nargs;
} Frame;

static inline Value *frame_operand(const Frame *f, const Instr *in, int k) {
  return f->vals[in->operands[k]->index];
}

/* Can the handler of `in` take over operand k's buffer for its result (the
 * operand dies here, is used once by `in`, and nothing else holds it)? */
bool eval_can_donate(const Frame *f, const Instr *in, int k);

/* The signature of every evaluator function: the eval column of
 * parser/opcodes.def names one per op (interp/eval_ops.h), and eval_op
 * dispatches through that table.  rs is the result shape (the
 * instruction's, or the mapped one in map mode); *out receives a new
 * reference.  An error needs no "instruction NAME: " prefix: the run loop
 * adds it (see prefix_error in eval.c). */
typedef bool (*EvalFn)(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                       Error *err);

/* Runs instruction `in` through eval_of[in->op] (eval.c). */
bool eval_op(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out, Error *err);

/* Mixed precision (eval_mixed.c): whether some float operand of `in`
 * has another precision than the one the op computes in; before `in` runs,
 * eval_mixed_before puts converted copies of those operands in the frame,
 * eval_swap_restore puts the originals back. */
enum { EVAL_SWAP_MAX = 16 };
typedef struct OperandSwap {
  int n;
  int idx[EVAL_SWAP_MAX];      /* instruction index in the frame */
  Value *saved[EVAL_SWAP_MAX]; /* the original value */
} OperandSwap;
bool eval_mixed_precision(const Instr *in);
/* Whether in declares a result of another floating-point type than XLA
 * infers (mixed precision the verifier accepts) for an op whose operands
 * cannot simply be converted to it (reduce, map, sort, ...): running it is
 * refused rather than reading the operand bytes as the declared type. */
bool eval_mixed_result_unsupported(const Module *m, const Instr *in, Arena *scratch);
bool eval_mixed_before(EvalCtx *ctx, Frame *f, const Instr *in, OperandSwap *sw, Error *err);
void eval_swap_restore(EvalCtx *ctx, Frame *f, OperandSwap *sw);
/* Puts saved[i] back as the frame value of instruction idx[i], releasing
 * the value swapped in (mixed precision, dynamic sizes). */
void eval_restore_operands(EvalCtx *ctx, Frame *f, int n, const int *idx, Value *const *saved);

/* Whether `in` can be part of an elementwise group (IR-level check). */
bool eval_fusable(const Instr *in);
/* Whether instruction `in` inside a group's span is one of its members (the
 * others are constants, evaluated before the group). */
bool eval_group_member(const Instr *in);
/* Runs the members among instructions first..last of f's computation as one
 * blockwise loop (the constants among them already evaluated): members whose
 * value is used after `last`, or that are the root, get their value in
 * f->vals; the others live only in block-sized scratch. */
bool eval_elementwise_group(EvalCtx *ctx, Frame *f, int first, int last, Error *err);

/* Runs comp with result shapes overridden (map mode) or not (override NULL). */
bool eval_run(EvalCtx *ctx, const Computation *comp, Value *const *args, int nargs,
              const Shape *const *override, Value **out, Error *err);
/* eval_run taking over the caller's references in args (each left NULL). */
bool eval_run_taking(EvalCtx *ctx, const Computation *comp, Value **args, int nargs, Value **out,
                     Error *err);


bool eval_unsupported(const Instr *in, Error *err);

/* Helpers shared by the evaluator's files (eval_values.c, eval_control.c,
 * eval_movement.c) and interp/collective/collectives.c. */
/* A fresh array result of shape rs (zero-filled when asked). */
bool eval_new_result(EvalCtx *ctx, const Shape *rs, bool zero, Value **out,
                     Error *err);
/* A fresh result of shape rs and a dense row-major target *dd to fill
 * (value_dense_commit(&ctx->vc, *v, dtmp, err) stores it); on failure
 * nothing is left to free. */
bool eval_new_target(EvalCtx *ctx, const Shape *rs, bool zero, Value **v, void **dd,
                     DenseTmp *dtmp, Error *err);
/* An error unless v is an array with data ("<what> is not an array"). */
bool eval_require_array(const Instr *in, const Value *v, const char *what, Error *err);
/* Reads element `index` of an integer (or pred) array as int64 (u64 above
 * INT64_MAX reads as INT64_MAX). */
bool eval_read_scalar_i64(EvalCtx *ctx, const Instr *in, const Value *v, int64_t index,
                          int64_t *out, Error *err);
/* A scalar result of shape rs holding x converted to its type. */
bool eval_scalar_result(EvalCtx *ctx, const Shape *rs, int64_t x, Value **out,
                        Error *err);

/* A dense row-major read of an operand (value_dense_read). */
typedef struct Dense {
  const void *data;
  DenseTmp tmp;
} Dense;

static inline bool eval_dense_in(EvalCtx *ctx, const Value *v, Dense *d, Error *err) {
  return value_dense_read(&ctx->vc, v, &d->data, &d->tmp, err);
}

/* A copy of src in rs's layouts and spaces (a tuple recursively). */
bool eval_copy_to(EvalCtx *ctx, const Instr *in, const Value *src, const Shape *rs, Value **out,
                  Error *err);
/* A zero-filled value of shape s (tuples, tokens included). */
bool eval_zero_value(EvalCtx *ctx, const Instr *in, const Shape *s, Value **out, Error *err);
/* tuple(first[0..nfirst), zeros for the rest of s); takes over first. */
bool eval_state_tuple(EvalCtx *ctx, const Instr *in, const Shape *s, Value **first, int nfirst,
                      Value **out, Error *err);
/* A tuple of shape s over in's operands (new references); NULL when out of
 * memory. */
Value *eval_operand_tuple(const Frame *f, const Instr *in, const Shape *s);
/* Whether each array of src has as many elements as the matching array of
 * rs (an op that changes them spans more than one device). */
bool eval_same_element_counts(const Value *src, const Shape *rs);

#endif
