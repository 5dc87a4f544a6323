/* An MOp written as HLO instructions, the way XLA's StableHLO->HLO
 * conversion maps them: one instruction per op where they map one to one;
 * a splat constant becomes a scalar constant and a broadcast; ops with
 * several results produce a tuple and one get-tuple-element per result. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "parser/mlir_internal.h"

/* "hint.N" without printf: it is called for every generated line. */
const char *mlir_new_name(MState *st, const char *hint) {
  size_t n = strlen(hint);
  char digits[24];
  int nd = 0;
  for (unsigned v = (unsigned)++st->counter; v; v /= 10) digits[nd++] = (char)('0' + v % 10);
  char *r = arena_alloc(st->arena, n + 2 + (size_t)nd);
  if (!r) mlir_fail(st, -1, "out of memory");
  memcpy(r, hint, n);
  r[n] = '.';
  for (int i = 0; i < nd; i++) r[n + 1 + i] = digits[nd - 1 - i];
  r[n + 1 + nd] = 0;
  return r;
}

static uint64_t hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

bool mlir_in_list(MState *st, const char *name, const char *const *list) {
  enum { CAP = sizeof st->memo / sizeof st->memo[0] };
  size_t i = (hash(name) ^ (uintptr_t)list) & (CAP - 1);
  for (;; i = (i + 1) & (CAP - 1)) {
    if (!st->memo[i].list) break;
    if (st->memo[i].list == list && strcmp(st->memo[i].name, name) == 0) return st->memo[i].in;
  }
  bool in = false;
  for (int k = 0; list[k] && !in; k++) in = strcmp(list[k], name) == 0;
  if (st->nmemo < CAP / 2) { /* else (thousands of made-up names): scan each time */
    st->memo[i].list = list, st->memo[i].name = name, st->memo[i].in = in;
    st->nmemo++;
  }
  return in;
}

/* The slot of ssa in c's table: its value's, or the empty one to fill (its
 * hash already stored). */
static int *slot(MComp *c, const char *ssa) {
  size_t mask = (size_t)c->hcap - 1;
  uint64_t full = hash(ssa);
  uint32_t h = (uint32_t)(full >> 32);
  for (size_t i = full & mask;; i = (i + 1) & mask) {
    if (c->htab[i] == 0) {
      c->hhash[i] = h;
      return &c->htab[i];
    }
    if (c->hhash[i] == h && strcmp(c->vals[c->htab[i] - 1].ssa, ssa) == 0) return &c->htab[i];
  }
}

void mlir_bind(MState *st, const char *ssa, const char *hlo, MType *t) {
  MComp *c = st->cur;
  if (2 * (c->nvals + 1) >= c->hcap) {
    int nc = c->hcap ? c->hcap * 2 : 64;
    c->htab = arena_alloc_array(st->arena, (size_t)nc, sizeof *c->htab);
    c->hhash = arena_alloc_array(st->arena, (size_t)nc, sizeof *c->hhash);
    if (!c->htab || !c->hhash) mlir_fail(st, -1, "out of memory");
    c->hcap = nc;
    for (int i = 0; i < c->nvals; i++) *slot(c, c->vals[i].ssa) = i + 1;
  }
  int *sl = slot(c, ssa);
  if (*sl) mlir_fail(st, st->op_off, "value %s is defined twice", ssa);
  c->vals = mlir_grow(st, c->vals, c->nvals, &c->vcap, sizeof *c->vals);
  c->vals[c->nvals++] = (MValue){ssa, hlo, t, 0};
  *sl = c->nvals;
}

/* A value of comp c's scope; a region's use of an enclosing value becomes a
 * new parameter of the region (recording the capture). */
