/* The typed-FFI attribute reader (interp/custom_call/ffi_attrs.h): each kind
 * of value with the data type XLA gives it, MLIR's defaults, the byte values
 * of edge numbers, name order, nesting, and refusals with their offsets. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "interp/custom_call/ffi_attrs.h"

static Arena *arena;

static void setup(void) { arena = arena_new(); }
static void teardown(void) { arena_free(arena); }

TestSuite(ffi_attrs, .init = setup, .fini = teardown);

static XLA_FFI_Attrs parse_ok(const char *s) {
  XLA_FFI_Attrs a;
  Error err = {0};
  cr_assert(ffi_attrs_parse(s, strlen(s), arena, 0, &a, &err), "%s: %s", s, err.msg);
  cr_assert_eq(a.struct_size, XLA_FFI_Attrs_STRUCT_SIZE);
  return a;
}

static void parse_bad(const char *s, int64_t at, const char *why) {
  XLA_FFI_Attrs a;
  Error err = {0};
  cr_assert_not(ffi_attrs_parse(s, strlen(s), arena, 100, &a, &err), "accepted: %s", s);
  cr_assert_eq(err.kind, ERR_INVALID);
  cr_assert_eq(err.offset, 100 + at, "%s: offset %lld, not %lld (%s)", s,
               (long long)err.offset - 100, (long long)at, err.msg);
  cr_assert(strstr(err.msg, why), "%s: message \"%s\" lacks \"%s\"", s, err.msg, why);
}

static int find(const XLA_FFI_Attrs *a, const char *name) {
  for (int64_t i = 0; i < a->size; i++)
    if (a->names[i]->len == strlen(name) && memcmp(a->names[i]->ptr, name, strlen(name)) == 0)
      return (int)i;
  cr_assert_fail("no attribute %s", name);
  return -1;
}

static const XLA_FFI_Scalar *scalar(const XLA_FFI_Attrs *a, const char *name,
                                    XLA_FFI_DataType t) {
  int i = find(a, name);
  cr_assert_eq(a->types[i], XLA_FFI_AttrType_SCALAR, "%s", name);
  const XLA_FFI_Scalar *s = a->attrs[i];
  cr_assert_eq(s->dtype, t, "%s: dtype %d, not %d", name, s->dtype, t);
  return s;
}

Test(ffi_attrs, empty_text_and_empty_dictionary) {
  cr_assert_eq(parse_ok("").size, 0);
  cr_assert_eq(parse_ok("  {  }  ").size, 0);
}

Test(ffi_attrs, integer_types_as_xla_gives_them) {
  XLA_FFI_Attrs a = parse_ok("{a = -128 : i8, b = 65535 : ui16, c = -2147483648 : i32, "
                             "d = 18446744073709551615 : ui64, e = 7, f = 255 : i8, "
                             "g = 1 : i1, h = -5 : si16}");
  cr_assert_eq(*(int8_t *)scalar(&a, "a", XLA_FFI_DataType_S8)->value, -128);
  cr_assert_eq(*(uint16_t *)scalar(&a, "b", XLA_FFI_DataType_U16)->value, 65535);
  cr_assert_eq(*(int32_t *)scalar(&a, "c", XLA_FFI_DataType_S32)->value, INT32_MIN);
  cr_assert_eq(*(uint64_t *)scalar(&a, "d", XLA_FFI_DataType_U64)->value, UINT64_MAX);
  /* no type: MLIR's i64 */
  cr_assert_eq(*(int64_t *)scalar(&a, "e", XLA_FFI_DataType_S64)->value, 7);
  /* signless i8 holds 255 as the bits 0xff (MLIR's APInt), read as -1 */
  cr_assert_eq(*(int8_t *)scalar(&a, "f", XLA_FFI_DataType_S8)->value, -1);
  cr_assert_eq(*(uint8_t *)scalar(&a, "g", XLA_FFI_DataType_PRED)->value, 1);
  cr_assert_eq(*(int16_t *)scalar(&a, "h", XLA_FFI_DataType_S16)->value, -5);
}

Test(ffi_attrs, floats_bools_and_bit_patterns) {
  XLA_FFI_Attrs a = parse_ok("{x = 2.500000e-01 : f32, y = -1.5, z = 3 : f64, "
                             "n = 0x7FC00000 : f32, i = 0xFFF0000000000000 : f64, "
                             "t = true, f = false}");
  cr_assert_eq(*(float *)scalar(&a, "x", XLA_FFI_DataType_F32)->value, 0.25f);
  cr_assert_eq(*(double *)scalar(&a, "y", XLA_FFI_DataType_F64)->value, -1.5);
  cr_assert_eq(*(double *)scalar(&a, "z", XLA_FFI_DataType_F64)->value, 3.0);
  cr_assert(isnan(*(float *)scalar(&a, "n", XLA_FFI_DataType_F32)->value));
  double inf = *(double *)scalar(&a, "i", XLA_FFI_DataType_F64)->value;
  cr_assert(isinf(inf) && inf < 0);
  cr_assert_eq(*(uint8_t *)scalar(&a, "t", XLA_FFI_DataType_PRED)->value, 1);
  cr_assert_eq(*(uint8_t *)scalar(&a, "f", XLA_FFI_DataType_PRED)->value, 0);
}

