/* The evaluator on IR built by hand (independent of the text parser):
 * liveness and peak memory, control flow, bitcast over tiled layouts, copy
 * between layouts, dynamic-slice clamping, memory-space exhaustion, value
 * dense views.  Expected values are derived by hand in the comments. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "base/hostmem.h"
#include "interp/eval.h"
#include "interp/run.h"
#include "layout/layout.h"
#include "parser/parser.h"

/* --- a tiny IR builder --- */

static Arena *A;

static Shape *sh(const char *text) {
  Shape *s = arena_alloc(A, sizeof *s);
  Error err = {0};
  cr_assert(parse_shape_text(text, strlen(text), A, s, &err), "shape %s: %s", text, err.msg);
  return s;
}

typedef struct B {
  Computation *c;
} B;

static Module *new_module(void) {
  Module *m = arena_alloc(A, sizeof *m);
  m->arena = A;
  m->name = "test";
  m->replica_count = 1;
  m->num_partitions = 1;
  m->comps = arena_alloc_array(A, 16, sizeof(Computation *));
  return m;
}

static Computation *new_comp(Module *m, const char *name, int nparams) {
  Computation *c = arena_alloc(A, sizeof *c);
  c->name = name;
  c->index = m->ncomps;
  m->comps[m->ncomps++] = c;
  c->instrs = arena_alloc_array(A, 64, sizeof(Instr *));
  c->nparams = nparams;
  c->params = arena_alloc_array(A, (size_t)(nparams ? nparams : 1), sizeof(Instr *));
  return c;
}

static Instr *add_instr(Computation *c, const char *name, Opcode op, const char *shape, int nops,
                        Instr **ops) {
  Instr *in = arena_alloc(A, sizeof *in);
  in->name = name;
  in->op = op;
  in->offset = -1;
  in->shape = *sh(shape);
  in->noperands = nops;
  in->operands = arena_alloc_array(A, (size_t)(nops ? nops : 1), sizeof(Instr *));
  for (int i = 0; i < nops; i++) in->operands[i] = ops[i];
  in->attrs = arena_alloc_array(A, 8, sizeof(Attr));
  in->index = c->ninstrs;
  in->parent = c;
  c->instrs[c->ninstrs++] = in;
  c->root = in;
  return in;
}

static Instr *param(Computation *c, const char *name, int n, const char *shape) {
  Instr *in = add_instr(c, name, OP_PARAMETER, shape, 0, NULL);
  in->parameter_number = n;
  c->params[n] = in;
  return in;
}

static Attr *attr(Instr *in, AttrKey key, AttrValueKind kind) {
  Attr *a = &in->attrs[in->nattrs++];
  a->key = key;
  a->kind = kind;
  a->name = attr_key_name(key);
  return a;
}

static void attr_ints(Instr *in, AttrKey key, int n, const int64_t *v) {
  Attr *a = attr(in, key, AV_INT_LIST);
  a->v.ints.n = n;
  a->v.ints.v = arena_alloc_array(A, (size_t)(n ? n : 1), sizeof(int64_t));
  memcpy(a->v.ints.v, v, sizeof(int64_t) * (size_t)n);
}

static void attr_int(Instr *in, AttrKey key, int64_t v) { attr(in, key, AV_INT)->v.i = v; }
static void attr_comp(Instr *in, AttrKey key, Computation *c) {
  attr(in, key, AV_COMPUTATION)->v.comp = c;
}
static void attr_enum(Instr *in, AttrKey key, const char *s) { attr(in, key, AV_ENUM)->v.s = s; }

static Instr *constant(Computation *c, const char *name, const char *shape, const void *data,
                       int64_t nbytes) {
  Instr *in = add_instr(c, name, OP_CONSTANT, shape, 0, NULL);
  Literal *l = arena_alloc(A, sizeof *l);
  l->shape = in->shape;
  l->data = arena_alloc(A, (size_t)(nbytes ? nbytes : 1));
  memcpy(l->data, data, (size_t)nbytes);
  l->nbytes = nbytes;
  in->literal = l;
  return in;
}

