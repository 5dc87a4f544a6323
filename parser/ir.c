#include "parser/ir.h"

#include <string.h>

typedef struct {
  const char *name;
  int min_ops, max_ops;
  OpClass cls;
  unsigned flags;
} OpInfo;

static const OpInfo op_info[OP_COUNT] = {
    [OP_INVALID] = {"<invalid>", 0, 0, OPC_OTHER, 0},
#define OPCODE(id, text, min_ops, max_ops, cls, infer, eval, kernel, flags, ...) \
  [OP_##id] = {text, min_ops, max_ops, cls, flags},
#include "parser/opcodes.def"
#undef OPCODE
};

static const OpInfo *op(Opcode o) {
  return (unsigned)o < OP_COUNT ? &op_info[o] : &op_info[OP_INVALID];
}

const char *opcode_name(Opcode o) { return op(o)->name; }
int opcode_min_operands(Opcode o) { return op(o)->min_ops; }
int opcode_max_operands(Opcode o) { return op(o)->max_ops; }
OpClass opcode_class(Opcode o) { return op(o)->cls; }
unsigned opcode_flags(Opcode o) { return op(o)->flags; }

Opcode opcode_from_name(const char *s, size_t len) {
  for (int o = 1; o < OP_COUNT; o++) {
    const char *n = op_info[o].name;
    if (strlen(n) == len && memcmp(n, s, len) == 0) return (Opcode)o;
  }
  return OP_INVALID;
}

typedef struct {
  const char *name;
  AttrValueKind kind;
} AttrInfo;

static const AttrInfo attr_info[ATTR_COUNT] = {
    [ATTR_UNKNOWN] = {"<unknown>", AV_RAW},
#define ATTR(id, text, kind) [ATTR_##id] = {text, kind},
#include "parser/attrs.def"
#undef ATTR
};

const char *attr_key_name(AttrKey k) {
  return (unsigned)k < ATTR_COUNT ? attr_info[k].name : attr_info[0].name;
}

AttrValueKind attr_key_value_kind(AttrKey k) {
  return (unsigned)k < ATTR_COUNT ? attr_info[k].kind : AV_RAW;
}

AttrKey attr_key_from_name(const char *s, size_t len) {
  for (int k = 1; k < ATTR_COUNT; k++) {
    const char *n = attr_info[k].name;
    if (strlen(n) == len && memcmp(n, s, len) == 0) return (AttrKey)k;
  }
  return ATTR_UNKNOWN;
}

const Attr *ir_attr(const Instr *instr, AttrKey key) {
  for (int i = 0; i < instr->nattrs; i++)
    if (instr->attrs[i].key == key) return &instr->attrs[i];
  return NULL;
}

static bool literal_has_elided(const Literal *l) {
  if (l->elided) return true;
  for (int i = 0; i < l->ntuple; i++)
    if (literal_has_elided(&l->tuple[i])) return true;
  return false;
}

int module_elided_constants(const Module *m, const Instr **first) {
  int n = 0;
  *first = NULL;
  for (int c = 0; c < m->ncomps; c++)
    for (int i = 0; i < m->comps[c]->ninstrs; i++) {
      const Instr *in = m->comps[c]->instrs[i];
      if (in->op != OP_CONSTANT || !in->literal || !literal_has_elided(in->literal)) continue;
      if (!*first || in->offset < (*first)->offset) *first = in;
      n++;
    }
  return n;
}

bool computation_signature_lists_params(const Computation *c) {
  if (!c->has_signature || c->nsig_params != c->nparams) return false;
  for (int i = 0; i < c->nparams; i++)
    if (!c->params[i] || !shape_compatible(&c->sig_params[i], &c->params[i]->shape)) return false;
  return true;
}

SourcePlace module_source_place(const Module *m, int64_t offset) {
  SourcePlace p = {m->source, m->source_len, offset};
  if (!m->origin || !m->source || offset < 0) return p;
  /* The line of source holding offset, then the MLIR op it came from. */
  int line = 0;
  for (int64_t i = 0; i < offset && (size_t)i < m->source_len; i++)
    if (m->source[i] == '\n') line++;
  if (line >= m->origin_nlines) line = m->origin_nlines - 1;
  p.text = m->origin;
  p.len = m->origin_len;
  p.offset = line >= 0 ? m->origin_line_off[line] : -1;
  return p;
}

void module_free(Module *m) {
  if (m) arena_free(m->arena); /* the Module itself lives in its arena */
}
