/* Validating a Layout against its Shape and compiling it into a LayoutPlan:
 * every tiling level spelled out as dimension lists (layout.md 2, 5). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"

static int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/* ceil(n * bits / 8) without forming n * bits, which may overflow. */
static bool bits_to_bytes(int64_t n, int64_t bits, int64_t *out) {
  int64_t whole;
  if (__builtin_mul_overflow(n / 8, bits, &whole)) return false;
  int64_t rest = ceil_div((n % 8) * bits, 8);
  return !__builtin_add_overflow(whole, rest, out);
}

static bool elements_to_bytes(const LayoutPlan *p, int64_t n, int64_t *out) {
  if (p->element_bits) return bits_to_bytes(n, p->element_bits, out);
  return !__builtin_mul_overflow(n, (int64_t)p->storage_bytes, out);
}

bool layout_element_bits_ok(EType t, int64_t bits, Error *err) {
  if (bits == 0) return true;
  int natural = etype_storage_bytes(t) * 8;
  if (bits < 0)
    return error_set(err, ERR_INVALID, -1, "E(%lld): element size in bits must not be negative",
                     (long long)bits);
  if (bits < etype_bits(t))
    return error_set(err, ERR_INVALID, -1,
                     "E(%lld) is too small for %s, which needs %d bits per element",
                     (long long)bits, etype_name(t), etype_bits(t));
  /* Packing is defined (XLA PackIntN) only for widths that divide a byte;
   * any other width must be the type's natural storage. */
  if (bits == 1 || bits == 2 || bits == 4 || bits == natural) return true;
  return error_set(err, ERR_INVALID, -1,
                   "E(%lld) is not a sensible element size for %s: use 1, 2 or 4 bits "
                   "(packed) or %d (natural storage)",
                   (long long)bits, etype_name(t), natural);
}

static bool check_layout_fields(const Shape *s, Error *err) {
  const Layout *l = &s->layout;
  if (l->rank != s->rank)
    return error_set(err, ERR_INVALID, -1,
                     "layout has %d minor_to_major entries but the shape has rank %d", l->rank,
                     s->rank);
  bool seen[SHAPE_MAX_RANK] = {false};
  for (int i = 0; i < l->rank; i++) {
    int64_t d = l->minor_to_major[i];
    if (d < 0 || d >= s->rank)
      return error_set(err, ERR_INVALID, -1,
                       "minor_to_major entry %lld is not a dimension of a rank-%d shape",
                       (long long)d, s->rank);
    if (seen[d])
      return error_set(err, ERR_INVALID, -1,
                       "minor_to_major lists dimension %lld twice; it must be a permutation",
                       (long long)d);
    seen[d] = true;
  }
  if (l->tail_padding_alignment < 1)
    return error_set(err, ERR_INVALID, -1, "L(%lld): tail padding alignment must be >= 1",
                     (long long)l->tail_padding_alignment);
  if (l->memory_space < 0)
    return error_set(err, ERR_INVALID, -1, "S(%lld): memory space must not be negative",
                     (long long)l->memory_space);
  if (l->dynamic_metadata_bytes < 0)
    return error_set(err, ERR_INVALID, -1, "M(%lld): metadata size must not be negative",
                     (long long)l->dynamic_metadata_bytes);
  if (l->physical_shape)
    return error_set(err, ERR_INVALID, -1,
                     "layout has a physical shape P(...), but the array is not sparse");
  if (!layout_element_bits_ok(s->etype, l->element_size_bits, err)) return false;
  for (int i = 0; i < l->nsplits; i++) {
    const SplitConfig *sc = &l->splits[i];
    if (sc->dimension < 0 || sc->dimension >= s->rank)
      return error_set(err, ERR_INVALID, -1, "SC(%lld:...): no physical dimension %lld in rank %d",
                       (long long)sc->dimension, (long long)sc->dimension, s->rank);
    if (i > 0 && sc->dimension <= l->splits[i - 1].dimension)
      return error_set(err, ERR_INVALID, -1,
                       "split configs must name increasing dimensions (%lld after %lld)",
                       (long long)sc->dimension, (long long)l->splits[i - 1].dimension);
    int64_t size = s->dims[l->minor_to_major[s->rank - 1 - sc->dimension]];
    int64_t last = 0;
    for (int k = 0; k < sc->nindices; k++) {
      int64_t at = sc->indices[k];
      if (at <= last || at >= size)
        return error_set(err, ERR_INVALID, -1,
                         "SC(%lld:...): split index %lld must be increasing and inside (0, %lld)",
                         (long long)sc->dimension, (long long)at, (long long)size);
      last = at;
    }
  }
  return true;
}

