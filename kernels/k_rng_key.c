/* XlaBuilder's ScramblePhiloxKey (k_rng.h). */
#include "kernels/k_rng.h"

uint64_t k_scramble_philox_key(uint64_t key) {
  /* prng.cc widens each 32-bit half to u64 and then takes its bits 32..63
   * as the next state word, which is always 0: the state is
   * {lo, 0, hi, 0}. */
  const uint32_t state[4] = {(uint32_t)key, 0, (uint32_t)(key >> 32), 0};
  static const uint32_t scramble_key[2] = {0x3ec8f720u, 0x02461e29u};
  uint32_t out[4];
  k_philox4x32(scramble_key, state, out);
  return (uint64_t)out[0] | (uint64_t)out[1] << 32;
}
