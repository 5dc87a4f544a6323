/* Fused elementwise groups reading a broadcast one constant run at a time
 * (interp/eval_fused.c, k_binary_scalar): a binary op whose operand repeats
 * one element along the trailing dims takes that element as a scalar per
 * run instead of a filled block.  The promise: the bytes of the same module
 * run op by op (fusion off, as --dump-values runs it), at 1, 2, 3 and 7
 * threads -- both operand orders, every op the path takes, f32 and f64,
 * NaN, -0 and infinities, runs that straddle blocks, and broadcasts that
 * some other reader still needs filled; plus values checked here. */
#include <criterion/criterion.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "base/thread_pool.h"
#include "interp/run.h"
#include "interp/run_debug.h"
#include "parser/parser.h"
#include "tests/parse_fixture.h"
#include "tests/run_compare.h"

static void run(const Module *m, int threads, bool fused, RunResult *r) {
  RunOptions opt = {0};
  opt.random_inputs = true;
  opt.seed = 20261129;
  opt.threads = threads;
  /* Unfused: a value dump that writes nothing (no name matches) runs every
   * instruction on its own, as --dump-values does, NaN or not. */
  RunDebug d;
  run_debug_init(&d);
  regex_t none;
  cr_assert_eq(regcomp(&none, "^$", REG_EXTENDED | REG_NOSUB), 0);
  d.dump_dir = "/tmp";
  d.dump_filter = &none;
  d.dump_limit = 1;
  if (!fused) opt.debug = &d;
  Error err = {0};
  cr_assert(run_module(m, &opt, NULL, 0, r, &err), "threads %d: %s", threads, err.msg);
  cr_assert_eq(d.dump_files, 0);
  run_debug_free(&d);
  regfree(&none);
}

static void same_bytes(const char *name, const char *text) {
  Module *m = parse_text(text);
  RunResult ref;
  run(m, 1, false, &ref);
  static const int counts[] = {1, 2, 3, 7};
  for (int c = 0; c < 4; c++) {
    RunResult r;
    run(m, counts[c], true, &r);
    char what[200];
    snprintf(what, sizeof what, "%s: fused at %d threads against op by op", name, counts[c]);
    assert_same_leaves(&r, &ref, what);
    run_result_free(&r);
  }
  run_result_free(&ref);
  module_free(m);
  pool_set_threads(1);
}

/* Every op both ways round, over runs of 1001 (not a divisor of the
 * 2048-slot block); the broadcast value holds NaN, +inf and -0 (0/0, 1/0,
 * -(c - c)) in rows 0, 3 and 5 mod 7. */
static const char *ops_text(const char *t) {
  static char buf[8192];
  snprintf(buf, sizeof buf,
           "HloModule m\nENTRY e {\n"
           "  x = %s[700,1001] parameter(0)\n  c = %s[700] parameter(1)\n"
           "  k = s32[700] iota(), iota_dimension=0\n  seven = s32[] constant(7)\n"
           "  s7 = s32[700] broadcast(seven), dimensions={}\n  r = s32[700] remainder(k, s7)\n"
           "  zero = s32[] constant(0)\n  z0 = s32[700] broadcast(zero), dimensions={}\n"
           "  three = s32[] constant(3)\n  z3 = s32[700] broadcast(three), dimensions={}\n"
           "  five = s32[] constant(5)\n  z5 = s32[700] broadcast(five), dimensions={}\n"
           "  p0 = pred[700] compare(r, z0), direction=EQ\n"
           "  p3 = pred[700] compare(r, z3), direction=EQ\n"
           "  p5 = pred[700] compare(r, z5), direction=EQ\n"
           "  zz = %s[700] subtract(c, c)\n  qn = %s[700] divide(zz, zz)\n"
           "  one = %s[] constant(1)\n  ones = %s[700] broadcast(one), dimensions={}\n"
           "  pinf = %s[700] divide(ones, zz)\n  mz = %s[700] negate(zz)\n"
           "  v0 = %s[700] select(p0, qn, c)\n  v1 = %s[700] select(p3, pinf, v0)\n"
           "  v = %s[700] select(p5, mz, v1)\n"
           "  b = %s[700,1001] broadcast(v), dimensions={0}\n"
           "  r1 = %s[700,1001] add(x, b)\n  r2 = %s[700,1001] subtract(b, x)\n"
           "  r3 = %s[700,1001] subtract(x, b)\n  r4 = %s[700,1001] multiply(b, x)\n"
           "  r5 = %s[700,1001] divide(x, b)\n  r6 = %s[700,1001] divide(b, x)\n"
           "  r7 = %s[700,1001] maximum(x, b)\n  r8 = %s[700,1001] minimum(b, x)\n"
           "  r9 = %s[700,1001] maximum(b, x)\n  r10 = %s[700,1001] minimum(x, b)\n"
           "  ROOT t = (%s[700,1001], %s[700,1001], %s[700,1001], %s[700,1001], %s[700,1001],"
           " %s[700,1001], %s[700,1001], %s[700,1001], %s[700,1001], %s[700,1001])"
           " tuple(r1, r2, r3, r4, r5, r6, r7, r8, r9, r10)\n}\n",
           t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t);
  return buf;
}

