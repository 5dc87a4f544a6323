/* Base-dilated convolutions (lhs_dilate > 1: the input gradient of a strided
 * convolution) by phase decomposition.
 *
 * Along one spatial dim, output o reads kernel position kw (after reversal)
 * at pos = o * s + kw * wd - lo of the dilated input, which holds an element
 * only where pos is a multiple of the base dilation bd.  Whether
 * (o * s - lo + kw * wd) is a multiple of bd depends on o only through
 * o mod P, P = bd / gcd(s, bd) (P * s is a multiple of bd).  So the outputs
 * o = r + P * j of one residue r ("phase") all read the same taps:
 *   kw = k0 + t * kstep, t = 0 .. nt - 1,  kstep = bd / gcd(wd, bd),
 * k0 the first solution of k0 * wd = lo - r * s (mod bd), and the input
 * element they read is
 *   pos / bd = base + t * wd' + j * s',
 *   base = (r * s - lo + k0 * wd) / bd, wd' = wd / gcd(wd, bd),
 *   s' = s / gcd(s, bd).
 * That is an ordinary convolution of the undilated input with the sub-kernel
 * of those taps, stride s', window dilation wd', padding lo' = -base (the
 * high padding chosen to give the phase's output count), no reversal (the
 * sub-kernel is copied in the order the taps are applied).  Each phase
 * combination over the spatial dims is one such convolution through k_conv
 * (so it takes the gemm paths: im2col, channel-major, pointwise,
 * depthwise), its result scattered into every P-th output position; f32
 * phases instead write straight into those positions (a view of the
 * result: offset r, strides times P), the direct tiles storing there.  Phases
 * with no tap in some dim read only zeros.  The taps of all the phases
 * partition the kernel, so at most KSP convolutions run and none multiplies
 * an inserted zero: lhs_dilate 2 in 2-d does a quarter of the im2col work.
 * The sub-kernels are cut once; where the batch is outermost in lhs and
 * result (and there are no batch groups), all phases run per batch slice of
 * about SLICE_BYTES of result, so that their interleaved writes land in
 * cache instead of sweeping the whole result P times. */
#include "base/thread_pool.h"
#include "kernels/k_conv_internal.h"

static int64_t gcd64(int64_t a, int64_t b) {
  while (b) { int64_t t = a % b; a = b; b = t; }
  return a;
}

/* Per spatial dim: P, the sub-convolution's stride and window dilation, and
 * per phase r < R = min(P, os): first tap k0, tap count nt, first input
 * position base, output count nj.  Arrays from one k_malloc (in k0). */
typedef struct DimPhases {
  int64_t P, R, kstep, sstride, swd;
  int64_t *k0, *nt, *base, *nj;
} DimPhases;

/* False on an int64 overflow (then the generic path runs instead). */
static bool dim_phases(const ConvSpatial *sp, int d, DimPhases *dp, Error *err, bool *alloc_failed) {
  int64_t s = sp->stride[d], bd = sp->bd[d], wd = sp->wd[d], lo = sp->lo[d], ks = sp->ks[d], os = sp->os[d];
  int64_t gs = gcd64(s, bd), gw = gcd64(wd, bd);
  dp->P = bd / gs;
  dp->R = dp->P < os ? dp->P : os;
  dp->kstep = bd / gw;
  dp->sstride = s / gs;
  dp->swd = wd / gw;
  if (!(dp->k0 = k_malloc(dp->R * 4 * 8 + 8, err))) { *alloc_failed = true; return false; }
  dp->nt = dp->k0 + dp->R;
  dp->base = dp->nt + dp->R;
  dp->nj = dp->base + dp->R;
  int64_t scan = ks < dp->kstep ? ks : dp->kstep;
  for (int64_t r = 0; r < dp->R; r++) {
    int64_t rs, off;
    if (__builtin_mul_overflow(r, s, &rs) || __builtin_sub_overflow(rs, lo, &off)) return false;
    dp->k0[r] = ks;
    for (int64_t kw = 0; kw < scan; kw++) {
      int64_t kwd, pos;
      if (__builtin_mul_overflow(kw, wd, &kwd) || __builtin_add_overflow(off, kwd, &pos)) return false;
      if (pos % bd == 0) {
        dp->k0[r] = kw;
        dp->base[r] = pos / bd;
        break;
      }
    }
    dp->nt[r] = dp->k0[r] < ks ? (ks - 1 - dp->k0[r]) / dp->kstep + 1 : 0;
    if (dp->nt[r] == 0) dp->base[r] = 0;
    dp->nj[r] = (os - r + dp->P - 1) / dp->P;
  }
  return true;
}

