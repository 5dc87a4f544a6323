/* The StableHLO reader on what JAX writes for big constants: a 1M-element
 * dense_resource blob and a 1M-element hex dense<"0x..."> (carried as bytes,
 * not text), and a nested dense<[...]> literal far over the old 3000-character
 * limit.  Expected values are the formula the text was generated from. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/strbuf.h"
#include "parser/mlir.h"
#include "parser/parser.h"

enum { N = 1000000 };

static float value(int i) { return (float)(i % 4096) * 0.25f - 100.0f; }

static void put_hex_f32(StrBuf *sb, int n) {
  static const char H[] = "0123456789ABCDEF";
  for (int i = 0; i < n; i++) {
    float f = value(i);
    unsigned char b[4];
    memcpy(b, &f, 4); /* little-endian host (x86-64, aarch64) */
    for (int k = 0; k < 4; k++) sb_putc(sb, H[b[k] >> 4]), sb_putc(sb, H[b[k] & 15]);
  }
}

/* Converts, parses and fills; returns the module (the caller frees). */
static Module *load(const char *text, size_t len, MlirHlo *h) {
  Diags d = {0};
  bool ok = mlir_to_hlo(text, len, h, &d);
  for (int i = 0; i < d.count; i++) cr_log_error("offset %lld: %s", (long long)d.items[i].offset, d.items[i].msg);
  cr_assert(ok, "conversion failed");
  Module *m = parse_module("t.mlir", h->text, h->len, &d);
  cr_assert_not_null(m, "HLO parse failed");
  cr_assert(mlir_fill_blobs(h, m, &d), "fill failed");
  diags_free(&d);
  return m;
}

static const float *root_constant(Module *m) {
  Instr *r = m->entry->root;
  cr_assert_eq(r->op, OP_CONSTANT);
  cr_assert_eq(r->literal->nbytes, (int64_t)N * 4);
  return r->literal->data;
}

static void check_values(const float *v) {
  static const int at[] = {0, 1, 4095, 4096, 123457, N - 1};
  for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
    cr_assert_eq(v[at[k]], value(at[k]), "element %d: %g, want %g", at[k], v[at[k]], value(at[k]));
}

Test(mlir_jax, dense_resource_million_elements) {
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "module {\n  func.func public @main() -> tensor<%dxf32> {\n"
                 "    %%w = stablehlo.constant dense_resource<weights> : tensor<%dxf32>\n"
                 "    return %%w : tensor<%dxf32>\n  }\n}\n{-#\n  dialect_resources: {\n    builtin: {\n"
                 "      weights: \"0x04000000", N, N, N);
  put_hex_f32(&sb, N);
  sb_puts(&sb, "\"\n    }\n  }\n#-}\n");
  cr_assert(!sb.oom);
  clock_t t0 = clock();
  MlirHlo h;
  Module *m = load(sb.data, sb.len, &h);
  double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
  check_values(root_constant(m));
  cr_assert_lt(h.len, 1000, "the constant went through text (%zu bytes of HLO)", h.len);
  cr_log_info("1M-element dense_resource: %.3f s CPU", s);
  module_free(m);
  mlir_hlo_free(&h);
  sb_free(&sb);
}

Test(mlir_jax, hex_dense_million_elements) {
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "func.func @main() -> tensor<%dxf32> {\n  %%w = stablehlo.constant dense<\"0x", N);
  put_hex_f32(&sb, N);
  sb_printf(&sb, "\"> : tensor<%dxf32>\n  return %%w : tensor<%dxf32>\n}\n", N, N);
  MlirHlo h;
  Module *m = load(sb.data, sb.len, &h);
  check_values(root_constant(m));
  module_free(m);
  mlir_hlo_free(&h);
  sb_free(&sb);
}

/* A nested literal of 20000 elements (over 100 kB of text) still goes
 * through HLO literal text, exactly. */
Test(mlir_jax, long_nested_literal) {
  enum { R = 100, C = 200 };
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "func.func @main() -> tensor<%dx%dxf32> {\n  %%w = stablehlo.constant dense<[", R, C);
  for (int r = 0; r < R; r++) {
    sb_printf(&sb, "%s[", r ? ", " : "");
    for (int c = 0; c < C; c++) sb_printf(&sb, "%s%.9g", c ? ", " : "", (double)value(r * C + c));
    sb_putc(&sb, ']');
  }
  sb_printf(&sb, "]> : tensor<%dx%dxf32>\n  return %%w : tensor<%dx%dxf32>\n}\n", R, C, R, C);
  MlirHlo h;
  Module *m = load(sb.data, sb.len, &h);
  const float *v = m->entry->root->literal->data;
  for (int i = 0; i < R * C; i++) cr_assert_eq(v[i], value(i), "element %d", i);
  module_free(m);
  mlir_hlo_free(&h);
  sb_free(&sb);
}

