/* One MLIR op read into an MOp, from the generic form
 *   %r = "stablehlo.op"(%a, %b) <{props}> ({regions}) {attrs} : (T, T) -> T
 * or the pretty forms JAX prints (stablehlo.add %a, %b : T, ...).  Both fill
 * the same fields (operands, attributes under their generic names, regions,
 * types), so that mlir_emit.c has one path per op. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/mlir_internal.h"

static void *alloc(MState *st, size_t n) {
  void *p = arena_alloc(st->arena, n);
  if (!p) mlir_fail(st, -1, "out of memory");
  return p;
}

static MAttr *new_attr(MState *st, MAttrKind k, int64_t off) {
  MAttr *a = alloc(st, sizeof *a);
  a->kind = k;
  a->offset = off;
  return a;
}

static void push_item(MState *st, MAttr *list, const char *key, MAttr *v) {
  if (list->n % 16 == 0) {
    MAttr **ni = alloc(st, sizeof *ni * (size_t)(list->n + 16));
    const char **nk = alloc(st, sizeof *nk * (size_t)(list->n + 16));
    if (list->n) {
      memcpy(ni, list->items, sizeof *ni * (size_t)list->n);
      memcpy(nk, list->keys, sizeof *nk * (size_t)list->n);
    }
    list->items = ni;
    list->keys = nk;
  }
  list->keys[list->n] = key;
  list->items[list->n++] = v;
}

/* {a = 1, b} or the body of #dialect.name<a = 1, b = [2]> up to `close`. */
static MAttr *dict_body(MState *st, int64_t off, const char *close) {
  MAttr *d = new_attr(st, MA_DICT, off);
  if (mlir_accept(st, close)) return d;
  do {
    int64_t koff = mlir_off(st);
    const char *k = mlir_ident(st);
    if (!k) k = mlir_string(st);
    if (!k) mlir_fail(st, koff, "expected an attribute name");
    MAttr *v = mlir_accept(st, "=") ? mlir_attr(st) : new_attr(st, MA_WORD, koff);
    if (v->kind == MA_WORD && !v->s) v->s = "unit";
    push_item(st, d, k, v);
  } while (mlir_accept(st, ","));
  mlir_expect(st, close);
  return d;
}

