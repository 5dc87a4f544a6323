/* The cost model's rules: one row per opcode family (cost_rule_of, as Lua's
 * lopcodes.c keeps an op's properties in one table), each rule the one of
 * XLA's HloCostAnalysis (xla/service/hlo_cost_analysis.cc) for that op. */
#include "interp/cost_model.h"

#include <math.h>
#include <string.h>

#include "interp/eval_views.h"

typedef enum {
  CR_BY_CLASS,        /* elementwise when opcodes.def's class says unary/binary, else none */
  CR_NONE,            /* no flops: data movement, bookkeeping, control flow */
  CR_ELEMENTWISE,     /* 1 flop per result element */
  CR_TRANSCENDENTAL,  /* 1 transcendental per result element */
  CR_DOT,             /* 2 * result elements * contracted size */
  CR_CONVOLUTION,     /* 2 * multiply-adds at valid (unpadded) kernel positions */
  CR_REDUCE,          /* (input - output elements) * to_apply */
  CR_REDUCE_WINDOW,   /* (window - 1) * output elements * to_apply */
  CR_MAP,             /* result elements * to_apply */
  CR_SCATTER,         /* update elements * to_apply */
  CR_SELECT_SCATTER,  /* source * (window - 1) * select + source * scatter */
  CR_FUSION,          /* its body */
  CR_SORT,            /* n * ceil(log2 n) */
  CR_FFT,             /* 2 * 4 * prod(floor(log2 fft_length)) * input elements */
  CR_ALL_REDUCE,      /* 1 flop per result element */
  CR_RNG,             /* 1 transcendental per result element (state included) */
  CR_TRIANGULAR,      /* 2 * a's last dimension * elements of b */
  CR_CHOLESKY,        /* a's last dimension * elements of a / 3 */
} CostRule;

/* Ops not listed follow their class.  COPY is unary in opcodes.def but XLA
 * counts no flops for it (HandleCopy). */
static const unsigned char cost_rule_of[OP_COUNT] = {
    [OP_COPY] = CR_NONE,
    [OP_EXPONENTIAL] = CR_TRANSCENDENTAL, [OP_EXPONENTIAL_MINUS_ONE] = CR_TRANSCENDENTAL,
    [OP_LOG] = CR_TRANSCENDENTAL,         [OP_LOG_PLUS_ONE] = CR_TRANSCENDENTAL,
    [OP_LOGISTIC] = CR_TRANSCENDENTAL,    [OP_POWER] = CR_TRANSCENDENTAL,
    [OP_SQRT] = CR_TRANSCENDENTAL,        [OP_CBRT] = CR_TRANSCENDENTAL,
    [OP_RSQRT] = CR_TRANSCENDENTAL,       [OP_TANH] = CR_TRANSCENDENTAL,
    [OP_SINE] = CR_TRANSCENDENTAL,        [OP_COSINE] = CR_TRANSCENDENTAL,
    [OP_TAN] = CR_TRANSCENDENTAL,         [OP_ATAN2] = CR_TRANSCENDENTAL,
    [OP_ERF] = CR_TRANSCENDENTAL,
    [OP_CLAMP] = CR_ELEMENTWISE,          [OP_COMPARE] = CR_ELEMENTWISE,
    [OP_CONVERT] = CR_ELEMENTWISE,        [OP_SELECT] = CR_ELEMENTWISE,
    [OP_STOCHASTIC_CONVERT] = CR_ELEMENTWISE,
    [OP_DOT] = CR_DOT,
    [OP_CONVOLUTION] = CR_CONVOLUTION,
    [OP_REDUCE] = CR_REDUCE,
    [OP_REDUCE_WINDOW] = CR_REDUCE_WINDOW,
    [OP_MAP] = CR_MAP,
    [OP_SCATTER] = CR_SCATTER,
    [OP_SELECT_AND_SCATTER] = CR_SELECT_SCATTER,
    [OP_FUSION] = CR_FUSION,
    [OP_SORT] = CR_SORT,
    [OP_FFT] = CR_FFT,
    [OP_ALL_REDUCE] = CR_ALL_REDUCE,      [OP_ALL_REDUCE_START] = CR_ALL_REDUCE,
    [OP_RNG] = CR_RNG,                    [OP_RNG_BIT_GENERATOR] = CR_RNG,
    [OP_TRIANGULAR_SOLVE] = CR_TRIANGULAR,
    [OP_CHOLESKY] = CR_CHOLESKY,
};

