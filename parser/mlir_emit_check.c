/* The `check` dialect of StableHLO's test files (stablehlo/tests/CheckOps.td)
 * read in its pretty and generic forms and written as the custom calls
 * interp/custom_call/check_calls.c evaluates:
 *
 *   check.expect_eq %a, %b : T                 -> check.expect_eq(a, b)
 *   check.expect_eq_const %a, dense<...> : T   -> check.expect_eq(a, constant)
 *   check.expect_almost_eq %a, %b[, tolerance = X] : T
 *   check.expect_almost_eq_const %a, dense<...> : T[, tolerance = X]
 *                                              -> check.expect_almost_eq(...),
 *                                                 backend_config="tolerance=X"
 *                                                 (X defaults to 0.0001)
 *   check.expect_close %a, %b, max_ulp_difference = N[, min_ulp_difference = M] : T, T
 *                                              -> check.expect_close(...),
 *                                                 backend_config="max_ulp_difference=N,..."
 *
 * each custom call with a side effect and no result.  expect_serialized_eq
 * (which reads the probe files of a previous interpreter run) is refused. */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "parser/mlir_internal.h"

static bool takes_const(const char *sn) {
  return strcmp(sn, "expect_eq_const") == 0 || strcmp(sn, "expect_almost_eq_const") == 0;
}

static bool known(const char *sn) {
  static const char *const OPS[] = {"expect_eq", "expect_eq_const", "expect_almost_eq",
                                    "expect_almost_eq_const", "expect_close", NULL};
  for (int i = 0; OPS[i]; i++)
    if (strcmp(sn, OPS[i]) == 0) return true;
  return false;
}

static void refuse_unknown(MState *st, const MOp *op, const char *sn) {
  if (strcmp(sn, "expect_serialized_eq") == 0)
    mlir_fail(st, op->off, "check.expect_serialized_eq compares with the probe files of an earlier "
                           "interpreter run (--probe-output-dir): not supported");
  if (!known(sn)) mlir_fail(st, op->off, "unknown operation '%s'", op->name);
}

/* A keyword's value: a number is read alone (with at most a scalar type
 * such as ": f64"), so that "max_ulp_difference = 3 : tensor<2xf32>" leaves
 * the op's type to the op. */
static MAttr *keyword_value(MState *st) {
  int64_t off = mlir_off(st);
  const char *q = st->p;
  if (q >= st->end || (*q != '-' && !isdigit((unsigned char)*q))) return mlir_attr(st);
  MAttr *a = arena_alloc(st->arena, sizeof *a);
  if (!a) mlir_fail(st, -1, "out of memory");
  memset(a, 0, sizeof *a);
  a->offset = off;
  int64_t v;
  if (mlir_int(st, &v)) {
    a->kind = MA_INT;
    a->i = v;
  } else {
    char buf[64];
    size_t n = 0;
    while (q + n < st->end && n + 1 < sizeof buf && strchr("0123456789+-.eE", q[n])) n++;
    memcpy(buf, q, n);
    buf[n] = '\0';
    char *end;
    a->kind = MA_FLOAT;
    a->f = strtod(buf, &end);
    if (end == buf) mlir_fail(st, off, "expected a number");
    st->p = q + (end - buf);
  }
  const char *after = st->p;
  if (mlir_accept(st, ":")) {
    const char *w = mlir_ident(st);
    if (!w || strcmp(w, "tensor") == 0 || strcmp(w, "tuple") == 0 || strcmp(w, "complex") == 0)
      st->p = after;
  }
  return a;
}

/* ", key = value" pairs after the operands, until ':' or '{'. */
static void keyword_attrs(MState *st, MOp *op) {
  while (mlir_accept(st, ",")) {
    int64_t off = mlir_off(st);
    const char *key = mlir_ident(st);
    if (!key) mlir_fail(st, off, "expected 'name = value'");
    mlir_expect(st, "=");
    mlir_skip(st);
    mlir_op_set_attr(st, op, key, keyword_value(st));
  }
}

void mlir_parse_check(MState *st, MOp *op, const char *sn) {
  refuse_unknown(st, op, sn);
  mlir_op_operand(st, op);
  mlir_expect(st, ",");
  if (takes_const(sn)) {
    mlir_op_set_attr(st, op, "value", mlir_attr(st)); /* dense<...> : T */
    keyword_attrs(st, op);
    if (mlir_peek(st, "{")) mlir_op_attr_dict(st, op);
    return;
  }
  mlir_op_operand(st, op);
  keyword_attrs(st, op);
  if (mlir_peek(st, "{")) mlir_op_attr_dict(st, op);
  mlir_expect(st, ":");
  if (mlir_peek(st, "{")) mlir_op_attr_dict(st, op); /* expect_close: ": {attrs} T, T" */
  /* The operands' type, once (expect_close: twice). */
  int64_t toff = mlir_off(st);
  MType *t = mlir_type(st);
  if (mlir_accept(st, ",")) {
    int64_t off2 = mlir_off(st);
    if (!mlir_type_eq(mlir_type(st), op->opnds[1]->type))
      mlir_fail(st, off2, "the type differs from that of %s's second operand", op->name);
  }
  if (!mlir_type_eq(t, op->opnds[0]->type))
    mlir_fail(st, toff, "the type differs from that of %s's first operand", op->name);
  op->nin = -1;
}

