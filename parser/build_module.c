/* The builder's module header (hlo-text.md 3.3) and computations: scopes,
 * signatures, parameters, and references to computations and
 * instructions by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/parse_internal.h"

/* ---------------------------------------------------------------------------
 * Module header (3.3) */

void build_header(ParseCtx *ctx, Str name, int64_t off) {
  (void)off;
  ctx->m->name = ctx_strdup(ctx, name);
  ctx->m->has_header = true;
}

void build_header_attr(ParseCtx *ctx, AttrTok *name, int64_t first, int64_t last) {
  for (int i = 0; i < ctx->header_attrs.n; i++) {
    Attr *a = &VEC_AT(ctx->header_attrs, Attr, i);
    if (strlen(a->name) == (size_t)name->name.n && memcmp(a->name, name->name.p, (size_t)name->name.n) == 0) {
      parse_error(ctx, name->off, "attribute %.*s already specified", STR_ARG(name->name));
      return;
    }
  }
  Attr *a = vec_push_in(ctx, ctx->arena, &ctx->header_attrs, sizeof(Attr));
  if (!a) return;
  a->key = name->key;
  a->name = ctx_strdup(ctx, name->name);
  a->kind = AV_RAW;
  a->offset = name->off;
  a->v.s = ctx_source_text(ctx, first, last);
}

void build_header_int(ParseCtx *ctx, AttrTok *name, IntTok v, int64_t off) {
  if (v.big || v.v < 1) {
    parse_error(ctx, off, "%.*s must be a positive integer", STR_ARG(name->name));
    return;
  }
  if (str_is(name->name, "replica_count")) ctx->m->replica_count = v.v;
  else ctx->m->num_partitions = v.v;
}

void build_header_bool(ParseCtx *ctx, AttrTok *name, bool v) {
  if (str_is(name->name, "is_scheduled")) ctx->m->is_scheduled = v;
}

void build_entry_layout(ParseCtx *ctx, Vec *params, Shape *result) {
  Module *m = ctx->m;
  if (!result || result->etype == ET_INVALID) return;
  m->has_entry_layout = true;
  m->nentry_params = params->n;
  if (params->n) {
    m->entry_params = arena_alloc_array(ctx->arena, (size_t)params->n, sizeof(Shape));
    if (!m->entry_params) {
      parse_oom(ctx, -1);
      return;
    }
    for (int i = 0; i < params->n; i++) {
      Shape *s = VEC_AT(*params, Shape *, i);
      if (!s || s->etype == ET_INVALID) {
        m->has_entry_layout = false;
        return;
      }
      if (!shape_copy_into(ctx->arena, &m->entry_params[i], s)) parse_oom(ctx, -1);
    }
  }
  if (!shape_copy_into(ctx->arena, &m->entry_result, result)) parse_oom(ctx, -1);
}

void check_alias_kind(ParseCtx *ctx, Str kind, int64_t off) {
  if (!str_is(kind, "may-alias") && !str_is(kind, "must-alias"))
    parse_error(ctx, off, "expects may-alias or must-alias, not '%.*s'", STR_ARG(kind));
}

/* ---------------------------------------------------------------------------
 * Computations */

SigTok *sig_new(ParseCtx *ctx) {
  SigTok *s = arena_alloc(ctx->scratch, sizeof *s);
  if (!s) parse_oom(ctx, -1);
  return s;
}

void sig_add(ParseCtx *ctx, SigTok *sig, Str name, int64_t off, Shape *shape) {
  if (!sig) return;
  vec_push_str(ctx, &sig->names, name, off);
  vec_push_ptr(ctx, &sig->shapes, shape);
}

static Scope *scope_push(ParseCtx *ctx, Computation *c) {
  Scope *s = calloc(1, sizeof *s);
  if (!s) {
    parse_oom(ctx, c->offset);
    return NULL;
  }
  s->comp = c;
  s->nerrors_at_begin = ctx->nerrors;
  s->parent = ctx->scope;
  ctx->scope = s;
  return s;
}

static void scope_pop(ParseCtx *ctx) {
  Scope *s = ctx->scope;
  if (!s) return;
  ctx->scope = s->parent;
  names_free(&s->names);
  free(s);
}

static Computation *computation_new(ParseCtx *ctx, const char *name, int64_t off) {
  Computation *c = ctx_alloc(ctx, ctx->arena, sizeof *c, off);
  if (!c) return NULL;
  c->name = name;
  c->offset = off;
  return c;
}

void build_computation_begin(ParseCtx *ctx, bool entry, int64_t entry_off, Str name,
                             int64_t name_off, SigTok *sig) {
  Computation *c = computation_new(ctx, ctx_strdup(ctx, name), name_off);
  if (!c) {
    /* Keep the scope stack balanced with build_computation_end. */
    static Computation dummy;
    c = &dummy;
  }
  if (names_get(&ctx->comp_names, name.p, name.n))
    parse_error(ctx, name_off, "computation %.*s already defined", STR_ARG(name));
  if (entry) {
    c->is_entry = true;
    if (++ctx->nentries == 2) parse_error(ctx, entry_off, "expects only one ENTRY computation");
  }
  /* XLA quirk (3.1): without a header, the input is a module only if it
   * starts with ENTRY or "name {"; "name (sig) -> shape {" is not. */
  if (!ctx->m->has_header && ctx->comps.n == 0 && !ctx->scope && !entry && sig)
    parse_error(ctx, name_off,
                "expects HloModule or ENTRY before a computation with a signature");
  if (sig) {
    c->has_signature = true;
    c->nsig_params = sig->names.n;
    if (sig->names.n) {
      c->sig_param_names = arena_alloc_array(ctx->arena, (size_t)sig->names.n, sizeof(char *));
      c->sig_params = arena_alloc_array(ctx->arena, (size_t)sig->names.n, sizeof(Shape));
      if (!c->sig_param_names || !c->sig_params) {
        parse_oom(ctx, name_off);
      } else {
        for (int i = 0; i < sig->names.n; i++) {
          c->sig_param_names[i] = ctx_strdup(ctx, VEC_AT(sig->names, StrTok, i).s);
          Shape *s = VEC_AT(sig->shapes, Shape *, i);
          if (s && !shape_copy_into(ctx->arena, &c->sig_params[i], s)) parse_oom(ctx, name_off);
        }
      }
    }
    if (sig->result && sig->result->etype != ET_INVALID) {
      if (!shape_copy_into(ctx->arena, &c->sig_result, sig->result)) parse_oom(ctx, name_off);
    }
    else c->has_signature = false; /* error reported in the shape */
  }
  /* Remember where the result shape was written, for the root check. */
  bool top_level = ctx->scope == NULL;
  if (scope_push(ctx, c) && sig) ctx->scope->sig_off = sig->result_off;
  if (top_level) scratch_reset(ctx);
}

