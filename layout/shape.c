#include "layout/shape.h"

#include <stdlib.h>
#include <string.h>

bool shape_set_default_layout(Arena *arena, Shape *s) {
  Layout *l = &s->layout;
  memset(l, 0, sizeof *l);
  l->rank = s->rank;
  l->tail_padding_alignment = 1;
  if (s->rank == 0) return true;
  l->minor_to_major = arena_alloc_array(arena, (size_t)s->rank, sizeof(int64_t));
  if (!l->minor_to_major) return false;
  for (int i = 0; i < s->rank; i++) l->minor_to_major[i] = s->rank - 1 - i;
  return true;
}

static int64_t *dup_i64(Arena *arena, const int64_t *src, int n, bool *ok) {
  if (n == 0 || !src) return NULL;
  int64_t *d = arena_alloc_array(arena, (size_t)n, sizeof *d);
  if (!d) {
    *ok = false;
    return NULL;
  }
  memcpy(d, src, (size_t)n * sizeof *d);
  return d;
}

static bool layout_copy_into(Arena *arena, Layout *dst, const Layout *src) {
  bool ok = true;
  *dst = *src;
  dst->minor_to_major = dup_i64(arena, src->minor_to_major, src->rank, &ok);
  if (src->ntiles) {
    dst->tiles = arena_alloc_array(arena, (size_t)src->ntiles, sizeof(Tile));
    if (!dst->tiles) return false;
    for (int i = 0; i < src->ntiles; i++) {
      dst->tiles[i].rank = src->tiles[i].rank;
      dst->tiles[i].dims = dup_i64(arena, src->tiles[i].dims, src->tiles[i].rank, &ok);
    }
  }
  if (src->nsplits) {
    dst->splits = arena_alloc_array(arena, (size_t)src->nsplits, sizeof(SplitConfig));
    if (!dst->splits) return false;
    for (int i = 0; i < src->nsplits; i++) {
      dst->splits[i] = src->splits[i];
      dst->splits[i].indices =
          dup_i64(arena, src->splits[i].indices, src->splits[i].nindices, &ok);
    }
  }
  if (src->physical_shape) {
    dst->physical_shape = shape_clone(arena, src->physical_shape);
    if (!dst->physical_shape) return false;
  }
  return ok;
}

bool shape_copy_into(Arena *arena, Shape *dst, const Shape *src) {
  bool ok = true;
  *dst = *src;
  dst->dims = dup_i64(arena, src->dims, src->rank, &ok);
  if (src->dynamic) {
    dst->dynamic = arena_alloc_array(arena, (size_t)src->rank, sizeof(bool));
    if (!dst->dynamic) return false;
    memcpy(dst->dynamic, src->dynamic, (size_t)src->rank * sizeof(bool));
  }
  if (!layout_copy_into(arena, &dst->layout, &src->layout)) return false;
  if (src->ntuple) {
    dst->tuple = arena_alloc_array(arena, (size_t)src->ntuple, sizeof(Shape));
    if (!dst->tuple) return false;
    for (int i = 0; i < src->ntuple; i++)
      if (!shape_copy_into(arena, &dst->tuple[i], &src->tuple[i])) return false;
  }
  return ok;
}

Shape *shape_clone(Arena *arena, const Shape *s) {
  Shape *d = arena_alloc(arena, sizeof *d);
  if (!d || !shape_copy_into(arena, d, s)) return NULL;
  return d;
}

static bool is_dynamic(const Shape *s, int i) { return s->dynamic && s->dynamic[i]; }

bool shape_compatible(const Shape *a, const Shape *b) {
  if (a->etype != b->etype) return false;
  if (a->etype == ET_TUPLE || a->etype == ET_BUFFER) {
    if (a->ntuple != b->ntuple) return false;
    for (int i = 0; i < a->ntuple; i++)
      if (!shape_compatible(&a->tuple[i], &b->tuple[i])) return false;
    return true;
  }
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++) {
    if (a->dims[i] != b->dims[i]) return false;
    if (is_dynamic(a, i) != is_dynamic(b, i)) return false;
  }
  return true;
}