static MValue *lookup_in(MState *st, MComp *c, const char *ssa, int64_t off) {
  if (c->hcap) {
    int *sl = slot(c, ssa);
    if (*sl) return &c->vals[*sl - 1];
  }
  if (!c->parent) mlir_fail(st, off, "use of undefined value %s", ssa);
  MValue *outer = lookup_in(st, c->parent, ssa, off);
  MComp *saved = st->cur;
  st->cur = c;
  const char *p = mlir_line(st, off, "cap", outer->type, "parameter(%d)", c->nparams++);
  c->capt = mlir_grow(st, c->capt, c->ncapt, &c->captcap, sizeof *c->capt);
  c->capt[c->ncapt++] = outer;
  mlir_bind(st, ssa, p, outer->type);
  st->cur = saved;
  return &c->vals[c->nvals - 1];
}

MValue *mlir_lookup(MState *st, const char *ssa, int64_t off) { return lookup_in(st, st->cur, ssa, off); }

const char *mlir_line(MState *st, int64_t off, const char *hint, const MType *t, const char *fmt, ...) {
  if (!st->line_sb) st->line_sb = mlir_sb(st);
  StrBuf *sb = st->line_sb; /* reused: one line at a time */
  sb->len = 0;
  const char *name = mlir_new_name(st, hint);
  sb_puts(sb, name);
  sb_puts(sb, " = ");
  mlir_type_hlo(sb, t);
  sb_putc(sb, ' ');
  /* One vsnprintf into the buffer's room; a second only when it is short. */
  if (!sb_reserve(sb, 256)) mlir_fail(st, -1, "out of memory");
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  size_t room = sb->cap - sb->len;
  int n = vsnprintf(sb->data + sb->len, room, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n >= room) {
    if (!sb_reserve(sb, (size_t)n)) n = -1;
    else vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
  }
  va_end(ap2);
  if (n < 0) mlir_fail(st, -1, "out of memory");
  sb->len += (size_t)n;
  if (sb->oom) mlir_fail(st, -1, "out of memory");
  char *text = mlir_strdup(st, sb->data, sb->len);
  MComp *c = st->cur;
  c->lines = mlir_grow(st, c->lines, c->nlines, &c->cap, sizeof *c->lines);
  c->lines[c->nlines++] = (MLine){text, name, off};
  return name;
}

/* "a, b, c" of the operands from..to-1. */
const char *mlir_opnd_list(MState *st, const MOp *op, int from, int to) {
  if (!st->tmp_sb) st->tmp_sb = mlir_sb(st);
  StrBuf *sb = st->tmp_sb;
  sb->len = 0;
  for (int i = from; i < to; i++) {
    if (i > from) sb_puts(sb, ", ");
    sb_puts(sb, op->opnds[i]->hlo);
  }
  if (sb->oom) mlir_fail(st, -1, "out of memory");
  return mlir_strdup(st, sb->data ? sb->data : "", sb->len);
}

static const char *ints_text(MState *st, const MOp *op, const char *key, bool required, int *count,
                             int64_t *vals) {
  MAttr *a = mlir_op_attr(op, key);
  int64_t tmp[MLIR_MAX_RANK * 4];
  if (!vals) vals = tmp;
  if (!a) {
    if (required) mlir_fail(st, op->off, "%s needs the attribute '%s'", op->name, key);
    if (count) *count = 0;
    return "";
  }
  int n = mlir_attr_ints(st, a, vals, MLIR_MAX_RANK * 4);
  if (n < 0) mlir_fail(st, a->offset, "'%s' must be a list of integers", key);
  if (count) *count = n;
  if (!st->tmp_sb) st->tmp_sb = mlir_sb(st);
  StrBuf *sb = st->tmp_sb;
  sb->len = 0;
  for (int i = 0; i < n; i++) sb_printf(sb, "%s%lld", i ? "," : "", (long long)vals[i]);
  if (sb->oom) mlir_fail(st, -1, "out of memory");
  return mlir_strdup(st, sb->data ? sb->data : "", sb->len);
}

static int64_t int_attr(MState *st, const MOp *op, const char *key) {
  MAttr *a = mlir_op_attr(op, key);
  if (!a || a->kind != MA_INT) mlir_fail(st, op->off, "%s needs the integer attribute '%s'", op->name, key);
  return a->i;
}

