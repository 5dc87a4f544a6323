/* layout_convert: copying an array between two layouts, the interpreter's
 * workhorse.
 *
 * Why this works as a strided copy: every tiling step divides or merges
 * dimensions and the offset is linear in the final shape, so the offset is a
 * sum of independent parts, one per *group* of logical dims (dims that some
 * '*' merged into one; without '*' every dim is its own group):
 *     offset(e) = sum_g F_g(e restricted to g),  F_g = offset with other dims 0.
 * Tabulating F_g for both layouts turns the copy into nested loops over
 * groups with table lookups.  The innermost group is the one most minor in
 * the destination; its table is cut into runs contiguous in both buffers,
 * copied with memcpy; the group most minor in the source is blocked around
 * it so both sides stay in cache.  Tables cost sum of group sizes, so a
 * layout that merges everything into one huge group falls back to the
 * one-element-at-a-time path. */
#include <stdlib.h>
#include <string.h>

#include "base/thread_pool.h"
#include "layout/layout.h"

enum {
  MAX_TABLE = 1 << 22,      /* largest group tabulated (entries) */
  BLOCK_BYTES = 64 * 1024,  /* bytes of the inner group kept hot per block */
};

typedef struct Group {
  int ndims;
  int dims[SHAPE_MAX_RANK]; /* logical dims, increasing */
  int64_t size;
  int64_t *fs, *fd;         /* offset tables, src and dst */
} Group;

typedef struct Run {
  int64_t s, d, len;
} Run;