Computation *build_inline_computation_begin(ParseCtx *ctx, int64_t off) {
  /* XLA names inline computations "_"; keep names unique in the module. */
  char buf[32] = "_";
  for (int i = 1; names_get(&ctx->comp_names, buf, (int64_t)strlen(buf)); i++)
    snprintf(buf, sizeof buf, "_.%d", i);
  Computation *c = computation_new(ctx, arena_strdup(ctx->arena, buf), off);
  if (!c) {
    static Computation dummy;
    c = &dummy;
  }
  scope_push(ctx, c);
  return c;
}

/* The root of a computation is compatible with its signature's result. */
static void check_signature_result(ParseCtx *ctx, Computation *c, int64_t sig_off) {
  if (!c->has_signature || !c->root || c->root->shape.etype == ET_INVALID) return;
  if (!shape_compatible(&c->root->shape, &c->sig_result)) {
    char *want = shape_to_string(&c->sig_result), *got = shape_to_string(&c->root->shape);
    parse_error(ctx, sig_off, "computation %s: root shape %s does not match the signature's result %s",
                c->name, got ? got : "?", want ? want : "?");
    free(want);
    free(got);
  }
}

Computation *build_computation_end(ParseCtx *ctx, int64_t close_off) {
  Scope *s = ctx->scope;
  if (!s) return NULL;
  Computation *c = s->comp;
  c->ninstrs = s->instrs.n;
  c->instrs = (Instr **)s->instrs.v;
  c->root = s->root ? s->root : (s->instrs.n ? VEC_AT(s->instrs, Instr *, s->instrs.n - 1) : NULL);
  if (c->root && !s->root) c->root->is_root = false; /* only marked when written */
  /* Empty only when every instruction failed: then that is the error. */
  if (!c->root && ctx->nerrors == s->nerrors_at_begin)
    parse_error(ctx, close_off, "computation %s has no instructions", c->name);
  /* Parameters indexed by number. */
  int64_t maxp = -1;
  for (int i = 0; i < c->ninstrs; i++) {
    Instr *in = c->instrs[i];
    if (in->op == OP_PARAMETER && in->parameter_number > maxp) maxp = in->parameter_number;
  }
  if (maxp >= 0) {
    if (maxp >= c->ninstrs) {
      /* Numbers beyond the instruction count cannot all be present. */
      for (int i = 0; i < c->ninstrs; i++)
        if (c->instrs[i]->op == OP_PARAMETER && c->instrs[i]->parameter_number >= c->ninstrs)
          parse_error(ctx, c->instrs[i]->opcode_offset,
                      "parameter number %lld is out of range: computation %s has %d instructions",
                      (long long)c->instrs[i]->parameter_number, c->name, c->ninstrs);
    } else {
      c->nparams = (int)maxp + 1;
      c->params = arena_alloc_array(ctx->arena, (size_t)c->nparams, sizeof(Instr *));
      if (!c->params) {
        parse_oom(ctx, close_off);
      } else {
        for (int i = 0; i < c->ninstrs; i++) {
          Instr *in = c->instrs[i];
          if (in->op != OP_PARAMETER) continue;
          if (c->params[in->parameter_number])
            parse_error(ctx, in->opcode_offset, "duplicate parameter number %lld",
                        (long long)in->parameter_number);
          else
            c->params[in->parameter_number] = in;
        }
      }
    }
  }
  check_signature_result(ctx, c, s->sig_off);
  scope_pop(ctx);
  if (c->name && names_get(&ctx->comp_names, c->name, (int64_t)strlen(c->name)) == NULL) {
    if (!names_put(&ctx->comp_names, c->name, (int64_t)strlen(c->name), c)) parse_oom(ctx, close_off);
  }
  c->index = ctx->comps.n;
  vec_push_keep(ctx, &ctx->comps, c);
  return c;
}

void build_execution_thread(ParseCtx *ctx, Computation *c, Str s, int64_t off) {
  if (c) c->execution_thread = ctx_unescape(ctx, s, off);
}

Computation *build_computation_ref(ParseCtx *ctx, Str name, int64_t off) {
  Computation *c = names_get(&ctx->comp_names, name.p, name.n);
  if (!c) parse_error(ctx, off, "computation does not exist: %.*s", STR_ARG(name));
  return c;
}

Instr *build_instr_ref(ParseCtx *ctx, Str name, int64_t off) {
  Instr *in = ctx->scope ? names_get(&ctx->scope->names, name.p, name.n) : NULL;
  if (!in) parse_error(ctx, off, "instruction does not exist: %.*s", STR_ARG(name));
  return in;
}
