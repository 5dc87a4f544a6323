/* infer_shape() on IR built by hand (independent of the parser): each op's
 * valid form gives the expected shape, typical wrong forms an error. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/infer.h"
#include "parser/verify.h"

static Arena *A;

static void setup(void) { A = arena_new(); }
static void teardown(void) { arena_free(A); }

/* --- a tiny shape reader: "f32[2,3]", "f32[2,3]{0,1}", "(f32[], s32[2])" --- */
static const char *read_shape(const char *p, Shape *s) {
  memset(s, 0, sizeof *s);
  while (*p == ' ') p++;
  if (*p == '(') {
    Shape elems[16];
    int n = 0;
    p++;
    while (*p != ')') {
      p = read_shape(p, &elems[n++]);
      while (*p == ',' || *p == ' ') p++;
    }
    s->etype = ET_TUPLE;
    s->ntuple = n;
    s->tuple = arena_alloc_array(A, (size_t)(n ? n : 1), sizeof(Shape));
    if (n) memcpy(s->tuple, elems, (size_t)n * sizeof(Shape));
    return p + 1;
  }
  const char *b = strchr(p, '[');
  s->etype = etype_from_name(p, (size_t)(b - p));
  cr_assert_neq(s->etype, ET_INVALID, "bad type in %s", p);
  p = b + 1;
  int64_t dims[64];
  while (*p != ']') {
    dims[s->rank++] = strtoll(p, (char **)&p, 10);
    if (*p == ',') p++;
  }
  p++;
  s->dims = arena_alloc_array(A, 64, sizeof(int64_t));
  memcpy(s->dims, dims, (size_t)s->rank * sizeof(int64_t));
  shape_set_default_layout(A, s);
  if (*p == '{') {
    p++;
    for (int i = 0; i < s->rank; i++) {
      s->layout.minor_to_major[i] = strtoll(p, (char **)&p, 10);
      if (*p == ',') p++;
    }
    p++;
  }
  return p;
}

static Shape S(const char *text) {
  Shape s;
  read_shape(text, &s);
  return s;
}

/* --- IR builders --- */
static Computation *comp(const char *name) {
  Computation *c = arena_alloc(A, sizeof *c);
  c->name = name;
  c->instrs = arena_alloc_array(A, 64, sizeof(Instr *));
  c->params = arena_alloc_array(A, 16, sizeof(Instr *));
  return c;
}

static Instr *add_instr(Computation *c, Opcode op, const char *shape, int n, Instr **ops) {
  Instr *in = arena_alloc(A, sizeof *in);
  char name[32];
  snprintf(name, sizeof name, "i%d", c->ninstrs);
  in->name = arena_strdup(A, name);
  in->op = op;
  in->shape = S(shape);
  in->noperands = n;
  in->operands = arena_alloc_array(A, (size_t)(n ? n : 1), sizeof(Instr *));
  if (n) memcpy(in->operands, ops, (size_t)n * sizeof(Instr *));
  in->attrs = arena_alloc_array(A, 16, sizeof(Attr));
  in->parent = c;
  in->index = c->ninstrs;
  c->instrs[c->ninstrs++] = in;
  c->root = in;
  return in;
}

static Instr *param(Computation *c, const char *shape) {
  Instr *p = add_instr(c, OP_PARAMETER, shape, 0, NULL);
  p->parameter_number = c->nparams;
  c->params[c->nparams++] = p;
  return p;
}

static Instr *op1(Computation *c, Opcode op, const char *shape, Instr *a) {
  return add_instr(c, op, shape, 1, &a);
}

static Instr *op2(Computation *c, Opcode op, const char *shape, Instr *a, Instr *b) {
  Instr *ops[2] = {a, b};
  return add_instr(c, op, shape, 2, ops);
}

static Attr *attr(Instr *in, AttrKey key, AttrValueKind kind) {
  Attr *a = &in->attrs[in->nattrs++];
  a->key = key;
  a->name = attr_key_name(key);
  a->kind = kind;
  a->offset = 1000 + in->nattrs;
  return a;
}

