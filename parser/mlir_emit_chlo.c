/* CHLO ops (the "client HLO" ops JAX emits) written as HLO, as XLA's
 * chlo_legalize_to_stablehlo decomposes them:
 *   erf, tan, top_k: HLO's own erf, tan and topk (as XLA keeps them);
 *   erfc, erf_inv, lgamma, digamma, polygamma, zeta, bessel_i1e, sinh, cosh:
 *     formulas of mlir_chlo_math.c, computed in f32 for f16/bf16 (XLA's
 *     upcast) and in f64 for f64;
 *   asin, acos, atan, asinh, acosh, atanh, is_inf, is_pos_inf, is_neg_inf,
 *     conj, next_after: the short formulas of ChloDecompositionPatterns;
 *   constant, constant_like: constants;
 *   broadcast_<op>: numpy-style broadcasting of static shapes (or the
 *     broadcast_dimensions given) by reshape + broadcast, then the op.
 * Also the pretty forms (mlir_chlo_pretty): "chlo.erf %x : T -> T",
 * "chlo.broadcast_add %a, %b {...} : (T, T) -> T", "chlo.next_after %a,
 * %b : T, T -> T", "chlo.top_k(%x, k = 2) : T -> (T, T)",
 * "chlo.constant dense<...> : T". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "parser/mlir_chlo.h"

static bool is(const char *a, const char *b) { return strcmp(a, b) == 0; }

static bool is_float(const char *et) { return is(et, "f16") || is(et, "bf16") || is(et, "f32") || is(et, "f64"); }

/* The pretty form after "chlo.NAME". */
void mlir_chlo_pretty(MState *st, MOp *op, const char *sn) {
  if (is(sn, "constant")) {
    if (mlir_peek(st, "{")) mlir_attr(st); /* attr-dict: nothing of use */
    MAttr *v = mlir_attr(st);
    if (v->kind != MA_DENSE) mlir_fail(st, v->offset, "expected dense<...> : type after chlo.constant");
    op->akeys[op->nattrs] = "value", op->avals[op->nattrs++] = v;
    op->out = arena_alloc_array(st->arena, 1, sizeof *op->out);
    if (!op->out) mlir_fail(st, -1, "out of memory");
    op->out[0] = v->type, op->nout = 1, op->nin = 0;
    return;
  }
  bool topk = is(sn, "top_k");
  if (topk) mlir_expect(st, "(");
  do {
    int64_t off = mlir_off(st);
    const char *n = mlir_sigil_name(st, '%');
    if (!n) mlir_fail(st, off, "expected an operand (%%name)");
    if (op->nopnds == 3) mlir_fail(st, off, "too many operands for %s", op->name);
    op->opnd_off[op->nopnds] = off;
    op->opnds[op->nopnds++] = mlir_lookup(st, n, off);
  } while (!topk && mlir_accept(st, ","));
  if (topk) {
    mlir_expect(st, ",");
    if (!mlir_accept_word(st, "k")) mlir_fail(st, mlir_off(st), "expected 'k = N'");
    mlir_expect(st, "=");
    MAttr *k = mlir_attr(st);
    op->akeys[op->nattrs] = "k", op->avals[op->nattrs++] = k;
    mlir_expect(st, ")");
  }
  if (mlir_peek(st, "{")) {
    MAttr *d = mlir_attr(st);
    for (int i = 0; i < d->n && op->nattrs < 64; i++) op->akeys[op->nattrs] = d->keys[i], op->avals[op->nattrs++] = d->items[i];
  }
  /* ": (T, T) -> T", ": T, T -> T", ": T -> (T, T)" */
  MType *in[4], *out[4];
  int nin = 0, nout = 0;
  mlir_expect(st, ":");
  bool paren = mlir_accept(st, "(");
  do {
    if (nin == 4) mlir_fail(st, mlir_off(st), "too many types");
    in[nin++] = mlir_type(st);
  } while (mlir_accept(st, ","));
  if (paren) mlir_expect(st, ")");
  mlir_expect(st, "->");
  paren = mlir_accept(st, "(");
  do {
    if (nout == 4) mlir_fail(st, mlir_off(st), "too many types");
    out[nout++] = mlir_type(st);
  } while (paren && mlir_accept(st, ","));
  if (paren) mlir_expect(st, ")");
  op->in = arena_alloc_array(st->arena, (size_t)nin, sizeof *op->in);
  op->out = arena_alloc_array(st->arena, (size_t)nout, sizeof *op->out);
  if (!op->in || !op->out) mlir_fail(st, -1, "out of memory");
  memcpy(op->in, in, sizeof *in * (size_t)nin), memcpy(op->out, out, sizeof *out * (size_t)nout);
  op->nin = nin, op->nout = nout;
}

