/* gemm for dot and convolution: the BLAS at one thread per call, on tiles
 * cut by the sizes alone and run on the interpreter's pool.
 *
 * Why not OpenBLAS's own threads: they are a second pool beside ours (the
 * two oversubscribe, and OpenBLAS's workers spin in sched_yield while the
 * interpreter works), and how OpenBLAS splits a call depends on its thread
 * count, so a float dot rounded differently at --threads 1 and 2.  Here
 * OpenBLAS always runs one thread (k_threads.c).  A gemm is cut into tiles
 * along its larger output dimension, or small gemms of a batch are grouped,
 * by M, N, K and the batch count only; every tile is one single-threaded
 * BLAS call over whole rows of K, so the same tiles give the same bytes
 * whoever runs them: results are bit-identical for every thread count. */
/* -O2 uses GCC's very-cheap vectoriser cost model, which skips loops needing an epilogue. */
#pragma GCC optimize("vect-cost-model=dynamic")
#include "kernels/k_gemm.h"

#include <limits.h>

#include "base/thread_pool.h"
#include "kernels/k_common.h"

#ifdef HLO_HAVE_BLAS
#include <cblas.h>
#endif

/* Multiply-adds per tile or per group of small gemms: below this a tile's
 * BLAS call is too short to be worth a worker (~30-60 us). */
#define GEMM_CHUNK_MACS ((int64_t)1 << 22)
/* Tiles keep at least this many rows (or columns): each tile packs the
 * other operand again.  Measured on f32[1024,1024] x [1024,1024] at one
 * thread (its 4 MB operand does not stay in a core's 2 MB cache): 8 tiles
 * of 128 rows take 1.21x the time of one call, 2 tiles of 512 rows 1.03x.
 * While the other operand fits in cache (dot 512^3: 1 MB) tiles of 128 rows
 * cost nothing measurable. */
#define GEMM_MIN_TILE 128
#define GEMM_MIN_TILE_UNCACHED 512
#define GEMM_CACHED_BYTES ((double)(1 << 20))
/* A power of two, so that 2, 4 and 8 threads split the tiles evenly. */
#define GEMM_MAX_TILES 8

/* Portable gemm: i-k-j loop order so the inner loop streams B and C rows. */
#define GEMM_LOOP(T, ADDMUL)                                                                \
  do {                                                                                      \
    const T *restrict a = A;                                                                \
    const T *restrict b = B;                                                                \
    T *restrict c = C;                                                                      \
    for (int64_t i = 0; i < M * N; i++) c[i] = (T)0;                                        \
    if (!tb) {                                                                              \
      for (int64_t i = 0; i < M; i++)                                                       \
        for (int64_t k = 0; k < K; k++) {                                                   \
          T av = ta ? a[k * M + i] : a[i * K + k];                                          \
          T *restrict crow = c + i * N;                                                     \
          const T *restrict brow = b + k * N;                                               \
          for (int64_t j = 0; j < N; j++) crow[j] = ADDMUL(crow[j], av, brow[j]);           \
        }                                                                                   \
    } else {                                                                                \
      for (int64_t i = 0; i < M; i++)                                                       \
        for (int64_t j = 0; j < N; j++) {                                                   \
          T s = (T)0;                                                                       \
          for (int64_t k = 0; k < K; k++) s = ADDMUL(s, ta ? a[k * M + i] : a[i * K + k], b[j * K + k]); \
          c[i * N + j] = s;                                                                 \
        }                                                                                   \
    }                                                                                       \
  } while (0)

#define FMA_PLAIN(acc, x, y) ((acc) + (x) * (y))
#define FMA_WRAP(acc, x, y) ((int64_t)((uint64_t)(acc) + (uint64_t)(x) * (uint64_t)(y)))

static void gemm_portable(EType ct, bool ta, bool tb, int64_t M, int64_t N, int64_t K,
                          const void *A, const void *B, void *C) {
  switch (ct) {
  case ET_F32: GEMM_LOOP(float, FMA_PLAIN); break;
  case ET_F64: GEMM_LOOP(double, FMA_PLAIN); break;
  case ET_C64: GEMM_LOOP(kc64, FMA_PLAIN); break;
  case ET_C128: GEMM_LOOP(kc128, FMA_PLAIN); break;
  default: GEMM_LOOP(int64_t, FMA_WRAP); break;
  }
}

