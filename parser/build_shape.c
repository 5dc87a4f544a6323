/* The builder's shapes and layouts (hlo-text.md 4): array, tuple and
 * buffer shapes as written, layouts with their suffixes in XLA's fixed
 * order. */
#include <string.h>

#include "layout/layout.h"
#include "parser/parse_internal.h"

void check_dim(ParseCtx *ctx, IntTok v, int64_t off) {
  if (v.big || v.v < 0) parse_error(ctx, off, "dimension size must be non-negative");
}

void check_dim_level_type(ParseCtx *ctx, Str letter, int64_t off) {
  if (!(str_is(letter, "D") || str_is(letter, "C") || str_is(letter, "S") || str_is(letter, "H")))
    parse_error(ctx, off, "unknown dimension level type '%.*s' (expected D, C, S or H)",
                STR_ARG(letter));
}

/* XLA prints the suffixes in this one order and reads them only so. */
#define SUFFIX_ORDER "D T L # * E S SC P M"

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
    parse_error(ctx, off, "unknown layout suffix '%.*s' (expected one of " SUFFIX_ORDER ")",
                STR_ARG(letter));
  s->groups = *groups;
  s->off = off;
  return s;
}

LayoutSuffix *layout_type_suffix(ParseCtx *ctx, LayoutSuffixKind kind, EType t, int64_t off) {
  LayoutSuffix *s = ctx_alloc(ctx, ctx->scratch, sizeof *s, off);
  LayoutGroup *g = s ? layout_group(ctx, LG_TYPE, NULL, 0, off) : NULL;
  if (!g) return NULL;
  s->kind = kind;
  s->off = off;
  g->etype = t;
  vec_push_ptr(ctx, &s->groups, g);
  return s;
}

