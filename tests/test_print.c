/* The printer on small modules: text -> parse -> print, compared with the
 * canonical text written by hand from XLA's printing rules
 * (docs/hlo-print.md), and checked to be a fixed point. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "parser/parser.h"
#include "parser/print.h"
#include "parser/print_internal.h"
#include "parser/verify.h"

static Module *parse_text(const char *text) {
  Diags d = {0};
  Module *m = parse_module("test.hlo", text, strlen(text), &d);
  for (int i = 0; i < d.count; i++) cr_log_error("parse: %s", d.items[i].msg);
  diags_free(&d);
  cr_assert_not_null(m, "module did not parse:\n%s", text);
  return m;
}

static char *print_text(const char *text) {
  Module *m = parse_text(text);
  Diags d = {0};
  bool valid = verify_module(m, &d);
  for (int i = 0; i < d.count; i++) cr_log_error("verify: %s", d.items[i].msg);
  diags_free(&d);
  cr_expect(valid, "module does not verify:\n%s", text);
  StrBuf sb;
  sb_init(&sb);
  print_module(&sb, m);
  module_free(m);
  return sb_take(&sb);
}

/* Prints, checks the fixed point, compares with the expected text. */
static void expect_print(const char *input, const char *expected) {
  char *once = print_text(input);
  cr_expect_str_eq(once, expected);
  char *twice = print_text(once);
  cr_expect_str_eq(twice, once, "not a fixed point");
  free(once);
  free(twice);
}

/* A one-computation module whose ENTRY body is the given lines. */
#define MODULE(header, params_sig, body) header "\n\nENTRY %e " params_sig " {\n" body "}\n"

/* Only the instruction lines of the printed entry computation. */
static void expect_entry_body(const char *input, const char *expected_body) {
  char *once = print_text(input);
  const char *start = strstr(once, "ENTRY ");
  cr_assert_not_null(start);
  start = strchr(start, '\n') + 1;
  const char *end = strstr(start - 1, "\n}\n");
  cr_assert_not_null(end);
  size_t n = (size_t)(end + 1 - start);
  cr_expect(strlen(expected_body) == n && memcmp(start, expected_body, n) == 0,
            "body:\n%.*s\nexpected:\n%s", (int)n, start, expected_body);
  char *twice = print_text(once);
  cr_expect_str_eq(twice, once, "not a fixed point");
  free(once);
  free(twice);
}

Test(print, every_attribute_key_has_a_place) {
  for (int k = 1; k < ATTR_COUNT; k++)
    cr_expect_geq(print_attr_order((AttrKey)k), 0, "%s has no print position",
                  attr_key_name((AttrKey)k));
}

Test(print, header_attributes_in_xla_order) {
  expect_print(
      "HloModule m, frontend_attributes={x=\"y\"}, num_partitions=2, "
      "allow_spmd_sharding_propagation_to_output={true}, replica_count=2, "
      "alias_passthrough_params=true, buffer_donor={ (0, {}) }, is_scheduled=true, "
      "allow_spmd_sharding_propagation_to_parameters={false}\n\n"
      "ENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n",
      "HloModule m, is_scheduled=true, buffer_donor={ (0, {}) }, alias_passthrough_params=true, "
      "entry_computation_layout={(f32[2]{0})->f32[2]{0}}, "
      "allow_spmd_sharding_propagation_to_parameters={false}, "
      "allow_spmd_sharding_propagation_to_output={true}, replica_count=2, num_partitions=2, "
      "frontend_attributes={x=\"y\"}\n\n"
      "ENTRY %e (p: f32[2]) -> f32[2] {\n"
      "  ROOT %p = f32[2]{0} parameter(0)\n"
      "}\n");
}

Test(print, defaults_dropped_from_header) {
  expect_print("HloModule m, replica_count=1, num_partitions=1, is_scheduled=false\n\n"
               "ENTRY e {\n  ROOT c = s32[] constant(3)\n}\n",
               "HloModule m, entry_computation_layout={()->s32[]}\n\n"
               "ENTRY %e () -> s32[] {\n"
               "  ROOT %c = s32[] constant(3)\n"
               "}\n");
}

Test(print, root_and_entry_added) {
  expect_print("HloModule m\n\nc {\n  a = f32[] parameter(0)\n  n = f32[] negate(a)\n}\n",
               "HloModule m, entry_computation_layout={(f32[])->f32[]}\n\n"
               "ENTRY %c (a: f32[]) -> f32[] {\n"
               "  %a = f32[] parameter(0)\n"
               "  ROOT %n = f32[] negate(f32[] %a)\n"
               "}\n");
}

