/* Shared kernel helpers: compute types and conversions, permuting copy,
 * typed combine loops for the known reducers. */
/* -O2 uses GCC's very-cheap vectoriser cost model, which skips loops needing an epilogue. */
#pragma GCC optimize("vect-cost-model=dynamic")
#include <math.h>
#include <stdio.h>

#include "kernels/k_common.h"
#include "base/cmplx.h"

#include "base/hostmem.h"
#include "base/thread_pool.h"

bool k_num_elements(int rank, const int64_t *dims, int64_t *out, Error *err) {
  int64_t n = 1;
  if (rank < 0 || rank > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "rank %d out of range", rank);
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0) return error_set(err, ERR_RUNTIME, -1, "negative dimension %lld", (long long)dims[i]);
    if (__builtin_mul_overflow(n, dims[i], &n))
      return error_set(err, ERR_RUNTIME, -1, "element count overflows int64");
  }
  *out = n;
  return true;
}

int k_elem_size(EType t) { return etype_storage_bytes(t); }

const char *k_reduce_op_name(KReduceOp op) {
  static const char *names[] = {"none", "add", "multiply", "maximum", "minimum", "and", "or", "xor", "replace"};
  return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

/* Big temporaries (im2col patches, permuted or converted dot operands, FFT
 * work arrays, ...) are base/hostmem blocks: kept for reuse by the next
 * kernel or buffer, so a kernel called again does not fault fresh pages. */
void *k_malloc(int64_t bytes, Error *err) {
  if (bytes < 0) {
    error_set(err, ERR_RUNTIME, -1, "negative allocation");
    return NULL;
  }
  bool zeroed;
  void *p = (size_t)bytes >= HOSTMEM_MIN ? hostmem_alloc((size_t)bytes, &zeroed)
                                         : malloc(bytes ? (size_t)bytes : 1);
  if (!p) error_set(err, ERR_RUNTIME, -1, "out of memory allocating %lld bytes", (long long)bytes);
  return p;
}

void k_free(void *p) {
  if (!hostmem_free(p)) free(p);
}

bool k_mul3(int64_t a, int64_t b, int64_t *out, Error *err) {
  if (__builtin_mul_overflow(a, b, out)) return error_set(err, ERR_RUNTIME, -1, "size overflows int64");
  return true;
}

/* ---------------------------------------------------------------- types */

EType k_compute_etype(EType t) {
  if (k_is_narrow_float(t)) return ET_F32;
  switch (t) {
  case ET_S1: case ET_S2: case ET_S4: return ET_S8;
  case ET_U1: case ET_U2: case ET_U4: return ET_U8;
  default: return t;
  }
}

/* etype_convert_array over the pool in chunks of the element range (each
 * element converts alone: the same bytes for any thread count). */
typedef struct ConvertSplit {
  EType dt, st;
  void *dst;
  const void *src;
  int64_t n, per;
} ConvertSplit;

static void convert_chunk(void *ctx, int64_t chunk, int worker) {
  (void)worker;
  const ConvertSplit *c = ctx;
  int64_t lo = chunk * c->per, m = c->n - lo < c->per ? c->n - lo : c->per;
  etype_convert_array(c->dt, (char *)c->dst + lo * etype_storage_bytes(c->dt), c->st,
                      (const char *)c->src + lo * etype_storage_bytes(c->st), m);
}

static void convert_split(EType dt, void *dst, EType st, const void *src, int64_t n) {
  if (n <= 0) return;
  int64_t chunks = pool_chunks(n * (etype_storage_bytes(dt) + etype_storage_bytes(st)), (n + 255) / 256);
  ConvertSplit c = {dt, st, dst, src, n, (n + chunks - 1) / chunks};
  c.per = (c.per + 63) / 64 * 64;
  pool_for((n + c.per - 1) / c.per, convert_chunk, &c);
}

void k_to_compute(EType t, const void *src, void *dst, int64_t n) {
  if (k_is_narrow_float(t)) {
    if (src == dst) { /* widening in place: convert backwards in blocks */
      float tmp[256];
      int es = etype_storage_bytes(t);
      for (int64_t i = n; i > 0;) {
        int64_t c = i >= 256 ? 256 : i;
        i -= c;
        etype_convert_array(ET_F32, tmp, t, (const char *)src + i * es, c);
        memcpy((float *)dst + i, tmp, (size_t)c * 4);
      }
      return;
    }
    convert_split(ET_F32, dst, t, src, n);
    return;
  }
  if (src != dst) memmove(dst, src, (size_t)n * (size_t)etype_storage_bytes(t));
}

void k_from_compute(EType t, const void *src, void *dst, int64_t n) {
  if (k_is_narrow_float(t)) {
    if (src == dst) { /* narrowing in place: forward in blocks */
      float tmp[256];
      int es = etype_storage_bytes(t);
      for (int64_t i = 0; i < n; i += 256) {
        int64_t c = n - i < 256 ? n - i : 256;
        memcpy(tmp, (const float *)src + i, (size_t)c * 4);
        etype_convert_array(t, (char *)dst + i * es, ET_F32, tmp, c);
      }
      return;
    }
    convert_split(t, dst, ET_F32, src, n);
    return;
  }
  int bits = etype_bits(t);
  if ((etype_kind(t) == EK_SINT || etype_kind(t) == EK_UINT) && bits < 8) {
    const uint8_t *s = src;
    uint8_t *d = dst;
    for (int64_t i = 0; i < n; i++) d[i] = (uint8_t)k_wrap((int8_t)s[i], bits, etype_kind(t) == EK_SINT);
    return;
  }
  if (src != dst) memmove(dst, src, (size_t)n * (size_t)etype_storage_bytes(t));
}

void k_cvt(EType dst_t, void *dst, EType src_t, const void *src, int64_t n) {
  if (dst_t == src_t) {
    if (dst != src) memmove(dst, src, (size_t)n * (size_t)etype_storage_bytes(dst_t));
    return;
  }
  etype_convert_array(dst_t, dst, src_t, src, n);
}

/* ---------------------------------------------------------------- permute */

static void copy_elem(int es, char *d, const char *s) {
  switch (es) {
  case 1: *d = *s; break;
  case 2: memcpy(d, s, 2); break;
  case 4: memcpy(d, s, 4); break;
  case 8: memcpy(d, s, 8); break;
  default: memcpy(d, s, (size_t)es); break;
  }
}

#define K_TILE 32
#define PERM_2D(T)                                                                     \
  for (int64_t a0 = 0; a0 < na; a0 += K_TILE)                                          \
    for (int64_t b0 = 0; b0 < nb; b0 += K_TILE) {                                      \
      int64_t a1 = a0 + K_TILE < na ? a0 + K_TILE : na;                                \
      int64_t b1 = b0 + K_TILE < nb ? b0 + K_TILE : nb;                                \
      for (int64_t bb = b0; bb < b1; bb++)                                             \
        for (int64_t aa = a0; aa < a1; aa++)                                           \
          ((T *)d)[aa * dsa + bb * dsb] = ((const T *)s)[aa * ssa + bb * ssb];         \
    }

void k_permute(int es, const void *src, int rank, const int64_t *src_dims, const int *perm, void *dst) {
  /* Collapse: drop size-1 dims, merge dst-adjacent dims that are src-adjacent. */
  int64_t sstr[K_MAX_RANK], ddims[K_MAX_RANK], dstr_in_src[K_MAX_RANK];
  int64_t n = 1;
  for (int i = 0; i < rank; i++) n *= src_dims[i];
  if (n == 0) return;
  int64_t st = 1;
  for (int i = rank - 1; i >= 0; i--) { sstr[i] = st; st *= src_dims[i]; }
  int r = 0;
  for (int i = 0; i < rank; i++) {
    int64_t sz = src_dims[perm[i]];
    if (sz == 1) continue;
    int64_t ss = sstr[perm[i]];
    if (r > 0 && dstr_in_src[r - 1] == ss * sz) { ddims[r - 1] *= sz; dstr_in_src[r - 1] = ss; continue; }
    ddims[r] = sz;
    dstr_in_src[r] = ss;
    r++;
  }
  if (r == 0 || (r == 1 && dstr_in_src[0] == 1)) { memcpy(dst, src, (size_t)(n * es)); return; }
  int64_t dstr[K_MAX_RANK];
  st = 1;
  for (int i = r - 1; i >= 0; i--) { dstr[i] = st; st *= ddims[i]; }
  /* Inner 2D block: dst innermost dim (a) and the dim that is src-contiguous (b). */
  int ia = r - 1, ib = -1;
  for (int i = 0; i < r; i++) if (dstr_in_src[i] == 1) ib = i;
  if (ib == ia) ib = -1;
  int64_t idx[K_MAX_RANK] = {0};
  int64_t na = ddims[ia], ssa = dstr_in_src[ia], dsa = 1;
  int64_t nb = ib >= 0 ? ddims[ib] : 1, ssb = ib >= 0 ? dstr_in_src[ib] : 0, dsb = ib >= 0 ? dstr[ib] : 0;
  for (;;) {
    int64_t so = 0, doff = 0;
    for (int i = 0; i < r; i++) if (i != ia && i != ib) { so += idx[i] * dstr_in_src[i]; doff += idx[i] * dstr[i]; }
    const char *s = (const char *)src + so * es;
    char *d = (char *)dst + doff * es;
    switch (es) {
    case 1: PERM_2D(uint8_t) break;
    case 2: PERM_2D(uint16_t) break;
    case 4: PERM_2D(uint32_t) break;
    case 8: PERM_2D(uint64_t) break;
    default:
      for (int64_t bb = 0; bb < nb; bb++)
        for (int64_t aa = 0; aa < na; aa++)
          copy_elem(es, d + (aa * dsa + bb * dsb) * es, s + (aa * ssa + bb * ssb) * es);
    }
    int i = r - 1;
    for (; i >= 0; i--) {
      if (i == ia || i == ib) continue;
      if (++idx[i] < ddims[i]) break;
      idx[i] = 0;
    }
    if (i < 0) break;
  }
}

/* ---------------------------------------------------------------- combine */

/* X(ETYPE, C type, unsigned type, kind) over the compute types. */
#define K_COMPUTE_TYPES(X)                                                     \
  X(F32, float, float, FLT) X(F64, double, double, FLT)                        \
  X(C64, kc64, kc64, CPX) X(C128, kc128, kc128, CPX)                           \
  X(S8, int8_t, uint8_t, INT) X(S16, int16_t, uint16_t, INT)                   \
  X(S32, int32_t, uint32_t, INT) X(S64, int64_t, uint64_t, INT)                \
  X(U8, uint8_t, uint8_t, INT) X(U16, uint16_t, uint16_t, INT)                 \
  X(U32, uint32_t, uint32_t, INT) X(U64, uint64_t, uint64_t, INT)              \
  X(PRED, uint8_t, uint8_t, PRD)

#define ADD_FLT(T, U, a, b) ((a) + (b))
#define ADD_CPX ADD_FLT
#define ADD_INT(T, U, a, b) ((T)(U)((uint64_t)(U)(a) + (uint64_t)(U)(b)))
#define ADD_PRD(T, U, a, b) ((T)((a) | (b)))
#define MUL_FLT(T, U, a, b) ((a) * (b))
#define MUL_CPX MUL_FLT
#define MAX_CPX(T, U, a, b) \
  (cmplx_pick_second(creal(a), cimag(a), creal(b), cimag(b), true) ? (b) : (a))
#define MIN_CPX(T, U, a, b) \
  (cmplx_pick_second(creal(a), cimag(a), creal(b), cimag(b), false) ? (b) : (a))
#define MUL_INT(T, U, a, b) ((T)(U)((uint64_t)(U)(a) * (uint64_t)(U)(b)))
#define MUL_PRD(T, U, a, b) ((T)((a) & (b)))
#define MAX_FLT(T, U, a, b) ((a) > (b) ? (a) : (b) > (a) ? (b) : (a) != (a) ? (a) : (b) != (b) ? (b) : signbit(a) ? (b) : (a))
#define MIN_FLT(T, U, a, b) ((a) < (b) ? (a) : (b) < (a) ? (b) : (a) != (a) ? (a) : (b) != (b) ? (b) : signbit(a) ? (a) : (b))
#define MAX_INT(T, U, a, b) ((a) > (b) ? (a) : (b))
#define MIN_INT(T, U, a, b) ((a) < (b) ? (a) : (b))
#define MAX_PRD MAX_INT
#define MIN_PRD MIN_INT
#define AND_INT(T, U, a, b) ((T)((a) & (b)))
#define OR_INT(T, U, a, b) ((T)((a) | (b)))
#define XOR_INT(T, U, a, b) ((T)((a) ^ (b)))
#define AND_PRD AND_INT
#define OR_PRD OR_INT
#define XOR_PRD XOR_INT

/* Runtime dispatch AVX-512 / AVX2 / baseline: elementwise, so results are
 * identical on every path. */
#define DEF_LOOP(NAME, ET, T, U, KIND)                                                   \
  __attribute__((target_clones("avx512f", "avx2", "default")))                           \
  static void comb_##NAME##_##ET(void *acc_, const void *v_, int64_t n) {                \
    T *restrict acc = acc_;                                                              \
    const T *restrict v = v_;                                                            \
    for (int64_t i = 0; i < n; i++) acc[i] = NAME##_##KIND(T, U, acc[i], v[i]);          \
  }
