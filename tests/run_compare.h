/* Shared by the tests that compare two runs of one module byte for byte
 * (test_threads.c: thread counts; test_fused_runs.c: fused against op by
 * op). */
#ifndef HLO_TESTS_RUN_COMPARE_H
#define HLO_TESTS_RUN_COMPARE_H

#include <criterion/criterion.h>
#include <string.h>

#include "interp/run.h"

/* Every leaf of r has ref's bytes; what names the runs in the message. */
static inline void assert_same_leaves(const RunResult *r, const RunResult *ref, const char *what) {
  cr_assert_eq(r->nleaves, ref->nleaves, "%s: leaf counts differ", what);
  for (int k = 0; k < r->nleaves; k++) {
    cr_assert_eq(r->leaves[k].nbytes, ref->leaves[k].nbytes, "%s: leaf %d sizes differ", what, k);
    cr_assert(r->leaves[k].nbytes > 0, "%s: leaf %d is empty", what, k);
    cr_assert(memcmp(r->leaves[k].data, ref->leaves[k].data, (size_t)r->leaves[k].nbytes) == 0,
              "%s: leaf %d differs", what, k);
  }
}

#endif
