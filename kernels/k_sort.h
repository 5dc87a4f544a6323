/* sort and top-k (operation semantics "Sort"; HLO `topk` / custom-call TopK).
 *
 * Sort permutes all operands together along `dim`.  Results are always
 * stable (ties keep their original order), which satisfies both
 * is_stable=true and =false.
 *
 * Known comparators (KComparator.kind LT/GT on operand `key`):
 *   - total_order (compare type=TOTALORDER): -NaN < -Inf < ... < -0 < +0 <
 *     ... < +Inf < +NaN, bit patterns as XLA's total order;
 *   - default FLOAT comparison: -0 and +0 are equal (ties: original order)
 *     and every NaN sorts after all numbers for LT (before them for GT).  A
 *     NaN makes XLA's comparator an invalid strict weak order, so this
 *     placement is our documented choice;
 *   - integers by value, pred false < true.  Complex keys need a callback.
 * Any other comparator is a KCompareFn called on whole vectors of pairs (a
 * bitonic network: log^2 n calls, each comparing up to rows*n/2 pairs). */
#ifndef HLO_KERNELS_K_SORT_H
#define HLO_KERNELS_K_SORT_H

#include "kernels/k_types.h"

/* out[j] = comparator(a[0][j], b[0][j], a[1][j], b[1][j], ...) for j < n:
 * a[k] holds values of operand k at the "left" position, b[k] at the right
 * one (XLA's parameters 2k and 2k+1); true means left sorts before right. */
typedef bool (*KCompareFn)(void *ctx, int nops, const void *const *a, const void *const *b,
                           uint8_t *out, int64_t n, Error *err);

typedef enum { K_CMP_CALLBACK = 0, K_CMP_LT, K_CMP_GT } KCompareKind;

typedef struct KComparator {
  KCompareKind kind;
  int key;          /* operand compared by LT/GT */
  bool total_order; /* compare type=TOTALORDER */
  KCompareFn fn;
  void *ctx;
} KComparator;

bool k_sort(int nops, const KArray *operands, int64_t dim, const KComparator *c, KArray *outs,
            Error *err);

/* Top-k along the last dimension: values (operand type) and s32 indices of
 * the k largest (smallest when !largest) elements per row, in order, ties by
 * lower index; floats in total order (NaN above +Inf). */
bool k_topk(const KArray *operand, int64_t k, bool largest, KArray *values, KArray *indices,
            Error *err);

#endif
