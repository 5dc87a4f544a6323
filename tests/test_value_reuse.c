/* What the evaluator's hot path relies on in interp/value.c: coercing a
 * value to an equal shape (another Shape object, same dims, type and
 * layout) hands the value itself on, anything physical that differs still
 * converts; tuples of any arity (their element array now sits after the
 * Value) and recycled structs behave as fresh ones; and a while loop's
 * counters (instructions, traffic, peak) are those derived by hand.
 * Expected values are derived in the comments. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "interp/eval.h"
#include "interp/run.h"
#include "tests/value_fixture.h"
#include "parser/parser.h"

TestSuite(value_reuse, .init = value_setup, .fini = value_teardown);

static Value *f32_value(const char *shape, const float *x) {
  Value *v;
  Error err;
  cr_assert(value_from_dense(&vc, sh(shape), x, "t", &v, &err), "%s", err.msg);
  return v;
}

Test(value_reuse, equal_shape_object_hands_the_value_itself_on) {
  const float x[6] = {1, 2, 3, 4, 5, 6};
  Value *v = f32_value("f32[2,3]{1,0}", x);
  Shape *same = sh("f32[2,3]{1,0}"); /* another object, equal contents */
  cr_assert_neq(same, v->shape);
  cr_assert(value_coerce_is_identity(v, same));
  Value *out;
  Error err;
  int64_t nbuf = vc.nbuffers;
  cr_assert(value_coerce(&vc, v, same, "c", &out, &err), "%s", err.msg);
  cr_assert_eq(out, v, "no new Value");
  cr_assert_eq(v->refs, 2);
  cr_assert_eq(vc.nbuffers, nbuf, "no new buffer");
  value_unref(&vc, out);
  value_unref(&vc, v);
  cr_assert_eq(mem_find(&mem, 0)->live, 0);
}

Test(value_reuse, another_layout_or_space_still_converts) {
  /* row-major {1,0} 1 2 3 / 4 5 6 stored column-major {0,1}: 1 4 2 5 3 6 */
  const float x[6] = {1, 2, 3, 4, 5, 6};
  Value *v = f32_value("f32[2,3]{1,0}", x);
  Shape *cm = sh("f32[2,3]{0,1}");
  cr_assert_not(value_coerce_is_identity(v, cm));
  Value *out;
  Error err;
  cr_assert(value_coerce(&vc, v, cm, "c", &out, &err), "%s", err.msg);
  cr_assert_neq(out, v);
  cr_assert_neq(out->buf, v->buf);
  const float want[6] = {1, 4, 2, 5, 3, 6};
  cr_assert_eq(memcmp(out->buf->data, want, sizeof want), 0);
  value_unref(&vc, out);
  /* same arrangement in S(1): a copy accounted there */
  Shape *s1 = sh("f32[2,3]{1,0:S(1)}");
  cr_assert_not(value_coerce_is_identity(v, s1));
  cr_assert(value_coerce(&vc, v, s1, "c", &out, &err), "%s", err.msg);
  cr_assert_neq(out->buf, v->buf);
  cr_assert_eq(mem_find(&mem, 1)->live, 24, "6 f32 in S(1)");
  cr_assert_eq(memcmp(out->buf->data, x, sizeof x), 0);
  value_unref(&vc, out);
  /* another element type or dims: never the same value */
  cr_assert_not(value_coerce_is_identity(v, sh("s32[2,3]{1,0}")));
  cr_assert_not(value_coerce_is_identity(v, sh("f32[3,2]{1,0}")));
  cr_assert_not(value_coerce_is_identity(v, sh("f32[<=2,3]{1,0}")));
  value_unref(&vc, v);
}

Test(value_reuse, tuples_coerce_element_by_element) {
  const float x[2] = {7, 8}, y[3] = {1, 2, 3};
  Value *el[2] = {f32_value("f32[2]{0}", x), f32_value("f32[3]{0}", y)};
  Value *t = value_new_tuple(sh("(f32[2]{0}, f32[3]{0})"), 2, el);
  cr_assert_not_null(t->elems);
  Value *out;
  Error err;
  cr_assert(value_coerce(&vc, t, sh("(f32[2]{0}, f32[3]{0})"), "c", &out, &err), "%s", err.msg);
  cr_assert_eq(out, t);
  value_unref(&vc, out);
  /* one element in S(1): a new tuple sharing the other element */
  cr_assert(value_coerce(&vc, t, sh("(f32[2]{0}, f32[3]{0:S(1)})"), "c", &out, &err), "%s",
            err.msg);
  cr_assert_neq(out, t);
  cr_assert_eq(out->elems[0], el[0]);
  cr_assert_neq(out->elems[1], el[1]);
  cr_assert_eq(memcmp(out->elems[1]->buf->data, y, sizeof y), 0);
  value_unref(&vc, out);
  /* a wrong arity is an error naming who asked */
  cr_assert_not(value_coerce(&vc, t, sh("(f32[2]{0})"), "parameter 0 (p)", &out, &err));
  cr_assert(strstr(err.msg, "parameter 0 (p): value is not a 1-tuple"), "%s", err.msg);
  value_unref(&vc, t);
  cr_assert_eq(mem_find(&mem, 0)->live, 0);
  cr_assert_eq(mem_find(&mem, 1)->live, 0);
}

