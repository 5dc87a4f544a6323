/* XLA's literal text format (xla/literal.cc DenseArrayToStringHelper,
 * TupleToStringHelper). */
#include "interp/io/literal.h"

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
  bool summarise; /* this leaf is over the threshold */
  const LiteralPrintOptions *opt;
  int64_t stride[64]; /* elements, row-major */
  int64_t idx[64];
} Printer;

enum { FLUSH_BYTES = 1 << 20 };

static void maybe_flush(Printer *p) {
  if (p->opt->flush && p->sb->len >= FLUSH_BYTES) p->opt->flush(p->opt->flush_ctx, p->sb);
}

/* `depth` = number of indices fixed so far; dims[depth..] remain; `offset`
 * = the element the fixed indices point to. */
static void print_rec(Printer *p, int depth, int64_t offset) {
  StrBuf *sb = p->sb;
  int left = p->rank - depth;
  if (left == 0) {
    etype_format(sb, p->t, p->data + offset * p->esz, p->t == ET_PRED && p->rank == 0);
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
  const char *sep = left > 1 ? ",\n" : ", ";
  bool elide = p->summarise && n > 2 * LITERAL_EDGE_ITEMS;
  bool flat = left == 1 && !elide; /* the hot loop of full printing */
  if (flat) {
    /* written straight into sb, with room reserved for many elements at a
     * time */
    enum { BLOCK = 16384 };
    size_t room = 0;
    for (int64_t i = 0; i < n; i++) {
      if (room < ETYPE_TEXT_MAX + 2) {
        maybe_flush(p);
        if (!sb_reserve(sb, BLOCK)) return; /* out of memory: sb->oom says so */
        room = BLOCK;
      }
      char *o = sb->data + sb->len;
      size_t len = (size_t)etype_format_to(o, p->t, p->data + (offset + i) * p->esz, false);
      if (i < n - 1) {
        o[len++] = ',';
        o[len++] = ' ';
      }
      sb->len += len;
      room -= len;
    }
    if (sb->data) sb->data[sb->len] = '\0';
  }
  for (int64_t i = 0; !flat && i < n; i++) {
    if (elide && i == LITERAL_EDGE_ITEMS) {
      /* one "..." item for the middle, indented as the items it replaces
       * (rows of the innermost dimension print indented by two) */
      sb_puts(sb, left == 2 ? "  ..." : "...");
      sb_puts(sb, sep);
      i = n - LITERAL_EDGE_ITEMS;
    }
    p->idx[depth] = i;
    print_rec(p, depth + 1, offset + i * p->stride[depth]);
    if (i < n - 1) sb_puts(sb, sep);
    if (left == 1) maybe_flush(p);
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

/* dims are the sizes to print (a dynamic array's runtime sizes). */
static void print_elements(StrBuf *sb, EType t, int rank, const int64_t *dims, const void *data,
                           const LiteralPrintOptions *opt) {
  if (rank > 64) rank = 64;
  Printer p = {sb, t, rank, etype_storage_bytes(t), dims, data, false, opt, {0}, {0}};
  int64_t count = 1;
  for (int d = rank - 1; d >= 0; d--) {
    p.stride[d] = count;
    count *= dims[d];
  }
  p.summarise = opt->summarise && count > LITERAL_SUMMARY_THRESHOLD;
  print_rec(&p, 0, 0);
}

static void print_array_node(StrBuf *sb, const LiteralNode *node, const LiteralPrintOptions *opt) {
  bool dynamic = false;
  for (int d = 0; node->dynamic && d < node->rank; d++) dynamic |= node->dynamic[d];
  if (opt->print_shape) {
    if (dynamic && node->bounds)
      print_dynamic_shape(sb, node->etype, node->rank, node->dims, node->bounds, node->dynamic);
    else
      literal_print_shape(sb, node->etype, node->rank, node->dims);
    sb_putc(sb, ' ');
  }
  print_elements(sb, node->etype, node->rank, node->dims, node->data, opt);
}

void literal_print_with(StrBuf *sb, const LiteralNode *node, const LiteralPrintOptions *opt) {
  if (node->etype == ET_TUPLE) {
    sb_puts(sb, "(\n");
    for (int i = 0; i < node->count; i++) {
      if (i) sb_puts(sb, ",\n");
      literal_print_with(sb, &node->elems[i], opt);
    }
    sb_puts(sb, "\n)");
    return;
  }
  if (node->etype == ET_TOKEN) {
    sb_puts(sb, "token");
    return;
  }
  print_array_node(sb, node, opt);
}

void literal_print_array(StrBuf *sb, EType t, int rank, const int64_t *dims, const void *data,
                         bool print_shape) {
  LiteralNode node = {.etype = t, .rank = rank, .dims = dims, .data = data};
  LiteralPrintOptions opt = {.print_shape = print_shape};
  print_array_node(sb, &node, &opt);
}

void literal_print(StrBuf *sb, const LiteralNode *node, bool print_shape) {
  LiteralPrintOptions opt = {.print_shape = print_shape};
  literal_print_with(sb, node, &opt);
}