/* Runs f over x (and y) in f32 for f16/bf16 operands, converting back. */
typedef const char *(*Fn1)(ChloEx *, const char *);
typedef const char *(*Fn2)(ChloEx *, const char *, const char *);
static const char *upcast(MState *st, MOp *op, Fn1 f1, Fn2 f2) {
  const MType *t = op->opnds[0]->type;
  bool up = is(t->etype, "f16") || is(t->etype, "bf16"); /* narrower than f32 (not complex) */
  ChloEx e;
  chlo_ex_init(&e, st, op->off, up ? chlo_like(st, t, "f32") : t);
  const char *a = op->opnds[0]->hlo, *b = op->nopnds > 1 ? op->opnds[1]->hlo : NULL;
  if (up) {
    a = mlir_line(st, op->off, "up", e.t, "convert(%s)", a);
    if (b) b = mlir_line(st, op->off, "up", e.t, "convert(%s)", b);
  }
  const char *r = f1 ? f1(&e, a) : f2(&e, a, b);
  return up ? mlir_line(st, op->off, "down", t, "convert(%s)", r) : r;
}

static const char *k1(ChloEx *e, double v) { return chlo_k(e, v); }

static const char *asin_(ChloEx *e, const char *x) {
  const char *one = k1(e, 1);
  const char *s = chlo_un(e, "sqrt", chlo_bin(e, "multiply", chlo_bin(e, "subtract", one, x), chlo_bin(e, "add", one, x)));
  return chlo_bin(e, "multiply", k1(e, 2), chlo_bin(e, "atan2", x, chlo_bin(e, "add", one, s)));
}

static const char *acos_(ChloEx *e, const char *x) {
  const char *one = k1(e, 1);
  const char *s = chlo_un(e, "sqrt", chlo_bin(e, "subtract", one, chlo_bin(e, "multiply", x, x)));
  const char *r = chlo_bin(e, "multiply", k1(e, 2), chlo_bin(e, "atan2", s, chlo_bin(e, "add", one, x)));
  return chlo_sel(e, chlo_cmp(e, "NE", x, k1(e, -1)), r, k1(e, M_PI));
}

static const char *atan_(ChloEx *e, const char *x) { return chlo_bin(e, "atan2", x, k1(e, 1)); }

static const char *max_finite(ChloEx *e) { return k1(e, chlo_is_f64(e) ? 1.7976931348623157e308 : 3.4028234663852886e38); }

/* asinh(x) = sign(x) * (log 2 + log|x| past sqrt(max), log1p(|x| + |x|^2 /
 * (1 + sqrt(|x|^2 + 1))) up to 1, log(|x| + sqrt(|x|^2 + 1)) between). */
