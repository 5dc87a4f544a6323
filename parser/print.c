/* The printer: IR back to canonical HLO text in the style of XLA's
 * HloModule::ToString() (docs/hlo-print.md).  Everything is written into a
 * StrBuf; nothing here touches stdout or stderr. */
#include "parser/print.h"

#include <string.h>

#include "parser/print_internal.h"

/* ---------- small pieces ---------- */

void print_list_sep(StrBuf *sb, int i) {
  if (i == 0) return;
  if (i % PRINT_INDEX_INTERVAL == 0)
    sb_printf(sb, ", /*index=%d*/", i);
  else
    sb_puts(sb, ", ");
}

void print_name(StrBuf *sb, const char *name) {
  sb_putc(sb, '%');
  sb_puts(sb, name ? name : "");
}

/* absl::CEscape: \n \r \t \" \' \\ by name, other non-printable bytes (and
 * every byte >= 0x80) as three octal digits. */
static const char *escape_of(unsigned char c) {
  switch (c) {
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    case '"': return "\\\"";
    case '\'': return "\\'";
    case '\\': return "\\\\";
    default: return NULL;
  }
}

static bool needs_escape(unsigned char c) { return c < 0x20 || c >= 0x7f || escape_of(c); }

void print_string(StrBuf *sb, const char *s) {
  sb_putc(sb, '"');
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  while (*p) {
    const unsigned char *run = p;
    while (*p && !needs_escape(*p)) p++;
    sb_append(sb, (const char *)run, (size_t)(p - run));
    if (!*p) break;
    const char *esc = escape_of(*p);
    if (esc)
      sb_puts(sb, esc);
    else
      sb_printf(sb, "\\%03o", *p);
    p++;
  }
  sb_putc(sb, '"');
}

/* ---------- shapes ---------- */

/* human: no layouts (ShapeUtil::HumanString, used in computation signatures,
 * where layouts carry no meaning: the parameter instructions hold them). */
static void print_shape_ex(StrBuf *sb, const Shape *s, bool human);

static void print_shape_list_ex(StrBuf *sb, const Shape *shapes, int n, bool human) {
  for (int i = 0; i < n; i++) {
    print_list_sep(sb, i);
    print_shape_ex(sb, &shapes[i], human);
  }
}

static void print_shape_ex(StrBuf *sb, const Shape *s, bool human) {
  if (s->etype == ET_TUPLE) {
    sb_putc(sb, '(');
    print_shape_list_ex(sb, s->tuple, s->ntuple, human);
    sb_putc(sb, ')');
    return;
  }
  size_t start = sb->len;
  shape_print(sb, s);
  if (!human || !shape_is_array(s)) return;
  /* Cut the layout that follows the dims' closing bracket. */
  const char *close = sb->data ? memchr(sb->data + start, ']', sb->len - start) : NULL;
  if (close) {
    sb->len = (size_t)(close - sb->data) + 1;
    sb->data[sb->len] = '\0';
  }
}

void print_shape(StrBuf *sb, const Shape *s) { print_shape_ex(sb, s, false); }

void print_shape_list(StrBuf *sb, const Shape *shapes, int n) {
  print_shape_list_ex(sb, shapes, n, false);
}

/* ---------- instructions ---------- */

static void print_opcode(StrBuf *sb, const Instr *in) {
  const char *suffix = NULL;
  if (in->wrapped_op != OP_INVALID) {
    if (in->op == OP_ASYNC_START) suffix = "-start";
    if (in->op == OP_ASYNC_UPDATE) suffix = "-update";
    if (in->op == OP_ASYNC_DONE) suffix = "-done";
  }
  if (suffix) {
    sb_puts(sb, opcode_name(in->wrapped_op));
    sb_puts(sb, suffix);
  } else {
    sb_puts(sb, opcode_name(in->op));
  }
}