static CostRule rule_of(const Instr *in) {
  CostRule r = (unsigned)in->op < OP_COUNT ? (CostRule)cost_rule_of[in->op] : CR_NONE;
  if (r != CR_BY_CLASS) return r;
  OpClass c = opcode_class(in->op);
  return c == OPC_UNARY || c == OPC_BINARY ? CR_ELEMENTWISE : CR_NONE;
}

/* Elements of an array shape (1 for rank 0); of a tuple, of its first
 * element (XLA's rules look at the first result of variadic ops). */
static double elems(const Shape *s) {
  while (shape_is_tuple(s) && s->ntuple > 0) s = &s->tuple[0];
  if (!shape_is_array(s)) return 0;
  double n = 1;
  for (int i = 0; i < s->rank; i++) n *= (double)s->dims[i];
  return n;
}

/* Elements of every array leaf (XLA's ElementsInRecursive). */
static double elems_all(const Shape *s) {
  if (!shape_is_tuple(s)) return shape_is_array(s) ? elems(s) : 0;
  double n = 0;
  for (int i = 0; i < s->ntuple; i++) n += elems_all(&s->tuple[i]);
  return n;
}

static int64_t dim(const Shape *s, int64_t d) {
  return d >= 0 && d < s->rank ? s->dims[d] : 1;
}

enum { MAX_NEST = 64 }; /* computations applied within computations */

static CostFlops flops_at(const Instr *in, int depth);

/* One run of a computation: the sum of its instructions. */
static CostFlops comp_flops(const Computation *c, int depth) {
  CostFlops f = {0, 0};
  if (!c || depth >= MAX_NEST) return f;
  for (int i = 0; i < c->ninstrs; i++) {
    CostFlops g = flops_at(c->instrs[i], depth + 1);
    f.flops += g.flops;
    f.transcendentals += g.transcendentals;
  }
  return f;
}

static CostFlops scaled(CostFlops f, double k) {
  return (CostFlops){f.flops * k, f.transcendentals * k};
}

static double window_elems(const Instr *in) {
  const Attr *a = ir_attr(in, ATTR_WINDOW);
  double n = 1;
  if (a && a->kind == AV_WINDOW)
    for (int i = 0; i < a->v.window.rank; i++) n *= (double)a->v.window.dims[i].size;
  return n;
}

/* Kernel and output positions of one spatial dimension that meet an input
 * element (not padding, not a hole of base dilation): XLA's
 * valid_position_count, by its loop. */
static double valid_positions(int64_t in_n, int64_t k_n, int64_t out_n, const WindowDim *w) {
  int64_t stride = w ? w->stride : 1, lo = w ? w->pad_lo : 0;
  int64_t base = w && w->lhs_dilate > 0 ? w->lhs_dilate : 1;
  int64_t wdil = w && w->rhs_dilate > 0 ? w->rhs_dilate : 1;
  double n = 0;
  for (int64_t k = 0; k < k_n; k++)
    for (int64_t o = 0; o < out_n; o++) {
      int64_t u = o * stride - lo + k * wdil; /* index in the base-dilated input */
      if (u < 0 || u % base) continue;
      if (u / base < in_n) n += 1;
    }
  return n;
}

static double conv_flops(const Instr *in) {
  const Attr *dl = ir_attr(in, ATTR_DIM_LABELS);
  if (!dl || dl->kind != AV_CONV_DIMS || in->noperands < 2) return 0;
  const ConvDims *cd = &dl->v.conv;
  const Shape *lhs = &in->operands[0]->shape, *rhs = &in->operands[1]->shape, *out = &in->shape;
  const Attr *wa = ir_attr(in, ATTR_WINDOW);
  const Window *win = wa && wa->kind == AV_WINDOW ? &wa->v.window : NULL;
  double positions = 1;
  for (int s = 0; s < cd->nspatial; s++)
    positions *= valid_positions(dim(lhs, cd->input_spatial[s]), dim(rhs, cd->kernel_spatial[s]),
                                 dim(out, cd->output_spatial[s]),
                                 win && s < win->rank ? &win->dims[s] : NULL);
  int64_t fgc = eval_attr_int(in, ATTR_FEATURE_GROUP_COUNT, 1);
  int64_t bgc = eval_attr_int(in, ATTR_BATCH_GROUP_COUNT, 1);
  /* integer divisions, as XLA's */
  double fma = (double)(dim(lhs, cd->input_feature) / (fgc > 0 ? fgc : 1)) *
               (double)dim(out, cd->output_feature) *
               (double)(dim(lhs, cd->input_batch) / (bgc > 0 ? bgc : 1)) * positions;
  return 2 * fma;
}

