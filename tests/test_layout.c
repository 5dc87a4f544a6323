/* Layout engine: every worked example of docs/layout.md section 4 and the
 * seeds (tiled-layout, shapes-and-layout), then property tests over random
 * shapes and layouts.  Expected numbers are derived by hand from the docs
 * (closed formulas written out here), never taken from the engine. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"
#include "parser/parser.h"

static Arena *arena;

static void setup(void) { arena = arena_new(); }
static void teardown(void) { arena_free(arena); }

TestSuite(layout, .init = setup, .fini = teardown);

static LayoutPlan plan_of(const char *text) {
  Shape s;
  Error err = {0};
  bool ok = parse_shape_text(text, strlen(text), arena, &s, &err);
  cr_assert(ok, "parse %s: %s (at %lld)", text, err.msg, (long long)err.offset);
  LayoutPlan p;
  ok = layout_plan_init(&p, &s, &err);
  cr_assert(ok, "plan %s: %s", text, err.msg);
  return p;
}

static int64_t offset_of(const LayoutPlan *p, const int64_t *idx) {
  int64_t off = -1;
  Error err;
  cr_assert(layout_offset_of(p, idx, &off, &err), "%s", err.msg);
  return off;
}

/* layout.md section 4 table: offset, slots, XLA LinearIndex, XLA ArraySize. */
typedef struct {
  const char *shape;
  int64_t idx[3];
  int64_t offset, slots, xla_linear, xla_slots; /* -1 = n/a */
} Row;

static const Row ROWS[] = {
    {"f32[3,5]{1,0}", {2, 3}, 13, 15, 13, 15},
    {"f32[3,5]{0,1}", {2, 3}, 11, 15, 11, 15},
    {"f32[3,5]{1,0:T(2,2)}", {2, 3}, 17, 24, 17, 24},
    {"f32[3,5]{0,1:T(2,2)}", {2, 3}, 14, 24, 14, 24},
    {"f32[2,3,5]{2,1,0:T(2,2)}", {1, 2, 3}, 41, 48, 41, 48},
    {"f32[4,8]{1,0:T(2,4)(2,1)}", {1, 2}, 5, 32, 6, 32},
    {"f32[4,8]{1,0:T(2,4)(2,1)}", {3, 5}, 27, 32, 29, 32},
    {"bf16[16,256]{1,0:T(8,128)(2,1)}", {3, 5}, 267, 4096, 389, 4096},
    {"bf16[16,256]{1,0:T(8,128)(2,1)}", {9, 130}, 3077, 4096, 3202, 4096},
    {"f32[5]{0:T(2,4)}", {4}, 8, 16, 4, 16},
    {"f32[2,3,4]{2,1,0:T(*,2,2)}", {1, 2, 3}, 23, 24, -1, -1},
    {"f32[2,3,5]{2,1,0:T(*,4,4)}", {1, 1, 4}, 48, 64, -1, -1},
};

Test(layout, worked_examples_table) {
  for (size_t i = 0; i < sizeof ROWS / sizeof *ROWS; i++) {
    const Row *r = &ROWS[i];
    LayoutPlan p = plan_of(r->shape);
    cr_expect_eq(offset_of(&p, r->idx), r->offset, "row %zu %s offset", i + 1, r->shape);
    cr_expect_eq(p.slots, r->slots, "row %zu slots", i + 1);
    int64_t lin = -1;
    bool have = layout_xla_linear_index(&p, r->idx, &lin);
    if (r->xla_linear < 0) {
      cr_expect(!have, "row %zu: XLA LinearIndex should be n/a", i + 1);
    } else {
      cr_expect(have);
      cr_expect_eq(lin, r->xla_linear, "row %zu XLA LinearIndex", i + 1);
    }
    cr_expect_eq(p.xla_array_slots, r->xla_slots, "row %zu XLA ArraySize", i + 1);
    /* and back */
    int64_t back[3] = {-1, -1, -1};
    bool pad = true;
    cr_expect(layout_index_of(&p, r->offset, back, &pad, NULL));
    cr_expect(!pad);
    for (int d = 0; d < p.rank; d++) cr_expect_eq(back[d], r->idx[d], "row %zu dim %d", i + 1, d);
    layout_plan_free(&p);
  }
}