/* Result types and operand types from the trailing type(s), checked against
 * the operands' own types. */
static void resolve_types(MState *st, MOp *op, const char *shortname) {
  if (op->nin >= 0) {
    if (op->nin != op->nopnds)
      mlir_fail(st, op->off, "%s has %d operands but its type lists %d", op->name, op->nopnds, op->nin);
    for (int i = 0; i < op->nopnds; i++)
      if (!mlir_type_eq(op->in[i], op->opnds[i]->type)) {
        StrBuf *a = mlir_sb(st), *b = mlir_sb(st);
        mlir_type_hlo(a, op->opnds[i]->type), mlir_type_hlo(b, op->in[i]);
        char msg[256];
        snprintf(msg, sizeof msg, "type mismatch: operand %d of %s is %s, the op's type says %s", i,
                 op->name, a->data, b->data);
        sb_free(a), sb_free(b);
        mlir_fail(st, op->opnd_off[i], "%s", msg);
      }
    return;
  }
  /* Short forms. */
  bool list = strcmp(shortname, "optimization_barrier") == 0 || strcmp(shortname, "return") == 0;
  if (strcmp(shortname, "select") == 0 && op->nout == 2) {
    op->in = op->opnds[0] ? op->out : op->out;
    op->out = op->out + 1;
    op->nout = 1;
    MType *want[3] = {op->in[0], op->out[0], op->out[0]};
    for (int i = 0; i < op->nopnds && i < 3; i++)
      if (!mlir_type_eq(want[i], op->opnds[i]->type))
        mlir_fail(st, op->opnd_off[i], "type mismatch: operand %d of %s does not have the type given", i, op->name);
    return;
  }
  if (list) {
    if (op->nout != op->nopnds)
      mlir_fail(st, op->off, "%s has %d operands but %d types", op->name, op->nopnds, op->nout);
    for (int i = 0; i < op->nopnds; i++)
      if (!mlir_type_eq(op->out[i], op->opnds[i]->type))
        mlir_fail(st, op->opnd_off[i], "type mismatch: operand %d of %s does not have the type given", i, op->name);
    return;
  }
  if (op->nout != 1) mlir_fail(st, op->off, "expected one result type for %s", op->name);
  if (strcmp(shortname, "tuple") == 0) return;
  for (int i = 0; i < op->nopnds; i++)
    if (!mlir_type_eq(op->out[0], op->opnds[i]->type)) {
      StrBuf *a = mlir_sb(st), *b = mlir_sb(st);
      mlir_type_hlo(a, op->opnds[i]->type), mlir_type_hlo(b, op->out[0]);
      char msg[256];
      snprintf(msg, sizeof msg, "type mismatch: operand %d of %s is %s, the op's type says %s", i, op->name,
               a->data, b->data);
      sb_free(a), sb_free(b);
      mlir_fail(st, op->opnd_off[i], "%s", msg);
    }
}

const char *mlir_result_name(MState *st, const MOp *op, int i) {
  if (op->res_names) return op->res_names[i];
  return op->nresults == 1 ? op->result_ssa : mlir_fmt(st, "%s#%d", op->result_ssa, i);
}

/* Binds the op's results: one value, or a tuple split into its elements. */
void mlir_bind_results(MState *st, MOp *op, const char *hlo, MType *tuple_type) {
  if (op->nresults == 0) return;
  if (tuple_type) {
    if (op->nresults != tuple_type->nelems)
      mlir_fail(st, op->off, "%s gives %d results, %d are named", op->name, tuple_type->nelems, op->nresults);
    for (int i = 0; i < tuple_type->nelems; i++) {
      const char *g = mlir_line(st, op->off, "gte", tuple_type->elems[i], "get-tuple-element(%s), index=%d", hlo, i);
      mlir_bind(st, mlir_result_name(st, op, i), g, tuple_type->elems[i]);
    }
    return;
  }
  if (op->nresults != 1) mlir_fail(st, op->off, "%s gives one result, %d are named", op->name, op->nresults);
  mlir_bind(st, mlir_result_name(st, op, 0), hlo, op->out[0]);
}

