/* The first-call self-check shared by the vectorised f32 math kernels
 * (k_vlog.c, k_vexpm1.c, k_vlog1p.c, k_vsincos.c).
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
