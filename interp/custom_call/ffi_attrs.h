/* The attributes of a typed-FFI custom call, read from its backend_config
 * as XLA reads them: the text is an MLIR dictionary attribute,
 *
 *   backend_config={alpha = 2.500000e-01 : f32, n = 3 : i32, name = "x",
 *                   axes = array<i64: 0, 2>, flag = true, opts = {k = 1 : ui8}}
 *
 * and each entry becomes one attribute of the handler's call frame:
 *
 *   INT : iN / siN / uiN        SCALAR S8..S64 / U8..U64 (no type: i64)
 *   FLOAT : f32 / f64           SCALAR F32 / F64 (no type: f64)
 *   true, false                 SCALAR PRED
 *   "text"                      STRING
 *   array<T: v, ...>            ARRAY of T (i1, i8..i64, f32, f64)
 *   {...}                       DICTIONARY (nested, same rules)
 *
 * Entries are sorted by name (byte order) as MLIR keeps a dictionary, so a
 * handler may binary-search them.  Anything else (dense<...> tensors,
 * dialect attributes, f16 scalars, a unit attribute, a repeated name) is an
 * error naming the entry: XLA refuses these too, and a handler must never
 * see a guessed value. */
#ifndef HLO_INTERP_CUSTOM_CALL_FFI_ATTRS_H
#define HLO_INTERP_CUSTOM_CALL_FFI_ATTRS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "hlotools/ffi/c_api.h"

/* Parses text[0..len) (a dictionary "{...}", or empty for no attributes)
 * into *out, every part allocated in arena.  Errors are ERR_INVALID with
 * offset base + the byte offset in text. */
bool ffi_attrs_parse(const char *text, size_t len, Arena *arena, int64_t base,
                     XLA_FFI_Attrs *out, Error *err);

/* Bytes of one scalar or array element of the types attributes take
 * (PRED, S8..S64, U8..U64, F32, F64). */
int ffi_attrs_value_bytes(XLA_FFI_DataType t);

#endif
