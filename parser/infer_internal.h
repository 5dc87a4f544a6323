/* Helpers shared by the infer_*.c files (not a public interface).
 *
 * Every inference function has the shape
 *     bool infer_<group>(InferCtx *c, Shape *out)
 * and reports problems through infer_fail(), which prefixes the opcode name
 * ("add: operand shapes f32[3] and f32[4] are not compatible"). */
#ifndef HLO_PARSER_INFER_INTERNAL_H
#define HLO_PARSER_INFER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "parser/infer.h"

typedef struct InferCtx {
  const Instr *in;
  const Module *module; /* may be NULL */
  Arena *arena;         /* scratch for the inferred shape and messages */
  Error *err;
} InferCtx;

/* --- failing --------------------------------------------------------- */
/* At the opcode (the usual place for operand problems). */
bool infer_fail(InferCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* At an attribute (attr may be NULL: then at the opcode). */
bool infer_fail_attr(InferCtx *c, const Attr *attr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *infer_str(InferCtx *c, const Shape *s); /* infer_shape_str in the scratch arena */
const char *infer_ints_str(InferCtx *c, const int64_t *v, int n); /* "{1,2}" */

/* --- operands -------------------------------------------------------- */
static inline const Shape *infer_oshape(const InferCtx *c, int i) {
  return &c->in->operands[i]->shape;
}
/* Operand i must be a dense array (not a tuple, token or opaque). */
bool infer_need_array(InferCtx *c, int i);
bool infer_need_arrays(InferCtx *c, int first, int count);
/* Operand i must be a scalar of an integer type (start indices, sizes). */
bool infer_need_int_scalar(InferCtx *c, int i, const char *what);
bool infer_need_token(InferCtx *c, int i);
/* Operand i must be a tuple with at least n elements. */
bool infer_need_tuple(InferCtx *c, int i, int n);

/* --- attributes ------------------------------------------------------ */
/* Finds key; when required and absent fails with
 * "missing required attribute 'name'".  *out is NULL when absent. */
bool infer_attr(InferCtx *c, AttrKey key, bool required, const Attr **out);
/* Int list attribute (empty when absent and not required). */
bool infer_attr_ints(InferCtx *c, AttrKey key, bool required, IntList *out, const Attr **attr);
/* Int attribute, dflt when absent and not required. */
bool infer_attr_int(InferCtx *c, AttrKey key, bool required, int64_t dflt, int64_t *out);
/* A called computation (to_apply=, calls=, ...). */
bool infer_attr_comp(InferCtx *c, AttrKey key, bool required, const Computation **out);
/* Each entry in [0, rank), no repeats. */
bool infer_check_dims(InferCtx *c, const Attr *attr, const char *what, const int64_t *dims,
                      int n, int rank);
/* A required list attribute of distinct dimension numbers below rank. */
bool infer_attr_dims(InferCtx *c, AttrKey key, int rank, IntList *out, const Attr **attr);
/* dims is a permutation of 0..n-1. */
bool infer_is_permutation(const int64_t *dims, int n);

/* --- element types ----------------------------------------------------- */
bool infer_same_etype_ignoring_fp(EType a, EType b);
EType infer_complex_component(EType t); /* c64 -> f32, c128 -> f64, other -> t */
bool infer_is_numeric(EType t);         /* int, float or complex */

/* --- building shapes --------------------------------------------------- */
/* Array with default layout; dynamic may be NULL. */
bool infer_make_array(InferCtx *c, Shape *out, EType t, int rank, const int64_t *dims,
                      const bool *dynamic);
/* Copy of src with another element type (dims shared with src). */
void infer_with_etype(Shape *out, const Shape *src, EType t);
/* Tuple of n elements, left zeroed for the caller to fill. */
bool infer_make_tuple(InferCtx *c, Shape *out, int n);
/* Scalar of type t. */
bool infer_make_scalar(InferCtx *c, Shape *out, EType t);
/* Dynamic flag of dim i. */
static inline bool infer_dim_dynamic(const Shape *s, int i) {
  return s->dynamic && s->dynamic[i];
}
/* Temporary int64 array in scratch. */
int64_t *infer_i64(InferCtx *c, int n);
bool *infer_bools(InferCtx *c, int n);
/* Both of the above for a result of rank n (zeroed); false (with an error)
 * when out of memory. */
bool infer_dims_buf(InferCtx *c, int n, int64_t **dims, bool **dyn);

/* --- called computations ---------------------------------------------- */
/* comp takes n parameters whose shapes match shapes[0..n-1] (ignore_fp as in
 * infer_shapes_match); what names it in messages ("to_apply"). */
bool infer_check_params(InferCtx *c, const Attr *attr, const Computation *comp,
                        const char *what, int n, const Shape *const *shapes, bool ignore_fp);
/* A reducer: 2k scalar parameters (accumulators then elements) returning a
 * scalar (k == 1) or a tuple of k scalars.  acc[i] receives the accumulator
 * element types.  inits/elements as element types. */
bool infer_check_reducer(InferCtx *c, const Attr *attr, const Computation *comp, int k,
                         const EType *init_types, const EType *elem_types, EType *acc);

/* --- windows ----------------------------------------------------------- */
/* Output size of one windowed dimension (dilations, padding, stride), with
 * overflow and range checks. */
bool infer_window_out(InferCtx *c, const Attr *attr, int64_t in, const WindowDim *w,
                      int64_t *out);

/* --- the groups (one file each) ---------------------------------------- */
bool infer_elementwise(InferCtx *c, Shape *out); /* unary (incl. copy, reduce-precision), binary,
                                                    compare, select, clamp, map */
bool infer_convert(InferCtx *c, Shape *out);     /* convert, bitcast-convert, stochastic-convert,
                                                    bitcast */
bool infer_shape_op(InferCtx *c, Shape *out);    /* broadcast, reshape, transpose, slice, pad... */
bool infer_reduce(InferCtx *c, Shape *out);      /* reduce, reduce-window, select-and-scatter,
                                                    sort, topk */
bool infer_conv_dot(InferCtx *c, Shape *out);    /* dot, ragged-dot, convolution, fft, linear
                                                    algebra, batch norm */
bool infer_gather_scatter(InferCtx *c, Shape *out);
bool infer_collective(InferCtx *c, Shape *out);
bool infer_control(InferCtx *c, Shape *out);     /* calls, loops, tuples, async, I/O, rng... */
bool infer_scan(InferCtx *c, Shape *out);        /* scan */

#endif