#define DEF_ALL_FLT(ET, T, U) DEF_LOOP(ADD, ET, T, U, FLT) DEF_LOOP(MUL, ET, T, U, FLT) \
  DEF_LOOP(MAX, ET, T, U, FLT) DEF_LOOP(MIN, ET, T, U, FLT)
#define DEF_ALL_CPX(ET, T, U) DEF_LOOP(ADD, ET, T, U, CPX) DEF_LOOP(MUL, ET, T, U, CPX) \
  DEF_LOOP(MAX, ET, T, U, CPX) DEF_LOOP(MIN, ET, T, U, CPX)
#define DEF_ALL_INT(ET, T, U) DEF_LOOP(ADD, ET, T, U, INT) DEF_LOOP(MUL, ET, T, U, INT) \
  DEF_LOOP(MAX, ET, T, U, INT) DEF_LOOP(MIN, ET, T, U, INT) DEF_LOOP(AND, ET, T, U, INT)  \
  DEF_LOOP(OR, ET, T, U, INT) DEF_LOOP(XOR, ET, T, U, INT)
#define DEF_ALL_PRD(ET, T, U) DEF_LOOP(ADD, ET, T, U, PRD) DEF_LOOP(MUL, ET, T, U, PRD) \
  DEF_LOOP(MAX, ET, T, U, PRD) DEF_LOOP(MIN, ET, T, U, PRD) DEF_LOOP(AND, ET, T, U, PRD)  \
  DEF_LOOP(OR, ET, T, U, PRD) DEF_LOOP(XOR, ET, T, U, PRD)
