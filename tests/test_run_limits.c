/* Bounds on a run (RunOptions): the instruction budget. */
#include <criterion/criterion.h>
#include <string.h>

#include "interp/run.h"
#include "parser/parser.h"
#include "parser/verify.h"

/* A loop counting i up to n (n = 1000000000 never ends in a test's time). */
static const char *loop_text(int64_t n) {
  static char buf[1024];
  snprintf(buf, sizeof buf,
           "HloModule loop\n"
           "cond {\n  p = s32[] parameter(0)\n  n = s32[] constant(%lld)\n"
           "  ROOT lt = pred[] compare(p, n), direction=LT\n}\n"
           "body {\n  p = s32[] parameter(0)\n  one = s32[] constant(1)\n"
           "  ROOT next = s32[] add(p, one)\n}\n"
           "ENTRY e {\n  z = s32[] constant(0)\n"
           "  ROOT w = s32[] while(z), condition=cond, body=body\n}\n",
           (long long)n);
  return buf;
}

static bool run_loop(int64_t n, int64_t budget, RunResult *res, Error *err) {
  const char *text = loop_text(n);
  Diags d = {0};
  Module *m = parse_module("loop.hlo", text, strlen(text), &d);
  cr_assert(m && d.count == 0 && verify_module(m, &d));
  RunOptions opt = {0};
  opt.max_instructions = budget;
  bool ok = run_module(m, &opt, NULL, 0, res, err);
  if (ok) run_result_free(res);
  module_free(m);
  diags_free(&d);
  return ok;
}

Test(run_limits, loop_within_budget) {
  RunResult res;
  Error err = {0};
  cr_assert(run_loop(10, 1000, &res, &err), "%s", err.msg);
  cr_assert_eq(res.while_iterations, 10);
}

Test(run_limits, endless_loop_over_budget) {
  RunResult res;
  Error err = {0};
  cr_assert_not(run_loop(1000000000, 1000, &res, &err));
  cr_assert_eq(err.kind, ERR_RUNTIME);
  cr_assert(strstr(err.msg, "run stopped by the budget of 1000 instructions"), "%s", err.msg);
}
