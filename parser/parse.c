/* parse_module(): runs the grammar over the text and finishes the module
 * (entry computation, entry layout, defaults).  parse_shape_text(): the
 * same grammar over one shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "parser/parse_internal.h"
#include "parser/parser.h"
#include "parser/grammar.tab.h"

/* Per-parse lookup tables for opcode and attribute names: a few hundred
 * inserts, and no global state. */
static bool init_tables(ParseCtx *ctx) {
  for (int o = 1; o < OP_COUNT; o++) {
    const char *n = opcode_name((Opcode)o);
    if (!names_put(&ctx->opcodes, n, (int64_t)strlen(n), (void *)(intptr_t)o)) return false;
  }
  for (int k = 1; k < ATTR_COUNT; k++) {
    const char *n = attr_key_name((AttrKey)k);
    if (!names_put(&ctx->attr_keys, n, (int64_t)strlen(n), (void *)(intptr_t)k)) return false;
  }
  return true;
}

static void finish_module(ParseCtx *ctx) {
  Module *m = ctx->m;
  m->ncomps = ctx->comps.n;
  m->comps = (Computation **)ctx->comps.v;
  if (m->ncomps == 0) {
    parse_error(ctx, (int64_t)ctx->len, "module has no computations");
    return;
  }
  /* The ENTRY computation, else the last one (callees come first). */
  for (int i = 0; i < m->ncomps; i++)
    if (m->comps[i]->is_entry) m->entry = m->comps[i];
  if (!m->entry) {
    m->entry = m->comps[m->ncomps - 1];
    m->entry->is_entry = true;
  }
  Computation *e = m->entry;
  if (!m->has_header) {
    size_t n = strlen(e->name) + 8;
    char *name = arena_alloc(ctx->arena, n);
    if (name) snprintf(name, n, "module_%s", e->name);
    m->name = name ? name : "module";
  }
  m->nattrs = ctx->header_attrs.n;
  m->attrs = (Attr *)ctx->header_attrs.v;
  if (m->has_entry_layout) {
    if (m->nentry_params != e->nparams) {
      parse_error(ctx, e->offset,
                  "entry_computation_layout has %d parameters, but the entry computation has %d",
                  m->nentry_params, e->nparams);
      return;
    }
    /* XLA takes the layout as given without comparing element types
     * (math_next_after.2 pairs f32 layouts with f8 parameters). */
    return;
  }
  /* Without entry_computation_layout the entry's own shapes are the I/O. */
  m->nentry_params = e->nparams;
  if (e->nparams) {
    m->entry_params = arena_alloc_array(ctx->arena, (size_t)e->nparams, sizeof(Shape));
    if (!m->entry_params) {
      parse_oom(ctx, -1);
      return;
    }
    for (int i = 0; i < e->nparams; i++)
      if (e->params[i]) m->entry_params[i] = e->params[i]->shape;
  }
  if (e->root) m->entry_result = e->root->shape;
}

bool parse_ctx_init(ParseCtx *ctx, const char *filename, const char *text, size_t len,
                    Diags *diags) {
  memset(ctx, 0, sizeof *ctx);
  ctx->arena = arena_new();
  ctx->scratch = arena_new();
  ctx->diags = diags;
  ctx->src = text;
  ctx->len = len;
  Module *m = ctx->arena && ctx->scratch ? arena_alloc(ctx->arena, sizeof *m) : NULL;
  if (!m || !init_tables(ctx)) {
    diags_add(diags, -1, "out of memory");
    parse_ctx_free(ctx, true);
    return false;
  }
  m->arena = ctx->arena;
  m->filename = filename;
  m->source = text;
  m->source_len = len;
  m->replica_count = 1;
  m->num_partitions = 1;
  ctx->m = m;
  lex_init(&ctx->lx, text, len);
  return true;
}

void parse_ctx_free(ParseCtx *ctx, bool free_arena) {
  while (ctx->scope) {
    Scope *s = ctx->scope;
    ctx->scope = s->parent;
    names_free(&s->names);
    free(s);
  }
  names_free(&ctx->comp_names);
  names_free(&ctx->opcodes);
  names_free(&ctx->attr_keys);
  if (free_arena) arena_free(ctx->arena);
  arena_free(ctx->scratch);
  ctx->arena = ctx->scratch = NULL;
}

Module *parse_module(const char *filename, const char *text, size_t len, Diags *diags) {
  ParseCtx ctx;
  if (!parse_ctx_init(&ctx, filename, text, len, diags)) return NULL;
  int rc = parse_run(&ctx);
  if (rc == 0 && ctx.nerrors == 0) finish_module(&ctx);
  if (rc != 0 && ctx.nerrors == 0) parse_error(&ctx, (int64_t)len, "syntax error");
  bool failed = ctx.nerrors > 0 || ctx.oom || ctx.too_many_errors;
  Module *m = ctx.m;
  parse_ctx_free(&ctx, failed);
  return failed ? NULL : m;
}

bool parse_shape_text(const char *text, size_t len, Arena *arena, Shape *out, Error *err) {
  /* The lexer wants a NUL after the text; a NUL inside it is an error. */
  char *src = arena_alloc(arena, len + 1);
  if (!src) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  memcpy(src, text, len);
  Diags diags = {0};
  ParseCtx ctx;
  memset(&ctx, 0, sizeof ctx);
  /* Everything the builder makes goes straight into the caller's arena;
   * no name tables, no module. */
  ctx.arena = ctx.scratch = arena;
  ctx.diags = &diags;
  ctx.src = src;
  ctx.len = len;
  ctx.lone_shape = true;
  lex_init(&ctx.lx, src, len);
  ctx.lx.stack[0].kind = LX_SHAPE;
  int rc = parse_run(&ctx);
  bool ok = rc == 0 && ctx.nerrors == 0 && ctx.shape_result &&
            ctx.shape_result->etype != ET_INVALID;
  if (ok) {
    *out = *ctx.shape_result;
  } else if (diags.count > 0) {
    error_set(err, ctx.oom ? ERR_RUNTIME : ERR_INVALID, diags.items[0].offset, "%s",
              diags.items[0].msg);
  } else {
    error_set(err, ERR_INVALID, (int64_t)len, "syntax error");
  }
  diags_free(&diags);
  return ok;
}
