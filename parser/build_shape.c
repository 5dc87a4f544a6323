/* The builder's shapes and layouts (hlo-text.md 4): array, tuple and
 * buffer shapes as written, layouts with their suffixes in XLA's fixed
 * order. */
#include <string.h>

#include "parser/parse_internal.h"

void check_dim(ParseCtx *ctx, IntTok v, int64_t off) {
  if (v.big || v.v < 0) parse_error(ctx, off, "dimension size must be non-negative");
}

void check_dim_level_type(ParseCtx *ctx, Str letter, int64_t off) {
  if (!(str_is(letter, "D") || str_is(letter, "C") || str_is(letter, "S") || str_is(letter, "H")))
    parse_error(ctx, off, "unknown dim level type '%.*s' (expects D, C, S or H)", STR_ARG(letter));
}

static const char *suffix_names[] = {
    [LS_D] = "D", [LS_T] = "T", [LS_L] = "L", [LS_INDEX] = "#", [LS_POINTER] = "*",
    [LS_E] = "E", [LS_S] = "S", [LS_SC] = "SC", [LS_P] = "P", [LS_M] = "M", [LS_UNKNOWN] = "?"};

LayoutSuffix *build_layout_suffix(ParseCtx *ctx, Str letter, int64_t off, Vec *groups) {
  LayoutSuffix *s = ctx_alloc(ctx, ctx->scratch, sizeof *s, off);
  if (!s) return NULL;
  s->kind = LS_UNKNOWN;
  for (int k = LS_D; k < LS_UNKNOWN; k++)
    if (k != LS_INDEX && k != LS_POINTER && str_is(letter, suffix_names[k])) s->kind = (LayoutSuffixKind)k;
  if (s->kind == LS_UNKNOWN)
    parse_error(ctx, off, "unknown layout suffix '%.*s'", STR_ARG(letter));
  s->groups = *groups;
  s->off = off;
  return s;
}

LayoutSuffix *layout_type_suffix(ParseCtx *ctx, LayoutSuffixKind kind, EType t, int64_t off) {
  LayoutSuffix *s = arena_alloc(ctx->scratch, sizeof *s);
  LayoutGroup *g = arena_alloc(ctx->scratch, sizeof *g);
  if (!s || !g) {
    parse_oom(ctx, off);
    return NULL;
  }
  s->kind = kind;
  s->off = off;
  g->kind = LG_TYPE;
  g->etype = t;
  g->off = off;
  vec_push_ptr(ctx, &s->groups, g);
  return s;
}

void layout_shape_group(ParseCtx *ctx, Vec *groups, Shape *shape, int64_t off) {
  LayoutGroup *g = ctx_alloc(ctx, ctx->scratch, sizeof *g, off);
  if (!g) return;
  g->kind = LG_SHAPE;
  g->shape = shape;
  g->off = off;
  vec_push_ptr(ctx, groups, g);
}

LayoutGroup *layout_group(ParseCtx *ctx, LayoutGroupKind kind, Vec *ints, int64_t split_dim,
                          int64_t off) {
  LayoutGroup *g = ctx_alloc(ctx, ctx->scratch, sizeof *g, off);
  if (!g) return NULL;
  g->kind = kind;
  if (ints) g->ints = *ints;
  g->split_dim = split_dim;
  g->off = off;
  return g;
}

/* L(n), E(n), S(n), M(n): exactly one group holding one non-negative int. */
static bool suffix_single_int(ParseCtx *ctx, const LayoutSuffix *s, int64_t *out) {
  LayoutGroup *g = s->groups.n == 1 ? VEC_AT(s->groups, LayoutGroup *, 0) : NULL;
  if (!g || g->kind != LG_INTS || g->ints.n != 1 || VEC_AT(g->ints, int64_t, 0) < 0) {
    parse_error(ctx, s->off, "expects %s(n) with one non-negative integer", suffix_names[s->kind]);
    return false;
  }
  *out = VEC_AT(g->ints, int64_t, 0);
  return true;
}

