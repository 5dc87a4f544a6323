/* func.func in the StableHLO reader: signatures in the pretty and the
 * generic form (first pass: names, types, jax.arg_info / jax.result_info,
 * argument locations), and bodies converted to computations on demand, so
 * that a callee's computation precedes its caller's in the HLO text. */
#include <stdlib.h>
#include <string.h>

#include "parser/ir.h"
#include "parser/mlir.h"
#include "parser/mlir_internal.h"

/* The string value of key in an attribute dictionary, or NULL. */
static const char *str_entry(const MAttr *d, const char *key) {
  if (d->kind != MA_DICT) return NULL;
  for (int i = 0; i < d->n; i++)
    if (strcmp(d->keys[i], key) == 0 && d->items[i]->kind == MA_STR) return d->items[i]->s;
  return NULL;
}

/* func.func signature; the body is skipped for the second pass. */
static void func_decl(MState *st) {
  int64_t off = mlir_off(st);
  MFunc f = {.off = off, .is_public = true};
  if (mlir_accept_word(st, "private")) f.is_public = false;
  else if (mlir_accept_word(st, "public") || mlir_accept_word(st, "nested")) {}
  const char *sym = mlir_sigil_name(st, '@');
  if (!sym) mlir_fail(st, mlir_off(st), "expected the function's @name");
  f.sym = sym + 1;
  for (int i = 0; i < st->nfuncs; i++)
    if (strcmp(st->funcs[i].sym, f.sym) == 0) mlir_fail(st, off, "function @%s is defined twice", f.sym);
  mlir_expect(st, "(");
  MType *types[MLIR_MAX_OPERANDS];
  const char *names[MLIR_MAX_OPERANDS], *info[MLIR_MAX_OPERANDS];
  if (!mlir_peek(st, ")")) {
    do {
      int64_t aoff = mlir_off(st);
      if (!mlir_sigil_name(st, '%')) mlir_fail(st, aoff, "expected an argument %%name");
      mlir_expect(st, ":");
      if (f.nargs == MLIR_MAX_OPERANDS) mlir_fail(st, aoff, "too many arguments");
      types[f.nargs] = mlir_type(st);
      /* jax.arg_info names the input; mhlo.sharding, mhlo.layout_mode, ...: not used */
      info[f.nargs] = mlir_peek(st, "{") ? str_entry(mlir_attr(st), "jax.arg_info") : NULL;
      names[f.nargs++] = mlir_peek(st, "loc(") ? mlir_loc_name(st) : NULL;
    } while (mlir_accept(st, ","));
  }
  mlir_expect(st, ")");
  f.args = arena_alloc_array(st->arena, (size_t)f.nargs + 1, sizeof *f.args);
  f.arg_names = arena_alloc_array(st->arena, (size_t)f.nargs + 1, sizeof *f.arg_names);
  f.arg_info = arena_alloc_array(st->arena, (size_t)f.nargs + 1, sizeof *f.arg_info);
  if (!f.args || !f.arg_names || !f.arg_info) mlir_fail(st, -1, "out of memory");
  memcpy(f.args, types, sizeof *types * (size_t)f.nargs);
  memcpy(f.arg_names, names, sizeof *names * (size_t)f.nargs);
  memcpy(f.arg_info, info, sizeof *info * (size_t)f.nargs);
  if (mlir_accept(st, "->")) {
    bool paren = mlir_accept(st, "(");
    if (!(paren && mlir_peek(st, ")"))) {
      do {
        if (f.nresults == MLIR_MAX_OPERANDS) mlir_fail(st, off, "too many results");
        info[f.nresults] = NULL;
        types[f.nresults++] = mlir_type(st);
        if (paren && mlir_peek(st, "{")) info[f.nresults - 1] = str_entry(mlir_attr(st), "jax.result_info");
      } while (paren && mlir_accept(st, ","));
    }
    if (paren) mlir_expect(st, ")");
  }
  f.results = arena_alloc_array(st->arena, (size_t)f.nresults + 1, sizeof *f.results);
  f.result_info = arena_alloc_array(st->arena, (size_t)f.nresults + 1, sizeof *f.result_info);
  if (!f.results || !f.result_info) mlir_fail(st, -1, "out of memory");
  memcpy(f.results, types, sizeof *types * (size_t)f.nresults);
  memcpy(f.result_info, info, sizeof *info * (size_t)f.nresults);
  if (mlir_accept_word(st, "attributes")) mlir_attr(st);
  if (!mlir_peek(st, "{")) mlir_fail(st, mlir_off(st), "expected the function body '{'");
  f.body = st->p;
  mlir_skip_group(st);
  mlir_skip_loc(st);
  st->funcs = mlir_grow(st, st->funcs, st->nfuncs, &st->fcap, sizeof *st->funcs);
  st->funcs[st->nfuncs++] = f;
}

