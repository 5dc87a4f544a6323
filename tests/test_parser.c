/* Parser and IR builder tests: literals of every form, attributes decoded
 * into typed values, layouts with every suffix, shapes, async sugar, inline
 * computations, header attributes, and robustness (100 MB line, deep
 * nesting). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "layout/etype_convert.h"
#include "parser/parser.h"

static Diags diags;

static Module *parse_ok(const char *text) {
  memset(&diags, 0, sizeof diags);
  Module *m = parse_module("t.hlo", text, strlen(text), &diags);
  if (!m)
    for (int i = 0; i < diags.count; i++)
      cr_log_error("offset %lld: %s", (long long)diags.items[i].offset, diags.items[i].msg);
  cr_assert_not_null(m, "parse failed");
  diags_free(&diags);
  return m;
}

static void parse_fails(const char *text, const char *frag) {
  memset(&diags, 0, sizeof diags);
  Module *m = parse_module("t.hlo", text, strlen(text), &diags);
  cr_assert_null(m, "parse succeeded: %s", text);
  cr_assert(diags.count > 0);
  bool found = false;
  for (int i = 0; i < diags.count; i++) found |= strstr(diags.items[i].msg, frag) != NULL;
  cr_expect(found, "no error containing '%s' (first: %s)", frag, diags.items[0].msg);
  diags_free(&diags);
}

/* By name, in the entry computation first. */
static Instr *find(const Module *m, const char *name) {
  for (int i = 0; i < m->entry->ninstrs; i++)
    if (strcmp(m->entry->instrs[i]->name, name) == 0) return m->entry->instrs[i];
  for (int c = 0; c < m->ncomps; c++)
    for (int i = 0; i < m->comps[c]->ninstrs; i++)
      if (strcmp(m->comps[c]->instrs[i]->name, name) == 0) return m->comps[c]->instrs[i];
  cr_assert_fail("no instruction %s", name);
  return NULL;
}

static Computation *find_comp(const Module *m, const char *name) {
  for (int c = 0; c < m->ncomps; c++)
    if (strcmp(m->comps[c]->name, name) == 0) return m->comps[c];
  cr_assert_fail("no computation %s", name);
  return NULL;
}

/* A module whose entry is "ENTRY e { <body> }". */
static Module *parse_body(const char *body) {
  static char buf[1 << 16];
  snprintf(buf, sizeof buf,
           "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
           "  ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n%s\n}\n",
           body);
  return parse_ok(buf);
}

static Literal *lit_of(const char *decl) {
  char body[4096];
  snprintf(body, sizeof body, "  ROOT c = %s", decl);
  Module *m = parse_body(body);
  Literal *l = find(m, "c")->literal;
  cr_assert_not_null(l);
  return l; /* module leaks into the test process: fine for tests */
}

/* ---- module structure ---- */

Test(parser, axpy_example) {
  Module *m = parse_ok(
      "HloModule axpy, entry_computation_layout={(f32[], f32[4]{0}, f32[4]{0})->f32[4]{0}}\n\n"
      "ENTRY main (alpha: f32[], x: f32[4], y: f32[4]) -> f32[4] {\n"
      "  alpha = f32[] parameter(0)\n  x = f32[4]{0} parameter(1)\n  y = f32[4]{0} parameter(2)\n"
      "  b = f32[4]{0} broadcast(alpha), dimensions={}\n  ax = f32[4]{0} multiply(b, x)\n"
      "  ROOT r = f32[4]{0} add(ax, y), metadata={op_name=\"axpy/add\"}\n}\n");
  cr_expect_str_eq(m->name, "axpy");
  cr_assert_eq(m->ncomps, 1);
  Computation *e = m->entry;
  cr_expect_str_eq(e->name, "main");
  cr_expect(e->is_entry);
  cr_expect_eq(e->ninstrs, 6);
  cr_expect_eq(e->nparams, 3);
  cr_expect_str_eq(e->params[2]->name, "y");
  cr_expect_str_eq(e->root->name, "r");
  cr_expect(e->root->is_root);
  cr_expect(e->has_signature);
  cr_expect_eq(e->nsig_params, 3);
  cr_expect_str_eq(e->sig_param_names[1], "x");
  Instr *r = e->root;
  cr_expect_eq(r->op, OP_ADD);
  cr_assert_eq(r->noperands, 2);
  cr_expect_str_eq(r->operands[0]->name, "ax");
  cr_expect_eq(r->operands[1], e->params[2]);
  cr_expect_eq(m->replica_count, 1);
  cr_expect_eq(m->num_partitions, 1);
  cr_expect(m->has_entry_layout);
  cr_expect_eq(m->nentry_params, 3);
  cr_expect_eq(m->entry_params[1].dims[0], 4);
  cr_expect_eq(m->entry_result.etype, ET_F32);
  const Attr *md = ir_attr(r, ATTR_METADATA);
  cr_assert_not_null(md);
  cr_expect_eq(md->kind, AV_RAW);
  cr_expect_str_eq(md->v.s, "{op_name=\"axpy/add\"}");
  module_free(m);
}

Test(parser, long_form_with_percent_names_and_operand_shapes) {
  Module *m = parse_ok(
      "HloModule m\n\nENTRY %e (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n"
      "  ROOT %r = f32[4]{0} add(f32[4]{0} %p, f32[4]{0} p), /*index=5*/ metadata={}\n}\n");
  cr_expect_eq(m->entry->root->operands[0], m->entry->root->operands[1]);
  module_free(m);
}