/* XLA counts (window - 1) * outputs reductions, except for a window that
 * reduces one dimension and broadcasts it back (padding size - 1 on both
 * sides): outputs / size + size - 1. */
static double reduce_window_count(const Instr *in) {
  const Attr *a = ir_attr(in, ATTR_WINDOW);
  double out = elems(&in->shape), w = window_elems(in);
  if (!a || a->kind != AV_WINDOW) return (w - 1) * out;
  const Window *win = &a->v.window;
  int reducing = 0, padded = 0, dimr = -1;
  for (int i = 0; i < win->rank; i++) {
    const WindowDim *d = &win->dims[i];
    reducing += d->size != 1;
    padded += d->pad_lo != 0 || d->pad_hi != 0;
    if (dimr < 0 && d->size != 1 && d->pad_lo != 0 && d->pad_lo == d->pad_hi &&
        d->size == 2 * d->pad_lo + 1)
      dimr = i;
  }
  if (reducing == 1 && padded == 1 && !shape_is_tuple(&in->shape) && dimr >= 0 &&
      win->dims[dimr].pad_lo == dim(&in->shape, dimr) - 1) {
    double n = (double)dim(&in->shape, dimr);
    return floor(out / n) + (n - 1);
  }
  return (w - 1) * out;
}

static double log2_floor(double n) { return n >= 1 ? floor(log2(n)) : 0; }

static CostFlops flops_at(const Instr *in, int depth) {
  CostFlops f = {0, 0};
  const Shape *op0 = in->noperands > 0 ? &in->operands[0]->shape : NULL;
  switch (rule_of(in)) {
  case CR_BY_CLASS:
  case CR_NONE:
    break;
  case CR_ELEMENTWISE:
    f.flops = elems(&in->shape);
    break;
  case CR_TRANSCENDENTAL:
    f.transcendentals = elems(&in->shape);
    break;
  case CR_DOT: {
    const IntList *lc = eval_attr_ints(in, ATTR_LHS_CONTRACTING_DIMS);
    double k = 1;
    for (int i = 0; lc && op0 && i < lc->n; i++) k *= (double)dim(op0, lc->v[i]);
    f.flops = 2 * elems(&in->shape) * k;
    break;
  }
  case CR_CONVOLUTION:
    f.flops = conv_flops(in);
    break;
  case CR_REDUCE:
    if (op0)
      f = scaled(comp_flops(eval_attr_comp(in, ATTR_TO_APPLY), depth),
                 elems(op0) - elems(&in->shape));
    break;
  case CR_REDUCE_WINDOW:
    f = scaled(comp_flops(eval_attr_comp(in, ATTR_TO_APPLY), depth), reduce_window_count(in));
    break;
  case CR_MAP:
    f = scaled(comp_flops(eval_attr_comp(in, ATTR_TO_APPLY), depth), elems(&in->shape));
    break;
  case CR_SCATTER: { /* operands, indices, updates: updates[0] is at n + 1 */
    int n = (in->noperands - 1) / 2;
    if (in->noperands >= 3)
      f = scaled(comp_flops(eval_attr_comp(in, ATTR_TO_APPLY), depth),
                 elems(&in->operands[n + 1]->shape));
    break;
  }
  case CR_SELECT_SCATTER:
    if (in->noperands >= 2) {
      double src = elems(&in->operands[1]->shape);
      CostFlops sel = scaled(comp_flops(eval_attr_comp(in, ATTR_SELECT), depth),
                             src * (window_elems(in) - 1));
      CostFlops sc = scaled(comp_flops(eval_attr_comp(in, ATTR_SCATTER), depth), src);
      f = (CostFlops){sel.flops + sc.flops, sel.transcendentals + sc.transcendentals};
    }
    break;
  case CR_FUSION:
    f = comp_flops(eval_attr_comp(in, ATTR_CALLS), depth);
    break;
  case CR_SORT:
    if (op0) {
      double n = elems(op0);
      f.flops = n > 1 ? n * ceil(log2(n)) : 0;
    }
    break;
  case CR_FFT: {
    const IntList *len = eval_attr_ints(in, ATTR_FFT_LENGTH);
    double lf = 1;
    for (int i = 0; len && i < len->n; i++) lf *= log2_floor((double)len->v[i]);
    if (op0) f.flops = 2 * 4 * lf * elems(op0);
    break;
  }
  case CR_ALL_REDUCE:
    f.flops = elems_all(&in->shape);
    break;
  case CR_RNG:
    f.transcendentals = elems_all(&in->shape);
    break;
  case CR_TRIANGULAR:
    if (in->noperands >= 2)
      f.flops = 2 * (double)dim(op0, op0->rank - 1) * elems(&in->operands[1]->shape);
    break;
  case CR_CHOLESKY:
    if (op0) f.flops = floor((double)dim(op0, op0->rank - 1) * elems(op0) / 3);
    break;
  }
  return f;
}