/* Bad blobs: a positioned error, never a crash. */
static void fails(const char *text, const char *frag) {
  Diags d = {0};
  MlirHlo h;
  cr_assert(!mlir_to_hlo(text, strlen(text), &h, &d), "converted: %s", text);
  cr_assert_gt(d.count, 0);
  cr_assert(strstr(d.items[0].msg, frag), "'%s' lacks '%s'", d.items[0].msg, frag);
  diags_free(&d);
}

Test(mlir_jax, bad_resources) {
  const char *pre = "func.func @main() -> tensor<2xf32> {\n  %w = stablehlo.constant dense_resource<b> : tensor<2xf32>\n"
                    "  return %w : tensor<2xf32>\n}\n";
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", pre);
  fails(buf, "no such blob");
  snprintf(buf, sizeof buf, "%s{-# dialect_resources: { builtin: { b: \"0x0400000000000000\" } } #-}", pre);
  fails(buf, "has 4 bytes of data; f32 needs 8");
  snprintf(buf, sizeof buf, "%s{-# dialect_resources: { builtin: { b: \"0x0400\" } } #-}", pre);
  fails(buf, "too short");
  snprintf(buf, sizeof buf, "%s{-# dialect_resources: { builtin: { b: \"0x040000000000000000000Z00\" } } #-}", pre);
  fails(buf, "not a hexadecimal digit");
  snprintf(buf, sizeof buf, "%s{-# dialect_resources: { builtin: { b: \"0x04\", b: \"0x04\" } } #-}", pre);
  fails(buf, "defined twice");
  snprintf(buf, sizeof buf, "%s{-# dialect_resources: { builtin: { b: \"0x04000000", pre);
  fails(buf, "unterminated");
  fails("func.func @main() -> tensor<2xf32> {\n  %w = stablehlo.constant dense_resource<__elided__> : tensor<2xf32>\n"
        "  return %w : tensor<2xf32>\n}\n",
        "elided");
}

/* mlir_loc_of: the op's trailing loc(...) resolved to FILE:LINE:COL. */
static void loc_is(const char *text, const char *at, const char *want) {
  char buf[256];
  const char *p = strstr(text, at);
  cr_assert_not_null(p, "%s not in the text", at);
  bool ok = mlir_loc_of(text, strlen(text), p - text, buf, sizeof buf);
  if (!want) cr_assert(!ok, "resolved to %s: %s", buf, text);
  else cr_assert(ok && strcmp(buf, want) == 0, "got %s, want %s: %s", ok ? buf : "nothing", want, text);
}

Test(mlir_jax, locations) {
  loc_is("%0 = stablehlo.add %a, %b : tensor<f32> loc(\"f.py\":3:4)\n", "%0", "f.py:3:4");
  loc_is("%0 = stablehlo.add %a, %b : tensor<f32> loc(\"jit(f)/add\"(\"/h/f.py\":12:8))\n", "%0", "/h/f.py:12:8");
  /* callsite: the callee, or the caller when the callee has no file */
  loc_is("%0 = stablehlo.add %a loc(callsite(\"a.py\":1:2 at \"b.py\":3:4))\n", "%0", "a.py:1:2");
  loc_is("%0 = stablehlo.add %a loc(callsite(\"name\" at \"b.py\":3:4))\n", "%0", "b.py:3:4");
  loc_is("%0 = stablehlo.add %a loc(fused<\"meta\">[unknown, \"x\"(\"c.py\":5:6)])\n", "%0", "c.py:5:6");
  /* aliases, defined before or after; a cycle resolves to nothing */
  loc_is("#l1 = loc(\"d.py\":7:1)\n%0 = stablehlo.add %a loc(#l2)\n#l2 = loc(\"n\"(#l1))\n", "%0", "d.py:7:1");
  loc_is("%0 = stablehlo.add %a loc(#l1)\n#l1 = loc(#l2)\n#l2 = loc(#l1)\n", "%0", NULL);
  loc_is("%0 = stablehlo.add %a loc(unknown)\n", "%0", NULL);
  loc_is("%0 = stablehlo.add %a\n%1 = stablehlo.add %a loc(\"e.py\":1:1)\n", "%0", NULL);
  /* an op with a region: the loc after its closing brace, not the inner ops' */
  loc_is("%0 = \"stablehlo.reduce\"(%a) ({\n  ^bb0(%x: tensor<f32> loc(\"in.py\":1:1)):\n"
         "  stablehlo.return %x : tensor<f32> loc(\"in.py\":2:2)\n}) : (tensor<f32>) -> tensor<f32> loc(\"out.py\":9:9)\n",
         "%0", "out.py:9:9");
  /* an offset inside the op (an operand) */
  loc_is("%0 = \"stablehlo.add\"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(\"g.py\":4:4)\n", "%b", "g.py:4:4");
  loc_is("loc(\"unterminated", "loc", NULL);
}

Test(mlir_jax, no_location_for_alias_lines) {
  loc_is("#loc1 = loc(\"f.py\":1:2)\nmodule {\n}\n", "#loc1", NULL);
}
