/* The checks of StableHLO's test files, as its reference interpreter runs
 * them (stablehlo-translate --interpret; docs/stablehlo.md, "Checks"):
 *
 *   check.expect_eq(actual, expected)
 *       every element equal: integers and pred bit for bit, floats as IEEE
 *       `==` (so NaN never matches, -0 matches +0), complex part by part;
 *   check.expect_almost_eq(actual, expected), backend_config="tolerance=T"
 *       floats (complex: each part) almost equal: equal, or both NaN, or
 *       finite with the same sign and |actual - expected| <= T (an
 *       absolute bound; default 0.001 as the interpreter's custom call, the
 *       check dialect's op carries its own, default 0.0001);
 *   check.expect_close(actual, expected),
 *       backend_config="max_ulp_difference=N,min_ulp_difference=M"
 *       finite floats at most N (default 3) and at least M (default 0)
 *       units in the last place apart, subnormals counted as the
 *       interpreter counts them (rounded to the nearest of zero and the
 *       smallest normal); a non-finite one matches only a bitwise-equal
 *       value or, for NaN, any NaN (the check dialect's documented rule);
 *   check.eq(actual, expected) -> pred[]
 *       expect_eq for integer and pred types, expect_almost_eq with
 *       tolerance 0.0001 for the others; true when they agree.
 *
 * A difference fails the run (ERR_MISMATCH: exit status 4) and lists the
 * first few differing elements with their index.  An optional third operand,
 * a pred[] guard, skips the check where it is false (the checks of
 * interpreter.run_parallel's results run on the device that computes them,
 * parser/mlir_emit_parallel.c). */
#include "interp/custom_call/check_calls.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "interp/eval_views.h"
#include "layout/etype_convert.h"

typedef enum { CHECK_EQ, CHECK_ALMOST_EQ, CHECK_CLOSE, CHECK_SKIPPED } CheckRule;

typedef struct CheckSpec {
  const char *target;
  CheckRule rule;
  double tolerance;
  uint64_t min_ulp, max_ulp;
  bool returns_pred; /* check.eq */
} CheckSpec;

static const CheckSpec SPECS[] = {
    {"check.expect_eq", CHECK_EQ, 0, 0, 0, false},
    {"check.expect_almost_eq", CHECK_ALMOST_EQ, 1e-3, 0, 0, false},
    {"check.expect_close", CHECK_CLOSE, 0, 0, 3, false},
    {"check.eq", CHECK_EQ, 1e-4, 0, 0, true},
};

static const CheckSpec *spec_of(const char *target) {
  for (size_t i = 0; i < sizeof SPECS / sizeof SPECS[0]; i++)
    if (strcmp(SPECS[i].target, target) == 0) return &SPECS[i];
  return NULL;
}

bool eval_check_known(const char *target) { return spec_of(target) != NULL; }

/* backend_config "key=value,key=value" (also blank-separated) over the
 * defaults in *s. */
static bool read_config(const Instr *in, CheckSpec *s, Error *err) {
  const Attr *a = ir_attr(in, ATTR_BACKEND_CONFIG);
  const char *p = a && (a->kind == AV_STRING || a->kind == AV_STRING_OR_RAW) ? a->v.s : NULL;
  while (p && *p) {
    while (*p == ',' || *p == ' ') p++;
    if (!*p) break;
    size_t klen = strcspn(p, "=, ");
    const char *v = p + klen;
    if (*v != '=')
      return error_set(err, ERR_RUNTIME, in->offset, "%s: backend_config entry '%.*s' has no value",
                       s->target, (int)klen, p);
    v++;
    char *end;
    if (klen == 9 && strncmp(p, "tolerance", 9) == 0 && s->rule == CHECK_ALMOST_EQ) {
      s->tolerance = strtod(v, &end);
      if (end == v || !(s->tolerance >= 0))
        return error_set(err, ERR_RUNTIME, in->offset, "%s: bad tolerance '%s'", s->target, v);
    } else if (klen == 18 && s->rule == CHECK_CLOSE &&
               (strncmp(p, "max_ulp_difference", 18) == 0 ||
                strncmp(p, "min_ulp_difference", 18) == 0)) {
      if (*v < '0' || *v > '9')
        return error_set(err, ERR_RUNTIME, in->offset, "%s: bad %.*s '%s'", s->target, (int)klen, p, v);
      uint64_t n = strtoull(v, &end, 10);
      if (p[1] == 'a') s->max_ulp = n;
      else s->min_ulp = n;
    } else {
      return error_set(err, ERR_RUNTIME, in->offset, "%s: unknown backend_config entry '%.*s'",
                       s->target, (int)klen, p);
    }
    p = end;
    if (*p && *p != ',' && *p != ' ')
      return error_set(err, ERR_RUNTIME, in->offset, "%s: bad backend_config after '%.*s'",
                       s->target, (int)(p - v), v);
  }
  return true;
}