/* The generic func.func (after its "func.func" name):
 *   () <{function_type = (T, T) -> (T), sym_name = "f", sym_visibility = "private",
 *        arg_attrs = [{...}, ...], res_attrs = [{...}]}> ({
 *   ^bb0(%arg0: T loc("x"), ...): ops }) : () -> ()
 * The body is skipped for the second pass, as for the pretty form. */
/* mlir_internal.h */
void mlir_expect_unit_fn_type(MState *st) {
  mlir_expect(st, ":");
  mlir_expect(st, "(");
  mlir_expect(st, ")");
  mlir_expect(st, "->");
  mlir_expect(st, "(");
  mlir_expect(st, ")");
}

static void func_decl_generic(MState *st, int64_t off) {
  MFunc f = {.off = off, .is_public = true};
  mlir_expect(st, "(");
  mlir_expect(st, ")");
  mlir_expect(st, "<{");
  MType *types[MLIR_MAX_OPERANDS], *rtypes[MLIR_MAX_OPERANDS];
  bool typed = false;
  MAttr *arg_attrs = NULL, *res_attrs = NULL;
  if (!mlir_peek(st, "}>")) {
    do {
      int64_t koff = mlir_off(st);
      const char *k = mlir_ident(st);
      if (!k) mlir_fail(st, koff, "expected an attribute name");
      mlir_expect(st, "=");
      if (strcmp(k, "function_type") == 0) {
        typed = true;
        mlir_expect(st, "(");
        if (!mlir_peek(st, ")")) {
          do {
            if (f.nargs == MLIR_MAX_OPERANDS) mlir_fail(st, koff, "too many arguments");
            types[f.nargs++] = mlir_type(st);
          } while (mlir_accept(st, ","));
        }
        mlir_expect(st, ")");
        mlir_expect(st, "->");
        bool paren = mlir_accept(st, "(");
        if (!(paren && mlir_peek(st, ")"))) {
          do {
            if (f.nresults == MLIR_MAX_OPERANDS) mlir_fail(st, koff, "too many results");
            rtypes[f.nresults++] = mlir_type(st);
          } while (paren && mlir_accept(st, ","));
        }
        if (paren) mlir_expect(st, ")");
        continue;
      }
      MAttr *v = mlir_attr(st);
      if (strcmp(k, "sym_name") == 0) {
        if (v->kind != MA_STR) mlir_fail(st, v->offset, "sym_name must be a string");
        f.sym = v->s;
      } else if (strcmp(k, "sym_visibility") == 0 && v->kind == MA_STR) {
        f.is_public = strcmp(v->s, "private") != 0;
      } else if (strcmp(k, "arg_attrs") == 0) {
        arg_attrs = v;
      } else if (strcmp(k, "res_attrs") == 0) {
        res_attrs = v;
      }
    } while (mlir_accept(st, ","));
  }
  mlir_expect(st, "}>");
  if (!f.sym) mlir_fail(st, off, "the generic func.func needs sym_name = \"...\"");
  if (!typed) mlir_fail(st, off, "the generic func.func needs function_type = (...) -> ...");
  for (int i = 0; i < st->nfuncs; i++)
    if (strcmp(st->funcs[i].sym, f.sym) == 0) mlir_fail(st, off, "function @%s is defined twice", f.sym);
  if ((arg_attrs && (arg_attrs->kind != MA_LIST || arg_attrs->n != f.nargs)) ||
      (res_attrs && (res_attrs->kind != MA_LIST || res_attrs->n != f.nresults)))
    mlir_fail(st, (arg_attrs ? arg_attrs : res_attrs)->offset, "arg_attrs / res_attrs need one dictionary per argument / result");
  f.args = arena_alloc_array(st->arena, (size_t)f.nargs + 1, sizeof *f.args);
  f.arg_names = arena_alloc_array(st->arena, (size_t)f.nargs + 1, sizeof *f.arg_names);
  f.arg_info = arena_alloc_array(st->arena, (size_t)f.nargs + 1, sizeof *f.arg_info);
  f.results = arena_alloc_array(st->arena, (size_t)f.nresults + 1, sizeof *f.results);
  f.result_info = arena_alloc_array(st->arena, (size_t)f.nresults + 1, sizeof *f.result_info);
  if (!f.args || !f.arg_names || !f.arg_info || !f.results || !f.result_info) mlir_fail(st, -1, "out of memory");
  memcpy(f.args, types, sizeof *types * (size_t)f.nargs);
  memcpy(f.results, rtypes, sizeof *rtypes * (size_t)f.nresults);
  for (int i = 0; arg_attrs && i < f.nargs; i++) f.arg_info[i] = str_entry(arg_attrs->items[i], "jax.arg_info");
  for (int i = 0; res_attrs && i < f.nresults; i++) f.result_info[i] = str_entry(res_attrs->items[i], "jax.result_info");
  /* The region: its block's arguments name (and loc-name) the arguments. */
  mlir_expect(st, "(");
  int64_t roff = mlir_off(st);
  mlir_expect(st, "{");
  if (mlir_peek(st, "^")) {
    mlir_sigil_name(st, '^');
    mlir_skip(st);
    f.generic_args = st->p;
    mlir_expect(st, "(");
    int n = 0;
    if (!mlir_peek(st, ")")) {
      do {
        int64_t aoff = mlir_off(st);
        if (!mlir_sigil_name(st, '%')) mlir_fail(st, aoff, "expected a block argument %%name");
        mlir_expect(st, ":");
        MType *t = mlir_type(st);
        if (n >= f.nargs || !mlir_type_eq(t, f.args[n]))
          mlir_fail(st, aoff, "block argument %d differs from the function_type's arguments", n);
        f.arg_names[n++] = mlir_peek(st, "loc(") ? mlir_loc_name(st) : NULL;
      } while (mlir_accept(st, ","));
    }
    mlir_expect(st, ")");
    if (n != f.nargs) mlir_fail(st, roff, "the block has %d arguments, the function_type %d", n, f.nargs);
    mlir_expect(st, ":");
  } else {
    if (f.nargs) mlir_fail(st, roff, "the function's block needs its arguments: ^bb0(%%arg0: T, ...):");
    f.generic_args = st->p - 1; /* "{": no arguments to read */
  }
  f.body = st->p;
  st->p = st->src + roff;
  mlir_skip_group(st);
  mlir_expect(st, ")");
  mlir_expect_unit_fn_type(st);
  mlir_skip_loc(st);
  st->funcs = mlir_grow(st, st->funcs, st->nfuncs, &st->fcap, sizeof *st->funcs);
  st->funcs[st->nfuncs++] = f;
}

