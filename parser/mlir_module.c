/* The module level of the StableHLO reader: #loc aliases, `module` with its
 * attributes, op sequences and regions, and the assembly of the HLO text
 * with its line map.  Functions are mlir_func.c's. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "parser/ir.h"
#include "parser/mlir.h"
#include "parser/mlir_internal.h"

/* mlir_internal.h */
void *mlir_grow(MState *st, void *old, int n, int *cap, size_t size) {
  if (n < *cap) return old;
  int nc = *cap ? *cap * 2 : 16;
  void *p = arena_alloc_array(st->arena, (size_t)nc, size);
  if (!p) mlir_fail(st, -1, "out of memory");
  if (n) memcpy(p, old, size * (size_t)n);
  *cap = nc;
  return p;
}

MComp *mlir_new_comp(MState *st, const char *name, int64_t off) {
  MComp *c = arena_alloc(st->arena, sizeof *c);
  if (!c) mlir_fail(st, -1, "out of memory");
  c->name = name;
  c->off = off;
  return c;
}

void mlir_finish_comp(MState *st, MComp *c) {
  st->comps = mlir_grow(st, st->comps, st->ncomps, &st->ccap, sizeof *st->comps);
  st->comps[st->ncomps++] = c;
}

/* A name usable as an HLO parameter name (for binding inputs by name). */
static bool plain_name(const char *s) {
  if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '-')) return false;
  return true;
}

/* mlir_internal.h */
const char *mlir_loc_name(MState *st) {
  if (!mlir_peek(st, "loc(")) return NULL;
  const char *open = st->p + 3;
  st->p += 4;
  const char *name = NULL;
  const char *s = mlir_string(st);
  if (s && mlir_accept(st, ")")) return plain_name(s) ? s : NULL;
  if (!s && mlir_peek(st, "#")) {
    const char *alias = mlir_sigil_name(st, '#');
    for (int i = 0; i < st->nlocs; i++)
      if (strcmp(st->loc_keys[i], alias) == 0) name = st->loc_vals[i];
  }
  /* Anything else (file:line:col, callsites, fused locations): skip. */
  st->p = open;
  mlir_skip_group(st);
  return name;
}

/* #loc3 = loc("x") at the top level. */
static void loc_alias(MState *st) {
  const char *key = mlir_sigil_name(st, '#');
  mlir_expect(st, "=");
  if (!mlir_peek(st, "loc(")) mlir_fail(st, mlir_off(st), "only #loc aliases are read at the top level");
  const char *v = mlir_loc_name(st);
  st->loc_keys = mlir_grow(st, st->loc_keys, st->nlocs, &st->loccap, sizeof *st->loc_keys);
  int dummy = st->nlocs;
  st->loc_vals = mlir_grow(st, st->loc_vals, st->nlocs, &dummy, sizeof *st->loc_vals);
  st->loc_keys[st->nlocs] = key;
  st->loc_vals[st->nlocs++] = v;
}

/* mlir_internal.h */
void mlir_body(MState *st, MComp *c, int nres, MType **res, int *nout, MType ***out, const char *what) {
  for (;;) {
    mlir_skip(st);
    if (st->p >= st->end) mlir_fail(st, c->off, "%s is not closed: the file ends before its '}'", what);
    if (mlir_accept(st, "}")) mlir_fail(st, c->off, "%s has no return at its end", what);
    MOp op;
    mlir_parse_op(st, &op);
    if (strcmp(op.name, "func.return") == 0 || strcmp(op.name, "stablehlo.return") == 0 ||
        strcmp(op.name, "\"func.return\"") == 0) {
      if (op.nin >= 0 && op.nout != 0) mlir_fail(st, op.off, "a return has no results");
      int n = op.nin >= 0 ? op.nopnds : op.nout;
      if (op.nin < 0 && op.nout != op.nopnds)
        mlir_fail(st, op.off, "the return has %d values but %d types", op.nopnds, op.nout);
      if (op.nin < 0 && op.nopnds == 0 && op.nout == 0) n = 0;
      for (int i = 0; i < op.nopnds && op.nin < 0; i++)
        if (!mlir_type_eq(op.out[i], op.opnds[i]->type))
          mlir_fail(st, op.opnd_off[i], "type mismatch: returned value %d does not have the type given", i);
      if (res) {
        if (n != nres) mlir_fail(st, op.off, "%s returns %d values, its signature says %d", what, n, nres);
        for (int i = 0; i < n; i++)
          if (!mlir_type_eq(res[i], op.opnds[i]->type))
            mlir_fail(st, op.opnd_off[i], "type mismatch: returned value %d differs from the signature's result type", i);
      }
      MType **ts = arena_alloc_array(st->arena, (size_t)n + 1, sizeof *ts);
      if (!ts) mlir_fail(st, -1, "out of memory");
      for (int i = 0; i < n; i++) ts[i] = op.opnds[i]->type;
      if (out) *out = ts, *nout = n;
      if (n == 1) {
        c->root = op.opnds[0]->hlo;
      } else {
        MType *t = arena_alloc(st->arena, sizeof *t);
        if (!t) mlir_fail(st, -1, "out of memory");
        t->kind = MT_TUPLE, t->elems = ts, t->nelems = n;
        StrBuf *sb = mlir_sb(st);
        for (int i = 0; i < n; i++) sb_printf(sb, "%s%s", i ? ", " : "", op.opnds[i]->hlo);
        c->root = mlir_line(st, op.off, "ret", t, "tuple(%s)", sb->data ? sb->data : "");
        sb_free(sb);
      }
      mlir_expect(st, "}");
      return;
    }
    mlir_emit_op(st, &op);
  }
}

