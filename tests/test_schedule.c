/* interp/schedule: memory-frugal execution orders.  The simulated peaks
 * below are worked out by hand in each test's comment (f32[8388608] is
 * 32 MiB = 33554432 bytes; an f32[] is 4; parameters and constants cost
 * nothing: the caller owns them). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "interp/schedule.h"
#include "parser/parser.h"
#include "tests/parse_fixture.h"

#define MIB ((int64_t)1 << 20)

static int pos(const Module *m, const char *name) {
  const Computation *c = m->entry;
  for (int i = 0; i < c->ninstrs; i++)
    if (strcmp(c->instrs[i]->name, name) == 0) return i;
  cr_assert_fail("no instruction %s", name);
  return -1;
}

/* Every computation's order is one: index is the position, operands and
 * control-predecessors come first. */
static void assert_valid(const Module *m) {
  for (int ci = 0; ci < m->ncomps; ci++) {
    const Computation *c = m->comps[ci];
    for (int i = 0; i < c->ninstrs; i++) {
      const Instr *in = c->instrs[i];
      cr_assert_eq(in->index, i);
      for (int k = 0; k < in->noperands; k++)
        cr_assert_lt(in->operands[k]->index, i, "%s reads %s later", in->name, in->operands[k]->name);
      const Attr *cp = ir_attr(in, ATTR_CONTROL_PREDECESSORS);
      for (int k = 0; cp && k < cp->v.instrs.n; k++) cr_assert_lt(cp->v.instrs.v[k]->index, i);
    }
  }
}

#define ADD "add { p = f32[] parameter(0)\n q = f32[] parameter(1)\n ROOT s = f32[] add(p, q) }\n"

/* testdata/schedule/three_sums.hlo.  Text order: a, b, c alive together,
 * 3 * 32 MiB, and ra's 4 bytes as it is made.  Depth first: each reduced before the next is made; at the
 * worst c and the three scalars: 32 MiB + 12. */
static const char *three_sums =
    "HloModule three_sums\n" ADD
    "ENTRY main {\n"
    "  x = f32[8388608] parameter(0)\n  zero = f32[] constant(0)\n"
    "  a = f32[8388608] negate(x)\n  b = f32[8388608] abs(x)\n  c = f32[8388608] multiply(x, x)\n"
    "  ra = f32[] reduce(a, zero), dimensions={0}, to_apply=add\n"
    "  rb = f32[] reduce(b, zero), dimensions={0}, to_apply=add\n"
    "  rc = f32[] reduce(c, zero), dimensions={0}, to_apply=add\n"
    "  ROOT t = (f32[], f32[], f32[]) tuple(ra, rb, rc)\n}\n";

Test(schedule, depth_first_when_it_saves) {
  Module *m = parse_text(three_sums);
  ScheduleStats st = schedule_module(m);
  cr_assert_eq(st.reordered, 1);
  cr_assert_eq(st.text_peak_bytes, 96 * MIB + 4); /* ra made while a, b, c live */
  cr_assert_eq(st.peak_bytes, 32 * MIB + 12);
  assert_valid(m);
  cr_assert(pos(m, "a") < pos(m, "ra") && pos(m, "ra") < pos(m, "b") && pos(m, "b") < pos(m, "rb") &&
            pos(m, "rb") < pos(m, "c") && pos(m, "c") < pos(m, "rc"));
  cr_assert_eq(m->entry->root, m->entry->instrs[m->entry->ninstrs - 1]);
  module_free(m);
}

Test(schedule, scheduled_modules_keep_their_order) {
  char text[4096];
  snprintf(text, sizeof text, "HloModule three_sums, is_scheduled=true\n%s", strchr(three_sums, '\n') + 1);
  Module *m = parse_text(text);
  ScheduleStats st = schedule_module(m);
  cr_assert_eq(st.reordered, 0);
  cr_assert(pos(m, "a") < pos(m, "b") && pos(m, "b") < pos(m, "c") && pos(m, "c") < pos(m, "ra"));
  module_free(m);
}

Test(schedule, small_savings_keep_the_text_order) {
  /* the same shape of program at f32[1024]: 8 KiB saved, under 16 MiB */
  Module *m = parse_text("HloModule small\n" ADD
                    "ENTRY main {\n  x = f32[1024] parameter(0)\n  zero = f32[] constant(0)\n"
                    "  a = f32[1024] negate(x)\n  b = f32[1024] abs(x)\n  c = f32[1024] multiply(x, x)\n"
                    "  ra = f32[] reduce(a, zero), dimensions={0}, to_apply=add\n"
                    "  rb = f32[] reduce(b, zero), dimensions={0}, to_apply=add\n"
                    "  rc = f32[] reduce(c, zero), dimensions={0}, to_apply=add\n"
                    "  ROOT t = (f32[], f32[], f32[]) tuple(ra, rb, rc)\n}\n");
  ScheduleStats st = schedule_module(m);
  cr_assert_eq(st.reordered, 0);
  cr_assert_eq(st.text_peak_bytes, 3 * 4096 + 4);
  cr_assert(pos(m, "a") < pos(m, "b") && pos(m, "b") < pos(m, "c") && pos(m, "c") < pos(m, "ra"));
  module_free(m);
}

