/* StableHLO ops with their own semantics, written as the HLO instruction
 * XLA's StableHLO->HLO conversion maps each to: convolution,
 * select_and_scatter, rng, rng_bit_generator, fft, cholesky,
 * triangular_solve, batch_norm_{training,inference,grad},
 * reduce_precision, get_dimension_size, composite (a call of its
 * decomposition); the dynamic ops are in mlir_emit_dyn.c, the shared
 * attribute readers in mlir_nn_attrs.c.
 *
 * Each op checks the rules of the StableHLO specification that the HLO
 * verifier would not report (attributes that do not survive into the HLO
 * text, enum spellings, region signatures); the rest (shapes, element
 * types) the HLO verifier reports at the op's position. */
#include <stdio.h>
#include <string.h>

#include "parser/mlir_nn.h"

/* Convolution dimension numbers: for input, kernel and output, the
 * positions of the two named dimensions (b/f, i/o, b/f) and of each
 * spatial dimension. */
typedef struct {
  int rank;
  int64_t named[2];
  int64_t spatial[MLIR_MAX_RANK];
  int ns;
} ConvGroup;

/* A cursor over an attribute's text (#stablehlo.conv<...> is kept as
 * text); errors point at the attribute. */
typedef struct {
  MState *st;
  const char *p;
  int64_t off;
} Txt;

static _Noreturn void txt_fail(Txt *t, const char *what) {
  mlir_fail(t->st, t->off, "malformed convolution dimension numbers: %s", what);
}

static bool txt_accept(Txt *t, const char *s) {
  while (*t->p == ' ' || *t->p == '\n' || *t->p == '\t' || *t->p == '\r') t->p++;
  size_t n = strlen(s);
  if (strncmp(t->p, s, n) != 0) return false;
  t->p += n;
  return true;
}

static int64_t txt_int(Txt *t) {
  txt_accept(t, "");
  if (*t->p < '0' || *t->p > '9') txt_fail(t, "expected a dimension number");
  int64_t v = 0;
  while (*t->p >= '0' && *t->p <= '9') {
    if (v > 1000000) txt_fail(t, "dimension number too large");
    v = v * 10 + (*t->p++ - '0');
  }
  return v;
}

/* "[b, 0, 1, f]": letters n0/n1 name the two non-spatial dimensions. */
static void group_brackets(Txt *t, ConvGroup *g, char n0, char n1) {
  memset(g, 0, sizeof *g);
  g->named[0] = g->named[1] = -1;
  for (int k = 0; k < MLIR_MAX_RANK; k++) g->spatial[k] = -1;
  if (!txt_accept(t, "[")) txt_fail(t, "expected '['");
  if (txt_accept(t, "]")) return;
  do {
    if (g->rank == MLIR_MAX_RANK) txt_fail(t, "too many dimensions");
    txt_accept(t, "");
    char c = *t->p;
    if (c == n0 || c == n1) {
      t->p++;
      int64_t *slot = &g->named[c == n1];
      if (*slot >= 0) txt_fail(t, "a dimension letter appears twice");
      *slot = g->rank;
    } else {
      int64_t k = txt_int(t);
      if (k >= MLIR_MAX_RANK - 2 || g->spatial[k] >= 0) txt_fail(t, "a spatial dimension appears twice or is too large");
      g->spatial[k] = g->rank;
      if (k + 1 > g->ns) g->ns = (int)k + 1;
    }
    g->rank++;
  } while (txt_accept(t, ","));
  if (!txt_accept(t, "]")) txt_fail(t, "expected ']'");
  if (g->named[0] < 0 || g->named[1] < 0) txt_fail(t, "each group needs both of its letters (b and f, i and o)");
  for (int k = 0; k < g->ns; k++)
    if (g->spatial[k] < 0) txt_fail(t, "spatial dimensions must be numbered 0, 1, ... without gaps");
}

