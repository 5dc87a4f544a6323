/* The verifier driver: module structure (one entry, unique names, resolved
 * calls, signatures, entry_computation_layout), layouts of every shape, and
 * for each instruction the shape inference of infer.c compared with the
 * declared result shape.  Problems become diagnostics; nothing is printed. */
#include "parser/verify.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "parser/infer.h"

typedef struct {
  const Module *m;
  Diags *diags;
  Arena *scratch;
  int since_reset;
  bool ok;
} Verifier;

#define REPORT(v, off, ...)                 \
  do {                                      \
    diags_add((v)->diags, (off), __VA_ARGS__); \
    (v)->ok = false;                        \
  } while (0)

/* Shape with layout, in the scratch arena, for layout messages. */
static const char *with_layout(Verifier *v, const Shape *s) {
  StrBuf sb;
  sb_init(&sb);
  shape_print(&sb, s);
  const char *r = arena_strndup(v->scratch, sb.data ? sb.data : "", sb.len);
  sb_free(&sb);
  return r ? r : "?";
}

/* ---------------------------------------------------------------------------
 * Shapes and layouts (XLA's ShapeUtil::ValidateShape and
 * LayoutUtil::ValidateLayoutForShape, plus tiles and E(n)). */

static bool valid_tile(const Tile *t, int rank) {
  if (t->rank < 1) return false;
  for (int i = 0; i < t->rank; i++) {
    int64_t d = t->dims[i];
    if (d == TILE_DIM_COMBINE) {
      /* Combines with the next more minor dimension, which must exist. */
      if (i == t->rank - 1 || t->rank > rank) return false;
    } else if (d < 1) {
      return false;
    }
  }
  return true;
}

static void print_tile(StrBuf *sb, const Tile *t) {
  sb_putc(sb, '(');
  for (int i = 0; i < t->rank; i++) {
    if (i) sb_putc(sb, ',');
    if (t->dims[i] == TILE_DIM_COMBINE)
      sb_putc(sb, '*');
    else
      sb_printf(sb, "%lld", (long long)t->dims[i]);
  }
  sb_putc(sb, ')');
}

static int min_element_bits(EType t) { return t == ET_PRED ? 1 : etype_bits(t); }