/* One float of type t (a real type) at p. */
typedef struct FloatBits {
  double v;
  uint64_t mag; /* the encoding without its sign bit */
  bool neg;
} FloatBits;

static FloatBits float_bits(EType t, const void *p) {
  FloatBits f = {etype_load_f64(t, p), 0, false};
  const EFloatFormat *fmt = etype_float_format(t);
  int bits = etype_bits(t);
  uint64_t raw = 0;
  memcpy(&raw, p, (size_t)(bits + 7) / 8); /* little-endian storage */
  if (bits < 64) raw &= ((uint64_t)1 << bits) - 1;
  int sign_at = fmt ? fmt->ebits + fmt->mbits : bits - 1;
  if (!fmt || fmt->is_signed) {
    f.neg = (raw >> sign_at) & 1;
    f.mag = raw & ~((uint64_t)1 << sign_at);
  } else {
    f.mag = raw;
  }
  return f;
}

/* ULP distance of two finite or non-finite values as StableHLO's
 * check.expect_close counts it; UINT64_MAX when a non-finite value differs. */
static uint64_t ulp_difference(EType t, const void *pa, const void *pb) {
  FloatBits a = float_bits(t, pa), b = float_bits(t, pb);
  if (!isfinite(a.v) || !isfinite(b.v)) {
    if (isnan(a.v) && isnan(b.v)) return 0;
    return a.mag == b.mag && a.neg == b.neg ? 0 : UINT64_MAX;
  }
  const EFloatFormat *fmt = etype_float_format(t);
  /* z: the distance from 0 to the largest subnormal; subnormals round to
   * zero or to the smallest normal. */
  uint64_t z = fmt ? ((uint64_t)1 << fmt->mbits) - 1 : 0;
  uint64_t x = a.mag, y = b.mag;
  x = z < x ? x - z : (2 * x < z ? 0 : 1);
  y = z < y ? y - z : (2 * y < z ? 0 : 1);
  if (a.neg != b.neg) return x > UINT64_MAX - y ? UINT64_MAX : x + y;
  return x > y ? x - y : y - x;
}

static bool almost_equal(EType t, const void *pa, const void *pb, double tol) {
  double f = etype_load_f64(t, pa), g = etype_load_f64(t, pb);
  if (f == g) return true;
  if (isnan(f) || isnan(g)) return isnan(f) && isnan(g);
  if (!isfinite(f) || !isfinite(g)) return false;
  if (signbit(f) != signbit(g)) return false;
  return fabs(f - g) <= tol;
}

/* Whether element i agrees; *ulp gets the ULP distance for CHECK_CLOSE. */
static bool element_agrees(const CheckSpec *s, EType t, const char *pa, const char *pb,
                           uint64_t *ulp) {
  bool is_float = etype_is_float(t), is_complex = etype_is_complex(t);
  if (!is_float && !is_complex) {
    if (s->rule != CHECK_EQ)
      return false; /* refused before the loop */
    return etype_load_i64(t, pa) == etype_load_i64(t, pb);
  }
  EType part = t == ET_C64 ? ET_F32 : t == ET_C128 ? ET_F64 : t;
  int nparts = is_complex ? 2 : 1;
  size_t step = (size_t)etype_storage_bytes(part);
  bool ok = true;
  *ulp = 0;
  for (int k = 0; k < nparts; k++) {
    const char *x = pa + k * step, *y = pb + k * step;
    if (s->rule == CHECK_CLOSE) {
      uint64_t u = ulp_difference(part, x, y);
      if (u > *ulp) *ulp = u;
    } else if (s->rule == CHECK_ALMOST_EQ || s->returns_pred) {
      ok = ok && almost_equal(part, x, y, s->tolerance);
    } else {
      ok = ok && etype_load_f64(part, x) == etype_load_f64(part, y);
    }
  }
  if (s->rule == CHECK_CLOSE) ok = *ulp >= s->min_ulp && *ulp <= s->max_ulp;
  return ok;
}

static void format_index(StrBuf *sb, const KArray *a, int64_t flat) {
  int64_t idx[SHAPE_MAX_RANK];
  for (int d = a->rank - 1; d >= 0; d--) {
    idx[d] = a->dims[d] ? flat % a->dims[d] : 0;
    flat = a->dims[d] ? flat / a->dims[d] : 0;
  }
  sb_putc(sb, '[');
  for (int d = 0; d < a->rank; d++) sb_printf(sb, "%s%" PRId64, d ? "," : "", idx[d]);
  sb_putc(sb, ']');
}