Test(fused_runs, every_op_both_orders_f32_f64) {
  same_bytes("f32-ops", ops_text("f32"));
  same_bytes("f64-ops", ops_text("f64"));
}

Test(fused_runs, runs_over_two_dims_and_readers_that_need_the_block) {
  /* a run of 40x50 = 2000 slots; the broadcast also read by a convert (so
   * it is filled) and by an add (which then reads the filled block) */
  same_bytes("filled-too", "HloModule m\nENTRY e {\n"
             "  x = f32[300,40,50] parameter(0)\n  c = f32[300] parameter(1)\n"
             "  b = f32[300,40,50] broadcast(c), dimensions={0}\n"
             "  a = f32[300,40,50] subtract(x, b)\n  h = f64[300,40,50] convert(b)\n"
             "  g = f64[300,40,50] convert(a)\n  ROOT s = f64[300,40,50] add(g, h)\n}\n");
  /* a middle-dim broadcast: runs of 50, the rows' values cycling */
  same_bytes("middle", "HloModule m\nENTRY e {\n"
             "  x = f32[300,40,50] parameter(0)\n  c = f32[40] parameter(1)\n"
             "  b = f32[300,40,50] broadcast(c), dimensions={1}\n"
             "  ROOT a = f32[300,40,50] divide(x, b)\n}\n");
  /* one operand and the same broadcast twice: not a scalar run */
  same_bytes("both", "HloModule m\nENTRY e {\n"
             "  c = f32[1000] parameter(0)\n"
             "  b = f32[1000,1000] broadcast(c), dimensions={0}\n"
             "  m = f32[1000,1000] multiply(b, b)\n  ROOT a = f32[1000,1000] subtract(m, b)\n}\n");
}

/* x[i][j] = j - 500, c[i] = i: (x - c) / c against the formula, -0 and the
 * infinities of row 0 included. */
Test(fused_runs, values) {
  Module *m = parse_text("HloModule m\nENTRY e {\n"
                    "  j = s32[700,1001] iota(), iota_dimension=1\n"
                    "  f = f32[700,1001] convert(j)\n  h = f32[] constant(500)\n"
                    "  hb = f32[700,1001] broadcast(h), dimensions={}\n"
                    "  x = f32[700,1001] subtract(f, hb)\n"
                    "  i = s32[700] iota(), iota_dimension=0\n  c = f32[700] convert(i)\n"
                    "  b = f32[700,1001] broadcast(c), dimensions={0}\n"
                    "  d = f32[700,1001] subtract(x, b)\n  ROOT q = f32[700,1001] divide(d, b)\n}\n");
  RunResult r;
  run(m, 2, true, &r);
  const float *y = r.leaves[0].data;
  for (int i = 0; i < 700; i++)
    for (int j = 0; j < 1001; j++) {
      float want = ((float)(j - 500) - (float)i) / (float)i, got = y[i * 1001 + j];
      cr_assert(memcmp(&want, &got, 4) == 0 || (isnan(want) && isnan(got)),
                "[%d,%d]: %g, want %g", i, j, got, want);
    }
  run_result_free(&r);
  module_free(m);
  pool_set_threads(1);
}