MAttr *mlir_attr(MState *st) {
  int64_t off = mlir_off(st);
  if (++st->depth > MLIR_MAX_DEPTH) mlir_fail(st, off, "attributes nested too deeply");
  MAttr *a;
  int64_t v;
  const char *s;
  if (mlir_accept(st, "[")) {
    a = new_attr(st, MA_LIST, off);
    if (!mlir_accept(st, "]")) {
      do push_item(st, a, NULL, mlir_attr(st));
      while (mlir_accept(st, ","));
      mlir_expect(st, "]");
    }
  } else if (mlir_accept(st, "array<")) {
    a = new_attr(st, MA_LIST, off);
    mlir_type(st);
    if (mlir_accept(st, ":")) {
      do push_item(st, a, NULL, mlir_attr(st));
      while (mlir_accept(st, ","));
    }
    mlir_expect(st, ">");
  } else if (mlir_accept(st, "dense_resource<")) {
    /* dense_resource<name> : T, its bytes in the {-# dialect_resources #-}
     * section after the module (mlir_resource.c) */
    a = new_attr(st, MA_DENSE, off);
    int64_t noff = mlir_off(st);
    a->s = mlir_ident(st);
    if (!a->s) a->s = mlir_string(st);
    if (!a->s) mlir_fail(st, noff, "expected the resource's name in dense_resource<...>");
    a->body = ""; /* no literal text: readers of dense<...> bodies see none */
    a->body_off = noff;
    mlir_expect(st, ">");
    mlir_expect(st, ":");
    a->type = mlir_type(st);
  } else if (mlir_accept(st, "dense<")) {
    a = new_attr(st, MA_DENSE, off);
    st->p--; /* back on '<' */
    const char *b = st->p;
    mlir_skip_group(st);
    a->body = b + 1;
    a->body_len = (size_t)(st->p - b - 2);
    a->body_off = b + 1 - st->src;
    mlir_expect(st, ":");
    a->type = mlir_type(st);
  } else if ((s = mlir_string(st))) {
    a = new_attr(st, MA_STR, off);
    a->s = s;
  } else if (mlir_accept(st, "{")) {
    a = dict_body(st, off, "}");
  } else if (mlir_peek(st, "#")) {
    /* #stablehlo<comparison_direction GT>, #stablehlo.gather<k = v, ...>,
     * or an alias #name. */
    const char *name = mlir_sigil_name(st, '#');
    if (mlir_accept(st, "<")) {
      const char *save = st->p;
      const char *w1 = mlir_ident(st);
      if (w1 && mlir_accept(st, "=")) {
        st->p = save;
        a = dict_body(st, off, ">");
      } else {
        const char *w2 = w1 ? mlir_ident(st) : NULL;
        if (w1 && mlir_accept(st, ">")) {
          a = new_attr(st, MA_WORD, off);
          a->s = w2 ? w2 : w1;
        } else {
          st->p = save - 1;
          const char *b = st->p;
          mlir_skip_group(st);
          a = new_attr(st, MA_WORD, off);
          a->s = mlir_strdup(st, b, (size_t)(st->p - b));
        }
      }
    } else {
      a = new_attr(st, MA_WORD, off);
      a->s = name;
    }
  } else if (mlir_peek(st, "@")) {
    a = new_attr(st, MA_WORD, off);
    a->s = mlir_sigil_name(st, '@');
  } else if (mlir_peek_type(st)) {
    a = new_attr(st, MA_TYPE, off);
    a->type = mlir_type(st);
  } else if (mlir_int(st, &v)) {
    a = new_attr(st, MA_INT, off);
    a->i = v;
    if (mlir_accept(st, ":")) a->type = mlir_type(st);
  } else if ((s = mlir_ident(st))) {
    a = new_attr(st, MA_WORD, off);
    a->s = s;
  } else {
    char *endp;
    mlir_skip(st);
    double f = strtod(st->p, &endp);
    if (endp == st->p || endp > st->end) mlir_fail(st, off, "expected an attribute value");
    st->p = endp;
    a = new_attr(st, MA_FLOAT, off);
    a->f = f;
    if (mlir_accept(st, ":")) a->type = mlir_type(st);
  }
  st->depth--;
  return a;
}

int mlir_attr_ints(MState *st, const MAttr *a, int64_t *out, int cap) {
  if (a->kind == MA_INT) {
    if (cap < 1) return -1;
    out[0] = a->i;
    return 1;
  }
  if (a->kind == MA_DENSE && a->s) return -1; /* dense_resource */
  if (a->kind == MA_DENSE) {
    /* dense<[1, 2]> : tensor<2xi64> (older printers) */
    const char *save_p = st->p, *save_end = st->end;
    st->p = a->body;
    st->end = a->body + a->body_len;
    /* nested lists (padding = dense<[[0, 0], [1, 0]]>) read flat */
    int n = 0;
    for (;;) {
      while (mlir_accept(st, "[") || mlir_accept(st, "]") || mlir_accept(st, ",")) {}
      if (st->p >= st->end) break;
      int64_t v;
      if (!mlir_int(st, &v)) mlir_fail(st, a->body_off, "expected integers");
      if (n == cap) mlir_fail(st, a->offset, "too many integers");
      out[n++] = v;
    }
    st->p = save_p;
    st->end = save_end;
    /* A splat (strides = dense<1> : tensor<2xi64>, as the spec writes it)
     * stands for every element of its type. */
    bool splat = memchr(a->body, '[', a->body_len) == NULL;
    int64_t len = a->type ? mlir_type_elems(a->type) : 1;
    if (splat && n == 1 && len > 1) {
      if (len > cap) mlir_fail(st, a->offset, "too many integers");
      for (; n < len; n++) out[n] = out[0];
    }
    return n;
  }
  if (a->kind != MA_LIST) return -1;
  if (a->n > cap) mlir_fail(st, a->offset, "too many integers");
  for (int i = 0; i < a->n; i++) {
    if (a->items[i]->kind != MA_INT) return -1;
    out[i] = a->items[i]->i;
  }
  return a->n;
}

MAttr *mlir_op_attr(const MOp *op, const char *key) {
  for (int i = 0; i < op->nattrs; i++)
    if (strcmp(op->akeys[i], key) == 0) return op->avals[i];
  return NULL;
}