MType *mlir_tuple_of(MState *st, MType **elems, int n) {
  MType *t = arena_alloc(st->arena, sizeof *t);
  if (!t) mlir_fail(st, -1, "out of memory");
  t->kind = MT_TUPLE;
  t->elems = elems;
  t->nelems = n;
  return t;
}

static MType *scalar_of(MState *st, const MType *t) {
  MType *s = arena_alloc(st->arena, sizeof *s);
  if (!s) mlir_fail(st, -1, "out of memory");
  s->kind = MT_TENSOR;
  s->etype = t->etype;
  return s;
}

/* WEAKORDER's view of a float x: every NaN one +NaN and -0 as +0, so that
 * a TOTALORDER comparison then puts all NaNs together above +inf and -0
 * with +0. */
static const char *weak_canonical(MState *st, const MOp *op, const char *x, const MType *t) {
  MType *pred = arena_alloc(st->arena, sizeof *pred);
  if (!pred) mlir_fail(st, -1, "out of memory");
  *pred = *t;
  pred->etype = "pred";
  MType *s = scalar_of(st, t);
  const char *isnan = mlir_line(st, op->off, "v", pred, "compare(%s, %s), direction=NE", x, x);
  const char *zero = mlir_line(st, op->off, "v", t, "broadcast(%s), dimensions={}",
                               mlir_line(st, op->off, "c", s, "constant(0)"));
  const char *nan = mlir_line(st, op->off, "v", t, "broadcast(%s), dimensions={}",
                              mlir_line(st, op->off, "c", s, "constant(nan)"));
  const char *plus0 = mlir_line(st, op->off, "v", t, "add(%s, %s)", x, zero);
  return mlir_line(st, op->off, "v", t, "select(%s, %s, %s)", isnan, nan, plus0);
}

/* compare: the direction, and a compare_type that must fit the element
 * type (spec: SIGNED for signed integers, UNSIGNED for unsigned ones and
 * i1, FLOAT or TOTALORDER for floats, FLOAT for complex); WEAKORDER (all
 * NaNs equal and above +inf, -0 equal to +0) is a TOTALORDER comparison of
 * canonicalised operands. */
static const char *emit_compare(MState *st, MOp *op, const MType *rt) {
  MAttr *d = mlir_op_attr(op, "comparison_direction"), *ct = mlir_op_attr(op, "compare_type");
  if (!d || d->kind != MA_WORD) mlir_fail(st, op->off, "compare needs a comparison_direction");
  static const char *const DIRS[] = {"EQ", "NE", "GE", "GT", "LE", "LT", NULL};
  bool ok = false;
  for (int i = 0; DIRS[i]; i++) ok |= strcmp(d->s, DIRS[i]) == 0;
  if (!ok) mlir_fail(st, d->offset, "unknown comparison direction '%s'", d->s);
  if (op->nopnds != 2) mlir_fail(st, op->off, "compare takes two operands");
  const MType *t = op->opnds[0]->type;
  const char *e = t->kind == MT_TENSOR ? t->etype : "";
  bool is_complex = e[0] == 'c', is_float = e[0] == 'f' || (e[0] == 'b' && e[1] == 'f');
  bool is_signed = e[0] == 's', is_unsigned = e[0] == 'u' || strcmp(e, "pred") == 0;
  const char *type = !ct ? NULL : ct->kind == MA_WORD ? ct->s : "";
  if (type) {
    bool fits = strcmp(type, "FLOAT") == 0 ? is_float || is_complex
              : strcmp(type, "TOTALORDER") == 0 || strcmp(type, "WEAKORDER") == 0 ? is_float
              : strcmp(type, "SIGNED") == 0 ? is_signed
              : strcmp(type, "UNSIGNED") == 0 ? is_unsigned
              : strcmp(type, "NOTYPE") == 0;
    if (!fits && !(strcmp(type, "FLOAT") == 0 || strcmp(type, "TOTALORDER") == 0 ||
                   strcmp(type, "WEAKORDER") == 0 || strcmp(type, "SIGNED") == 0 ||
                   strcmp(type, "UNSIGNED") == 0 || strcmp(type, "NOTYPE") == 0))
      mlir_fail(st, ct->offset, "unknown compare_type '%s'", type);
    if (!fits)
      mlir_fail(st, ct->offset, "compare_type %s does not fit elements of type %s", type, e);
  }
  if (is_complex && strcmp(d->s, "EQ") != 0 && strcmp(d->s, "NE") != 0)
    mlir_fail(st, d->offset, "complex numbers compare with EQ or NE only");
  const char *a = op->opnds[0]->hlo, *b = op->opnds[1]->hlo;
  bool total = type && strcmp(type, "TOTALORDER") == 0;
  if (type && strcmp(type, "WEAKORDER") == 0) {
    a = weak_canonical(st, op, a, t);
    b = weak_canonical(st, op, b, op->opnds[1]->type);
    total = true;
  }
  return mlir_line(st, op->off, "v", rt, "compare(%s, %s), direction=%s%s", a, b, d->s,
                   total ? ", type=TOTALORDER" : "");
}