/* "raw input_batch_dimension = 0, ..., output_spatial_dimensions = [1, 2]" */
static void groups_raw(Txt *t, ConvGroup g[3]) {
  static const char *const keys[9] = {
      "input_batch_dimension",          "input_feature_dimension",         "input_spatial_dimensions",
      "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions",
      "output_batch_dimension",         "output_feature_dimension",        "output_spatial_dimensions"};
  bool seen[9] = {false};
  memset(g, 0, 3 * sizeof *g);
  do {
    int k = 0;
    while (k < 9 && !(txt_accept(t, keys[k]) && txt_accept(t, "="))) k++;
    if (k == 9) txt_fail(t, "expected input_batch_dimension = N, ... (the raw form)");
    seen[k] = true;
    ConvGroup *gr = &g[k / 3];
    if (k % 3 < 2) {
      gr->named[k % 3] = txt_int(t);
      continue;
    }
    if (!txt_accept(t, "[")) txt_fail(t, "expected '[' after a spatial dimensions key");
    if (!txt_accept(t, "]")) {
      do {
        if (gr->ns == MLIR_MAX_RANK - 2) txt_fail(t, "too many spatial dimensions");
        gr->spatial[gr->ns++] = txt_int(t);
      } while (txt_accept(t, ","));
      if (!txt_accept(t, "]")) txt_fail(t, "expected ']'");
    }
  } while (txt_accept(t, ","));
  for (int k = 0; k < 9; k++)
    if (!seen[k]) mlir_fail(t->st, t->off, "malformed convolution dimension numbers: %s is missing", keys[k]);
  for (int i = 0; i < 3; i++) g[i].rank = g[i].ns + 2;
}

/* The dimension numbers from "#stablehlo.conv<...>" (generic) or the
 * pretty "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]". */
static void conv_groups(MState *st, const MAttr *a, ConvGroup g[3]) {
  Txt t = {st, a->s, a->offset};
  bool angle = txt_accept(&t, "<");
  if (txt_accept(&t, "raw")) {
    groups_raw(&t, g);
  } else {
    group_brackets(&t, &g[0], 'b', 'f');
    if (!txt_accept(&t, "x")) txt_fail(&t, "expected 'x' after the input dimensions");
    group_brackets(&t, &g[1], 'i', 'o');
    if (!txt_accept(&t, "->")) txt_fail(&t, "expected '->' after the kernel dimensions");
    group_brackets(&t, &g[2], 'b', 'f');
  }
  if (angle && !txt_accept(&t, ">")) txt_fail(&t, "expected '>'");
  if (*t.p) txt_fail(&t, "unexpected text after the dimension numbers");
}

/* "b01f" for a group of rank n, checking each dimension is named once
 * (C14, C19, C21). */
static void group_labels(MState *st, const MAttr *a, const ConvGroup *g, int n, const char *letters,
                         const char *what, char *out) {
  if (g->ns != n - 2)
    mlir_fail(st, a->offset, "the convolution's %s dimension numbers list %d spatial dimensions, rank %d needs %d",
              what, g->ns, n, n - 2);
  if (n - 2 > 10) mlir_fail(st, a->offset, "convolutions of more than 10 spatial dimensions are not supported");
  memset(out, 0, (size_t)n + 1);
  int64_t pos[MLIR_MAX_RANK + 2];
  char lab[MLIR_MAX_RANK + 2];
  pos[0] = g->named[0], lab[0] = letters[0];
  pos[1] = g->named[1], lab[1] = letters[1];
  for (int k = 0; k < g->ns; k++) pos[2 + k] = g->spatial[k], lab[2 + k] = (char)('0' + k);
  for (int i = 0; i < n; i++) {
    if (pos[i] < 0 || pos[i] >= n)
      mlir_fail(st, a->offset, "the convolution's %s dimension %lld is out of range for rank %d", what,
                (long long)pos[i], n);
    if (out[pos[i]]) mlir_fail(st, a->offset, "the convolution's %s dimension %lld is named twice", what, (long long)pos[i]);
    out[pos[i]] = lab[i];
  }
}

