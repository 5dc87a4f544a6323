/* The printer: IR back to canonical HLO text.  Printing is a fixed point:
 * print(parse(print(m))) == print(m). */
#ifndef HLO_PARSER_PRINT_H
#define HLO_PARSER_PRINT_H

#include "base/strbuf.h"
#include "parser/ir.h"

void print_module(StrBuf *sb, const Module *m);
void print_instr(StrBuf *sb, const Instr *instr);
void print_literal(StrBuf *sb, const Literal *lit);

#endif