Test(print, written_signature_kept) {
  /* The parser does not check signature names; they survive as written. */
  expect_print("HloModule m\n\nENTRY e (q: f32[3]{0}) -> f32[3] {\n"
               "  p = f32[3] parameter(0)\n  ROOT n = f32[3] negate(p)\n}\n",
               "HloModule m, entry_computation_layout={(f32[3]{0})->f32[3]{0}}\n\n"
               "ENTRY %e (q: f32[3]) -> f32[3] {\n"
               "  %p = f32[3]{0} parameter(0)\n"
               "  ROOT %n = f32[3]{0} negate(f32[3]{0} %p)\n"
               "}\n");
}

Test(print, operand_index_comments) {
  expect_entry_body(
      MODULE("HloModule m", "", "  a = s32[] constant(1)\n"
                                "  ROOT t = (s32[], s32[], s32[], s32[], s32[], s32[], s32[]) "
                                "tuple(a, a, a, a, a, a, a)\n"),
      "  %a = s32[] constant(1)\n"
      "  ROOT %t = (s32[], s32[], s32[], s32[], s32[], /*index=5*/s32[], s32[]) "
      "tuple(s32[] %a, s32[] %a, s32[] %a, s32[] %a, s32[] %a, /*index=5*/s32[] %a, s32[] %a)\n");
}

Test(print, bool_int_float_string_attributes) {
  expect_entry_body(
      MODULE("HloModule m", "",
             "  x = f32[2,3] parameter(0)\n"
             "  s = f32[3] parameter(1)\n"
             "  o = f32[3] parameter(2)\n"
             "  bn = (f32[2,3], f32[3], f32[3]) batch-norm-training(x, s, o), "
             "feature_index=1, epsilon=0.0001\n"
             "  g = f32[2,3] get-tuple-element(bn), index=0\n"
             "  ROOT c = f32[2,3] custom-call(g), custom_call_has_side_effect=false, "
             "custom_call_target=\"t\\x01\\\"'\"\n"),
      "  %x = f32[2,3]{1,0} parameter(0)\n"
      "  %s = f32[3]{0} parameter(1)\n"
      "  %o = f32[3]{0} parameter(2)\n"
      "  %bn = (f32[2,3]{1,0}, f32[3]{0}, f32[3]{0}) batch-norm-training(f32[2,3]{1,0} %x, "
      "f32[3]{0} %s, f32[3]{0} %o), epsilon=0.0001, feature_index=1\n"
      "  %g = f32[2,3]{1,0} get-tuple-element((f32[2,3]{1,0}, f32[3]{0}, f32[3]{0}) %bn), index=0\n"
      "  ROOT %c = f32[2,3]{1,0} custom-call(f32[2,3]{1,0} %g), "
      "custom_call_target=\"t\\001\\\"\\'\", custom_call_has_side_effect=false\n");
}

Test(print, backend_config_string_or_raw) {
  expect_entry_body(MODULE("HloModule m", "",
                           "  a = f32[] parameter(0), backend_config={\"x\": {\"y\": \"}\"}}\n"
                           "  b = f32[] negate(a), backend_config=\"{\\\"k\\\":1}\"\n"
                           "  ROOT c = f32[] negate(b), backend_config=\"{oops\"\n"),
                    "  %a = f32[] parameter(0), backend_config={\"x\": {\"y\": \"}\"}}\n"
                    "  %b = f32[] negate(f32[] %a), backend_config={\"k\":1}\n"
                    "  ROOT %c = f32[] negate(f32[] %b), backend_config=\"{oops\"\n");
}

Test(print, enums_and_enum_lists) {
  expect_entry_body(
      MODULE("HloModule m", "",
             "  a = f32[2,2] parameter(0)\n"
             "  d = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
             "operand_precision={DEFAULT,High}, algorithm=DOT_BF16_BF16_F32\n"
             "  c = pred[2,2] compare(d, a), direction=GE\n"
             "  ROOT r = pred[2,2] custom-call(c), custom_call_target=\"x\", "
             "api_version=api_version_typed_ffi, schedule=Schedule_Earliest\n"),
      "  %a = f32[2,2]{1,0} parameter(0)\n"
      "  %d = f32[2,2]{1,0} dot(f32[2,2]{1,0} %a, f32[2,2]{1,0} %a), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}, operand_precision={default,high}, algorithm=dot_bf16_bf16_f32\n"
      "  %c = pred[2,2]{1,0} compare(f32[2,2]{1,0} %d, f32[2,2]{1,0} %a), direction=GE\n"
      "  ROOT %r = pred[2,2]{1,0} custom-call(pred[2,2]{1,0} %c), custom_call_target=\"x\", "
      "schedule=SCHEDULE_EARLIEST, api_version=API_VERSION_TYPED_FFI\n");
}