Test(value_reuse, tuples_of_any_arity_and_recycled_structs) {
  /* empty, small (recycled slots) and big tuples, built and dropped in
   * turn: each holds exactly its elements, in order. */
  for (int round = 0; round < 3; round++) {
    Value *e = value_new_tuple(sh("()"), 0, NULL);
    cr_assert_not_null(e->elems, "an empty tuple still has an element array");
    cr_assert_eq(e->ntuple, 0);
    cr_assert_eq(e->refs, 1);
    Value *el[9];
    for (int i = 0; i < 9; i++) {
      float x = (float)(i + round);
      el[i] = f32_value("f32[1]{0}", &x);
    }
    Value *small = value_new_tuple(sh("(f32[1], f32[1], f32[1])"), 3, el);
    Value *big = value_new_tuple(
        sh("(f32[1], f32[1], f32[1], f32[1], f32[1], f32[1])"), 6, el + 3);
    cr_assert_eq(small->ntuple, 3);
    cr_assert_eq(big->ntuple, 6);
    cr_assert_null(small->buf);
    cr_assert_null(small->dyn);
    for (int i = 0; i < 3; i++) cr_assert_eq(small->elems[i], el[i]);
    for (int i = 0; i < 6; i++)
      cr_assert_eq(*(float *)big->elems[i]->buf->data, (float)(i + 3 + round));
    value_unref(&vc, e);
    value_unref(&vc, small);
    value_unref(&vc, big);
    cr_assert_eq(mem_find(&mem, 0)->live, 0);
  }
}

/* The bench's while loop, 3 iterations, through the text parser. */
static const char *loop_hlo =
    "HloModule loop\n"
    "cond {\n"
    "  s = (s32[], f32[16]{0}) parameter(0)\n"
    "  i = s32[] get-tuple-element(s), index=0\n"
    "  n = s32[] constant(3)\n"
    "  ROOT lt = pred[] compare(i, n), direction=LT\n"
    "}\n"
    "body {\n"
    "  s = (s32[], f32[16]{0}) parameter(0)\n"
    "  i = s32[] get-tuple-element(s), index=0\n"
    "  acc = f32[16]{0} get-tuple-element(s), index=1\n"
    "  one = s32[] constant(1)\n"
    "  half = f32[] constant(0.5)\n"
    "  h = f32[16]{0} broadcast(half), dimensions={}\n"
    "  ni = s32[] add(i, one)\n"
    "  na = f32[16]{0} add(acc, h)\n"
    "  ROOT t = (s32[], f32[16]{0}) tuple(ni, na)\n"
    "}\n"
    "ENTRY main {\n"
    "  zero = s32[] constant(0)\n"
    "  acc0 = f32[16]{0} constant({0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0})\n"
    "  init = (s32[], f32[16]{0}) tuple(zero, acc0)\n"
    "  w = (s32[], f32[16]{0}) while(init), condition=cond, body=body\n"
    "  ROOT r = f32[16]{0} get-tuple-element(w), index=1\n"
    "}\n";

Test(value_reuse, while_loop_counters) {
  Diags d = {0};
  Module *m = parse_module("loop.hlo", loop_hlo, strlen(loop_hlo), &d);
  if (!m && d.count) cr_log_error("%s", d.items[0].msg);
  diags_free(&d);
  cr_assert_not_null(m);
  RunOptions opt = {0};
  opt.stats = true;
  RunResult r;
  Error err = {0};
  cr_assert(run_module(m, &opt, NULL, 0, &r, &err), "%s", err.msg);
  cr_assert_eq(r.nleaves, 1);
  for (int k = 0; k < 16; k++) cr_assert_eq(((float *)r.leaves[0].data)[k], 1.5f);
  cr_assert_eq(r.while_iterations, 3);
  /* main 5 + cond 4 x 4 runs + body 9 x 3 runs */
  cr_assert_eq(r.instructions_executed, 5 + 4 * 4 + 9 * 3);
  /* Traffic: compare reads two s32 (8) and writes a pred (1), 4 times;
   * each body run: broadcast reads 4, writes 64; ni reads 8, writes 4; na
   * reads 128, writes 64 (parameter, constant, tuple, get-tuple-element
   * and while move no bytes). */
  cr_assert_eq(r.mem.spaces[0].bytes_read, 4 * 8 + 3 * (4 + 8 + 128));
  cr_assert_eq(r.mem.spaces[0].bytes_written, 4 * 1 + 3 * (64 + 4 + 64));
  /* Peak, in the second body run: the constants (zero 4, acc0 64, n 4, one
   * 4, half 4 = 80) stay for the whole run; the body owns the state, the
   * first run's ni (4) and na (64), so its tuple dies with the last
   * get-tuple-element.  h (64) and ni (4) are made, then the old ni dies
   * with i (its last use), then na takes the buffer of acc, which dies
   * there: 80 + 64 (acc, then na) + 64 (h) + 4 (ni) = 212 (cond's pred adds
   * 1 to 148 only). */
  cr_assert_eq(r.mem.spaces[0].peak, 212, "peak %lld", (long long)r.mem.spaces[0].peak);
  run_result_free(&r);
  module_free(m);
}