static const char *asinh_(ChloEx *e, const char *x) {
  const char *ax = chlo_un(e, "abs", x), *one = k1(e, 1);
  const char *s = chlo_un(e, "sqrt", chlo_bin(e, "add", chlo_bin(e, "multiply", ax, ax), one));
  const char *big = chlo_bin(e, "add", chlo_un(e, "log", ax), chlo_un(e, "log", k1(e, 2)));
  const char *small = chlo_un(e, "log-plus-one",
                              chlo_bin(e, "add", ax, chlo_bin(e, "multiply", ax, chlo_bin(e, "divide", ax, chlo_bin(e, "add", one, s)))));
  const char *mid = chlo_un(e, "log", chlo_bin(e, "add", ax, s));
  const char *r = chlo_sel(e, chlo_cmp(e, "LE", ax, one), small, mid);
  r = chlo_sel(e, chlo_cmp(e, "GE", ax, chlo_un(e, "sqrt", max_finite(e))), big, r);
  return chlo_bin(e, "multiply", chlo_un(e, "sign", x), r);
}

/* acosh(x) = nan below -1, log 2 + log x past sqrt(max), else
 * log(x + sqrt((1 + x)(x - 1))). */
static const char *acosh_(ChloEx *e, const char *x) {
  const char *s = chlo_un(e, "sqrt", chlo_bin(e, "multiply", chlo_bin(e, "add", k1(e, 1), x), chlo_bin(e, "add", k1(e, -1), x)));
  const char *r = chlo_un(e, "log", chlo_bin(e, "add", x, s));
  r = chlo_sel(e, chlo_cmp(e, "GE", x, chlo_un(e, "sqrt", max_finite(e))),
               chlo_bin(e, "add", chlo_un(e, "log", x), chlo_un(e, "log", k1(e, 2))), r);
  return chlo_sel(e, chlo_cmp(e, "LT", x, k1(e, -1)), k1(e, NAN), r);
}

/* atanh(x) = (log1p(x) - log1p(-x)) / 2, nan past |x| = 1. */
static const char *atanh_(ChloEx *e, const char *x) {
  const char *r = chlo_bin(e, "multiply",
                           chlo_bin(e, "subtract", chlo_un(e, "log-plus-one", x), chlo_un(e, "log-plus-one", chlo_un(e, "negate", x))),
                           k1(e, 0.5));
  return chlo_sel(e, chlo_cmp(e, "GT", chlo_un(e, "abs", x), k1(e, 1)), k1(e, NAN), r);
}

/* next_after on the bits: +-1 on the integer of x's bits toward y; the
 * smallest subnormal of y's sign from zero; y when x == y; nan when either is. */
static const char *next_after(MState *st, MOp *op) {
  const MType *t = op->opnds[0]->type;
  const char *it = is(t->etype, "f64") ? "s64" : is(t->etype, "f32") ? "s32" : "s16";
  int bits = it[1] == '6' ? 64 : it[1] == '3' ? 32 : 16;
  ChloEx f, e;
  chlo_ex_init(&f, st, op->off, t);
  chlo_ex_init(&e, st, op->off, chlo_like(st, t, it));
  const char *x = op->opnds[0]->hlo, *y = op->opnds[1]->hlo;
  const char *xi = mlir_line(st, op->off, "bits", e.t, "bitcast-convert(%s)", x);
  const char *yi = mlir_line(st, op->off, "bits", e.t, "bitcast-convert(%s)", y);
  const char *nan_in = chlo_pred(&f, "or", chlo_cmp(&f, "NE", x, x), chlo_cmp(&f, "NE", y, y));
  const char *nan_bits = mlir_line(st, op->off, "bits", e.t, "bitcast-convert(%s)", chlo_k(&f, NAN));
  long long sign = bits == 64 ? INT64_MIN : -(1LL << (bits - 1)); /* the sign bit, signed */
  const char *sm = chlo_ki(&e, sign), *mag = chlo_ki(&e, -(sign + 1));
  const char *xa = chlo_bin(&e, "and", xi, mag), *ya = chlo_bin(&e, "and", yi, mag);
  const char *xs = chlo_bin(&e, "and", xi, sm), *ys = chlo_bin(&e, "and", yi, sm);
  const char *zero = chlo_ki(&e, 0), *one = chlo_ki(&e, 1);
  const char *smaller = chlo_pred(&e, "or", chlo_cmp(&e, "GT", xa, ya), chlo_cmp(&e, "NE", xs, ys));
  const char *r = chlo_bin(&e, "add", xi, chlo_sel(&e, smaller, chlo_ki(&e, -1), one));
  r = chlo_sel(&e, chlo_cmp(&e, "EQ", xa, zero), chlo_sel(&e, chlo_cmp(&e, "EQ", ya, zero), yi, chlo_bin(&e, "or", ys, one)), r);
  r = chlo_sel(&e, chlo_cmp(&f, "EQ", x, y), yi, r);
  r = chlo_sel(&e, nan_in, nan_bits, r);
  return mlir_line(st, op->off, "v", t, "bitcast-convert(%s)", r);
}