static int uf_find(int *parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

static void uf_union(int *parent, int a, int b) {
  a = uf_find(parent, a);
  b = uf_find(parent, b);
  if (a != b) parent[a < b ? b : a] = a < b ? a : b;
}

/* Unions the logical dims that some '*' of p merges (possibly via dims
 * derived from them at earlier levels). */
static void plan_groups(const LayoutPlan *p, int *parent) {
  int la[LAYOUT_MAX_DIMS], lb[LAYOUT_MAX_DIMS];
  int *cur = la, *nxt = lb;
  for (int k = 0; k < p->rank; k++) cur[k] = p->phys_to_logical[k];
  for (int t = 0; t < p->nlevels; t++) {
    const LayoutLevel *lv = &p->levels[t];
    int ext[LAYOUT_MAX_DIMS];
    for (int i = 0; i < lv->ext_rank; i++) ext[i] = i < lv->ext ? -1 : cur[i - lv->ext];
    for (int m = 0; m < lv->merged_rank; m++) {
      int label = -1;
      for (int x = lv->merge_first[m]; x <= lv->merge_last[m]; x++) {
        if (ext[x] < 0) continue;
        if (label < 0)
          label = ext[x];
        else
          uf_union(parent, label, ext[x]);
      }
      if (m < lv->nmajor) {
        nxt[m] = label;
      } else {
        int k = m - lv->nmajor;
        nxt[m] = nxt[lv->nmajor + lv->ntile + k] = label;
      }
    }
    int *tmp = cur;
    cur = nxt;
    nxt = tmp;
  }
}

static void fill_table(const LayoutPlan *p, const Group *g, int64_t *table) {
  int64_t idx[SHAPE_MAX_RANK] = {0};
  for (int64_t c = 0; c < g->size; c++) {
    int64_t rest = c;
    for (int i = g->ndims - 1; i >= 0; i--) {
      int d = g->dims[i];
      idx[d] = rest % p->dims[d];
      rest /= p->dims[d];
    }
    table[c] = layout_offset_unchecked(p, idx);
  }
}

/* One element at a time: for layouts whose groups are too big to tabulate. */
static void convert_elementwise(const LayoutPlan *dst, uint8_t *dbuf, const LayoutPlan *src,
                                const uint8_t *sbuf, size_t es) {
  int64_t idx[SHAPE_MAX_RANK] = {0};
  for (int64_t n = 0; n < src->elements; n++) {
    memcpy(dbuf + (size_t)layout_offset_unchecked(dst, idx) * es,
           sbuf + (size_t)layout_offset_unchecked(src, idx) * es, es);
    for (int i = src->rank - 1; i >= 0; i--) {
      if (++idx[i] < src->dims[i]) break;
      idx[i] = 0;
    }
  }
}

/* The inner kernel, one per element size so the single-element case is a
 * plain typed move rather than a memcpy call. */
#define DEFINE_COPY_RUNS(NAME, T)                                                           \
  static void NAME(uint8_t *restrict dbuf, const uint8_t *restrict sbuf, const Run *runs,  \
                   int64_t nruns, const int64_t *fsb, const int64_t *fdb, int64_t b0,       \
                   int64_t b1, int64_t bs, int64_t bd) {                                    \
    T *restrict d = (T *)(void *)dbuf;                                                      \
    const T *restrict s = (const T *)(const void *)sbuf;                                    \
    for (int64_t r = 0; r < nruns; r++) {                                                   \
      const int64_t rs = bs + runs[r].s, rd = bd + runs[r].d, len = runs[r].len;           \
      if (len == 1) {                                                                       \
        for (int64_t b = b0; b < b1; b++) d[rd + fdb[b]] = s[rs + fsb[b]];                  \
      } else {                                                                              \
        for (int64_t b = b0; b < b1; b++)                                                   \
          memcpy(d + rd + fdb[b], s + rs + fsb[b], (size_t)len * sizeof(T));                \
      }                                                                                     \
    }                                                                                       \
  }

typedef struct {
  uint64_t lo, hi;
} U128;
DEFINE_COPY_RUNS(copy_runs_1, uint8_t)
DEFINE_COPY_RUNS(copy_runs_2, uint16_t)
DEFINE_COPY_RUNS(copy_runs_4, uint32_t)
DEFINE_COPY_RUNS(copy_runs_8, uint64_t)
DEFINE_COPY_RUNS(copy_runs_16, U128)

typedef void (*CopyRunsFn)(uint8_t *restrict, const uint8_t *restrict, const Run *, int64_t,
                           const int64_t *, const int64_t *, int64_t, int64_t, int64_t, int64_t);

static CopyRunsFn copy_runs_for(size_t es) {
  switch (es) {
    case 1: return copy_runs_1;
    case 2: return copy_runs_2;
    case 4: return copy_runs_4;
    case 8: return copy_runs_8;
    case 16: return copy_runs_16;
    default: return NULL;
  }
}

static const int64_t ZERO_TABLE[1] = {0};

/* The tabulated copy's loop nest: for each position of the outer groups,
 * the blocks of group B, each copying the runs of group A. */
typedef struct ConvertLoop {
  uint8_t *dbuf;
  const uint8_t *sbuf;
  const Run *runs;
  int64_t nruns;
  const int64_t *fsb, *fdb;
  int64_t nb, blk, nblk;  /* B's size, block length, blocks */
  const Group *groups;
  int outer[SHAPE_MAX_RANK], nouter;
  CopyRunsFn copy;
  int64_t per;            /* steps per chunk */
} ConvertLoop;

/* Steps chunk*per .. of the nest; a step is (outer position, block of B). */
static void convert_chunk(void *ctx, int64_t chunk, int worker) {
  (void)worker;
  const ConvertLoop *L = ctx;
  int64_t step = chunk * L->per, rest = L->per;
  int64_t pos[SHAPE_MAX_RANK] = {0}, q = step / L->nblk, b = step % L->nblk;
  for (int i = L->nouter - 1; i >= 0; i--) {
    int64_t size = L->groups[L->outer[i]].size;
    pos[i] = q % size;
    q /= size;
  }
  if (q > 0) return; /* past the end */
  for (;;) {
    int64_t bs = 0, bd = 0;
    for (int i = 0; i < L->nouter; i++) {
      bs += L->groups[L->outer[i]].fs[pos[i]];
      bd += L->groups[L->outer[i]].fd[pos[i]];
    }
    for (; b < L->nblk && rest > 0; b++, rest--) {
      int64_t b0 = b * L->blk;
      L->copy(L->dbuf, L->sbuf, L->runs, L->nruns, L->fsb, L->fdb, b0,
              b0 + L->blk < L->nb ? b0 + L->blk : L->nb, bs, bd);
    }
    if (rest == 0) return;
    b = 0;
    int i = L->nouter - 1;
    for (; i >= 0; i--) {
      if (++pos[i] < L->groups[L->outer[i]].size) break;
      pos[i] = 0;
    }
    if (i < 0) return;
  }
}

/* Copies element slots (es bytes each) between two layouts of one shape. */
static bool convert_slots(const LayoutPlan *dst, uint8_t *dbuf, const LayoutPlan *src,
                          const uint8_t *sbuf, size_t es, Error *err) {
  if (dst->slots > dst->elements) memset(dbuf, 0, (size_t)dst->slots * es);
  if (src->elements == 0) return true;
  if (src->rank == 0) { /* a scalar sits at offset 0 in every layout */
    memcpy(dbuf, sbuf, es);
    return true;
  }
  int parent[SHAPE_MAX_RANK];
  for (int i = 0; i < src->rank; i++) parent[i] = i;
  plan_groups(src, parent);
  plan_groups(dst, parent);

  Group groups[SHAPE_MAX_RANK];
  int ngroups = 0, group_of[SHAPE_MAX_RANK];
  for (int d = 0; d < src->rank; d++) {
    int root = uf_find(parent, d);
    if (root == d) {
      memset(&groups[ngroups], 0, sizeof groups[ngroups]);
      groups[ngroups].size = 1;
      group_of[d] = ngroups++;
    } else {
      group_of[d] = group_of[root];
    }
    Group *g = &groups[group_of[d]];
    g->dims[g->ndims++] = d;
    g->size *= src->dims[d]; /* <= elements, no overflow */
  }
  CopyRunsFn copy = copy_runs_for(es);
  bool small = copy != NULL;
  for (int i = 0; i < ngroups; i++) small &= groups[i].size <= MAX_TABLE;
  if (!small) {
    convert_elementwise(dst, dbuf, src, sbuf, es);
    return true;
  }

  bool ok = false;
  Run *runs = NULL;
  for (int i = 0; i < ngroups; i++) {
    groups[i].fs = malloc((size_t)groups[i].size * sizeof(int64_t));
    groups[i].fd = malloc((size_t)groups[i].size * sizeof(int64_t));
    if (!groups[i].fs || !groups[i].fd) goto done;
    fill_table(src, &groups[i], groups[i].fs);
    fill_table(dst, &groups[i], groups[i].fd);
  }
  /* Inner group A: most minor in dst (contiguous writes); blocking group B:
   * most minor in src, or else the next most minor in dst. */
  int ga = group_of[dst->phys_to_logical[dst->rank - 1]];
  int gb = group_of[src->phys_to_logical[src->rank - 1]];
  for (int k = dst->rank - 1; k >= 0 && gb == ga; k--) gb = group_of[dst->phys_to_logical[k]];
  Group *A = &groups[ga];
  runs = malloc((size_t)A->size * sizeof *runs);
  if (!runs) goto done;
  int64_t nruns = 0;
  for (int64_t c = 0; c < A->size; c++) {
    if (nruns && runs[nruns - 1].s + runs[nruns - 1].len == A->fs[c] &&
        runs[nruns - 1].d + runs[nruns - 1].len == A->fd[c]) {
      runs[nruns - 1].len++;
    } else {
      runs[nruns++] = (Run){A->fs[c], A->fd[c], 1};
    }
  }
  const int64_t *fsb = ZERO_TABLE, *fdb = ZERO_TABLE;
  int64_t nb = 1;
  if (gb != ga) {
    fsb = groups[gb].fs;
    fdb = groups[gb].fd;
    nb = groups[gb].size;
  }
  int64_t a_bytes = A->size * (int64_t)es;
  int64_t blk = a_bytes >= BLOCK_BYTES ? 8 : BLOCK_BYTES / a_bytes;
  if (blk < 8) blk = 8;

  /* The loop nest (remaining groups, then blocks of B) as one flat range
   * of steps, cut into chunks for the pool: every step writes its own
   * destination elements, so any thread may run any chunk. */
  ConvertLoop L = {dbuf, sbuf, runs, nruns, fsb, fdb, nb, blk, (nb + blk - 1) / blk, groups, {0}, 0,
                   copy, 0};
  for (int i = 0; i < ngroups; i++)
    if (i != ga && (gb == ga || i != gb)) L.outer[L.nouter++] = i;
  int64_t steps = L.nblk;
  for (int i = 0; i < L.nouter; i++) steps *= groups[L.outer[i]].size;
  int64_t chunks = pool_chunks(dst->elements * (int64_t)es, steps);
  L.per = (steps + chunks - 1) / chunks;
  pool_for((steps + L.per - 1) / L.per, convert_chunk, &L);
  ok = true;
done:
  for (int i = 0; i < ngroups; i++) {
    free(groups[i].fs);
    free(groups[i].fd);
  }
  free(runs);
  if (!ok) return error_set(err, ERR_RUNTIME, -1, "out of memory converting layouts");
  return true;
}

bool layout_convert(const LayoutPlan *dst, void *dst_buf, const LayoutPlan *src,
                    const void *src_buf, Error *err) {
  if (dst->rank != src->rank || etype_storage_bytes(dst->etype) != etype_storage_bytes(src->etype))
    return error_set(err, ERR_RUNTIME, -1, "layout_convert: the two shapes differ");
  for (int i = 0; i < dst->rank; i++)
    if (dst->dims[i] != src->dims[i])
      return error_set(err, ERR_RUNTIME, -1, "layout_convert: the two shapes differ");
  size_t es = (size_t)src->storage_bytes;
  /* Packed E(n) buffers go through a byte-per-element copy (slower path). */
  uint8_t *sunpacked = NULL, *dunpacked = NULL;
  const uint8_t *s = src_buf;
  uint8_t *d = dst_buf;
  if (src->packed_bits) {
    sunpacked = malloc((size_t)src->slots + 1);
    if (!sunpacked) return error_set(err, ERR_RUNTIME, -1, "out of memory converting layouts");
    layout_unpack_bits(sunpacked, src_buf, src->slots, src->packed_bits,
                       etype_kind(src->etype) == EK_SINT);
    s = sunpacked;
  }
  if (dst->packed_bits) {
    dunpacked = malloc((size_t)dst->slots + 1);
    if (!dunpacked) {
      free(sunpacked);
      return error_set(err, ERR_RUNTIME, -1, "out of memory converting layouts");
    }
    d = dunpacked;
  }
  bool ok = convert_slots(dst, d, src, s, es, err);
  if (ok && dst->packed_bits) layout_pack_bits(dst_buf, dunpacked, dst->slots, dst->packed_bits);
  free(sunpacked);
  free(dunpacked);
  return ok;
}
