/* Literal printing in XLA's text format (xla/literal.cc ToString), expected
 * strings written out by hand from that algorithm and docs/cli.md. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "interp/io/literal.h"

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

/* Summarised printing (numpy's threshold=1000, edgeitems=3), expected text
 * written by hand from docs/cli.md 'Printing the result'. */
static char *print_summarised(const LiteralNode *node) {
  StrBuf sb;
  sb_init(&sb);
  LiteralPrintOptions opt = {.print_shape = true, .summarise = true};
  literal_print_with(&sb, node, &opt);
  return sb_take(&sb);
}

Test(literal, summary_threshold_rank1) {
  static int32_t v[1001];
  for (int i = 0; i < 1001; i++) v[i] = i;
  int64_t d = 1000;
  LiteralNode n = {.etype = ET_S32, .rank = 1, .dims = &d, .data = v};
  char *s = print_summarised(&n);
  cr_expect(strstr(s, "997, 998, 999}") && strstr(s, "{0, 1, 2, 3, 4,"), "1000 print whole");
  free(s);
  d = 1001;
  s = print_summarised(&n);
  cr_expect_str_eq(s, "s32[1001] {0, 1, 2, ..., 998, 999, 1000}");
  free(s);
}

Test(literal, summary_dynamic_uses_runtime_sizes) {
  static float v[2000];
  for (int i = 0; i < 2000; i++) v[i] = (float)i / 2;
  int64_t sizes[1] = {1001}, bounds[1] = {2000};
  bool dyn[1] = {true};
  LiteralNode n = {ET_F32, 1, sizes, v, 0, NULL, bounds, dyn};
  char *s = print_summarised(&n);
  cr_expect_str_eq(s, "f32[<=2000](1001) {0, 0.5, 1, ..., 499, 499.5, 500}");
  free(s);
  sizes[0] = 4; /* bound 2000, but only 4 elements: whole */
  s = print_summarised(&n);
  cr_expect_str_eq(s, "f32[<=2000](4) {0, 0.5, 1, 1.5}");
  free(s);
}

Test(literal, summary_empty_and_pred_scalar) {
  int64_t d[2] = {0, 5000};
  LiteralNode n = {.etype = ET_F32, .rank = 2, .dims = d, .data = NULL};
  char *s = print_summarised(&n);
  cr_expect_str_eq(s, "f32[0,5000] {\n\n}");
  free(s);
  uint8_t p = 1;
  LiteralNode q = {.etype = ET_PRED, .rank = 0, .data = &p};
  s = print_summarised(&q);
  cr_expect_str_eq(s, "pred[] true");
  free(s);
}

Test(literal, summary_rank3_elided_blocks) {
  static int32_t v[7 * 7 * 21];
  for (int i = 0; i < 7 * 7 * 21; i++) v[i] = i;
  int64_t d[3] = {7, 7, 21}; /* 1029 elements */
  LiteralNode n = {.etype = ET_S32, .rank = 3, .dims = d, .data = v};
  char *s = print_summarised(&n);
  /* block 0 in full form, then the "..." line between blocks 2 and 4 */
  cr_expect(strncmp(s,
                    "s32[7,7,21] {\n{\n  { 0, 1, 2, ..., 18, 19, 20 },\n"
                    "  { 21, 22, 23, ..., 39, 40, 41 },\n  { 42, 43, 44, ..., 60, 61, 62 },\n"
                    "  ...,\n  { 84, 85, 86, ..., 102, 103, 104 },\n",
                    150) == 0,
            "%s", s);
  cr_expect(strstr(s, "\n},\n...,\n{\n  { 588, 589, 590, ...") != NULL, "%s", s);
  cr_expect(strstr(s, "{ 1008, 1009, 1010, ..., 1026, 1027, 1028 }\n}\n}") != NULL, "%s", s);
  free(s);
}

/* The flush callback sees all the text, in order, in pieces. */
static void collect(void *ctx, StrBuf *sb) {
  sb_append((StrBuf *)ctx, sb->data, sb->len);
  sb->len = 0;
}

Test(literal, flush_streams_the_same_text) {
  enum { N = 300000 };
  float *v = malloc(N * sizeof *v);
  cr_assert(v);
  for (int i = 0; i < N; i++) v[i] = (float)i * 0.37f;
  int64_t d[2] = {N / 100, 100};
  LiteralNode n = {.etype = ET_F32, .rank = 2, .dims = d, .data = v};
  StrBuf whole, streamed, rest;
  sb_init(&whole);
  sb_init(&streamed);
  sb_init(&rest);
  literal_print(&whole, &n, true);
  LiteralPrintOptions opt = {.print_shape = true, .flush = collect, .flush_ctx = &streamed};
  literal_print_with(&rest, &n, &opt);
  cr_expect(streamed.len > 0, "flushed at least once");
  sb_append(&streamed, rest.data, rest.len);
  cr_expect_eq(streamed.len, whole.len);
  cr_expect(memcmp(streamed.data, whole.data, whole.len) == 0);
  sb_free(&whole);
  sb_free(&streamed);
  sb_free(&rest);
  free(v);
}