#ifdef HLO_HAVE_BLAS
/* One single-threaded BLAS call: A is M x K (K x M when ta) with row stride
 * lda, B is K x N (N x K when tb) with row stride ldb, C is M x N with row
 * stride ldc.  Float and complex compute types; sizes fit the BLAS's int. */
static void gemm_ldb(EType ct, bool ta, bool tb, bool acc, int64_t M, int64_t N, int64_t K, const void *A,
                     int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc) {
  enum CBLAS_TRANSPOSE TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
  blasint m = (blasint)M, n = (blasint)N, k = (blasint)K, la = (blasint)lda, lb = (blasint)ldb, lc = (blasint)ldc;
  float fb = acc ? 1.0f : 0.0f;
  double db = acc ? 1.0 : 0.0;
  switch (ct) {
  case ET_F32: cblas_sgemm(CblasRowMajor, TA, TB, m, n, k, 1.0f, A, la, B, lb, fb, C, lc); break;
  case ET_F64: cblas_dgemm(CblasRowMajor, TA, TB, m, n, k, 1.0, A, la, B, lb, db, C, lc); break;
  case ET_C64: {
    float one[2] = {1, 0}, beta[2] = {fb, 0};
    cblas_cgemm(CblasRowMajor, TA, TB, m, n, k, one, A, la, B, lb, beta, C, lc);
    break;
  }
  default: {
    double one[2] = {1, 0}, beta[2] = {db, 0};
    cblas_zgemm(CblasRowMajor, TA, TB, m, n, k, one, A, la, B, lb, beta, C, lc);
    break;
  }
  }
}

static void gemm_ld(EType ct, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void *A,
                    int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc) {
  gemm_ldb(ct, ta, tb, false, M, N, K, A, lda, B, ldb, C, ldc);
}

/* How a KGemm is cut into pool chunks (sizes only). */
typedef struct GemmPlan {
  const KGemm *g;
  int cs;            /* bytes per element of the compute type */
  bool split_m;      /* tiles cut M (else N) */
  int64_t tile;      /* rows (columns) per tile */
  int64_t tiles;     /* tiles per gemm; 1 = whole gemms, `per` of them a chunk */
  int64_t per;       /* gemms of the batch per chunk when tiles == 1 */
  int64_t nchunks;
} GemmPlan;

static int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

static void gemm_plan(const KGemm *g, GemmPlan *p) {
  /* M, N, K fit in int: their product fits in a double exactly enough. */
  double macs = (double)g->M * (double)g->N * (double)g->K;
  p->g = g;
  p->cs = etype_storage_bytes(g->ct);
  p->split_m = g->M >= g->N;
  int64_t D = p->split_m ? g->M : g->N, T = 1;
  /* Each tile packs the other operand again: cheap while it stays in a
   * core's cache, ~0.5 ms per 4 MB from memory, so then tiles stay long. */
  double other = (p->split_m ? (double)g->N : (double)g->M) * (double)g->K * p->cs;
  int64_t min_tile = other <= GEMM_CACHED_BYTES ? GEMM_MIN_TILE : GEMM_MIN_TILE_UNCACHED;
  while (T < GEMM_MAX_TILES && D / (2 * T) >= min_tile && macs / (double)(2 * T) >= (double)GEMM_CHUNK_MACS)
    T *= 2;
  /* Tiles of a multiple of 16 rows: the BLAS kernels' register blocks. */
  p->tile = ceil_div(ceil_div(D, T), 16) * 16;
  p->tiles = ceil_div(D, p->tile);
  if (p->tiles > 1) {
    p->per = 1;
    p->nchunks = g->nbatch * p->tiles;
  } else {
    double per = (double)GEMM_CHUNK_MACS / (macs > 1 ? macs : 1);
    p->per = per >= (double)g->nbatch ? g->nbatch : per < 1 ? 1 : (int64_t)per;
    p->nchunks = ceil_div(g->nbatch, p->per);
  }
}

