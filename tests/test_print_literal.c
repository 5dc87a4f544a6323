/* print_literal on literals built by hand: every brace style of XLA's
 * one-line literal printer, every element kind, tuples and elided values.
 * Expected strings are written from XLA's format (literal.cc,
 * DenseArrayPrintHelper with oneline=true). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layout/etype_convert.h"
#include "parser/print.h"

static Arena *arena;

static void setup(void) { arena = arena_new(); }
static void teardown(void) { arena_free(arena); }

TestSuite(print_literal, .init = setup, .fini = teardown);

static Shape make_shape(EType t, int rank, const int64_t *dims) {
  Shape s = {.etype = t, .rank = rank};
  if (rank) {
    s.dims = arena_alloc_array(arena, (size_t)rank, sizeof(int64_t));
    memcpy(s.dims, dims, (size_t)rank * sizeof(int64_t));
  }
  cr_assert(shape_set_default_layout(arena, &s));
  return s;
}

/* values: one double per element, stored with etype_store_float/int. */
static Literal make_literal(EType t, int rank, const int64_t *dims, const double *values) {
  Literal lit = {.shape = make_shape(t, rank, dims)};
  int64_t n;
  cr_assert(shape_element_count(&lit.shape, &n));
  int64_t stride = etype_storage_bytes(t);
  lit.nbytes = n * stride;
  lit.data = arena_alloc(arena, (size_t)(lit.nbytes ? lit.nbytes : 1));
  for (int64_t i = 0; i < n; i++) {
    unsigned char *dst = (unsigned char *)lit.data + i * stride;
    if (etype_is_float(t) || etype_is_complex(t))
      cr_assert(etype_store_float(t, values[i], dst));
    else
      cr_assert(etype_store_int(t, (int64_t)values[i], dst));
  }
  return lit;
}

static void expect_literal(const Literal *lit, const char *expected) {
  StrBuf sb;
  sb_init(&sb);
  print_literal(&sb, lit);
  char *got = sb_take(&sb);
  cr_expect_str_eq(got, expected);
  free(got);
}

Test(print_literal, scalars) {
  Literal f = make_literal(ET_F32, 0, NULL, (double[]){1.5});
  expect_literal(&f, "1.5");
  Literal i = make_literal(ET_S32, 0, NULL, (double[]){-7});
  expect_literal(&i, "-7");
  Literal p = make_literal(ET_PRED, 0, NULL, (double[]){1});
  expect_literal(&p, "true"); /* scalars print words */
  Literal q = make_literal(ET_PRED, 0, NULL, (double[]){0});
  expect_literal(&q, "false");
}

Test(print_literal, rank1) {
  Literal l = make_literal(ET_S32, 1, (int64_t[]){3}, (double[]){1, -2, 3});
  expect_literal(&l, "{1, -2, 3}");
  Literal p = make_literal(ET_PRED, 1, (int64_t[]){3}, (double[]){1, 0, 1});
  expect_literal(&p, "{1, 0, 1}"); /* arrays print 0/1 */
  Literal e = make_literal(ET_F32, 1, (int64_t[]){0}, NULL);
  expect_literal(&e, "{}");
  Literal one = make_literal(ET_F32, 1, (int64_t[]){1}, (double[]){2});
  expect_literal(&one, "{2}");
}

Test(print_literal, rank2_spacing) {
  Literal l = make_literal(ET_F32, 2, (int64_t[]){2, 2}, (double[]){1, 2, 3, 4});
  expect_literal(&l, "{ { 1, 2 }, { 3, 4 } }");
  Literal col = make_literal(ET_F32, 2, (int64_t[]){2, 1}, (double[]){1, 2});
  expect_literal(&col, "{ {1}, {2} }");
  Literal no_rows = make_literal(ET_F32, 2, (int64_t[]){0, 3}, NULL);
  expect_literal(&no_rows, "{  }");
  Literal no_cols = make_literal(ET_F32, 2, (int64_t[]){2, 0}, NULL);
  expect_literal(&no_cols, "{ {}, {} }");
}

Test(print_literal, rank3_and_rank4_index_comments) {
  Literal r3 = make_literal(ET_F32, 3, (int64_t[]){2, 1, 2}, (double[]){1, 2, 3, 4});
  expect_literal(&r3, "{ { { 1, 2 } }, { { 3, 4 } } }");
  Literal r4 = make_literal(ET_S32, 4, (int64_t[]){2, 1, 1, 2}, (double[]){1, 2, 3, 4});
  expect_literal(&r4,
                 "{ { /*i0=0*/ { /*i1=0*/ { 1, 2 } } }, { /*i0=1*/ { /*i1=0*/ { 3, 4 } } } }");
}

Test(print_literal, special_floats) {
  Literal l = make_literal(ET_F32, 1, (int64_t[]){4}, (double[]){NAN, -INFINITY, INFINITY, -0.0});
  expect_literal(&l, "{nan, -inf, inf, -0.0}"); /* "-0" would read back as +0 */
  Literal d = make_literal(ET_F64, 1, (int64_t[]){2}, (double[]){0.1, 1e10});
  expect_literal(&d, "{0.1, 10000000000}");
  Literal f = make_literal(ET_F32, 1, (int64_t[]){2}, (double[]){0.1, 3.14159274});
  expect_literal(&f, "{0.1, 3.14159274}");
}

Test(print_literal, narrow_floats) {
  Literal bf = make_literal(ET_BF16, 1, (int64_t[]){3}, (double[]){1.5, -2, 0.5});
  expect_literal(&bf, "{1.5, -2, 0.5}");
  Literal h = make_literal(ET_F16, 0, NULL, (double[]){65504});
  expect_literal(&h, "65504");
  Literal f8 = make_literal(ET_F8E4M3FN, 1, (int64_t[]){2}, (double[]){1, 448});
  expect_literal(&f8, "{1, 448}");
  Literal f8n = make_literal(ET_F8E5M2, 1, (int64_t[]){2}, (double[]){-0.5, INFINITY});
  expect_literal(&f8n, "{-0.5, inf}");
}

Test(print_literal, integers_of_every_width) {
  Literal s4 = make_literal(ET_S4, 1, (int64_t[]){2}, (double[]){-8, 7});
  expect_literal(&s4, "{-8, 7}");
  Literal u8 = make_literal(ET_U8, 1, (int64_t[]){2}, (double[]){0, 255});
  expect_literal(&u8, "{0, 255}");
  Literal u64 = {.shape = make_shape(ET_U64, 0, NULL)};
  uint64_t big = UINT64_MAX;
  u64.data = &big;
  u64.nbytes = 8;
  expect_literal(&u64, "18446744073709551615");
}

Test(print_literal, complex) {
  Literal c = {.shape = make_shape(ET_C64, 1, (int64_t[]){2})};
  float v[4] = {1, 0, 0.5f, -2};
  c.data = v;
  c.nbytes = sizeof v;
  expect_literal(&c, "{(1, 0), (0.5, -2)}");
}

Test(print_literal, tuples_and_elided) {
  Literal parts[2] = {make_literal(ET_F32, 0, NULL, (double[]){1}),
                      make_literal(ET_S32, 1, (int64_t[]){2}, (double[]){2, 3})};
  Literal t = {.shape = {.etype = ET_TUPLE, .ntuple = 2}, .ntuple = 2, .tuple = parts};
  Shape elems[2] = {parts[0].shape, parts[1].shape};
  t.shape.tuple = elems;
  expect_literal(&t, "( 1, {2, 3} )");
  Literal big = {.shape = make_shape(ET_F32, 1, (int64_t[]){1000}), .elided = true};
  expect_literal(&big, "{...}");
}
