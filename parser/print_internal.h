/* Helpers shared by the printer's files (print.c, print_attr.c,
 * print_literal.c).  Not part of the library's interface. */
#ifndef HLO_PARSER_PRINT_INTERNAL_H
#define HLO_PARSER_PRINT_INTERNAL_H

#include "base/strbuf.h"
#include "parser/ir.h"

/* XLA puts an index comment ("index=N" in a C comment) before every fifth
 * element of long lists (operands, tuple shapes, entry layout parameters). */
enum { PRINT_INDEX_INTERVAL = 5 };

/* Separator before list element i: "", ", " or ", " plus the index comment. */
void print_list_sep(StrBuf *sb, int i);
/* "%name". */
void print_name(StrBuf *sb, const char *name);
/* A quoted string, escaped as absl::CEscape does. */
void print_string(StrBuf *sb, const char *s);
/* A shape with layouts; tuples get index comments. */
void print_shape(StrBuf *sb, const Shape *s);
void print_shape_list(StrBuf *sb, const Shape *shapes, int n);
/* One float element as etype_format writes it, but "-0.0" for -0. */
void print_float_value(StrBuf *sb, EType t, const void *elem);

/* ", name=value" for every attribute of the instruction, in XLA's order. */
void print_instr_attrs(StrBuf *sb, const Instr *instr);
/* ", name=value" for every module header attribute, in XLA's order. */
void print_header_attrs(StrBuf *sb, const Module *m);
/* Position of an attribute key in the canonical order (0 = first); keys
 * without a place return -1 (they print after all others). */
int print_attr_order(AttrKey key);

#endif
