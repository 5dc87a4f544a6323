/* rng-bit-generator (three_fry, philox), bit-exact with XLA's expansion
 * (xla/service/rng_bit_generator_expander.cc + xla/hlo/builder/lib/prng.cc),
 * and rng uniform / normal.
 *
 * rng-bit-generator state is u64[n], n >= 2 (XLA's expander slices the key
 * and counter out of it, so shorter states are errors there too):
 *   three_fry: [key, counter, ...]; the new state is [key, counter + c, ...]
 *     where c is the number of 2x32 blocks used;
 *   philox: n == 2: [key, counter] (the key also serves as the counter's
 *     high word and is not advanced); n >= 3: [key, counter_lo, counter_hi,
 *     ...]; the 128-bit counter advances by the number of 4x32 blocks used.
 *   Words after the key and counter are not used and are returned unchanged
 *   (XLA's expansion builds only [key, counter'], see k_rng.c).
 * Output element types: any integer or float type of width 4..64 bits
 * (the bits land in the element's storage; widths < 32 take the low bits of
 * 32-bit draws, as XLA); pred and complex are errors.
 * K_RNG_DEFAULT is what XLA's CPU backend picks for RNG_DEFAULT: philox. */
#ifndef HLO_KERNELS_K_RNG_H
#define HLO_KERNELS_K_RNG_H

#include "kernels/k_types.h"

typedef enum { K_RNG_DEFAULT = 0, K_RNG_THREE_FRY, K_RNG_PHILOX } KRngAlgorithm;

bool k_rng_bit_generator(KRngAlgorithm alg, const uint64_t *state, int nstate,
                         uint64_t *new_state, KArray *out, Error *err);

/* The block functions (Random123: Threefry-2x32 with 20 rounds, Philox-4x32
 * with 10 rounds), exposed for known-answer tests. */
void k_threefry2x32(const uint32_t key[2], const uint32_t ctr[2], uint32_t out[2]);
void k_philox4x32(const uint32_t key[2], const uint32_t ctr[4], uint32_t out[4]);

/* XlaBuilder's ScramblePhiloxKey(key) (prng.cc), the value XLA's MLIR test
 * pass gives the custom call xla_builder.prng.ScramblePhiloxKey: one
 * Philox-4x32 block of counter {lo32(key), 0, hi32(key), 0} under the fixed
 * key {0x3ec8f720, 0x02461e29}; the new key is words 0 (low) and 1 (high)
 * of the block. */
uint64_t k_scramble_philox_key(uint64_t key);

/* rng with RNG_UNIFORM / RNG_NORMAL.  XLA's CPU backend draws these from a
 * process-global state that cannot be reproduced, so these use XLA's own
 * distribution code (prng.cc: mantissa-bits uniform floats, Rem-based
 * uniform ints, Box-Muller normals) over philox bits from *state, a u64[2]
 * [key, counter] that is advanced.  uniform: [a, b) for floats and integers
 * (types f16/bf16/f32/f64, s32/s64/u32/u64); normal: float types. */
bool k_rng_uniform(const void *a, const void *b, uint64_t state[2], KArray *out, Error *err);
bool k_rng_normal(const void *mu, const void *sigma, uint64_t state[2], KArray *out, Error *err);

#endif
