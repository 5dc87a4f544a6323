/* The f32 vector operations the register-tile kernels (k_conv_direct_isa.h,
 * k_conv_wgrad_isa.h) are written in, for one instruction set: define
 * K_VEC_AVX512 or K_VEC_AVX2, then include this, then the tile header
 * (which ends with k_vec_f32_undef.h).  No include guard: included once per
 * instruction set.
 *   VT vector type, VL floats per vector; VZERO() VLOAD(p) VSET1(x)
 *   VFMA(a, b, c) = a * b + c with one rounding, VADD(a, b), VSTORE(p, v);
 *   VLOAD_N(p, n), VSTORE_N(p, v, n): the first n < VL floats only (the
 *   others neither read nor written: no fault past the end of an array). */
#include <immintrin.h>

#if defined(K_VEC_AVX512)
#define VT __m512
#define VL 16
#define VZERO() _mm512_setzero_ps()
#define VLOAD(p) _mm512_loadu_ps(p)
#define VSET1(x) _mm512_set1_ps(x)
#define VFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define VADD(a, b) _mm512_add_ps(a, b)
#define VSTORE(p, v) _mm512_storeu_ps(p, v)
#define VSTORE_N(p, v, n) _mm512_mask_storeu_ps(p, (__mmask16)((1u << (n)) - 1), v)
#define VLOAD_N(p, n) _mm512_maskz_loadu_ps((__mmask16)((1u << (n)) - 1), p)
#undef K_VEC_AVX512
#elif defined(K_VEC_AVX2)
#ifndef K_VEC_MASK8
#define K_VEC_MASK8
/* The lanes of a masked AVX2 load or store: the first n (< 8). */
__attribute__((target("avx2"))) static inline __m256i k_vec_mask8(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
#endif
#define VT __m256
#define VL 8
#define VZERO() _mm256_setzero_ps()
#define VLOAD(p) _mm256_loadu_ps(p)
#define VSET1(x) _mm256_set1_ps(x)
#define VFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define VADD(a, b) _mm256_add_ps(a, b)
#define VSTORE(p, v) _mm256_storeu_ps(p, v)
#define VSTORE_N(p, v, n) _mm256_maskstore_ps(p, k_vec_mask8(n), v)
#define VLOAD_N(p, n) _mm256_maskload_ps(p, k_vec_mask8(n))
#undef K_VEC_AVX2
#else
#error "k_vec_f32.h: define K_VEC_AVX512 or K_VEC_AVX2 first"
#endif