static void ints(Instr *in, AttrKey key, int n, ...) {
  Attr *a = attr(in, key, AV_INT_LIST);
  a->v.ints.n = n;
  a->v.ints.v = arena_alloc_array(A, (size_t)(n ? n : 1), sizeof(int64_t));
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) a->v.ints.v[i] = va_arg(ap, int);
  va_end(ap);
}

static void int1(Instr *in, AttrKey key, int64_t v) { attr(in, key, AV_INT)->v.i = v; }
static void callee(Instr *in, AttrKey key, Computation *c) { attr(in, key, AV_COMPUTATION)->v.comp = c; }
static void enum1(Instr *in, AttrKey key, const char *v) { attr(in, key, AV_ENUM)->v.s = v; }

/* f32 (or t) scalar add computation. */
static Computation *adder(const char *t) {
  char s[16];
  snprintf(s, sizeof s, "%s[]", t);
  Computation *c = comp("add");
  Instr *x = param(c, s), *y = param(c, s);
  op2(c, OP_ADD, s, x, y);
  return c;
}

/* --- checking --- */
static void expect_shape(const Instr *in, const char *want) {
  Shape out;
  Error err = {0};
  bool ok = infer_shape(in, A, &out, &err);
  cr_assert(ok, "%s: unexpected error: %s", opcode_name(in->op), err.msg);
  Shape w = S(want);
  cr_assert(infer_shapes_match(&out, &w, false), "%s: inferred %s, want %s", opcode_name(in->op),
            infer_shape_str(A, &out), want);
}

static void expect_error(const Instr *in, const char *substr) {
  Shape out;
  Error err = {0};
  bool ok = infer_shape(in, A, &out, &err);
  cr_assert(!ok, "%s: expected an error containing '%s', inferred %s", opcode_name(in->op), substr,
            infer_shape_str(A, &out));
  cr_assert(strstr(err.msg, substr), "%s: message '%s' lacks '%s'", opcode_name(in->op), err.msg,
            substr);
}

TestSuite(infer, .init = setup, .fini = teardown);

Test(infer, elementwise) {
  Computation *c = comp("e");
  Instr *a = param(c, "f32[2,3]"), *b = param(c, "f32[2,3]"), *i = param(c, "s32[2,3]");
  Instr *h = param(c, "bf16[2,3]"), *t = param(c, "(f32[], s32[])");
  expect_shape(op2(c, OP_ADD, "f32[2,3]", a, b), "f32[2,3]");
  expect_shape(op2(c, OP_ADD, "f32[2,3]", a, h), "f32[2,3]"); /* mixed fp: higher precision */
  expect_error(op2(c, OP_ADD, "f32[2,3]", a, i), "different element types");
  expect_error(op2(c, OP_SUBTRACT, "pred[2,3]", param(c, "pred[2,3]"), param(c, "pred[2,3]")), "arithmetic");
  expect_error(op2(c, OP_ADD, "f32[2,3]", a, param(c, "f32[3,2]")), "not compatible");
  expect_error(op1(c, OP_NEGATE, "f32[]", t), "must be an array");
  expect_shape(op1(c, OP_ABS, "f32[2]", param(c, "c64[2]")), "f32[2]");
  expect_shape(op1(c, OP_IS_FINITE, "pred[2,3]", a), "pred[2,3]");
  expect_error(op1(c, OP_SQRT, "s32[2,3]", i), "floating or complex");
  expect_shape(op1(c, OP_COPY, "(f32[], s32[])", t), "(f32[], s32[])");
  Instr *cmp = op2(c, OP_COMPARE, "pred[2,3]", a, b);
  expect_error(cmp, "missing required attribute 'direction'");
  enum1(cmp, ATTR_DIRECTION, "LT");
  expect_shape(cmp, "pred[2,3]");
  expect_shape(op2(c, OP_COMPLEX, "c64[2,3]", a, b), "c64[2,3]");
  Instr *ops[3] = {param(c, "pred[2,3]"), a, b};
  expect_shape(add_instr(c, OP_SELECT, "f32[2,3]", 3, ops), "f32[2,3]");
  Instr *cl[3] = {param(c, "f32[]"), a, param(c, "f32[]")};
  expect_shape(add_instr(c, OP_CLAMP, "f32[2,3]", 3, cl), "f32[2,3]");
  expect_error(op1(c, OP_ADD, "f32[2,3]", a), "expects 2 operands, got 1");
}