static const char *const BROADCAST_OPS[][2] = {
    {"add", "add"}, {"and", "and"}, {"atan2", "atan2"}, {"complex", "complex"}, {"divide", "divide"},
    {"maximum", "maximum"}, {"minimum", "minimum"}, {"multiply", "multiply"}, {"next_after", NULL},
    {"or", "or"}, {"polygamma", NULL}, {"power", "power"}, {"remainder", "remainder"},
    {"shift_left", "shift-left"}, {"shift_right_arithmetic", "shift-right-arithmetic"},
    {"shift_right_logical", "shift-right-logical"}, {"subtract", "subtract"}, {"xor", "xor"},
    {"zeta", NULL}, {"compare", "compare"}, {"select", "select"}};

/* Operand i of a broadcasting op brought to shape `to`: its dimensions
 * map to `dims` (numpy: the trailing ones); size-1 dimensions that grow
 * are dropped by a reshape first, since HLO's broadcast keeps sizes. */
static const char *bcast(MState *st, MOp *op, int i, const MType *to, const int64_t *dims) {
  const MType *t = op->opnds[i]->type;
  bool same = t->rank == to->rank;
  for (int d = 0; same && d < t->rank; d++) same = dims[d] == d && t->dims[d] == to->dims[d];
  if (same) return op->opnds[i]->hlo;
  MType *kept = chlo_like(st, t, t->etype);
  int64_t kd[MLIR_MAX_RANK];
  kept->rank = 0;
  for (int d = 0; d < t->rank; d++) {
    if (dims[d] < 0 || dims[d] >= to->rank)
      mlir_fail(st, op->opnd_off[i], "broadcast_dimensions of operand %d name dimension %lld of a rank-%d result", i,
                (long long)dims[d], to->rank);
    if (t->dims[d] == to->dims[dims[d]]) kd[kept->rank] = dims[d], kept->dims[kept->rank++] = t->dims[d];
    else if (t->dims[d] != 1)
      mlir_fail(st, op->opnd_off[i], "operand %d does not broadcast: dimension %d is %lld, the result's %lld", i, d,
                (long long)t->dims[d], (long long)to->dims[dims[d]]);
  }
  const char *v = op->opnds[i]->hlo;
  if (kept->rank != t->rank) v = mlir_line(st, op->off, "bc", kept, "reshape(%s)", v);
  StrBuf *sb = mlir_sb(st);
  for (int d = 0; d < kept->rank; d++) sb_printf(sb, "%s%lld", d ? "," : "", (long long)kd[d]);
  v = mlir_line(st, op->off, "bc", chlo_like(st, to, t->etype), "broadcast(%s), dimensions={%s}", v, sb->data ? sb->data : "");
  sb_free(sb);
  return v;
}