#define DEF_TYPE(ET, T, U, KIND) DEF_ALL_##KIND(ET, T, U)
K_COMPUTE_TYPES(DEF_TYPE)

typedef void (*CombLoop)(void *, const void *, int64_t);

static CombLoop comb_loop(KReduceOp op, EType ct) {
#define ENTRY_FLT(ET) \
  case ET_##ET: return op == K_RED_ADD ? comb_ADD_##ET : op == K_RED_MUL ? comb_MUL_##ET : \
                       op == K_RED_MAX ? comb_MAX_##ET : op == K_RED_MIN ? comb_MIN_##ET : NULL;
#define ENTRY_CPX ENTRY_FLT
#define ENTRY_INT(ET)                                                                            \
  case ET_##ET:                                                                                  \
    switch (op) {                                                                                \
    case K_RED_ADD: return comb_ADD_##ET; case K_RED_MUL: return comb_MUL_##ET;                  \
    case K_RED_MAX: return comb_MAX_##ET; case K_RED_MIN: return comb_MIN_##ET;                  \
    case K_RED_AND: return comb_AND_##ET; case K_RED_OR: return comb_OR_##ET;                    \
    case K_RED_XOR: return comb_XOR_##ET; default: return NULL;                                  \
    }
#define ENTRY_PRD ENTRY_INT
#define ENTRY(ET, T, U, KIND) ENTRY_##KIND(ET)
  switch (ct) {
    K_COMPUTE_TYPES(ENTRY)
  default: return NULL;
  }
}