static bool i64_equal(const int64_t *a, const int64_t *b, int n) {
  return n == 0 || memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

bool layout_equal(const Layout *a, const Layout *b) {
  if (a->rank != b->rank || !i64_equal(a->minor_to_major, b->minor_to_major, a->rank))
    return false;
  if (a->ntiles != b->ntiles) return false;
  for (int i = 0; i < a->ntiles; i++)
    if (a->tiles[i].rank != b->tiles[i].rank ||
        !i64_equal(a->tiles[i].dims, b->tiles[i].dims, a->tiles[i].rank))
      return false;
  if (a->tail_padding_alignment != b->tail_padding_alignment ||
      a->index_type != b->index_type || a->pointer_type != b->pointer_type ||
      a->element_size_bits != b->element_size_bits || a->memory_space != b->memory_space ||
      a->dynamic_metadata_bytes != b->dynamic_metadata_bytes || a->nsplits != b->nsplits)
    return false;
  for (int i = 0; i < a->nsplits; i++)
    if (a->splits[i].dimension != b->splits[i].dimension ||
        a->splits[i].nindices != b->splits[i].nindices ||
        !i64_equal(a->splits[i].indices, b->splits[i].indices, a->splits[i].nindices))
      return false;
  if ((a->physical_shape == NULL) != (b->physical_shape == NULL)) return false;
  if (a->physical_shape && !shape_equal(a->physical_shape, b->physical_shape)) return false;
  return true;
}

bool shape_equal(const Shape *a, const Shape *b) {
  if (!shape_compatible(a, b)) return false;
  if (a->etype == ET_TUPLE || a->etype == ET_BUFFER) {
    for (int i = 0; i < a->ntuple; i++)
      if (!shape_equal(&a->tuple[i], &b->tuple[i])) return false;
    return true;
  }
  return layout_equal(&a->layout, &b->layout);
}

static bool layout_has_suffix(const Layout *l) {
  return l->ntiles || l->tail_padding_alignment > 1 || l->index_type != ET_INVALID ||
         l->pointer_type != ET_INVALID || l->element_size_bits || l->memory_space ||
         l->nsplits || l->physical_shape || l->dynamic_metadata_bytes;
}

bool layout_is_default(const Layout *l) {
  if (layout_has_suffix(l)) return false;
  for (int i = 0; i < l->rank; i++)
    if (l->minor_to_major[i] != l->rank - 1 - i) return false;
  return true;
}

bool shape_element_count(const Shape *s, int64_t *out) {
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++) {
    if (s->dims[i] < 0) return false;
    if (__builtin_mul_overflow(n, s->dims[i], &n)) return false;
  }
  *out = n;
  return true;
}

void layout_print(StrBuf *sb, const Layout *l, int rank) {
  bool suffix = layout_has_suffix(l);
  if (rank == 0 && !suffix) return;
  sb_putc(sb, '{');
  for (int i = 0; i < l->rank; i++) sb_printf(sb, i ? ",%lld" : "%lld", (long long)l->minor_to_major[i]);
  if (suffix) {
    sb_putc(sb, ':');
    if (l->ntiles) {
      sb_putc(sb, 'T');
      for (int t = 0; t < l->ntiles; t++) {
        sb_putc(sb, '(');
        for (int k = 0; k < l->tiles[t].rank; k++) {
          if (k) sb_putc(sb, ',');
          int64_t d = l->tiles[t].dims[k];
          if (d == TILE_DIM_COMBINE)
            sb_putc(sb, '*');
          else
            sb_printf(sb, "%lld", (long long)d);
        }
        sb_putc(sb, ')');
      }
    }
    if (l->tail_padding_alignment > 1) sb_printf(sb, "L(%lld)", (long long)l->tail_padding_alignment);
    if (l->index_type != ET_INVALID) sb_printf(sb, "#(%s)", etype_name(l->index_type));
    if (l->pointer_type != ET_INVALID) sb_printf(sb, "*(%s)", etype_name(l->pointer_type));
    if (l->element_size_bits) sb_printf(sb, "E(%lld)", (long long)l->element_size_bits);
    if (l->memory_space) sb_printf(sb, "S(%lld)", (long long)l->memory_space);
    if (l->nsplits) {
      sb_puts(sb, "SC");
      for (int i = 0; i < l->nsplits; i++) {
        sb_printf(sb, "(%lld:", (long long)l->splits[i].dimension);
        for (int k = 0; k < l->splits[i].nindices; k++)
          sb_printf(sb, k ? ",%lld" : "%lld", (long long)l->splits[i].indices[k]);
        sb_putc(sb, ')');
      }
    }
    if (l->physical_shape) {
      sb_puts(sb, "P(");
      shape_print(sb, l->physical_shape);
      sb_putc(sb, ')');
    }
    if (l->dynamic_metadata_bytes) sb_printf(sb, "M(%lld)", (long long)l->dynamic_metadata_bytes);
  }
  sb_putc(sb, '}');
}

static void shape_print_impl(StrBuf *sb, const Shape *s, bool with_layout) {
  if (s->etype == ET_TUPLE || s->etype == ET_BUFFER) {
    if (s->etype == ET_BUFFER) sb_putc(sb, 'b');
    sb_putc(sb, '(');
    for (int i = 0; i < s->ntuple; i++) {
      if (i) sb_puts(sb, ", ");
      shape_print_impl(sb, &s->tuple[i], with_layout);
    }
    sb_putc(sb, ')');
    return;
  }
  sb_puts(sb, etype_name(s->etype));
  sb_putc(sb, '[');
  for (int i = 0; i < s->rank; i++) {
    if (i) sb_putc(sb, ',');
    if (s->dims[i] == SHAPE_DIM_UNBOUNDED)
      sb_putc(sb, '?');
    else
      sb_printf(sb, "%s%lld", is_dynamic(s, i) ? "<=" : "", (long long)s->dims[i]);
  }
  sb_putc(sb, ']');
  if (with_layout && s->etype != ET_TOKEN && s->etype != ET_OPAQUE)
    layout_print(sb, &s->layout, s->rank);
}

void shape_print(StrBuf *sb, const Shape *s) { shape_print_impl(sb, s, true); }
void shape_print_without_layout(StrBuf *sb, const Shape *s) { shape_print_impl(sb, s, false); }

char *shape_to_string(const Shape *s) {
  StrBuf sb;
  sb_init(&sb);
  shape_print(&sb, s);
  return sb_take(&sb);
}