/* Block arguments "%a: T loc(..), %b: T" into parameters of st->cur. */
static int block_args(MState *st, MType **types, int cap, int start) {
  int n = start;
  if (mlir_peek(st, ")")) return n;
  do {
    int64_t off = mlir_off(st);
    const char *ssa = mlir_sigil_name(st, '%');
    if (!ssa) mlir_fail(st, off, "expected a block argument");
    mlir_expect(st, ":");
    MType *t = mlir_type(st);
    mlir_skip_loc(st);
    if (n == cap) mlir_fail(st, off, "too many block arguments");
    types[n] = t;
    mlir_bind(st, ssa, mlir_fmt(st, "%d", n), t); /* hlo name set when the parameters are written */
    n++;
  } while (mlir_accept(st, ","));
  return n;
}

/* Writes parameter lines for the first n values of c (the block arguments)
 * in front of whatever lines the body wrote. */
static void params_first(MState *st, MComp *c, int n, int64_t off) {
  if (n == 0) return;
  int body_lines = c->nlines;
  for (int i = 0; i < n; i++) {
    const char *pn = mlir_line(st, off, "p", c->vals[i].type, "parameter(%d)", i);
    c->vals[i].hlo = pn;
  }
  /* rotate: parameters first */
  MLine *tmp = arena_alloc_array(st->arena, (size_t)c->nlines, sizeof *tmp);
  if (!tmp) mlir_fail(st, -1, "out of memory");
  memcpy(tmp, c->lines + body_lines, sizeof *tmp * (size_t)n);
  memcpy(tmp + n, c->lines, sizeof *tmp * (size_t)body_lines);
  memcpy(c->lines, tmp, sizeof *tmp * (size_t)c->nlines);
}

static MRegion *region_common(MState *st, MComp *c, MType **types, int n, int64_t off) {
  MRegion *r = arena_alloc(st->arena, sizeof *r);
  if (!r) mlir_fail(st, -1, "out of memory");
  r->off = off;
  r->comp = c->name;
  r->nargs = n;
  r->args = arena_alloc_array(st->arena, (size_t)n + 1, sizeof *r->args);
  if (!r->args) mlir_fail(st, -1, "out of memory");
  memcpy(r->args, types, sizeof *types * (size_t)n);
  /* Parameters must exist before the body refers to them: write them now. */
  params_first(st, c, n, off);
  c->nparams = n;
  if (++st->depth > MLIR_MAX_DEPTH) mlir_fail(st, off, "regions nested too deeply");
  mlir_body(st, c, 0, NULL, &r->nresults, &r->results, "the region");
  st->depth--;
  r->ncapt = c->ncapt;
  r->capt = c->capt;
  return r;
}

