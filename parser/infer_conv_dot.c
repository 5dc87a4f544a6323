/* Contractions and linear algebra: dot, ragged-dot, convolution, fft,
 * triangular-solve, cholesky, batch norm.  Dot and convolution results may
 * have any element type the operands can be widened to (XLA's
 * preferred_element_type), so the declared type is taken as the result type
 * after a width check. */
#include <stdlib.h>
#include <string.h>

#include "parser/dot_sparsity.h"
#include "parser/infer_internal.h"

/* XLA's MaybeUpcast: integer results may not be narrower than the operands. */
static bool result_etype(InferCtx *c, EType from, EType *out) {
  EType want = c->in->shape.etype;
  if (want == ET_INVALID) { /* shape left out in the text: the operands' type */
    *out = from;
    return true;
  }
  if (!shape_is_array(&c->in->shape) || want == ET_TOKEN || want == ET_OPAQUE)
    return infer_fail(c, "result must be an array, declared %s", infer_str(c, &c->in->shape));
  if (want != from && !etype_is_float(from) && !etype_is_complex(from) &&
      etype_bits(want) < etype_bits(from))
    return infer_fail(c, "result type %s must not be narrower than the operand type %s",
                      etype_name(want), etype_name(from));
  *out = want;
  return true;
}

/* ---------------------------------------------------------------------------
 * dot / ragged-dot */

typedef struct {
  IntList lb, lc, rb, rc;
  const Attr *alc; /* for messages */
} DotDims;

static bool dot_dims(InferCtx *c, DotDims *dd) {
  const Attr *a;
  return infer_attr_ints(c, ATTR_LHS_BATCH_DIMS, false, &dd->lb, &a) &&
         infer_attr_ints(c, ATTR_RHS_BATCH_DIMS, false, &dd->rb, &a) &&
         infer_attr_ints(c, ATTR_LHS_CONTRACTING_DIMS, false, &dd->lc, &dd->alc) &&
         infer_attr_ints(c, ATTR_RHS_CONTRACTING_DIMS, false, &dd->rc, &a);
}

static bool in_list(const IntList *l, int64_t d) {
  for (int i = 0; i < l->n; i++)
    if (l->v[i] == d) return true;
  return false;
}

/* Structured sparsity (parser/dot_sparsity.h): the named operand dimension
 * holds n of every m values. */
typedef DotSparsity Sparsity;

/* Logical size of dimension d of side's operand (sparse dims expanded). */
static int64_t logical_dim(const Shape *s, int side, int64_t d, const Sparsity *sp, int nsp) {
  int64_t v = s->dims[d];
  for (int i = 0; i < nsp; i++)
    if (sp[i].side == side && sp[i].dim == d && v != SHAPE_DIM_UNBOUNDED &&
        !__builtin_mul_overflow(v, sp[i].m, &v))
      v /= sp[i].n;
  return v;
}

/* Result dims: batch, lhs free, rhs free (minus rhs_skip dims). */
static bool dot_result(InferCtx *c, const DotDims *dd, const IntList *rhs_skip,
                       const Sparsity *sp, int nsp, int64_t prefix, Shape *out, EType t) {
  const Shape *l = infer_oshape(c, 0), *r = infer_oshape(c, 1);
  const char *names[4] = {"lhs_batch_dims", "lhs_contracting_dims", "rhs_batch_dims",
                          "rhs_contracting_dims"};
  const IntList *lists[4] = {&dd->lb, &dd->lc, &dd->rb, &dd->rc};
  for (int i = 0; i < 4; i++) {
    const Shape *s = i < 2 ? l : r;
    const IntList *x = lists[i];
    if (!infer_check_dims(c, dd->alc, names[i], x->v, x->n, s->rank)) return false;
    for (int j = 0; j < x->n; j++)
      if (in_list(lists[i ^ 1], x->v[j]))
        return infer_fail_attr(c, dd->alc, "dimension %lld is both a batch and a contracting dimension",
                               (long long)x->v[j]);
  }
  if (dd->lb.n != dd->rb.n || dd->lc.n != dd->rc.n)
    return infer_fail(c, "lhs and rhs must have as many batch and contracting dimensions as each other");
  for (int i = 0; i < dd->lc.n; i++) {
    int64_t a = logical_dim(l, 0, dd->lc.v[i], sp, nsp), b = logical_dim(r, 1, dd->rc.v[i], sp, nsp);
    if (a != b && a != SHAPE_DIM_UNBOUNDED && b != SHAPE_DIM_UNBOUNDED)
      return infer_fail(c, "contracting dimension sizes do not match: %s <dot> %s", infer_str(c, l),
                        infer_str(c, r));
  }
  for (int i = 0; i < dd->lb.n; i++)
    if (l->dims[dd->lb.v[i]] != r->dims[dd->rb.v[i]])
      return infer_fail(c, "batch dimension sizes do not match: %s <dot> %s", infer_str(c, l),
                        infer_str(c, r));
  int64_t dims[2 * SHAPE_MAX_RANK + 1];
  bool dyn[2 * SHAPE_MAX_RANK + 1];
  int n = 0;
  if (prefix >= 0) dyn[n] = false, dims[n++] = prefix;
  for (int i = 0; i < dd->lb.n; i++)
    dyn[n] = infer_dim_dynamic(l, (int)dd->lb.v[i]), dims[n++] = l->dims[dd->lb.v[i]];
  for (int i = 0; i < l->rank; i++)
    if (!in_list(&dd->lb, i) && !in_list(&dd->lc, i))
      dyn[n] = infer_dim_dynamic(l, i), dims[n++] = logical_dim(l, 0, i, sp, nsp);
  for (int i = 0; i < r->rank; i++)
    if (!in_list(&dd->rb, i) && !in_list(&dd->rc, i) && !(rhs_skip && in_list(rhs_skip, i)))
      dyn[n] = infer_dim_dynamic(r, i), dims[n++] = logical_dim(r, 1, i, sp, nsp);
  if (n > SHAPE_MAX_RANK) return infer_fail(c, "result rank %d exceeds %d", n, SHAPE_MAX_RANK);
  return infer_make_array(c, out, t, n, dims, dyn);
}

