/* Literal printing in XLA's text format (xla/literal.cc ToString), expected
 * strings written out by hand from that algorithm and docs/cli.md. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "interp/literal.h"

static void expect_array(EType t, int rank, const int64_t *dims, const void *data, const char *want) {
  StrBuf sb;
  sb_init(&sb);
  literal_print_array(&sb, t, rank, dims, data, true);
  cr_expect_str_eq(sb.data, want);
  sb_free(&sb);
}

Test(literal, rank2_as_cli_md) {
  float v[6] = {1, 2, 3, 4, 5, 6};
  int64_t d[2] = {2, 3};
  expect_array(ET_F32, 2, d, v, "f32[2,3] {\n  { 1, 2, 3 },\n  { 4, 5, 6 }\n}");
}

Test(literal, rank0_rank1_pred) {
  float s = 1.5f;
  expect_array(ET_F32, 0, NULL, &s, "f32[] 1.5");
  int32_t v[3] = {1, -2, 3};
  int64_t d = 3;
  expect_array(ET_S32, 1, &d, v, "s32[3] {1, -2, 3}");
  uint8_t p = 1;
  expect_array(ET_PRED, 0, NULL, &p, "pred[] true");
  uint8_t pv[3] = {1, 0, 1};
  expect_array(ET_PRED, 1, &d, pv, "pred[3] {1, 0, 1}");
  float c[4] = {1, 0, 0.5f, -2};
  int64_t d2 = 2;
  expect_array(ET_C64, 1, &d2, c, "c64[2] {(1, 0), (0.5, -2)}");
}

Test(literal, empty_and_unit_dims) {
  int64_t d0 = 0;
  expect_array(ET_F32, 1, &d0, NULL, "f32[0] {}");
  int64_t d03[2] = {0, 3};
  expect_array(ET_F32, 2, d03, NULL, "f32[0,3] {\n\n}");
  int64_t d20[2] = {2, 0};
  expect_array(ET_F32, 2, d20, NULL, "f32[2,0] {\n  {},\n  {}\n}");
  int64_t d21[2] = {2, 1};
  float v[2] = {7, 8};
  expect_array(ET_F32, 2, d21, v, "f32[2,1] {\n  {7},\n  {8}\n}");
}

Test(literal, rank3_and_rank4) {
  int64_t d3[3] = {2, 1, 2};
  int32_t v[4] = {1, 2, 3, 4};
  expect_array(ET_S32, 3, d3, v, "s32[2,1,2] {\n{\n  { 1, 2 }\n},\n{\n  { 3, 4 }\n}\n}");
  int64_t d4[4] = {1, 2, 1, 1};
  int32_t w[2] = {5, 6};
  expect_array(ET_S32, 4, d4, w,
               "s32[1,2,1,1] {\n{ /*i0=0*/\n{ /*i1=0*/\n  {5}\n},\n{ /*i1=1*/\n  {6}\n}\n}\n}");
}

Test(literal, tuples_and_tokens) {
  float a = 1;
  int32_t b[2] = {2, 3};
  int64_t d = 2;
  LiteralNode leaves[3] = {
      {.etype = ET_F32, .rank = 0, .data = &a},
      {.etype = ET_S32, .rank = 1, .dims = &d, .data = b},
      {.etype = ET_TOKEN},
  };
  LiteralNode t = {.etype = ET_TUPLE, .count = 3, .elems = leaves};
  StrBuf sb;
  sb_init(&sb);
  literal_print(&sb, &t, true);
  cr_expect_str_eq(sb.data, "(\nf32[] 1,\ns32[2] {2, 3},\ntoken\n)");
  sb_free(&sb);
}