static void setup(void) { A = arena_new(); }
static void teardown(void) { arena_free(A); }
TestSuite(eval, .init = setup, .fini = teardown);

/* Runs m with f32/s32 inputs given as npy arrays. */
static bool run(Module *m, const MemConfig *cfg, NpyArray *inputs, int n, RunResult *res,
                Error *err) {
  RunInput in[8];
  for (int i = 0; i < n; i++) in[i] = (RunInput){"input", NULL, &inputs[i]};
  RunOptions opt = {0};
  opt.memory = cfg;
  opt.stats = true;
  return run_module(m, &opt, in, n, res, err);
}

static NpyArray npy_f32(int rank, const int64_t *dims, const float *v) {
  NpyArray a = {0};
  a.etype = ET_F32;
  a.rank = rank;
  a.count = 1;
  for (int i = 0; i < rank; i++) {
    a.dims[i] = dims[i];
    a.count *= dims[i];
  }
  a.data = (void *)v;
  return a;
}

static const float *leaf_f32(const RunResult *r, int i) { return r->leaves[i].data; }

/* --- tests --- */

Test(eval, add_and_liveness_peak) {
  /* p0 + p1 -> a; a * p0 -> b; ROOT b.  Buffers of 16 bytes each: params
   * (2 x 16) live for the whole run; a dies at b, which takes its buffer:
   * peak = 2 params + a = 48 bytes. */
  Module *m = new_module();
  Computation *c = new_comp(m, "main", 2);
  c->is_entry = true;
  m->entry = c;
  Instr *p0 = param(c, "p0", 0, "f32[4]"), *p1 = param(c, "p1", 1, "f32[4]");
  Instr *a = add_instr(c, "a", OP_ADD, "f32[4]", 2, (Instr *[]){p0, p1});
  add_instr(c, "b", OP_MULTIPLY, "f32[4]", 2, (Instr *[]){a, p0});
  float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
  int64_t d[1] = {4};
  NpyArray in[2] = {npy_f32(1, d, x), npy_f32(1, d, y)};
  RunResult r;
  Error err;
  cr_assert(run(m, NULL, in, 2, &r, &err), "%s", err.msg);
  const float want[4] = {11, 44, 99, 176};
  for (int i = 0; i < 4; i++) cr_assert_eq(leaf_f32(&r, 0)[i], want[i]);
  cr_assert_eq(r.mem.spaces[0].peak, 48);
  cr_assert_eq(r.mem.spaces[0].live, 0, "everything released at the end");
  cr_assert_eq(r.instructions_executed, 4);
  run_result_free(&r);
}

Test(eval, dead_values_are_released_at_once) {
  /* t = p0 + p0 is never used: released right after it is made, so peak =
   * p0 + t = 8 + 8 (root is p0 itself... use a copy as root). */
  Module *m = new_module();
  Computation *c = new_comp(m, "main", 1);
  m->entry = c;
  Instr *p0 = param(c, "p0", 0, "f32[2]");
  add_instr(c, "t", OP_ADD, "f32[2]", 2, (Instr *[]){p0, p0});
  add_instr(c, "u", OP_ADD, "f32[2]", 2, (Instr *[]){p0, p0});
  add_instr(c, "r", OP_COPY, "f32[2]", 1, (Instr *[]){p0});
  float x[2] = {1, 2};
  int64_t d[1] = {2};
  NpyArray in[1] = {npy_f32(1, d, x)};
  RunResult r;
  Error err;
  cr_assert(run(m, NULL, in, 1, &r, &err), "%s", err.msg);
  cr_assert_eq(r.mem.spaces[0].peak, 16, "peak %lld", (long long)r.mem.spaces[0].peak);
  run_result_free(&r);
}