/* Writes the first problem of array shape s into why; false if any. */
static bool check_array_layout(const Shape *s, StrBuf *why) {
  const Layout *l = &s->layout;
  if (s->rank < 0 || s->rank > SHAPE_MAX_RANK) {
    sb_printf(why, "rank %d is out of range (at most %d)", s->rank, SHAPE_MAX_RANK);
    return false;
  }
  for (int i = 0; i < s->rank; i++)
    if (s->dims[i] < 0 && s->dims[i] != SHAPE_DIM_UNBOUNDED) {
      sb_printf(why, "dimension %d has negative size %lld", i, (long long)s->dims[i]);
      return false;
    }
  if (s->etype == ET_TOKEN || s->etype == ET_OPAQUE) return true;
  if (l->rank != s->rank) {
    sb_printf(why, "layout has %d minor_to_major entries but the shape has rank %d", l->rank, s->rank);
    return false;
  }
  for (int i = 0; i < l->rank; i++) {
    bool bad = l->minor_to_major[i] < 0 || l->minor_to_major[i] >= s->rank;
    for (int j = 0; !bad && j < i; j++) bad = l->minor_to_major[j] == l->minor_to_major[i];
    if (bad) {
      sb_puts(why, "minor_to_major {");
      for (int k = 0; k < l->rank; k++)
        sb_printf(why, k ? ",%lld" : "%lld", (long long)l->minor_to_major[k]);
      sb_printf(why, "} is not a permutation of 0..%d", s->rank - 1);
      return false;
    }
  }
  for (int i = 0; i < l->ntiles; i++)
    if (!valid_tile(&l->tiles[i], s->rank)) {
      sb_puts(why, "invalid tile ");
      print_tile(why, &l->tiles[i]);
      sb_puts(why, l->tiles[i].rank < 1 ? ": a tile needs at least one dimension"
                                        : ": tile sizes must be positive ('*' only before another "
                                          "dimension, within the shape's rank)");
      return false;
    }
  int64_t e = l->element_size_bits;
  if (e < 0 || (e > 0 && (e < min_element_bits(s->etype) || e > 8 * etype_storage_bytes(s->etype)))) {
    sb_printf(why, "element size E(%lld) is not valid for %s (%d to %d bits)", (long long)e,
              etype_name(s->etype), min_element_bits(s->etype), 8 * etype_storage_bytes(s->etype));
    return false;
  }
  if (l->tail_padding_alignment < 1) {
    sb_printf(why, "tail padding alignment L(%lld) must be positive", (long long)l->tail_padding_alignment);
    return false;
  }
  if (l->memory_space < 0) {
    sb_printf(why, "memory space S(%lld) must not be negative", (long long)l->memory_space);
    return false;
  }
  if (l->dynamic_metadata_bytes < 0) {
    sb_printf(why, "dynamic shape metadata M(%lld) must not be negative", (long long)l->dynamic_metadata_bytes);
    return false;
  }
  if (l->index_type != ET_INVALID || l->pointer_type != ET_INVALID || l->physical_shape) {
    sb_puts(why, "index/pointer types and physical shapes are only valid for sparse arrays");
    return false;
  }
  for (int i = 0; i < l->nsplits; i++)
    if (l->splits[i].dimension < 0 || l->splits[i].dimension >= s->rank) {
      sb_printf(why, "split config dimension %lld is out of range", (long long)l->splits[i].dimension);
      return false;
    }
  return true;
}

static bool check_shape(const Shape *s, StrBuf *why, int depth) {
  if (depth > 1000) {
    sb_puts(why, "tuple nesting too deep");
    return false;
  }
  if (s->etype == ET_TUPLE || s->etype == ET_BUFFER) {
    for (int i = 0; i < s->ntuple; i++)
      if (!check_shape(&s->tuple[i], why, depth + 1)) return false;
    return true;
  }
  if (!etype_is_array(s->etype)) {
    sb_puts(why, "invalid element type");
    return false;
  }
  return check_array_layout(s, why);
}

/* Reports a bad shape at offset; what says where it is ("result", ...). */
static bool verify_shape_at(Verifier *v, const Shape *s, int64_t offset, const char *what) {
  StrBuf why;
  sb_init(&why);
  bool good = check_shape(s, &why, 0);
  if (!good)
    REPORT(v, offset, "%s shape %s: %s", what, with_layout(v, s), why.data ? why.data : "");
  sb_free(&why);
  return good;
}

/* ---------------------------------------------------------------------------
 * Unique names */

typedef struct {
  const char **slots;
  size_t mask;
} NameSet;

static bool nameset_init(NameSet *s, int n) {
  size_t cap = 16;
  while (cap < (size_t)n * 2) cap *= 2;
  s->slots = calloc(cap, sizeof *s->slots);
  s->mask = cap - 1;
  return s->slots != NULL;
}

/* False if name was already present. */
static bool nameset_add(NameSet *s, const char *name) {
  uint64_t h = 1469598103934665603ull;
  for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  for (size_t i = (size_t)h & s->mask;; i = (i + 1) & s->mask) {
    if (!s->slots[i]) {
      s->slots[i] = name;
      return true;
    }
    if (strcmp(s->slots[i], name) == 0) return false;
  }
}

/* ---------------------------------------------------------------------------
 * Instructions and computations */

static void reset_scratch(Verifier *v) {
  if (++v->since_reset < 4096) return;
  arena_free(v->scratch);
  v->scratch = arena_new();
  v->since_reset = 0;
}

