#include "kernels/k_movement.h"

#include <stdbool.h>
#include <string.h>

#include "base/thread_pool.h"
#include "layout/etype_convert.h"

typedef struct {
  uint64_t lo, hi;
} K128;

void k_row_major_strides(const int64_t *dims, int rank, int64_t *strides) {
  int64_t s = 1;
  for (int i = rank - 1; i >= 0; i--) {
    strides[i] = s;
    s *= dims[i];
  }
}

static void fill_serial(void *dst, int64_t n, const void *val, size_t esize) {
  if (n <= 0) return;
  unsigned char *d = dst;
  switch (esize) {
  case 1: memset(d, *(const unsigned char *)val, (size_t)n); return;
  case 2: {
    uint16_t v;
    memcpy(&v, val, 2);
    uint16_t *p = dst;
    for (int64_t i = 0; i < n; i++) p[i] = v;
    return;
  }
  case 4: {
    uint32_t v;
    memcpy(&v, val, 4);
    uint32_t *p = dst;
    for (int64_t i = 0; i < n; i++) p[i] = v;
    return;
  }
  case 8: {
    uint64_t v;
    memcpy(&v, val, 8);
    uint64_t *p = dst;
    for (int64_t i = 0; i < n; i++) p[i] = v;
    return;
  }
  default: {
    /* Doubling memcpy. */
    memcpy(d, val, esize);
    size_t have = esize, total = (size_t)n * esize;
    while (have < total) {
      size_t c = have < total - have ? have : total - have;
      memcpy(d + have, d, c);
      have += c;
    }
  }
  }
}

/* A big fill runs in chunks on the pool (inline when called from one). */
typedef struct FillJob {
  unsigned char *dst;
  const void *val;
  size_t esize;
  int64_t n, per;
} FillJob;

static void fill_chunk(void *ctx, int64_t chunk, int worker) {
  (void)worker;
  const FillJob *j = ctx;
  int64_t lo = chunk * j->per, m = j->n - lo < j->per ? j->n - lo : j->per;
  fill_serial(j->dst + lo * (int64_t)j->esize, m, j->val, j->esize);
}

void k_fill(void *dst, int64_t n, const void *val, size_t esize) {
  if (n <= 0) return;
  int64_t chunks = pool_chunks(n * (int64_t)esize, n);
  if (chunks <= 1) {
    fill_serial(dst, n, val, esize);
    return;
  }
  FillJob j = {dst, val, esize, n, (n + chunks - 1) / chunks};
  pool_for((n + j.per - 1) / j.per, fill_chunk, &j);
}

/* One strided run: n elements. */
static void run_strided(unsigned char *d, int64_t da, const unsigned char *s, int64_t sb, int64_t n,
                        size_t esize) {
#define RUN(T)                                                                                     \
  do {                                                                                             \
    T *dp = (T *)(void *)d;                                                                        \
    const T *sp = (const T *)(const void *)s;                                                      \
    if (da == 1 && sb == 1) {                                                                      \
      memcpy(dp, sp, (size_t)n * sizeof(T));                                                       \
    } else if (da == 1) {                                                                          \
      for (int64_t i = 0; i < n; i++) dp[i] = sp[i * sb];                                          \
    } else {                                                                                       \
      for (int64_t i = 0; i < n; i++) dp[i * da] = sp[i * sb];                                     \
    }                                                                                              \
  } while (0)
  switch (esize) {
  case 1: RUN(uint8_t); break;
  case 2: RUN(uint16_t); break;
  case 4: RUN(uint32_t); break;
  case 8: RUN(uint64_t); break;
  case 16: RUN(K128); break;
  default:
    for (int64_t i = 0; i < n; i++)
      memcpy(d + i * da * (int64_t)esize, s + i * sb * (int64_t)esize, esize);
  }
#undef RUN
}