void layout_shape_group(ParseCtx *ctx, Vec *groups, Shape *shape, int64_t off) {
  LayoutGroup *g = layout_group(ctx, LG_SHAPE, NULL, 0, off);
  if (!g) return;
  g->shape = shape;
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

/* The values of a Vec of IntAt, and where each was written (either may be
 * NULL when not wanted). */
static bool int_at_split(ParseCtx *ctx, const Vec *v, int64_t **values, int64_t **offs) {
  if (values) *values = NULL;
  if (offs) *offs = NULL;
  if (v->n == 0) return true;
  int64_t *vs = arena_alloc_array(ctx->scratch, (size_t)v->n, sizeof *vs);
  int64_t *os = arena_alloc_array(ctx->scratch, (size_t)v->n, sizeof *os);
  if (!vs || !os) {
    parse_oom(ctx, -1);
    return false;
  }
  for (int i = 0; i < v->n; i++) {
    vs[i] = VEC_AT(*v, IntAt, i).v;
    os[i] = VEC_AT(*v, IntAt, i).off;
  }
  if (values) *values = vs;
  if (offs) *offs = os;
  return true;
}

/* L(n), E(n), S(n), M(n): exactly one group holding one non-negative int. */
static bool suffix_single_int(ParseCtx *ctx, const LayoutSuffix *s, int64_t *out, int64_t *at) {
  LayoutGroup *g = s->groups.n == 1 ? VEC_AT(s->groups, LayoutGroup *, 0) : NULL;
  if (!g || g->kind != LG_INTS || g->ints.n != 1 || VEC_AT(g->ints, IntAt, 0).v < 0) {
    parse_error(ctx, s->off, "expects %s(n) with one non-negative integer", suffix_names[s->kind]);
    return false;
  }
  *out = VEC_AT(g->ints, IntAt, 0).v;
  if (at) *at = VEC_AT(g->ints, IntAt, 0).off;
  return true;
}

/* One tile "(8,128)": sizes positive ('*' only before another entry).  A
 * module leaves zero sizes and a last '*' to the verifier, as XLA does. */
static void build_tile(ParseCtx *ctx, const LayoutGroup *g, Tile *tile) {
  if (g->kind != LG_INTS && g->kind != LG_EMPTY) {
    parse_error(ctx, g->off, "expects a tile: (size, ...) with sizes or '*'");
    return;
  }
  for (int k = 0; k < g->ints.n; k++) {
    IntAt d = VEC_AT(g->ints, IntAt, k);
    if (d.v == TILE_DIM_COMBINE) {
      if (ctx->lone_shape && k == g->ints.n - 1)
        parse_error(ctx, d.off, "'*' ends the tile: it combines a dimension with the next "
                                "more-minor one, so it cannot be last");
    } else if (d.v < 0 || (d.v == 0 && ctx->lone_shape)) {
      parse_error(ctx, d.off, "tile size %lld is invalid; tile sizes must be positive",
                  (long long)d.v);
    }
  }
  tile->rank = g->ints.n;
  int_at_split(ctx, &g->ints, &tile->dims, NULL);
}

static void build_tiles(ParseCtx *ctx, const LayoutSuffix *s, Layout *l) {
  l->ntiles = s->groups.n;
  l->tiles = arena_alloc_array(ctx->scratch, (size_t)s->groups.n, sizeof(Tile));
  if (!l->tiles) {
    parse_oom(ctx, s->off);
    return;
  }
  for (int t = 0; t < s->groups.n; t++) build_tile(ctx, VEC_AT(s->groups, LayoutGroup *, t), &l->tiles[t]);
}

static void build_splits(ParseCtx *ctx, const LayoutSuffix *s, LayoutTok *lt) {
  Layout *l = &lt->layout;
  l->nsplits = s->groups.n;
  l->splits = arena_alloc_array(ctx->scratch, (size_t)s->groups.n, sizeof(SplitConfig));
  lt->split_off = arena_alloc_array(ctx->scratch, (size_t)s->groups.n, sizeof(int64_t));
  if (!l->splits || !lt->split_off) {
    parse_oom(ctx, s->off);
    return;
  }
  for (int t = 0; t < s->groups.n; t++) {
    LayoutGroup *g = VEC_AT(s->groups, LayoutGroup *, t);
    lt->split_off[t] = g->off;
    if (g->kind != LG_SPLIT) {
      parse_error(ctx, g->off, "expects a split config (dimension:index, ...)");
      continue;
    }
    l->splits[t].dimension = g->split_dim;
    l->splits[t].nindices = g->ints.n;
    int_at_split(ctx, &g->ints, &l->splits[t].indices, NULL);
  }
}

static void build_type_suffix(ParseCtx *ctx, const LayoutSuffix *s, Layout *l) {
  LayoutGroup *g = VEC_AT(s->groups, LayoutGroup *, 0);
  if (etype_kind(g->etype) != EK_UINT)
    parse_error(ctx, s->off, "%s(...) must name an unsigned integer type such as u16",
                suffix_names[s->kind]);
  else if (s->kind == LS_INDEX)
    l->index_type = g->etype;
  else
    l->pointer_type = g->etype;
}

static void build_suffix(ParseCtx *ctx, const LayoutSuffix *s, LayoutTok *lt) {
  Layout *l = &lt->layout;
  switch (s->kind) {
  case LS_D:
    /* Dim level types are parsed and dropped, as XLA does. */
    if (s->groups.n != 1) parse_error(ctx, s->off, "expects D(level types)");
    break;
  case LS_T: build_tiles(ctx, s, l); break;
  case LS_L: suffix_single_int(ctx, s, &l->tail_padding_alignment, NULL); break;
  case LS_E: suffix_single_int(ctx, s, &l->element_size_bits, &lt->e_off); break;
  case LS_S: suffix_single_int(ctx, s, &l->memory_space, NULL); break;
  case LS_M: suffix_single_int(ctx, s, &l->dynamic_metadata_bytes, NULL); break;
  case LS_INDEX:
  case LS_POINTER: build_type_suffix(ctx, s, l); break;
  case LS_SC: build_splits(ctx, s, lt); break;
  case LS_P:
    /* XLA quirk: D(...) is dropped, so every array is dense here and a
     * physical shape is always rejected. */
    parse_error(ctx, s->off, "layout has a physical shape P(...), but the array is not sparse");
    break;
  default: break;
  }
}

LayoutTok *build_layout(ParseCtx *ctx, Vec *m2m, Vec *suffixes, bool colon, int64_t off) {
  if (ctx->m) ctx->m->has_layouts = true;
  LayoutTok *lt = ctx_alloc(ctx, ctx->scratch, sizeof *lt, off);
  if (!lt) return NULL;
  Layout *l = &lt->layout;
  lt->off = off;
  /* Only a lone shape gets here: in a module "]{}" is not a layout. */
  if (m2m->n == 0 && !colon)
    parse_error(ctx, off, "'{}' is not a layout: write minor_to_major (e.g. {1,0}) or leave the "
                          "layout out");
  l->rank = m2m->n;
  int_at_split(ctx, m2m, &l->minor_to_major, &lt->m2m_off);
  l->tail_padding_alignment = 1;
  int last = -1;
  for (int i = 0; i < suffixes->n; i++) {
    LayoutSuffix *s = VEC_AT(*suffixes, LayoutSuffix *, i);
    if (!s || s->kind == LS_UNKNOWN) continue;
    if ((int)s->kind == last) {
      parse_error(ctx, s->off, "layout suffix '%s' appears twice", suffix_names[s->kind]);
      continue;
    }
    if ((int)s->kind < last) {
      parse_error(ctx, s->off, "layout suffix '%s' must come before '%s' (XLA's fixed order is "
                  SUFFIX_ORDER ")", suffix_names[s->kind], suffix_names[last]);
      continue;
    }
    last = (int)s->kind;
    build_suffix(ctx, s, lt);
  }
  return lt;
}

/* ---------------------------------------------------------------------------
 * A lone shape's layout, checked against its shape (a module's layouts are
 * the verifier's).  Each problem points at the token it comes from. */

static bool check_lone_minor_to_major(ParseCtx *ctx, const Shape *s, const LayoutTok *lt) {
  bool seen[SHAPE_MAX_RANK] = {false};
  for (int i = 0; i < s->rank; i++) {
    int64_t d = s->layout.minor_to_major[i];
    if (d < 0 || d >= s->rank) {
      parse_error(ctx, lt->m2m_off[i],
                  "minor_to_major entry %lld is not a dimension of this rank-%d shape",
                  (long long)d, s->rank);
      return false;
    }
    if (seen[d]) {
      parse_error(ctx, lt->m2m_off[i],
                  "dimension %lld appears twice in minor_to_major; it must be a permutation of "
                  "0..%d", (long long)d, s->rank - 1);
      return false;
    }
    seen[d] = true;
  }
  return true;
}

static bool check_lone_splits(ParseCtx *ctx, const Shape *s, const LayoutTok *lt) {
  const Layout *l = &s->layout;
  for (int i = 0; i < l->nsplits; i++) {
    const SplitConfig *sc = &l->splits[i];
    int64_t at = lt->split_off[i];
    if (sc->dimension < 0 || sc->dimension >= s->rank) {
      parse_error(ctx, at, "split config names physical dimension %lld of a rank-%d shape",
                  (long long)sc->dimension, s->rank);
      return false;
    }
    if (i > 0 && sc->dimension <= l->splits[i - 1].dimension) {
      parse_error(ctx, at, "split configs must name increasing dimensions");
      return false;
    }
    int64_t size = s->dims[l->minor_to_major[s->rank - 1 - sc->dimension]], last = 0;
    for (int k = 0; k < sc->nindices; k++) {
      if (sc->indices[k] <= last || sc->indices[k] >= size) {
        parse_error(ctx, at, "split index %lld must be increasing and inside (0, %lld)",
                    (long long)sc->indices[k], (long long)size);
        return false;
      }
      last = sc->indices[k];
    }
  }
  return true;
}

static bool check_lone_layout(ParseCtx *ctx, const Shape *s, const LayoutTok *lt) {
  if (s->etype == ET_TOKEN || s->etype == ET_OPAQUE) {
    parse_error(ctx, lt->off, "%s has no layout", etype_name(s->etype));
    return false;
  }
  if (!check_lone_minor_to_major(ctx, s, lt)) return false;
  Error e;
  if (!layout_element_bits_ok(s->etype, s->layout.element_size_bits, &e)) {
    parse_error(ctx, lt->e_off, "%s", e.msg);
    return false;
  }
  return check_lone_splits(ctx, s, lt);
}

/* The element count of a lone shape fits int64 (up to the first '?'). */
static bool check_lone_count(ParseCtx *ctx, const Vec *dims) {
  int64_t count = 1;
  for (int i = 0; i < dims->n; i++) {
    DimTok d = VEC_AT(*dims, DimTok, i);
    if (d.size == SHAPE_DIM_UNBOUNDED) return true;
    if (__builtin_mul_overflow(count, d.size, &count)) {
      parse_error(ctx, d.off, "the number of elements overflows int64");
      return false;
    }
  }
  return true;
}

/* A shape whose text had an error (already reported): etype ET_INVALID.
 * Keeps "shape not written" (NULL) apart from "shape written badly", so one
 * mistake gives one message. */
static Shape *error_shape(ParseCtx *ctx) {
  Shape *s = arena_alloc(ctx->scratch, sizeof *s);
  if (!s) parse_oom(ctx, -1);
  return s; /* zeroed: etype ET_INVALID */
}

static bool set_dims(ParseCtx *ctx, Shape *s, const Vec *dims, int64_t t_off) {
  s->rank = dims->n;
  if (!s->rank) return true;
  s->dims = ctx_alloc(ctx, ctx->scratch, (size_t)s->rank * sizeof(int64_t), t_off);
  if (!s->dims) return false;
  for (int i = 0; i < s->rank; i++) {
    DimTok d = VEC_AT(*dims, DimTok, i);
    s->dims[i] = d.size;
    if (d.dynamic) {
      if (!s->dynamic) s->dynamic = ctx_alloc(ctx, ctx->scratch, (size_t)s->rank * sizeof(bool), t_off);
      if (!s->dynamic) return false;
      s->dynamic[i] = true;
    }
  }
  return true;
}

Shape *build_array_shape(ParseCtx *ctx, EType t, int64_t t_off, Vec *dims, LayoutTok *layout) {
  Shape *s = ctx_alloc(ctx, ctx->scratch, sizeof *s, t_off);
  if (!s) return error_shape(ctx);
  s->etype = t;
  if (dims->n > SHAPE_MAX_RANK) {
    parse_error(ctx, VEC_AT(*dims, DimTok, SHAPE_MAX_RANK).off,
                "too many dimensions: at most %d are supported", SHAPE_MAX_RANK);
    return error_shape(ctx);
  }
  if ((t == ET_TOKEN || t == ET_OPAQUE) && dims->n) {
    parse_error(ctx, t_off, "%s shapes have no dimensions (write %s[])", etype_name(t), etype_name(t));
    return error_shape(ctx);
  }
  if (ctx->lone_shape && !check_lone_count(ctx, dims)) return error_shape(ctx);
  if (!set_dims(ctx, s, dims, t_off)) return error_shape(ctx);
  if (!layout) {
    if (!shape_set_default_layout(ctx->scratch, s)) parse_oom(ctx, t_off);
    return s;
  }
  if (layout->layout.rank != s->rank) {
    parse_error(ctx, layout->off, "layout has %d minor_to_major entr%s, but the shape has rank %d",
                layout->layout.rank, layout->layout.rank == 1 ? "y" : "ies", s->rank);
    return error_shape(ctx);
  }
  s->layout = layout->layout;
  if (ctx->lone_shape && !check_lone_layout(ctx, s, layout)) return error_shape(ctx);
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