/* Applies tile t (as written) to the shape in_dims[0..in_rank) and fills lv. */
static bool plan_level(LayoutLevel *lv, const Tile *t, int level, const int64_t *in_dims,
                       int in_rank, Error *err) {
  if (t->rank > LAYOUT_MAX_DIMS)
    return error_set(err, ERR_INVALID, -1, "tile %d has %d entries; at most %d are supported",
                     level + 1, t->rank, LAYOUT_MAX_DIMS);
  lv->tile_rank = t->rank;
  for (int j = 0; j < t->rank; j++) {
    int64_t v = t->dims[j];
    lv->written[j] = v;
    if (v == TILE_DIM_COMBINE) {
      if (j == t->rank - 1)
        return error_set(err, ERR_INVALID, -1,
                         "'*' is the last entry of tile %d: there is no more-minor dimension "
                         "to combine it with",
                         level + 1);
      lv->has_combine = true;
    } else if (v <= 0) {
      return error_set(err, ERR_INVALID, -1, "tile %d has size %lld; tile sizes must be positive",
                       level + 1, (long long)v);
    }
  }
  lv->in_rank = in_rank;
  memcpy(lv->in_dims, in_dims, (size_t)in_rank * sizeof *in_dims);
  lv->ext = t->rank > in_rank ? t->rank - in_rank : 0;
  lv->ext_rank = in_rank + lv->ext;
  for (int i = 0; i < lv->ext_rank; i++) lv->ext_dims[i] = i < lv->ext ? 1 : in_dims[i - lv->ext];

  /* Dims before the tile's reach stay as they are; inside it, each run of
   * '*' entries folds into the next more-minor dim. */
  int base = lv->ext_rank - t->rank;
  int m = 0;
  for (int i = 0; i < base; i++, m++) {
    lv->merged_dims[m] = lv->ext_dims[i];
    lv->merge_first[m] = lv->merge_last[m] = i;
  }
  lv->nmajor = base;
  lv->ntile = 0;
  for (int j = 0; j < t->rank; j++) {
    int first = base + j;
    int64_t size = lv->ext_dims[first];
    while (t->dims[j] == TILE_DIM_COMBINE) {
      j++;
      if (__builtin_mul_overflow(size, lv->ext_dims[base + j], &size))
        return error_set(err, ERR_INVALID, -1,
                         "combining dimensions with '*' in tile %d overflows int64", level + 1);
    }
    lv->merged_dims[m] = size;
    lv->merge_first[m] = first;
    lv->merge_last[m] = base + j;
    lv->tile[lv->ntile++] = t->dims[j];
    m++;
  }
  lv->merged_rank = m;
  lv->out_rank = lv->nmajor + 2 * lv->ntile;
  if (lv->out_rank > LAYOUT_MAX_DIMS)
    return error_set(err, ERR_INVALID, -1,
                     "tiling level %d produces a rank-%d shape; at most %d dims are supported",
                     level + 1, lv->out_rank, LAYOUT_MAX_DIMS);
  for (int i = 0; i < lv->nmajor; i++) lv->out_dims[i] = lv->merged_dims[i];
  for (int k = 0; k < lv->ntile; k++) {
    int64_t size = lv->merged_dims[lv->nmajor + k];
    lv->out_dims[lv->nmajor + k] = ceil_div(size, lv->tile[k]);
    lv->out_dims[lv->nmajor + lv->ntile + k] = lv->tile[k];
  }
  return true;
}

/* Largest piece of logical dim d under the split configs (XLA MaxSplitSize). */
static int64_t max_split_size(const Shape *s, int64_t d) {
  const Layout *l = &s->layout;
  for (int i = 0; i < l->nsplits; i++) {
    const SplitConfig *sc = &l->splits[i];
    if (l->minor_to_major[s->rank - 1 - sc->dimension] != d) continue;
    int64_t best = 0, last = 0;
    for (int k = 0; k < sc->nindices; k++) {
      if (sc->indices[k] - last > best) best = sc->indices[k] - last;
      last = sc->indices[k];
    }
    return s->dims[d] - last > best ? s->dims[d] - last : best;
  }
  return s->dims[d];
}

static bool round_up(int64_t n, int64_t m, int64_t *out) {
  int64_t q = ceil_div(n, m);
  return !__builtin_mul_overflow(q, m, out);
}

/* ShapeUtil::ArraySize: only the first tile pads; later tiles are assumed
 * to add nothing, '*' is not understood (layout.md 2.4). */
static void plan_xla_array_size(LayoutPlan *p, const Shape *s) {
  const Layout *l = &s->layout;
  p->xla_array_slots = p->xla_array_bytes = -1;
  int tlen = l->ntiles ? l->tiles[0].rank : 0;
  for (int j = 0; j < tlen; j++)
    if (l->tiles[0].dims[j] == TILE_DIM_COMBINE) return;
  int64_t n = 1;
  int k = 0;
  for (; k < tlen; k++) {
    int64_t size = k < s->rank ? max_split_size(s, l->minor_to_major[k]) : 1;
    int64_t padded;
    if (!round_up(size, l->tiles[0].dims[tlen - 1 - k], &padded) ||
        __builtin_mul_overflow(n, padded, &n))
      return;
  }
  for (; k < s->rank; k++)
    if (__builtin_mul_overflow(n, max_split_size(s, l->minor_to_major[k]), &n)) return;
  if (!round_up(n, p->tail_alignment, &n)) return;
  int64_t bytes;
  if (!elements_to_bytes(p, n, &bytes)) return;
  p->xla_array_slots = n;
  p->xla_array_bytes = bytes;
}

