/* Parsing HLO text into the IR (hlo-text.md). */
#ifndef HLO_PARSER_PARSER_H
#define HLO_PARSER_PARSER_H

#include <stddef.h>

#include "base/diag.h"
#include "parser/ir.h"

/* Parses a whole module.  text must have a NUL at text[len] (the lexer's
 * sentinel); a NUL inside the text is an error.  On failure returns NULL and
 * appends one or more diagnostics (byte offsets into text).  The module keeps
 * pointers to filename and text for later diagnostics. */
Module *parse_module(const char *filename, const char *text, size_t len, Diags *diags);

#endif
