/* The printer on IR built by hand (no parser involved): instruction lines,
 * attribute order and value formats, computations and the module header.
 * Expected text is written from XLA's printing rules (docs/hlo-print.md). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "parser/print.h"

static Arena *arena;

static void setup(void) { arena = arena_new(); }
static void teardown(void) { arena_free(arena); }

TestSuite(print_ir, .init = setup, .fini = teardown);

static void *alloc(size_t n) {
  void *p = arena_alloc(arena, n);
  cr_assert_not_null(p);
  return p;
}

static Shape array(EType t, int rank, const int64_t *dims) {
  Shape s = {.etype = t, .rank = rank};
  if (rank) {
    s.dims = alloc((size_t)rank * sizeof(int64_t));
    memcpy(s.dims, dims, (size_t)rank * sizeof(int64_t));
  }
  cr_assert(shape_set_default_layout(arena, &s));
  return s;
}

#define F32(...) array(ET_F32, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__})
static Shape scalar(EType t) { return array(t, 0, NULL); }

static Instr *instr(const char *name, Opcode op, Shape shape, int nops, Instr **ops) {
  Instr *in = alloc(sizeof *in);
  in->name = name;
  in->op = op;
  in->shape = shape;
  in->noperands = nops;
  in->operands = alloc((size_t)(nops ? nops : 1) * sizeof(Instr *));
  for (int i = 0; i < nops; i++) in->operands[i] = ops[i];
  in->attrs = alloc(16 * sizeof(Attr));
  return in;
}

static Attr *add_attr(Instr *in, AttrKey key, AttrValueKind kind) {
  Attr *a = &in->attrs[in->nattrs++];
  a->key = key;
  a->name = attr_key_name(key);
  a->kind = kind;
  return a;
}

static void add_int(Instr *in, AttrKey key, int64_t v) { add_attr(in, key, AV_INT)->v.i = v; }
static void add_bool(Instr *in, AttrKey key, bool v) { add_attr(in, key, AV_BOOL)->v.b = v; }
static void add_str(Instr *in, AttrKey key, AttrValueKind kind, const char *s) {
  add_attr(in, key, kind)->v.s = s;
}
static void add_ints(Instr *in, AttrKey key, int n, const int64_t *v) {
  Attr *a = add_attr(in, key, AV_INT_LIST);
  a->v.ints.n = n;
  a->v.ints.v = alloc((size_t)(n ? n : 1) * sizeof(int64_t));
  memcpy(a->v.ints.v, v, (size_t)n * sizeof(int64_t));
}

static void expect_instr(const Instr *in, const char *expected) {
  StrBuf sb;
  sb_init(&sb);
  print_instr(&sb, in);
  char *got = sb_take(&sb);
  cr_expect_str_eq(got, expected);
  free(got);
}

static Instr *param(const char *name, int64_t n, Shape s) {
  Instr *p = instr(name, OP_PARAMETER, s, 0, NULL);
  p->parameter_number = n;
  return p;
}

Test(print_ir, operands_carry_shapes_and_percent) {
  Instr *a = param("a", 0, F32(4));
  Instr *b = param("b", 1, F32(4));
  expect_instr(a, "%a = f32[4]{0} parameter(0)");
  expect_instr(instr("sum", OP_ADD, F32(4), 2, (Instr *[]){a, b}),
               "%sum = f32[4]{0} add(f32[4]{0} %a, f32[4]{0} %b)");
}

Test(print_ir, sparse_layout_suffixes) {
  /* #(t) and *(t) only verify on sparse arrays, which have no text syntax of
   * their own; the printer still writes them in XLA's suffix order. */
  Instr *b = param("b", 0, array(ET_U32, 1, (int64_t[]){8}));
  b->shape.layout.index_type = ET_U16;
  b->shape.layout.pointer_type = ET_U8;
  b->shape.layout.memory_space = 1;
  expect_instr(b, "%b = u32[8]{0:#(u16)*(u8)S(1)} parameter(0)");
}