Test(parser, headerless_module_takes_last_computation) {
  Module *m = parse_ok("fused {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(p)\n}\n\n"
                       "main {\n  p = f32[2] parameter(0)\n  ROOT f = f32[2] fusion(p), kind=kLoop, calls=fused\n}\n");
  cr_expect(!m->has_header);
  cr_expect_str_eq(m->entry->name, "main");
  cr_expect_str_eq(m->name, "module_main");
  Instr *f = find(m, "f");
  cr_expect_eq(ir_attr(f, ATTR_CALLS)->v.comp, find_comp(m, "fused"));
  cr_expect_str_eq(ir_attr(f, ATTR_KIND)->v.s, "kLoop");
  module_free(m);
}

Test(parser, entry_marker_wins_and_root_defaults_to_last) {
  Module *m = parse_ok("HloModule m\nENTRY a {\n  ROOT p = f32[] parameter(0)\n}\n"
                       "b {\n  p = f32[] parameter(0)\n  q = f32[] negate(p)\n}\n");
  cr_expect_str_eq(m->entry->name, "a");
  Computation *b = find_comp(m, "b");
  cr_expect_str_eq(b->root->name, "q");
  cr_expect(!b->root->is_root);
  module_free(m);
}

Test(parser, header_attributes) {
  Module *m = parse_ok(
      "HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}) }, "
      "buffer_donor={ (0, {}) }, replica_count=2, num_partitions=4, my_flag=xyz, "
      "allow_spmd_sharding_propagation_to_output={true,false}, frontend_attributes={a=\"b\"}\n"
      "ENTRY e {\n  ROOT p = (f32[], f32[]) parameter(0)\n}\n");
  cr_expect(m->is_scheduled);
  cr_expect_eq(m->replica_count, 2);
  cr_expect_eq(m->num_partitions, 4);
  cr_assert_eq(m->nattrs, 8);
  cr_expect_str_eq(m->attrs[1].name, "input_output_alias");
  cr_expect_str_eq(m->attrs[1].v.s, "{ {0}: (0, {}, may-alias), {1}: (1, {}) }");
  cr_expect_str_eq(m->attrs[5].name, "my_flag");
  cr_expect_str_eq(m->attrs[5].v.s, "xyz");
  cr_expect_eq(m->attrs[7].key, ATTR_FRONTEND_ATTRIBUTES);
  cr_expect(!m->has_entry_layout);
  cr_expect_eq(m->nentry_params, 1);
  cr_expect_eq(m->entry_params[0].etype, ET_TUPLE);
  module_free(m);
}