static void set_attr(MState *st, MOp *op, const char *key, MAttr *v) {
  if (op->nattrs == 64) mlir_fail(st, op->off, "more than 64 attributes");
  op->akeys[op->nattrs] = key;
  op->avals[op->nattrs++] = v;
}

static void attr_dict_into(MState *st, MOp *op, const char *close) {
  MAttr *d = dict_body(st, mlir_off(st), close);
  for (int i = 0; i < d->n; i++) set_attr(st, op, d->keys[i], d->items[i]);
}

static void operand(MState *st, MOp *op) {
  int64_t off = mlir_off(st);
  const char *n = mlir_sigil_name(st, '%');
  if (!n) mlir_fail(st, off, "expected an operand (%%name)");
  if (op->nopnds == MLIR_MAX_OPERANDS) mlir_fail(st, off, "more than %d operands", MLIR_MAX_OPERANDS);
  op->opnd_off[op->nopnds] = off;
  op->opnds[op->nopnds++] = mlir_lookup(st, n, off);
}

static void operands(MState *st, MOp *op) {
  if (!mlir_peek(st, "%")) return;
  do operand(st, op);
  while (mlir_peek(st, ", %") ? mlir_accept(st, ",") : false);
}

static MType **type_list(MState *st, int *n, const char *close) {
  MType *tmp[MLIR_MAX_OPERANDS];
  *n = 0;
  if (close && mlir_accept(st, close)) return NULL;
  do {
    if (*n == MLIR_MAX_OPERANDS) mlir_fail(st, mlir_off(st), "too many types");
    tmp[(*n)++] = mlir_type(st);
  } while (mlir_accept(st, ","));
  if (close) mlir_expect(st, close);
  MType **r = alloc(st, sizeof *r * (size_t)(*n + 1));
  memcpy(r, tmp, sizeof *r * (size_t)*n);
  return r;
}

/* ": (T, T) -> T" or ": (T) -> (T, T)" or ": T" or ": T1, T2". */
static void trailing_types(MState *st, MOp *op) {
  mlir_expect(st, ":");
  if (mlir_accept(st, "(")) {
    op->in = type_list(st, &op->nin, ")");
    mlir_expect(st, "->");
    if (mlir_accept(st, "(")) op->out = type_list(st, &op->nout, ")");
    else op->out = type_list(st, &op->nout, NULL);
  } else {
    op->out = type_list(st, &op->nout, NULL);
    op->nin = -1; /* the short form: meaning depends on the op */
  }
}

static MAttr *int_list_attr(MState *st) {
  int64_t off = mlir_off(st);
  MAttr *a = mlir_attr(st);
  if (a->kind != MA_LIST) mlir_fail(st, off, "expected a list [..]");
  return a;
}

/* A bare integer in a pretty form (no ": type" after it: that is the op's). */
static MAttr *plain_int(MState *st) {
  MAttr *a = new_attr(st, MA_INT, mlir_off(st));
  if (!mlir_int(st, &a->i)) mlir_fail(st, a->offset, "expected an integer");
  return a;
}

/* "name = [..]" as a pretty-form keyword argument. */
static void kw_list(MState *st, MOp *op, const char *word, const char *key) {
  if (!mlir_accept_word(st, word)) mlir_fail(st, mlir_off(st), "expected '%s = [...]'", word);
  mlir_expect(st, "=");
  set_attr(st, op, key, int_list_attr(st));
}

/* dot_general's "contracting_dims = [1] x [0]". */
static void dims_pair(MState *st, MOp *op, const char *lhs, const char *rhs) {
  mlir_expect(st, "=");
  set_attr(st, op, lhs, int_list_attr(st));
  if (!mlir_accept_word(st, "x")) mlir_fail(st, mlir_off(st), "expected 'x' between the dimension lists");
  set_attr(st, op, rhs, int_list_attr(st));
}

static bool is_one_of(const char *s, const char *const *list) {
  for (int i = 0; list[i]; i++)
    if (strcmp(s, list[i]) == 0) return true;
  return false;
}