Test(eval, while_loop_counts_to_ten) {
  /* state (s32 i, f32[2] acc): while i < 10 { i += 1; acc += {1, 2} } */
  Module *m = new_module();
  Computation *cond = new_comp(m, "cond", 1);
  Instr *cp = param(cond, "s", 0, "(s32[], f32[2])");
  Instr *ci = add_instr(cond, "i", OP_GET_TUPLE_ELEMENT, "s32[]", 1, (Instr *[]){cp});
  attr_int(ci, ATTR_INDEX, 0);
  int32_t ten = 10;
  Instr *k = constant(cond, "ten", "s32[]", &ten, 4);
  Instr *lt = add_instr(cond, "lt", OP_COMPARE, "pred[]", 2, (Instr *[]){ci, k});
  attr_enum(lt, ATTR_DIRECTION, "LT");
  Computation *body = new_comp(m, "body", 1);
  Instr *bp = param(body, "s", 0, "(s32[], f32[2])");
  Instr *bi = add_instr(body, "i", OP_GET_TUPLE_ELEMENT, "s32[]", 1, (Instr *[]){bp});
  attr_int(bi, ATTR_INDEX, 0);
  Instr *ba = add_instr(body, "acc", OP_GET_TUPLE_ELEMENT, "f32[2]", 1, (Instr *[]){bp});
  attr_int(ba, ATTR_INDEX, 1);
  int32_t one = 1;
  float inc[2] = {1, 2};
  Instr *o = constant(body, "one", "s32[]", &one, 4);
  Instr *v = constant(body, "inc", "f32[2]", inc, 8);
  Instr *ni = add_instr(body, "ni", OP_ADD, "s32[]", 2, (Instr *[]){bi, o});
  Instr *na = add_instr(body, "na", OP_ADD, "f32[2]", 2, (Instr *[]){ba, v});
  add_instr(body, "t", OP_TUPLE, "(s32[], f32[2])", 2, (Instr *[]){ni, na});
  Computation *c = new_comp(m, "main", 0);
  m->entry = c;
  int32_t zero = 0;
  float z2[2] = {0.5f, 0};
  Instr *i0 = constant(c, "i0", "s32[]", &zero, 4);
  Instr *a0 = constant(c, "a0", "f32[2]", z2, 8);
  Instr *t0 = add_instr(c, "t0", OP_TUPLE, "(s32[], f32[2])", 2, (Instr *[]){i0, a0});
  Instr *w = add_instr(c, "w", OP_WHILE, "(s32[], f32[2])", 1, (Instr *[]){t0});
  attr_comp(w, ATTR_CONDITION, cond);
  attr_comp(w, ATTR_BODY, body);
  RunResult r;
  Error err;
  cr_assert(run(m, NULL, NULL, 0, &r, &err), "%s", err.msg);
  cr_assert_eq(r.nleaves, 2);
  cr_assert_eq(*(int32_t *)r.leaves[0].data, 10);
  cr_assert_eq(leaf_f32(&r, 1)[0], 10.5f);
  cr_assert_eq(leaf_f32(&r, 1)[1], 20.0f);
  cr_assert_eq(r.while_iterations, 10);
  run_result_free(&r);
}

static Module *conditional_module(int32_t index) {
  /* branch b returns constant 100*(b+1) + x; index out of range -> last */
  Module *m = new_module();
  Computation *br[3];
  static const char *names[3] = {"b0", "b1", "b2"};
  for (int b = 0; b < 3; b++) {
    br[b] = new_comp(m, names[b], 1);
    Instr *p = param(br[b], "x", 0, "s32[]");
    int32_t k = 100 * (b + 1);
    Instr *kc = constant(br[b], "k", "s32[]", &k, 4);
    add_instr(br[b], "r", OP_ADD, "s32[]", 2, (Instr *[]){p, kc});
  }
  Computation *c = new_comp(m, "main", 0);
  m->entry = c;
  int32_t vals[3] = {1, 2, 3};
  Instr *idx = constant(c, "idx", "s32[]", &index, 4);
  Instr *ops[4] = {idx};
  for (int b = 0; b < 3; b++) ops[b + 1] = constant(c, names[b], "s32[]", &vals[b], 4);
  Instr *cd = add_instr(c, "cond", OP_CONDITIONAL, "s32[]", 4, ops);
  Attr *a = attr(cd, ATTR_BRANCH_COMPUTATIONS, AV_COMPUTATION_LIST);
  a->v.comps.n = 3;
  a->v.comps.v = arena_alloc_array(A, 3, sizeof(Computation *));
  for (int b = 0; b < 3; b++) a->v.comps.v[b] = br[b];
  return m;
}