bool layout_plan_init(LayoutPlan *p, const Shape *s, Error *err) {
  memset(p, 0, sizeof *p);
  if (!shape_is_array(s) || s->etype == ET_TOKEN || s->etype == ET_OPAQUE)
    return error_set(err, ERR_INVALID, -1, "%s has no array layout",
                     s->etype == ET_TUPLE ? "a tuple" : etype_name(s->etype));
  if (s->rank < 0 || s->rank > SHAPE_MAX_RANK)
    return error_set(err, ERR_INVALID, -1, "rank %d is above the supported maximum of %d",
                     s->rank, SHAPE_MAX_RANK);
  p->etype = s->etype;
  p->rank = s->rank;
  p->elements = 1;
  for (int i = 0; i < s->rank; i++) {
    int64_t d = s->dims[i];
    if (d == SHAPE_DIM_UNBOUNDED)
      return error_set(err, ERR_INVALID, -1,
                       "dimension %d is unbounded ('?'): it has no size to lay out", i);
    if (d < 0)
      return error_set(err, ERR_INVALID, -1, "dimension %d has negative size %lld", i,
                       (long long)d);
    p->dims[i] = d;
    if (__builtin_mul_overflow(p->elements, d, &p->elements))
      return error_set(err, ERR_INVALID, -1, "the number of elements overflows int64");
  }
  if (!check_layout_fields(s, err)) return false;
  const Layout *l = &s->layout;
  for (int i = 0; i < s->rank; i++) {
    p->minor_to_major[i] = l->minor_to_major[i];
    int d = (int)l->minor_to_major[s->rank - 1 - i];
    p->phys_to_logical[i] = d;
    p->phys_dims[i] = s->dims[d];
  }
  p->tail_alignment = l->tail_padding_alignment;
  p->element_bits = l->element_size_bits;
  p->storage_bytes = etype_storage_bytes(s->etype);
  p->packed_bits = l->element_size_bits > 0 && l->element_size_bits < 8 ? (int)l->element_size_bits : 0;
  p->memory_space = l->memory_space;
  p->metadata_bytes = l->dynamic_metadata_bytes;

  if (l->ntiles > LAYOUT_MAX_LEVELS)
    return error_set(err, ERR_INVALID, -1, "%d tiling levels; at most %d are supported",
                     l->ntiles, LAYOUT_MAX_LEVELS);
  if (l->ntiles) {
    p->levels = calloc((size_t)l->ntiles, sizeof *p->levels);
    if (!p->levels) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  p->nlevels = l->ntiles;
  const int64_t *cur = p->phys_dims;
  int cur_rank = p->rank;
  for (int t = 0; t < l->ntiles; t++) {
    if (!plan_level(&p->levels[t], &l->tiles[t], t, cur, cur_rank, err)) {
      layout_plan_free(p);
      return false;
    }
    p->any_combine |= p->levels[t].has_combine;
    cur = p->levels[t].out_dims;
    cur_rank = p->levels[t].out_rank;
  }
  p->final_rank = cur_rank;
  memcpy(p->final_dims, cur, (size_t)cur_rank * sizeof *cur);
  int64_t stride = 1;
  bool overflow = false;
  for (int i = cur_rank - 1; i >= 0; i--) {
    p->final_strides[i] = stride;
    overflow |= __builtin_mul_overflow(stride, p->final_dims[i], &stride);
  }
  p->raw_slots = stride;
  if (overflow || !round_up(p->raw_slots, p->tail_alignment, &p->slots) ||
      !elements_to_bytes(p, p->slots, &p->physical_bytes) ||
      !elements_to_bytes(p, p->elements, &p->logical_bytes)) {
    layout_plan_free(p);
    return error_set(err, ERR_INVALID, -1,
                     "the padded size of this layout overflows int64 (too many elements)");
  }
  plan_xla_array_size(p, s);
  return true;
}

void layout_plan_free(LayoutPlan *p) {
  free(p->levels);
  p->levels = NULL;
  p->nlevels = 0;
}

const char *layout_memory_space_name(int64_t space, char *buf, size_t bufsize) {
  switch (space) {
    case MEMSPACE_DEFAULT: return "HBM (default device memory)";
    case MEMSPACE_ALTERNATE: return "VMEM (alternate fast memory)";
    case MEMSPACE_HOST: return "host memory";
    default: break;
  }
  snprintf(buf, bufsize, "memory space %lld (device-specific)", (long long)space);
  return buf;
}

const char *layout_memory_space_short(int64_t space) {
  switch (space) {
    case MEMSPACE_DEFAULT: return "HBM";
    case MEMSPACE_ALTERNATE: return "VMEM";
    case MEMSPACE_HOST: return "host";
    default: return "device";
  }
}