static void print_operands(StrBuf *sb, const Instr *in) {
  if (in->op == OP_PARAMETER) {
    sb_printf(sb, "%lld", (long long)in->parameter_number);
    return;
  }
  if (in->op == OP_CONSTANT) {
    if (in->literal)
      print_literal(sb, in->literal);
    else
      sb_puts(sb, "{...}");
    return;
  }
  for (int i = 0; i < in->noperands; i++) {
    const Instr *op = in->operands[i];
    print_list_sep(sb, i);
    if (!op) {
      sb_puts(sb, "null"); /* never in a parsed module */
      continue;
    }
    print_shape(sb, &op->shape);
    sb_putc(sb, ' ');
    print_name(sb, op->name);
  }
}

void print_instr(StrBuf *sb, const Instr *in) {
  print_name(sb, in->name);
  sb_puts(sb, " = ");
  print_shape(sb, &in->shape);
  sb_putc(sb, ' ');
  print_opcode(sb, in);
  sb_putc(sb, '(');
  print_operands(sb, in);
  sb_putc(sb, ')');
  print_instr_attrs(sb, in);
}

/* ---------- computations ---------- */

static void print_signature_param(StrBuf *sb, int i, const char *name, const Shape *shape) {
  if (i) sb_puts(sb, ", ");
  sb_puts(sb, name ? name : "");
  sb_puts(sb, ": ");
  print_shape_ex(sb, shape, true);
}

/* "(p0: f32[], p1: s32[4]) -> f32[]": the signature as written if there was
 * one that lists the body's parameters, else derived from the parameters and
 * the root (ProgramShape, as XLA prints it). False (nothing printed) when it
 * cannot be derived. */
static bool print_signature(StrBuf *sb, const Computation *c) {
  if (computation_signature_lists_params(c)) {
    sb_putc(sb, '(');
    for (int i = 0; i < c->nsig_params; i++)
      print_signature_param(sb, i, c->sig_param_names[i], &c->sig_params[i]);
    sb_puts(sb, ") -> ");
    print_shape_ex(sb, &c->sig_result, true);
    return true;
  }
  if (!c->root) return false;
  for (int i = 0; i < c->nparams; i++)
    if (!c->params[i]) return false;
  sb_putc(sb, '(');
  for (int i = 0; i < c->nparams; i++)
    print_signature_param(sb, i, c->params[i]->name, &c->params[i]->shape);
  sb_puts(sb, ") -> ");
  print_shape_ex(sb, &c->root->shape, true);
  return true;
}

static void print_computation(StrBuf *sb, const Module *m, const Computation *c) {
  if (c == m->entry) sb_puts(sb, "ENTRY ");
  print_name(sb, c->name);
  sb_putc(sb, ' ');
  if (print_signature(sb, c)) sb_putc(sb, ' ');
  sb_puts(sb, "{\n");
  for (int i = 0; i < c->ninstrs; i++) {
    const Instr *in = c->instrs[i];
    sb_puts(sb, in == c->root ? "  ROOT " : "  ");
    print_instr(sb, in);
    sb_putc(sb, '\n');
  }
  sb_putc(sb, '}');
  if (c->execution_thread && strcmp(c->execution_thread, "main") != 0) {
    sb_puts(sb, ", execution_thread=");
    print_string(sb, c->execution_thread);
  }
}

/* ---------- module ---------- */

void print_module(StrBuf *sb, const Module *m) {
  sb_puts(sb, "HloModule ");
  sb_puts(sb, m->name ? m->name : "module");
  print_header_attrs(sb, m);
  sb_puts(sb, "\n\n");
  if (m->stack_index) {
    sb_puts(sb, m->stack_index);
    sb_puts(sb, "\n\n");
  }
  for (int i = 0; i < m->ncomps; i++) {
    if (i) sb_puts(sb, "\n\n");
    print_computation(sb, m, m->comps[i]);
  }
  sb_putc(sb, '\n');
}