Test(infer, converts) {
  Computation *c = comp("e");
  Instr *a = param(c, "f32[2,3]");
  expect_shape(op1(c, OP_CONVERT, "s8[2,3]", a), "s8[2,3]");
  expect_shape(op1(c, OP_BITCAST_CONVERT, "u8[2,3,4]", a), "u8[2,3,4]");
  expect_shape(op1(c, OP_BITCAST_CONVERT, "f64[2]", param(c, "s32[2,2]")), "f64[2]");
  expect_error(op1(c, OP_BITCAST_CONVERT, "f64[2]", param(c, "s32[2,3]")), "bit-width ratio");
  expect_shape(op1(c, OP_BITCAST, "f32[6]", a), "f32[6]");
  expect_error(op1(c, OP_BITCAST, "f32[7]", a), "differ in size");
  Instr *rp = op1(c, OP_REDUCE_PRECISION, "f32[2,3]", a);
  int1(rp, ATTR_EXPONENT_BITS, 5);
  int1(rp, ATTR_MANTISSA_BITS, 10);
  expect_shape(rp, "f32[2,3]");
  expect_shape(op2(c, OP_STOCHASTIC_CONVERT, "bf16[2,3]", a, param(c, "u32[2,3]")), "bf16[2,3]");
}

Test(infer, shape_ops) {
  Computation *c = comp("e");
  Instr *a = param(c, "f32[2,3]");
  Instr *b = op1(c, OP_BROADCAST, "f32[4,2,3]", a);
  ints(b, ATTR_DIMENSIONS, 2, 1, 2);
  expect_shape(b, "f32[4,2,3]");
  Instr *b2 = op1(c, OP_BROADCAST, "f32[4,2,5]", a);
  ints(b2, ATTR_DIMENSIONS, 2, 1, 2);
  expect_error(b2, "does not match result dimension 2");
  Instr *t = op1(c, OP_TRANSPOSE, "f32[3,2]", a);
  ints(t, ATTR_DIMENSIONS, 2, 1, 0);
  expect_shape(t, "f32[3,2]");
  expect_shape(op1(c, OP_RESHAPE, "f32[6]", a), "f32[6]");
  expect_error(op1(c, OP_RESHAPE, "f32[5]", a), "has 6 elements");
  Instr *cat = op2(c, OP_CONCATENATE, "f32[4,3]", a, a);
  ints(cat, ATTR_DIMENSIONS, 1, 0);
  expect_shape(cat, "f32[4,3]");
  Instr *pad = op2(c, OP_PAD, "f32[2,3]", a, param(c, "f32[]"));
  Attr *pa = attr(pad, ATTR_PADDING, AV_PADDING);
  pa->v.padding.n = 2;
  pa->v.padding.dims = arena_alloc_array(A, 2, sizeof(PadDim));
  pa->v.padding.dims[1] = (PadDim){-1, 2, 1};
  expect_shape(pad, "f32[2,6]");
  Instr *sl = op1(c, OP_SLICE, "f32[1,2]", a);
  Attr *sa = attr(sl, ATTR_SLICE, AV_SLICE);
  sa->v.slice.n = 2;
  sa->v.slice.dims = arena_alloc_array(A, 2, sizeof(SliceDim));
  sa->v.slice.dims[0] = (SliceDim){1, 2, 1};
  sa->v.slice.dims[1] = (SliceDim){0, 3, 2};
  expect_shape(sl, "f32[1,2]");
  Instr *i = param(c, "s32[]");
  Instr *dso[3] = {a, i, i};
  Instr *ds = add_instr(c, OP_DYNAMIC_SLICE, "f32[1,2]", 3, dso);
  ints(ds, ATTR_DYNAMIC_SLICE_SIZES, 2, 1, 2);
  expect_shape(ds, "f32[1,2]");
  Instr *duso[4] = {a, param(c, "f32[1,2]"), i, i};
  expect_shape(add_instr(c, OP_DYNAMIC_UPDATE_SLICE, "f32[2,3]", 4, duso), "f32[2,3]");
  Instr *io = add_instr(c, OP_IOTA, "s32[4,5]", 0, NULL);
  int1(io, ATTR_IOTA_DIMENSION, 1);
  expect_shape(io, "s32[4,5]");
  Instr *gds = op1(c, OP_GET_DIMENSION_SIZE, "s32[]", a);
  ints(gds, ATTR_DIMENSIONS, 1, 1);
  expect_shape(gds, "s32[]");
}