Test(print_ir, attributes_sorted_into_xla_order) {
  Instr *x = param("x", 0, F32(8));
  Instr *ag = instr("ag", OP_ALL_GATHER, F32(16), 1, (Instr *[]){x});
  add_bool(ag, ATTR_USE_GLOBAL_DEVICE_IDS, true);
  add_ints(ag, ATTR_DIMENSIONS, 1, (int64_t[]){0});
  add_str(ag, ATTR_METADATA, AV_RAW, "{op_name=\"g\"}");
  add_int(ag, ATTR_CHANNEL_ID, 7);
  expect_instr(ag, "%ag = f32[16]{0} all-gather(f32[8]{0} %x), channel_id=7, dimensions={0}, "
                   "use_global_device_ids=true, metadata={op_name=\"g\"}");
  /* reduce-scatter puts dimensions after use_global_device_ids. */
  Instr *rs = instr("rs", OP_REDUCE_SCATTER, F32(4), 1, (Instr *[]){x});
  add_ints(rs, ATTR_DIMENSIONS, 1, (int64_t[]){0});
  add_bool(rs, ATTR_USE_GLOBAL_DEVICE_IDS, true);
  add_int(rs, ATTR_CHANNEL_ID, 7);
  expect_instr(rs, "%rs = f32[4]{0} reduce-scatter(f32[8]{0} %x), channel_id=7, "
                   "use_global_device_ids=true, dimensions={0}");
}

Test(print_ir, unknown_attributes_last_in_input_order) {
  Instr *x = param("x", 0, F32(2));
  Attr *u1 = add_attr(x, ATTR_UNKNOWN, AV_RAW);
  u1->name = "zeta";
  u1->v.s = "{1}";
  Attr *u2 = add_attr(x, ATTR_UNKNOWN, AV_RAW);
  u2->name = "alpha";
  u2->v.s = "beta";
  add_str(x, ATTR_SHARDING, AV_RAW, "{replicated}");
  expect_instr(x, "%x = f32[2]{0} parameter(0), sharding={replicated}, zeta={1}, alpha=beta");
}

Test(print_ir, strings_escaped_like_cescape) {
  Instr *c = instr("c", OP_CUSTOM_CALL, scalar(ET_F32), 0, NULL);
  add_str(c, ATTR_CUSTOM_CALL_TARGET, AV_STRING, "a\"b\\c\n\t\r'\x01\xc3\xa9~");
  expect_instr(c, "%c = f32[] custom-call(), custom_call_target=\"a\\\"b\\\\c\\n\\t\\r\\'\\001\\303\\251~\"");
}

Test(print_ir, backend_config_raw_when_it_reads_back_as_a_dict) {
  Instr *c = instr("c", OP_CUSTOM_CALL, scalar(ET_F32), 0, NULL);
  add_str(c, ATTR_BACKEND_CONFIG, AV_STRING_OR_RAW, "{\"a\":\"}{\",\"b\":{}}");
  expect_instr(c, "%c = f32[] custom-call(), backend_config={\"a\":\"}{\",\"b\":{}}");
  c->attrs[0].v.s = "{} trailing";
  expect_instr(c, "%c = f32[] custom-call(), backend_config=\"{} trailing\"");
  c->attrs[0].v.s = "";
  expect_instr(c, "%c = f32[] custom-call(), backend_config=\"\"");
}

Test(print_ir, window_only_non_default_fields) {
  Instr *x = param("x", 0, F32(4, 4));
  Instr *z = param("z", 1, scalar(ET_F32));
  Instr *w = instr("w", OP_REDUCE_WINDOW, F32(4, 4), 2, (Instr *[]){x, z});
  Attr *a = add_attr(w, ATTR_WINDOW, AV_WINDOW);
  a->v.window.rank = 2;
  a->v.window.dims = alloc(2 * sizeof(WindowDim));
  a->v.window.dims[0] = (WindowDim){.size = 3, .stride = 1, .pad_lo = 1, .pad_hi = 1,
                                    .lhs_dilate = 1, .rhs_dilate = 1};
  a->v.window.dims[1] = (WindowDim){.size = 1, .stride = 1, .lhs_dilate = 1, .rhs_dilate = 2,
                                    .reversal = true};
  a->v.window.fields_written = 63;
  expect_instr(w, "%w = f32[4,4]{1,0} reduce-window(f32[4,4]{1,0} %x, f32[] %z), "
                  "window={size=3x1 pad=1_1x0_0 rhs_dilate=1x2 rhs_reversal=0x1}");
  a->v.window.rank = 0;
  expect_instr(w, "%w = f32[4,4]{1,0} reduce-window(f32[4,4]{1,0} %x, f32[] %z), window={}");
}

