/* parser/opcodes.def, read here with a macro of its own: the columns agree
 * with the tables they name (kernels.h ids and spellings, OPF_* flags,
 * attribute keys), as a hand-edited row could break them. */
#include <criterion/criterion.h>
#include <string.h>

#include "kernels/kernels.h"
#include "parser/ir.h"

enum { K_IS_NONE, K_IS_UNARY, K_IS_BINARY, K_IS_OWN };

typedef struct Row {
  Opcode op;
  const char *name;
  OpClass cls;
  const char *eval; /* the eval column's function name */
  int kernel_kind, kernel_id;
  unsigned flags;
  AttrKey required[8];
} Row;

static const Row rows[] = {
#define KU(id) K_IS_UNARY, KU_##id
#define KB(id) K_IS_BINARY, KB_##id
#define KE(kind) K_IS_OWN, 0
#define K_NONE K_IS_NONE, 0
#define REQ(key) ATTR_##key,
#define NOATTRS
#define OPCODE(id, text, lo, hi, cls, infer, eval, kernel, flags, mixed, buffer, required) \
  {OP_##id, text, cls, #eval, kernel, flags, {required ATTR_UNKNOWN}},
#include "parser/opcodes.def"
#undef OPCODE
};
enum { NROWS = sizeof rows / sizeof rows[0] };

Test(optable, one_row_per_opcode_in_enum_order) {
  cr_assert_eq(NROWS, OP_COUNT - 1);
  for (int i = 0; i < NROWS; i++) {
    cr_expect_eq(rows[i].op, (Opcode)(i + 1), "row %d", i);
    cr_expect_str_eq(opcode_name(rows[i].op), rows[i].name);
    cr_expect_eq(opcode_flags(rows[i].op), rows[i].flags, "%s", rows[i].name);
  }
}

/* KU(x) / KB(x) name the kernel of the same HLO spelling, and every kernel
 * id is used by exactly one row. */
Test(optable, kernel_column_matches_kernels_h) {
  int unary_uses[KU_COUNT] = {0}, binary_uses[KB_COUNT] = {0};
  for (int i = 0; i < NROWS; i++) {
    const Row *r = &rows[i];
    if (r->kernel_kind == K_IS_UNARY) {
      cr_expect_str_eq(k_unary_name((KUnaryOp)r->kernel_id), r->name);
      cr_expect_eq(r->cls, OPC_UNARY, "%s", r->name);
      unary_uses[r->kernel_id]++;
    } else if (r->kernel_kind == K_IS_BINARY) {
      cr_expect_str_eq(k_binary_name((KBinaryOp)r->kernel_id), r->name);
      cr_expect_eq(r->cls, OPC_BINARY, "%s", r->name);
      binary_uses[r->kernel_id]++;
    }
  }
  for (int k = 0; k < KU_COUNT; k++) cr_expect_eq(unary_uses[k], 1, "%s", k_unary_name((KUnaryOp)k));
  for (int k = 0; k < KB_COUNT; k++)
    cr_expect_eq(binary_uses[k], 1, "%s", k_binary_name((KBinaryOp)k));
}

/* Every binary op has a kernel; the unary ops without one are exactly copy
 * (a layout change) and reduce-precision (its own entry point). */
Test(optable, elementwise_rows_have_kernels) {
  for (int i = 0; i < NROWS; i++) {
    const Row *r = &rows[i];
    if (r->cls == OPC_BINARY) cr_expect_eq(r->kernel_kind, K_IS_BINARY, "%s", r->name);
    if (r->cls != OPC_UNARY || r->kernel_kind == K_IS_UNARY) continue;
    cr_expect(r->op == OP_COPY || (r->op == OP_REDUCE_PRECISION && r->kernel_kind == K_IS_OWN),
              "%s", r->name);
  }
}

/* Ops too cheap to time only hand values on: they are never traffic. */
/* The evaluators that serve several rows dispatch again inside: each row
 * naming one must be one its own table knows (eval_movement.c move_of,
 * eval_elementwise.c's kernel column). */
Test(optable, shared_evaluators_name_their_ops) {
  static const char *const moves[] = {"broadcast", "reshape", "transpose", "slice", "reverse"};
  int nmove = 0;
  for (int i = 0; i < NROWS; i++) {
    bool is_move = false;
    for (size_t k = 0; k < sizeof moves / sizeof moves[0]; k++)
      is_move |= strcmp(rows[i].name, moves[k]) == 0;
    cr_expect_eq(strcmp(rows[i].eval, "eval_move") == 0, is_move, "%s: %s", rows[i].name,
                 rows[i].eval);
    nmove += is_move;
    if (strcmp(rows[i].eval, "eval_elementwise") == 0)
      cr_expect_neq(rows[i].kernel_kind, K_IS_NONE, "%s has no kernel", rows[i].name);
  }
  cr_expect_eq(nmove, 5);
}

Test(optable, untimed_ops_are_not_traffic) {
  for (int i = 0; i < NROWS; i++)
    if (rows[i].flags & OPF_UNTIMED)
      cr_expect(rows[i].flags & OPF_NO_TRAFFIC, "%s", rows[i].name);
}

/* XLA's IsUnaryOpWithResultAccuracy, written out by hand: exactly these
 * ops take result_accuracy. */
Test(optable, result_accuracy_ops) {
  static const char *const takes[] = {"exponential", "exponential-minus-one", "log",
                                      "log-plus-one", "logistic", "rsqrt", "sqrt", "cbrt",
                                      "tanh", "tan", "cosine", "sine"};
  int found = 0;
  for (int i = 0; i < NROWS; i++) {
    bool listed = false;
    for (size_t k = 0; k < sizeof takes / sizeof takes[0]; k++)
      listed |= strcmp(rows[i].name, takes[k]) == 0;
    cr_expect_eq(!!(rows[i].flags & OPF_RESULT_ACCURACY), listed, "%s", rows[i].name);
    found += listed;
  }
  cr_expect_eq(found, 12);
}

/* Hand-checked against XLA's parser: gather's five required attributes, in
 * the row's order, and none for add. */
Test(optable, required_attributes) {
  const Row *g = &rows[OP_GATHER - 1], *a = &rows[OP_ADD - 1];
  AttrKey want[] = {ATTR_OFFSET_DIMS, ATTR_COLLAPSED_SLICE_DIMS, ATTR_START_INDEX_MAP,
                    ATTR_INDEX_VECTOR_DIM, ATTR_SLICE_SIZES, ATTR_UNKNOWN};
  for (int k = 0; k < 6; k++) cr_expect_eq(g->required[k], want[k], "gather attribute %d", k);
  cr_expect_eq(a->required[0], ATTR_UNKNOWN);
}