/* Row-major strides (elements) of dims. */
static void strides_of(int rank, const int64_t *dims, int64_t *st) {
  int64_t s = 1;
  for (int i = rank - 1; i >= 0; i--) { st[i] = s; s *= dims[i]; }
}

/* The sub-kernel of one phase: rhs with spatial dim d cut to the taps
 * k0 + t * kstep (storage index mirrored where the window is reversed). */
static void sub_kernel(const KArray *rhs, const KConvDims *dn, const ConvSpatial *sp, const DimPhases *dp,
                       const int64_t *r, int64_t *sdims, void *sdata) {
  int rank = rhs->rank, es = etype_storage_bytes(rhs->etype);
  int64_t rst[K_MAX_RANK], n = 1;
  strides_of(rank, rhs->dims, rst);
  for (int i = 0; i < rank; i++) sdims[i] = rhs->dims[i];
  for (int d = 0; d < sp->ns; d++) sdims[dn->k_spatial[d]] = dp[d].nt[r[d]];
  for (int i = 0; i < rank; i++) n *= sdims[i];
  /* src offset of each index along each dim, then a mixed-radix walk. */
  int64_t step[K_MAX_RANK], first[K_MAX_RANK];
  bool mirrored[K_MAX_RANK] = {false};
  for (int i = 0; i < rank; i++) { step[i] = rst[i]; first[i] = 0; }
  for (int d = 0; d < sp->ns; d++) {
    int i = (int)dn->k_spatial[d];
    int64_t k0 = dp[d].k0[r[d]];
    if (sp->rev[d]) { first[i] = (sp->ks[d] - 1 - k0) * rst[i]; mirrored[i] = true; }
    else first[i] = k0 * rst[i];
    step[i] = dp[d].kstep * rst[i];
  }
  int64_t idx[K_MAX_RANK] = {0}, src = 0;
  for (int i = 0; i < rank; i++) src += first[i];
  const char *S = rhs->data;
  char *D = sdata;
  for (int64_t e = 0; e < n; e++) {
    memcpy(D + e * es, S + src * es, (size_t)es);
    for (int i = rank - 1; i >= 0; i--) {
      int64_t st = mirrored[i] ? -step[i] : step[i];
      if (++idx[i] < sdims[i]) { src += st; break; }
      src -= st * (idx[i] - 1);
      idx[i] = 0;
    }
  }
}

/* scatter_phase's work: rows (innermost runs) of t in chunks of `per`. */
typedef struct Scatter {
  const KArray *t;
  KArray *out;
  int es;
  int64_t base, rows, per;
  const int64_t *dstep;
} Scatter;

static void scatter_rows(void *ctx, int64_t c, int worker) {
  (void)worker;
  const Scatter *j = ctx;
  const KArray *t = j->t;
  int rank = t->rank, es = j->es;
  int64_t r0 = c * j->per, r1 = r0 + j->per < j->rows ? r0 + j->per : j->rows;
  int64_t inner = t->dims[rank - 1], ds = j->dstep[rank - 1], idx[K_MAX_RANK] = {0}, dst = j->base, q = r0;
  for (int i = rank - 2; i >= 0; i--) { idx[i] = q % t->dims[i]; q /= t->dims[i]; dst += idx[i] * j->dstep[i]; }
  const char *S = t->data;
  char *D = j->out->data;
  for (int64_t row = r0; row < r1; row++) {
    const char *s = S + row * inner * es;
    char *o = D + dst * es;
    if (ds == 1) memcpy(o, s, (size_t)(inner * es));
    else if (es == 4)
      for (int64_t k = 0; k < inner; k++) memcpy(o + k * ds * 4, s + k * 4, 4);
    else
      for (int64_t k = 0; k < inner; k++) memcpy(o + k * ds * es, s + k * es, (size_t)es);
    for (int i = rank - 2; i >= 0; i--) {
      if (++idx[i] < t->dims[i]) { dst += j->dstep[i]; break; }
      dst -= j->dstep[i] * (idx[i] - 1);
      idx[i] = 0;
    }
  }
}

/* dst[r + P * j] = src[j] along the spatial dims of the result; rows of t
 * on the pool (each output element is written by one row). */