MRegion *mlir_region(MState *st, int nargs, const char **names, MType **arg_types) {
  int64_t off = mlir_off(st);
  mlir_expect(st, "{");
  MComp *saved = st->cur, *c = mlir_new_comp(st, mlir_new_name(st, "region"), off);
  c->parent = saved;
  st->cur = c;
  MType *types[MLIR_MAX_OPERANDS];
  int n = 0;
  if (names) {
    /* The pretty while: the block arguments are the iteration names. */
    for (; n < nargs; n++) {
      types[n] = arg_types[n];
      mlir_bind(st, names[n], "", arg_types[n]);
    }
  } else if (mlir_peek(st, "^")) {
    mlir_sigil_name(st, '^');
    if (mlir_accept(st, "(")) {
      n = block_args(st, types, MLIR_MAX_OPERANDS, 0);
      mlir_expect(st, ")");
    }
    mlir_expect(st, ":");
  }
  MRegion *r = region_common(st, c, types, n, off);
  st->cur = saved;
  mlir_finish_comp(st, c);
  return r;
}

MRegion *mlir_region_with_args(MState *st, int ngroups, const char *hint) {
  (void)hint;
  int64_t off = mlir_off(st);
  MComp *saved = st->cur, *c = mlir_new_comp(st, mlir_new_name(st, "region"), off);
  c->parent = saved;
  st->cur = c;
  /* Groups (lhs_i, rhs_i); block order is lhs_0..lhs_n-1, rhs_0..rhs_n-1. */
  MType *types[MLIR_MAX_OPERANDS];
  const char *names[MLIR_MAX_OPERANDS];
  if (ngroups > MLIR_MAX_OPERANDS / 2) mlir_fail(st, off, "too many reducer groups");
  for (int g = 0; g < ngroups; g++) {
    mlir_expect(st, "(");
    for (int k = 0; k < 2; k++) {
      if (k) mlir_expect(st, ",");
      int64_t aoff = mlir_off(st);
      const char *ssa = mlir_sigil_name(st, '%');
      if (!ssa) mlir_fail(st, aoff, "expected a block argument: each reducer group takes two");
      mlir_expect(st, ":");
      names[g + k * ngroups] = ssa;
      types[g + k * ngroups] = mlir_type(st);
      mlir_skip_loc(st);
    }
    mlir_expect(st, ")");
  }
  for (int i = 0; i < 2 * ngroups; i++) mlir_bind(st, names[i], "", types[i]);
  mlir_expect(st, "{");
  MRegion *r = region_common(st, c, types, 2 * ngroups, off);
  st->cur = saved;
  mlir_finish_comp(st, c);
  return r;
}

static void module_attrs(MState *st) {
  MAttr *d = mlir_attr(st);
  if (d->kind != MA_DICT) mlir_fail(st, d->offset, "expected the module's attributes {...}");
  for (int i = 0; i < d->n; i++) {
    bool rep = strcmp(d->keys[i], "mhlo.num_replicas") == 0;
    if (rep || strcmp(d->keys[i], "mhlo.num_partitions") == 0) {
      if (d->items[i]->kind != MA_INT || d->items[i]->i < 1)
        mlir_fail(st, d->items[i]->offset, "%s must be a positive integer", d->keys[i]);
      *(rep ? &st->num_replicas : &st->num_partitions) = d->items[i]->i;
    }
  }
}

/* "builtin.module"() <{sym_name = "m"}> ({ funcs }) {attrs} : () -> () */
static void generic_module(MState *st) {
  mlir_expect(st, "\"builtin.module\"");
  mlir_expect(st, "(");
  mlir_expect(st, ")");
  if (mlir_accept(st, "<")) {
    MAttr *d = mlir_attr(st);
    for (int i = 0; d->kind == MA_DICT && i < d->n; i++)
      if (strcmp(d->keys[i], "sym_name") == 0 && d->items[i]->kind == MA_STR) st->module_name = d->items[i]->s;
    mlir_expect(st, ">");
  }
  mlir_expect(st, "(");
  int64_t open = mlir_off(st);
  mlir_expect(st, "{");
  if (mlir_peek(st, "^")) {
    mlir_sigil_name(st, '^');
    mlir_expect(st, ":");
  }
  for (;;) {
    mlir_skip(st);
    if (mlir_accept(st, "}")) break;
    if (st->p >= st->end) mlir_fail(st, open, "the module is not closed: the file ends before its '}'");
    int64_t off = mlir_off(st);
    if (!mlir_any_func(st)) mlir_fail(st, off, "expected func.func or the module's closing '}'");
  }
  mlir_expect(st, ")");
  if (mlir_peek(st, "{")) module_attrs(st);
  mlir_expect_unit_fn_type(st);
  mlir_skip_loc(st);
}