static void check_positive(MState *st, const MOp *op, const char *key, const int64_t *v, int n, const char *rule) {
  for (int i = 0; i < n; i++)
    if (v[i] <= 0) {
      MAttr *a = mlir_op_attr(op, key);
      mlir_fail(st, a ? a->offset : op->off, "%s: every entry of %s must be positive (%s)", op->name, key, rule);
    }
}

static int64_t int_or(MState *st, const MOp *op, const char *key, int64_t dflt) {
  return mlir_op_attr(op, key) ? nn_int(st, op, key) : dflt;
}

void nn_emit_conv(MState *st, MOp *op, const int64_t *dpad) {
  nn_arity(st, op, 2, 1);
  MType *lt = op->opnds[0]->type, *kt = op->opnds[1]->type, *ot = nn_result(st, op);
  if (lt->kind != MT_TENSOR || kt->kind != MT_TENSOR) mlir_fail(st, op->off, "%s takes two tensors", op->name);
  int n = lt->rank;
  if (n < 2 || kt->rank != n || ot->rank != n)
    mlir_fail(st, op->off, "%s: lhs, rhs and result must have the same rank, at least 2 (C1, C28)", op->name);
  if (strcmp(lt->etype, kt->etype) != 0)
    mlir_fail(st, op->opnd_off[1], "%s: lhs and rhs have different element types (C2)", op->name);
  MAttr *dn = mlir_op_attr(op, "dimension_numbers");
  if (!dn || dn->kind != MA_WORD)
    mlir_fail(st, op->off, "%s needs dimension_numbers = #stablehlo.conv<...>", op->name);
  ConvGroup g[3];
  conv_groups(st, dn, g);
  char in[MLIR_MAX_RANK + 1], ker[MLIR_MAX_RANK + 1], out[MLIR_MAX_RANK + 1];
  group_labels(st, dn, &g[0], n, "bf", "input", in);
  group_labels(st, dn, &g[1], n, "io", "kernel", ker);
  group_labels(st, dn, &g[2], n, "bf", "output", out);
  int ns = n - 2;
  int64_t size[MLIR_MAX_RANK], stride[MLIR_MAX_RANK], pad[2 * MLIR_MAX_RANK], ld[MLIR_MAX_RANK], rd[MLIR_MAX_RANK];
  bool rev[MLIR_MAX_RANK];
  for (int k = 0; k < ns; k++) size[k] = kt->dims[g[1].spatial[k]];
  nn_ints(st, op, "window_strides", stride, ns, true, 1);
  if (dpad) memcpy(pad, dpad, sizeof *pad * 2 * (size_t)ns);
  else nn_ints(st, op, "padding", pad, 2 * ns, true, 0);
  nn_ints(st, op, "lhs_dilation", ld, ns, true, 1);
  nn_ints(st, op, "rhs_dilation", rd, ns, true, 1);
  nn_bools(st, op, "window_reversal", rev, ns);
  check_positive(st, op, "window_strides", stride, ns, "C4");
  check_positive(st, op, "lhs_dilation", ld, ns, "C7");
  check_positive(st, op, "rhs_dilation", rd, ns, "C9");
  int64_t fgc = int_or(st, op, "feature_group_count", 1), bgc = int_or(st, op, "batch_group_count", 1);
  if (fgc < 1 || bgc < 1 || (fgc > 1 && bgc > 1))
    mlir_fail(st, op->off, "%s: feature_group_count and batch_group_count must be positive and one of them 1 "
              "(C22-C24)", op->name);
  int64_t r[MLIR_MAX_RANK];
  for (int k = 0; k < ns; k++) r[k] = rev[k];
  StrBuf *sb = mlir_sb(st);
  if (ns)
    sb_printf(sb, ", window={size=%s stride=%s pad=%s lhs_dilate=%s rhs_dilate=%s rhs_reversal=%s}",
              nn_dims_text(st, size, ns, false), nn_dims_text(st, stride, ns, false), nn_dims_text(st, pad, ns, true),
              nn_dims_text(st, ld, ns, false), nn_dims_text(st, rd, ns, false), nn_dims_text(st, r, ns, false));
  sb_printf(sb, ", dim_labels=%s_%s->%s", in, ker, out);
  if (fgc > 1) sb_printf(sb, ", feature_group_count=%lld", (long long)fgc);
  if (bgc > 1) sb_printf(sb, ", batch_group_count=%lld", (long long)bgc);
  const char *h = mlir_line(st, op->off, "v", ot, "convolution(%s)%s", mlir_opnd_list(st, op, 0, 2), sb->data);
  mlir_bind_results(st, op, h, NULL);
}