static void comb_replace(int es, void *acc, const void *v, int64_t n) { memcpy(acc, v, (size_t)(n * es)); }

bool k_op_valid(KReduceOp op, EType ct) {
  return op == K_RED_REPLACE ? etype_is_array(ct) : comb_loop(op, ct) != NULL;
}

bool k_combine(KReduceOp op, EType ct, void *acc, const void *v, int64_t n, Error *err) {
  if (op == K_RED_REPLACE) { comb_replace(etype_storage_bytes(ct), acc, v, n); return true; }
  CombLoop f = comb_loop(op, ct);
  if (!f) return error_set(err, ERR_RUNTIME, -1, "reducer %s is not defined on %s", k_reduce_op_name(op), etype_name(ct));
  f(acc, v, n);
  return true;
}

bool k_reducer_apply(const KReducer *r, int nvals, const EType *types, void *const *acc,
                     const void *const *vals, int64_t n, Error *err) {
  if (n == 0) return true;
  if (r->ops) {
    for (int i = 0; i < nvals; i++)
      if (!k_combine(r->ops[i], k_compute_etype(types[i]), acc[i], vals[i], n, err)) return false;
    return true;
  }
  if (!r->fn) return error_set(err, ERR_RUNTIME, -1, "reducer has neither known ops nor a callback");
  return r->fn(r->ctx, nvals, acc, vals, n, err);
}