/* mlir_internal.h */
void mlir_convert_func(MState *st, MFunc *f, bool entry) {
  if (f->state == 2) return;
  if (f->state == 1) mlir_fail(st, f->off, "function @%s calls itself (recursion has no HLO form)", f->sym);
  if (++st->depth > MLIR_MAX_DEPTH) mlir_fail(st, f->off, "calls nested too deeply");
  f->state = 1;
  const char *save = st->p;
  MComp *saved = st->cur, *c = mlir_new_comp(st, f->hlo, f->off);
  c->is_entry = entry;
  st->cur = c;
  st->p = f->body;
  if (!f->generic_args) mlir_expect(st, "{");
  if (mlir_peek(st, "^")) mlir_fail(st, mlir_off(st), "functions with several blocks are not supported");
  for (int i = 0; i < f->nargs; i++) {
    const char *pn = NULL;
    if (entry && f->arg_names[i]) {
      pn = f->arg_names[i];
      for (int k = 0; k < i && pn; k++) /* a name given twice: argN for the second */
        if (f->arg_names[k] && strcmp(f->arg_names[k], pn) == 0) pn = NULL;
    }
    if (!pn) pn = entry ? mlir_fmt(st, "arg%d", i) : mlir_new_name(st, "p");
    /* the SSA names are read from the body's scope: %argN by position */
    MLine line;
    StrBuf *sb = mlir_sb(st);
    sb_printf(sb, "%s = ", pn);
    mlir_type_hlo(sb, f->args[i]);
    sb_printf(sb, " parameter(%d)", i);
    /* jax.arg_info as the parameter's op_name: .npz entries bind by it as
     * they do for JAX's own HLO (interp/io/bind_names.h). */
    const char *info = entry ? f->arg_info[i] : NULL;
    if (info && *info) {
      sb_puts(sb, ", metadata={op_name=\"");
      for (const char *q = info; *q; q++) {
        if (*q == '\\' && q[1]) sb_putc(sb, *q++); /* an MLIR escape stays one */
        else if (*q == '"') sb_putc(sb, '\\');
        sb_putc(sb, *q);
      }
      sb_puts(sb, "\"}");
    }
    line.text = mlir_strdup(st, sb->data, sb->len);
    sb_free(sb);
    line.name = pn;
    line.mlir_off = f->off;
    c->lines = mlir_grow(st, c->lines, c->nlines, &c->cap, sizeof *c->lines);
    c->lines[c->nlines++] = line;
  }
  /* Argument SSA names: read them again from the signature. */
  const char *sp = st->p;
  st->p = st->src + f->off;
  while (*st->p != '(') st->p++;
  if (f->generic_args) st->p = f->generic_args;
  st->p++;
  for (int i = 0; i < f->nargs; i++) {
    if (i) mlir_expect(st, ",");
    const char *ssa = mlir_sigil_name(st, '%');
    mlir_expect(st, ":");
    mlir_type(st);
    if (mlir_peek(st, "{")) mlir_attr(st);
    mlir_skip_loc(st);
    mlir_bind(st, ssa, c->lines[i].name, f->args[i]);
  }
  st->p = sp;
  mlir_body(st, c, f->nresults, f->results, NULL, NULL, "the function");
  if (f->nresults == 0) {
    MType *t = arena_alloc(st->arena, sizeof *t);
    if (!t) mlir_fail(st, -1, "out of memory");
    t->kind = MT_TUPLE;
    c->root = mlir_line(st, f->off, "ret", t, "tuple()");
  }
  st->cur = saved;
  mlir_finish_comp(st, c);
  f->state = 2;
  st->p = save;
  st->depth--;
}

MFunc *mlir_find_func(MState *st, const char *sym) {
  for (int i = 0; i < st->nfuncs; i++)
    if (strcmp(st->funcs[i].sym, sym) == 0) {
      mlir_convert_func(st, &st->funcs[i], false);
      return &st->funcs[i];
    }
  return NULL;
}

/* mlir_internal.h */
bool mlir_any_func(MState *st) {
  int64_t off = mlir_off(st);
  if (mlir_accept_word(st, "func.func")) func_decl(st);
  else if (mlir_accept(st, "\"func.func\"")) func_decl_generic(st, off);
  else return false;
  return true;
}