Test(infer, reduce_family) {
  Computation *c = comp("e");
  Computation *add = adder("f32");
  Instr *a = param(c, "f32[2,3,4]"), *z = param(c, "f32[]");
  Instr *r = op2(c, OP_REDUCE, "f32[3]", a, z);
  ints(r, ATTR_DIMENSIONS, 2, 0, 2);
  callee(r, ATTR_TO_APPLY, add);
  expect_shape(r, "f32[3]");
  Instr *r2 = op2(c, OP_REDUCE, "f32[3]", a, param(c, "s32[]"));
  ints(r2, ATTR_DIMENSIONS, 2, 0, 2);
  callee(r2, ATTR_TO_APPLY, add);
  expect_error(r2, "init value 0 is s32[]");
  Instr *rw = op2(c, OP_REDUCE_WINDOW, "f32[1,1,2]", a, z);
  callee(rw, ATTR_TO_APPLY, add);
  Attr *w = attr(rw, ATTR_WINDOW, AV_WINDOW);
  w->v.window.rank = 3;
  w->v.window.dims = arena_alloc_array(A, 3, sizeof(WindowDim));
  for (int k = 0; k < 3; k++) w->v.window.dims[k] = (WindowDim){2, 2, 0, 0, 1, 1, false};
  expect_shape(rw, "f32[1,1,2]");
  Instr *tk = op1(c, OP_TOPK, "(f32[2,3,2], s32[2,3,2])", a);
  int1(tk, ATTR_K, 2);
  expect_shape(tk, "(f32[2,3,2], s32[2,3,2])");
}

Test(infer, dot_and_conv) {
  Computation *c = comp("e");
  Instr *l = param(c, "bf16[8,2,3]"), *r = param(c, "bf16[8,3,5]");
  Instr *d = op2(c, OP_DOT, "f32[8,2,5]", l, r);
  ints(d, ATTR_LHS_BATCH_DIMS, 1, 0);
  ints(d, ATTR_RHS_BATCH_DIMS, 1, 0);
  ints(d, ATTR_LHS_CONTRACTING_DIMS, 1, 2);
  ints(d, ATTR_RHS_CONTRACTING_DIMS, 1, 1);
  expect_shape(d, "f32[8,2,5]");
  Instr *x = param(c, "f32[1,5,5,2]"), *k = param(c, "f32[3,3,2,4]");
  Instr *cv = op2(c, OP_CONVOLUTION, "f32[1,3,3,4]", x, k);
  Attr *dl = attr(cv, ATTR_DIM_LABELS, AV_CONV_DIMS);
  static int64_t sp[2] = {1, 2}, ks[2] = {0, 1};
  dl->v.conv = (ConvDims){.nspatial = 2, .input_batch = 0, .input_feature = 3,
                          .input_spatial = sp, .kernel_input_feature = 2,
                          .kernel_output_feature = 3, .kernel_spatial = ks,
                          .output_batch = 0, .output_feature = 3, .output_spatial = sp,
                          .input_rank = 4, .kernel_rank = 4, .output_rank = 4,
                          .text = "b01f_01io->b01f"};
  Attr *w = attr(cv, ATTR_WINDOW, AV_WINDOW);
  w->v.window.rank = 2;
  w->v.window.dims = arena_alloc_array(A, 2, sizeof(WindowDim));
  for (int i = 0; i < 2; i++) w->v.window.dims[i] = (WindowDim){3, 2, 1, 1, 1, 1, false};
  expect_shape(cv, "f32[1,3,3,4]");
}