Test(print_ir, padding_and_slice_normalised) {
  Instr *x = param("x", 0, F32(4, 4));
  Instr *z = param("z", 1, scalar(ET_F32));
  Instr *p = instr("p", OP_PAD, F32(6, 5), 2, (Instr *[]){x, z});
  Attr *a = add_attr(p, ATTR_PADDING, AV_PADDING);
  a->v.padding.n = 2;
  a->v.padding.has_interior = true;
  a->v.padding.dims = alloc(2 * sizeof(PadDim));
  a->v.padding.dims[0] = (PadDim){1, 1, 0};
  a->v.padding.dims[1] = (PadDim){-1, 2, 0};
  expect_instr(p, "%p = f32[6,5]{1,0} pad(f32[4,4]{1,0} %x, f32[] %z), padding=1_1x-1_2");
  a->v.padding.dims[1].interior = 1;
  expect_instr(p, "%p = f32[6,5]{1,0} pad(f32[4,4]{1,0} %x, f32[] %z), padding=1_1_0x-1_2_1");

  Instr *s = instr("s", OP_SLICE, F32(2, 2), 1, (Instr *[]){x});
  Attr *sl = add_attr(s, ATTR_SLICE, AV_SLICE);
  sl->v.slice.n = 2;
  sl->v.slice.dims = alloc(2 * sizeof(SliceDim));
  sl->v.slice.dims[0] = (SliceDim){0, 2, 1};
  sl->v.slice.dims[1] = (SliceDim){1, 3, 1};
  expect_instr(s, "%s = f32[2,2]{1,0} slice(f32[4,4]{1,0} %x), slice={[0:2], [1:3]}");
  sl->v.slice.dims[1] = (SliceDim){0, 4, 2};
  expect_instr(s, "%s = f32[2,2]{1,0} slice(f32[4,4]{1,0} %x), slice={[0:2:1], [0:4:2]}");
}

Test(print_ir, replica_groups_and_pairs) {
  Instr *x = param("x", 0, F32(4));
  Instr *ar = instr("ar", OP_ALL_REDUCE, F32(4), 1, (Instr *[]){x});
  Attr *g = add_attr(ar, ATTR_REPLICA_GROUPS, AV_REPLICA_GROUPS);
  g->v.groups.ngroups = 2;
  g->v.groups.groups = alloc(2 * sizeof(IntList));
  g->v.groups.groups[0] = (IntList){2, (int64_t[]){0, 1}};
  g->v.groups.groups[1] = (IntList){2, (int64_t[]){2, 3}};
  expect_instr(ar, "%ar = f32[4]{0} all-reduce(f32[4]{0} %x), replica_groups={{0,1},{2,3}}");
  g->v.groups.iota = true;
  g->v.groups.iota_groups = 2;
  g->v.groups.iota_group_size = 2;
  g->v.groups.iota_reshape = (IntList){1, (int64_t[]){4}};
  expect_instr(ar, "%ar = f32[4]{0} all-reduce(f32[4]{0} %x), replica_groups=[2,2]<=[4]");
  g->v.groups.iota_reshape = (IntList){2, (int64_t[]){2, 2}};
  expect_instr(ar, "%ar = f32[4]{0} all-reduce(f32[4]{0} %x), replica_groups=[2,2]<=[2,2]T(0,1)");
  g->v.groups.iota_perm = (IntList){2, (int64_t[]){1, 0}};
  expect_instr(ar, "%ar = f32[4]{0} all-reduce(f32[4]{0} %x), replica_groups=[2,2]<=[2,2]T(1,0)");

  Instr *cp = instr("cp", OP_COLLECTIVE_PERMUTE, F32(4), 1, (Instr *[]){x});
  Attr *st = add_attr(cp, ATTR_SOURCE_TARGET_PAIRS, AV_INT_LISTS);
  st->v.lists.depth = 2;
  st->v.lists.n = 2;
  st->v.lists.lists = (IntList[]){{2, (int64_t[]){0, 1}}, {2, (int64_t[]){1, 0}}};
  add_int(cp, ATTR_CHANNEL_ID, 3);
  expect_instr(cp, "%cp = f32[4]{0} collective-permute(f32[4]{0} %x), channel_id=3, "
                   "source_target_pairs={{0,1},{1,0}}");
}