static bool infer_dot(InferCtx *c, Shape *out) {
  if (!infer_need_arrays(c, 0, 2)) return false;
  DotDims dd;
  if (!dot_dims(c, &dd)) return false;
  Sparsity sp[2];
  int nsp = 0;
  const Attr *sa = ir_attr(c->in, ATTR_SPARSITY);
  if (sa) {
    nsp = dot_sparsity_parse(sa->kind == AV_RAW || sa->kind == AV_STRING ? sa->v.s : NULL, sp, 2);
    if (nsp < 0) return infer_fail_attr(c, sa, "malformed sparsity descriptor");
  }
  if (c->in->noperands != 2 + nsp)
    return infer_fail(c, "expects %d operands (2 plus one per sparsity descriptor), got %d",
                      2 + nsp, c->in->noperands);
  for (int i = 0; i < nsp; i++) {
    const Shape *s = infer_oshape(c, sp[i].side);
    if (sp[i].dim < 0 || sp[i].dim >= s->rank)
      return infer_fail_attr(c, sa, "sparsity dimension %lld out of range for %s",
                             (long long)sp[i].dim, infer_str(c, s));
  }
  EType t;
  if (!result_etype(c, infer_higher_precision(infer_oshape(c, 0)->etype, infer_oshape(c, 1)->etype), &t))
    return false;
  return dot_result(c, &dd, NULL, sp, nsp, -1, out, t);
}

/* ragged-dot(lhs, rhs, group_sizes): lhs_ragged_dims={d}.  d non-contracting:
 * rhs has a group dimension (rhs_group_dims) that disappears; d contracting:
 * the result gains a leading group dimension; d batch: plain dot. */
static bool infer_ragged_dot(InferCtx *c, Shape *out) {
  if (!infer_need_arrays(c, 0, 3)) return false;
  DotDims dd;
  IntList ragged, group;
  const Attr *ra, *ga;
  if (!dot_dims(c, &dd) || !infer_attr_ints(c, ATTR_LHS_RAGGED_DIMS, true, &ragged, &ra) ||
      !infer_attr_ints(c, ATTR_RHS_GROUP_DIMS, false, &group, &ga))
    return false;
  const Shape *l = infer_oshape(c, 0), *r = infer_oshape(c, 1), *g = infer_oshape(c, 2);
  if (ragged.n != 1 || ragged.v[0] < 0 || ragged.v[0] >= l->rank)
    return infer_fail_attr(c, ra, "lhs_ragged_dims must name one dimension of %s", infer_str(c, l));
  if (!etype_is_int(g->etype) || g->rank < 1)
    return infer_fail(c, "group_sizes must be an integer array, got %s", infer_str(c, g));
  bool contracting = in_list(&dd.lc, ragged.v[0]), batch = in_list(&dd.lb, ragged.v[0]);
  if (!contracting && !batch &&
      (group.n != 1 || group.v[0] < 0 || group.v[0] >= r->rank || in_list(&dd.rb, group.v[0]) ||
       in_list(&dd.rc, group.v[0])))
    return infer_fail_attr(c, ga, "a non-contracting ragged dimension needs one rhs group dimension");
  EType t;
  if (!result_etype(c, infer_higher_precision(l->etype, r->etype), &t)) return false;
  return dot_result(c, &dd, contracting || batch ? NULL : &group, NULL, 0,
                    contracting ? g->dims[g->rank - 1] : -1, out, t);
}

