/* StableHLO ops with regions written as HLO: while, case, if, sort, map,
 * reduce_window, gather, scatter; and custom_call.
 *
 * A region became a computation taking its block arguments and then the
 * enclosing values it uses (captures, mlir_lookup).  HLO's while and
 * conditional pass one operand to each computation, so each region is
 * wrapped: a small computation unpacks the tuple and calls the region's. */
#include <stdio.h>
#include <string.h>

#include "parser/mlir_internal.h"
#include "parser/mlir_nn.h"

void mlir_no_captures(MState *st, const MOp *op, const MRegion *r) {
  if (r->ncapt)
    mlir_fail(st, r->off, "the region of %s uses %s from outside it: HLO's %s takes no such values", op->name,
              r->capt[0]->ssa, op->name);
}

static MType **types_alloc(MState *st, int n) {
  MType **t = arena_alloc_array(st->arena, (size_t)n + 1, sizeof *t);
  if (!t) mlir_fail(st, -1, "out of memory");
  return t;
}

static void check_types(MState *st, const MOp *op, const MRegion *r, int n, MType **want, bool results) {
  int got = results ? r->nresults : r->nargs;
  MType **have = results ? r->results : r->args;
  if (got != n)
    mlir_fail(st, r->off, "a region of %s has %d %s, %d expected", op->name, got, results ? "results" : "arguments", n);
  for (int i = 0; i < n; i++)
    if (!mlir_type_eq(have[i], want[i]))
      mlir_fail(st, r->off, "type mismatch: %s %d of this region of %s differs from the op's", results ? "result" : "argument",
                i, op->name);
}

/* "a, b" from HLO names. */
static const char *names_list(MState *st, const char **names, int n) {
  StrBuf *sb = mlir_sb(st);
  for (int i = 0; i < n; i++) sb_printf(sb, "%s%s", i ? ", " : "", names[i]);
  const char *r = mlir_strdup(st, sb->data ? sb->data : "", sb->len);
  sb_free(sb);
  return r;
}

/* A wrapper computation taking one tuple of type s: its elements
 * [first, first+n) and then [cfirst, cfirst+nc) go to the region's
 * computation.  Returns the call's HLO name (st->cur is the wrapper). */
static const char *unpack_call(MState *st, const MRegion *r, MType *s, const char **gtes, int first, int n,
                               int cfirst, int nc) {
  const char *p = mlir_line(st, r->off, "s", s, "parameter(0)");
  for (int i = 0; i < s->nelems; i++)
    gtes[i] = mlir_line(st, r->off, "g", s->elems[i], "get-tuple-element(%s), index=%d", p, i);
  const char *args[2 * MLIR_MAX_OPERANDS];
  for (int i = 0; i < n; i++) args[i] = gtes[first + i];
  for (int i = 0; i < nc; i++) args[n + i] = gtes[cfirst + i];
  MType *rt = r->nresults == 1 ? r->results[0] : mlir_tuple_of(st, r->results, r->nresults);
  return mlir_line(st, r->off, "c", rt, "call(%s), to_apply=%s", names_list(st, args, n + nc), r->comp);
}