Test(print_ir, enums_case_normalised) {
  Instr *x = param("x", 0, F32(2, 2));
  Instr *d = instr("d", OP_DOT, F32(2, 2), 2, (Instr *[]){x, x});
  Attr *p = add_attr(d, ATTR_OPERAND_PRECISION, AV_ENUM_LIST);
  p->v.enums.n = 2;
  p->v.enums.v = (const char *[]){"HIGHEST", "Default"};
  add_str(d, ATTR_ALGORITHM, AV_ENUM, "DOT_F16_F16_F32");
  add_ints(d, ATTR_RHS_CONTRACTING_DIMS, 1, (int64_t[]){0});
  add_ints(d, ATTR_LHS_CONTRACTING_DIMS, 1, (int64_t[]){1});
  expect_instr(d, "%d = f32[2,2]{1,0} dot(f32[2,2]{1,0} %x, f32[2,2]{1,0} %x), "
                  "lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
                  "operand_precision={highest,default}, algorithm=dot_f16_f16_f32");
  Instr *c = instr("c", OP_CUSTOM_CALL, scalar(ET_F32), 0, NULL);
  add_str(c, ATTR_API_VERSION, AV_ENUM, "api_version_typed_ffi");
  add_str(c, ATTR_SCHEDULE, AV_ENUM, "schedule_none");
  add_str(c, ATTR_CUSTOM_CALL_TARGET, AV_STRING, "t");
  expect_instr(c, "%c = f32[] custom-call(), custom_call_target=\"t\", "
                  "schedule=SCHEDULE_NONE, api_version=API_VERSION_TYPED_FFI");
  Instr *cmp = instr("cmp", OP_COMPARE, array(ET_PRED, 2, (int64_t[]){2, 2}), 2, (Instr *[]){x, x});
  add_str(cmp, ATTR_TYPE, AV_ENUM, "TOTALORDER");
  add_str(cmp, ATTR_DIRECTION, AV_ENUM, "LT");
  expect_instr(cmp, "%cmp = pred[2,2]{1,0} compare(f32[2,2]{1,0} %x, f32[2,2]{1,0} %x), "
                    "direction=LT, type=TOTALORDER");
}

Test(print_ir, float_attribute_shortest_f32) {
  Instr *x = param("x", 0, F32(2, 3));
  Instr *s = param("s", 1, F32(3));
  Instr *bn = instr("bn", OP_BATCH_NORM_INFERENCE, F32(2, 3), 5, (Instr *[]){x, s, s, s, s});
  add_int(bn, ATTR_FEATURE_INDEX, 1);
  add_attr(bn, ATTR_EPSILON, AV_FLOAT)->v.f = 1e-5;
  expect_instr(bn, "%bn = f32[2,3]{1,0} batch-norm-inference(f32[2,3]{1,0} %x, f32[3]{0} %s, "
                   "f32[3]{0} %s, f32[3]{0} %s, f32[3]{0} %s), epsilon=1e-05, feature_index=1");
}