/* ---------------------------------------------------------------------------
 * convolution */

static bool check_conv_dims(InferCtx *c, const Attr *a, const ConvDims *cd) {
  const Shape *l = infer_oshape(c, 0), *r = infer_oshape(c, 1);
  int ns = cd->nspatial;
  if (ns < 0 || ns > SHAPE_MAX_RANK - 2 || cd->input_rank != l->rank || cd->kernel_rank != r->rank ||
      cd->output_rank != 2 + ns || l->rank != 2 + ns || r->rank != 2 + ns)
    return infer_fail_attr(c, a, "dim_labels %s do not fit the input %s and kernel %s",
                           cd->text ? cd->text : "", infer_str(c, l), infer_str(c, r));
  int64_t in[SHAPE_MAX_RANK], kn[SHAPE_MAX_RANK], on[SHAPE_MAX_RANK];
  in[0] = cd->input_batch, in[1] = cd->input_feature;
  kn[0] = cd->kernel_input_feature, kn[1] = cd->kernel_output_feature;
  on[0] = cd->output_batch, on[1] = cd->output_feature;
  for (int i = 0; i < ns; i++)
    in[2 + i] = cd->input_spatial[i], kn[2 + i] = cd->kernel_spatial[i],
    on[2 + i] = cd->output_spatial[i];
  if (!infer_is_permutation(in, 2 + ns) || !infer_is_permutation(kn, 2 + ns) ||
      !infer_is_permutation(on, 2 + ns))
    return infer_fail_attr(c, a, "dim_labels %s must name every dimension exactly once",
                           cd->text ? cd->text : "");
  return true;
}

static bool divisible(InferCtx *c, int64_t a, int64_t b, const char *what) {
  if (b > 0 && a >= 0 && a % b == 0) return true;
  return infer_fail(c, "%s (%lld) must be divisible by %lld", what, (long long)a, (long long)b);
}

static bool infer_convolution(InferCtx *c, Shape *out) {
  if (!infer_need_arrays(c, 0, 2)) return false;
  const Shape *l = infer_oshape(c, 0), *r = infer_oshape(c, 1);
  const Attr *a, *wa;
  if (!infer_attr(c, ATTR_DIM_LABELS, true, &a)) return false;
  if (a->kind != AV_CONV_DIMS) return infer_fail_attr(c, a, "malformed dim_labels");
  const ConvDims *cd = &a->v.conv;
  if (!check_conv_dims(c, a, cd)) return false;
  int ns = cd->nspatial;
  if (!infer_attr(c, ATTR_WINDOW, false, &wa)) return false;
  int wrank = wa && wa->kind == AV_WINDOW ? wa->v.window.rank : 0;
  if (wrank != ns)
    return infer_fail_attr(c, wa, "window has %d dimensions, the convolution %d spatial dimensions",
                           wrank, ns);
  int64_t fgc, bgc;
  if (!infer_attr_int(c, ATTR_FEATURE_GROUP_COUNT, false, 1, &fgc) ||
      !infer_attr_int(c, ATTR_BATCH_GROUP_COUNT, false, 1, &bgc))
    return false;
  if (fgc < 1 || bgc < 1) return infer_fail(c, "group counts must be positive");
  if (fgc > 1 && bgc > 1) return infer_fail(c, "feature_group_count and batch_group_count cannot both exceed 1");
  int64_t in_batch = l->dims[cd->input_batch], in_feat = l->dims[cd->input_feature];
  int64_t k_in = r->dims[cd->kernel_input_feature], k_out = r->dims[cd->kernel_output_feature];
  if (!divisible(c, in_feat, fgc, "input feature dimension") ||
      !divisible(c, k_out, fgc, "kernel output feature dimension") ||
      !divisible(c, in_batch, bgc, "input batch dimension") ||
      !divisible(c, k_out, bgc, "kernel output feature dimension"))
    return false;
  if (in_feat / fgc != k_in)
    return infer_fail(c, "input feature dimension %lld / feature_group_count %lld must equal the "
                      "kernel input feature dimension %lld (%s, %s)",
                      (long long)in_feat, (long long)fgc, (long long)k_in, infer_str(c, l),
                      infer_str(c, r));
  int64_t dims[SHAPE_MAX_RANK];
  bool dyn[SHAPE_MAX_RANK] = {false};
  dims[cd->output_batch] = in_batch / bgc;
  dims[cd->output_feature] = k_out;
  dyn[cd->output_batch] = infer_dim_dynamic(l, (int)cd->input_batch);
  for (int i = 0; i < ns; i++) {
    const WindowDim *w = &wa->v.window.dims[i];
    if (w->size != r->dims[cd->kernel_spatial[i]])
      return infer_fail_attr(c, wa, "window size %lld does not match kernel spatial dimension %lld "
                             "of %s",
                             (long long)w->size, (long long)cd->kernel_spatial[i], infer_str(c, r));
    if (w->size < 1) return infer_fail_attr(c, wa, "window dimension %d has non-positive size", i);
    if (!infer_window_out(c, wa, l->dims[cd->input_spatial[i]], w, &dims[cd->output_spatial[i]]))
      return false;
    dyn[cd->output_spatial[i]] = infer_dim_dynamic(l, (int)cd->input_spatial[i]);
  }
  EType t;
  if (!result_etype(c, infer_higher_precision(l->etype, r->etype), &t)) return false;
  return infer_make_array(c, out, t, 2 + ns, dims, dyn);
}

