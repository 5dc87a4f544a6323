#include <criterion/criterion.h>

#include "kernels/k_sparse.h"
#include "ktest.h"

/* One row, two groups: positions (0, 2) and (1, 3) -> nibbles 0b1000 and
 * 0b1101, the first group's in the low bits. */
Test(k_sparse, row_of_two_groups) {
  float packed[4] = {1, 2, 3, 4}, dense[8];
  uint16_t meta[1] = {0x8 | (0xD << 4)};
  int64_t pd[] = {1, 4}, md[] = {1, 1}, dd[] = {1, 8};
  KArray P = ka(ET_F32, 2, pd, packed), M = ka(ET_U16, 2, md, meta), D = ka(ET_F32, 2, dd, dense);
  Error err;
  cr_assert(k_sparse_expand_2_4(&P, 1, &M, &D, &err), "%s", err.msg);
  float want[8] = {1, 0, 2, 0, 0, 3, 0, 4};
  for (int i = 0; i < 8; i++) cr_expect_eq(dense[i], want[i], "element %d", i);
}

/* Sparse dimension 0 with a dimension after it: metadata word [0, j] holds
 * column j's groups; bf16 values widened to the f32 compute type; s64 adds
 * two values given the same position. */
Test(k_sparse, leading_dimension_and_types) {
  uint16_t packed[4] = {0x3f80, 0x4000, 0x4040, 0x4080}; /* bf16 1, 2, 3, 4: [2, 2] */
  uint16_t meta[2] = {0x4 /* (0, 1) */, 0xE /* (2, 3) */};
  float dense[8];
  int64_t pd[] = {2, 2}, md[] = {1, 2}, dd[] = {4, 2};
  KArray P = ka(ET_BF16, 2, pd, packed), M = ka(ET_U16, 2, md, meta), D = ka(ET_F32, 2, dd, dense);
  Error err;
  cr_assert(k_sparse_expand_2_4(&P, 0, &M, &D, &err), "%s", err.msg);
  /* column 0: values 1, 3 at rows 0, 1; column 1: values 2, 4 at rows 2, 3 */
  float want[8] = {1, 0, 3, 0, 0, 2, 0, 4};
  for (int i = 0; i < 8; i++) cr_expect_eq(dense[i], want[i], "element %d", i);
  int32_t iv[2] = {5, -7};
  int64_t out[4], ipd[] = {2}, imd[] = {1}, idd[] = {4};
  uint16_t same[1] = {0x5}; /* both at position 1 */
  KArray IP = ka(ET_S32, 1, ipd, iv), IM = ka(ET_U16, 1, imd, same), ID = ka(ET_S64, 1, idd, out);
  cr_assert(k_sparse_expand_2_4(&IP, 0, &IM, &ID, &err), "%s", err.msg);
  cr_expect(out[0] == 0 && out[1] == -2 && out[2] == 0 && out[3] == 0);
}

Test(k_sparse, errors) {
  float packed[3] = {0}, dense[6];
  uint16_t meta[2] = {0};
  int64_t pd[] = {3}, md[] = {1}, dd[] = {6}, pd4[] = {4}, md2[] = {2}, dd8[] = {8};
  Error err;
  KArray P = ka(ET_F32, 1, pd, packed), M = ka(ET_U16, 1, md, meta), D = ka(ET_F32, 1, dd, dense);
  cr_expect_not(k_sparse_expand_2_4(&P, 0, &M, &D, &err)); /* odd stored count */
  float p4[4] = {0}, d8[8];
  KArray P4 = ka(ET_F32, 1, pd4, p4), M2 = ka(ET_U16, 1, md2, meta), D8 = ka(ET_F32, 1, dd8, d8);
  cr_expect_not(k_sparse_expand_2_4(&P4, 0, &M2, &D8, &err)); /* metadata too long */
  KArray M1 = ka(ET_U16, 1, md, meta), D8b = ka(ET_BF16, 1, dd8, d8);
  cr_expect_not(k_sparse_expand_2_4(&P4, 0, &M1, &D8b, &err)); /* not a compute type */
  KArray MS = ka(ET_S16, 1, md, meta);
  cr_expect_not(k_sparse_expand_2_4(&P4, 0, &MS, &D8, &err)); /* metadata not u16 */
  cr_expect_not(k_sparse_expand_2_4(&P4, 1, &M1, &D8, &err)); /* no such dimension */
}