/* Ops whose pretty form is operands, optional attr-dict, then types. */
static const char *const PLAIN[] = {
    "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "power", "atan2",
    "and", "or", "xor", "shift_left", "shift_right_arithmetic", "shift_right_logical", "abs",
    "negate", "exponential", "exponential_minus_one", "log", "log_plus_one", "sqrt", "rsqrt", "cbrt",
    "tanh", "tan", "logistic", "sine", "cosine", "floor", "ceil", "sign", "not", "round_nearest_even",
    "round_nearest_afz", "is_finite", "popcnt", "count_leading_zeros", "real", "imag", "complex",
    "clamp", "select", "convert", "reshape", "bitcast_convert", "tuple", "optimization_barrier",
    "dynamic_update_slice", "return", "after_all", "replica_id", "partition_id", NULL};

/* Every op of the StableHLO specification, to tell "not read yet" from
 * "no such op". */
static const char *const SPEC_OPS[] = {
    "abs", "add", "after_all", "all_gather", "all_reduce", "all_to_all", "and", "atan2",
    "batch_norm_grad", "batch_norm_inference", "batch_norm_training", "bitcast_convert",
    "broadcast", "broadcast_in_dim", "case", "cbrt", "ceil", "cholesky", "clamp", "collective_broadcast",
    "collective_permute", "compare", "complex", "composite", "concatenate", "constant", "convert",
    "convolution", "cosine", "count_leading_zeros", "create_token", "cross-replica-sum", "custom_call", "divide", "dot", "dot_general",
    "dynamic_broadcast_in_dim", "dynamic_conv", "dynamic_gather", "dynamic_iota", "dynamic_pad",
    "dynamic_reshape", "dynamic_slice", "dynamic_update_slice", "einsum", "exponential",
    "exponential_minus_one", "fft", "floor", "gather", "get_dimension_size", "get_tuple_element",
    "if", "imag", "infeed", "iota", "is_finite", "log", "log_plus_one", "logistic", "map", "maximum",
    "minimum", "multiply", "negate", "not", "optimization_barrier", "or", "outfeed", "pad",
    "partition_id", "popcnt", "power", "real", "real_dynamic_slice", "recv", "reduce",
    "reduce_precision", "reduce_scatter", "reduce_window", "remainder", "replica_id", "reshape",
    "return", "reverse", "rng", "rng_bit_generator", "round_nearest_afz", "round_nearest_even",
    "rsqrt", "scatter", "select", "select_and_scatter", "send", "set_dimension_size", "shift_left",
    "shift_right_arithmetic", "shift_right_logical", "sign", "sine", "slice", "sort", "sqrt",
    "subtract", "tan", "tanh", "torch_index_select", "transpose", "triangular_solve", "tuple",
    "unary_einsum", "uniform_dequantize", "uniform_quantize", "while", "xor", NULL};

bool mlir_is_spec_op(const char *shortname) { return is_one_of(shortname, SPEC_OPS); }

