/* rng, rng-bit-generator, rng-get-and-update-state (kernels/k_rng.h).
 *
 * State (docs/interpreter.md, "Random numbers"):
 *   - rng-bit-generator is a pure function of its state operand, bit-exact
 *     with XLA (rng_default = philox, as XLA's CPU backend).
 *   - rng-get-and-update-state: each instruction owns a 128-bit counter that
 *     starts at 0x7012395 (XLA CPU's RngState initial value) and returns the
 *     old value as u64[2] {low, high}, then adds `delta` -- persisting
 *     across executions of the instruction (loops) within one run.
 *   - rng (RNG_UNIFORM / RNG_NORMAL): XLA seeds these from a process-global
 *     random value, which cannot be reproduced; here each rng instruction
 *     owns a philox state [key, counter] with key = FNV-1a-64 of the
 *     instruction's name and counter 0, advanced by every execution, so
 *     runs are deterministic and instructions independent. */
#include "interp/eval_ops.h"

#include <stdlib.h>
#include <string.h>

#include "interp/eval_vecfn.h"
#include "interp/eval_views.h"
#include "kernels/k_rng.h"

#define XLA_CPU_RNG_STATE_INIT 0x7012395u

/* The instruction's persistent u64[2] (plan aux), created on first use. */
static uint64_t *instr_state(Frame *fr, const Instr *in, uint64_t lo, uint64_t hi, Error *err) {
  CompPlan *p = (CompPlan *)fr->plan;
  if (!p->aux[in->index]) {
    uint64_t *s = malloc(2 * sizeof *s);
    if (!s) {
      error_set(err, ERR_RUNTIME, -1, "out of memory");
      return NULL;
    }
    s[0] = lo;
    s[1] = hi;
    p->aux[in->index] = s;
  }
  return p->aux[in->index];
}

static uint64_t fnv1a64(const char *s) {
  uint64_t h = 0xcbf29ce484222325u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3u;
  return h;
}

static bool u64_array(const Shape *s, int64_t n) {
  return shape_is_array(s) && s->etype == ET_U64 && s->rank == 1 && s->dims[0] == n;
}

/* Op: rng-get-and-update-state
 * Operands: none
 * Attributes: delta
 *
 * Returns the instruction's 128-bit counter as u64[2] {low, high}, then adds delta
 * to it.  Each instruction owns its counter; it starts at 0x7012395 and persists
 * across executions of the instruction (in loops) within one run.
 *
 * Rule: XLA CPU's RngGetAndUpdateState (its RngState starts at 0x7012395).
 * Refuses: nothing the verifier accepts.
 */
bool eval_rng_get_and_update_state(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                                   Value **out, Error *err) {
  const Attr *d = ir_attr(in, ATTR_DELTA);
  if (!d || d->kind != AV_INT || !u64_array(rs, 2))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "rng-get-and-update-state needs delta and returns u64[2]");
  uint64_t *st = instr_state(fr, in, XLA_CPU_RNG_STATE_INIT, 0, err);
  if (!st) return false;
  EvalOuts o = {0};
  if (!eval_outs_new(ctx, in, rs, &o, err)) {
    eval_outs_drop(ctx, &o);
    return false;
  }
  memcpy(o.a[0].data, st, 2 * sizeof *st);
  /* 128-bit add of the (sign-extended) delta. */
  uint64_t delta = (uint64_t)d->v.i, lo = st[0] + delta;
  st[1] += (lo < st[0]) + (d->v.i < 0 ? UINT64_MAX : 0);
  st[0] = lo;
  return eval_outs_finish(ctx, rs, &o, out, err);
}

/* Op: rng-bit-generator
 * Operands: initial_state (u64[n], n >= 2)
 * Attributes: algorithm (rng_default, rng_three_fry, rng_philox)
 *
 * A pure function of its state: returns (new state, random bits of the result's
 * shape).  The key is word 0; three_fry counts in word 1, philox in words 1-2; words
 * the algorithm does not read are returned unchanged.  rng_default is philox.
 *
 * Rule: bit-exact with XLA's RngBitGeneratorExpander (prng.cc: Threefry-2x32,
 *   Philox-4x32); rng_default = philox as on XLA's CPU backend.
 * Refuses: a state shorter than two words; pred or complex result elements.
 */
bool eval_rng_bit_generator(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                            Value **out, Error *err) {
  const Attr *a = ir_attr(in, ATTR_ALGORITHM);
  const char *name = a && a->kind == AV_ENUM ? a->v.s : "rng_default";
  KRngAlgorithm alg;
  if (!strcmp(name, "rng_default")) alg = K_RNG_DEFAULT;
  else if (!strcmp(name, "rng_three_fry")) alg = K_RNG_THREE_FRY;
  else if (!strcmp(name, "rng_philox")) alg = K_RNG_PHILOX;
  else
    return error_set(err, ERR_RUNTIME, in->offset, "unknown algorithm %s",
                     name);
  const Value *st = frame_operand(fr, in, 0);
  if (!st->info || st->info->etype != ET_U64 || st->info->rank != 1 || !shape_is_tuple(rs) ||
      rs->ntuple != 2 || !u64_array(&rs->tuple[0], st->info->dims[0]))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "rng-bit-generator takes a u64[n] state and returns "
                     "(u64[n] state, bits)");
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = eval_view(ctx, &vs, st, in, err) && eval_outs_new(ctx, in, rs, &o, err) &&
            k_rng_bit_generator(alg, vs.a[0].data, (int)st->info->dims[0], o.a[0].data, &o.a[1],
                                err);
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}

/* Op: rng
 * Operands: a, b (scalars: bounds, or mean and standard deviation)
 * Attributes: distribution (rng_uniform, rng_normal)
 *
 * Random values of the result's shape: uniform in [a, b) (float and integer types),
 * or normal with mean a and standard deviation b (float types).
 *
 * Rule: XLA's distribution code (prng.cc); the bits come from a philox state each
 *   instruction owns (key = FNV-1a-64 of its name, counter 0, advanced by every
 *   execution) instead of XLA's irreproducible process-global seed, so the same
 *   module gives the same numbers on every run.
 * Refuses: element types the distribution does not cover (uniform: f16, bf16, f32,
 *   f64, s32, s64, u32, u64; normal: the float types).
 */
bool eval_rng(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
              Error *err) {
  const Attr *d = ir_attr(in, ATTR_DISTRIBUTION);
  const char *dist = d && d->kind == AV_ENUM ? d->v.s : "";
  bool normal = !strcmp(dist, "rng_normal");
  if ((!normal && strcmp(dist, "rng_uniform")) || in->noperands != 2)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "rng needs two operands and distribution=rng_uniform or "
                     "rng_normal");
  uint64_t *st = instr_state(fr, in, fnv1a64(in->name), 0, err);
  if (!st) return false;
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = eval_view(ctx, &vs, frame_operand(fr, in, 0), in, err) &&
            eval_view(ctx, &vs, frame_operand(fr, in, 1), in, err) && eval_outs_new(ctx, in, rs, &o, err);
  if (ok && (vs.a[0].rank != 0 || vs.a[1].rank != 0))
    ok = error_set(err, ERR_RUNTIME, in->offset, "rng bounds must be scalars");
  if (ok)
    ok = normal ? k_rng_normal(vs.a[0].data, vs.a[1].data, st, &o.a[0], err)
                : k_rng_uniform(vs.a[0].data, vs.a[1].data, st, &o.a[0], err);
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}
