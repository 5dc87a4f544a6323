/* The first-call self-check shared by the vectorised f32 math kernels
 * (k_vlog.c, k_vexpm1.c, k_vlog1p.c, k_vsincos.c, k_verf.c, k_vcbrt.c,
 * k_vpow.c), and their one dispatcher (k_vec_run).
 *
 * Each of those kernels computes the algorithm of Debian 12's glibc (2.36)
 * bit for bit, but another libm may compute the function otherwise (glibc
 * 2.41 made several of them correctly rounded, musl has its own), and the
 * results must stay the running libm's.  So before a kernel is used, it is
 * compared with libm on a spread of inputs, and libm itself is used if any
 * result differs. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/k_internal.h"

bool k_vec_agrees_with_libm(KVecFn fn, float (*libm)(float), float lo, float hi) {
  enum { N = 4096, SPECIALS = 8 };
  /* on the stack: several devices' threads may pick at once */
  float x[N], got[N];
  const uint32_t specials[SPECIALS] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                       0x7fc00000u, 0x00000001u, 0x80000001u, 0x3f800000u};
  for (int i = 0; i < N; i++) {
    uint32_t u;
    if (i < SPECIALS) {
      u = specials[i];
    } else if (i % 2) { /* every exponent of both signs, mantissas scattered */
      u = (uint32_t)i * (UINT32_C(1) << 20) + (uint32_t)i * 2654435761u % (UINT32_C(1) << 20);
    } else { /* densely over [lo, hi], where the algorithm does most */
      float t = (float)i / (float)N;
      float v = lo + (hi - lo) * t;
      memcpy(&u, &v, 4);
      u += (uint32_t)i % 7; /* off round numbers */
    }
    memcpy(&x[i], &u, 4);
  }
  fn(got, x, N);
  for (int i = 0; i < N; i++) {
    float want = libm(x[i]);
    if (memcmp(&want, &got[i], 4)) return false;
  }
  return true;
}

KVecFn k_vec_pick_once(KVecFn *slot, KVecFn (*pick)(void)) {
  KVecFn f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!f) {
    f = pick();
    __atomic_store_n(slot, f, __ATOMIC_RELEASE);
  }
  return f;
}

/* The best build this CPU runs, as glibc picks its variants. */
static int cpu_build(bool fma) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                __builtin_cpu_supports("avx512vl");
  if (fma && !(__builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2"))) return 0;
  return avx512 ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
#else
  (void)fma;
  return 0;
#endif
}

enum { PICK_LIBM = 4 }; /* else 1 + the build */

static int pick(const KVecKernel *k) {
  int b = cpu_build(k->fma);
  if (b == 0 && k->plain_slower) return PICK_LIBM;
  if (k_vec_agrees_with_libm(k->builds[b], k->libm, k->lo, k->hi)) return 1 + b;
  if (b && k_vec_agrees_with_libm(k->builds[0], k->libm, k->lo, k->hi)) return 1;
  return PICK_LIBM;
}

void k_vec_run(const KVecKernel *k, int *picked, float *restrict out, const float *restrict in,
               int64_t n) {
  int p = __atomic_load_n(picked, __ATOMIC_ACQUIRE);
  if (!p) {
    p = pick(k);
    __atomic_store_n(picked, p, __ATOMIC_RELEASE);
  }
  if (p == PICK_LIBM) {
    for (int64_t i = 0; i < n; i++) out[i] = k->libm(in[i]);
  } else {
    k->builds[p - 1](out, in, n);
  }
}

void k_vec_run_build(const KVecKernel *k, int build, float *restrict out,
                     const float *restrict in, int64_t n) {
  k->builds[build](out, in, n);
}