CostFlops cost_flops(const Instr *in) { return flops_at(in, 0); }

static int class_of_type(EType t) {
  switch (t) {
  case ET_BF16: return PEAK_BF16;
  case ET_F16: return PEAK_F16;
  case ET_F64: case ET_C128: return PEAK_F64;
  default: break;
  }
  ETypeKind k = etype_kind(t);
  if ((k == EK_SINT || k == EK_UINT) && etype_bits(t) <= 8) return PEAK_INT8;
  /* 8-bit and smaller floats run through the bf16 units */
  if (k == EK_FLOAT && etype_bits(t) < 16) return PEAK_BF16;
  return PEAK_F32;
}

static EType first_array_type(const Shape *s) {
  while (shape_is_tuple(s) && s->ntuple > 0) s = &s->tuple[0];
  return s->etype;
}

static int peak_class_at(const Instr *in, int depth) {
  if ((in->op == OP_DOT || in->op == OP_CONVOLUTION) && in->noperands > 0)
    return class_of_type(first_array_type(&in->operands[0]->shape));
  if (in->op == OP_FUSION && depth < MAX_NEST) {
    const Computation *c = eval_attr_comp(in, ATTR_CALLS);
    const Instr *best = NULL;
    double most = 0;
    for (int i = 0; c && i < c->ninstrs; i++) {
      CostFlops f = flops_at(c->instrs[i], depth + 1);
      if (f.flops + f.transcendentals > most) {
        most = f.flops + f.transcendentals;
        best = c->instrs[i];
      }
    }
    if (best) return peak_class_at(best, depth + 1);
  }
  return class_of_type(first_array_type(&in->shape));
}

int cost_peak_class(const Instr *in) { return peak_class_at(in, 0); }

double cost_peak(const double peak_flops[PEAK_NTYPES], int cls) {
  if (cls >= 0 && cls < PEAK_NTYPES && peak_flops[cls] > 0) return peak_flops[cls];
  return peak_flops[PEAK_F32];
}

CostEstimate cost_estimate(CostFlops f, double peak, const int64_t *space_bytes,
                           const MemSystem *mem) {
  CostEstimate e = {0, 0, 0, COST_BOUND_NONE, -1};
  if (peak > 0) e.compute_s = fmax(f.flops, f.transcendentals) / peak;
  for (int k = 0; space_bytes && k < mem->nspaces; k++) {
    const MemSpace *s = &mem->spaces[k];
    double bytes = (double)(space_bytes[2 * k] + space_bytes[2 * k + 1]);
    if (s->bandwidth <= 0 || bytes <= 0) continue;
    double t = bytes / s->bandwidth;
    if (t > e.memory_s) {
      e.memory_s = t;
      e.bound_space = s->id;
    }
  }
  e.time_s = fmax(e.compute_s, e.memory_s);
  if (e.time_s > 0) e.bound = e.compute_s >= e.memory_s ? COST_BOUND_COMPUTE : COST_BOUND_MEMORY;
  if (e.bound != COST_BOUND_MEMORY) e.bound_space = -1;
  return e;
}

const char *cost_bound_name(CostBound b) {
  return b == COST_BOUND_COMPUTE ? "compute" : b == COST_BOUND_MEMORY ? "memory" : "none";
}