static void emit_while(MState *st, MOp *op) {
  if (op->nregions != 2) mlir_fail(st, op->off, "while needs a cond and a body region");
  MRegion *c = op->regions[0], *b = op->regions[1];
  int n = op->nopnds, kc = c->ncapt, kb = b->ncapt, total = n + kc + kb;
  if (total > MLIR_MAX_OPERANDS) mlir_fail(st, op->off, "while carries too many values");
  MType **in = types_alloc(st, n);
  for (int i = 0; i < n; i++) in[i] = op->opnds[i]->type;
  if (op->nout != n) mlir_fail(st, op->off, "while has %d operands and %d results", n, op->nout);
  for (int i = 0; i < n; i++)
    if (!mlir_type_eq(in[i], op->out[i])) mlir_fail(st, op->opnd_off[i], "type mismatch: while operand %d and result %d differ", i, i);
  check_types(st, op, c, n, in, false);
  check_types(st, op, b, n, in, false);
  check_types(st, op, b, n, in, true);
  if (c->nresults != 1 || c->results[0]->kind != MT_TENSOR || strcmp(c->results[0]->etype, "pred") != 0 ||
      c->results[0]->rank != 0)
    mlir_fail(st, c->off, "the cond region of while must return one tensor<i1>");
  /* The loop state: iteration values, then cond's and body's captures. */
  MType **st_types = types_alloc(st, total);
  const char *init[MLIR_MAX_OPERANDS];
  for (int i = 0; i < n; i++) st_types[i] = in[i], init[i] = op->opnds[i]->hlo;
  for (int i = 0; i < kc; i++) st_types[n + i] = c->capt[i]->type, init[n + i] = c->capt[i]->hlo;
  for (int i = 0; i < kb; i++) st_types[n + kc + i] = b->capt[i]->type, init[n + kc + i] = b->capt[i]->hlo;
  MType *s = mlir_tuple_of(st, st_types, total);
  MComp *saved = st->cur;
  const char *gtes[MLIR_MAX_OPERANDS];
  /* cond wrapper */
  MComp *cw = mlir_new_comp(st, mlir_new_name(st, "while_cond"), c->off);
  st->cur = cw;
  cw->root = unpack_call(st, c, s, gtes, 0, n, n, kc);
  mlir_finish_comp(st, cw);
  /* body wrapper: the new iteration values, the captures passed on */
  MComp *bw = mlir_new_comp(st, mlir_new_name(st, "while_body"), b->off);
  st->cur = bw;
  const char *r = unpack_call(st, b, s, gtes, 0, n, n + kc, kb);
  const char *next[MLIR_MAX_OPERANDS];
  for (int i = 0; i < n; i++)
    next[i] = n == 1 ? r : mlir_line(st, b->off, "g", in[i], "get-tuple-element(%s), index=%d", r, i);
  for (int i = n; i < total; i++) next[i] = gtes[i];
  bw->root = mlir_line(st, b->off, "next", s, "tuple(%s)", names_list(st, next, total));
  mlir_finish_comp(st, bw);
  st->cur = saved;
  const char *t = mlir_line(st, op->off, "init", s, "tuple(%s)", names_list(st, init, total));
  const char *w = mlir_line(st, op->off, "while", s, "while(%s), condition=%s, body=%s", t, cw->name, bw->name);
  if (op->nresults == 0) return;
  if (op->nresults != n) mlir_fail(st, op->off, "while gives %d results, %d are named", n, op->nresults);
  for (int i = 0; i < n; i++) {
    const char *g = mlir_line(st, op->off, "gte", in[i], "get-tuple-element(%s), index=%d", w, i);
    mlir_bind(st, mlir_result_name(st, op, i), g, in[i]);
  }
}

/* case (index, N branches) and if (pred, two branches). */
static void emit_conditional(MState *st, MOp *op, bool is_if) {
  if (op->nopnds != 1) mlir_fail(st, op->off, "%s takes one operand", op->name);
  MType *sel = op->opnds[0]->type;
  if (sel->kind != MT_TENSOR || sel->rank != 0 || strcmp(sel->etype, is_if ? "pred" : "s32") != 0)
    mlir_fail(st, op->opnd_off[0], "%s's operand must be a tensor<%s>", op->name, is_if ? "i1" : "i32");
  if (op->nregions < 1 || (is_if && op->nregions != 2)) mlir_fail(st, op->off, "%s needs %s regions", op->name, is_if ? "two" : "its");
  const char *wrappers[8], *operands[8];
  MComp *saved = st->cur;
  for (int k = 0; k < op->nregions; k++) {
    MRegion *r = op->regions[k];
    check_types(st, op, r, 0, NULL, false);
    check_types(st, op, r, op->nout, op->out, true);
    MType **ct = types_alloc(st, r->ncapt);
    const char *cv[MLIR_MAX_OPERANDS];
    for (int i = 0; i < r->ncapt; i++) ct[i] = r->capt[i]->type, cv[i] = r->capt[i]->hlo;
    MType *s = mlir_tuple_of(st, ct, r->ncapt);
    operands[k] = mlir_line(st, r->off, "branch_args", s, "tuple(%s)", names_list(st, cv, r->ncapt));
    MComp *w = mlir_new_comp(st, mlir_new_name(st, "branch"), r->off);
    st->cur = w;
    const char *gtes[MLIR_MAX_OPERANDS];
    w->root = unpack_call(st, r, s, gtes, 0, 0, 0, r->ncapt);
    mlir_finish_comp(st, w);
    st->cur = saved;
    wrappers[k] = w->name;
  }
  MType *t = op->nout == 1 ? op->out[0] : mlir_tuple_of(st, op->out, op->nout);
  const char *h;
  if (is_if)
    h = mlir_line(st, op->off, "v", t, "conditional(%s, %s, %s), true_computation=%s, false_computation=%s",
                  op->opnds[0]->hlo, operands[0], operands[1], wrappers[0], wrappers[1]);
  else
    h = mlir_line(st, op->off, "v", t, "conditional(%s, %s), branch_computations={%s}", op->opnds[0]->hlo,
                  names_list(st, operands, op->nregions), names_list(st, wrappers, op->nregions));
  mlir_bind_results(st, op, h, op->nout == 1 ? NULL : t);
}