/* ---------------------------------------------------------------------------
 * fft */

static bool infer_fft(InferCtx *c, Shape *out) {
  if (!infer_need_array(c, 0)) return false;
  const Shape *s = infer_oshape(c, 0);
  const Attr *ta;
  IntList len;
  const Attr *la;
  if (!infer_attr(c, ATTR_FFT_TYPE, true, &ta) ||
      !infer_attr_ints(c, ATTR_FFT_LENGTH, true, &len, &la))
    return false;
  const char *type = ta->v.s ? ta->v.s : "";
  if (len.n < 1 || len.n > 3 || len.n > s->rank)
    return infer_fail_attr(c, la, "fft_length %s must have 1 to 3 entries, at most the rank of %s",
                           infer_ints_str(c, len.v, len.n), infer_str(c, s));
  int base = s->rank - len.n;
  bool real_in = strcmp(type, "RFFT") == 0, real_out = strcmp(type, "IRFFT") == 0;
  if (!real_in && !real_out && strcmp(type, "FFT") && strcmp(type, "IFFT"))
    return infer_fail_attr(c, ta, "unknown fft_type %s", type);
  if (real_in ? (s->etype != ET_F32 && s->etype != ET_F64) : !etype_is_complex(s->etype))
    return infer_fail(c, "%s needs a %s operand, got %s", type, real_in ? "f32/f64" : "complex",
                      infer_str(c, s));
  int64_t *dims = infer_i64(c, s->rank);
  if (!dims) return infer_fail(c, "out of memory");
  memcpy(dims, s->dims, (size_t)s->rank * sizeof *dims);
  /* XLA's InferFftShape: FFT and IFFT keep the operand's shape whatever
   * fft_length says; RFFT needs the fft dims equal to fft_length; IRFFT the
   * outer ones, and an innermost dim of fft_length/2+1 -- or 0 when
   * fft_length ends in 0.  A zero-length transform keeps its 0 dim. */
  int last = len.n - 1;
  for (int i = 0; i < len.n && (real_in || real_out); i++) {
    int64_t have = s->dims[base + i], want = len.v[i];
    if (want < 0)
      return infer_fail_attr(c, la, "fft_length %s has a negative entry",
                             infer_ints_str(c, len.v, len.n));
    if (real_out && i == last) {
      want = len.v[i] / 2 + 1;
      if (have == 0 && len.v[i] == 0) want = 0;
      dims[base + i] = len.v[i];
    } else if (real_in && i == last) {
      dims[base + i] = len.v[i] == 0 ? 0 : len.v[i] / 2 + 1;
    }
    if (have != want && have != SHAPE_DIM_UNBOUNDED)
      return infer_fail_attr(c, la, "operand %s does not match fft_length %s", infer_str(c, s),
                             infer_ints_str(c, len.v, len.n));
  }
  EType t = s->etype;
  if (real_in) t = s->etype == ET_F32 ? ET_C64 : ET_C128;
  if (real_out) t = infer_complex_component(s->etype);
  return infer_make_array(c, out, t, s->rank, dims, s->dynamic);
}

/* ---------------------------------------------------------------------------
 * linear algebra */

static bool need_fc(InferCtx *c, int i) {
  const Shape *s = infer_oshape(c, i);
  if (etype_is_float(s->etype) || etype_is_complex(s->etype)) return true;
  return infer_fail(c, "operand %d must be floating point or complex, got %s", i, infer_str(c, s));
}

