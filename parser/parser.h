/* Parsing HLO text into the IR (hlo-text.md). */
#ifndef HLO_PARSER_PARSER_H
#define HLO_PARSER_PARSER_H

#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/error.h"
#include "parser/ir.h"

/* Parses a whole module.  text must have a NUL at text[len] (the lexer's
 * sentinel); a NUL inside the text is an error.  On failure returns NULL and
 * appends one or more diagnostics (byte offsets into text).  The module keeps
 * pointers to filename and text for later diagnostics. */
Module *parse_module(const char *filename, const char *text, size_t len, Diags *diags);

/* Parses text[0..len) as exactly one shape with its layout, as written in
 * a module ("f32[8,128]{1,0:T(8,128)S(1)}", "(f32[2], s32[])", "b(...)"),
 * by the module grammar (no NUL needed after it).  Arrays without a
 * layout get the default one.  As no verifier follows, the layout is also
 * checked against the shape: minor_to_major a permutation, tile sizes
 * positive with '*' never last, E(n) sensible for the type, split configs
 * in range, the element count within int64.  The shape lives in arena.
 * On error returns false with err->kind ERR_INVALID and err->offset the
 * byte of text the first problem is at. */
bool parse_shape_text(const char *text, size_t len, Arena *arena, Shape *out, Error *err);

#endif