/* A region's signature: two scalar tensors of etype, one scalar result of
 * etype res (rule names the spec constraint). */
static void scalar_region(MState *st, const MOp *op, const MRegion *r, const char *etype, const char *res,
                          const char *what, const char *rule) {
  bool ok = r->nargs == 2 && r->nresults == 1;
  for (int i = 0; ok && i < 2; i++)
    ok = r->args[i]->kind == MT_TENSOR && r->args[i]->rank == 0 && strcmp(r->args[i]->etype, etype) == 0;
  ok = ok && r->results[0]->kind == MT_TENSOR && r->results[0]->rank == 0 && strcmp(r->results[0]->etype, res) == 0;
  if (!ok)
    mlir_fail(st, r->off, "the %s region of %s must map two scalars of the operand's element type to %s (%s)", what,
              op->name, strcmp(res, "pred") == 0 ? "a tensor<i1>" : "one scalar of that type", rule);
  mlir_no_captures(st, op, r);
}

static void emit_select_and_scatter(MState *st, MOp *op) {
  nn_arity(st, op, 3, 1);
  if (op->nregions != 2) mlir_fail(st, op->off, "select_and_scatter needs a select and a scatter region");
  MType *t = op->opnds[0]->type;
  if (t->kind != MT_TENSOR) mlir_fail(st, op->opnd_off[0], "select_and_scatter's operand must be a tensor");
  scalar_region(st, op, op->regions[0], t->etype, "pred", "select", "C10");
  scalar_region(st, op, op->regions[1], t->etype, t->etype, "scatter", "C11");
  int n = t->rank;
  int64_t size[MLIR_MAX_RANK], stride[MLIR_MAX_RANK], pad[2 * MLIR_MAX_RANK];
  nn_ints(st, op, "window_dimensions", size, n, false, 0);
  nn_ints(st, op, "window_strides", stride, n, true, 1);
  nn_ints(st, op, "padding", pad, 2 * n, true, 0);
  check_positive(st, op, "window_dimensions", size, n, "C6");
  check_positive(st, op, "window_strides", stride, n, "C8");
  const char *win = n ? mlir_fmt(st, ", window={size=%s stride=%s pad=%s}", nn_dims_text(st, size, n, false),
                                 nn_dims_text(st, stride, n, false), nn_dims_text(st, pad, n, true))
                      : "";
  const char *h = mlir_line(st, op->off, "v", nn_result(st, op), "select-and-scatter(%s)%s, select=%s, scatter=%s",
                            mlir_opnd_list(st, op, 0, 3), win, op->regions[0]->comp, op->regions[1]->comp);
  mlir_bind_results(st, op, h, NULL);
}

/* value must be one of names[]; returns its index. */
static int one_of(MState *st, const MOp *op, const char *key, const char *value, const char *const *names) {
  for (int i = 0; names[i]; i++)
    if (strcmp(value, names[i]) == 0) return i;
  StrBuf *sb = mlir_sb(st);
  for (int i = 0; names[i]; i++) sb_printf(sb, "%s%s", i ? ", " : "", names[i]);
  MAttr *a = mlir_op_attr(op, key);
  mlir_fail(st, a ? a->offset : op->off, "%s: unknown %s '%s' (expected one of %s)", op->name, key, value, sb->data);
}