static bool square_minor(InferCtx *c, int i) {
  const Shape *s = infer_oshape(c, i);
  if (s->rank >= 2 && s->dims[s->rank - 1] == s->dims[s->rank - 2]) return true;
  return infer_fail(c, "operand %d must be a batch of square matrices, got %s", i, infer_str(c, s));
}

static bool infer_cholesky(InferCtx *c, Shape *out) {
  if (!infer_need_array(c, 0) || !need_fc(c, 0) || !square_minor(c, 0)) return false;
  *out = *infer_oshape(c, 0);
  return true;
}

/* triangular-solve(a, b): a [..., m, m]; b [..., m, n] (left_side) or
 * [..., n, m]. */
static bool infer_triangular_solve(InferCtx *c, Shape *out) {
  if (!infer_need_arrays(c, 0, 2) || !need_fc(c, 0) || !need_fc(c, 1) || !square_minor(c, 0))
    return false;
  const Shape *a = infer_oshape(c, 0), *b = infer_oshape(c, 1);
  const Attr *ls = ir_attr(c->in, ATTR_LEFT_SIDE);
  bool left = ls && ls->kind == AV_BOOL && ls->v.b;
  if (a->etype != b->etype || a->rank != b->rank)
    return infer_fail(c, "a %s and b %s must have the same type and rank", infer_str(c, a),
                      infer_str(c, b));
  for (int i = 0; i < a->rank - 2; i++)
    if (a->dims[i] != b->dims[i])
      return infer_fail(c, "batch dimensions of a %s and b %s differ", infer_str(c, a), infer_str(c, b));
  int64_t m = a->dims[a->rank - 1], bm = b->dims[b->rank - (left ? 2 : 1)];
  if (m != bm)
    return infer_fail(c, "a %s and b %s do not fit (left_side=%s)", infer_str(c, a),
                      infer_str(c, b), left ? "true" : "false");
  *out = *b;
  return true;
}

/* ---------------------------------------------------------------------------
 * batch norm: operand [..., F at feature_index, ...], per-feature vectors. */

static bool infer_batch_norm(InferCtx *c, Shape *out) {
  int n = c->in->noperands;
  if (!infer_need_arrays(c, 0, n)) return false;
  const Shape *x = infer_oshape(c, 0);
  int64_t fi;
  const Attr *ea;
  if (!infer_attr(c, ATTR_EPSILON, true, &ea) ||
      !infer_attr_int(c, ATTR_FEATURE_INDEX, true, 0, &fi))
    return false;
  if (!etype_is_float(x->etype)) return infer_fail(c, "operand must be floating point, got %s", infer_str(c, x));
  if (fi < 0 || fi >= x->rank)
    return infer_fail_attr(c, ir_attr(c->in, ATTR_FEATURE_INDEX),
                           "feature_index %lld out of range for %s", (long long)fi, infer_str(c, x));
  int64_t f = x->dims[fi];
  /* Operands shaped like x: grad_output of batch-norm-grad. */
  for (int i = 1; i < n; i++) {
    const Shape *s = infer_oshape(c, i);
    bool full = c->in->op == OP_BATCH_NORM_GRAD && i == 4;
    bool ok = s->etype == x->etype &&
              (full ? infer_shapes_match(s, x, false) : (s->rank == 1 && s->dims[0] == f));
    if (!ok)
      return infer_fail(c, "operand %d %s must be %s", i, infer_str(c, s),
                        full ? infer_str(c, x) : "a vector of the feature dimension's size and the operand's type");
  }
  if (c->in->op == OP_BATCH_NORM_INFERENCE) {
    *out = *x;
    return true;
  }
  if (!infer_make_tuple(c, out, 3)) return false;
  out->tuple[0] = *x;
  return infer_make_array(c, &out->tuple[1], x->etype, 1, &f, NULL) &&
         infer_make_array(c, &out->tuple[2], x->etype, 1, &f, NULL);
}

bool infer_conv_dot(InferCtx *c, Shape *out) {
  switch (c->in->op) {
    case OP_DOT: return infer_dot(c, out);
    case OP_RAGGED_DOT: return infer_ragged_dot(c, out);
    case OP_CONVOLUTION: return infer_convolution(c, out);
    case OP_FFT: return infer_fft(c, out);
    case OP_CHOLESKY: return infer_cholesky(c, out);
    case OP_TRIANGULAR_SOLVE: return infer_triangular_solve(c, out);
    default: return infer_batch_norm(c, out);
  }
}