EType k_work_etype(const KReducer *r, EType t) { return r->ops ? k_compute_etype(t) : t; }

#define PAIR_BATCH 4096
#define PAIR_SEEN_BITS 13 /* a batch's targets in a table of 2 * PAIR_BATCH slots */
/* Targets of another storage type are converted to the work type one range
 * at a time, the range's copy at most about this size (or 1/64 of them). */
#define PAIR_RANGE_BYTES ((int64_t)8 << 20)

/* k_apply_pairs' work: the pairs whose target lies in [lo, hi), in pair
 * order.  A batch gathers pairs of distinct targets (a repeated one flushes
 * it first), so every target still takes its updates one by one in order. */
typedef struct PairJob {
  const KReducer *r;
  int nvals;
  const EType *wt, *tt;
  void *const *targets;
  int64_t ntargets, per; /* targets per chunk */
  const void *const *upd;
  const int64_t *tidx, *uidx;
  int64_t npairs;
} PairJob;

/* The batch's targets: open addressing on the target index, slots marked
 * with the batch's generation so that nothing is cleared between batches. */
typedef struct Seen {
  int64_t t[1 << PAIR_SEEN_BITS];
  uint32_t gen[1 << PAIR_SEEN_BITS];
} Seen;

/* Adds t to the batch gen; false when it is there already. */
static bool seen_add(Seen *s, int64_t t, uint32_t gen) {
  uint64_t h = ((uint64_t)t * 0x9E3779B97F4A7C15ull) >> (64 - PAIR_SEEN_BITS);
  for (;; h = (h + 1) & ((1u << PAIR_SEEN_BITS) - 1)) {
    if (s->gen[h] != gen) {
      s->gen[h] = gen;
      s->t[h] = t;
      return true;
    }
    if (s->t[h] == t) return false;
  }
}