static int64_t int_or(const MOp *op, const char *key, int64_t dflt) {
  MAttr *a = mlir_op_attr(op, key);
  return a && a->kind == MA_INT ? a->i : dflt;
}

/* "1x2" of an integer list attribute, or of `dflt` repeated rank times. */
static const char *window_part(MState *st, const MOp *op, const char *key, int rank, int64_t dflt, bool pairs) {
  int64_t v[2 * MLIR_MAX_RANK];
  nn_ints(st, op, key, v, (pairs ? 2 : 1) * rank, true, dflt); /* splats (dense<1> : tensor<3xi64>) too */
  return nn_dims_text(st, v, rank, pairs);
}

/* reduce_window: inputs then inits, a region, window attributes. */
static void emit_reduce_window(MState *st, MOp *op) {
  if (op->nregions != 1) mlir_fail(st, op->off, "reduce_window needs a region");
  MRegion *r = op->regions[0];
  mlir_no_captures(st, op, r);
  int n = op->nopnds / 2;
  if (op->nopnds % 2 || n == 0 || r->nargs != 2 * n || r->nresults != n || op->nout != n)
    mlir_fail(st, op->off, "reduce_window takes N inputs, N inits, a region of 2N arguments and N results");
  int rank = op->opnds[0]->type->rank;
  if (!mlir_op_attr(op, "window_dimensions")) mlir_fail(st, op->off, "reduce_window needs window_dimensions");
  const char *win = mlir_fmt(st, "size=%s stride=%s pad=%s lhs_dilate=%s rhs_dilate=%s",
                             window_part(st, op, "window_dimensions", rank, 1, false),
                             window_part(st, op, "window_strides", rank, 1, false),
                             window_part(st, op, "padding", rank, 0, true),
                             window_part(st, op, "base_dilations", rank, 1, false),
                             window_part(st, op, "window_dilations", rank, 1, false));
  MType *t = n == 1 ? op->out[0] : mlir_tuple_of(st, op->out, n);
  const char *h = mlir_line(st, op->off, "v", t, "reduce-window(%s), window={%s}, to_apply=%s",
                            mlir_opnd_list(st, op, 0, op->nopnds), win, r->comp);
  mlir_bind_results(st, op, h, n == 1 ? NULL : t);
}

/* custom_call: target, backend_config, side effect, api_version,
 * called_computations, as XLA's conversion writes them: a string
 * backend_config as a string, a dictionary (typed FFI, api_version = 4)
 * verbatim as backend_config={...}, which --custom-call's FFI attribute
 * reader takes. */