Layout *build_layout(ParseCtx *ctx, Vec *m2m, Vec *suffixes, int64_t off) {
  if (ctx->m) ctx->m->has_layouts = true;
  Layout *l = ctx_alloc(ctx, ctx->scratch, sizeof *l, off);
  if (!l) return NULL;
  l->rank = m2m->n;
  l->minor_to_major = vec_copy_i64(ctx, ctx->scratch, m2m);
  l->tail_padding_alignment = 1;
  /* XLA prints the suffixes in one fixed order and reads them only in
   * that order, each at most once. */
  int last = -1;
  for (int i = 0; i < suffixes->n; i++) {
    LayoutSuffix *s = VEC_AT(*suffixes, LayoutSuffix *, i);
    if (!s || s->kind == LS_UNKNOWN) continue;
    if ((int)s->kind == last) {
      parse_error(ctx, s->off, "layout suffix %s given twice", suffix_names[s->kind]);
      continue;
    }
    if ((int)s->kind < last) {
      parse_error(ctx, s->off, "layout suffix %s out of order (expected order: D T L # * E S SC P M)",
                  suffix_names[s->kind]);
      continue;
    }
    last = (int)s->kind;
    switch (s->kind) {
    case LS_D:
      /* Dim level types are parsed and dropped, as XLA does. */
      if (s->groups.n != 1) parse_error(ctx, s->off, "expects D(level types)");
      break;
    case LS_T:
      l->ntiles = s->groups.n;
      l->tiles = arena_alloc_array(ctx->scratch, (size_t)s->groups.n, sizeof(Tile));
      if (!l->tiles) {
        parse_oom(ctx, s->off);
        return l;
      }
      for (int t = 0; t < s->groups.n; t++) {
        LayoutGroup *g = VEC_AT(s->groups, LayoutGroup *, t);
        if (g->kind != LG_INTS && g->kind != LG_EMPTY) {
          parse_error(ctx, g->off, "expects a tile: (size, ...) with sizes or '*'");
          continue;
        }
        for (int k = 0; k < g->ints.n; k++) {
          int64_t d = VEC_AT(g->ints, int64_t, k);
          if (d < 0 && d != TILE_DIM_COMBINE) parse_error(ctx, g->off, "tile dimension must not be negative");
        }
        l->tiles[t].rank = g->ints.n;
        l->tiles[t].dims = vec_copy_i64(ctx, ctx->scratch, &g->ints);
      }
      break;
    case LS_L: suffix_single_int(ctx, s, &l->tail_padding_alignment); break;
    case LS_E: suffix_single_int(ctx, s, &l->element_size_bits); break;
    case LS_S: suffix_single_int(ctx, s, &l->memory_space); break;
    case LS_M: suffix_single_int(ctx, s, &l->dynamic_metadata_bytes); break;
    case LS_INDEX:
    case LS_POINTER: {
      LayoutGroup *g = VEC_AT(s->groups, LayoutGroup *, 0);
      if (etype_kind(g->etype) != EK_UINT)
        parse_error(ctx, s->off, "%s(...) expects an unsigned integer type", suffix_names[s->kind]);
      else if (s->kind == LS_INDEX)
        l->index_type = g->etype;
      else
        l->pointer_type = g->etype;
      break;
    }
    case LS_SC:
      l->nsplits = s->groups.n;
      l->splits = arena_alloc_array(ctx->scratch, (size_t)s->groups.n, sizeof(SplitConfig));
      if (!l->splits) {
        parse_oom(ctx, s->off);
        return l;
      }
      for (int t = 0; t < s->groups.n; t++) {
        LayoutGroup *g = VEC_AT(s->groups, LayoutGroup *, t);
        if (g->kind != LG_SPLIT) {
          parse_error(ctx, g->off, "expects a split config (dimension:index, ...)");
          continue;
        }
        l->splits[t].dimension = g->split_dim;
        l->splits[t].nindices = g->ints.n;
        l->splits[t].indices = vec_copy_i64(ctx, ctx->scratch, &g->ints);
      }
      break;
    case LS_P:
      /* XLA quirk: D(...) is dropped, so every array is dense here and a
       * physical shape is always rejected. */
      parse_error(ctx, s->off, "layout has a physical shape P(...), but is not for a sparse array");
      break;
    default: break;
    }
  }
  return l;
}