static const char *required_word(MState *st, const MOp *op, const char *key) {
  const char *w = nn_word(st, op, key);
  if (!w) mlir_fail(st, op->off, "%s needs the attribute '%s'", op->name, key);
  return w;
}

static bool is_float(const char *etype) { return etype[0] == 'f' || strcmp(etype, "bf16") == 0; }

static void emit_rng(MState *st, MOp *op) {
  static const char *const DIST[] = {"UNIFORM", "NORMAL", NULL};
  nn_arity(st, op, 3, 1);
  int d = one_of(st, op, "rng_distribution", required_word(st, op, "rng_distribution"), DIST);
  MType *rt = nn_result(st, op);
  if (d == 1 && !is_float(rt->etype))
    mlir_fail(st, op->off, "stablehlo.rng with NORMAL needs floating-point a, b and result (C2)");
  /* The shape operand does not reach the HLO (the result type carries the
   * shape); when it is a constant it must agree with that type (C3). */
  MType *s = op->opnds[2]->type;
  if (s->kind != MT_TENSOR || s->rank != 1 || !(s->etype[0] == 's' || s->etype[0] == 'u'))
    mlir_fail(st, op->opnd_off[2], "stablehlo.rng's shape operand must be a 1-dimensional integer tensor");
  int64_t v[MLIR_MAX_RANK];
  int k = nn_const_ints(st, op->opnds[2], v, MLIR_MAX_RANK);
  if (k >= 0 && (k != rt->rank || memcmp(v, rt->dims, sizeof *v * (size_t)k) != 0))
    mlir_fail(st, op->opnd_off[2], "stablehlo.rng: the shape operand is %s but the result's shape is %s (C3)",
              nn_shape_text(st, v, k), nn_shape_text(st, rt->dims, rt->rank));
  const char *h = mlir_line(st, op->off, "v", rt, "rng(%s), distribution=%s", mlir_opnd_list(st, op, 0, 2),
                            d ? "rng_normal" : "rng_uniform");
  mlir_bind_results(st, op, h, NULL);
}

static void emit_rng_bit_generator(MState *st, MOp *op) {
  static const char *const ALG[] = {"DEFAULT", "THREE_FRY", "PHILOX", NULL};
  static const char *const HLO[] = {"rng_default", "rng_three_fry", "rng_philox"};
  nn_arity(st, op, 1, 2);
  int a = one_of(st, op, "rng_algorithm", required_word(st, op, "rng_algorithm"), ALG);
  MType *s = op->opnds[0]->type;
  if (s->kind != MT_TENSOR || s->rank != 1 || strcmp(s->etype, "u64") != 0 || !mlir_type_eq(s, op->out[0]))
    mlir_fail(st, op->opnd_off[0], "stablehlo.rng_bit_generator: the state must be a tensor<Nxui64>, and the first "
              "result of its type (C1)");
  int64_t n = s->dims[0];
  if ((a == 1 && n != 2) || (a == 2 && n != 2 && n != 3))
    mlir_fail(st, op->opnd_off[0], "stablehlo.rng_bit_generator: %s needs a state of %s, not %lld (C2)", ALG[a],
              a == 1 ? "2 values" : "2 or 3 values", (long long)n);
  MType *t = mlir_tuple_of(st, op->out, 2);
  const char *h = mlir_line(st, op->off, "v", t, "rng-bit-generator(%s), algorithm=%s", op->opnds[0]->hlo, HLO[a]);
  mlir_bind_results(st, op, h, t);
}