Test(eval, conditional_index_and_default_branch) {
  /* index 1 -> b1(2) = 202; index 7 and -1 -> last branch b2(3) = 303 */
  const int32_t idx[4] = {0, 1, 7, -1}, want[4] = {101, 202, 303, 303};
  for (int i = 0; i < 4; i++) {
    Module *m = conditional_module(idx[i]);
    RunResult r;
    Error err;
    cr_assert(run(m, NULL, NULL, 0, &r, &err), "%s", err.msg);
    cr_assert_eq(*(int32_t *)r.leaves[0].data, want[i], "index %d", idx[i]);
    run_result_free(&r);
  }
}

Test(eval, bitcast_reinterprets_tiled_bytes) {
  /* p = f32[2,4]{1,0:T(2,2)} holding 0..7 row-major.  Physical order with
   * 2x2 tiles: tile (0,0) = 0 1 4 5, tile (0,1) = 2 3 6 7.  A bitcast to
   * f32[8]{0} reads those bytes in memory order: 0 1 4 5 2 3 6 7. */
  Module *m = new_module();
  Computation *c = new_comp(m, "main", 1);
  m->entry = c;
  Instr *p = param(c, "p", 0, "f32[2,4]{1,0:T(2,2)}");
  add_instr(c, "b", OP_BITCAST, "f32[8]{0}", 1, (Instr *[]){p});
  float x[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int64_t d[2] = {2, 4};
  NpyArray in[1] = {npy_f32(2, d, x)};
  RunResult r;
  Error err;
  cr_assert(run(m, NULL, in, 1, &r, &err), "%s", err.msg);
  const float want[8] = {0, 1, 4, 5, 2, 3, 6, 7};
  for (int i = 0; i < 8; i++) cr_assert_eq(leaf_f32(&r, 0)[i], want[i], "at %d", i);
  run_result_free(&r);
}

Test(eval, copy_between_layouts_keeps_values) {
  /* copy to column-major then to a padded tile and back: values unchanged,
   * and the padded buffer costs 3x4 -> 4x4 = 64 bytes. */
  Module *m = new_module();
  Computation *c = new_comp(m, "main", 1);
  m->entry = c;
  Instr *p = param(c, "p", 0, "f32[3,4]");
  Instr *a = add_instr(c, "a", OP_COPY, "f32[3,4]{0,1}", 1, (Instr *[]){p});
  Instr *b = add_instr(c, "b", OP_COPY, "f32[3,4]{1,0:T(2,2)}", 1, (Instr *[]){a});
  Instr *e = add_instr(c, "e", OP_EXPONENTIAL, "f32[3,4]{1,0:T(2,2)}", 1, (Instr *[]){b});
  Instr *l = add_instr(c, "l", OP_LOG, "f32[3,4]{1,0:T(2,2)}", 1, (Instr *[]){e});
  add_instr(c, "r", OP_COPY, "f32[3,4]", 1, (Instr *[]){l});
  float x[12];
  for (int i = 0; i < 12; i++) x[i] = (float)i * 0.25f;
  int64_t d[2] = {3, 4};
  NpyArray in[1] = {npy_f32(2, d, x)};
  RunResult r;
  Error err;
  cr_assert(run(m, NULL, in, 1, &r, &err), "%s", err.msg);
  for (int i = 0; i < 12; i++) cr_assert_float_eq(leaf_f32(&r, 0)[i], x[i], 1e-6, "at %d", i);
  /* the tiled f32[3,4] shows up as a padded shape: 48 logical, 64 physical */
  cr_assert_geq(r.nshape_stats, 1);
  cr_assert_eq(r.shape_stats[0].logical_bytes, 48);
  cr_assert_eq(r.shape_stats[0].physical_bytes, 64);
  run_result_free(&r);
}

Test(eval, dynamic_slice_clamps_start) {
  /* seed example b = 4x3 0..11, start {2,1} size {2,2} -> {7,8,10,11};
   * start {5,-3} clamps to {2,0} -> {6,7,9,10} */
  const int32_t starts[2][2] = {{2, 1}, {5, -3}};
  const float want[2][4] = {{7, 8, 10, 11}, {6, 7, 9, 10}};
  for (int t = 0; t < 2; t++) {
    Module *m = new_module();
    Computation *c = new_comp(m, "main", 1);
    m->entry = c;
    Instr *p = param(c, "b", 0, "f32[4,3]");
    Instr *s0 = constant(c, "s0", "s32[]", &starts[t][0], 4);
    Instr *s1 = constant(c, "s1", "s32[]", &starts[t][1], 4);
    Instr *ds = add_instr(c, "ds", OP_DYNAMIC_SLICE, "f32[2,2]", 3, (Instr *[]){p, s0, s1});
    attr_ints(ds, ATTR_DYNAMIC_SLICE_SIZES, 2, (int64_t[]){2, 2});
    float b[12];
    for (int i = 0; i < 12; i++) b[i] = (float)i;
    int64_t d[2] = {4, 3};
    NpyArray in[1] = {npy_f32(2, d, b)};
    RunResult r;
    Error err;
    cr_assert(run(m, NULL, in, 1, &r, &err), "%s", err.msg);
    for (int i = 0; i < 4; i++) cr_assert_eq(leaf_f32(&r, 0)[i], want[t][i]);
    run_result_free(&r);
  }
}

Test(eval, buffer_too_big_for_vmem) {
  /* tpu-v4 VMEM is 16 MiB; f32[2048,4096] is 32 MiB */
  Module *m = new_module();
  Computation *c = new_comp(m, "main", 0);
  m->entry = c;
  Instr *z = add_instr(c, "z", OP_IOTA, "f32[2048,4096]{1,0:S(1)}", 0, NULL);
  attr_int(z, ATTR_IOTA_DIMENSION, 0);
  MemConfig cfg;
  Error err;
  cr_assert(config_preset("tpu-v4", &cfg, &err));
  RunResult r;
  cr_assert_not(run(m, &cfg, NULL, 0, &r, &err));
  cr_assert_eq(err.kind, ERR_RUNTIME);
  cr_assert(strstr(err.msg, "instruction z"), "%s", err.msg);
  cr_assert(strstr(err.msg, "S(1) VMEM"), "%s", err.msg);
  cr_assert(strstr(err.msg, "33554432 bytes (32 MiB)"), "%s", err.msg);
}

Test(eval, unsupported_op_names_instruction) {
  Module *m = new_module();
  Computation *c = new_comp(m, "main", 1);
  m->entry = c;
  Instr *p = param(c, "p", 0, "f32[4]");
  add_instr(c, "f", OP_DYNAMIC_RESHAPE, "f32[4]", 2, (Instr *[]){p, p});
  float x[4] = {0};
  int64_t d[1] = {4};
  NpyArray in[1] = {npy_f32(1, d, x)};
  RunResult r;
  Error err;
  cr_assert_not(run(m, NULL, in, 1, &r, &err));
  cr_assert_str_eq(err.msg, "instruction f: opcode dynamic-reshape is not supported yet");
}

Test(eval, input_errors_name_the_parameter) {
  Module *m = new_module();
  Computation *c = new_comp(m, "main", 2);
  m->entry = c;
  Instr *p0 = param(c, "x", 0, "f32[4]"), *p1 = param(c, "y", 1, "f32[4]");
  add_instr(c, "a", OP_ADD, "f32[4]", 2, (Instr *[]){p0, p1});
  float v[6] = {0};
  int64_t d4[1] = {4}, d6[1] = {6};
  RunResult r;
  Error err;
  NpyArray one[1] = {npy_f32(1, d4, v)};
  cr_assert_not(run(m, NULL, one, 1, &r, &err));
  cr_assert(strstr(err.msg, "parameter 1 (y)") && strstr(err.msg, "too few inputs"), "%s",
            err.msg);
  NpyArray bad[2] = {npy_f32(1, d4, v), npy_f32(1, d6, v)};
  cr_assert_not(run(m, NULL, bad, 2, &r, &err));
  cr_assert(strstr(err.msg, "parameter 1 (y): expects f32[4]"), "%s", err.msg);
  NpyArray three[3] = {npy_f32(1, d4, v), npy_f32(1, d4, v), npy_f32(1, d4, v)};
  cr_assert_not(run(m, NULL, three, 3, &r, &err));
  cr_assert(strstr(err.msg, "too many inputs"), "%s", err.msg);
  NpyArray wrongtype[2] = {npy_f32(1, d4, v), npy_f32(1, d4, v)};
  wrongtype[1].etype = ET_S32;
  cr_assert_not(run(m, NULL, wrongtype, 2, &r, &err));
  cr_assert(strstr(err.msg, "parameter 1 (y)"), "%s", err.msg);
}

Test(eval, big_dense_views_are_reused_host_blocks) {
  /* A 4.3 MB transposed-layout value read densely: the temporary is a
   * base/hostmem block (reused memory, not malloc's fresh pages), holds the
   * row-major elements, and value_tmp_free gives it back. */
  MemSystem mem;
  mem_init(&mem);
  ValueCtx vc;
  cr_assert(value_ctx_init(&vc, &mem, A));
  enum { R = 1024, C = 1100 };
  int32_t *x = malloc(sizeof(int32_t) * R * C);
  for (int i = 0; i < R * C; i++) x[i] = i * 7 + 1;
  Value *v;
  Error err;
  cr_assert(value_from_dense(&vc, sh("s32[1024,1100]{0,1}"), x, "t", &v, &err), "%s", err.msg);
  cr_assert_not(v->info->identity);
  cr_assert_eq(((int32_t *)v->buf->data)[1], x[C], "column-major storage");
  const void *d;
  DenseTmp tmp;
  cr_assert(value_dense_read(&vc, v, &d, &tmp, &err), "%s", err.msg);
  cr_assert(hostmem_owns(tmp.p));
  cr_assert_eq(memcmp(d, x, sizeof(int32_t) * R * C), 0);
  value_tmp_free(&tmp);
  cr_assert_null(tmp.p);
  value_unref(&vc, v);
  cr_assert_eq(hostmem_stats().live_bytes, 0);
  free(x);
  value_ctx_free(&vc);
  mem_destroy(&mem);
}

Test(eval, dense_views_of_tiled_values) {
  /* value_from_dense then value_dense_read round-trips through a tiled,
   * padded layout; the padding slots are zero. */
  MemSystem mem;
  mem_init(&mem);
  ValueCtx vc;
  cr_assert(value_ctx_init(&vc, &mem, A));
  Shape *s = sh("s32[3,5]{1,0:T(2,2)}");
  int32_t x[15];
  for (int i = 0; i < 15; i++) x[i] = i + 1;
  Value *v;
  Error err;
  cr_assert(value_from_dense(&vc, s, x, "t", &v, &err), "%s", err.msg);
  cr_assert_eq(v->info->phys_bytes, 96);
  cr_assert_not(v->info->identity);
  /* layout.md: (2,3) of f32[3,5]{1,0:T(2,2)} is at offset 17 */
  cr_assert_eq(((int32_t *)v->buf->data)[17], x[2 * 5 + 3]);
  int zeros = 0;
  for (int i = 0; i < 24; i++) zeros += ((int32_t *)v->buf->data)[i] == 0;
  cr_assert_eq(zeros, 9, "24 slots, 15 elements");
  const void *d;
  DenseTmp tmp;
  cr_assert(value_dense_read(&vc, v, &d, &tmp, &err));
  cr_assert_eq(memcmp(d, x, sizeof x), 0);
  value_tmp_free(&tmp);
  value_unref(&vc, v);
  cr_assert_eq(mem_find(&mem, 0)->live, 0);
  /* identity layouts: size-1 dims do not matter */
  cr_assert(value_array_info(&vc, sh("f32[1,7]{0,1}"), &err)->identity);
  cr_assert(value_array_info(&vc, sh("f32[8,128]{1,0:T(8,128)}"), &err)->identity);
  cr_assert_not(value_array_info(&vc, sh("f32[8,128]{0,1}"), &err)->identity);
  value_ctx_free(&vc);
}