Test(ffi_attrs, strings_with_escapes) {
  XLA_FFI_Attrs a = parse_ok("{s = \"a\\\"b\\\\c\\n\\0Ad\", e = \"\"}");
  const XLA_FFI_ByteSpan *s = a.attrs[find(&a, "s")];
  cr_assert_eq(a.types[find(&a, "s")], XLA_FFI_AttrType_STRING);
  /* a " b \ c newline newline(\0A) d */
  cr_assert_eq(s->len, 8);
  cr_assert(memcmp(s->ptr, "a\"b\\c\n\nd", 8) == 0);
  cr_assert_eq(((const XLA_FFI_ByteSpan *)a.attrs[find(&a, "e")])->len, 0);
}

Test(ffi_attrs, arrays) {
  XLA_FFI_Attrs a = parse_ok("{v = array<i64: 1, -2, 3>, w = array<f32: 5.000000e-01>, "
                             "u = array<i32>, b = array<i8: 127, -128>}");
  const XLA_FFI_Array *v = a.attrs[find(&a, "v")];
  cr_assert_eq(a.types[find(&a, "v")], XLA_FFI_AttrType_ARRAY);
  cr_assert_eq(v->dtype, XLA_FFI_DataType_S64);
  cr_assert_eq(v->size, 3);
  cr_assert_eq(((int64_t *)v->data)[1], -2);
  const XLA_FFI_Array *w = a.attrs[find(&a, "w")];
  cr_assert_eq(w->dtype, XLA_FFI_DataType_F32);
  cr_assert_eq(((float *)w->data)[0], 0.5f);
  cr_assert_eq(((const XLA_FFI_Array *)a.attrs[find(&a, "u")])->size, 0);
  const XLA_FFI_Array *b = a.attrs[find(&a, "b")];
  cr_assert_eq(((int8_t *)b->data)[1], -128);
}

Test(ffi_attrs, sorted_by_name_and_nested) {
  XLA_FFI_Attrs a = parse_ok("{zeta = 1, \"a b\" = 2, alpha = {y = 1, x = {deep = \"d\"}}, "
                             "Beta = 3}");
  const char *order[] = {"Beta", "a b", "alpha", "zeta"}; /* byte order */
  cr_assert_eq(a.size, 4);
  for (int i = 0; i < 4; i++)
    cr_assert(a.names[i]->len == strlen(order[i]) &&
                  memcmp(a.names[i]->ptr, order[i], strlen(order[i])) == 0,
              "name %d is %.*s", i, (int)a.names[i]->len, a.names[i]->ptr);
  const XLA_FFI_Attrs *d = a.attrs[2];
  cr_assert_eq(a.types[2], XLA_FFI_AttrType_DICTIONARY);
  cr_assert_eq(d->size, 2);
  cr_assert(d->names[0]->ptr[0] == 'x' && d->names[1]->ptr[0] == 'y');
  cr_assert_eq(d->types[0], XLA_FFI_AttrType_DICTIONARY);
}

Test(ffi_attrs, refusals_say_why_and_where) {
  parse_bad("{a = 1 : f16}", 9, "type 'f16'");
  parse_bad("{a = dense<1> : tensor<i32>}", 5, "dense<...>");
  parse_bad("{a = 256 : ui8}", 5, "out of range");
  parse_bad("{a = -1 : ui32}", 5, "out of range");
  parse_bad("{a = -129 : i8}", 5, "out of range");
  parse_bad("{a = 1.5 : i32}", 5, "a float where the type is an integer");
  parse_bad("{a = array<i8: 1, 300>}", 18, "out of range");
  parse_bad("{a = 1, a = 2}", 14, "given twice");
  parse_bad("{a}", 2, "'=' after the attribute name");
  parse_bad("{a = array<i1: true>}", 11, "arrays of i1");
  parse_bad("{a = \"open", 10, "unterminated");
  parse_bad("{a = 1", 6, "',' or '}'");
  parse_bad("{a = 1} x", 8, "after the dictionary");
  parse_bad("{a = #mhlo.x}", 5, "dialect attributes");
}

Test(ffi_attrs, nesting_is_bounded) {
  char deep[256] = ""; /* 40 x 5 bytes and the NUL */
  for (int i = 0; i < 40; i++) strcat(deep, "{a = ");
  parse_bad(deep, 165, "nested too deep");
}