static void emit_fft(MState *st, MOp *op) {
  static const char *const TYPES[] = {"FFT", "IFFT", "RFFT", "IRFFT", NULL};
  nn_arity(st, op, 1, 1);
  int t = one_of(st, op, "fft_type", required_word(st, op, "fft_type"), TYPES);
  int64_t len[MLIR_MAX_RANK];
  int n = nn_ints(st, op, "fft_length", len, -1, false, 0);
  if (n < 1 || n > 3 || n > op->opnds[0]->type->rank) {
    MAttr *a = mlir_op_attr(op, "fft_length");
    mlir_fail(st, a->offset, "stablehlo.fft: fft_length needs 1 to 3 values, at most the operand's rank (C1, C3)");
  }
  const char *h = mlir_line(st, op->off, "v", nn_result(st, op), "fft(%s), fft_type=%s, fft_length=%s",
                            op->opnds[0]->hlo, TYPES[t], nn_list_text(st, len, n));
  mlir_bind_results(st, op, h, NULL);
}

static void emit_triangular_solve(MState *st, MOp *op) {
  static const char *const TR[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT", NULL};
  nn_arity(st, op, 2, 1);
  int tr = one_of(st, op, "transpose_a", required_word(st, op, "transpose_a"), TR);
  const char *h = mlir_line(st, op->off, "v", nn_result(st, op),
                            "triangular-solve(%s), left_side=%s, lower=%s, unit_diagonal=%s, transpose_a=%s",
                            mlir_opnd_list(st, op, 0, 2), nn_bool(st, op, "left_side", false) ? "true" : "false",
                            nn_bool(st, op, "lower", false) ? "true" : "false",
                            nn_bool(st, op, "unit_diagonal", false) ? "true" : "false", TR[tr]);
  mlir_bind_results(st, op, h, NULL);
}

/* batch_norm_training (3 operands, 3 results), _inference (5, 1), _grad (5, 3). */
static void emit_batch_norm(MState *st, MOp *op, const char *kind) {
  bool inference = strcmp(kind, "inference") == 0;
  nn_arity(st, op, kind[0] == 't' ? 3 : 5, inference ? 1 : 3);
  MAttr *e = mlir_op_attr(op, "epsilon");
  if (!e || (e->kind != MA_FLOAT && e->kind != MA_INT))
    mlir_fail(st, op->off, "%s needs a floating-point attribute 'epsilon'", op->name);
  double eps = e->kind == MA_FLOAT ? e->f : (double)e->i;
  int64_t fi = nn_int(st, op, "feature_index");
  if (fi < 0 || fi >= op->opnds[0]->type->rank)
    mlir_fail(st, mlir_op_attr(op, "feature_index")->offset, "%s: feature_index %lld is not a dimension of the operand (C1)",
              op->name, (long long)fi);
  MType *t = inference ? op->out[0] : mlir_tuple_of(st, op->out, 3);
  const char *h = mlir_line(st, op->off, "v", t, "batch-norm-%s(%s), epsilon=%.9g, feature_index=%lld", kind,
                            mlir_opnd_list(st, op, 0, op->nopnds), eps, (long long)fi);
  mlir_bind_results(st, op, h, inference ? NULL : t);
}

static void emit_reduce_precision(MState *st, MOp *op) {
  nn_arity(st, op, 1, 1);
  int64_t e = nn_int(st, op, "exponent_bits"), m = nn_int(st, op, "mantissa_bits");
  if (e < 1 || m < 0)
    mlir_fail(st, mlir_op_attr(op, e < 1 ? "exponent_bits" : "mantissa_bits")->offset,
              "stablehlo.reduce_precision needs exponent_bits >= 1 and mantissa_bits >= 0 (C2, C3)");
  const char *h = mlir_line(st, op->off, "v", nn_result(st, op), "reduce-precision(%s), exponent_bits=%lld, mantissa_bits=%lld",
                            op->opnds[0]->hlo, (long long)e, (long long)m);
  mlir_bind_results(st, op, h, NULL);
}

static void emit_get_dimension_size(MState *st, MOp *op) {
  nn_arity(st, op, 1, 1);
  int64_t d = nn_int(st, op, "dimension");
  MType *t = op->opnds[0]->type;
  if (t->kind != MT_TENSOR || d < 0 || d >= t->rank)
    mlir_fail(st, mlir_op_attr(op, "dimension")->offset, "stablehlo.get_dimension_size: dimension %lld is not a "
              "dimension of the operand (C1)", (long long)d);
  const char *h = mlir_line(st, op->off, "v", nn_result(st, op), "get-dimension-size(%s), dimensions={%lld}",
                            op->opnds[0]->hlo, (long long)d);
  mlir_bind_results(st, op, h, NULL);
}

/* composite: a call of its decomposition function (name, attributes and
 * version only describe it). */
static void emit_composite(MState *st, MOp *op) {
  MAttr *d = mlir_op_attr(op, "decomposition"), *name = mlir_op_attr(op, "name");
  if (!name || name->kind != MA_STR) mlir_fail(st, op->off, "stablehlo.composite needs a name \"...\"");
  if (!d || d->kind != MA_WORD || d->s[0] != '@') mlir_fail(st, op->off, "stablehlo.composite needs decomposition = @function");
  MFunc *f = mlir_find_func(st, d->s + 1);
  if (!f) mlir_fail(st, d->offset, "stablehlo.composite: no function %s", d->s);
  bool ok = f->nargs == op->nopnds && f->nresults == op->nout;
  for (int i = 0; ok && i < f->nargs; i++) ok = mlir_type_eq(f->args[i], op->opnds[i]->type);
  for (int i = 0; ok && i < f->nresults; i++) ok = mlir_type_eq(f->results[i], op->out[i]);
  if (!ok) mlir_fail(st, d->offset, "stablehlo.composite: the types of %s differ from the decomposition %s's", name->s, d->s);
  MType *t = op->nout == 1 ? op->out[0] : mlir_tuple_of(st, op->out, op->nout);
  const char *h = mlir_line(st, op->off, "v", t, "call(%s), to_apply=%s", mlir_opnd_list(st, op, 0, op->nopnds), f->hlo);
  mlir_bind_results(st, op, h, op->nout == 1 ? NULL : t);
}

bool mlir_emit_nn(MState *st, MOp *op, const char *sn) {
  if (strcmp(sn, "convolution") == 0) {
    nn_emit_conv(st, op, NULL);
  } else if (strcmp(sn, "select_and_scatter") == 0) {
    emit_select_and_scatter(st, op);
  } else if (strcmp(sn, "rng") == 0) {
    emit_rng(st, op);
  } else if (strcmp(sn, "rng_bit_generator") == 0) {
    emit_rng_bit_generator(st, op);
  } else if (strcmp(sn, "fft") == 0) {
    emit_fft(st, op);
  } else if (strcmp(sn, "cholesky") == 0) {
    nn_arity(st, op, 1, 1);
    const char *h = mlir_line(st, op->off, "v", nn_result(st, op), "cholesky(%s), lower=%s", op->opnds[0]->hlo,
                              nn_bool(st, op, "lower", false) ? "true" : "false");
    mlir_bind_results(st, op, h, NULL);
  } else if (strcmp(sn, "triangular_solve") == 0) {
    emit_triangular_solve(st, op);
  } else if (strncmp(sn, "batch_norm_", 11) == 0 &&
             (strcmp(sn + 11, "training") == 0 || strcmp(sn + 11, "inference") == 0 || strcmp(sn + 11, "grad") == 0)) {
    emit_batch_norm(st, op, sn + 11);
  } else if (strcmp(sn, "reduce_precision") == 0) {
    emit_reduce_precision(st, op);
  } else if (strcmp(sn, "get_dimension_size") == 0) {
    emit_get_dimension_size(st, op);
  } else if (strcmp(sn, "composite") == 0) {
    emit_composite(st, op);
  } else if (strcmp(sn, "uniform_quantize") == 0 || strcmp(sn, "uniform_dequantize") == 0) {
    mlir_fail(st, op->off, "%s is not converted: quantized types (!quant.uniform) are not supported", op->name);
  } else {
    return nn_emit_dynamic(st, op, sn);
  }
  return true;
}