static void top(MState *st) {
  while (mlir_peek(st, "#")) loc_alias(st);
  bool generic = mlir_peek(st, "\"builtin.module\"");
  if (generic) generic_module(st);
  bool mod = !generic && mlir_accept_word(st, "module");
  int64_t open = 0;
  if (mod) {
    const char *n = mlir_sigil_name(st, '@');
    if (n) st->module_name = n + 1;
    if (mlir_accept_word(st, "attributes")) module_attrs(st);
    open = mlir_off(st);
    mlir_expect(st, "{");
  }
  for (; !generic;) {
    mlir_skip(st);
    if (mod && mlir_accept(st, "}")) break;
    if (!mod && (st->p >= st->end || mlir_peek(st, "{-#") || mlir_peek(st, "#"))) break;
    if (st->p >= st->end) mlir_fail(st, open, "the module is not closed: the file ends before its '}'");
    int64_t off = mlir_off(st);
    if (!mlir_any_func(st)) mlir_fail(st, off, "expected func.func%s", mod ? " or the module's closing '}'" : "");
  }
  if (mod) mlir_skip_loc(st);
  while (mlir_peek(st, "#")) loc_alias(st);
  mlir_skip(st);
  if (mlir_peek(st, "{-#")) {
    mlir_resources(st);
    while (mlir_peek(st, "#")) loc_alias(st);
    mlir_skip(st);
  }
  if (st->p < st->end) mlir_fail(st, mlir_off(st), "unexpected text after the module");
  if (st->nfuncs == 0) mlir_fail(st, 0, "the module has no function");
}

bool mlir_detect(const char *text, size_t len) {
  const char *p = text, *end = text + len;
  for (;;) {
    while (p < end && isspace((unsigned char)*p)) p++;
    if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
      while (p < end && *p != '\n') p++;
      continue;
    }
    break;
  }
  static const char *const starts[] = {"module", "func.func", "#loc", "\"builtin.module\"", NULL};
  for (int i = 0; starts[i]; i++) {
    size_t n = strlen(starts[i]);
    if ((size_t)(end - p) >= n && memcmp(p, starts[i], n) == 0) return true;
  }
  return false;
}

static void assemble(MState *st, StrBuf *sb, int64_t **offs, int *noffs, int *cap) {
#define LINE(off)                                                          \
  do {                                                                     \
    if (*noffs == *cap) {                                                  \
      *cap = *cap ? *cap * 2 : 256;                                        \
      int64_t *n = realloc(*offs, sizeof **offs * (size_t)*cap);           \
      if (!n) mlir_fail(st, -1, "out of memory");                          \
      *offs = n;                                                           \
    }                                                                      \
    (*offs)[(*noffs)++] = (off);                                           \
  } while (0)
  sb_printf(sb, "HloModule %s", plain_name(st->module_name) ? st->module_name : "stablehlo");
  if (st->num_replicas != 1) sb_printf(sb, ", replica_count=%lld", (long long)st->num_replicas);
  if (st->num_partitions != 1) sb_printf(sb, ", num_partitions=%lld", (long long)st->num_partitions);
  sb_puts(sb, "\n\n");
  LINE(0);
  LINE(0);
  for (int i = 0; i < st->ncomps; i++) {
    MComp *c = st->comps[i];
    sb_printf(sb, "%s%s {\n", c->is_entry ? "ENTRY " : "", c->name);
    LINE(c->off);
    /* The root: the same pointer as its line's name, but for safety by
     * content when no pointer matches. */
    int root = -1;
    for (int k = c->nlines - 1; k >= 0 && root < 0 && c->root; k--)
      if (c->lines[k].name == c->root) root = k;
    for (int k = 0; k < c->nlines && root < 0 && c->root; k++)
      if (strcmp(c->root, c->lines[k].name) == 0) root = k;
    for (int k = 0; k < c->nlines; k++) {
      sb_puts(sb, k == root ? "  ROOT " : "  ");
      sb_puts(sb, c->lines[k].text);
      sb_putc(sb, '\n');
      LINE(c->lines[k].mlir_off);
    }
    sb_puts(sb, "}\n\n");
    LINE(c->off);
    LINE(c->off);
  }
#undef LINE
}

/* The entry's jax.result_info names into out when all are usable: every
 * result has a non-empty one and no two are the same (else positional). */
