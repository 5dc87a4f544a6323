/* The structured-sparsity attribute of a dot, "L.1@2:4" or
 * "L.1@2:4_R.0@2:4" (XLA's SparsityDescriptor list, printed by
 * HloDotInstruction): the named operand (L = lhs, R = rhs) holds n of every
 * m values along dimension dim, and one metadata operand per descriptor
 * follows lhs and rhs, in descriptor order. */
#ifndef HLO_PARSER_DOT_SPARSITY_H
#define HLO_PARSER_DOT_SPARSITY_H

#include <stdint.h>

typedef struct DotSparsity {
  int side; /* 0 lhs, 1 rhs */
  int64_t dim, n, m;
} DotSparsity;

/* Parses up to max descriptors into out; returns how many, or -1 when s is
 * malformed (NULL and "" parse as none). */
int dot_sparsity_parse(const char *s, DotSparsity *out, int max);

#endif