Test(print, windows_print_non_default_fields) {
  expect_entry_body(
      MODULE("HloModule m\n\nmx {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
             "  ROOT c = f32[] maximum(a, b)\n}",
             "",
             "  x = f32[4,4] parameter(0)\n"
             "  z = f32[] constant(0)\n"
             "  w1 = f32[4,4] reduce-window(x, z), window={size=1x1 stride=1x1 pad=0_0x0_0 "
             "lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x0}, to_apply=mx\n"
             "  w2 = f32[3,3] reduce-window(x, z), window={rhs_reversal=0x1 size=2x3 pad=0_0x1_2 "
             "lhs_dilate=1x1 rhs_dilate=1x2}, to_apply=mx\n"
             "  w3 = f32[7,4] reduce-window(x, z), window={size=1x1 lhs_dilate=2x1}, to_apply=mx\n"
             "  s = f32[] reduce-window(z, z), window={}, to_apply=mx\n"
             "  ROOT t = (f32[4,4], f32[3,3], f32[7,4], f32[]) tuple(w1, w2, w3, s)\n"),
      "  %x = f32[4,4]{1,0} parameter(0)\n"
      "  %z = f32[] constant(0)\n"
      "  %w1 = f32[4,4]{1,0} reduce-window(f32[4,4]{1,0} %x, f32[] %z), window={size=1x1}, "
      "to_apply=%mx\n"
      "  %w2 = f32[3,3]{1,0} reduce-window(f32[4,4]{1,0} %x, f32[] %z), window={size=2x3 "
      "pad=0_0x1_2 rhs_dilate=1x2 rhs_reversal=0x1}, to_apply=%mx\n"
      "  %w3 = f32[7,4]{1,0} reduce-window(f32[4,4]{1,0} %x, f32[] %z), window={size=1x1 "
      "lhs_dilate=2x1}, to_apply=%mx\n"
      "  %s = f32[] reduce-window(f32[] %z, f32[] %z), window={}, to_apply=%mx\n"
      "  ROOT %t = (f32[4,4]{1,0}, f32[3,3]{1,0}, f32[7,4]{1,0}, f32[]) tuple(f32[4,4]{1,0} %w1, "
      "f32[3,3]{1,0} %w2, f32[7,4]{1,0} %w3, f32[] %s)\n");
}

Test(print, slices_paddings_dimensions) {
  expect_entry_body(
      MODULE("HloModule m", "",
             "  x = f32[4,6] parameter(0)\n"
             "  a = f32[2,3] slice(x), slice={[0:2:1], [0:6:2]}\n"
             "  b = f32[2,6] slice(x), slice={[2:4:1], [0:6:1]}\n"
             "  z = f32[] constant(0)\n"
             "  p = f32[5,3] pad(a, z), padding=1_2_0x-1_1_0\n"
             "  q = f32[3,5] pad(a, z), padding=0_0_1x0_0_1\n"
             "  ROOT t = f32[6,2] transpose(b), dimensions={1,0}\n"),
      "  %x = f32[4,6]{1,0} parameter(0)\n"
      "  %a = f32[2,3]{1,0} slice(f32[4,6]{1,0} %x), slice={[0:2:1], [0:6:2]}\n"
      "  %b = f32[2,6]{1,0} slice(f32[4,6]{1,0} %x), slice={[2:4], [0:6]}\n"
      "  %z = f32[] constant(0)\n"
      "  %p = f32[5,3]{1,0} pad(f32[2,3]{1,0} %a, f32[] %z), padding=1_2x-1_1\n"
      "  %q = f32[3,5]{1,0} pad(f32[2,3]{1,0} %a, f32[] %z), padding=0_0_1x0_0_1\n"
      "  ROOT %t = f32[6,2]{1,0} transpose(f32[2,6]{1,0} %b), dimensions={1,0}\n");
}