static void result_names(const MFunc *f, MlirHlo *out) {
  for (int i = 0; i < f->nresults; i++) {
    if (!f->result_info[i] || !*f->result_info[i] || f->results[i]->kind != MT_TENSOR) return;
    for (int k = 0; k < i; k++)
      if (strcmp(f->result_info[k], f->result_info[i]) == 0) return;
  }
  if (f->nresults <= 0) return;
  char **n = calloc((size_t)f->nresults, sizeof *n);
  for (int i = 0; n && i < f->nresults; i++)
    if (!(n[i] = strdup(f->result_info[i]))) { /* out of memory: positional names */
      while (i--) free(n[i]);
      free(n);
      n = NULL;
    }
  out->result_names = n;
  out->nresult_names = n ? f->nresults : 0;
}

bool mlir_name_results(const MlirHlo *h, struct Module *m) {
  if (!h->nresult_names) return true;
  const char **v = arena_alloc_array(m->arena, (size_t)h->nresult_names, sizeof *v);
  if (!v) return false;
  for (int i = 0; i < h->nresult_names; i++)
    if (!(v[i] = arena_strdup(m->arena, h->result_names[i]))) return false;
  m->result_names = v;
  m->nresult_names = h->nresult_names;
  return true;
}

bool mlir_to_hlo(const char *text, size_t len, MlirHlo *out, Diags *diags) {
  memset(out, 0, sizeof *out);
  MState *st = calloc(1, sizeof *st);
  if (!st) return false;
  st->arena = arena_new();
  st->src = st->p = text;
  st->end = text + len;
  st->num_replicas = st->num_partitions = 1;
  StrBuf res; /* address taken: in memory across the longjmp */
  sb_init(&res);
  int cap = 0;
  bool ok = false;
  if (st->arena && setjmp(st->fail) == 0) {
    top(st);
    MFunc *entry = NULL;
    int npublic = 0;
    for (int i = 0; i < st->nfuncs; i++) {
      MFunc *f = &st->funcs[i];
      f->hlo = mlir_fmt(st, "%s", plain_name(f->sym) ? f->sym : "func");
      for (int k = 0; k < i; k++)
        if (strcmp(st->funcs[k].hlo, f->hlo) == 0) f->hlo = mlir_new_name(st, f->hlo);
      if (f->is_public) npublic++;
      if (f->is_public && strcmp(f->sym, "main") == 0) entry = f;
    }
    if (!entry && npublic == 1)
      for (int i = 0; i < st->nfuncs; i++)
        if (st->funcs[i].is_public) entry = &st->funcs[i];
    if (!entry)
      mlir_fail(st, 0, "no entry function: the module needs a public @main or exactly one public function");
    for (int i = 0; i < st->nfuncs; i++)
      if (&st->funcs[i] != entry) mlir_convert_func(st, &st->funcs[i], false);
    mlir_convert_func(st, entry, true);
    assemble(st, &res, &out->line_off, &out->nlines, &cap);
    if (res.oom) mlir_fail(st, -1, "out of memory");
    result_names(entry, out);
    ok = true;
  } else {
    diags_add(diags, st->erroff, "%s", st->arena ? st->errmsg : "out of memory");
  }
  if (ok) {
    out->len = res.len;
    out->text = sb_take(&res);
    out->blobs = st->blobs, out->nblobs = st->nblobs; /* made in id order */
    st->blobs = NULL, st->nblobs = 0;
  } else {
    sb_free(&res);
    free(out->line_off);
    memset(out, 0, sizeof *out);
  }
  for (int i = 0; i < st->nsbs; i++) sb_free(st->sbs[i]);
  free(st->sbs);
  for (int i = 0; i < st->nblobs; i++) free(st->blobs[i].data);
  free(st->blobs);
  if (st->arena) arena_free(st->arena);
  free(st);
  return ok;
}

int64_t mlir_map_offset(const MlirHlo *h, int64_t off) {
  if (off < 0 || !h->text) return -1;
  int line = 0;
  for (int64_t i = 0; i < off && (size_t)i < h->len; i++)
    if (h->text[i] == '\n') line++;
  if (line >= h->nlines) line = h->nlines - 1;
  return line >= 0 ? h->line_off[line] : -1;
}

void mlir_hlo_free(MlirHlo *h) {
  for (int i = 0; i < h->nresult_names; i++) free(h->result_names[i]);
  free(h->result_names);
  for (int i = 0; i < h->nblobs; i++) free(h->blobs[i].data);
  free(h->blobs);
  free(h->text);
  free(h->line_off);
  memset(h, 0, sizeof *h);
}