/* reduce: "applies stablehlo.add" builds the two-parameter computation. */
static const char *applies_comp(MState *st, MOp *op, MType *scalar) {
  const char *bin = op->applies;
  if (strncmp(bin, "stablehlo.", 10) != 0) mlir_fail(st, op->off, "'applies' needs a stablehlo op, not %s", bin);
  for (int i = 0; i < st->napplied; i++)
    if (strcmp(st->applied[i].bin, bin) == 0 && strcmp(st->applied[i].etype, scalar->etype) == 0)
      return st->applied[i].comp;
  char hop[64];
  snprintf(hop, sizeof hop, "%s", bin + 10);
  for (char *c = hop; *c; c++)
    if (*c == '_') *c = '-';
  MComp *saved = st->cur;
  MComp *c = arena_alloc(st->arena, sizeof *c);
  if (!c) mlir_fail(st, -1, "out of memory");
  c->name = mlir_new_name(st, "region");
  c->off = op->off;
  st->cur = c;
  const char *x = mlir_line(st, op->off, "x", scalar, "parameter(0)");
  const char *y = mlir_line(st, op->off, "y", scalar, "parameter(1)");
  const char *r = mlir_line(st, op->off, "r", scalar, "%s(%s, %s)", hop, x, y);
  c->root = r;
  st->cur = saved;
  st->comps = mlir_grow(st, st->comps, st->ncomps, &st->ccap, sizeof *st->comps);
  st->comps[st->ncomps++] = c;
  if (st->napplied < (int)(sizeof st->applied / sizeof st->applied[0]))
    st->applied[st->napplied].bin = bin, st->applied[st->napplied].etype = scalar->etype,
    st->applied[st->napplied++].comp = c->name;
  return c->name;
}