Test(print, replica_groups_forms) {
  expect_entry_body(
      MODULE("HloModule m, replica_count=4\n\nadd {\n  a = f32[] parameter(0)\n"
             "  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}",
             "",
             "  x = f32[4] parameter(0)\n"
             "  a = f32[4] all-reduce(x), replica_groups={}, to_apply=add\n"
             "  b = f32[4] all-reduce(a), replica_groups=[1,4]<=[4], to_apply=add\n"
             "  c = f32[4] all-reduce(b), replica_groups=[2,2]<=[2,2], to_apply=add\n"
             "  ROOT d = f32[4] all-reduce(c), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=add\n"),
      "  %x = f32[4]{0} parameter(0)\n"
      "  %a = f32[4]{0} all-reduce(f32[4]{0} %x), replica_groups={}, to_apply=%add\n"
      "  %b = f32[4]{0} all-reduce(f32[4]{0} %a), replica_groups=[1,4]<=[4], to_apply=%add\n"
      "  %c = f32[4]{0} all-reduce(f32[4]{0} %b), replica_groups=[2,2]<=[2,2]T(0,1), "
      "to_apply=%add\n"
      "  ROOT %d = f32[4]{0} all-reduce(f32[4]{0} %c), replica_groups=[2,2]<=[2,2]T(1,0), "
      "to_apply=%add\n");
}

Test(print, shapes_literals_and_lists) {
  expect_entry_body(
      MODULE("HloModule m", "",
             "  x = f32[2] parameter(0)\n"
             "  t = token[] after-all()\n"
             "  o = token[] outfeed(x, t), outfeed_shape=f32[2], outfeed_config=\"cfg\"\n"
             "  ROOT c = s32[2] custom-call(x), custom_call_target=\"k\", "
             "operand_layout_constraints={f32[2]{0}}, literal=s32[2]{0} {1, 2}, "
             "control-predecessors={o, t}, output_to_operand_aliasing={{}: (0, {})}\n"),
      "  %x = f32[2]{0} parameter(0)\n"
      "  %t = token[] after-all()\n"
      "  %o = token[] outfeed(f32[2]{0} %x, token[] %t), outfeed_shape=f32[2]{0}, "
      "outfeed_config=\"cfg\"\n"
      "  ROOT %c = s32[2]{0} custom-call(f32[2]{0} %x), custom_call_target=\"k\", "
      "operand_layout_constraints={f32[2]{0}}, literal=s32[2]{0} {1, 2}, "
      "output_to_operand_aliasing={{}: (0, {})}, control-predecessors={%o, %t}\n");
}

Test(print, async_sugar_stays_sugar) {
  expect_entry_body(
      MODULE("HloModule m", "",
             "  x = f32[8] parameter(0)\n"
             "  s = ((f32[8]), f32[8], s32[]) all-to-all-start(x), dimensions={0}, "
             "replica_groups={{0}}\n"
             "  ROOT d = f32[8] all-to-all-done(s)\n"),
      "  %x = f32[8]{0} parameter(0)\n"
      "  %s = ((f32[8]{0}), f32[8]{0}, s32[]) all-to-all-start(f32[8]{0} %x), "
      "replica_groups={{0}}, dimensions={0}\n"
      "  ROOT %d = f32[8]{0} all-to-all-done(((f32[8]{0}), f32[8]{0}, s32[]) %s)\n");
}

Test(print, layouts_with_every_suffix) {
  expect_entry_body(MODULE("HloModule m", "",
                           "  a = f32[4,6]{0,1:T(*,2)(1,2)L(4)E(32)S(1)SC(0:2)M(16)} parameter(0)\n"
                           "  c = f32[]{:S(5)} parameter(1)\n"
                           "  ROOT d = f32[<=4,?] parameter(2)\n"),
                    "  %a = f32[4,6]{0,1:T(*,2)(1,2)L(4)E(32)S(1)SC(0:2)M(16)} parameter(0)\n"
                    "  %c = f32[]{:S(5)} parameter(1)\n"
                    "  ROOT %d = f32[<=4,?]{1,0} parameter(2)\n");
}