Test(value_reuse, result_leaf_shapes_outlive_the_run) {
  /* map's value is made under a shape synthesized in the run's arena and
   * handed on as the map's (equal) value: the result's leaf shape is the
   * result's own copy, readable after the run freed its arena.
   * m = map(a, b) with a + 10 b: {1 + 30, 2 + 40} = {31, 42}. */
  static const char *text =
      "HloModule m\n"
      "scal {\n"
      "  a = f32[] parameter(0)\n"
      "  b = f32[] parameter(1)\n"
      "  k = f32[] constant(10)\n"
      "  mb = f32[] multiply(b, k)\n"
      "  ROOT s = f32[] add(a, mb)\n"
      "}\n"
      "ENTRY e {\n"
      "  a = f32[2]{0} constant({1, 2})\n"
      "  b = f32[2]{0} constant({3, 4})\n"
      "  ROOT m = f32[2]{0} map(a, b), dimensions={0}, to_apply=scal\n"
      "}\n";
  Diags d = {0};
  Module *m = parse_module("map.hlo", text, strlen(text), &d);
  diags_free(&d);
  cr_assert_not_null(m);
  RunOptions opt = {0};
  RunResult r;
  Error err = {0};
  cr_assert(run_module(m, &opt, NULL, 0, &r, &err), "%s", err.msg);
  cr_assert_eq(r.nleaves, 1);
  cr_assert_not_null(r.shapes);
  cr_assert(shape_equal(r.leaves[0].shape, &m->entry->root->shape));
  cr_assert_eq(((float *)r.leaves[0].data)[0], 31.0f);
  cr_assert_eq(((float *)r.leaves[0].data)[1], 42.0f);
  run_result_free(&r);
  cr_assert_null(r.shapes);
  module_free(m);
}

/* A big broadcast read only by lone elementwise ops (ops between keep them
 * out of one fused group) is deferred: each reader re-derives it, it is
 * never materialised (interp/eval_plan.c plan_defer; the pred result is
 * 1 MiB, the size from which lone ops run fused).  Peak, by hand: x (4 MiB,
 * the parameter), c (4 MiB: y is x's buffer, which a parameter does not
 * give up), g (pred, 1 MiB) while c is still read, and the two f32
 * constants (8) = 9 MiB + 8.  Materialised, b0 and b6 (4 MiB each) would be
 * live at c as well: 16 MiB + 8. */
static const char relu6_hlo[] =
    "HloModule relu6\nENTRY e {\n"
    "  x = f32[1024,1024] parameter(0)\n  zero = f32[] constant(0)\n"
    "  b0 = f32[1024,1024] broadcast(zero), dimensions={}\n  six = f32[] constant(6)\n"
    "  b6 = f32[1024,1024] broadcast(six), dimensions={}\n"
    "  t = (f32[1024,1024]) tuple(x)\n  y = f32[1024,1024] get-tuple-element(t), index=0\n"
    "  c = f32[1024,1024] clamp(b0, y, b6)\n  t2 = (f32[1024,1024]) tuple(c)\n"
    "  c2 = f32[1024,1024] get-tuple-element(t2), index=0\n"
    "  ROOT g = pred[1024,1024] compare(c2, b0), direction=GT\n}\n";

Test(value_reuse, deferred_broadcasts_are_never_materialised) {
  Diags d = {0};
  Module *m = parse_module("relu6.hlo", relu6_hlo, strlen(relu6_hlo), &d);
  diags_free(&d);
  cr_assert_not_null(m);
  RunOptions opt = {0};
  opt.stats = true;
  opt.random_inputs = true;
  opt.seed = 7;
  RunResult r;
  Error err = {0};
  cr_assert(run_module(m, &opt, NULL, 0, &r, &err), "%s", err.msg);
  cr_assert_eq(r.mem.spaces[0].peak, 9 * 1048576 + 8, "peak %lld", (long long)r.mem.spaces[0].peak);
  cr_assert_eq(r.nleaves, 1);
  run_result_free(&r);
  module_free(m);
}