static void emit_broadcast(MState *st, MOp *op, const char *name, const char *hop) {
  bool sel = is(name, "select");
  int n = sel ? 3 : 2;
  if (op->nopnds != n || op->nout != 1) mlir_fail(st, op->off, "%s takes %d operands and gives one result", op->name, n);
  MType *rt = op->out[0];
  if (rt->kind != MT_TENSOR) mlir_fail(st, op->off, "%s gives a tensor", op->name);
  /* numpy: shapes aligned at the end; each dimension 1 or the result's. */
  int rank = 0;
  for (int i = 0; i < n; i++) {
    if (op->opnds[i]->type->kind != MT_TENSOR) mlir_fail(st, op->opnd_off[i], "operand %d of %s must be a tensor", i, op->name);
    if (op->opnds[i]->type->rank > rank) rank = op->opnds[i]->type->rank;
  }
  MAttr *bd = mlir_op_attr(op, "broadcast_dimensions");
  int64_t given[MLIR_MAX_RANK];
  int ng = bd ? mlir_attr_ints(st, bd, given, MLIR_MAX_RANK) : -1;
  if (bd && ng < 0) mlir_fail(st, bd->offset, "broadcast_dimensions must be a list of integers");
  int64_t dims[3][MLIR_MAX_RANK];
  MType shape = {.kind = MT_TENSOR, .rank = rank};
  for (int d = 0; d < rank; d++) shape.dims[d] = 1;
  for (int i = 0; i < n; i++) {
    const MType *t = op->opnds[i]->type;
    bool explicit = bd && t->rank < rank;
    if (explicit && ng != t->rank)
      mlir_fail(st, bd->offset, "broadcast_dimensions has %d entries, operand %d has rank %d", ng, i, t->rank);
    for (int d = 0; d < t->rank; d++) {
      dims[i][d] = explicit ? given[d] : rank - t->rank + d;
      if (dims[i][d] < 0 || dims[i][d] >= rank) mlir_fail(st, bd->offset, "broadcast_dimensions: %lld is out of range", (long long)dims[i][d]);
      int64_t *s = &shape.dims[dims[i][d]];
      if (*s == 1) *s = t->dims[d];
      else if (t->dims[d] != 1 && t->dims[d] != *s)
        mlir_fail(st, op->opnd_off[i], "%s: the operands' shapes do not broadcast (%lld against %lld)", op->name,
                  (long long)t->dims[d], (long long)*s);
    }
  }
  bool ok = rt->rank == rank;
  for (int d = 0; ok && d < rank; d++) ok = rt->dims[d] == shape.dims[d];
  if (!ok) mlir_fail(st, op->off, "%s: the result type's shape is not the operands' broadcast shape", op->name);
  MOp flat = *op; /* the same op on the broadcast operands */
  MValue vals[3];
  for (int i = 0; i < n; i++) {
    vals[i] = *op->opnds[i];
    vals[i].hlo = bcast(st, op, i, rt, dims[i]);
    vals[i].type = chlo_like(st, rt, op->opnds[i]->type->etype);
    flat.opnds[i] = &vals[i];
  }
  const char *h;
  if (is(name, "compare")) {
    MAttr *d = mlir_op_attr(op, "comparison_direction"), *ct = mlir_op_attr(op, "compare_type");
    if (!d || d->kind != MA_WORD) mlir_fail(st, op->off, "broadcast_compare needs a comparison_direction");
    static const char *const DIRS[] = {"EQ", "NE", "GE", "GT", "LE", "LT", NULL};
    bool known = false;
    for (int i = 0; DIRS[i]; i++) known |= is(d->s, DIRS[i]);
    if (!known) mlir_fail(st, d->offset, "unknown comparison direction '%s'", d->s);
    bool total = ct && ct->kind == MA_WORD && is(ct->s, "TOTALORDER");
    h = mlir_line(st, op->off, "v", rt, "compare(%s, %s), direction=%s%s", vals[0].hlo, vals[1].hlo, d->s,
                  total ? ", type=TOTALORDER" : "");
  } else if (hop) {
    h = mlir_line(st, op->off, "v", rt, "%s(%s)", hop, mlir_opnd_list(st, &flat, 0, n));
  } else if (is(name, "next_after")) {
    h = next_after(st, &flat);
  } else {
    h = upcast(st, &flat, NULL, is(name, "zeta") ? chlo_zeta : chlo_polygamma);
  }
  mlir_bind_results(st, op, h, NULL);
}