static void gemm_chunk(void *ctx, int64_t chunk, int worker) {
  (void)worker;
  const GemmPlan *p = ctx;
  const KGemm *g = p->g;
  int64_t b0 = p->tiles > 1 ? chunk / p->tiles : chunk * p->per;
  int64_t b1 = p->tiles > 1 ? b0 + 1 : (b0 + p->per < g->nbatch ? b0 + p->per : g->nbatch);
  int64_t lo = 0, M = g->M, N = g->N;
  if (p->tiles > 1) {
    lo = chunk % p->tiles * p->tile;
    int64_t D = p->split_m ? g->M : g->N, n = D - lo < p->tile ? D - lo : p->tile;
    if (p->split_m) M = n;
    else N = n;
  }
  for (int64_t b = b0; b < b1; b++) {
    /* Batch b's operands: its index over the batch dims, last fastest. */
    int64_t aoff = 0, boff = 0, rest = b;
    for (int i = g->nbd - 1; i >= 0; i--) {
      int64_t ix = rest % g->bdims[i];
      rest /= g->bdims[i];
      aoff += ix * g->astr[i];
      boff += ix * g->bstr[i];
    }
    int64_t coff = b * g->cstr;
    if (p->split_m) {
      aoff += g->ta ? lo : lo * g->lda;
      coff += lo * g->ldc;
    } else {
      boff += g->tb ? lo * g->ldb : lo;
      coff += lo;
    }
    gemm_ld(g->ct, g->ta, g->tb, M, N, g->K, (const char *)g->A + aoff * p->cs, g->lda,
            (const char *)g->B + boff * p->cs, g->ldb, (char *)g->C + coff * p->cs, g->ldc);
  }
}
#endif

bool k_gemm_run(const KGemm *g) {
#ifdef HLO_HAVE_BLAS
  if (g->ct == ET_S64 || g->nbatch < 0 || g->nbd < 0 || g->nbd > K_MAX_RANK) return false;
  if (g->M > INT_MAX || g->N > INT_MAX || g->K > INT_MAX || g->lda > INT_MAX || g->ldb > INT_MAX ||
      g->ldc > INT_MAX || g->M < 0 || g->N < 0 || g->K < 0)
    return false;
  if (g->M == 0 || g->N == 0 || g->nbatch == 0) return true;
  if (g->K == 0) return false; /* the BLAS reads no row: callers zero C themselves */
  GemmPlan p;
  gemm_plan(g, &p);
  pool_for(p.nchunks, gemm_chunk, &p);
  return true;
#else
  (void)g;
  return false;
#endif
}

void k_gemm(EType ct, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void *A,
            const void *B, void *C) {
  k_gemm_batch(ct, ta, tb, M, N, K, 1, A, B, C);
}

void k_gemm_batch(EType ct, bool ta, bool tb, int64_t M, int64_t N, int64_t K, int64_t nbatch,
                  const void *A, const void *B, void *C) {
  if (M == 0 || N == 0 || nbatch == 0) return;
  int cs = etype_storage_bytes(ct);
  if (K == 0) {
    memset(C, 0, (size_t)(nbatch * M * N * cs));
    return;
  }
  KGemm g = {.ct = ct, .ta = ta, .tb = tb, .M = M, .N = N, .K = K, .A = A, .lda = ta ? M : K,
             .B = B, .ldb = tb ? K : N, .C = C, .ldc = N, .nbatch = nbatch, .nbd = 1,
             .bdims = {nbatch}, .astr = {M * K}, .bstr = {K * N}, .cstr = M * N};
  if (k_gemm_run(&g)) return;
  for (int64_t b = 0; b < nbatch; b++)
    gemm_portable(ct, ta, tb, M, N, K, (const char *)A + b * M * K * cs, (const char *)B + b * K * N * cs,
                  (char *)C + b * M * N * cs);
}

bool k_gemm_strided(EType ct, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void *A,
                    int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc) {
  if (M <= 0 || N <= 0 || K <= 0) return false;
  KGemm g = {.ct = ct, .ta = ta, .tb = tb, .M = M, .N = N, .K = K, .A = A, .lda = lda, .B = B,
             .ldb = ldb, .C = C, .ldc = ldc, .nbatch = 1, .nbd = 0, .cstr = 0};
  return k_gemm_run(&g);
}

bool k_gemm_one(EType ct, bool ta, bool tb, bool acc, int64_t M, int64_t N, int64_t K, const void *A,
                int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc) {
#ifdef HLO_HAVE_BLAS
  if (ct == ET_S64 || M <= 0 || N <= 0 || K <= 0) return false;
  if (M > INT_MAX || N > INT_MAX || K > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX) return false;
  gemm_ldb(ct, ta, tb, acc, M, N, K, A, lda, B, ldb, C, ldc);
  return true;
#else
  (void)ct; (void)ta; (void)tb; (void)acc; (void)M; (void)N; (void)K; (void)A; (void)lda; (void)B; (void)ldb;
  (void)C; (void)ldc;
  return false;
#endif
}