static void emit_custom_call(MState *st, MOp *op) {
  MAttr *t = mlir_op_attr(op, "call_target_name");
  if (!t || t->kind != MA_STR) mlir_fail(st, op->off, "custom_call needs a call_target_name");
  MAttr *bc = mlir_op_attr(op, "backend_config"), *se = mlir_op_attr(op, "has_side_effect");
  MAttr *av = mlir_op_attr(op, "api_version"), *cc = mlir_op_attr(op, "called_computations");
  if (bc && bc->kind != MA_STR && bc->kind != MA_DICT)
    mlir_fail(st, bc->offset, "custom_call's backend_config must be a string or a dictionary");
  if (op->nregions) mlir_fail(st, op->off, "custom_call has no regions: give called_computations = [@f]");
  static const char *const API[] = {NULL, "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
                                    "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};
  const char *api = NULL;
  if (av && av->kind == MA_INT) {
    if (av->i < 1 || av->i > 4) mlir_fail(st, av->offset, "custom_call api_version %lld: 1 to 4 are defined", (long long)av->i);
    api = API[av->i];
  } else if (av && av->kind == MA_WORD) { /* #stablehlo<custom_call_api_version API_VERSION_...> */
    for (int i = 1; i <= 4; i++)
      if (strcmp(av->s, API[i]) == 0) api = API[i];
    if (!api) mlir_fail(st, av->offset, "unknown custom_call api_version '%s'", av->s);
  } else if (av) {
    mlir_fail(st, av->offset, "custom_call's api_version must be an integer");
  }
  if (bc && bc->kind == MA_DICT && bc->n > 0 && (!api || strcmp(api, "API_VERSION_TYPED_FFI") != 0))
    mlir_fail(st, bc->offset, "a dictionary backend_config needs api_version = 4 (typed FFI)");
  StrBuf *sb = mlir_sb(st);
  sb_printf(sb, "custom_call_target=\"%s\"", t->s);
  if (se && se->kind == MA_WORD && strcmp(se->s, "true") == 0) sb_puts(sb, ", custom_call_has_side_effect=true");
  if (api && strcmp(api, "API_VERSION_ORIGINAL") != 0) sb_printf(sb, ", api_version=%s", api);
  if (bc && bc->kind == MA_STR && bc->s[0]) sb_printf(sb, ", backend_config=\"%s\"", bc->s);
  if (bc && bc->kind == MA_DICT) {
    /* The dictionary's own text, on one line (the HLO line map is per line). */
    const char *save = st->p;
    st->p = st->src + bc->offset;
    mlir_skip_group(st);
    sb_puts(sb, ", backend_config=");
    bool in_str = false;
    for (const char *q = st->src + bc->offset; q < st->p; q++) {
      if (*q == '"' && (q == st->src || q[-1] != '\\')) in_str = !in_str;
      sb_putc(sb, !in_str && (*q == '\n' || *q == '\r') ? ' ' : *q);
    }
    st->p = save;
  }
  if (cc) {
    if (cc->kind != MA_LIST) mlir_fail(st, cc->offset, "called_computations must be a list [@f, ...]");
    sb_puts(sb, ", called_computations={");
    for (int i = 0; i < cc->n; i++) {
      const MAttr *f = cc->items[i];
      if (f->kind != MA_WORD || f->s[0] != '@') mlir_fail(st, f->offset, "expected a function @name");
      MFunc *fn = mlir_find_func(st, f->s + 1);
      if (!fn) mlir_fail(st, f->offset, "called computation %s: no such function", f->s);
      sb_printf(sb, "%s%s", i ? ", " : "", fn->hlo);
    }
    sb_putc(sb, '}');
  }
  MType *rt = op->nout == 1 ? op->out[0] : mlir_tuple_of(st, op->out, op->nout);
  const char *h = mlir_line(st, op->off, "v", rt, "custom-call(%s), %s", mlir_opnd_list(st, op, 0, op->nopnds),
                            sb->data);
  mlir_bind_results(st, op, h, op->nout == 1 ? NULL : rt);
}

/* ", key={1,2}" / ", key=N" for each entry of a #stablehlo.gather<...> or
 * #stablehlo.scatter<...> dictionary, under the HLO names (StableHLO's
 * operand_batching_dims etc. are spelled the same in HLO). */
static void dims_dict(MState *st, StrBuf *sb, const MOp *op, const char *key) {
  MAttr *d = mlir_op_attr(op, key);
  if (!d || d->kind != MA_DICT) mlir_fail(st, op->off, "%s needs %s = #stablehlo...<...>", op->name, key);
  for (int i = 0; i < d->n; i++) {
    const MAttr *v = d->items[i];
    if (v->kind == MA_INT) {
      sb_printf(sb, ", %s=%lld", d->keys[i], (long long)v->i);
      continue;
    }
    int64_t xs[MLIR_MAX_RANK * 2];
    int n = mlir_attr_ints(st, v, xs, MLIR_MAX_RANK * 2);
    if (n < 0) mlir_fail(st, v->offset, "'%s' must be a list of integers", d->keys[i]);
    sb_printf(sb, ", %s={", d->keys[i]);
    for (int k = 0; k < n; k++) sb_printf(sb, "%s%lld", k ? "," : "", (long long)xs[k]);
    sb_putc(sb, '}');
  }
  for (int i = 0; i < 2; i++) {
    const char *flag = i ? "unique_indices" : "indices_are_sorted";
    MAttr *f = mlir_op_attr(op, flag);
    if (f && f->kind == MA_WORD && strcmp(f->s, "true") == 0) sb_printf(sb, ", %s=true", flag);
  }
}

/* gather (operand, indices) and scatter (inputs, indices, updates, region). */
static void emit_gather_scatter(MState *st, MOp *op, bool gather) {
  StrBuf *sb = mlir_sb(st);
  MType *t = op->nout == 1 ? op->out[0] : mlir_tuple_of(st, op->out, op->nout);
  if (gather) {
    if (op->nopnds != 2) mlir_fail(st, op->off, "gather takes an operand and indices");
    dims_dict(st, sb, op, "dimension_numbers");
    int64_t ss[MLIR_MAX_RANK];
    MAttr *a = mlir_op_attr(op, "slice_sizes");
    int n = a ? mlir_attr_ints(st, a, ss, MLIR_MAX_RANK) : -1;
    if (n < 0) mlir_fail(st, op->off, "gather needs slice_sizes");
    sb_puts(sb, ", slice_sizes={");
    for (int k = 0; k < n; k++) sb_printf(sb, "%s%lld", k ? "," : "", (long long)ss[k]);
    sb_putc(sb, '}');
  } else {
    if (op->nregions != 1) mlir_fail(st, op->off, "scatter needs a region");
    MRegion *r = op->regions[0];
    mlir_no_captures(st, op, r);
    int n = (op->nopnds - 1) / 2;
    if (op->nopnds < 3 || op->nopnds % 2 == 0 || r->nargs != 2 * n || r->nresults != n || op->nout != n)
      mlir_fail(st, op->off, "scatter takes N inputs, indices, N updates and a region of 2N arguments");
    dims_dict(st, sb, op, "scatter_dimension_numbers");
    sb_printf(sb, ", to_apply=%s", r->comp);
  }
  const char *h = mlir_line(st, op->off, "v", t, "%s(%s)%s", gather ? "gather" : "scatter",
                            mlir_opnd_list(st, op, 0, op->nopnds), sb->data);
  mlir_bind_results(st, op, h, op->nout == 1 ? NULL : t);
}

bool mlir_emit_control(MState *st, MOp *op, const char *sn) {
  if (strcmp(sn, "while") == 0) {
    emit_while(st, op);
  } else if (strcmp(sn, "gather") == 0 || strcmp(sn, "scatter") == 0) {
    emit_gather_scatter(st, op, sn[0] == 'g');
  } else if (strcmp(sn, "reduce_window") == 0) {
    emit_reduce_window(st, op);
  } else if (strcmp(sn, "custom_call") == 0) {
    emit_custom_call(st, op);
  } else if (strcmp(sn, "case") == 0 || strcmp(sn, "if") == 0) {
    emit_conditional(st, op, sn[0] == 'i');
  } else if (strcmp(sn, "sort") == 0) {
    if (op->nregions != 1) mlir_fail(st, op->off, "sort needs a comparator region");
    MRegion *r = op->regions[0];
    mlir_no_captures(st, op, r);
    if (op->nopnds < 1 || r->nargs != 2 * op->nopnds || r->nresults != 1)
      mlir_fail(st, r->off, "sort's comparator takes two arguments per operand and returns one tensor<i1>");
    MAttr *stable = mlir_op_attr(op, "is_stable");
    bool is_stable = stable && stable->kind == MA_WORD && strcmp(stable->s, "true") == 0;
    int64_t dim = int_or(op, "dimension", -1);
    if (dim < 0) dim += op->opnds[0]->type->rank;
    MType *t = op->nout == 1 ? op->out[0] : mlir_tuple_of(st, op->out, op->nout);
    const char *h = mlir_line(st, op->off, "v", t, "sort(%s), dimensions={%lld}%s, to_apply=%s",
                              mlir_opnd_list(st, op, 0, op->nopnds), (long long)dim,
                              is_stable ? ", is_stable=true" : "", r->comp);
    mlir_bind_results(st, op, h, op->nout == 1 ? NULL : t);
  } else if (strcmp(sn, "map") == 0) {
    if (op->nregions != 1) mlir_fail(st, op->off, "map needs a region");
    mlir_no_captures(st, op, op->regions[0]);
    int64_t dims[MLIR_MAX_RANK];
    MAttr *d = mlir_op_attr(op, "dimensions");
    int nd = d ? mlir_attr_ints(st, d, dims, MLIR_MAX_RANK) : -1;
    if (nd < 0) mlir_fail(st, op->off, "map needs dimensions");
    StrBuf *sb = mlir_sb(st);
    for (int i = 0; i < nd; i++) sb_printf(sb, "%s%lld", i ? "," : "", (long long)dims[i]);
    const char *h = mlir_line(st, op->off, "v", op->out[0], "map(%s), dimensions={%s}, to_apply=%s",
                              mlir_opnd_list(st, op, 0, op->nopnds), sb->data ? sb->data : "", op->regions[0]->comp);
    sb_free(sb);
    mlir_bind_results(st, op, h, NULL);
  } else {
    return false;
  }
  return true;
}