static void emit_top_k(MState *st, MOp *op) {
  MAttr *k = mlir_op_attr(op, "k");
  if (!k || k->kind != MA_INT) mlir_fail(st, op->off, "chlo.top_k needs the integer attribute 'k'");
  if (op->nopnds != 1 || op->nout != 2) mlir_fail(st, op->off, "chlo.top_k takes one operand and gives values and indices");
  const MType *t = op->opnds[0]->type;
  if (t->kind != MT_TENSOR || t->rank < 1) mlir_fail(st, op->opnd_off[0], "chlo.top_k needs an operand of rank 1 or more");
  if (k->i < 0 || k->i > t->dims[t->rank - 1])
    mlir_fail(st, k->offset, "chlo.top_k: k = %lld is outside [0, %lld], the last dimension", (long long)k->i,
              (long long)t->dims[t->rank - 1]);
  if (!is(op->out[1]->etype, "s32")) mlir_fail(st, op->off, "chlo.top_k's indices are tensor<...xi32>");
  MType *tt = mlir_tuple_of(st, op->out, 2);
  const char *h = mlir_line(st, op->off, "topk", tt, "topk(%s), k=%lld, largest=true", op->opnds[0]->hlo, (long long)k->i);
  mlir_bind_results(st, op, h, tt);
}

/* chlo.constant_like: its value (a number or a bool) as a constant of the
 * operand's shape. */
static void emit_constant_like(MState *st, MOp *op) {
  MAttr *v = mlir_op_attr(op, "value");
  const MType *rt = op->out[0];
  if (!v || (v->kind != MA_INT && v->kind != MA_FLOAT && v->kind != MA_WORD))
    mlir_fail(st, op->off, "chlo.constant_like needs a number value (complex values are not converted yet)");
  if (op->nopnds != 1 || !mlir_type_eq(op->opnds[0]->type, rt))
    mlir_fail(st, op->off, "chlo.constant_like takes one operand of its result's type");
  const char *text;
  if (v->kind == MA_WORD) {
    if (!is(v->s, "true") && !is(v->s, "false")) mlir_fail(st, v->offset, "chlo.constant_like: unknown value '%s'", v->s);
    text = v->s;
  } else if (v->kind == MA_INT) {
    text = mlir_fmt(st, "%lld", (long long)v->i);
  } else {
    text = isnan(v->f) ? "nan" : isinf(v->f) ? (v->f < 0 ? "-inf" : "inf") : mlir_fmt(st, "%.17g", v->f);
  }
  MType *s = chlo_like(st, rt, rt->etype);
  s->rank = 0;
  const char *c = mlir_line(st, op->off, "k", s, "constant(%s)", text);
  mlir_bind_results(st, op, mlir_line(st, op->off, "v", rt, "broadcast(%s), dimensions={}", c), NULL);
}

static const struct {
  const char *name;
  Fn1 fn;
  bool up; /* computed in f32 for f16/bf16 */
} UNARY[] = {{"erfc", chlo_erfc, true},       {"erf_inv", chlo_erf_inv, true}, {"lgamma", chlo_lgamma, true},
             {"digamma", chlo_digamma, true}, {"bessel_i1e", chlo_bessel_i1e, true}, {"sinh", chlo_sinh, true},
             {"cosh", chlo_cosh, true},       {"asin", asin_, false},          {"acos", acos_, false},
             {"atan", atan_, false},          {"asinh", asinh_, false},        {"acosh", acosh_, false},
             {"atanh", atanh_, false}};