/* A constant for the expected value: the stablehlo.constant path, so big
 * and splat literals are written as any constant is. */
static MValue *expected_constant(MState *st, const MOp *op, MAttr *v) {
  if (!v || v->kind != MA_DENSE) mlir_fail(st, op->off, "%s needs a dense<...> value", op->name);
  MOp c;
  memset(&c, 0, sizeof c);
  c.name = "stablehlo.constant";
  c.off = v->offset;
  c.nresults = 1;
  c.result_ssa = mlir_fmt(st, "%%<check expected %d>", st->counter) /* no MLIR name */;
  c.nattrs = 1;
  c.akeys[0] = "value";
  c.avals[0] = v;
  c.nout = 1;
  c.nin = -1;
  c.out = &v->type;
  mlir_emit_op(st, &c);
  return mlir_lookup(st, c.result_ssa, v->offset);
}

static double tolerance(MState *st, const MOp *op) {
  const MAttr *a = mlir_op_attr(op, "tolerance");
  if (!a) return 1e-4; /* CheckOps.td's default */
  double t = a->kind == MA_FLOAT ? a->f : a->kind == MA_INT ? (double)a->i : -1;
  if (!(t >= 0)) mlir_fail(st, a->offset, "tolerance must be a number >= 0");
  return t;
}

static uint64_t ulps(MState *st, const MOp *op, const char *key, uint64_t dflt) {
  const MAttr *a = mlir_op_attr(op, key);
  if (!a) return dflt;
  if (a->kind != MA_INT || a->i < 0) mlir_fail(st, a->offset, "%s must be an integer >= 0", key);
  return (uint64_t)a->i;
}

bool mlir_emit_check(MState *st, MOp *op) {
  if (strncmp(op->name, "check.", 6) != 0) return false;
  const char *sn = op->name + 6;
  refuse_unknown(st, op, sn);
  bool is_const = takes_const(sn);
  if (op->nresults != 0) mlir_fail(st, op->off, "%s has no results", op->name);
  if (op->nopnds != (is_const ? 1 : 2))
    mlir_fail(st, op->off, "%s takes %d operand%s", op->name, is_const ? 1 : 2, is_const ? "" : "s");
  MValue *actual = op->opnds[0];
  MValue *expected = is_const ? expected_constant(st, op, mlir_op_attr(op, "value")) : op->opnds[1];
  if (actual->type->kind != MT_TENSOR || !mlir_type_eq(actual->type, expected->type))
    mlir_fail(st, is_const ? op->off : op->opnd_off[1], "%s compares values of different types",
              op->name);
  bool numeric = strncmp(actual->type->etype, "f", 1) == 0 || strncmp(actual->type->etype, "bf", 2) == 0 ||
                 strncmp(actual->type->etype, "c", 1) == 0;
  StrBuf *cfg = mlir_sb(st);
  const char *target;
  if (strncmp(sn, "expect_eq", 9) == 0) {
    target = "check.expect_eq";
  } else if (strncmp(sn, "expect_almost_eq", 16) == 0) {
    target = "check.expect_almost_eq";
    sb_printf(cfg, "tolerance=%.17g", tolerance(st, op));
  } else {
    target = "check.expect_close";
    uint64_t lo = ulps(st, op, "min_ulp_difference", 0), hi = ulps(st, op, "max_ulp_difference", 1);
    if (lo > hi) mlir_fail(st, op->off, "min_ulp_difference exceeds max_ulp_difference");
    sb_printf(cfg, "max_ulp_difference=%" PRIu64 ",min_ulp_difference=%" PRIu64, hi, lo);
  }
  if (!numeric && strcmp(target, "check.expect_eq") != 0)
    mlir_fail(st, op->off, "%s compares floats or complex numbers only", op->name);
  if (cfg->oom) mlir_fail(st, op->off, "out of memory");
  /* A result of run_parallel is checked on the device that computes it. */
  int owner = actual->owner ? actual->owner : expected->owner;
  if (actual->owner && expected->owner && actual->owner != expected->owner)
    mlir_fail(st, op->off, "%s compares results of two different run_parallel processes", op->name);
  const char *guard = mlir_parallel_guard(st, op, owner);
  MType *unit = mlir_tuple_of(st, NULL, 0);
  mlir_line(st, op->off, "check", unit,
            "custom-call(%s, %s%s%s), custom_call_target=\"%s\", custom_call_has_side_effect=true, "
            "backend_config=\"%s\"",
            actual->hlo, expected->hlo, guard ? ", " : "", guard ? guard : "", target,
            cfg->data ? cfg->data : "");
  sb_free(cfg);
  return true;
}