enum { CHECK_LISTED = 5 };

static bool compare(const Instr *in, const void *arg, const KArray *ins, KArray *outs, int nouts,
                    Error *err) {
  const CheckSpec *s = arg;
  if (s->rule == CHECK_SKIPPED) { /* not this device's check */
    if (nouts == 1) *(uint8_t *)outs[0].data = 1;
    return true;
  }
  const KArray *a = &ins[0], *b = &ins[1];
  EType t = a->etype;
  bool same = t == b->etype && a->rank == b->rank &&
              (a->rank == 0 || !memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank));
  if (!same)
    return error_set(err, ERR_RUNTIME, in->offset, "%s compares two arrays of different types or shapes",
                     s->target);
  bool numeric = etype_is_float(t) || etype_is_complex(t);
  if (s->rule != CHECK_EQ && !numeric)
    return error_set(err, ERR_RUNTIME, in->offset, "%s compares floats or complex numbers only",
                     s->target);
  int64_t n = 1;
  for (int d = 0; d < a->rank; d++) n *= a->dims[d];
  size_t es = (size_t)etype_storage_bytes(t);
  StrBuf sb;
  sb_init(&sb);
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++) {
    uint64_t ulp = 0;
    const char *pa = (const char *)a->data + i * es, *pb = (const char *)b->data + i * es;
    if (element_agrees(s, t, pa, pb, &ulp)) continue;
    if (bad++ >= CHECK_LISTED) continue;
    sb_puts(&sb, bad > 1 ? "; " : "");
    format_index(&sb, a, i);
    sb_putc(&sb, ' ');
    etype_format(&sb, t, pa, true);
    sb_puts(&sb, " (actual) vs ");
    etype_format(&sb, t, pb, true);
    sb_puts(&sb, " (expected)");
    if (s->rule == CHECK_CLOSE) {
      if (ulp == UINT64_MAX) sb_puts(&sb, ", not finite");
      else sb_printf(&sb, ", %" PRIu64 " ULP", ulp);
    }
  }
  if (nouts == 1) *(uint8_t *)outs[0].data = bad == 0;
  if (bad) {
    char limit[96] = "";
    if (s->rule == CHECK_CLOSE)
      snprintf(limit, sizeof limit, " (allowed: %" PRIu64 " to %" PRIu64 " ULP)", s->min_ulp, s->max_ulp);
    else if (s->rule == CHECK_ALMOST_EQ || (s->returns_pred && numeric))
      snprintf(limit, sizeof limit, " (tolerance %g)", s->tolerance);
    error_set(err, ERR_MISMATCH, in->offset, "%s failed: %" PRId64 " of %" PRId64 " elements differ%s: %s%s",
              s->target, bad, n, limit, sb.oom ? "(out of memory)" : sb.data,
              bad > CHECK_LISTED ? "; ..." : "");
  }
  sb_free(&sb);
  return bad == 0;
}

bool eval_check_call(EvalCtx *ctx, Frame *f, const Instr *in, const char *target,
                     const Shape *rs, Value **out, Error *err) {
  CheckSpec s = *spec_of(target);
  if (in->noperands != 2 && in->noperands != 3)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "%s takes two operands (actual, expected) and an optional guard, got %d", target,
                     in->noperands);
  bool pred_result = shape_is_array(rs) && rs->rank == 0 && rs->etype == ET_PRED;
  bool no_result = shape_is_tuple(rs) && rs->ntuple == 0;
  if (s.returns_pred ? !pred_result : !no_result)
    return error_set(err, ERR_RUNTIME, in->offset, "%s returns %s", target,
                     s.returns_pred ? "pred[]" : "nothing, ()");
  if (!read_config(in, &s, err)) return false;
  if (in->noperands == 3) { /* the guard: a pred[], false where this device has nothing to check */
    const Value *g = frame_operand(f, in, 2);
    if (!g->info || g->info->rank != 0 || g->info->etype != ET_PRED)
      return error_set(err, ERR_RUNTIME, in->offset, "%s's third operand (the guard) must be pred[]",
                       target);
    const void *p;
    DenseTmp tmp;
    if (!value_dense_read(&ctx->vc, g, &p, &tmp, err)) return false;
    bool on = *(const uint8_t *)p != 0;
    value_tmp_free(&tmp);
    if (!on) s.rule = CHECK_SKIPPED;
  }
  return eval_kernel_op(ctx, f, in, rs, 2, compare, &s, out, err);
}
