/* Dynamic dimension sizes: values, inputs smaller than their bounds, the
 * result leaves (only the valid elements, sizes as dims), their .npy files
 * and XLA's dynamic literal text.  Expected values are worked out by hand. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/io/literal.h"
#include "interp/io/npy.h"
#include "interp/run.h"
#include "parser/parser.h"
#include "parser/verify.h"

static Module *parse_ok(const char *text) {
  Diags d = {0};
  Module *m = parse_module("dyn.hlo", text, strlen(text), &d);
  cr_assert(m && d.count == 0 && verify_module(m, &d), "module does not parse");
  diags_free(&d);
  return m;
}

/* f32[<=4] parameter bound to an array of 2 elements {1.5, -2}. */
static bool run_with_two(const char *text, RunResult *res, Error *err) {
  static float data[2] = {1.5f, -2.0f};
  NpyArray a = {0};
  a.etype = ET_F32;
  strcpy(a.descr, "<f4");
  a.rank = 1;
  a.dims[0] = 2;
  a.count = 2;
  a.data = data;
  RunInput in = {"x.npy", NULL, &a};
  Module *m = parse_ok(text);
  RunOptions opt = {0};
  bool ok = run_module(m, &opt, &in, 1, res, err);
  /* res->shape points into m: keep m alive for the caller's checks */
  res->module = m;
  return ok;
}

static void done(RunResult *res) {
  Module *m = (Module *)res->module;
  run_result_free(res);
  module_free(m);
}

static const char *square_text =
    "HloModule sq\n"
    "ENTRY e {\n"
    "  p = f32[<=4] parameter(0)\n"
    "  ROOT m = f32[<=4] multiply(p, p)\n"
    "}\n";

Test(dynamic, small_input_gives_sizes_and_compact_leaf) {
  RunResult res;
  Error err = {0};
  cr_assert(run_with_two(square_text, &res, &err), "%s", err.msg);
  cr_assert_eq(res.nleaves, 1);
  const RunLeaf *l = &res.leaves[0];
  cr_assert_eq(l->dims[0], 2);
  cr_assert_eq(l->shape->dims[0], 4);
  cr_assert_eq(l->nbytes, 8);
  const float *v = l->data;
  cr_expect_float_eq(v[0], 2.25f, 0);
  cr_expect_float_eq(v[1], 4.0f, 0);
  done(&res);
}

Test(dynamic, get_dimension_size_of_input) {
  RunResult res;
  Error err = {0};
  cr_assert(run_with_two("HloModule g\nENTRY e {\n  p = f32[<=4] parameter(0)\n"
                         "  ROOT n = s32[] get-dimension-size(p), dimensions={0}\n}\n",
                         &res, &err),
            "%s", err.msg);
  cr_assert_eq(*(const int32_t *)res.leaves[0].data, 2);
  done(&res);
}

Test(dynamic, npy_of_a_dynamic_result_has_the_sizes) {
  RunResult res;
  Error err = {0};
  cr_assert(run_with_two(square_text, &res, &err), "%s", err.msg);
  const RunLeaf *l = &res.leaves[0];
  char path[] = "/tmp/hlo_dyn_testXXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  close(fd);
  cr_assert(npy_write_file(path, l->shape->etype, l->shape->rank, l->dims, l->data, false, &err),
            "%s", err.msg);
  NpyArray a;
  cr_assert(npy_read_file(path, &a, &err), "%s", err.msg);
  unlink(path);
  cr_expect_eq(a.rank, 1);
  cr_expect_eq(a.dims[0], 2);
  cr_expect_float_eq(((const float *)a.data)[1], 4.0f, 0);
  npy_free(&a);
  done(&res);
}

Test(dynamic, input_larger_than_bound_is_an_error) {
  static float data[5];
  NpyArray a = {0};
  a.etype = ET_F32;
  strcpy(a.descr, "<f4");
  a.rank = 1;
  a.dims[0] = 5;
  a.count = 5;
  a.data = data;
  RunInput in = {"x.npy", NULL, &a};
  Module *m = parse_ok(square_text);
  RunOptions opt = {0};
  RunResult res;
  Error err = {0};
  cr_assert_not(run_module(m, &opt, &in, 1, &res, &err));
  cr_expect(strstr(err.msg, "expects f32[<=4]"), "%s", err.msg);
  module_free(m);
}

Test(dynamic, literal_text_of_dynamic_arrays) {
  /* xla/literal.cc: shape with "<=" bounds, "(sizes)", then the elements
   * below the sizes. */
  float v[2] = {2.25f, 4};
  int64_t sizes[1] = {2}, bounds[1] = {4};
  bool dyn[1] = {true};
  LiteralNode n = {ET_F32, 1, sizes, v, 0, NULL, bounds, dyn};
  StrBuf sb;
  sb_init(&sb);
  literal_print(&sb, &n, true);
  cr_expect_str_eq(sb.data, "f32[<=4](2) {2.25, 4}");
  sb_free(&sb);

  int32_t w[2] = {7, 8};
  int64_t sizes2[2] = {2, 1}, bounds2[2] = {2, 3};
  bool dyn2[2] = {false, true};
  LiteralNode n2 = {ET_S32, 2, sizes2, w, 0, NULL, bounds2, dyn2};
  sb_init(&sb);
  literal_print(&sb, &n2, true);
  cr_expect_str_eq(sb.data, "s32[2,<=3](2,1) {\n  {7},\n  {8}\n}");
  sb_free(&sb);
}