/* Blocked 2-D transpose: dst[j*dj + i] = src[j + i*si] for j < nj, i < ni. */
static void run_transpose2d(unsigned char *d, int64_t dj, const unsigned char *s, int64_t si,
                            int64_t nj, int64_t ni, size_t esize) {
  enum { B = 32 };
#define TR(T)                                                                                      \
  do {                                                                                             \
    T *dp = (T *)(void *)d;                                                                        \
    const T *sp = (const T *)(const void *)s;                                                      \
    for (int64_t j0 = 0; j0 < nj; j0 += B) {                                                       \
      int64_t j1 = j0 + B < nj ? j0 + B : nj;                                                      \
      for (int64_t i0 = 0; i0 < ni; i0 += B) {                                                     \
        int64_t i1 = i0 + B < ni ? i0 + B : ni;                                                    \
        for (int64_t j = j0; j < j1; j++) {                                                        \
          T *drow = dp + j * dj;                                                                   \
          const T *scol = sp + j;                                                                  \
          for (int64_t i = i0; i < i1; i++) drow[i] = scol[i * si];                                \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  } while (0)
  switch (esize) {
  case 1: TR(uint8_t); break;
  case 2: TR(uint16_t); break;
  case 4: TR(uint32_t); break;
  case 8: TR(uint64_t); break;
  case 16: TR(K128); break;
  default:
    for (int64_t j = 0; j < nj; j++)
      for (int64_t i = 0; i < ni; i++)
        memcpy(d + (j * dj + i) * (int64_t)esize, s + (j + i * si) * (int64_t)esize, esize);
  }
#undef TR
}

static void strided_copy_serial(void *dst, const int64_t *dst_strides, const void *src,
                                const int64_t *src_strides, const int64_t *dims, int rank,
                                size_t esize) {
  int64_t n[K_MAX_RANK], a[K_MAX_RANK], b[K_MAX_RANK];
  int r = 0;
  for (int i = 0; i < rank; i++) {
    if (dims[i] <= 0) return; /* empty */
    if (dims[i] == 1) continue;
    if (r > 0 && a[r - 1] == dst_strides[i] * dims[i] && b[r - 1] == src_strides[i] * dims[i]) {
      /* the previous (outer) dim continues this one: merge */
      n[r - 1] *= dims[i];
      a[r - 1] = dst_strides[i];
      b[r - 1] = src_strides[i];
      continue;
    }
    n[r] = dims[i];
    a[r] = dst_strides[i];
    b[r] = src_strides[i];
    r++;
  }
  unsigned char *d = dst;
  const unsigned char *s = src;
  const int64_t es = (int64_t)esize;
  if (r == 0) {
    memcpy(d, s, esize);
    return;
  }
  /* Pick the inner kernel: contiguous run / fill / 2-D transpose / strided. */
  int inner = r - 1;
  int tdim = -1; /* second dim of a blocked transpose */
  if (a[inner] == 1 && b[inner] != 1 && b[inner] != 0 && n[inner] >= 8) {
    for (int j = r - 2; j >= 0; j--) {
      if (b[j] == 1 && n[j] >= 8) {
        tdim = j;
        break;
      }
    }
  }
  /* Odometer over the remaining dims. */
  int64_t idx[K_MAX_RANK];
  int outer[K_MAX_RANK], no = 0;
  for (int i = 0; i < r; i++)
    if (i != inner && i != tdim) outer[no++] = i;
  memset(idx, 0, sizeof(int64_t) * (size_t)r);
  int64_t doff = 0, soff = 0;
  for (;;) {
    unsigned char *dp = d + doff * es;
    const unsigned char *sp = s + soff * es;
    if (tdim >= 0) {
      run_transpose2d(dp, a[tdim], sp, b[inner], n[tdim], n[inner], esize);
    } else if (a[inner] == 1 && b[inner] == 0) {
      k_fill(dp, n[inner], sp, esize);
    } else {
      run_strided(dp, a[inner], sp, b[inner], n[inner], esize);
    }
    int k = no - 1;
    for (; k >= 0; k--) {
      int dd = outer[k];
      idx[dd]++;
      doff += a[dd];
      soff += b[dd];
      if (idx[dd] < n[dd]) break;
      doff -= a[dd] * n[dd];
      soff -= b[dd] * n[dd];
      idx[dd] = 0;
    }
    if (k < 0) break;
  }
}

void k_transpose(void *dst, const void *src, const int64_t *src_dims, const int64_t *perm,
                 int rank, size_t esize) {
  int64_t sstr[K_MAX_RANK], dstr[K_MAX_RANK], odims[K_MAX_RANK], ss[K_MAX_RANK];
  k_row_major_strides(src_dims, rank, sstr);
  for (int k = 0; k < rank; k++) {
    odims[k] = src_dims[perm[k]];
    ss[k] = sstr[perm[k]];
  }
  k_row_major_strides(odims, rank, dstr);
  k_strided_copy(dst, dstr, src, ss, odims, rank, esize);
}

void k_broadcast(void *dst, const int64_t *out_dims, int out_rank, const void *src,
                 const int64_t *src_dims, int src_rank, const int64_t *bdims, size_t esize) {
  int64_t dstr[K_MAX_RANK], sstr_in[K_MAX_RANK], ss[K_MAX_RANK];
  k_row_major_strides(out_dims, out_rank, dstr);
  k_row_major_strides(src_dims, src_rank, sstr_in);
  for (int k = 0; k < out_rank; k++) ss[k] = 0;
  for (int k = 0; k < src_rank; k++)
    if (src_dims[k] != 1) ss[bdims[k]] = sstr_in[k];
  k_strided_copy(dst, dstr, src, ss, out_dims, out_rank, esize);
}

void k_slice(void *dst, const int64_t *out_dims, const void *src, const int64_t *src_dims,
             int rank, const int64_t *start, const int64_t *stride, size_t esize) {
  int64_t dstr[K_MAX_RANK], sstr[K_MAX_RANK], ss[K_MAX_RANK];
  k_row_major_strides(out_dims, rank, dstr);
  k_row_major_strides(src_dims, rank, sstr);
  int64_t off = 0;
  for (int k = 0; k < rank; k++) {
    off += start[k] * sstr[k];
    ss[k] = sstr[k] * stride[k];
  }
  k_strided_copy(dst, dstr, (const unsigned char *)src + off * (int64_t)esize, ss, out_dims, rank,
                 esize);
}

void k_move_box(void *dst, const int64_t *dst_dims, const int64_t *dst_start, const void *src,
                const int64_t *src_dims, const int64_t *src_start, const int64_t *box, int rank,
                size_t esize) {
  int64_t dstr[K_MAX_RANK], sstr[K_MAX_RANK];
  k_row_major_strides(dst_dims, rank, dstr);
  k_row_major_strides(src_dims, rank, sstr);
  int64_t doff = 0, soff = 0;
  for (int k = 0; k < rank; k++) {
    doff += dst_start[k] * dstr[k];
    soff += src_start[k] * sstr[k];
  }
  k_strided_copy((unsigned char *)dst + doff * (int64_t)esize, dstr,
                 (const unsigned char *)src + soff * (int64_t)esize, sstr, box, rank, esize);
}

void k_reverse(void *dst, const void *src, const int64_t *dims, const uint8_t *rev, int rank,
               size_t esize) {
  int64_t dstr[K_MAX_RANK], ss[K_MAX_RANK];
  k_row_major_strides(dims, rank, dstr);
  int64_t off = 0;
  for (int k = 0; k < rank; k++) {
    if (rev[k]) {
      off += (dims[k] - 1) * dstr[k];
      ss[k] = -dstr[k];
    } else {
      ss[k] = dstr[k];
    }
  }
  k_strided_copy(dst, dstr, (const unsigned char *)src + off * (int64_t)esize, ss, dims, rank,
                 esize);
}

void k_pad(void *dst, const int64_t *out_dims, const void *src, const int64_t *src_dims,
           int rank, const int64_t *lo, const int64_t *interior, const void *padval,
           size_t esize) {
  int64_t total = 1;
  for (int k = 0; k < rank; k++) total *= out_dims[k];
  k_fill(dst, total, padval, esize);
  /* Per dim: the input indices [first, last] whose position lo + i*(int+1)
   * lands inside the output. */
  int64_t dstr[K_MAX_RANK], sstr[K_MAX_RANK], cnt[K_MAX_RANK], ds[K_MAX_RANK];
  k_row_major_strides(out_dims, rank, dstr);
  k_row_major_strides(src_dims, rank, sstr);
  int64_t doff = 0, soff = 0;
  for (int k = 0; k < rank; k++) {
    int64_t step = interior[k] + 1;
    int64_t first = 0;
    if (lo[k] < 0) first = (-lo[k] + step - 1) / step;
    int64_t last = src_dims[k] - 1; /* largest i with lo + i*step < out */
    if (src_dims[k] == 0) return;
    int64_t lim = out_dims[k] - 1 - lo[k];
    if (lim < 0) return;
    if (last > lim / step) last = lim / step;
    if (last < first) return;
    cnt[k] = last - first + 1;
    doff += (lo[k] + first * step) * dstr[k];
    soff += first * sstr[k];
    ds[k] = dstr[k] * step;
  }
  k_strided_copy((unsigned char *)dst + doff * (int64_t)esize, ds,
                 (const unsigned char *)src + soff * (int64_t)esize, sstr, cnt, rank, esize);
}

/* k_iota's work: element ranges of IOTA_CHUNK, each written through a
 * small int64 block converted to the element type (no whole int64 copy of
 * the result: an s32[16,1,4096,4096] mask's took 1 GB). */
enum { IOTA_BLOCK = 1024, IOTA_CHUNK = 64 * IOTA_BLOCK };

typedef struct IotaJob {
  EType t;
  char *dst;
  int es;
  int64_t n, along, inner; /* value of element e: e / inner % along */
} IotaJob;

static void iota_chunk(void *ctx, int64_t chunk, int worker) {
  (void)worker;
  const IotaJob *j = ctx;
  int64_t block[IOTA_BLOCK];
  int64_t lo = chunk * IOTA_CHUNK, hi = lo + IOTA_CHUNK < j->n ? lo + IOTA_CHUNK : j->n;
  for (int64_t at = lo; at < hi; at += IOTA_BLOCK) {
    int64_t m = hi - at < IOTA_BLOCK ? hi - at : IOTA_BLOCK;
    for (int64_t i = 0; i < m; i++) block[i] = (at + i) / j->inner % j->along;
    etype_convert_array(j->t, j->dst + at * j->es, ET_S64, block, m);
  }
}

void k_iota(EType t, void *dst, const int64_t *dims, int rank, int iota_dim) {
  int64_t n = 1, inner = 1;
  for (int k = 0; k < rank; k++) n *= dims[k];
  for (int k = iota_dim + 1; k < rank; k++) inner *= dims[k];
  if (n == 0) return;
  IotaJob j = {t, dst, etype_storage_bytes(t), n, rank > 0 ? dims[iota_dim] : 1, inner ? inner : 1};
  pool_for((n + IOTA_CHUNK - 1) / IOTA_CHUNK, iota_chunk, &j);
}

/* A big copy runs in chunks over the pool (base/thread_pool.h): slabs of its
 * largest dimension, each a strided copy of its own.  Every element is
 * copied once whoever runs its slab, so the bytes never depend on the
 * thread count. */
typedef struct CopySplit {
  unsigned char *dst;
  const unsigned char *src;
  int64_t a[K_MAX_RANK], b[K_MAX_RANK], n[K_MAX_RANK];
  int rank, dim;
  size_t esize;
  int64_t per; /* slab thickness along dim */
} CopySplit;

static void copy_slab(void *ctx, int64_t chunk, int worker) {
  (void)worker;
  const CopySplit *c = ctx;
  int64_t n[K_MAX_RANK], lo = chunk * c->per;
  memcpy(n, c->n, sizeof(int64_t) * (size_t)c->rank);
  n[c->dim] = c->n[c->dim] - lo < c->per ? c->n[c->dim] - lo : c->per;
  int64_t es = (int64_t)c->esize;
  strided_copy_serial(c->dst + lo * c->a[c->dim] * es, c->a, c->src + lo * c->b[c->dim] * es, c->b,
                      n, c->rank, c->esize);
}

void k_strided_copy(void *dst, const int64_t *dst_strides, const void *src,
                    const int64_t *src_strides, const int64_t *dims, int rank, size_t esize) {
  int64_t total = 1;
  int dim = -1;
  for (int i = 0; i < rank; i++) {
    if (dims[i] <= 0) return; /* empty */
    total *= dims[i];
    if (dim < 0 || dims[i] > dims[dim]) dim = i;
  }
  int64_t chunks = dim < 0 ? 1 : pool_chunks(total * (int64_t)esize, dims[dim]);
  if (chunks <= 1) {
    strided_copy_serial(dst, dst_strides, src, src_strides, dims, rank, esize);
    return;
  }
  CopySplit c = {dst, src, {0}, {0}, {0}, rank, dim, esize, 0};
  memcpy(c.a, dst_strides, sizeof(int64_t) * (size_t)rank);
  memcpy(c.b, src_strides, sizeof(int64_t) * (size_t)rank);
  memcpy(c.n, dims, sizeof(int64_t) * (size_t)rank);
  c.per = (dims[dim] + chunks - 1) / chunks;
  if (dims[dim] >= 64) c.per = (c.per + 31) / 32 * 32; /* whole transpose tiles */
  pool_for((dims[dim] + c.per - 1) / c.per, copy_slab, &c);
}
