/* interp/buffers: which instructions own buffers, what aliases name, sizes,
 * order and per-space totals (hlolayout --module). */
#include <criterion/criterion.h>
#include <string.h>

#include "interp/buffers.h"
#include "parser/parser.h"
#include "tests/parse_fixture.h"

/* Parses text and lists its buffers into r; returns the module to free. */
static Module *report_of(const char *text, BufferReport *r) {
  Module *m = parse_text(text);
  Error err = {0};
  cr_assert(buffers_report(m, r, &err), "%s", err.msg);
  return m;
}

static const BufferRow *row(const BufferReport *r, const char *name) {
  for (int i = 0; i < r->nrows; i++)
    if (strcmp(r->rows[i].name, name) == 0) return &r->rows[i];
  cr_assert_fail("no row %s", name);
  return NULL;
}

Test(buffers, call_conditional_and_fusion_contexts) {
  BufferReport r;
  Module *m = report_of(
      "HloModule m\n"
      "f { fp = f32[2]{0} parameter(0)\n ROOT fn = f32[2]{0} negate(fp) }\n"
      "callee { cp = f32[2]{0} parameter(0)\n ROOT cf = f32[2]{0} fusion(cp), kind=kLoop, calls=f }\n"
      "br0 { b0 = f32[2]{0} parameter(0)\n ROOT r0 = f32[2]{0} abs(b0) }\n"
      "br1 { b1 = f32[2]{0} parameter(0)\n ROOT r1 = f32[2]{0} sine(b1) }\n"
      "ENTRY main {\n p = f32[2]{0} parameter(0)\n k = pred[] parameter(1)\n"
      " c = f32[2]{0} call(p), to_apply=callee\n"
      " ROOT d = f32[2]{0} conditional(k, c, c), true_computation=br0, false_computation=br1\n}\n", &r);
  cr_expect_eq(r.ncomputations, 4); /* main, callee, br0, br1; not the fusion body f */
  cr_expect_eq(r.nunlisted_instrs, 2);
  cr_expect(row(&r, "c")->alias);
  cr_expect_str_eq(row(&r, "c")->alias_of, "cf");
  cr_expect(row(&r, "d")->alias);
  cr_expect(row(&r, "cp")->alias);
  cr_expect(!row(&r, "cf")->alias);
  cr_expect(!row(&r, "r0")->alias);
  cr_expect(!row(&r, "p")->alias);
  /* owned: p, k, cf, r0, r1 */
  cr_expect_eq(r.nbuffers, 5);
  cr_expect_eq(r.total.physical_bytes, 8 * 4 + 1);
  buffers_report_free(&r);
  module_free(m);
}

Test(buffers, async_and_collective_leaves) {
  BufferReport r;
  Module *m = report_of(
      "HloModule m\n"
      "ENTRY main {\n p = f32[8]{0} parameter(0)\n q = f32[8]{0} parameter(1)\n"
      " ags = ((f32[8]{0}, f32[8]{0}), (f32[16]{0}, f32[16]{0})) all-gather-start(p, q), "
      "dimensions={0}, replica_groups={{0,1}}\n"
      " agd = (f32[16]{0}, f32[16]{0}) all-gather-done(ags)\n"
      " g1 = (f32[8]{0}, f32[16]{0}) all-gather-start(p), dimensions={0}, replica_groups={{0,1}}\n"
      " ROOT g1d = f32[16]{0} all-gather-done(g1)\n}\n", &r);
  cr_expect_str_eq(row(&r, "ags{0,1}")->alias_of, "q");
  cr_expect(!row(&r, "ags{1,0}")->alias);
  cr_expect_str_eq(row(&r, "agd{1}")->alias_of, "ags{1,1}");
  cr_expect_str_eq(row(&r, "g1{0}")->alias_of, "p");
  cr_expect(!row(&r, "g1{1}")->alias);
  cr_expect_str_eq(row(&r, "g1d")->alias_of, "g1{1}");
  buffers_report_free(&r);
  module_free(m);
}

Test(buffers, order_sizes_and_spaces) {
  BufferReport r;
  Module *m = report_of("HloModule m\n"
                    "ENTRY main {\n a = f32[3,5]{1,0:T(2,2)} parameter(0)\n"
                    " b = f32[3,5]{1,0:T(2,2)S(1)} copy(a)\n"
                    " c = s4[5]{0:E(4)S(5)} parameter(1)\n"
                    " ROOT t = (f32[3,5]{1,0:T(2,2)S(1)}, s4[5]{0:E(4)S(5)}) tuple(b, c)\n}\n", &r);
  cr_assert_eq(r.nrows, 5);
  const char *want[] = {"a", "b", "t{0}", "c", "t{1}"}; /* 96, 96, 96, 3, 3 bytes */
  for (int i = 0; i < 5; i++) cr_expect_str_eq(r.rows[i].name, want[i]);
  cr_expect_eq(row(&r, "a")->logical_bytes, 60);
  cr_expect_eq(row(&r, "a")->physical_bytes, 96);
  cr_expect_eq(row(&r, "c")->physical_bytes, 3);
  cr_assert_eq(r.nspaces, 3);
  cr_expect_eq(r.spaces[0].memory_space, 0);
  cr_expect_eq(r.spaces[1].memory_space, 1);
  cr_expect_eq(r.spaces[1].physical_bytes, 96);
  cr_expect_eq(r.spaces[2].memory_space, 5);
  cr_expect_eq(r.spaces[2].count, 1);
  cr_expect_eq(r.total.count, 3);
  cr_expect_eq(r.total.logical_bytes, 123);
  cr_expect_eq(r.total.physical_bytes, 195);
  cr_expect_eq(r.naliases, 2);
  buffers_report_free(&r);
  module_free(m);
}

Test(buffers, no_array_leaves) {
  BufferReport r;
  Module *m = report_of("HloModule m\nENTRY main {\n tk = token[] after-all()\n ROOT t = () tuple()\n}\n", &r);
  cr_expect_eq(r.nrows, 0);
  cr_expect_eq(r.nspaces, 0);
  cr_expect_eq(r.total.count, 0);
  buffers_report_free(&r);
  module_free(m);
}