Test(print, constants_of_every_kind) {
  expect_entry_body(MODULE("HloModule m", "",
                           "  a = bf16[2] constant({nan, -0.0})\n"
                           "  b = f8e5m2[2] constant({-inf, 0.5})\n"
                           "  c = c128[] constant((1.5, -2))\n"
                           "  d = (pred[], (s8[2], f32[])) constant((false, ({1, -1}, 2.5)))\n"
                           "  e = f32[20] constant({...})\n"
                           "  ROOT f = pred[2,2] constant({{true, false}, {0, 1}})\n"),
                    "  %a = bf16[2]{0} constant({nan, -0.0})\n"
                    "  %b = f8e5m2[2]{0} constant({-inf, 0.5})\n"
                    "  %c = c128[] constant((1.5, -2))\n"
                    "  %d = (pred[], (s8[2]{0}, f32[])) constant(( false, ( {1, -1}, 2.5 ) ))\n"
                    "  %e = f32[20]{0} constant({...})\n"
                    "  ROOT %f = pred[2,2]{1,0} constant({ { 1, 0 }, { 0, 1 } })\n");
}

Test(print, inline_computations_become_named_computations) {
  /* The parser names inline bodies "_", "_.1", ... (XLA names them "_"); the
   * printer writes them out before their caller and refers to them by name. */
  expect_print("HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
               "  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply={\n"
               "    a = f32[] parameter(0)\n    b = f32[] parameter(1)\n"
               "    ROOT s = f32[] add(a, b)\n  }\n}\n",
               "HloModule m, entry_computation_layout={(f32[4]{0})->f32[]}\n\n"
               "%_ (a: f32[], b: f32[]) -> f32[] {\n"
               "  %a = f32[] parameter(0)\n"
               "  %b = f32[] parameter(1)\n"
               "  ROOT %s = f32[] add(f32[] %a, f32[] %b)\n"
               "}\n\n"
               "ENTRY %e (p: f32[4]) -> f32[] {\n"
               "  %p = f32[4]{0} parameter(0)\n"
               "  %z = f32[] constant(0)\n"
               "  ROOT %r = f32[] reduce(f32[4]{0} %p, f32[] %z), dimensions={0}, to_apply=%_\n"
               "}\n");
}

Test(print, nested_operands_become_instructions) {
  /* hlo-text.md 3.4: the parser gives nested instructions names of their own. */
  char *once = print_text("HloModule m\n\nENTRY e {\n"
                          "  ROOT r = f32[3] sqrt(f32[3] negate(f32[3] parameter(0)))\n}\n");
  cr_expect(strstr(once, " = f32[3]{0} parameter(0)\n") != NULL, "%s", once);
  cr_expect(strstr(once, " = f32[3]{0} negate(f32[3]{0} %") != NULL, "%s", once);
  cr_expect(strstr(once, "  ROOT %r = f32[3]{0} sqrt(f32[3]{0} %") != NULL, "%s", once);
  char *twice = print_text(once);
  cr_expect_str_eq(twice, once, "not a fixed point");
  free(once);
  free(twice);
}

Test(print, negative_zero_survives) {
  expect_entry_body(MODULE("HloModule m", "",
                           "  a = f32[2] constant({-0.0, 0})\n"
                           "  ROOT b = c64[] constant((-0.0, -0.0))\n"),
                    "  %a = f32[2]{0} constant({-0.0, 0})\n"
                    "  ROOT %b = c64[] constant((-0.0, -0.0))\n");
}

Test(print, execution_threads_and_async_computations) {
  expect_print("HloModule m\n\nw {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(p)\n"
               "}, execution_thread=\"t\"\n\nENTRY e {\n  x = f32[2] parameter(0)\n"
               "  s = ((f32[2]), f32[2], s32[]) async-start(x), calls=w, "
               "async_execution_thread=\"t\"\n"
               "  ROOT d = f32[2] async-done(s)\n}\n",
               "HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}\n\n"
               "%w (p: f32[2]) -> f32[2] {\n"
               "  %p = f32[2]{0} parameter(0)\n"
               "  ROOT %n = f32[2]{0} negate(f32[2]{0} %p)\n"
               "}, execution_thread=\"t\"\n\n"
               "ENTRY %e (x: f32[2]) -> f32[2] {\n"
               "  %x = f32[2]{0} parameter(0)\n"
               "  %s = ((f32[2]{0}), f32[2]{0}, s32[]) async-start(f32[2]{0} %x), "
               "async_execution_thread=\"t\", calls=%w\n"
               "  ROOT %d = f32[2]{0} async-done(((f32[2]{0}), f32[2]{0}, s32[]) %s)\n"
               "}\n");
}