static bool apply_range(void *ctx, int64_t chunk, int worker, Error *err) {
  (void)worker;
  const PairJob *j = ctx;
  int64_t lo = chunk * j->per, hi = lo + j->per < j->ntargets ? lo + j->per : j->ntargets;
  int nvals = j->nvals;
  bool ok = false;
  int es[K_MAX_RANK];
  void *accb[K_MAX_RANK] = {0}, *valb[K_MAX_RANK] = {0}, *conv[K_MAX_RANK] = {0};
  char *tgt[K_MAX_RANK]; /* target lo's element, in the work type */
  int64_t *bt = malloc(PAIR_BATCH * sizeof *bt);
  Seen *seen = calloc(1, sizeof *seen);
  if (!bt || !seen) { error_set(err, ERR_RUNTIME, -1, "out of memory"); goto done; }
  for (int i = 0; i < nvals; i++) {
    es[i] = etype_storage_bytes(j->wt[i]);
    accb[i] = malloc((size_t)(PAIR_BATCH * es[i]));
    valb[i] = malloc((size_t)(PAIR_BATCH * es[i]));
    if (!accb[i] || !valb[i]) { error_set(err, ERR_RUNTIME, -1, "out of memory"); goto done; }
    const char *t0 = (const char *)j->targets[i] + lo * etype_storage_bytes(j->tt[i]);
    if (j->tt[i] != j->wt[i]) {
      if (!(conv[i] = k_malloc((hi - lo) * es[i], err))) goto done;
      k_to_compute(j->tt[i], t0, conv[i], hi - lo);
      tgt[i] = conv[i];
    } else {
      tgt[i] = (char *)t0;
    }
  }
  uint32_t gen = 1;
  int64_t p = 0;
  while (p < j->npairs) {
    int64_t n = 0;
    while (p < j->npairs && n < PAIR_BATCH) {
      int64_t t = j->tidx[p];
      if (t < lo || t >= hi) { p++; continue; } /* another chunk's */
      if (!seen_add(seen, t, gen)) break; /* repeated target: flush first */
      bt[n] = t - lo;
      for (int i = 0; i < nvals; i++) {
        memcpy((char *)accb[i] + n * es[i], tgt[i] + (t - lo) * es[i], (size_t)es[i]);
        memcpy((char *)valb[i] + n * es[i], (const char *)j->upd[i] + j->uidx[p] * es[i], (size_t)es[i]);
      }
      n++;
      p++;
    }
    if (!k_reducer_apply(j->r, nvals, j->wt, accb, (const void *const *)valb, n, err)) goto done;
    for (int64_t b = 0; b < n; b++)
      for (int i = 0; i < nvals; i++)
        memcpy(tgt[i] + bt[b] * es[i], (char *)accb[i] + b * es[i], (size_t)es[i]);
    if (++gen == 0) { memset(seen->gen, 0, sizeof seen->gen); gen = 1; }
  }
  for (int i = 0; i < nvals; i++)
    if (conv[i]) k_from_compute(j->tt[i], conv[i], (char *)j->targets[i] + lo * etype_storage_bytes(j->tt[i]), hi - lo);
  ok = true;
done:
  for (int i = 0; i < nvals; i++) { free(accb[i]); free(valb[i]); k_free(conv[i]); }
  free(bt);
  free(seen);
  return ok;
}

bool k_apply_pairs(const KReducer *r, int nvals, const EType *wt, const EType *tt, void *const *targets,
                   int64_t ntargets, const void *const *upd, const int64_t *tidx,
                   const int64_t *uidx, int64_t npairs, Error *err) {
  if (npairs == 0) return true;
  if (nvals > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "too many operands");
  if (!tt) tt = wt;
  /* Known reducers run on the pool, one range of targets per chunk (cut by
   * the sizes alone); a computation's callback runs on this thread only.
   * Targets to convert are cut into ranges of about PAIR_RANGE_BYTES (at
   * most 64: every chunk reads every pair) whoever runs them. */
  int64_t bytes = 0, conv_bytes = 0;
  for (int i = 0; i < nvals; i++) {
    bytes += npairs * etype_storage_bytes(wt[i]);
    if (tt[i] != wt[i]) conv_bytes += ntargets * etype_storage_bytes(wt[i]);
  }
  int64_t chunks = r->ops ? pool_chunks(bytes, ntargets < 8 ? ntargets : 8) : 1;
  int64_t conv_chunks = (conv_bytes + PAIR_RANGE_BYTES - 1) / PAIR_RANGE_BYTES;
  if (conv_chunks > 64) conv_chunks = 64;
  if (conv_chunks > ntargets) conv_chunks = ntargets;
  if (r->ops && chunks < conv_chunks) chunks = conv_chunks;
  if (chunks < 1) chunks = 1;
  PairJob job = {r, nvals, wt, tt, targets, ntargets, (ntargets + chunks - 1) / chunks, upd, tidx, uidx,
                 npairs};
  return pool_for_err((ntargets + job.per - 1) / job.per, apply_range, &job, err);
}