static void scatter_phase(const KArray *t, const KConvDims *dn, const DimPhases *dp, const int64_t *r, KArray *out) {
  int rank = out->rank, es = etype_storage_bytes(out->etype);
  int64_t ost[K_MAX_RANK], dstep[K_MAX_RANK] = {0}, dst = 0, n = 1;
  strides_of(rank, out->dims, ost);
  for (int i = 0; i < rank; i++) { dstep[i] = ost[i]; n *= t->dims[i]; }
  for (int d = 0; d < dn->nspatial; d++) {
    int i = (int)dn->out_spatial[d];
    dstep[i] = ost[i] * dp[d].P;
    dst += r[d] * ost[i];
  }
  if (n == 0) return;
  int64_t rows = n / t->dims[rank - 1], nch = pool_chunks(n * es, rows);
  Scatter job = {t, out, es, dst, rows, (rows + nch - 1) / nch, dstep};
  pool_for((rows + job.per - 1) / job.per, scatter_rows, &job);
}

/* Next phase combination (mixed radix over dp[d].R); false after the last. */
static bool next_phase(int ns, const DimPhases *dp, int64_t *r) {
  for (int d = ns - 1; d >= 0; d--) {
    if (++r[d] < dp[d].R) return true;
    r[d] = 0;
  }
  return false;
}

static bool phase_empty(int ns, const DimPhases *dp, const int64_t *r) {
  for (int d = 0; d < ns; d++)
    if (dp[d].nt[r[d]] == 0) return true;
  return false;
}

/* Batch elements per pass: every phase of a pass scatters into the same
 * slice of the result, kept to about this size so that the phases' strided
 * writes hit the cache rather than memory. */
#define SLICE_BYTES (2 << 20)