Test(infer, control) {
  Computation *cond = comp("cond");
  Instr *cp = param(cond, "(s32[], f32[4])");
  Instr *gi = op1(cond, OP_GET_TUPLE_ELEMENT, "s32[]", cp);
  int1(gi, ATTR_INDEX, 0);
  Instr *lt = op2(cond, OP_COMPARE, "pred[]", gi, gi);
  enum1(lt, ATTR_DIRECTION, "LT");
  Computation *body = comp("body");
  param(body, "(s32[], f32[4])");
  Computation *c = comp("e");
  Instr *init = param(c, "(s32[], f32[4])");
  Instr *w = op1(c, OP_WHILE, "(s32[], f32[4])", init);
  callee(w, ATTR_CONDITION, cond);
  callee(w, ATTR_BODY, body);
  expect_shape(w, "(s32[], f32[4])");
  Instr *g = op1(c, OP_GET_TUPLE_ELEMENT, "f32[4]", init);
  int1(g, ATTR_INDEX, 1);
  expect_shape(g, "f32[4]");
  Instr *g2 = op1(c, OP_GET_TUPLE_ELEMENT, "f32[4]", init);
  int1(g2, ATTR_INDEX, 2);
  expect_error(g2, "out of range");
  Instr *tok = add_instr(c, OP_AFTER_ALL, "token[]", 0, NULL);
  expect_shape(tok, "token[]");
  expect_shape(op2(c, OP_SEND, "(f32[4], u32[], token[])", g, tok), "(f32[4], u32[], token[])");
  expect_shape(op1(c, OP_COPY_START, "(f32[4], f32[4], u32[])", g), "(f32[4], f32[4], u32[])");
  expect_error(op1(c, OP_INFEED, "f32[4]", tok), "tuple");
}

/* scan: inputs sliced along the scan dimension (here the middle one of a
 * rank-3 input), carries passed whole; each output gets the scan dimension
 * back at the same position, carries keep their shapes. */
Test(infer, scan) {
  Computation *body = comp("body");
  Instr *x = param(body, "f32[2,4]"), *h = param(body, "s32[3]");
  Instr *o = op1(body, OP_NEGATE, "f32[2,4]", x);
  op2(body, OP_TUPLE, "(f32[2,4], s32[3])", o, h);
  Computation *c = comp("e");
  Instr *ops[2] = {param(c, "f32[2,5,4]"), param(c, "s32[3]")};
  Instr *sc = add_instr(c, OP_SCAN, "(f32[2,5,4], s32[3])", 2, ops);
  expect_error(sc, "missing required attribute 'dimensions'");
  ints(sc, ATTR_DIMENSIONS, 1, 1);
  int1(sc, ATTR_NUM_CARRIES, 1);
  callee(sc, ATTR_TO_APPLY, body);
  expect_shape(sc, "(f32[2,5,4], s32[3])");
  /* Scanning dimension 0 hands to_apply f32[5,4] slices: a mismatch. */
  Instr *sc0 = add_instr(c, OP_SCAN, "(f32[2,5,4], s32[3])", 2, ops);
  ints(sc0, ATTR_DIMENSIONS, 1, 0);
  int1(sc0, ATTR_NUM_CARRIES, 1);
  callee(sc0, ATTR_TO_APPLY, body);
  expect_error(sc0, "parameter 0 has shape f32[2,4], expected f32[5,4]");
  /* Without carries both operands are inputs; s32[3] has no dimension 1. */
  Instr *sc1 = add_instr(c, OP_SCAN, "f32[2,5,4]", 2, ops);
  ints(sc1, ATTR_DIMENSIONS, 1, 1);
  int1(sc1, ATTR_NUM_CARRIES, 0);
  callee(sc1, ATTR_TO_APPLY, body);
  expect_error(sc1, "scan dimension 1 is out of range for input 1 s32[3]");
}