Test(layout, byte_sizes) {
  static const struct {
    const char *shape;
    int64_t bytes;
  } T[] = {
      {"f32[3,5]{1,0}", 60},
      {"f32[3,5]{1,0:T(2,2)}", 96},
      {"f32[3,5]{1,0:T(2,2)L(32)}", 128},
      {"s4[3,5]{1,0:T(2,2)E(4)}", 12},
      {"s4[5]{0}", 5},
      {"s4[5]{0:E(4)}", 3},
      {"bf16[16,256]{1,0:T(8,128)(2,1)}", 8192},
  };
  for (size_t i = 0; i < sizeof T / sizeof *T; i++) {
    LayoutPlan p = plan_of(T[i].shape);
    cr_expect_eq(p.physical_bytes, T[i].bytes, "%s", T[i].shape);
    cr_expect_eq(p.xla_array_bytes, T[i].bytes, "%s (XLA)", T[i].shape);
    layout_plan_free(&p);
  }
  /* L only adds tail slots: 24 -> 32, offsets unchanged. */
  LayoutPlan p = plan_of("f32[3,5]{1,0:T(2,2)L(32)}");
  int64_t idx[2] = {2, 3};
  cr_expect_eq(offset_of(&p, idx), 17);
  cr_expect_eq(p.raw_slots, 24);
  bool pad = false;
  int64_t back[2];
  cr_expect(layout_index_of(&p, 30, back, &pad, NULL));
  cr_expect(pad);
  layout_plan_free(&p);
}

/* tiled-layout seed, figure 1: every slot of f32[3,5]{1,0:T(2,2)}.
 * By hand: offset = ((r/2)*3 + c/2)*4 + (r%2)*2 + c%2. */
Test(layout, seed_figure1_full_map) {
  LayoutPlan p = plan_of("f32[3,5]{1,0:T(2,2)}");
  static const int64_t expect[3][5] = {{0, 1, 4, 5, 8}, {2, 3, 6, 7, 10}, {12, 13, 16, 17, 20}};
  bool used[24] = {false};
  for (int64_t r = 0; r < 3; r++)
    for (int64_t c = 0; c < 5; c++) {
      int64_t idx[2] = {r, c};
      cr_expect_eq(offset_of(&p, idx), expect[r][c], "(%lld,%lld)", (long long)r, (long long)c);
      used[expect[r][c]] = true;
    }
  for (int64_t off = 0; off < 24; off++) {
    int64_t idx[2];
    bool pad;
    cr_assert(layout_index_of(&p, off, idx, &pad, NULL));
    cr_expect_eq(pad, !used[off], "slot %lld padding", (long long)off);
  }
  cr_expect_eq(p.slots, 24);
  cr_expect_eq(p.elements, 15);
  layout_plan_free(&p);
}

/* tiled-layout seed, figure 2: the 4x8 array tiled (2,4)(2,1). */
Test(layout, seed_figure2_grid) {
  static const int64_t grid[4][8] = {
      {0, 2, 4, 6, 8, 10, 12, 14},
      {1, 3, 5, 7, 9, 11, 13, 15},
      {16, 18, 20, 22, 24, 26, 28, 30},
      {17, 19, 21, 23, 25, 27, 29, 31},
  };
  LayoutPlan p = plan_of("f32[4,8]{1,0:T(2,4)(2,1)}");
  cr_expect_eq(p.final_rank, 6);
  static const int64_t final_dims[6] = {2, 2, 1, 4, 2, 1};
  for (int i = 0; i < 6; i++) cr_expect_eq(p.final_dims[i], final_dims[i]);
  for (int64_t r = 0; r < 4; r++)
    for (int64_t c = 0; c < 8; c++) {
      int64_t idx[2] = {r, c};
      cr_expect_eq(offset_of(&p, idx), grid[r][c]);
    }
  layout_plan_free(&p);
}

/* shapes-and-layout seed: [2x3] "a b c / d e f". */
Test(layout, seed_minor_to_major_orders) {
  const char *names = "abcdef";
  char mem[7] = {0};
  LayoutPlan p = plan_of("f32[2,3]{0,1}");
  for (int64_t r = 0; r < 2; r++)
    for (int64_t c = 0; c < 3; c++) {
      int64_t idx[2] = {r, c};
      mem[offset_of(&p, idx)] = names[r * 3 + c];
    }
  cr_expect_str_eq(mem, "adbecf");
  layout_plan_free(&p);
  p = plan_of("f32[2,3]{1,0}");
  for (int64_t r = 0; r < 2; r++)
    for (int64_t c = 0; c < 3; c++) {
      int64_t idx[2] = {r, c};
      mem[offset_of(&p, idx)] = names[r * 3 + c];
    }
  cr_expect_str_eq(mem, "abcdef");
  layout_plan_free(&p);
}

