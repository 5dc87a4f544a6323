/* Type changes: convert, bitcast-convert, stochastic-convert, bitcast.  The
 * target element type (and for bitcast the whole shape) comes from the
 * declared result shape. */
#include "parser/infer_internal.h"

#include "layout/layout.h"

static bool declared_array(InferCtx *c) {
  const Shape *d = &c->in->shape;
  if (shape_is_array(d) && d->etype != ET_TOKEN && d->etype != ET_OPAQUE) return true;
  return infer_fail(c, "result must be an array, declared %s", infer_str(c, d));
}

static bool infer_convert_op(InferCtx *c, Shape *out) {
  if (!infer_need_array(c, 0) || !declared_array(c)) return false;
  const Shape *s = infer_oshape(c, 0);
  /* xla/service/shape_inference.cc InferConvertShape */
  if (etype_is_complex(s->etype) && !etype_is_complex(c->in->shape.etype))
    return infer_fail(c, "conversion from complex to real type %s => %s is not implemented",
                      infer_str(c, s), etype_name(c->in->shape.etype));
  infer_with_etype(out, s, c->in->shape.etype);
  return true;
}

/* Same bits reinterpreted: equal widths keep the dims; a narrower result
 * gains a minor dimension of size ratio; a wider one consumes it. */
static bool infer_bitcast_convert(InferCtx *c, Shape *out) {
  if (!infer_need_array(c, 0) || !declared_array(c)) return false;
  const Shape *s = infer_oshape(c, 0);
  EType from = s->etype, to = c->in->shape.etype;
  if (etype_is_complex(from) != etype_is_complex(to))
    return infer_fail(c, "conversion between complex and real type %s => %s", infer_str(c, s),
                      etype_name(to));
  int in_bits = etype_bits(from), out_bits = etype_bits(to);
  int lo = in_bits < out_bits ? in_bits : out_bits, hi = in_bits ^ out_bits ^ lo;
  if (lo <= 0 || hi % lo != 0)
    return infer_fail(c, "cannot bitcast types with indivisible bit widths: %s => %s",
                      etype_name(from), etype_name(to));
  int64_t ratio = hi / lo;
  if (in_bits == out_bits) {
    infer_with_etype(out, s, to);
    return true;
  }
  if (in_bits > out_bits) {
    if (s->rank >= SHAPE_MAX_RANK) return infer_fail(c, "result rank exceeds %d", SHAPE_MAX_RANK);
    int64_t *dims;
    bool *dyn;
    if (!infer_dims_buf(c, s->rank + 1, &dims, &dyn)) return false;
    for (int i = 0; i < s->rank; i++) {
      dims[i] = s->dims[i];
      dyn[i] = infer_dim_dynamic(s, i);
    }
    dims[s->rank] = ratio;
    return infer_make_array(c, out, to, s->rank + 1, dims, dyn);
  }
  if (s->rank < 1 || s->dims[s->rank - 1] != ratio)
    return infer_fail(c, "last dimension of %s must equal the bit-width ratio %lld for %s => %s",
                      infer_str(c, s), (long long)ratio, etype_name(from), etype_name(to));
  return infer_make_array(c, out, to, s->rank - 1, s->dims, s->dynamic);
}

static bool infer_stochastic_convert(InferCtx *c, Shape *out) {
  if (!infer_need_arrays(c, 0, 2) || !declared_array(c)) return false;
  const Shape *s = infer_oshape(c, 0), *r = infer_oshape(c, 1);
  if (etype_kind(r->etype) != EK_UINT)
    return infer_fail(c, "random bits must be unsigned integers, got %s", infer_str(c, r));
  if (!etype_is_float(s->etype))
    return infer_fail(c, "operand must be floating point, got %s", infer_str(c, s));
  if (etype_bits(s->etype) != etype_bits(r->etype))
    return infer_fail(c, "random bits %s must have the width of the operand %s", infer_str(c, r),
                      infer_str(c, s));
  Shape rs;
  infer_with_etype(&rs, r, s->etype);
  if (!infer_shapes_match(&rs, s, false))
    return infer_fail(c, "operand %s and random bits %s have different dimensions",
                      infer_str(c, s), infer_str(c, r));
  infer_with_etype(out, s, c->in->shape.etype);
  return true;
}

/* Bytes of a dense array as XLA's ByteSizeOf counts them (tiling ignored). */
static bool byte_size(const Shape *s, int64_t *out) {
  int64_t n;
  if (!shape_element_count(s, &n)) return false;
  int64_t bits = s->layout.element_size_bits;
  if (bits > 0) {
    if (__builtin_mul_overflow(n, bits, &n)) return false;
    *out = n / 8 + (n % 8 != 0);
    return true;
  }
  return !__builtin_mul_overflow(n, (int64_t)etype_storage_bytes(s->etype), out);
}

/* Bytes of the buffer with its tiling (tile padding included), or false when
 * the layout cannot be planned (then the logical size decides). */
static bool physical_size(const Shape *s, int64_t *out) {
  LayoutPlan plan;
  Error err = {0};
  if (!layout_plan_init(&plan, s, &err)) return false;
  *out = plan.physical_bytes;
  layout_plan_free(&plan);
  return true;
}

/* Reinterprets the buffer: any shape of the same byte size, counted either
 * logically or physically -- f32[33708,1024]{1,0:T(8,128)} pads its rows to
 * 33712 and is the very buffer of f32[33712,8,128]{2,1,0:T(8,128)}
 * (latency_hiding_scheduler_test).  XLA's default verifier checks no size
 * at all; the layout-sensitive one allows equal data sizes.  We check sizes
 * as the layout-sensitive one does when the module is written with layouts
 * (as XLA prints modules), and not at all when no shape carries one: the
 * evaluator then refuses a bitcast whose sizes differ when it runs. */
static bool infer_bitcast(InferCtx *c, Shape *out) {
  if (!infer_need_array(c, 0) || !declared_array(c)) return false;
  const Shape *s = infer_oshape(c, 0), *d = &c->in->shape;
  int64_t a, b, pa, pb;
  bool layout_sensitive = !c->module || c->module->has_layouts;
  if (layout_sensitive && byte_size(s, &a) && byte_size(d, &b) && a != b &&
      !(physical_size(s, &pa) && physical_size(d, &pb) && pa == pb))
    return infer_fail(c, "result %s (%lld bytes) and operand %s (%lld bytes) differ in size",
                      infer_str(c, d), (long long)b, infer_str(c, s), (long long)a);
  *out = *d;
  return true;
}

bool infer_convert(InferCtx *c, Shape *out) {
  switch (c->in->op) {
    case OP_CONVERT: return infer_convert_op(c, out);
    case OP_BITCAST_CONVERT: return infer_bitcast_convert(c, out);
    case OP_STOCHASTIC_CONVERT: return infer_stochastic_convert(c, out);
    default: return infer_bitcast(c, out);
  }
}