Test(parser, execution_thread) {
  Module *m = parse_ok("HloModule m\nc {\n  ROOT p = f32[] parameter(0)\n}, execution_thread=\"x\"\n"
                       "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  cr_expect_str_eq(find_comp(m, "c")->execution_thread, "x");
  cr_expect_null(m->entry->execution_thread);
  module_free(m);
}

Test(parser, inferred_shapes) {
  Module *m = parse_body("  p = (f32[2], s32[]) parameter(0)\n  g = get-tuple-element(p), index=1\n"
                         "  a = f32[2] get-tuple-element(p), index=0\n  n = negate(a)\n"
                         "  c = compare(a, n), direction=LT\n  ROOT t = tuple(c, g)");
  cr_expect_eq(find(m, "g")->shape.etype, ET_S32);
  cr_expect_eq(find(m, "n")->shape.etype, ET_F32);
  cr_expect_eq(find(m, "c")->shape.etype, ET_PRED);
  cr_expect_eq(find(m, "c")->shape.dims[0], 2);
  cr_expect_eq(find(m, "t")->shape.ntuple, 2);
  module_free(m);
}

Test(parser, nested_operands) {
  Module *m = parse_body("  ROOT r = f32[10] sqrt(f32[10] broadcast(f32[] parameter(0)))");
  Instr *r = find(m, "r");
  cr_assert_eq(r->noperands, 1);
  cr_expect_eq(r->operands[0]->op, OP_BROADCAST);
  cr_expect_eq(r->operands[0]->operands[0]->op, OP_PARAMETER);
  cr_expect_eq(m->entry->nparams, 1);
  cr_expect_eq(m->entry->ninstrs, 3);
  module_free(m);
}

Test(parser, name_errors) {
  parse_fails("HloModule m\n", "end of file");
  parse_fails("HloModule m\nENTRY a {\n ROOT p = f32[] parameter(0)\n}\nENTRY b {\n ROOT p = f32[] parameter(0)\n}\n",
              "only one ENTRY");
  parse_fails("HloModule m\nENTRY a {\n ROOT p = f32[] parameter(0)\n ROOT q = f32[] negate(p)\n}\n",
              "more than one ROOT");
  parse_fails("HloModule m\nENTRY a {\n r = f32[] negate(q)\n ROOT q = f32[] parameter(0)\n}\n",
              "instruction does not exist: q");
  parse_fails("HloModule m\nENTRY a {\n p = f32[] parameter(0)\n ROOT p = f32[] negate(p)\n}\n",
              "already defined");
  parse_fails("HloModule m\nENTRY a {\n ROOT p = f32[] parameter(0), control-predecessors={z}\n}\n",
              "instruction does not exist: z");
}

/* ---- literals ---- */

static float f32_at(const Literal *l, int i) { return ((const float *)l->data)[i]; }

Test(parser, literal_scalars_and_arrays) {
  Literal *l = lit_of("f32[] constant(1.5)");
  cr_expect_eq(f32_at(l, 0), 1.5f);
  l = lit_of("s32[3] constant({1, -2, 3})");
  cr_expect_eq(((int32_t *)l->data)[1], -2);
  l = lit_of("f32[2,3]{1,0} constant({ { 1, 2, 3 }, { 4, 5, 6 } })");
  cr_expect_eq(f32_at(l, 5), 6.0f);
  cr_expect_eq(l->nbytes, 24);
  /* Layout does not change the (row-major) element order. */
  l = lit_of("f32[2,2]{0,1} constant({ { 1, 2 }, { 3, 4 } })");
  cr_expect_eq(f32_at(l, 1), 2.0f);
  /* Commas are optional. */
  l = lit_of("s8[3] constant({1 2 3})");
  cr_expect_eq(((int8_t *)l->data)[2], 3);
  l = lit_of("f32[0] constant({})");
  cr_expect_eq(l->nbytes, 0);
  l = lit_of("f32[2,0] constant({ {}, {} })");
  cr_expect(!l->elided);
}

Test(parser, literal_pred_complex_special) {
  Literal *l = lit_of("pred[4] constant({1, 0, true, false})");
  const uint8_t *p = l->data;
  cr_expect(p[0] == 1 && p[1] == 0 && p[2] == 1 && p[3] == 0);
  l = lit_of("pred[] constant(true)");
  cr_expect_eq(*(uint8_t *)l->data, 1);
  l = lit_of("c64[2] constant({(1, 0), (0.5, -2)})");
  const float *c = l->data;
  cr_expect(c[0] == 1 && c[1] == 0 && c[2] == 0.5f && c[3] == -2);
  l = lit_of("c128[] constant((3, 4))");
  cr_expect_eq(((double *)l->data)[1], 4.0);
  l = lit_of("f32[4] constant({inf, -inf, nan, -nan})");
  cr_expect(isinf(f32_at(l, 0)) && f32_at(l, 0) > 0);
  cr_expect(isinf(f32_at(l, 1)) && f32_at(l, 1) < 0);
  cr_expect(isnan(f32_at(l, 2)) && !signbit(f32_at(l, 2)));
  cr_expect(isnan(f32_at(l, 3)) && signbit(f32_at(l, 3)));
  l = lit_of("bf16[] constant(nan(0x1))");
  uint16_t bits = *(uint16_t *)l->data;
  cr_expect_eq(bits & 0x7f, 1, "bf16 NaN payload: 0x%04x", bits);
  l = lit_of("u64[] constant(18446744073709551615)");
  cr_expect_eq(*(uint64_t *)l->data, UINT64_MAX);
  l = lit_of("f16[] constant(65519)");
  cr_expect_eq(*(uint16_t *)l->data, 0x7bff); /* rounds to 65504 */
  l = lit_of("s4[2] constant({-8, 7})");
  cr_expect_eq(((int8_t *)l->data)[0], -8);
}

Test(parser, literal_tuple_and_elided) {
  Literal *l = lit_of("(f32[], s32[2]) constant((1, {2, 3}))");
  cr_assert_eq(l->ntuple, 2);
  cr_expect_eq(*(float *)l->tuple[0].data, 1.0f);
  cr_expect_eq(((int32_t *)l->tuple[1].data)[1], 3);
  l = lit_of("f32[1000]{0} constant({...})");
  cr_expect(l->elided);
  cr_expect_null(l->data);
  l = lit_of("f32[1000,1000] constant({...})");
  cr_expect(l->elided);
  /* XLA quirk: a bare scalar for an array sets element 0. */
  l = lit_of("f32[3,3] constant(1)");
  cr_expect_eq(f32_at(l, 0), 1.0f);
  cr_expect_eq(f32_at(l, 8), 0.0f);
}

Test(parser, literal_errors) {
  parse_fails("HloModule m\nENTRY e {\n ROOT c = f32[3] constant({1, 2})\n}\n", "expects 3 elements");
  parse_fails("HloModule m\nENTRY e {\n ROOT c = f32[2,2] constant({1, 2})\n}\n", "rank 2, but sees 1");
  parse_fails("HloModule m\nENTRY e {\n ROOT c = f16[] constant(65520)\n}\n", "out of range");
  parse_fails("HloModule m\nENTRY e {\n ROOT c = u4[] constant(16)\n}\n", "out of range");
  parse_fails("HloModule m\nENTRY e {\n ROOT c = s4[] constant(-9)\n}\n", "out of range");
  parse_fails("HloModule m\nENTRY e {\n ROOT c = s32[] constant(1.5)\n}\n", "expects an integer");
  parse_fails("HloModule m\nENTRY e {\n ROOT c = f32[] constant((1, 2))\n}\n", "only for tuples and complex");
  parse_fails("HloModule m\nENTRY e {\n ROOT c = (f32[], f32[]) constant((1))\n}\n", "expects 2 elements in tuple");
  parse_fails("HloModule m\nENTRY e {\n ROOT c = f32[2] constant({1, ...})\n}\n", "'...'");
  parse_fails("HloModule m\nENTRY e {\n ROOT c = f32[] constant({...})\n}\n", "scalar");
  parse_fails("HloModule m\nENTRY e {\n ROOT c = f8e4m3fn[] constant(nan(0x5))\n}\n", "NaN payload");
}

/* ---- attributes ---- */

static void expect_ints(IntList l, const int64_t *want, int n) {
  cr_assert_eq(l.n, n, "list has %d entries, want %d", l.n, n);
  for (int i = 0; i < n; i++) cr_expect_eq(l.v[i], want[i], "entry %d", i);
}
#define INTS(l, ...)                                              \
  do {                                                            \
    const int64_t w_[] = {__VA_ARGS__};                           \
    expect_ints(l, w_, (int)(sizeof w_ / sizeof w_[0]));          \
  } while (0)

Test(parser, attribute_scalars_enums_lists) {
  Module *m = parse_body(
      "  p = f32[2,3] parameter(0)\n"
      "  t = f32[3,2] transpose(p), dimensions={1,0}\n"
      "  c = pred[2,3] compare(p, p), direction=LT, type=TOTALORDER\n"
      "  g = f32[2] get-tuple-element((f32[2]) parameter(1)), index=0\n"
      "  b = (f32[2,3], f32[3], f32[3]) batch-norm-training(p, f32[3] parameter(2), f32[3] parameter(3)), epsilon=0.001, feature_index=1\n"
      "  d = f32[2,2] dot(p, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={default,HIGHEST}, algorithm=dot_f32_f32_f32\n"
      "  r = f32[2,3] rng(f32[] parameter(4), f32[] parameter(5)), distribution=rng_uniform\n"
      "  ROOT x = f32[2] custom-call(g), custom_call_target=\"foo\\n\", backend_config={\"k\": {}}, "
      "custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI, parameter_replication={true,false}");
  INTS(ir_attr(find(m, "t"), ATTR_DIMENSIONS)->v.ints, 1, 0);
  cr_expect_str_eq(ir_attr(find(m, "c"), ATTR_DIRECTION)->v.s, "LT");
  cr_expect_str_eq(ir_attr(find(m, "c"), ATTR_TYPE)->v.s, "TOTALORDER");
  cr_expect_eq(ir_attr(find(m, "g"), ATTR_INDEX)->v.i, 0);
  cr_expect_float_eq(ir_attr(find(m, "b"), ATTR_EPSILON)->v.f, 0.001, 1e-12);
  const Attr *prec = ir_attr(find(m, "d"), ATTR_OPERAND_PRECISION);
  cr_assert_eq(prec->v.enums.n, 2);
  cr_expect_str_eq(prec->v.enums.v[1], "HIGHEST");
  INTS(ir_attr(find(m, "d"), ATTR_LHS_CONTRACTING_DIMS)->v.ints, 1);
  cr_expect_str_eq(ir_attr(find(m, "r"), ATTR_DISTRIBUTION)->v.s, "rng_uniform");
  Instr *x = find(m, "x");
  cr_expect_str_eq(ir_attr(x, ATTR_CUSTOM_CALL_TARGET)->v.s, "foo\n");
  const Attr *bc = ir_attr(x, ATTR_BACKEND_CONFIG);
  cr_expect(bc->is_raw);
  cr_expect_str_eq(bc->v.s, "{\"k\": {}}");
  cr_expect(ir_attr(x, ATTR_CUSTOM_CALL_HAS_SIDE_EFFECT)->v.b);
  const Attr *pr = ir_attr(x, ATTR_PARAMETER_REPLICATION);
  cr_expect(pr->v.bools.n == 2 && pr->v.bools.v[0] && !pr->v.bools.v[1]);
  module_free(m);
}

Test(parser, attribute_slice_padding_window_dim_labels) {
  Module *m = parse_body(
      "  p = f32[8,8] parameter(0)\n  z = f32[] constant(0)\n"
      "  s = f32[2,4] slice(p), slice={[0:2], [1:9:2]}\n"
      "  q = f32[11,19] pad(p, z), padding=0_1x2_3_1\n"
      "  w = f32[4,4] reduce-window(p, z), window={size=2x3 stride=2x1 pad=0_1x1_1 rhs_reversal=0x1}, to_apply=add\n"
      "  k = f32[3,3,1,1] parameter(1)\n"
      "  ROOT c = f32[8,8,1,1] convolution(f32[8,8,1,1] parameter(2), k), window={size=3x3 pad=1_1x1_1}, dim_labels=01bf_01io->01bf");
  const Attr *s = ir_attr(find(m, "s"), ATTR_SLICE);
  cr_assert_eq(s->v.slice.n, 2);
  cr_expect(s->v.slice.dims[1].start == 1 && s->v.slice.dims[1].limit == 9 && s->v.slice.dims[1].stride == 2);
  cr_expect_eq(s->v.slice.dims[0].stride, 1);
  const Attr *q = ir_attr(find(m, "q"), ATTR_PADDING);
  cr_assert_eq(q->v.padding.n, 2);
  cr_expect(q->v.padding.has_interior);
  cr_expect(q->v.padding.dims[1].lo == 2 && q->v.padding.dims[1].hi == 3 && q->v.padding.dims[1].interior == 1);
  const Attr *w = ir_attr(find(m, "w"), ATTR_WINDOW);
  cr_assert_eq(w->v.window.rank, 2);
  cr_expect_eq(w->v.window.dims[1].size, 3);
  cr_expect_eq(w->v.window.dims[0].stride, 2);
  cr_expect_eq(w->v.window.dims[0].pad_hi, 1);
  cr_expect_eq(w->v.window.dims[1].lhs_dilate, 1);
  cr_expect(w->v.window.dims[1].reversal && !w->v.window.dims[0].reversal);
  cr_expect_eq(w->v.window.fields_written, WIN_SIZE | WIN_STRIDE | WIN_PAD | WIN_REVERSAL);
  const ConvDims *cd = &ir_attr(find(m, "c"), ATTR_DIM_LABELS)->v.conv;
  cr_expect_eq(cd->nspatial, 2);
  cr_expect_eq(cd->input_batch, 2);
  cr_expect_eq(cd->input_feature, 3);
  cr_expect_eq(cd->input_spatial[1], 1);
  cr_expect_eq(cd->kernel_input_feature, 2);
  cr_expect_eq(cd->kernel_output_feature, 3);
  cr_expect_str_eq(cd->text, "01bf_01io->01bf");
  module_free(m);
}

Test(parser, attribute_gather_scatter) {
  Module *m = parse_body(
      "  o = f32[3,3] parameter(0)\n  i = s32[2] parameter(1)\n"
      "  g = f32[2,3] gather(o, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}, indices_are_sorted=true\n"
      "  ROOT s = f32[3,3] scatter(o, s32[2,1] parameter(2), f32[2,3] parameter(3)), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add, unique_indices=true");
  Instr *g = find(m, "g");
  const Attr *ss = ir_attr(g, ATTR_SLICE_SIZES);
  cr_expect_eq(ss->v.lists.depth, 1);
  INTS(ss->v.lists.flat, 1, 3);
  cr_expect_eq(ir_attr(g, ATTR_INDEX_VECTOR_DIM)->v.i, 1);
  Instr *s = find(m, "s");
  cr_expect_eq(ir_attr(s, ATTR_TO_APPLY)->v.comp, find_comp(m, "add"));
  INTS(ir_attr(s, ATTR_SCATTER_DIMS_TO_OPERAND_DIMS)->v.ints, 0);
  module_free(m);
}

Test(parser, replica_groups_explicit_and_iota) {
  Module *m = parse_body(
      "  p = f32[4] parameter(0)\n"
      "  a = f32[4] all-reduce(p), replica_groups={{0,1},{2,3}}, to_apply=add, channel_id=1\n"
      "  b = f32[4] all-reduce(p), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=add\n"
      "  c = f32[4] all-reduce(p), replica_groups=[2,2]<=[4], to_apply=add\n"
      "  d = f32[4] all-reduce(p), replica_groups={}, to_apply=add\n"
      "  e2 = f32[4] all-reduce(p), replica_groups=[1,8]<=[2,2,2]T(2,0,1), to_apply=add\n"
      "  ROOT cp = f32[4] collective-permute(p), source_target_pairs={{0,1},{1,2},{2,0}}");
  const ReplicaGroups *a = &ir_attr(find(m, "a"), ATTR_REPLICA_GROUPS)->v.groups;
  cr_assert_eq(a->ngroups, 2);
  INTS(a->groups[1], 2, 3);
  const ReplicaGroups *b = &ir_attr(find(m, "b"), ATTR_REPLICA_GROUPS)->v.groups;
  cr_expect(b->iota);
  cr_assert_eq(b->ngroups, 2);
  INTS(b->groups[0], 0, 2);
  INTS(b->groups[1], 1, 3);
  INTS(b->iota_perm, 1, 0);
  const ReplicaGroups *c = &ir_attr(find(m, "c"), ATTR_REPLICA_GROUPS)->v.groups;
  INTS(c->groups[0], 0, 1);
  INTS(c->groups[1], 2, 3);
  cr_expect_eq(c->iota_perm.n, 0);
  cr_expect_eq(ir_attr(find(m, "d"), ATTR_REPLICA_GROUPS)->v.groups.ngroups, 0);
  /* iota(8) as [2,2,2], transposed (2,0,1): element [i,j,k] = 4j + 2k + i. */
  const ReplicaGroups *e2 = &ir_attr(find(m, "e2"), ATTR_REPLICA_GROUPS)->v.groups;
  INTS(e2->groups[0], 0, 2, 4, 6, 1, 3, 5, 7);
  const Attr *st = ir_attr(find(m, "cp"), ATTR_SOURCE_TARGET_PAIRS);
  cr_assert_eq(st->v.lists.depth, 2);
  cr_assert_eq(st->v.lists.n, 3);
  INTS(st->v.lists.lists[2], 2, 0);
  module_free(m);
}

Test(parser, called_computations_by_name_and_inline) {
  Module *m = parse_body(
      "  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
      "  r = f32[] reduce(p, z), dimensions={0}, to_apply={ x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT m = f32[] maximum(x, y) }\n"
      "  i = s32[] parameter(1)\n"
      "  k = f32[] conditional(i, z, z), branch_computations={add, add}\n"
      "  ROOT w = f32[] call(r, k), to_apply=add, control-predecessors={i}");
  Computation *in = ir_attr(find(m, "r"), ATTR_TO_APPLY)->v.comp;
  cr_assert_not_null(in);
  cr_expect_str_eq(in->name, "_");
  cr_expect_eq(in->ninstrs, 3);
  cr_expect_eq(in->root->op, OP_MAXIMUM);
  /* Callees come before callers in module order. */
  cr_expect(in->index < m->entry->index);
  const Attr *bc = ir_attr(find(m, "k"), ATTR_BRANCH_COMPUTATIONS);
  cr_expect_eq(bc->v.comps.n, 2);
  const Attr *cp = ir_attr(find(m, "w"), ATTR_CONTROL_PREDECESSORS);
  cr_assert_eq(cp->v.instrs.n, 1);
  cr_expect_eq(cp->v.instrs.v[0], find(m, "i"));
  module_free(m);
}

Test(parser, metadata_sharding_and_unknown_kept_verbatim) {
  Module *m = parse_body(
      "  ROOT p = f32[4] parameter(0), sharding={devices=[2,2]<=[4] last_tile_dim_replicate}, "
      "metadata={op_type=\"Add\" op_name=\"jit(f)/add\" source_file=\"f.py\" source_line=12 profile_type={1}}, "
      "frontend_attributes={_xla_x=\"1\", k={raw {}}}, origin={({\"a\" {0}}, {\"b\"})}, "
      "statistics={visualizing_index=1,stat0=0.5}, my_attr=foo(1){2}, other=7");
  Instr *p = find(m, "p");
  cr_expect_str_eq(ir_attr(p, ATTR_SHARDING)->v.s, "{devices=[2,2]<=[4] last_tile_dim_replicate}");
  cr_expect_str_eq(ir_attr(p, ATTR_FRONTEND_ATTRIBUTES)->v.s, "{_xla_x=\"1\", k={raw {}}}");
  cr_expect_str_eq(ir_attr(p, ATTR_ORIGIN)->v.s, "{({\"a\" {0}}, {\"b\"})}");
  cr_assert_eq(p->nattrs, 7);
  cr_expect_eq(p->attrs[5].key, ATTR_UNKNOWN);
  cr_expect_str_eq(p->attrs[5].name, "my_attr");
  cr_expect_eq(p->attrs[5].kind, AV_RAW);
  cr_expect_str_eq(p->attrs[5].v.s, "foo(1){2}");
  cr_expect_str_eq(p->attrs[6].v.s, "7");
  module_free(m);
  m = parse_body("  p = (f32[], f32[]) parameter(0), sharding={{replicated}, {maximal device=1}}\n"
                 "  g = f32[] get-tuple-element(p), index=0\n"
                 "  ROOT x = f32[] exponential(g), result_accuracy={tolerance={atol=0,rtol=0,ulps=1}}");
  module_free(m);
  /* result_accuracy belongs to the transcendental unary ops only (XLA). */
  parse_fails("HloModule m\nENTRY e {\n ROOT p = f32[] parameter(0), result_accuracy={mode=highest}\n}\n",
              "unexpected attribute \"result_accuracy\"");
  parse_fails("HloModule m\nENTRY e {\n ROOT p = f32[] parameter(0), sharding={devices=[3]0,1}\n}\n",
              "needs 3 devices");
  parse_fails("HloModule m\nENTRY e {\n ROOT p = f32[] exponential(f32[] parameter(0)), result_accuracy={mode=foo}\n}\n",
              "result_accuracy mode");
}

Test(parser, custom_call_literal_and_shapes) {
  Module *m = parse_body(
      "  ROOT c = f32[2] custom-call(), custom_call_target=\"x\", literal=s32[2]{0} {1, 2}, "
      "operand_layout_constraints={}, outfeed_shape=(f32[2]{0}, s32[])");
  Instr *c = find(m, "c");
  Literal *l = ir_attr(c, ATTR_LITERAL)->v.literal;
  cr_assert_not_null(l);
  cr_expect_eq(((int32_t *)l->data)[1], 2);
  cr_expect_eq(ir_attr(c, ATTR_OUTFEED_SHAPE)->v.shape->ntuple, 2);
  module_free(m);
}

/* ---- shapes and layouts ---- */

static Shape shape_of(const char *shape_text) {
  char body[1024];
  snprintf(body, sizeof body, "  ROOT p = %s parameter(0)", shape_text);
  Module *m = parse_body(body);
  return find(m, "p")->shape;
}

Test(parser, shapes) {
  Shape s = shape_of("f32[2,3]");
  cr_expect_eq(s.rank, 2);
  cr_expect(s.layout.minor_to_major[0] == 1 && s.layout.minor_to_major[1] == 0);
  s = shape_of("f32[<=8,?]");
  cr_expect(s.dynamic[0] && s.dynamic[1]);
  cr_expect_eq(s.dims[0], 8);
  cr_expect_eq(s.dims[1], SHAPE_DIM_UNBOUNDED);
  s = shape_of("(f32[2], (s32[], pred[3]), ())");
  cr_expect_eq(s.etype, ET_TUPLE);
  cr_expect_eq(s.tuple[1].tuple[1].etype, ET_PRED);
  cr_expect_eq(s.tuple[2].ntuple, 0);
  s = shape_of("token[]");
  cr_expect_eq(s.etype, ET_TOKEN);
  s = shape_of("b(f32[2])");
  cr_expect_eq(s.etype, ET_BUFFER);
  cr_expect_eq(s.tuple[0].dims[0], 2);
  s = shape_of("f32[]{:S(5)}");
  cr_expect_eq(s.layout.memory_space, 5);
}

Test(parser, layouts_with_every_suffix) {
  Shape s = shape_of("bf16[256,128]{0,1:D(D,C+~)T(8,128)(2,1)(*,2)L(8)#(u16)*(u32)E(4)S(1)SC(0:3,7)(1:)M(16)}");
  const Layout *l = &s.layout;
  cr_expect(l->minor_to_major[0] == 0 && l->minor_to_major[1] == 1);
  cr_assert_eq(l->ntiles, 3);
  cr_expect(l->tiles[0].rank == 2 && l->tiles[0].dims[0] == 8 && l->tiles[0].dims[1] == 128);
  cr_expect_eq(l->tiles[2].dims[0], TILE_DIM_COMBINE);
  cr_expect_eq(l->tail_padding_alignment, 8);
  cr_expect_eq(l->index_type, ET_U16);
  cr_expect_eq(l->pointer_type, ET_U32);
  cr_expect_eq(l->element_size_bits, 4);
  cr_expect_eq(l->memory_space, 1);
  cr_assert_eq(l->nsplits, 2);
  cr_expect_eq(l->splits[0].dimension, 0);
  cr_expect(l->splits[0].nindices == 2 && l->splits[0].indices[1] == 7);
  cr_expect_eq(l->splits[1].nindices, 0);
  cr_expect_eq(l->dynamic_metadata_bytes, 16);
  parse_fails("HloModule m\nENTRY e {\n ROOT p = f32[4]{0:S(1)T(2)} parameter(0)\n}\n", "must come before 'S'");
  parse_fails("HloModule m\nENTRY e {\n ROOT p = f32[4]{0:E(4)E(4)} parameter(0)\n}\n", "appears twice");
  parse_fails("HloModule m\nENTRY e {\n ROOT p = f32[4]{0:P(f32[4])} parameter(0)\n}\n", "physical shape");
  parse_fails("HloModule m\nENTRY e {\n ROOT p = f32[4]{0:D(Z)} parameter(0)\n}\n", "dimension level type");
  parse_fails("HloModule m\nENTRY e {\n ROOT p = f32[4]{0:#(s16)} parameter(0)\n}\n", "unsigned");
  parse_fails("HloModule m\nENTRY e {\n ROOT p = f32[4]{0:T(-2)} parameter(0)\n}\n", "tile size -2 is invalid");
}

/* ---- async ---- */

Test(parser, async_sugar_and_generic_async) {
  Module *m = parse_body(
      "  p = f32[8] parameter(0)\n"
      "  s = ((f32[8]), f32[8], u32[]) custom-call-start(p), custom_call_target=\"foo\"\n"
      "  u = ((f32[8]), f32[8], u32[]) custom-call-update(s)\n"
      "  d = f32[8] custom-call-done(u)\n"
      "  a = ((f32[8]), f32[8], s32[]) async-start(p), calls={ x = f32[8] parameter(0)  ROOT n = f32[8] negate(x) }\n"
      "  ROOT b = f32[8] async-done(a)");
  Instr *s = find(m, "s");
  cr_expect_eq(s->op, OP_ASYNC_START);
  cr_expect_eq(s->wrapped_op, OP_CUSTOM_CALL);
  cr_expect_eq(find(m, "u")->op, OP_ASYNC_UPDATE);
  cr_expect_eq(find(m, "d")->op, OP_ASYNC_DONE);
  cr_expect_eq(find(m, "d")->wrapped_op, OP_CUSTOM_CALL);
  cr_expect_eq(find(m, "a")->wrapped_op, OP_INVALID);
  /* Real async opcodes are not sugar. */
  module_free(m);
  m = parse_body("  p = f32[8] parameter(0)\n  s = f32[8] all-reduce-start(p), to_apply=add\n"
                 "  ROOT d = f32[8] all-reduce-done(s)");
  cr_expect_eq(find(m, "s")->op, OP_ALL_REDUCE_START);
  cr_expect_eq(find(m, "s")->wrapped_op, OP_INVALID);
  module_free(m);
  parse_fails("HloModule m\nENTRY e {\n p = f32[] parameter(0)\n ROOT d = f32[] fusion-done(p)\n}\n",
              "expects an async-start");
  parse_fails("HloModule m\nENTRY e {\n ROOT d = f32[] bogus-start()\n}\n", "unknown opcode");
}

/* ---- robustness ---- */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

Test(parser, hundred_megabyte_line, .timeout = 120) {
  const size_t big = 100u << 20;
  const char *head = "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0), metadata={op_name=\"";
  const char *tail = "\"}\n}\n";
  size_t hl = strlen(head), tl = strlen(tail);
  char *text = malloc(hl + big + tl + 16);
  cr_assert_not_null(text);
  memcpy(text, head, hl);
  memset(text + hl, 'x', big);
  memcpy(text + hl + big, tail, tl + 1);
  size_t len = hl + big + tl;
  Diags d = {0};
  double t0 = now();
  Module *m = parse_module("big.hlo", text, len, &d);
  double t1 = now();
  cr_expect_not_null(m, "a 100 MB metadata string must parse");
  cr_expect(t1 - t0 < 30, "took %.1f s", t1 - t0);
  module_free(m);
  /* The same line with an error at its end: reported, and the rendered
   * diagnostic stays short. */
  memcpy(text + hl + big, "\"}, bogus\n}\n", 13);
  len = hl + big + 12;
  m = parse_module("big.hlo", text, len, &d);
  cr_expect_null(m);
  cr_assert(d.count >= 1);
  char *r = diag_render("big.hlo", text, len, d.items[0].offset, d.items[0].msg);
  cr_expect(strlen(r) < 1024, "rendered diagnostic is %zu bytes", strlen(r));
  cr_expect(strstr(r, "big.hlo:3:"), "%s", r);
  free(r);
  diags_free(&d);
  free(text);
}

Test(parser, deep_nesting_does_not_overflow) {
  const size_t n = 100000;
  const char *head = "HloModule m\nENTRY e {\n  ROOT p = ";
  size_t hl = strlen(head);
  char *text = malloc(hl + 2 * n + 64);
  memcpy(text, head, hl);
  memset(text + hl, '(', n);
  strcpy(text + hl + n, " parameter(0)\n}\n");
  Diags d = {0};
  cr_expect_null(parse_module("deep.hlo", text, strlen(text), &d));
  cr_assert(d.count >= 1);
  cr_expect(strstr(d.items[0].msg, "nesting too deep"), "%s", d.items[0].msg);
  diags_free(&d);
  /* Braces in a literal, and a long run of "{{{{" in an attribute. */
  strcpy(text, "HloModule m\nENTRY e {\n  ROOT c = (f32[]) constant(");
  hl = strlen(text);
  memset(text + hl, '{', n);
  text[hl + n] = '\0';
  cr_expect_null(parse_module("deep.hlo", text, strlen(text), &d));
  diags_free(&d);
  free(text);
}

Test(parser, error_count_is_capped) {
  size_t cap = 1 << 20;
  char *text = malloc(cap);
  size_t k = (size_t)snprintf(text, cap, "HloModule m\nENTRY e {\n");
  /* distinct opcodes: identical messages would fold into one (base/diag.h) */
  for (int i = 0; i < 5000; i++)
    k += (size_t)snprintf(text + k, cap - k, "  x%d = f32[] bogus%d()\n", i, i);
  snprintf(text + k, cap - k, "}\n");
  Diags d = {0};
  cr_expect_null(parse_module("many.hlo", text, strlen(text), &d));
  cr_expect(d.count <= DIAGS_MAX, "%d diagnostics", d.count);
  cr_expect(d.count >= 10);
  diags_free(&d);
  free(text);
}

Test(parser, many_instructions_is_linear) {
  const int n = 200000;
  size_t cap = (size_t)n * 64 + 1024;
  char *text = malloc(cap);
  size_t k = (size_t)snprintf(text, cap, "HloModule m\nENTRY e {\n  x0 = f32[] parameter(0)\n");
  for (int i = 1; i < n; i++)
    k += (size_t)snprintf(text + k, cap - k, "  x%d = f32[] add(x%d, x%d)\n", i, i - 1, i / 2);
  snprintf(text + k, cap - k, "}\n");
  Diags d = {0};
  double t0 = now();
  Module *m = parse_module("many.hlo", text, strlen(text), &d);
  double t1 = now();
  cr_assert_not_null(m);
  cr_expect_eq(m->entry->ninstrs, n);
  cr_expect_eq(m->entry->instrs[n - 1]->operands[1], m->entry->instrs[(n - 1) / 2]);
  cr_expect(t1 - t0 < 20, "took %.1f s", t1 - t0);
  module_free(m);
  free(text);
}

/* ---- forms taken from XLA's parser tests (hlo_parser_test.cc) ---- */

Test(parser, xla_literal_range_rules) {
  /* u64 is range-checked as the int64 XLA parsed: -1 wraps to 2^64-1... */
  Literal *l = lit_of("u64[] constant(-1)");
  cr_expect_eq(*(uint64_t *)l->data, UINT64_MAX);
  /* ...but narrower unsigned types keep their range. */
  parse_fails("HloModule m\nENTRY e {\n  ROOT c = u32[] constant(-1)\n}\n", "out of range");
  /* A decimal beyond double's range is an error, for f64 too; inf is not. */
  parse_fails("HloModule m\nENTRY e {\n  ROOT c = f64[] constant(-1.8e308)\n}\n",
              "out of range for double");
  l = lit_of("f64[] constant(-inf)");
  cr_expect(isinf(*(double *)l->data) && *(double *)l->data < 0);
}

Test(parser, xla_brace_after_dims_is_a_layout_only_before_int_or_colon) {
  /* As XLA's ParseShape: "{" starts a layout only when an integer or ':'
   * follows, so "f32[]{}" is not a scalar with an empty layout. */
  parse_fails("HloModule m\nENTRY e {\n  ROOT x = f32[]{} parameter(0)\n}\n", "syntax error");
  Module *m = parse_ok("HloModule m\nENTRY e {\n  ROOT x = u32[]{:S(2)} parameter(0)\n}\n");
  cr_expect_eq(find(m, "x")->shape.rank, 0);
  module_free(m);
}

Test(parser, xla_literal_attr_with_element_shapes) {
  Module *m = parse_ok("HloModule m\nENTRY e {\n  ROOT c = f32[] custom-call(), custom_call_target=\"t\", "
                       "literal=( s32[2]{0} {3, 4}, (pred[] true, f32[] 0.5) )\n}\n");
  const Attr *a = ir_attr(find(m, "c"), ATTR_LITERAL);
  cr_assert(a && a->kind == AV_LITERAL && a->v.literal);
  const Literal *l = a->v.literal;
  cr_assert_eq(l->ntuple, 2);
  cr_expect_eq(((int32_t *)l->tuple[0].data)[1], 4);
  cr_assert_eq(l->tuple[1].ntuple, 2);
  cr_expect_eq(l->tuple[1].tuple[1].shape.etype, ET_F32);
  cr_expect_eq(*(float *)l->tuple[1].tuple[1].data, 0.5f);
  module_free(m);
}

Test(parser, xla_stack_frame_index_is_kept) {
  Module *m = parse_ok("HloModule m\n\nFileNames\n1 \"a.py\"\n\nStackFrames\n"
                       "1 {file_location_id=1 parent_frame_id=0}\n\n"
                       "ENTRY e {\n  ROOT c = f32[] constant(1), metadata={stack_frame_id=1}\n}\n");
  cr_assert_not_null(m->stack_index);
  cr_expect_str_eq(m->stack_index,
                   "FileNames\n1 \"a.py\"\n\nStackFrames\n1 {file_location_id=1 parent_frame_id=0}");
  cr_expect_str_eq(m->entry->name, "e");
  module_free(m);
}