/* The pretty form after the op name. */
static void pretty(MState *st, MOp *op, const char *shortname) {
  int64_t off = mlir_off(st);
  if (mlir_in_list(st, shortname, PLAIN)) {
    operands(st, op);
  } else if (strcmp(shortname, "constant") == 0) {
    if (mlir_peek(st, "{")) { st->p++; attr_dict_into(st, op, "}"); }
    MAttr *v = mlir_attr(st);
    if (v->kind != MA_DENSE) mlir_fail(st, off, "expected dense<...> : type after stablehlo.constant");
    set_attr(st, op, "value", v);
    op->out = alloc(st, sizeof *op->out);
    op->out[0] = v->type;
    op->nout = 1;
    op->nin = 0;
    return;
  } else if (strcmp(shortname, "compare") == 0) {
    MAttr *d = mlir_attr(st);
    set_attr(st, op, "comparison_direction", d);
    mlir_expect(st, ",");
    operand(st, op);
    mlir_expect(st, ",");
    operand(st, op);
    if (mlir_accept(st, ",")) set_attr(st, op, "compare_type", mlir_attr(st));
  } else if (strcmp(shortname, "broadcast_in_dim") == 0 || strcmp(shortname, "transpose") == 0) {
    operand(st, op);
    mlir_expect(st, ",");
    kw_list(st, op, "dims", shortname[0] == 'b' ? "broadcast_dimensions" : "permutation");
  } else if (strcmp(shortname, "iota") == 0) {
    if (!mlir_accept_word(st, "dim")) mlir_fail(st, off, "expected 'dim = N'");
    mlir_expect(st, "=");
    set_attr(st, op, "iota_dimension", plain_int(st));
  } else if (strcmp(shortname, "concatenate") == 0) {
    operands(st, op);
    mlir_expect(st, ",");
    if (!mlir_accept_word(st, "dim")) mlir_fail(st, mlir_off(st), "expected 'dim = N'");
    mlir_expect(st, "=");
    set_attr(st, op, "dimension", plain_int(st));
  } else if (strcmp(shortname, "dynamic_slice") == 0) {
    operands(st, op);
    mlir_expect(st, ",");
    kw_list(st, op, "sizes", "slice_sizes");
  } else if (strcmp(shortname, "pad") == 0) {
    operands(st, op);
    mlir_expect(st, ",");
    kw_list(st, op, "low", "edge_padding_low");
    mlir_expect(st, ",");
    kw_list(st, op, "high", "edge_padding_high");
    mlir_expect(st, ",");
    kw_list(st, op, "interior", "interior_padding");
  } else if (strcmp(shortname, "get_tuple_element") == 0) {
    operand(st, op);
    mlir_expect(st, "[");
    set_attr(st, op, "index", plain_int(st));
    mlir_expect(st, "]");
  } else if (strcmp(shortname, "slice") == 0) {
    /* %a [1:3, 0:4:2] */
    operand(st, op);
    MAttr *lo = new_attr(st, MA_LIST, off), *hi = new_attr(st, MA_LIST, off),
          *sd = new_attr(st, MA_LIST, off);
    mlir_expect(st, "[");
    if (!mlir_peek(st, "]")) {
      do {
        MAttr *a = plain_int(st), *b, *c;
        mlir_expect(st, ":");
        b = plain_int(st);
        if (mlir_accept(st, ":")) c = plain_int(st);
        else (c = new_attr(st, MA_INT, off))->i = 1;
        push_item(st, lo, NULL, a), push_item(st, hi, NULL, b), push_item(st, sd, NULL, c);
      } while (mlir_accept(st, ","));
    }
    mlir_expect(st, "]");
    set_attr(st, op, "start_indices", lo);
    set_attr(st, op, "limit_indices", hi);
    set_attr(st, op, "strides", sd);
  } else if (strcmp(shortname, "dot_general") == 0 || strcmp(shortname, "dot") == 0) {
    operand(st, op);
    mlir_expect(st, ",");
    operand(st, op);
    while (mlir_accept(st, ",")) {
      int64_t koff = mlir_off(st);
      if (mlir_accept_word(st, "batching_dims"))
        dims_pair(st, op, "lhs_batching_dimensions", "rhs_batching_dimensions");
      else if (mlir_accept_word(st, "contracting_dims"))
        dims_pair(st, op, "lhs_contracting_dimensions", "rhs_contracting_dimensions");
      else if (mlir_accept_word(st, "precision")) {
        mlir_expect(st, "=");
        set_attr(st, op, "precision_config", mlir_attr(st));
      } else if (mlir_accept_word(st, "algorithm")) {
        mlir_expect(st, "=");
        /* precision hints only: the CPU computes exactly.  The pretty form
         * prints the attribute's body alone: algorithm = <lhs_precision_type = ...> */
        if (mlir_peek(st, "<")) mlir_skip_group(st);
        else mlir_attr(st);
      } else {
        mlir_fail(st, koff, "unexpected dot_general argument");
      }
    }
  } else if (strcmp(shortname, "reduce") == 0) {
    /* (%a init: %b), (%c init: %d) applies stablehlo.add across dimensions = [1]
     * or ... across dimensions = [1] : types  reducer(%x: T, %y: T) {...} */
    int n = 0;
    MValue *ins[MLIR_MAX_OPERANDS], *inits[MLIR_MAX_OPERANDS];
    int64_t ioff[MLIR_MAX_OPERANDS], noff[MLIR_MAX_OPERANDS];
    do {
      mlir_expect(st, "(");
      if (n == MLIR_MAX_OPERANDS / 2) mlir_fail(st, off, "too many reduce operands");
      operand(st, op);
      if (!mlir_accept_word(st, "init")) mlir_fail(st, mlir_off(st), "expected 'init:'");
      mlir_expect(st, ":");
      operand(st, op);
      op->nopnds -= 2;
      ins[n] = op->opnds[op->nopnds], ioff[n] = op->opnd_off[op->nopnds];
      inits[n] = op->opnds[op->nopnds + 1], noff[n] = op->opnd_off[op->nopnds + 1];
      n++;
      mlir_expect(st, ")");
    } while (mlir_accept(st, ","));
    for (int i = 0; i < n; i++) op->opnds[i] = ins[i], op->opnd_off[i] = ioff[i];
    for (int i = 0; i < n; i++) op->opnds[n + i] = inits[i], op->opnd_off[n + i] = noff[i];
    op->nopnds = 2 * n;
    if (mlir_accept_word(st, "applies")) {
      int64_t aoff = mlir_off(st);
      op->applies = mlir_ident(st);
      if (!op->applies) mlir_fail(st, aoff, "expected an op name after 'applies'");
    }
    if (!mlir_accept_word(st, "across")) mlir_fail(st, mlir_off(st), "expected 'across dimensions = [...]'");
    kw_list(st, op, "dimensions", "dimensions");
    trailing_types(st, op);
    if (!op->applies) {
      if (!mlir_accept_word(st, "reducer")) mlir_fail(st, mlir_off(st), "expected 'reducer(...)' or 'applies'");
      op->regions[op->nregions++] = mlir_region_with_args(st, n, "reducer");
    }
    return;
  } else if (strcmp(shortname, "custom_call") == 0) {
    MAttr *t = new_attr(st, MA_STR, mlir_off(st));
    t->s = mlir_sigil_name(st, '@');
    if (!t->s) mlir_fail(st, t->offset, "expected the call target @name");
    t->s++;
    set_attr(st, op, "call_target_name", t);
    mlir_expect(st, "(");
    operands(st, op);
    mlir_expect(st, ")");
  } else if (strcmp(shortname, "while") == 0) {
    /* (%iterArg = %a, %iterArg_0 = %b) : T, T cond {...} do {...} */
    const char *names[MLIR_MAX_OPERANDS];
    mlir_expect(st, "(");
    if (!mlir_peek(st, ")")) {
      do {
        int64_t noff = mlir_off(st);
        if (op->nopnds == MLIR_MAX_OPERANDS) mlir_fail(st, noff, "too many while operands");
        names[op->nopnds] = mlir_sigil_name(st, '%');
        if (!names[op->nopnds]) mlir_fail(st, noff, "expected %%name = %%value");
        mlir_expect(st, "=");
        operand(st, op);
      } while (mlir_accept(st, ","));
    }
    mlir_expect(st, ")");
    trailing_types(st, op);
    if (op->nout != op->nopnds) mlir_fail(st, off, "while has %d operands but %d types", op->nopnds, op->nout);
    op->in = op->out, op->nin = op->nout;
    if (mlir_accept_word(st, "attributes")) mlir_attr(st);
    if (!mlir_accept_word(st, "cond")) mlir_fail(st, mlir_off(st), "expected 'cond {'");
    op->regions[op->nregions++] = mlir_region(st, op->nopnds, names, op->out);
    if (!mlir_accept_word(st, "do")) mlir_fail(st, mlir_off(st), "expected 'do {'");
    op->regions[op->nregions++] = mlir_region(st, op->nopnds, names, op->out);
    return;
  } else if (mlir_pretty_nn(st, op, shortname)) {
    /* read; its attributes and types follow */
  } else if (!is_one_of(shortname, SPEC_OPS)) {
    mlir_fail(st, op->off, "unknown operation '%s': it is not in the StableHLO specification", op->name);
  } else {
    mlir_fail(st, op->off, "the pretty form of '%s' is not read yet: give it in the generic form "
              "(mlir-opt --mlir-print-op-generic)", op->name);
  }
  if (mlir_peek(st, "{")) {
    st->p++;
    attr_dict_into(st, op, "}");
  }
  if (strcmp(shortname, "return") == 0 && !mlir_peek(st, ":")) return; /* return with no values */
  trailing_types(st, op);
}