void mlir_emit_op(MState *st, MOp *op) {
  if (mlir_emit_check(st, op)) return; /* check.* (test files) */
  for (int i = 0; i < op->nopnds; i++)
    if (op->opnds[i]->owner)
      mlir_fail(st, op->opnd_off[i], "a result of interpreter.run_parallel is only checked here "
                                     "(check.*), not computed with: it lives on its own device");
  if (mlir_emit_parallel(st, op)) return;
  const char *sn = strncmp(op->name, "stablehlo.", 10) == 0 ? op->name + 10 : op->name;
  resolve_types(st, op, sn);
  if (mlir_emit_chlo(st, op, sn)) return;
  char hop[64];
  snprintf(hop, sizeof hop, "%s", sn);
  for (char *c = hop; *c; c++)
    if (*c == '_') *c = '-';
  static const char *const SAME[] = {
      "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "power", "atan2",
      "and", "or", "xor", "shift_left", "shift_right_arithmetic", "shift_right_logical", "abs",
      "negate", "exponential", "exponential_minus_one", "log", "log_plus_one", "sqrt", "rsqrt",
      "cbrt", "tanh", "tan", "logistic", "sine", "cosine", "floor", "ceil", "sign", "not",
      "round_nearest_even", "round_nearest_afz", "is_finite", "popcnt", "count_leading_zeros",
      "real", "imag", "complex", "clamp", "select", "convert", "reshape", "bitcast_convert",
      "dynamic_update_slice", "after_all", NULL};
  static const char *const MULTI[] = {"custom_call", "func.call", "while", "case", "if",
                                      "optimization_barrier", "reduce", "sort", "reduce_window",
                                      "scatter", "rng_bit_generator", "batch_norm_training",
                                      "batch_norm_grad", "composite", "all_reduce", "all_gather",
                                      "reduce_scatter", "all_to_all", "infeed", "recv", NULL};
  bool multi = mlir_in_list(st, sn, MULTI);
  if (!multi && op->nout != 1)
    mlir_fail(st, op->off, "%s has one result, its type lists %d", op->name, op->nout);
  const MType *rt = op->nout ? op->out[0] : NULL;
  const char *h = NULL;
  if (strncmp(op->name, "stablehlo.", 10) != 0 && strcmp(op->name, "func.call") != 0)
    mlir_fail(st, op->off, "unknown operation '%s': only stablehlo and func ops are read", op->name);
  if (mlir_in_list(st, sn, SAME)) {
    h = mlir_line(st, op->off, "v", rt, "%s(%s)", hop, mlir_opnd_list(st, op, 0, op->nopnds));
    mlir_bind_results(st, op, h, NULL);
    return;
  }
  if (strcmp(sn, "constant") == 0) {
    MAttr *v = mlir_op_attr(op, "value");
    if (!v || v->kind != MA_DENSE) mlir_fail(st, op->off, "stablehlo.constant needs value = dense<...>");
    if (!mlir_type_eq(v->type, rt)) mlir_fail(st, op->off, "the constant's value type differs from its result type");
    if ((h = mlir_blob_constant(st, op, v, rt))) {
      mlir_bind_results(st, op, h, NULL);
      return;
    }
    if (v->s) mlir_fail(st, v->offset, "dense_resource needs a tensor of a numeric element type");
    StrBuf *sb = mlir_sb(st);
    bool splat;
    mlir_dense_hlo(st, sb, v, rt, &splat);
    if (sb->oom) mlir_fail(st, op->off, "out of memory");
    if (splat) {
      const char *s = mlir_line(st, op->off, "c", scalar_of(st, rt), "constant(%s)", sb->data);
      h = mlir_line(st, op->off, "v", rt, "broadcast(%s), dimensions={}", s);
    } else {
      h = mlir_line(st, op->off, "c", rt, "constant(%s)", sb->data);
    }
    sb_free(sb);
  } else if (strcmp(sn, "compare") == 0) {
    h = emit_compare(st, op, rt);
  } else if (strcmp(sn, "broadcast_in_dim") == 0) {
    if (op->nopnds != 1) mlir_fail(st, op->off, "%s takes one operand", op->name);
    int64_t bd[MLIR_MAX_RANK * 4];
    int n;
    ints_text(st, op, "broadcast_dimensions", true, &n, bd);
    h = mlir_broadcast_in_dim(st, op, op->opnds[0], bd, n);
  } else if (strcmp(sn, "transpose") == 0) {
    h = mlir_line(st, op->off, "v", rt, "transpose(%s), dimensions={%s}", mlir_opnd_list(st, op, 0, op->nopnds),
                  ints_text(st, op, "permutation", true, NULL, NULL));
  } else if (strcmp(sn, "reverse") == 0) {
    h = mlir_line(st, op->off, "v", rt, "reverse(%s), dimensions={%s}", mlir_opnd_list(st, op, 0, op->nopnds),
                  ints_text(st, op, "dimensions", true, NULL, NULL));
  } else if (strcmp(sn, "iota") == 0) {
    h = mlir_line(st, op->off, "v", rt, "iota(), iota_dimension=%lld", (long long)int_attr(st, op, "iota_dimension"));
  } else if (strcmp(sn, "concatenate") == 0) {
    h = mlir_line(st, op->off, "v", rt, "concatenate(%s), dimensions={%lld}", mlir_opnd_list(st, op, 0, op->nopnds),
                  (long long)int_attr(st, op, "dimension"));
  } else if (strcmp(sn, "dynamic_slice") == 0) {
    h = mlir_line(st, op->off, "v", rt, "dynamic-slice(%s), dynamic_slice_sizes={%s}",
                  mlir_opnd_list(st, op, 0, op->nopnds), ints_text(st, op, "slice_sizes", true, NULL, NULL));
  } else if (strcmp(sn, "slice") == 0 || strcmp(sn, "pad") == 0) {
    bool sl = sn[0] == 's';
    int64_t a[64], b[64], c[64];
    int na, nb, nc;
    ints_text(st, op, sl ? "start_indices" : "edge_padding_low", true, &na, a);
    ints_text(st, op, sl ? "limit_indices" : "edge_padding_high", true, &nb, b);
    ints_text(st, op, sl ? "strides" : "interior_padding", true, &nc, c);
    if (na != nb || na != nc) mlir_fail(st, op->off, "%s: the index lists differ in length", op->name);
    StrBuf *sb = mlir_sb(st);
    for (int i = 0; i < na; i++) {
      if (sl) sb_printf(sb, "%s[%lld:%lld:%lld]", i ? ", " : "", (long long)a[i], (long long)b[i], (long long)c[i]);
      else sb_printf(sb, "%s%lld_%lld_%lld", i ? "x" : "", (long long)a[i], (long long)b[i], (long long)c[i]);
    }
    if (sl) h = mlir_line(st, op->off, "v", rt, "slice(%s), slice={%s}", mlir_opnd_list(st, op, 0, op->nopnds), sb->data ? sb->data : "");
    else h = mlir_line(st, op->off, "v", rt, "pad(%s), padding=%s", mlir_opnd_list(st, op, 0, op->nopnds), sb->data ? sb->data : "");
    sb_free(sb);
  } else if (strcmp(sn, "get_tuple_element") == 0) {
    h = mlir_line(st, op->off, "v", rt, "get-tuple-element(%s), index=%lld", mlir_opnd_list(st, op, 0, op->nopnds),
                  (long long)int_attr(st, op, "index"));
  } else if (strcmp(sn, "tuple") == 0) {
    h = mlir_line(st, op->off, "v", rt, "tuple(%s)", mlir_opnd_list(st, op, 0, op->nopnds));
  } else if (strcmp(sn, "dot_general") == 0 || strcmp(sn, "dot") == 0) {
    if (op->nopnds != 2) mlir_fail(st, op->off, "%s takes two operands", op->name);
    if (sn[3] == 0) {
      int r = op->opnds[0]->type->rank;
      h = mlir_line(st, op->off, "v", rt, "dot(%s), lhs_contracting_dims={%d}, rhs_contracting_dims={0}",
                    mlir_opnd_list(st, op, 0, 2), r - 1);
    } else {
      MAttr *dd = mlir_op_attr(op, "dot_dimension_numbers");
      if (dd && dd->kind == MA_DICT) {
        for (int i = 0; i < dd->n; i++)
          if (op->nattrs < 64) op->akeys[op->nattrs] = dd->keys[i], op->avals[op->nattrs++] = dd->items[i];
      }
      h = mlir_line(st, op->off, "v", rt,
                    "dot(%s), lhs_batch_dims={%s}, lhs_contracting_dims={%s}, rhs_batch_dims={%s}, "
                    "rhs_contracting_dims={%s}",
                    mlir_opnd_list(st, op, 0, 2), ints_text(st, op, "lhs_batching_dimensions", false, NULL, NULL),
                    ints_text(st, op, "lhs_contracting_dimensions", false, NULL, NULL),
                    ints_text(st, op, "rhs_batching_dimensions", false, NULL, NULL),
                    ints_text(st, op, "rhs_contracting_dimensions", false, NULL, NULL));
    }
  } else if (strcmp(sn, "reduce") == 0) {
    if (op->nopnds % 2 || op->nopnds == 0) mlir_fail(st, op->off, "reduce takes pairs of inputs and inits");
    int n = op->nopnds / 2;
    const char *comp;
    if (op->applies) {
      if (n != 1) mlir_fail(st, op->off, "'applies' reduces one input");
      comp = applies_comp(st, op, scalar_of(st, op->opnds[1]->type));
    } else {
      if (op->nregions != 1) mlir_fail(st, op->off, "reduce needs one region");
      MRegion *r = op->regions[0];
      mlir_no_captures(st, op, r);
      if (r->nargs != 2 * n || r->nresults != n)
        mlir_fail(st, r->off, "reduce's region takes %d arguments and returns %d values: it has %d and %d",
                  2 * n, n, r->nargs, r->nresults);
      comp = r->comp;
    }
    const char *dims = ints_text(st, op, "dimensions", true, NULL, NULL);
    if (op->nout != n) mlir_fail(st, op->off, "reduce of %d inputs has %d results in its type", n, op->nout);
    MType *t = n == 1 ? op->out[0] : mlir_tuple_of(st, op->out, n);
    h = mlir_line(st, op->off, "v", t, "reduce(%s), dimensions={%s}, to_apply=%s", mlir_opnd_list(st, op, 0, op->nopnds),
                  dims, comp);
    mlir_bind_results(st, op, h, n == 1 ? NULL : t);
    return;
  } else if (strcmp(sn, "optimization_barrier") == 0) {
    MType **ts = arena_alloc_array(st->arena, (size_t)op->nopnds + 1, sizeof *ts);
    if (!ts) mlir_fail(st, -1, "out of memory");
    for (int i = 0; i < op->nopnds; i++) ts[i] = op->opnds[i]->type;
    MType *t = mlir_tuple_of(st, ts, op->nopnds);
    const char *tup = mlir_line(st, op->off, "t", t, "tuple(%s)", mlir_opnd_list(st, op, 0, op->nopnds));
    h = mlir_line(st, op->off, "v", t, "opt-barrier(%s)", tup);
    mlir_bind_results(st, op, h, t);
    return;
  } else if (strcmp(op->name, "func.call") == 0) {
    MAttr *c = mlir_op_attr(op, "callee");
    if (!c || c->kind != MA_WORD || c->s[0] != '@') mlir_fail(st, op->off, "func.call needs a callee @name");
    MFunc *f = mlir_find_func(st, c->s + 1);
    if (!f) mlir_fail(st, c->offset, "call of unknown function %s", c->s);
    if (f->nargs != op->nopnds || f->nresults != op->nout)
      mlir_fail(st, op->off, "call of %s: the types differ from the function's signature", c->s);
    for (int i = 0; i < f->nresults; i++)
      if (!mlir_type_eq(f->results[i], op->out[i]))
        mlir_fail(st, op->off, "call of %s: result %d's type differs from the function's", c->s, i);
    MType *t = op->nout == 1 ? op->out[0] : mlir_tuple_of(st, op->out, op->nout);
    h = mlir_line(st, op->off, "v", t, "call(%s), to_apply=%s", mlir_opnd_list(st, op, 0, op->nopnds), f->hlo);
    mlir_bind_results(st, op, h, op->nout == 1 ? NULL : t);
    return;
  } else if (mlir_emit_control(st, op, sn)) {
    return;
  } else if (mlir_emit_nn(st, op, sn)) {
    return;
  } else if (mlir_emit_coll(st, op, sn)) {
    return;
  } else if (!mlir_is_spec_op(sn)) {
    mlir_fail(st, op->off, "unknown operation '%s': it is not in the StableHLO specification", op->name);
  } else {
    mlir_fail(st, op->off, "%s is not converted yet", op->name);
  }
  mlir_bind_results(st, op, h, NULL);
}