/* Whether the declared result may name another floating-point type than the
 * one inferred (bf16[4] add(f32[4], f32[4])).  XLA's test verifier allows
 * this mixed precision (HloTestBase's allow_mixed_precision_in_hlo_verifier
 * defaults to true; ShapeVerifier::CheckShape) except for the ops that only
 * move or reinterpret data, whose shapes must be the same. */
static bool mixed_precision_result(Opcode op) {
  switch (op) {
    case OP_BITCAST: case OP_CALL: case OP_CONDITIONAL: case OP_CONSTANT: case OP_COPY_DONE:
    case OP_COPY_START: case OP_CUSTOM_CALL: case OP_GET_TUPLE_ELEMENT: case OP_INFEED:
    case OP_OUTFEED: case OP_OPT_BARRIER: case OP_PARAMETER: case OP_RECV: case OP_RECV_DONE:
    case OP_SEND: case OP_SEND_DONE: case OP_TUPLE: case OP_WHILE:
      return false;
    default:
      return true;
  }
}

static void verify_instr(Verifier *v, const Computation *comp, const Instr *in) {
  if (!verify_shape_at(v, &in->shape, in->offset, "result")) return;
  for (int i = 0; i < in->noperands; i++)
    if (in->operands[i] && in->operands[i]->parent != comp) {
      REPORT(v, in->opcode_offset, "%s: operand %d (%s) belongs to another computation",
             opcode_name(in->op), i, in->operands[i]->name);
      return;
    }
  Error err = {0};
  Shape inferred;
  if (!infer_shape_in_module(v->m, in, v->scratch, &inferred, &err)) {
    REPORT(v, err.offset >= 0 ? err.offset : in->offset, "%s", err.msg);
    return;
  }
  if (!infer_shapes_match(&in->shape, &inferred, mixed_precision_result(in->op)))
    REPORT(v, in->offset, "declared shape %s does not match inferred shape %s",
           infer_shape_str(v->scratch, &in->shape), infer_shape_str(v->scratch, &inferred));
}

/* Only the result of a written signature must agree with the body: XLA's
 * parser ignores the parameter list of a signature (the computation's
 * parameters are its parameter instructions), so a header naming other or
 * more parameters is accepted, as in XLA's own get_dimension_size_test. */
static void verify_signature(Verifier *v, const Computation *c) {
  if (!c->has_signature) return;
  for (int i = 0; i < c->nsig_params; i++)
    if (!verify_shape_at(v, &c->sig_params[i], c->offset, "signature parameter")) return;
  if (!verify_shape_at(v, &c->sig_result, c->offset, "signature result")) return;
  if (c->root && !infer_shapes_match(&c->sig_result, &c->root->shape, false))
    REPORT(v, c->root->offset, "root shape %s does not match the signature's result %s",
           infer_shape_str(v->scratch, &c->root->shape), infer_shape_str(v->scratch, &c->sig_result));
}

static void verify_computation(Verifier *v, const Computation *c) {
  if (c->ninstrs == 0 || !c->root) {
    REPORT(v, c->offset, "computation %s has no instructions", c->name);
    return;
  }
  for (int i = 0; i < c->nparams; i++)
    if (!c->params[i]) REPORT(v, c->offset, "computation %s has no parameter(%d)", c->name, i);
  NameSet names;
  if (!nameset_init(&names, c->ninstrs)) {
    REPORT(v, c->offset, "out of memory");
    return;
  }
  for (int i = 0; i < c->ninstrs; i++) {
    const Instr *in = c->instrs[i];
    if (!nameset_add(&names, in->name))
      REPORT(v, in->offset, "instruction name '%s' is not unique in computation %s", in->name, c->name);
    verify_instr(v, c, in);
    reset_scratch(v);
  }
  free(names.slots);
  verify_signature(v, c);
}