Test(print_ir, async_sugar_and_references) {
  Instr *x = param("x", 0, F32(8));
  Shape st = {.etype = ET_TUPLE, .ntuple = 3};
  st.tuple = alloc(3 * sizeof(Shape));
  st.tuple[0] = (Shape){.etype = ET_TUPLE, .ntuple = 1, .tuple = alloc(sizeof(Shape))};
  st.tuple[0].tuple[0] = F32(8);
  st.tuple[1] = F32(8);
  st.tuple[2] = scalar(ET_S32);
  Instr *s = instr("s", OP_ASYNC_START, st, 1, (Instr *[]){x});
  s->wrapped_op = OP_CUSTOM_CALL;
  add_str(s, ATTR_CUSTOM_CALL_TARGET, AV_STRING, "foo");
  add_str(s, ATTR_ASYNC_EXECUTION_THREAD, AV_STRING, "t1");
  expect_instr(s, "%s = ((f32[8]{0}), f32[8]{0}, s32[]) custom-call-start(f32[8]{0} %x), "
                  "async_execution_thread=\"t1\", custom_call_target=\"foo\"");
  Instr *d = instr("d", OP_ASYNC_DONE, F32(8), 1, (Instr *[]){s});
  d->wrapped_op = OP_CUSTOM_CALL;
  Attr *cp = add_attr(d, ATTR_CONTROL_PREDECESSORS, AV_INSTR_LIST);
  cp->v.instrs.n = 2;
  cp->v.instrs.v = (Instr *[]){x, s};
  expect_instr(d, "%d = f32[8]{0} custom-call-done(((f32[8]{0}), f32[8]{0}, s32[]) %s), "
                  "control-predecessors={%x, %s}");
}

Test(print_ir, module_header_signatures_and_threads) {
  Module m = {.name = "mod", .replica_count = 1, .num_partitions = 3, .is_scheduled = true};
  Computation side = {.name = "side", .execution_thread = "host"};
  Instr *a = param("a", 0, F32(2));
  Instr *n = instr("n", OP_NEGATE, F32(2), 1, (Instr *[]){a});
  side.instrs = (Instr *[]){a, n};
  side.ninstrs = 2;
  side.root = n;
  side.nparams = 1;
  side.params = (Instr *[]){a};
  Computation main = {.name = "main", .is_entry = true, .execution_thread = "main"};
  Instr *p = param("p", 0, array(ET_F32, 2, (int64_t[]){2, 3}));
  p->shape.layout.minor_to_major[0] = 0;
  p->shape.layout.minor_to_major[1] = 1;
  Instr *c = instr("c", OP_COPY, F32(2, 3), 1, (Instr *[]){p});
  main.instrs = (Instr *[]){p, c};
  main.ninstrs = 2;
  main.root = c;
  main.nparams = 1;
  main.params = (Instr *[]){p};
  m.comps = (Computation *[]){&side, &main};
  m.ncomps = 2;
  m.entry = &main;
  Attr alias = {.key = ATTR_UNKNOWN, .name = "input_output_alias", .kind = AV_RAW,
                .v.s = "{ {}: (0, {}, may-alias) }"};
  Attr other = {.key = ATTR_UNKNOWN, .name = "new_header_thing", .kind = AV_RAW, .v.s = "7"};
  m.attrs = (Attr[]){other, alias};
  m.nattrs = 2;
  StrBuf sb;
  sb_init(&sb);
  print_module(&sb, &m);
  char *got = sb_take(&sb);
  cr_expect_str_eq(got,
                   "HloModule mod, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }, "
                   "entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{1,0}}, num_partitions=3, "
                   "new_header_thing=7\n"
                   "\n"
                   "%side (a: f32[2]) -> f32[2] {\n"
                   "  %a = f32[2]{0} parameter(0)\n"
                   "  ROOT %n = f32[2]{0} negate(f32[2]{0} %a)\n"
                   "}, execution_thread=\"host\"\n"
                   "\n"
                   "ENTRY %main (p: f32[2,3]) -> f32[2,3] {\n"
                   "  %p = f32[2,3]{0,1} parameter(0)\n"
                   "  ROOT %c = f32[2,3]{1,0} copy(f32[2,3]{0,1} %p)\n"
                   "}\n");
  free(got);
}
