/* Logical index <-> element offset through a LayoutPlan (layout.md 2).
 * These are the reference paths, one element at a time; bulk copies use
 * layout_convert, which precomputes tables from these. */
#include <string.h>

#include "layout/layout.h"

int64_t layout_row_major(const int64_t *idx, const int64_t *dims, int rank) {
  int64_t off = 0;
  for (int i = 0; i < rank; i++) off = off * dims[i] + idx[i];
  return off;
}

/* One tiling level forward: cur (lv->in_rank entries) -> out (lv->out_rank). */
void layout_level_forward(const LayoutLevel *lv, const int64_t *cur, int64_t *out) {
  int64_t ext[LAYOUT_MAX_DIMS];
  for (int i = 0; i < lv->ext_rank; i++) ext[i] = i < lv->ext ? 0 : cur[i - lv->ext];
  for (int m = 0; m < lv->merged_rank; m++) {
    int64_t v = 0;
    for (int x = lv->merge_first[m]; x <= lv->merge_last[m]; x++) v = v * lv->ext_dims[x] + ext[x];
    if (m < lv->nmajor) {
      out[m] = v;
    } else {
      int k = m - lv->nmajor;
      out[m] = v / lv->tile[k];
      out[lv->nmajor + lv->ntile + k] = v % lv->tile[k];
    }
  }
}

/* One tiling level backward; false if out names a padding slot. */
bool layout_level_backward(const LayoutLevel *lv, const int64_t *out, int64_t *cur) {
  int64_t ext[LAYOUT_MAX_DIMS];
  for (int m = 0; m < lv->merged_rank; m++) {
    int64_t v;
    if (m < lv->nmajor) {
      v = out[m];
    } else {
      int k = m - lv->nmajor;
      v = out[m] * lv->tile[k] + out[lv->nmajor + lv->ntile + k];
      if (v >= lv->merged_dims[m]) return false;
    }
    for (int x = lv->merge_last[m]; x > lv->merge_first[m]; x--) {
      ext[x] = v % lv->ext_dims[x];
      v /= lv->ext_dims[x];
    }
    ext[lv->merge_first[m]] = v;
  }
  for (int i = 0; i < lv->in_rank; i++) cur[i] = ext[i + lv->ext];
  return true;
}

int64_t layout_offset_unchecked(const LayoutPlan *p, const int64_t *index) {
  int64_t a[LAYOUT_MAX_DIMS], b[LAYOUT_MAX_DIMS];
  int64_t *cur = a, *nxt = b;
  for (int k = 0; k < p->rank; k++) cur[k] = index[p->phys_to_logical[k]];
  for (int t = 0; t < p->nlevels; t++) {
    layout_level_forward(&p->levels[t], cur, nxt);
    int64_t *tmp = cur;
    cur = nxt;
    nxt = tmp;
  }
  int64_t off = 0;
  for (int i = 0; i < p->final_rank; i++) off += cur[i] * p->final_strides[i];
  return off;
}

bool layout_offset_of(const LayoutPlan *p, const int64_t *index, int64_t *offset, Error *err) {
  for (int i = 0; i < p->rank; i++)
    if (index[i] < 0 || index[i] >= p->dims[i])
      return error_set(err, ERR_INVALID, -1,
                       "index %lld is out of range for dimension %d of size %lld",
                       (long long)index[i], i, (long long)p->dims[i]);
  *offset = layout_offset_unchecked(p, index);
  return true;
}

bool layout_index_of(const LayoutPlan *p, int64_t offset, int64_t *index, bool *is_padding,
                     Error *err) {
  if (offset < 0 || offset >= p->slots)
    return error_set(err, ERR_INVALID, -1, "offset %lld is outside the buffer's %lld slots",
                     (long long)offset, (long long)p->slots);
  *is_padding = true;
  if (offset >= p->raw_slots) return true; /* L(n) tail */
  int64_t a[LAYOUT_MAX_DIMS], b[LAYOUT_MAX_DIMS];
  int64_t *cur = a, *nxt = b;
  int64_t rest = offset;
  for (int i = p->final_rank - 1; i >= 0; i--) {
    cur[i] = rest % p->final_dims[i];
    rest /= p->final_dims[i];
  }
  for (int t = p->nlevels - 1; t >= 0; t--) {
    if (!layout_level_backward(&p->levels[t], cur, nxt)) return true;
    int64_t *tmp = cur;
    cur = nxt;
    nxt = tmp;
  }
  for (int k = 0; k < p->rank; k++) index[p->phys_to_logical[k]] = cur[k];
  *is_padding = false;
  return true;
}

void layout_byte_position(const LayoutPlan *p, int64_t offset, int64_t *byte, int *bit) {
  if (p->packed_bits) {
    int64_t per_byte = 8 / p->packed_bits;
    *byte = offset / per_byte;
    *bit = (int)(offset % per_byte) * p->packed_bits;
  } else {
    *byte = offset * p->storage_bytes;
    *bit = 0;
  }
}

bool layout_xla_linear_index(const LayoutPlan *p, const int64_t *index, int64_t *out) {
  if (p->rank == 1) { /* LayoutUtil::LinearIndex's rank-1 shortcut */
    *out = index[0];
    return true;
  }
  int64_t phys[LAYOUT_MAX_DIMS];
  for (int k = 0; k < p->rank; k++) phys[k] = index[p->phys_to_logical[k]];
  if (p->nlevels == 0) {
    *out = layout_row_major(phys, p->phys_dims, p->rank);
    return true;
  }
  const LayoutLevel *lv = &p->levels[0];
  if (lv->has_combine) return false;
  int64_t tiled[LAYOUT_MAX_DIMS];
  layout_level_forward(lv, phys, tiled);
  *out = layout_row_major(tiled, lv->out_dims, lv->out_rank);
  return true;
}

void layout_iter_init(LayoutIter *it, const LayoutPlan *p) {
  memset(it, 0, sizeof *it);
  it->plan = p;
  it->offset = -1;
}

bool layout_iter_next(LayoutIter *it) {
  if (it->offset + 1 >= it->plan->slots) return false;
  it->offset++;
  return layout_index_of(it->plan, it->offset, it->index, &it->padding, NULL);
}
