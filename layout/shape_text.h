/* Parsing one HLO shape with layout from text (hlo-text.md section 4), for
 * command-line arguments such as hlolayout's SHAPE.  The module parser in
 * parser/ has its own grammar; this is a small stand-alone recursive descent
 * that accepts the same shape syntax. */
#ifndef HLO_LAYOUT_SHAPE_TEXT_H
#define HLO_LAYOUT_SHAPE_TEXT_H

#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "layout/shape.h"

/* Parses text[0..len) as exactly one shape (whitespace allowed between
 * tokens).  Arrays without a layout get the default one.  Besides syntax it
 * checks what can be pinned to a token: minor_to_major a permutation of the
 * right length, tile sizes positive, '*' not last in a tile, E(n) sensible
 * for the type, suffixes in XLA's fixed order and each at most once, no P(..)
 * on a dense array, ranks and element counts within limits.  On error
 * returns false with err->kind = ERR_INVALID and err->offset the byte the
 * problem is at. */
bool shape_parse_text(Arena *arena, const char *text, size_t len, Shape **out, Error *err);

#endif