/* Two branches of one size, the root reading rb's first: a depth-first
 * order runs b and rb before a and ra (text: a, b, c alive together; depth
 * first: one at a time) -- unless something ties ra before rb. */
static Module *two_branches(const char *ra_op, const char *rb_op, const char *rb_extra) {
  char text[4096];
  snprintf(text, sizeof text,
           "HloModule two_branches\n" ADD
           "ENTRY main {\n  x = f32[8388608] parameter(0)\n  zero = f32[] constant(0)\n"
           "  a = f32[8388608] negate(x)\n  b = f32[8388608] abs(x)\n  c = f32[8388608] sine(x)\n"
           "  ra = f32[] %s\n  rb = f32[] %s%s\n"
           "  rc = f32[] reduce(c, zero), dimensions={0}, to_apply=add\n"
           "  ROOT t = (f32[], f32[], f32[]) tuple(rb, ra, rc)\n}\n",
           ra_op, rb_op, rb_extra);
  return parse_text(text);
}

Test(schedule, pure_instructions_move) {
  Module *m = two_branches("reduce(a, zero), dimensions={0}, to_apply=add",
                           "reduce(b, zero), dimensions={0}, to_apply=add", "");
  ScheduleStats st = schedule_module(m);
  cr_assert_eq(st.reordered, 1);
  cr_assert_eq(st.text_peak_bytes, 96 * MIB + 4);
  cr_assert_eq(st.peak_bytes, 32 * MIB + 12);
  assert_valid(m);
  cr_assert_lt(pos(m, "rb"), pos(m, "ra"), "the tests below need an order that swaps them");
  module_free(m);
}

/* The same with custom calls (order-sensitive) or a control edge: ra
 * stays first; still reordered (b, a, ra, rb, c, rc: 64 MiB + 4 at ra). */
Test(schedule, custom_calls_keep_their_relative_order) {
  Module *m = two_branches("custom-call(a), custom_call_target=\"first\"",
                           "custom-call(b), custom_call_target=\"second\"", "");
  ScheduleStats st = schedule_module(m);
  cr_assert_eq(st.reordered, 1);
  assert_valid(m);
  cr_assert_lt(pos(m, "ra"), pos(m, "rb"));
  cr_assert_lt(st.peak_bytes, 65 * MIB);
  module_free(m);
}

Test(schedule, control_predecessors_are_kept) {
  Module *m = two_branches("reduce(a, zero), dimensions={0}, to_apply=add",
                           "reduce(b, zero), dimensions={0}, to_apply=add", ", control-predecessors={ra}");
  ScheduleStats st = schedule_module(m);
  cr_assert_eq(st.reordered, 1);
  assert_valid(m);
  cr_assert_lt(pos(m, "ra"), pos(m, "rb"));
  module_free(m);
}

Test(schedule, tuple_elements_die_one_by_one) {
  /* cc's big element is read (through big) by rbig only; its small one
   * lives on to out.  Text order: cc 32 MiB + 4; after rbig only the
   * scalars stay (8); d and rd on top: 32 MiB + 12 -- not 64 MiB, which
   * keeping the whole tuple alive to its last reader would give. */
  Module *m = parse_text("HloModule pair, is_scheduled=false\n" ADD
                    "ENTRY main {\n  x = f32[8388608] parameter(0)\n  zero = f32[] constant(0)\n"
                    "  cc = (f32[8388608], f32[]) custom-call(x), custom_call_target=\"pair\"\n"
                    "  big = f32[8388608] get-tuple-element(cc), index=0\n"
                    "  small = f32[] get-tuple-element(cc), index=1\n"
                    "  rbig = f32[] reduce(big, zero), dimensions={0}, to_apply=add\n"
                    "  d = f32[8388608] negate(x)\n"
                    "  rd = f32[] reduce(d, zero), dimensions={0}, to_apply=add\n"
                    "  out = f32[] add(small, rd)\n"
                    "  ROOT t = (f32[], f32[]) tuple(rbig, out)\n}\n");
  ScheduleStats st = schedule_module(m);
  cr_assert_eq(st.text_peak_bytes, 32 * MIB + 12);
  cr_assert_eq(st.reordered, 0);
  module_free(m);
}

Test(schedule, empty_tuples_and_tokens) {
  /* () values and tokens allocate nothing; with any saving accepted the
   * three sums reorder around them */
  Module *m = parse_text("HloModule e\n" ADD
                    "ENTRY main {\n  x = f32[1024] parameter(0)\n  zero = f32[] constant(0)\n"
                    "  e = () tuple()\n  tok = token[] after-all()\n"
                    "  a = f32[1024] negate(x)\n  b = f32[1024] abs(x)\n"
                    "  ra = f32[] reduce(a, zero), dimensions={0}, to_apply=add\n"
                    "  rb = f32[] reduce(b, zero), dimensions={0}, to_apply=add\n"
                    "  ROOT t = (f32[], f32[], (), token[]) tuple(ra, rb, e, tok)\n}\n");
  ScheduleStats st = schedule_module_min(m, 1);
  cr_assert_eq(st.text_peak_bytes, 2 * 4096 + 4);
  cr_assert_eq(st.reordered, 1);
  cr_assert_eq(st.peak_bytes, 4096 + 8);
  assert_valid(m);
  module_free(m);
}
