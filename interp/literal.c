/* XLA's literal text format (xla/literal.cc DenseArrayToStringHelper,
 * TupleToStringHelper). */
#include "interp/literal.h"

#include <inttypes.h>

#include "layout/etype_convert.h"

void literal_print_shape(StrBuf *sb, EType t, int rank, const int64_t *dims) {
  sb_printf(sb, "%s[", etype_name(t));
  for (int d = 0; d < rank; d++) sb_printf(sb, "%s%" PRId64, d ? "," : "", dims[d]);
  sb_putc(sb, ']');
}

typedef struct {
  StrBuf *sb;
  EType t;
  int rank, esz;
  const int64_t *dims;
  const char *data;
  int64_t next; /* next element, row-major */
  int64_t idx[64];
} Printer;

/* `depth` = number of indices fixed so far; dims[depth..] remain. */
static void print_rec(Printer *p, int depth) {
  StrBuf *sb = p->sb;
  int left = p->rank - depth;
  if (left == 0) {
    etype_format(sb, p->t, p->data + p->next * p->esz, p->t == ET_PRED && p->rank == 0);
    p->next++;
    return;
  }
  int64_t n = p->dims[depth];
  /* opening brace */
  if (p->rank == 1) {
    sb_putc(sb, '{');
  } else if (left == 1) {
    sb_puts(sb, n <= 1 ? "  {" : "  { ");
  } else if (p->rank > 3 && depth > 0) {
    sb_printf(sb, "{ /*i%d=%" PRId64 "*/\n", depth - 1, p->idx[depth - 1]);
  } else {
    sb_puts(sb, "{\n");
  }
  for (int64_t i = 0; i < n; i++) {
    p->idx[depth] = i;
    print_rec(p, depth + 1);
    if (i < n - 1) sb_puts(sb, left > 1 ? ",\n" : ", ");
  }
  /* closing brace */
  if (p->rank == 1) sb_putc(sb, '}');
  else if (left == 1) sb_puts(sb, n <= 1 ? "}" : " }");
  else sb_puts(sb, "\n}");
}

/* XLA's dynamic literal header: "s32[2,<=2,2](2,1,2)". */
static void print_dynamic_shape(StrBuf *sb, EType t, int rank, const int64_t *sizes,
                                const int64_t *bounds, const bool *dynamic) {
  sb_printf(sb, "%s[", etype_name(t));
  for (int d = 0; d < rank; d++)
    sb_printf(sb, "%s%s%" PRId64, d ? "," : "", dynamic[d] ? "<=" : "", bounds[d]);
  sb_puts(sb, "](");
  for (int d = 0; d < rank; d++) sb_printf(sb, "%s%" PRId64, d ? "," : "", sizes[d]);
  sb_putc(sb, ')');
}

static void print_elements(StrBuf *sb, EType t, int rank, const int64_t *dims, const void *data) {
  if (rank > 64) rank = 64;
  Printer p = {sb, t, rank, etype_storage_bytes(t), dims, data, 0, {0}};
  print_rec(&p, 0);
}

void literal_print_array(StrBuf *sb, EType t, int rank, const int64_t *dims, const void *data,
                         bool print_shape) {
  if (print_shape) {
    literal_print_shape(sb, t, rank, dims);
    sb_putc(sb, ' ');
  }
  print_elements(sb, t, rank, dims, data);
}

static void print_array_node(StrBuf *sb, const LiteralNode *node, bool print_shape) {
  bool dynamic = false;
  for (int d = 0; node->dynamic && d < node->rank; d++) dynamic |= node->dynamic[d];
  if (!dynamic || !node->bounds) {
    literal_print_array(sb, node->etype, node->rank, node->dims, node->data, print_shape);
    return;
  }
  if (print_shape) {
    print_dynamic_shape(sb, node->etype, node->rank, node->dims, node->bounds, node->dynamic);
    sb_putc(sb, ' ');
  }
  print_elements(sb, node->etype, node->rank, node->dims, node->data);
}

void literal_print(StrBuf *sb, const LiteralNode *node, bool print_shape) {
  if (node->etype == ET_TUPLE) {
    sb_puts(sb, "(\n");
    for (int i = 0; i < node->count; i++) {
      if (i) sb_puts(sb, ",\n");
      literal_print(sb, &node->elems[i], print_shape);
    }
    sb_puts(sb, "\n)");
    return;
  }
  if (node->etype == ET_TOKEN) {
    sb_puts(sb, "token");
    return;
  }
  print_array_node(sb, node, print_shape);
}