/* A shape whose text had an error (already reported): etype ET_INVALID.
 * Keeps "shape not written" (NULL) apart from "shape written badly", so one
 * mistake gives one message. */
static Shape *error_shape(ParseCtx *ctx) {
  Shape *s = arena_alloc(ctx->scratch, sizeof *s);
  if (!s) parse_oom(ctx, -1);
  return s; /* zeroed: etype ET_INVALID */
}

Shape *build_array_shape(ParseCtx *ctx, EType t, int64_t t_off, Vec *dims, Layout *layout,
                         int64_t layout_off) {
  Shape *s = ctx_alloc(ctx, ctx->scratch, sizeof *s, t_off);
  if (!s) return error_shape(ctx);
  s->etype = t;
  if (dims->n > SHAPE_MAX_RANK) {
    parse_error(ctx, t_off, "rank %d exceeds the maximum of %d", dims->n, SHAPE_MAX_RANK);
    return error_shape(ctx);
  }
  if ((t == ET_TOKEN || t == ET_OPAQUE) && dims->n) {
    parse_error(ctx, t_off, "%s shapes have no dimensions (write %s[])", etype_name(t), etype_name(t));
    return error_shape(ctx);
  }
  s->rank = dims->n;
  if (s->rank) {
    s->dims = arena_alloc_array(ctx->scratch, (size_t)s->rank, sizeof(int64_t));
    if (!s->dims) {
      parse_oom(ctx, t_off);
      return error_shape(ctx);
    }
    for (int i = 0; i < s->rank; i++) {
      DimTok d = VEC_AT(*dims, DimTok, i);
      s->dims[i] = d.size;
      if (d.dynamic) {
        if (!s->dynamic) {
          s->dynamic = arena_alloc_array(ctx->scratch, (size_t)s->rank, sizeof(bool));
          if (!s->dynamic) {
            parse_oom(ctx, t_off);
            return error_shape(ctx);
          }
        }
        s->dynamic[i] = true;
      }
    }
  }
  if (!layout) {
    if (!shape_set_default_layout(ctx->scratch, s)) parse_oom(ctx, t_off);
  } else {
    if (layout->rank != s->rank) {
      parse_error(ctx, layout_off,
                  "layout has %d minor_to_major entries, but the shape has rank %d", layout->rank,
                  s->rank);
      return error_shape(ctx);
    }
    s->layout = *layout;
  }
  return s;
}

Shape *build_tuple_shape(ParseCtx *ctx, Vec *elems, int64_t off) {
  Shape *s = ctx_alloc(ctx, ctx->scratch, sizeof *s, off);
  if (!s) return error_shape(ctx);
  s->etype = ET_TUPLE;
  s->ntuple = elems->n;
  if (elems->n) {
    s->tuple = arena_alloc_array(ctx->scratch, (size_t)elems->n, sizeof(Shape));
    if (!s->tuple) {
      parse_oom(ctx, off);
      return error_shape(ctx);
    }
    for (int i = 0; i < elems->n; i++) {
      Shape *e = VEC_AT(*elems, Shape *, i);
      if (!e || e->etype == ET_INVALID) return error_shape(ctx); /* reported inside */
      s->tuple[i] = *e;
    }
  }
  return s;
}

Shape *build_buffer_shape(ParseCtx *ctx, Shape *inner, int64_t off) {
  if (!inner || inner->etype == ET_INVALID) return error_shape(ctx);
  Shape *s = ctx_alloc(ctx, ctx->scratch, sizeof *s, off);
  if (!s) return error_shape(ctx);
  s->etype = ET_BUFFER;
  s->ntuple = 1;
  s->tuple = inner;
  return s;
}