int conv_base_dilated(const KArray *lhs, const KArray *rhs, const KConvParams *p, const ConvSpatial *sp,
                      KArray *out, Error *err) {
  int ns = sp->ns, rank = ns + 2;
  const KConvDims *dn = &p->dn;
  DimPhases dp[K_MAX_RANK] = {{0}};
  int res = -1;
  void *kbuf = NULL, *obuf = NULL;
  int64_t *ph = NULL;
  bool alloc_failed = false, single = true, any_empty = false;
  int64_t nr = 1, no = 1, no_max = 1, KSP = 1;
  for (int d = 0; d < ns; d++)
    if (!dim_phases(sp, d, &dp[d], err, &alloc_failed)) { res = alloc_failed ? -1 : 0; goto done; }
  for (int i = 0; i < rank; i++) { nr *= rhs->dims[i]; no *= out->dims[i]; }
  for (int d = 0; d < ns; d++) {
    KSP *= sp->ks[d];
    single = single && dp[d].P == 1;
    for (int64_t r = 0; r < dp[d].R; r++) any_empty = any_empty || dp[d].nt[r] == 0;
  }
  /* f32 without batch groups: each phase's convolution writes into a view
   * of the result (conv_into_view), no buffer and no scatter. */
  bool view = !single && p->batch_group_count == 1 && lhs->etype == ET_F32 && rhs->etype == ET_F32 && out->etype == ET_F32;
  /* Whether the phases write parts of the same lines: the elements of one
   * output position below the innermost dilated spatial dim are under a
   * line. */
  int64_t inner = 1;
  int es_k = etype_storage_bytes(rhs->etype), es_o = etype_storage_bytes(out->etype), es_l = etype_storage_bytes(lhs->etype);
  {
    int64_t inmost = -1;
    for (int d = 0; d < ns; d++)
      if (dp[d].P > 1 && dn->out_spatial[d] > inmost) inmost = dn->out_spatial[d];
    for (int64_t i = inmost + 1; i < rank; i++) inner *= out->dims[i];
  }
  /* Batch slices: only where the batch is the outermost dim of lhs and
   * result and no batch groups pair lhs batches with kernel features, and
   * where the phases share lines (the scatter's phases always do).  A
   * view's phases each write whole lines, and every slice costs each
   * phase a pool_for: the input gradient of a stride-2 16x112x112x64
   * convolution ran at 2 threads in 36.8-37.6 ms sliced (64 calls), 31.7-
   * 32.1 ms not (4). */
  int64_t B = lhs->dims[dn->in_batch], nb = B;
  if (p->batch_group_count == 1 && dn->in_batch == 0 && dn->out_batch == 0 && B > 1 && (!view || inner * es_o < 64)) {
    nb = SLICE_BYTES / (no / B * es_o);
    nb = nb < 1 ? 1 : nb > B ? B : nb;
  }
  no_max = nb < B ? no / B * nb : no;
  for (int d = 0; d < ns; d++) no_max = no_max / sp->os[d] * dp[d].nj[0]; /* phase 0 has the most outputs */
  /* The non-empty phases (at most KSP: their taps partition the kernel):
   * per phase r[ns], sub-kernel dims[rank] and offset, sub-kernels built
   * once into kbuf. */
  int64_t per = ns + rank + 1, nph = 0;
  if (!(kbuf = k_malloc(nr * es_k + es_k, err)) || !(ph = k_malloc(KSP * per * 8 + 8, err))) goto done;
  if (!single && !view && !(obuf = k_malloc(no_max * es_o + es_o, err))) goto done;
  int64_t ost[K_MAX_RANK], vst[K_MAX_RANK];
  strides_of(rank, out->dims, ost);
  for (int i = 0; i < rank; i++) vst[i] = ost[i];
  for (int d = 0; d < ns; d++) vst[dn->out_spatial[d]] *= dp[d].P;
  {
    int64_t r[K_MAX_RANK] = {0}, koff = 0;
    do {
      if (phase_empty(ns, dp, r)) continue;
      int64_t *e = ph + nph++ * per, *kd = e + ns;
      memcpy(e, r, (size_t)ns * 8);
      kd[rank] = koff;
      sub_kernel(rhs, dn, sp, dp, r, kd, (char *)kbuf + koff * es_k);
      int64_t n = 1;
      for (int i = 0; i < rank; i++) n *= kd[i];
      koff += n;
    } while (next_phase(ns, dp, r));
  }
  int64_t sst[K_MAX_RANK], slo[K_MAX_RANK], shi[K_MAX_RANK], swd[K_MAX_RANK];
  int64_t ldims[K_MAX_RANK], cdims[K_MAX_RANK], odims[K_MAX_RANK];
  for (int d = 0; d < ns; d++) { sst[d] = dp[d].sstride; swd[d] = dp[d].swd; }
  KConvParams sub = *p;
  sub.window = (KWindow){ns, NULL, sst, slo, shi, NULL, swd, NULL};
  /* Elements per lhs and per result batch element (sliced only without
   * batch groups, where both batches have B elements). */
  int64_t lper = 1, oper = no / out->dims[dn->out_batch];
  for (int i = 0; i < rank; i++) lper *= i == dn->in_batch ? 1 : lhs->dims[i];
  for (int64_t b0 = 0; b0 < B; b0 += nb) {
    int64_t n = B - b0 < nb ? B - b0 : nb;
    for (int i = 0; i < rank; i++) { ldims[i] = lhs->dims[i]; cdims[i] = out->dims[i]; }
    if (nb < B) ldims[dn->in_batch] = cdims[dn->out_batch] = n;
    /* With one slice these are the whole operands (any batch position). */
    KArray lv = {lhs->etype, rank, ldims, (char *)lhs->data + b0 * lper * es_l};
    KArray ov = {out->etype, rank, cdims, (char *)out->data + b0 * oper * es_o};
    if (any_empty) memset(ov.data, 0, (size_t)(cdims[dn->out_batch] * oper * es_o));
    for (int64_t k = 0; k < nph; k++) {
      const int64_t *r = ph + k * per, *kd = r + ns;
      for (int i = 0; i < rank; i++) odims[i] = cdims[i];
      for (int d = 0; d < ns; d++) {
        int64_t nj = dp[d].nj[r[d]], nt = dp[d].nt[r[d]];
        odims[dn->out_spatial[d]] = nj;
        slo[d] = -dp[d].base[r[d]];
        shi[d] = (nj - 1) * sst[d] + (nt - 1) * swd[d] + 1 - sp->in_s[d] - slo[d];
      }
      KArray kk = {rhs->etype, rank, kd, (char *)kbuf + kd[rank] * es_k};
      KArray oo = {out->etype, rank, odims, single ? ov.data : obuf};
      if (view) {
        int64_t off = 0;
        for (int d = 0; d < ns; d++) off += r[d] * ost[dn->out_spatial[d]];
        oo.data = (char *)ov.data + off * es_o;
        if (!conv_into_view(&lv, &kk, &sub, &oo, vst, err)) goto done;
        continue;
      }
      if (!k_conv(&lv, &kk, &sub, &oo, err)) goto done;
      if (!single) scatter_phase(&oo, dn, dp, r, &ov);
    }
  }
  res = 1;
done:
  for (int d = 0; d < ns; d++) k_free(dp[d].k0);
  k_free(kbuf);
  k_free(obuf);
  k_free(ph);
  return res;
}