/* Whole-module verification: every problem is one diagnostic. */
Test(infer, verify_module_reports) {
  Computation *c = comp("main");
  c->is_entry = true;
  Instr *a = param(c, "f32[2,3]");
  Instr *t = op1(c, OP_TRANSPOSE, "f32[2,3]", a);
  ints(t, ATTR_DIMENSIONS, 2, 1, 0);
  t->offset = 42;
  Instr *bad = param(c, "f32[2,3]{1,1}");
  bad->offset = 77;
  Module m = {.arena = A, .name = "m", .ncomps = 1, .entry = c, .replica_count = 1, .num_partitions = 1};
  m.comps = &c;
  Diags d = {0};
  cr_assert_not(verify_module(&m, &d));
  cr_assert_eq(d.count, 2);
  cr_assert_eq(d.items[0].offset, 42);
  cr_assert_str_eq(d.items[0].msg, "declared shape f32[2,3] does not match inferred shape f32[3,2]");
  cr_assert_eq(d.items[1].offset, 77);
  cr_assert(strstr(d.items[1].msg, "not a permutation"));
  diags_free(&d);
}

/* Forms XLA's verifier takes that ours once refused (hlo_verifier.cc,
 * shape_inference.cc), each with the nearest form XLA still refuses. */
Test(infer, xla_relaxations) {
  Computation *c = comp("e");
  /* dynamic-slice: a rank-1 first index is the legacy vector form, even on
   * a rank-1 operand; it allows no other index. */
  Instr *v = param(c, "f32[4]"), *i1 = param(c, "s32[1]"), *j = param(c, "s32[]");
  Instr *ds = op2(c, OP_DYNAMIC_SLICE, "f32[2]", v, i1);
  ints(ds, ATTR_DYNAMIC_SLICE_SIZES, 1, 2);
  expect_shape(ds, "f32[2]");
  Instr *m = param(c, "f32[3,4]");
  Instr *three[3] = {m, param(c, "s32[1]"), j};
  Instr *ds2 = add_instr(c, OP_DYNAMIC_SLICE, "f32[2,2]", 3, three);
  ints(ds2, ATTR_DYNAMIC_SLICE_SIZES, 2, 2, 2);
  expect_error(ds2, "must be the only start index");
  Instr *dus_ops[3] = {m, param(c, "f32[2,2]"), param(c, "u32[2]")};
  expect_shape(add_instr(c, OP_DYNAMIC_UPDATE_SLICE, "f32[3,4]", 3, dus_ops), "f32[3,4]");
  /* fft: FFT keeps its shape whatever fft_length says; zero lengths keep
   * 0 dims; IRFFT of length 0 takes an innermost 0 or 1 only. */
  Instr *f = op1(c, OP_FFT, "c64[3,4]", param(c, "c64[3,4]"));
  enum1(f, ATTR_FFT_TYPE, "FFT");
  ints(f, ATTR_FFT_LENGTH, 1, 5);
  expect_shape(f, "c64[3,4]");
  Instr *rf = op1(c, OP_FFT, "c64[2,0]", param(c, "f32[2,0]"));
  enum1(rf, ATTR_FFT_TYPE, "RFFT");
  ints(rf, ATTR_FFT_LENGTH, 1, 0);
  expect_shape(rf, "c64[2,0]");
  Instr *ir = op1(c, OP_FFT, "f32[2,0]", param(c, "c64[2,1]"));
  enum1(ir, ATTR_FFT_TYPE, "IRFFT");
  ints(ir, ATTR_FFT_LENGTH, 1, 0);
  expect_shape(ir, "f32[2,0]");
  Instr *ir2 = op1(c, OP_FFT, "f32[2,0]", param(c, "c64[2,2]"));
  enum1(ir2, ATTR_FFT_TYPE, "IRFFT");
  ints(ir2, ATTR_FFT_LENGTH, 1, 0);
  expect_error(ir2, "does not match fft_length");
  /* reduce with a reducer returning a 1-tuple: a 1-tuple result. */
  Computation *add1 = comp("add1");
  Instr *x = param(add1, "f32[]"), *y = param(add1, "f32[]");
  op1(add1, OP_TUPLE, "(f32[])", op2(add1, OP_ADD, "f32[]", x, y));
  Instr *r = op2(c, OP_REDUCE, "(f32[3])", m, param(c, "f32[]"));
  ints(r, ATTR_DIMENSIONS, 1, 1);
  callee(r, ATTR_TO_APPLY, add1);
  expect_shape(r, "(f32[3])");
  Computation *add2 = comp("add2");
  Instr *x2 = param(add2, "f32[]"), *y2 = param(add2, "f32[]");
  Instr *s2 = op2(add2, OP_ADD, "f32[]", x2, y2);
  Instr *pair[2] = {s2, s2};
  add_instr(add2, OP_TUPLE, "(f32[], f32[])", 2, pair);
  Instr *r2 = op2(c, OP_REDUCE, "(f32[3], f32[3])", m, param(c, "f32[]"));
  ints(r2, ATTR_DIMENSIONS, 1, 1);
  callee(r2, ATTR_TO_APPLY, add2);
  expect_error(r2, "must return a scalar or a tuple of 1 scalar");
  /* rng-bit-generator: any state; a tuple result's first element is the
   * state's shape. */
  Instr *st = param(c, "(u64[2])");
  Instr *g = op1(c, OP_RNG_BIT_GENERATOR, "((u64[2]), u32[4])", st);
  enum1(g, ATTR_ALGORITHM, "rng_three_fry");
  expect_shape(g, "((u64[2]), u32[4])");
  Instr *g2 = op1(c, OP_RNG_BIT_GENERATOR, "(u64[2], u32[4])", st);
  enum1(g2, ATTR_ALGORITHM, "rng_three_fry");
  expect_error(g2, "does not match the operand state");
  /* send-done / recv-done: a send/recv or a get-tuple-element of any
   * tuple shape; not a parameter. */
  Instr *loop = param(c, "((f32[4], u32[]))");
  Instr *ge = op1(c, OP_GET_TUPLE_ELEMENT, "(f32[4], u32[])", loop);
  int1(ge, ATTR_INDEX, 0);
  expect_shape(op1(c, OP_RECV_DONE, "(f32[4], token[])", ge), "(f32[4], token[])");
  expect_shape(op1(c, OP_SEND_DONE, "token[]", ge), "token[]");
  expect_error(op1(c, OP_SEND_DONE, "token[]", param(c, "(f32[4], u32[], token[])")),
               "must be a send or a get-tuple-element");
  /* bitcast: sizes compared only in modules written with layouts. */
  Instr *b = op1(c, OP_BITCAST, "f32[2]", v);
  Module plain = {0}, laid_out = {0};
  laid_out.has_layouts = true;
  Shape out;
  Error err = {0};
  cr_assert(infer_shape_in_module(&plain, b, A, &out, &err), "bitcast without layouts: %s", err.msg);
  cr_assert(!infer_shape_in_module(&laid_out, b, A, &out, &err), "bitcast with layouts passed");
  cr_assert(strstr(err.msg, "differ in size"), "message: %s", err.msg);
}
