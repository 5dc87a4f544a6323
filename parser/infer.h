/* Shape inference: what XLA's ShapeInference computes for one instruction
 * from its operands and attributes.  Shared by the verifier (which compares
 * the result with the declared shape) and by anyone who wants the shape an
 * instruction must have (the interpreter). */
#ifndef HLO_PARSER_INFER_H
#define HLO_PARSER_INFER_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/error.h"
#include "parser/ir.h"

/* Checks operand count, operand element types and attributes of instr and
 * computes its result shape into *out (allocated in scratch; may share
 * read-only parts with the module).  Ops whose shape is not determined by
 * their operands (parameter, constant, custom-call, iota, ...) yield the
 * declared shape after their own checks.  On a problem returns false with
 * err->offset pointing at the opcode or the offending attribute. */
bool infer_shape(const Instr *instr, Arena *scratch, Shape *out, Error *err);

/* The same, with the module's replica/partition counts for collectives
 * (m may be NULL: group sizes then come from replica_groups only). */
bool infer_shape_in_module(const Module *m, const Instr *instr, Arena *scratch, Shape *out,
                           Error *err);

/* Compatibility as XLA's verifier sees it: element types and dimension sizes
 * equal, layouts and dynamic markers ignored, '?' matches any size.  With
 * ignore_fp, two floating-point element types also match each other. */
bool infer_shapes_match(const Shape *a, const Shape *b, bool ignore_fp);

/* Of two floating-point types, the one XLA computes a mixed-precision op in
 * (more bits; the lhs on a tie); a for any other pair. */
EType infer_higher_precision(EType a, EType b);

/* Shape without layout, as in XLA messages: "f32[2,<=3]", "(f32[], s32[])". */
const char *infer_shape_str(Arena *arena, const Shape *s);

#endif