/* func.call: call @f(%a, %b) : (T, T) -> T */
static void call_op(MState *st, MOp *op) {
  MAttr *callee = new_attr(st, MA_WORD, mlir_off(st));
  callee->s = mlir_sigil_name(st, '@');
  if (!callee->s) mlir_fail(st, callee->offset, "expected '@function' after call");
  set_attr(st, op, "callee", callee);
  mlir_expect(st, "(");
  operands(st, op);
  mlir_expect(st, ")");
  if (mlir_peek(st, "{")) {
    st->p++;
    attr_dict_into(st, op, "}");
  }
  trailing_types(st, op);
}

void mlir_parse_op(MState *st, MOp *op) {
  memset(op, 0, sizeof *op);
  op->off = st->op_off = mlir_off(st);
  op->nresults = 0;
  if (mlir_peek(st, "%")) {
    /* %r, %r:2, or a list of them: "%a, %b:2 = ..." names results a, b#0, b#1. */
    const char *names[MLIR_MAX_OPERANDS];
    int ngroups = 0;
    do {
      int64_t noff = mlir_off(st);
      const char *g = mlir_sigil_name(st, '%');
      if (!g) mlir_fail(st, noff, "expected a result name");
      if (strchr(g, '#')) mlir_fail(st, noff, "a result name cannot have a '#N' suffix");
      int64_t n = 1;
      if (mlir_accept(st, ":") && (!mlir_int(st, &n) || n < 1 || n > MLIR_MAX_OPERANDS))
        mlir_fail(st, mlir_off(st), "expected a result count");
      if (op->nresults + n > MLIR_MAX_OPERANDS) mlir_fail(st, noff, "more than %d results", MLIR_MAX_OPERANDS);
      for (int k = 0; k < n; k++) names[op->nresults + k] = n == 1 ? g : mlir_fmt(st, "%s#%d", g, k);
      if (ngroups++ == 0) op->result_ssa = g;
      op->nresults += (int)n;
    } while (mlir_accept(st, ","));
    if (ngroups > 1) {
      op->res_names = alloc(st, sizeof *op->res_names * (size_t)op->nresults);
      memcpy(op->res_names, names, sizeof *names * (size_t)op->nresults);
    }
    mlir_expect(st, "=");
  }
  op->off = mlir_off(st);
  const char *name = mlir_string(st);
  if (name) {
    /* The generic form. */
    op->name = name;
    mlir_expect(st, "(");
    operands(st, op);
    mlir_expect(st, ")");
    if (mlir_accept(st, "<{")) attr_dict_into(st, op, "}>");
    if (mlir_accept(st, "(")) {
      do {
        if (op->nregions == 8) mlir_fail(st, mlir_off(st), "more than 8 regions");
        op->regions[op->nregions++] = mlir_region(st, 0, NULL, NULL);
      } while (mlir_accept(st, ","));
      mlir_expect(st, ")");
    }
    if (mlir_accept(st, "{")) attr_dict_into(st, op, "}");
    trailing_types(st, op);
    if (op->nin < 0) mlir_fail(st, mlir_off(st), "the generic form needs a function type '(...) -> ...'");
  } else {
    const char *w = mlir_ident(st);
    if (!w) mlir_fail(st, op->off, "expected an operation");
    if (strcmp(w, "return") == 0 || strcmp(w, "func.return") == 0) {
      op->name = "func.return";
      pretty(st, op, "return");
    } else if (strcmp(w, "call") == 0 || strcmp(w, "func.call") == 0) {
      op->name = "func.call";
      call_op(st, op);
    } else if (strncmp(w, "stablehlo.", 10) == 0) {
      op->name = w;
      pretty(st, op, w + 10);
    } else if (strncmp(w, "check.", 6) == 0) {
      op->name = w;
      mlir_parse_check(st, op, w + 6);
    } else if (strncmp(w, "chlo.", 5) == 0) {
      op->name = w;
      mlir_chlo_pretty(st, op, w + 5);
    } else {
      mlir_fail(st, op->off, "unknown operation '%s'", w);
    }
  }
  mlir_skip_loc(st);
}

/* For the readers of other dialects' pretty forms (mlir_emit_check.c). */
void mlir_op_operand(MState *st, MOp *op) { operand(st, op); }
void mlir_op_set_attr(MState *st, MOp *op, const char *key, MAttr *v) { set_attr(st, op, key, v); }
void mlir_op_attr_dict(MState *st, MOp *op) {
  mlir_expect(st, "{");
  attr_dict_into(st, op, "}");
}
