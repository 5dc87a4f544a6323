/* jaxlib's GPU kernels that are plain computations:
 *
 * threefry2x32 (jaxlib/gpu/prng_kernels.cu.cc), as JAX's GPU lowering of
 * jax.random calls it:
 *   (out0, out1) = threefry2x32(key0, key1, x0, x1)
 * four u32 operands and two u32 results of one shape (the lowering
 * broadcasts keys and counts to it); element i of the results is the
 * Threefry-2x32 (20 rounds) block of counter (x0[i], x1[i]) under key
 * (key0[i], key1[i]).  The legacy targets' opaque descriptor only repeats
 * the element count, which the shapes already give.
 *
 * lu_pivots_to_permutation (jaxlib/gpu/lu_pivot_kernels.cu.cc):
 *   perm s32[..., P] = pivots s32[..., K] applied as transpositions
 * per batch element: perm starts as the identity and, for i = 0..K-1 in
 * order, swaps entries i and pivots[i] (0-based), skipping pivots outside
 * [0, P).  K > P (the kernel would write past the row) is an error.  The
 * batch/pivot/permutation sizes in the attributes repeat the shapes. */
#include "interp/custom_call/jaxlib.h"

#include <stdint.h>
#include <string.h>

#include "interp/eval_views.h"
#include "kernels/k_rng.h"

static bool is_threefry(const char *t) {
  return !strcmp(t, "cu_threefry2x32") || !strcmp(t, "cu_threefry2x32_ffi") ||
         !strcmp(t, "hip_threefry2x32") || !strcmp(t, "hip_threefry2x32_ffi");
}

bool eval_jaxlib_known(const char *t) {
  return is_threefry(t) || !strcmp(t, "cu_lu_pivots_to_permutation") ||
         !strcmp(t, "hip_lu_pivots_to_permutation");
}

/* n leading sizes equal (dims may be NULL when n is 0). */
static bool dims_eq(const int64_t *a, const int64_t *b, int n) {
  return n <= 0 || !memcmp(a, b, sizeof(int64_t) * (size_t)n);
}

static bool same_u32_shape(const KArray *a, const KArray *r) {
  return a->etype == ET_U32 && a->rank == r->rank &&
         dims_eq(a->dims, r->dims, r->rank);
}

static bool threefry_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                            int nouts, Error *err) {
  const char *target = arg;
  bool ok = nouts == 2 && same_u32_shape(&outs[1], &outs[0]) && outs[0].etype == ET_U32;
  for (int i = 0; i < 4 && ok; i++) ok = same_u32_shape(&ins[i], &outs[0]);
  if (!ok)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "%s takes key0, key1, x0, x1 and returns (out0, out1), all "
                     "u32 arrays of one shape",
                     target);
  int64_t n = 1;
  for (int d = 0; d < outs[0].rank; d++) n *= outs[0].dims[d];
  const uint32_t *k0 = ins[0].data, *k1 = ins[1].data, *x0 = ins[2].data, *x1 = ins[3].data;
  uint32_t *o0 = outs[0].data, *o1 = outs[1].data;
  for (int64_t i = 0; i < n; i++) {
    uint32_t key[2] = {k0[i], k1[i]}, ctr[2] = {x0[i], x1[i]}, r[2];
    k_threefry2x32(key, ctr, r);
    o0[i] = r[0];
    o1[i] = r[1];
  }
  return true;
}

static bool pivots_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                          int nouts, Error *err) {
  const KArray *pv = &ins[0], *pm = &outs[0];
  int r = pv->rank;
  bool ok = nouts == 1 && r >= 1 && pv->etype == ET_S32 && pm->etype == ET_S32 && pm->rank == r &&
            dims_eq(pv->dims, pm->dims, r - 1) && pm->dims[r - 1] <= INT32_MAX &&
            pv->dims[r - 1] <= pm->dims[r - 1];
  if (!ok)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "%s takes pivots s32[..., K] and returns s32[..., P >= K] "
                     "with the same batch dimensions",
                     (const char *)arg);
  int64_t k = pv->dims[r - 1], p = pm->dims[r - 1], batch = 1;
  for (int d = 0; d < r - 1; d++) batch *= pv->dims[d];
  for (int64_t b = 0; b < batch; b++) {
    const int32_t *piv = (const int32_t *)pv->data + b * k;
    int32_t *perm = (int32_t *)pm->data + b * p;
    for (int64_t i = 0; i < p; i++) perm[i] = (int32_t)i;
    for (int64_t i = 0; i < k; i++) {
      if (piv[i] < 0 || piv[i] >= p) continue;
      int32_t t = perm[i];
      perm[i] = perm[piv[i]];
      perm[piv[i]] = t;
    }
  }
  return true;
}

bool eval_jaxlib(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target, const Shape *rs,
                 Value **out, Error *err) {
  if (!is_threefry(target)) {
    if (in->noperands != 1 || !shape_is_array(rs))
      return error_set(err, ERR_RUNTIME, in->offset,
                       "%s takes pivots s32[..., K] and returns s32[..., P] with "
                       "the same batch dimensions",
                       target);
    return eval_kernel_op(ctx, fr, in, rs, 1, pivots_kernel, target, out, err);
  }
  if (in->noperands != 4 || !shape_is_tuple(rs) || rs->ntuple != 2)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "%s takes key0, key1, x0, x1 and returns (out0, out1), all "
                     "u32 arrays of one shape",
                     target);
  return eval_kernel_op(ctx, fr, in, rs, 4, threefry_kernel, target, out, err);
}
