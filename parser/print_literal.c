/* Literals in XLA's one-line text form (Literal::PrintWithoutShapeOneline):
 *   scalar    1.5            pred scalar  true
 *   rank 1    {1, 2, 3}      pred array   {1, 0, 1}
 *   rank 2    { { 1, 2 }, { 3, 4 } }      inner lists of <= 1 element: {1}
 *   rank > 3  levels below the outermost carry an index comment "i0=1"
 *   tuple     ( 1, {2, 3} )  elided       {...}
 * Values themselves come from etype_format (layout/etype_convert.h). */
#include <string.h>

#include "layout/etype_convert.h"
#include "parser/print.h"
#include "parser/print_internal.h"

typedef struct {
  StrBuf *sb;
  const Shape *shape;
  const unsigned char *data;
  int64_t stride; /* bytes per element */
  int64_t next;   /* index of the next element to print */
  int64_t index[SHAPE_MAX_RANK];
} LiteralCursor;

/* etype_format, except that a negative zero is written "-0.0": "-0" would
 * read back as the integer 0, that is +0. */
void print_float_value(StrBuf *sb, EType t, const void *elem) {
  size_t start = sb->len;
  etype_format(sb, t, elem, false);
  if (sb->len - start == 2 && memcmp(sb->data + start, "-0", 2) == 0) sb_puts(sb, ".0");
}

static void print_complex_value(StrBuf *sb, EType t, const unsigned char *elem) {
  EType part = t == ET_C64 ? ET_F32 : ET_F64;
  size_t half = (size_t)etype_storage_bytes(t) / 2;
  sb_putc(sb, '(');
  print_float_value(sb, part, elem);
  sb_puts(sb, ", ");
  print_float_value(sb, part, elem + half);
  sb_putc(sb, ')');
}

static void print_element(LiteralCursor *c) {
  const unsigned char *elem = c->data + c->next * c->stride;
  EType t = c->shape->etype;
  if (etype_is_complex(t))
    print_complex_value(c->sb, t, elem);
  else if (etype_is_float(t))
    print_float_value(c->sb, t, elem);
  else
    etype_format(c->sb, t, elem, c->shape->rank == 0);
  c->next++;
}

static void print_open_brace(LiteralCursor *c, int level, int64_t n) {
  int rank = c->shape->rank;
  if (rank == 1) {
    sb_putc(c->sb, '{');
  } else if (level == rank - 1) {
    sb_puts(c->sb, n <= 1 ? "{" : "{ ");
  } else if (rank > 3 && level > 0) {
    sb_printf(c->sb, "{ /*i%d=%lld*/%s", level - 1, (long long)c->index[level - 1],
              n > 0 ? " " : "");
  } else {
    sb_puts(c->sb, "{ ");
  }
}

static void print_close_brace(LiteralCursor *c, int level, int64_t n) {
  int rank = c->shape->rank;
  if (rank == 1)
    sb_putc(c->sb, '}');
  else if (level == rank - 1)
    sb_puts(c->sb, n <= 1 ? "}" : " }");
  else
    sb_puts(c->sb, " }");
}

static void print_level(LiteralCursor *c, int level) {
  if (level == c->shape->rank) {
    print_element(c);
    return;
  }
  int64_t n = c->shape->dims[level];
  print_open_brace(c, level, n);
  for (int64_t i = 0; i < n; i++) {
    if (i) sb_puts(c->sb, ", ");
    c->index[level] = i;
    print_level(c, level + 1);
  }
  print_close_brace(c, level, n);
}

static bool literal_has_values(const Literal *lit) {
  int64_t count;
  if (lit->elided || lit->shape.rank > SHAPE_MAX_RANK) return false;
  if (!shape_element_count(&lit->shape, &count)) return false;
  int64_t stride = etype_storage_bytes(lit->shape.etype);
  return count == 0 || (lit->data && stride > 0 && lit->nbytes >= count * stride);
}

static void print_tuple_literal(StrBuf *sb, const Literal *lit) {
  sb_puts(sb, "( ");
  for (int i = 0; i < lit->ntuple; i++) {
    if (i) sb_puts(sb, ", ");
    print_literal(sb, &lit->tuple[i]);
  }
  sb_puts(sb, " )");
}

void print_literal(StrBuf *sb, const Literal *lit) {
  if (shape_is_tuple(&lit->shape) && !lit->elided) {
    print_tuple_literal(sb, lit);
    return;
  }
  if (lit->shape.etype == ET_TOKEN) {
    sb_puts(sb, "token");
    return;
  }
  if (!literal_has_values(lit)) {
    sb_puts(sb, "{...}");
    return;
  }
  LiteralCursor c = {.sb = sb, .shape = &lit->shape, .data = lit->data};
  c.stride = etype_storage_bytes(lit->shape.etype);
  print_level(&c, 0);
}