static void emit_unary(MState *st, MOp *op, const char *sn) {
  if (op->nopnds != 1 || op->nout != 1) mlir_fail(st, op->off, "%s takes one operand and gives one result", op->name);
  const MType *t = op->opnds[0]->type, *rt = op->out[0];
  bool pred_out = strncmp(sn, "is_", 3) == 0;
  bool cplx_ok = is(sn, "conj") || is(sn, "tan") || is(sn, "sinh") || is(sn, "cosh");
  bool cplx = is(t->etype, "c64") || is(t->etype, "c128");
  if (t->kind != MT_TENSOR || !(is_float(t->etype) || (cplx_ok && cplx) || is(sn, "conj") || is(sn, "tan")))
    mlir_fail(st, op->opnd_off[0], "%s needs a floating-point tensor", op->name);
  MType *want = pred_out ? chlo_like(st, t, "pred") : chlo_like(st, t, t->etype);
  if (!mlir_type_eq(want, rt)) mlir_fail(st, op->off, "%s: the result type must be the operand's%s", op->name, pred_out ? " shape of i1" : "");
  const char *x = op->opnds[0]->hlo, *h = NULL;
  if (is(sn, "erf") || is(sn, "tan")) {
    h = mlir_line(st, op->off, "v", rt, "%s(%s)", sn, x);
  } else if (is(sn, "conj")) {
    if (!is(t->etype, "c64") && !is(t->etype, "c128")) {
      h = x; /* the conjugate of a real number is itself */
    } else {
      MType *part = chlo_like(st, t, is(t->etype, "c64") ? "f32" : "f64");
      const char *re = mlir_line(st, op->off, "re", part, "real(%s)", x);
      const char *im = mlir_line(st, op->off, "im", part, "negate(%s)", mlir_line(st, op->off, "im", part, "imag(%s)", x));
      h = mlir_line(st, op->off, "v", rt, "complex(%s, %s)", re, im);
    }
  } else if (pred_out) {
    ChloEx e;
    chlo_ex_init(&e, st, op->off, t);
    const char *a = is(sn, "is_inf") ? chlo_un(&e, "abs", x) : x;
    h = chlo_cmp(&e, "EQ", a, chlo_k(&e, is(sn, "is_neg_inf") ? -INFINITY : INFINITY));
  } else {
    for (size_t i = 0; i < sizeof UNARY / sizeof UNARY[0] && !h; i++) {
      if (!is(sn, UNARY[i].name)) continue;
      if (UNARY[i].up) {
        h = upcast(st, op, UNARY[i].fn, NULL);
      } else {
        ChloEx e;
        chlo_ex_init(&e, st, op->off, t);
        h = UNARY[i].fn(&e, x);
      }
    }
  }
  if (!h) mlir_fail(st, op->off, "unknown operation '%s'", op->name);
  mlir_bind_results(st, op, h, NULL);
}

bool mlir_emit_chlo(MState *st, MOp *op, const char *name) {
  if (strncmp(name, "chlo.", 5) != 0) return false;
  const char *sn = name + 5;
  if (is(sn, "constant")) {
    op->name = "stablehlo.constant";
    mlir_emit_op(st, op);
    return true;
  }
  if (is(sn, "constant_like")) {
    emit_constant_like(st, op);
  } else if (is(sn, "top_k")) {
    emit_top_k(st, op);
  } else if (is(sn, "next_after") || is(sn, "zeta") || is(sn, "polygamma")) {
    if (op->nopnds != 2 || op->nout != 1 || !mlir_type_eq(op->opnds[0]->type, op->out[0]) ||
        !mlir_type_eq(op->opnds[1]->type, op->out[0]) || !is_float(op->out[0]->etype))
      mlir_fail(st, op->off, "%s takes two floating-point tensors of its result's type", op->name);
    const char *h = is(sn, "next_after") ? next_after(st, op) : upcast(st, op, NULL, is(sn, "zeta") ? chlo_zeta : chlo_polygamma);
    mlir_bind_results(st, op, h, NULL);
  } else if (strncmp(sn, "broadcast_", 10) == 0) {
    for (size_t i = 0; i < sizeof BROADCAST_OPS / sizeof BROADCAST_OPS[0]; i++)
      if (is(sn + 10, BROADCAST_OPS[i][0])) {
        emit_broadcast(st, op, BROADCAST_OPS[i][0], BROADCAST_OPS[i][1]);
        return true;
      }
    mlir_fail(st, op->off, "unknown operation '%s'", op->name);
  } else {
    emit_unary(st, op, sn);
  }
  return true;
}