/* entry_computation_layout: the entry's parameter and result shapes. */
static void verify_entry_layout(Verifier *v) {
  const Module *m = v->m;
  const Computation *e = m->entry;
  if (!m->has_entry_layout || !e) return;
  int64_t off = e->offset;
  for (int i = 0; i < m->nentry_params; i++)
    if (!verify_shape_at(v, &m->entry_params[i], 0, "entry_computation_layout parameter")) return;
  if (!verify_shape_at(v, &m->entry_result, 0, "entry_computation_layout result")) return;
  if (m->nentry_params != e->nparams) {
    REPORT(v, off, "entry_computation_layout has %d parameters but computation %s has %d",
           m->nentry_params, e->name, e->nparams);
    return;
  }
  for (int i = 0; i < e->nparams; i++)
    if (e->params[i] && !infer_shapes_match(&m->entry_params[i], &e->params[i]->shape, false))
      REPORT(v, e->params[i]->offset,
             "parameter %d has shape %s but entry_computation_layout says %s", i,
             infer_shape_str(v->scratch, &e->params[i]->shape),
             infer_shape_str(v->scratch, &m->entry_params[i]));
  if (e->root && !infer_shapes_match(&m->entry_result, &e->root->shape, false))
    REPORT(v, e->root->offset, "root shape %s does not match entry_computation_layout result %s",
           infer_shape_str(v->scratch, &e->root->shape), infer_shape_str(v->scratch, &m->entry_result));
}

/* Each computation an async-start wraps belongs to that one async op: XLA
 * ties the computation to its caller, so a second async-start naming it is
 * an error ("called by more than one async op"). */
static void verify_async_callees(Verifier *v) {
  const Module *m = v->m;
  int n = 0, cap = 0;
  const Computation **seen = NULL;
  for (int ci = 0; ci < m->ncomps; ci++) {
    const Computation *c = m->comps[ci];
    for (int i = 0; i < c->ninstrs; i++) {
      const Instr *in = c->instrs[i];
      const Attr *a = in->op == OP_ASYNC_START ? ir_attr(in, ATTR_CALLS) : NULL;
      if (!a || a->kind != AV_COMPUTATION || !a->v.comp) continue;
      bool dup = false;
      for (int k = 0; k < n && !dup; k++) dup = seen[k] == a->v.comp;
      if (dup) {
        REPORT(v, a->offset, "Computation %s is called by more than one async op", a->v.comp->name);
        continue;
      }
      if (n == cap) {
        cap = cap ? 2 * cap : 16;
        const Computation **grown = realloc(seen, (size_t)cap * sizeof *seen);
        if (!grown) {
          REPORT(v, in->offset, "out of memory");
          free(seen);
          return;
        }
        seen = grown;
      }
      seen[n++] = a->v.comp;
    }
  }
  free(seen);
}

bool verify_module(const Module *m, Diags *diags) {
  if (!m) return false;
  Verifier v = {m, diags, arena_new(), 0, true};
  if (!v.scratch) {
    diags_add(diags, -1, "out of memory");
    return false;
  }
  NameSet comps;
  if (!nameset_init(&comps, m->ncomps)) {
    arena_free(v.scratch);
    diags_add(diags, -1, "out of memory");
    return false;
  }
  int entries = 0;
  for (int i = 0; i < m->ncomps; i++) {
    const Computation *c = m->comps[i];
    if (c->is_entry && ++entries == 2)
      REPORT(&v, c->offset, "more than one ENTRY computation (%s)", c->name);
    if (!nameset_add(&comps, c->name))
      REPORT(&v, c->offset, "computation name '%s' is not unique", c->name);
  }
  free(comps.slots);
  if (!m->entry) REPORT(&v, m->ncomps ? m->comps[m->ncomps - 1]->offset : 0, "module has no entry computation");
  for (int i = 0; i < m->ncomps; i++) verify_computation(&v, m->comps[i]);
  verify_async_callees(&v);
  verify_entry_layout(&v);
  arena_free(v.scratch);
  return v.ok;
}