/* Seed: F32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)} is tiled like F32[112,110]
 * with T(2,3): offset = ((R/2)*37 + C/3)*6 + (R%2)*3 + C%3, 37 = ceil(110/3). */
Test(layout, seed_combined_dims) {
  LayoutPlan p = plan_of("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
  cr_expect_eq(p.slots, 56 * 37 * 6);
  int64_t idx[5];
  for (idx[0] = 0; idx[0] < 2; idx[0]++)
    for (idx[1] = 0; idx[1] < 7; idx[1]++)
      for (idx[2] = 0; idx[2] < 8; idx[2]++)
        for (idx[3] = 0; idx[3] < 11; idx[3]++)
          for (idx[4] = 0; idx[4] < 10; idx[4]++) {
            int64_t R = (idx[0] * 7 + idx[1]) * 8 + idx[2], C = idx[3] * 10 + idx[4];
            int64_t want = ((R / 2) * 37 + C / 3) * 6 + (R % 2) * 3 + C % 3;
            cr_assert_eq(offset_of(&p, idx), want);
          }
  layout_plan_free(&p);
}

/* Japanese seed's bf16 T(8,128)(2,1): pairs of rows share 32-bit words.
 * offset = ((r/8)*2 + c/128)*1024 + ((r%8)/2)*256 + (c%128)*2 + r%2. */
Test(layout, bf16_8x128_2x1) {
  LayoutPlan p = plan_of("bf16[16,256]{1,0:T(8,128)(2,1)}");
  for (int64_t r = 0; r < 16; r++)
    for (int64_t c = 0; c < 256; c++) {
      int64_t idx[2] = {r, c};
      int64_t want = ((r / 8) * 2 + c / 128) * 1024 + ((r % 8) / 2) * 256 + (c % 128) * 2 + r % 2;
      cr_assert_eq(offset_of(&p, idx), want);
    }
  cr_expect_eq(p.physical_bytes, 8192);
  layout_plan_free(&p);
  /* The Japanese seed's own example: every byte padded, nothing wasted. */
  p = plan_of("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}");
  cr_expect_eq(p.physical_bytes, (int64_t)8 * 1280 * 16384 * 2);
  cr_expect_eq(p.memory_space, 1);
  layout_plan_free(&p);
}

Test(layout, s4_packing) {
  LayoutPlan p = plan_of("s4[3,5]{1,0:T(2,2)E(4)}");
  int64_t idx[2] = {2, 3}, byte;
  int bit;
  int64_t off = offset_of(&p, idx);
  cr_expect_eq(off, 17);
  layout_byte_position(&p, off, &byte, &bit);
  cr_expect_eq(byte, 8); /* 17*4 bits = 68 = byte 8, bit 4 */
  cr_expect_eq(bit, 4);
  layout_plan_free(&p);

  /* PackIntN: element 2k in bits 0-3, 2k+1 in bits 4-7, tail zero. */
  LayoutPlan dense = plan_of("s4[5]{0}"), packed = plan_of("s4[5]{0:E(4)}");
  int8_t vals[5] = {1, -2, 3, -4, 5};
  uint8_t out[3] = {0xff, 0xff, 0xff};
  cr_assert(layout_convert(&packed, out, &dense, vals, NULL));
  cr_expect_eq(out[0], 0xE1);
  cr_expect_eq(out[1], 0xC3);
  cr_expect_eq(out[2], 0x05);
  int8_t back[5] = {0};
  cr_assert(layout_convert(&dense, back, &packed, out, NULL));
  for (int i = 0; i < 5; i++) cr_expect_eq(back[i], vals[i]);
  layout_plan_free(&dense);
  layout_plan_free(&packed);

  /* E(2): element 4k+j in bits 2j..2j+1. */
  uint8_t u[5] = {1, 2, 3, 0, 2}, pk[2];
  layout_pack_bits(pk, u, 5, 2);
  cr_expect_eq(pk[0], (uint8_t)(1 | 2 << 2 | 3 << 4 | 0 << 6));
  cr_expect_eq(pk[1], 2);
}

Test(layout, memory_space_names) {
  char buf[64];
  cr_expect_str_eq(layout_memory_space_name(0, buf, sizeof buf), "HBM (default device memory)");
  cr_expect_str_eq(layout_memory_space_name(1, buf, sizeof buf), "VMEM (alternate fast memory)");
  cr_expect_str_eq(layout_memory_space_name(5, buf, sizeof buf), "host memory");
  cr_expect_str_eq(layout_memory_space_name(3, buf, sizeof buf),
                   "memory space 3 (device-specific)");
  cr_expect_str_eq(layout_memory_space_short(0), "HBM");
  cr_expect_str_eq(layout_memory_space_short(1), "VMEM");
  cr_expect_str_eq(layout_memory_space_short(5), "host");
  cr_expect_str_eq(layout_memory_space_short(3), "device");
}

/* Later tiles can pad too; XLA's ArraySize does not see that (layout.md 2.4):
 * T(2,4) gives (2,2,2,4), then (3,1) pads the 2 to 3: 2*2*1*4*3*1 = 48. */
Test(layout, later_tile_padding_vs_xla) {
  LayoutPlan p = plan_of("f32[4,8]{1,0:T(2,4)(3,1)}");
  cr_expect_eq(p.slots, 48);
  cr_expect_eq(p.xla_array_slots, 32);
  layout_plan_free(&p);
}

static void expect_plan_error(const char *text, const char *needle) {
  Shape s;
  Error err = {0};
  if (!parse_shape_text(text, strlen(text), arena, &s, &err)) {
    cr_expect(strstr(err.msg, needle), "%s: got '%s'", text, err.msg);
    return;
  }
  LayoutPlan p;
  cr_expect(!layout_plan_init(&p, &s, &err), "%s should fail", text);
  cr_expect(strstr(err.msg, needle), "%s: got '%s'", text, err.msg);
}

Test(layout, validation_errors) {
  expect_plan_error("f32[3,5]{1,1}", "permutation");
  expect_plan_error("f32[3,5]{1}", "rank 2");
  expect_plan_error("f32[3,5]{1,0:T(0,2)}", "positive");
  expect_plan_error("f32[3,5]{1,0:T(2,*)}", "'*'");
  expect_plan_error("f32[4294967296,4294967296]", "overflows");
  expect_plan_error("f32[4611686018427387903]{0:T(4)}", "overflows");
  expect_plan_error("f32[8]{0:E(3)}", "E(3)");
  expect_plan_error("f32[?]", "unbounded");
  /* Built directly (no text): the plan validates on its own. */
  Shape s = {0};
  int64_t dims[2] = {3, 5}, m2m[2] = {0, 0}, td[2] = {2, -3};
  s.etype = ET_F32;
  s.rank = 2;
  s.dims = dims;
  s.layout.rank = 2;
  s.layout.minor_to_major = m2m;
  s.layout.tail_padding_alignment = 1;
  LayoutPlan p;
  Error err;
  cr_expect(!layout_plan_init(&p, &s, &err));
  cr_expect(strstr(err.msg, "twice"), "%s", err.msg);
  m2m[0] = 1;
  Tile t = {2, td};
  s.layout.ntiles = 1;
  s.layout.tiles = &t;
  cr_expect(!layout_plan_init(&p, &s, &err));
  cr_expect(strstr(err.msg, "positive"), "%s", err.msg);
}

/* ---------- shape text (parse_shape_text, the module grammar's shape) ---------- */

static Shape shape_ok(const char *text) {
  Shape s;
  Error err = {0};
  cr_assert(parse_shape_text(text, strlen(text), arena, &s, &err), "%s: %s (at %lld)", text,
            err.msg, (long long)err.offset);
  return s;
}

/* Rejected, with a message containing frag, pointing at byte `at`. */
static void shape_err(const char *text, const char *frag, int64_t at) {
  Shape s;
  Error err = {0};
  cr_assert(!parse_shape_text(text, strlen(text), arena, &s, &err), "%s: accepted", text);
  cr_expect_eq(err.kind, ERR_INVALID, "%s", text);
  cr_expect(strstr(err.msg, frag), "%s: got '%s'", text, err.msg);
  cr_expect_eq(err.offset, at, "%s: '%s' at %lld, want %lld", text, err.msg, (long long)err.offset,
               (long long)at);
}

static void expect_m2m(const Shape *s, int n, const int64_t *want) {
  cr_assert_eq(s->layout.rank, n);
  for (int i = 0; i < n; i++) cr_expect_eq(s->layout.minor_to_major[i], want[i], "m2m[%d]", i);
}

Test(layout, shape_text_arrays_and_defaults) {
  Shape s = shape_ok("f32[3,5]");
  cr_expect_eq(s.etype, ET_F32);
  cr_assert_eq(s.rank, 2);
  cr_expect(s.dims[0] == 3 && s.dims[1] == 5);
  expect_m2m(&s, 2, (int64_t[]){1, 0}); /* the default layout */
  cr_expect_eq(s.layout.tail_padding_alignment, 1);
  s = shape_ok(" f32 [ 3 , 5 ] { 0 , 1 } ");
  expect_m2m(&s, 2, (int64_t[]){0, 1});
  s = shape_ok("f32[]");
  cr_expect_eq(s.rank, 0);
  s = shape_ok("f32[0,3]{0,1}");
  cr_expect(s.dims[0] == 0 && s.dims[1] == 3);
  s = shape_ok("f32[<=4,?]");
  cr_assert_not_null(s.dynamic);
  cr_expect(s.dynamic[0] && s.dynamic[1]);
  cr_expect_eq(s.dims[0], 4);
  cr_expect_eq(s.dims[1], SHAPE_DIM_UNBOUNDED);
  s = shape_ok("token[]");
  cr_expect_eq(s.etype, ET_TOKEN);
  /* The text need not end in a NUL: only len bytes are read. */
  Error err = {0};
  cr_assert(parse_shape_text("s8[7]junk", 5, arena, &s, &err), "%s", err.msg);
  cr_expect(s.etype == ET_S8 && s.dims[0] == 7);
}

Test(layout, shape_text_every_element_type) {
  for (int t = ET_INVALID + 1; t < ET_TUPLE; t++) {
    char text[64];
    bool no_dims = t == ET_TOKEN || t == ET_OPAQUE;
    snprintf(text, sizeof text, "%s[%s]", etype_name((EType)t), no_dims ? "" : "2");
    Shape s = shape_ok(text);
    cr_expect_eq(s.etype, (EType)t, "%s", text);
    cr_expect_eq(s.rank, no_dims ? 0 : 1, "%s", text);
  }
}

Test(layout, shape_text_tuples_and_buffers) {
  Shape s = shape_ok("(f32[3], s32[])");
  cr_expect_eq(s.etype, ET_TUPLE);
  cr_assert_eq(s.ntuple, 2);
  cr_expect(s.tuple[0].etype == ET_F32 && s.tuple[1].etype == ET_S32);
  s = shape_ok("()");
  cr_expect(s.etype == ET_TUPLE && s.ntuple == 0);
  s = shape_ok("((f32[1]{0}), pred[])");
  cr_assert_eq(s.ntuple, 2);
  cr_expect(s.tuple[0].etype == ET_TUPLE && s.tuple[0].ntuple == 1);
  s = shape_ok("b(f32[4])");
  cr_expect(s.etype == ET_BUFFER && s.ntuple == 1 && s.tuple[0].dims[0] == 4);
}

Test(layout, shape_text_every_suffix) {
  Shape s = shape_ok("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}");
  expect_m2m(&s, 4, (int64_t[]){3, 2, 0, 1});
  cr_assert_eq(s.layout.ntiles, 2);
  cr_expect(s.layout.tiles[0].rank == 2 && s.layout.tiles[0].dims[1] == 128);
  cr_expect(s.layout.tiles[1].dims[0] == 2 && s.layout.tiles[1].dims[1] == 1);
  cr_expect_eq(s.layout.memory_space, 1);
  s = shape_ok("f32[2,3,4]{2,1,0:T(*,2,2)}");
  cr_expect_eq(s.layout.tiles[0].dims[0], TILE_DIM_COMBINE);
  s = shape_ok("s4[8]{0:E(4)}");
  cr_expect_eq(s.layout.element_size_bits, 4);
  s = shape_ok("f32[8]{0:D(C+~)L(32)#(u16)*(u32)E(32)S(2)M(8)}");
  cr_expect_eq(s.layout.tail_padding_alignment, 32);
  cr_expect_eq(s.layout.index_type, ET_U16);
  cr_expect_eq(s.layout.pointer_type, ET_U32);
  cr_expect_eq(s.layout.element_size_bits, 32);
  cr_expect_eq(s.layout.memory_space, 2);
  cr_expect_eq(s.layout.dynamic_metadata_bytes, 8);
  /* SC(d:...): physical dimension d of {1,0} is logical dimension
   * m2m[rank-1-d]: SC(0:..) splits the 8, SC(1:..) the 16. */
  s = shape_ok("f32[8,16]{1,0:SC(0:4)(1:2,6)}");
  cr_assert_eq(s.layout.nsplits, 2);
  cr_expect(s.layout.splits[0].dimension == 0 && s.layout.splits[0].indices[0] == 4);
  cr_expect(s.layout.splits[1].nindices == 2 && s.layout.splits[1].indices[1] == 6);
  s = shape_ok("f32[]{:S(1)}");
  cr_expect_eq(s.layout.memory_space, 1);
}

Test(layout, shape_text_errors_point_at_their_token) {
  shape_err("", "unexpected end of file", 0);
  shape_err("f32[3;5]", "unexpected character ';'", 5);
  shape_err("f32[3] x", "unexpected identifier", 7);
  shape_err("f32[3,5]{1,0", "unexpected end of file", 12);
  shape_err("f33[3]", "unknown element type 'f33'", 0);
  shape_err("f32[-1]", "dimension size must be non-negative", 4);
  shape_err("token[3]", "token shapes have no dimensions", 0);
  shape_err("token[]{:S(1)}", "token has no layout", 7);
  shape_err("f32[3]{}", "'{}' is not a layout", 6);
  shape_err("f32[3,5]{1,1}", "dimension 1 appears twice in minor_to_major", 11);
  shape_err("f32[3,5]{2,0}", "entry 2 is not a dimension of this rank-2 shape", 9);
  shape_err("f32[3,5]{0:T(2,2)}", "1 minor_to_major entry, but the shape has rank 2", 8);
  shape_err("f32[3,5]{1,0:T(2,*)}", "'*' ends the tile", 17);
  shape_err("f32[3,5]{1,0:T(2,0)}", "tile size 0 is invalid", 17);
  shape_err("f32[3,5]{1,0:T(-2,2)}", "tile size -2 is invalid", 15);
  shape_err("s4[8]{0:E(3)}", "E(3) is too small for s4", 10);
  shape_err("s8[8]{0:E(12)}", "E(12) is not a sensible element size", 10);
  shape_err("f32[3,5]{1,0:S(1)T(2,2)}", "'T' must come before 'S'", 17);
  shape_err("f32[16]{0:S(1)S(1)}", "layout suffix 'S' appears twice", 14);
  shape_err("f32[3]{0:D(X)}", "unknown dimension level type 'X'", 11);
  shape_err("f32[3]{0:Q(1)}", "unknown layout suffix 'Q'", 9);
  shape_err("f32[16]{0:#(s16)}", "must name an unsigned integer type", 10);
  shape_err("f32[8]{0:T(4)P(f32[8]{0})}", "physical shape P(...), but the array is not sparse", 13);
  shape_err("f32[8,16]{1,0:SC(0:4,2)}", "split index 2 must be increasing", 17);
  shape_err("f32[8,16]{1,0:SC(1:2)(0:4)}", "increasing dimensions", 22);
  shape_err("f32[8,16]{1,0:SC(2:4)}", "physical dimension 2 of a rank-2 shape", 17);
  shape_err("f32[4294967296,4294967296]", "the number of elements overflows int64", 15);
  char many[256] = "f32[";
  for (int i = 0; i < SHAPE_MAX_RANK + 1; i++) strcat(many, i ? ",1" : "1");
  strcat(many, "]");
  shape_err(many, "too many dimensions: at most 64 are supported", 4 + 2 * SHAPE_MAX_RANK);
  /* A NUL inside the text is an error, not its end. */
  Shape s;
  Error err = {0};
  cr_expect(!parse_shape_text("f32[3]\0", 7, arena, &s, &err));
  cr_expect(strstr(err.msg, "NUL byte"), "%s", err.msg);
}

/* ---------- property tests ---------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33) % n;
}

/* A random array shape with a random layout, built in the arena. */
static Shape *random_shape(EType et, int max_levels) {
  Shape *s = arena_alloc(arena, sizeof *s);
  s->etype = et;
  s->rank = (int)rnd(7);
  s->dims = arena_alloc_array(arena, (size_t)s->rank + 1, sizeof(int64_t));
  for (int i = 0; i < s->rank; i++) s->dims[i] = rnd(10) == 0 ? 0 : 1 + rnd(s->rank > 3 ? 4 : 7);
  shape_set_default_layout(arena, s);
  Layout *l = &s->layout;
  for (int i = s->rank - 1; i > 0; i--) { /* shuffle minor_to_major */
    int j = (int)rnd((uint32_t)i + 1);
    int64_t t = l->minor_to_major[i];
    l->minor_to_major[i] = l->minor_to_major[j];
    l->minor_to_major[j] = t;
  }
  l->ntiles = (int)rnd((uint32_t)max_levels + 1);
  l->tiles = arena_alloc_array(arena, (size_t)l->ntiles + 1, sizeof(Tile));
  for (int t = 0; t < l->ntiles; t++) {
    Tile *tile = &l->tiles[t];
    tile->rank = 1 + (int)rnd((uint32_t)s->rank + 2);
    tile->dims = arena_alloc_array(arena, (size_t)tile->rank, sizeof(int64_t));
    for (int k = 0; k < tile->rank; k++)
      tile->dims[k] = (k < tile->rank - 1 && rnd(5) == 0) ? TILE_DIM_COMBINE : 1 + rnd(4);
  }
  if (rnd(4) == 0) l->tail_padding_alignment = 1 + rnd(16);
  return s;
}

Test(layout, property_round_trip, .timeout = 120) {
  int tested = 0;
  rng_state = 12345;
  for (int iter = 0; iter < 4000; iter++) {
    Shape *s = random_shape(ET_F32, 3);
    LayoutPlan p;
    Error err;
    cr_assert(layout_plan_init(&p, s, &err), "%s: %s", shape_to_string(s), err.msg);
    if (p.slots > 20000) {
      layout_plan_free(&p);
      continue;
    }
    tested++;
    uint8_t *hit = calloc((size_t)p.slots + 1, 1);
    int64_t idx[SHAPE_MAX_RANK] = {0}, back[SHAPE_MAX_RANK];
    for (int64_t n = 0; n < p.elements; n++) {
      int64_t off = offset_of(&p, idx);
      cr_assert(off >= 0 && off < p.raw_slots, "offset %lld", (long long)off);
      cr_assert(!hit[off], "offset %lld hit twice", (long long)off);
      hit[off] = 1;
      bool pad = true;
      cr_assert(layout_index_of(&p, off, back, &pad, NULL));
      cr_assert(!pad);
      for (int d = 0; d < p.rank; d++) cr_assert_eq(back[d], idx[d]);
      for (int i = p.rank - 1; i >= 0; i--) {
        if (++idx[i] < p.dims[i]) break;
        idx[i] = 0;
      }
    }
    /* Every slot that no element claimed must read as padding, and the
     * iterator walks the same slots in order. */
    LayoutIter it;
    layout_iter_init(&it, &p);
    int64_t count = 0, elems = 0;
    while (layout_iter_next(&it)) {
      cr_assert_eq(it.offset, count);
      cr_assert_eq(it.padding, !hit[count], "%s slot %lld", shape_to_string(s), (long long)count);
      elems += !it.padding;
      count++;
    }
    cr_assert_eq(count, p.slots);
    cr_assert_eq(elems, p.elements);
    free(hit);
    layout_plan_free(&p);
  }
  cr_expect_gt(tested, 3000, "only %d cases small enough", tested);
}

/* Fills the dense buffer with distinct values and checks a conversion
 * dense -> A -> B -> dense gives them back and A's padding is zero. */
static void check_convert(const Shape *sa, const Shape *sb, size_t es) {
  LayoutPlan a, b, d;
  Shape dense = *sa;
  shape_set_default_layout(arena, &dense);
  cr_assert(layout_plan_init(&a, sa, NULL));
  cr_assert(layout_plan_init(&b, sb, NULL));
  cr_assert(layout_plan_init(&d, &dense, NULL));
  size_t n = (size_t)d.physical_bytes;
  uint8_t *src = malloc(n + 1), *back = malloc(n + 1);
  uint8_t *ba = malloc((size_t)a.physical_bytes + 1), *bb = malloc((size_t)b.physical_bytes + 1);
  for (size_t i = 0; i < n; i++) src[i] = (uint8_t)(1 + (i * 7 + i / es) % 251);
  memset(ba, 0xAA, (size_t)a.physical_bytes);
  cr_assert(layout_convert(&a, ba, &d, src, NULL));
  /* element at A's offset == dense element, padding zero */
  uint8_t *seen = calloc((size_t)a.slots + 1, 1);
  int64_t idx[SHAPE_MAX_RANK] = {0};
  for (int64_t k = 0; k < d.elements; k++) {
    int64_t off = layout_offset_unchecked(&a, idx);
    seen[off] = 1;
    cr_assert(memcmp(ba + (size_t)off * es, src + (size_t)k * es, es) == 0, "%s elem %lld",
              shape_to_string(sa), (long long)k);
    for (int i = d.rank - 1; i >= 0; i--) {
      if (++idx[i] < d.dims[i]) break;
      idx[i] = 0;
    }
  }
  for (int64_t off = 0; off < a.slots; off++)
    if (!seen[off])
      for (size_t j = 0; j < es; j++) cr_assert_eq(ba[(size_t)off * es + j], 0);
  cr_assert(layout_convert(&b, bb, &a, ba, NULL));
  cr_assert(layout_convert(&d, back, &b, bb, NULL));
  cr_assert(memcmp(src, back, n) == 0, "%s -> %s", shape_to_string(sa), shape_to_string(sb));
  free(seen);
  free(src);
  free(back);
  free(ba);
  free(bb);
  layout_plan_free(&a);
  layout_plan_free(&b);
  layout_plan_free(&d);
}

Test(layout, property_convert, .timeout = 120) {
  static const EType types[] = {ET_U8, ET_BF16, ET_F32, ET_F64, ET_C128};
  rng_state = 777;
  int tested = 0;
  for (int iter = 0; iter < 2000; iter++) {
    EType et = types[iter % 5];
    Shape *sa = random_shape(et, 3);
    Shape *sb = random_shape(et, 3);
    /* same dims for both: draw B until its rank matches, then take A's dims */
    for (int tries = 0; tries < 100 && sb->rank != sa->rank; tries++) sb = random_shape(et, 3);
    if (sb->rank != sa->rank) continue;
    memcpy(sb->dims, sa->dims, (size_t)sa->rank * sizeof(int64_t));
    LayoutPlan pa, pb;
    cr_assert(layout_plan_init(&pa, sa, NULL));
    cr_assert(layout_plan_init(&pb, sb, NULL));
    bool small = pa.slots <= 20000 && pb.slots <= 20000;
    layout_plan_free(&pa);
    layout_plan_free(&pb);
    if (!small) continue;
    check_convert(sa, sb, (size_t)etype_storage_bytes(et));
    tested++;
  }
  cr_expect_gt(tested, 1500, "only %d cases", tested);
}

Test(layout, convert_packed_subbyte) {
  rng_state = 99;
  static const struct {
    EType t;
    int bits;
  } kinds[] = {{ET_S4, 4}, {ET_U4, 4}, {ET_U2, 2}, {ET_S2, 2}, {ET_U1, 1}};
  for (int iter = 0; iter < 300; iter++) {
    EType et = kinds[iter % 5].t;
    Shape *sa = random_shape(et, 2);
    sa->layout.element_size_bits = kinds[iter % 5].bits;
    Shape dense = *sa;
    shape_set_default_layout(arena, &dense);
    LayoutPlan a, d;
    cr_assert(layout_plan_init(&a, sa, NULL));
    cr_assert(layout_plan_init(&d, &dense, NULL));
    if (a.slots > 20000) {
      layout_plan_free(&a);
      layout_plan_free(&d);
      continue;
    }
    int bits = kinds[iter % 5].bits;
    bool sign = etype_kind(et) == EK_SINT;
    uint8_t *src = malloc((size_t)d.elements + 1), *back = malloc((size_t)d.elements + 1);
    uint8_t *pk = malloc((size_t)a.physical_bytes + 1);
    for (int64_t i = 0; i < d.elements; i++) {
      unsigned v = rnd(1u << bits);
      if (sign && (v >> (bits - 1))) v |= ~((1u << bits) - 1u);
      src[i] = (uint8_t)v;
    }
    cr_assert(layout_convert(&a, pk, &d, src, NULL));
    cr_assert(layout_convert(&d, back, &a, pk, NULL));
    cr_assert(memcmp(src, back, (size_t)d.elements) == 0, "%s", shape_to_string(sa));
    free(src);
    free(back);
    free(pk);
    layout_plan_free(&a);
    layout_plan_free(&d);
  }
}
