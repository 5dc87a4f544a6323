/* The buffers of a module, as XLA's buffer assignment would see them, with
 * the physical size each layout gives them (hlolayout --module).
 *
 * What is listed (docs/hlolayout.md, "Which instructions own buffers"):
 * every array leaf of every instruction in the computations that run as a
 * sequence of buffers: the entry and whatever it reaches through
 * control-flow calls (while, conditional, call, async-*), as XLA's CallGraph
 * classifies them.  Instructions in fusion bodies and in applied
 * ("embedded") computations (to_apply, comparator, scatter, select, ...) get
 * no buffer and are only counted.  A leaf that shares another buffer (a
 * get-tuple-element, bitcast, tuple, while, call, conditional, a non-entry
 * parameter, the forwarded parts of copy/async/collective start and done
 * ops) is listed as an alias and left out of the totals. */
#ifndef HLO_INTERP_BUFFERS_H
#define HLO_INTERP_BUFFERS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "parser/ir.h"

typedef struct BufferRow {
  const Computation *comp;
  const Instr *instr;
  const char *name;     /* "p" or "t{1,0}" (name plus shape index for tuple leaves) */
  int index_len;
  const int64_t *index; /* the shape index */
  const char *shape;    /* canonical shape text of the leaf, layout included */
  int64_t memory_space; /* S(n) */
  bool alias;           /* shares another buffer; not in the totals */
  const char *alias_of; /* alias: what it shares ("x{1}", "the caller's operand") */
  bool sized;           /* false: the layout engine cannot size it (error says why) */
  const char *error;
  int64_t logical_bytes, physical_bytes; /* -1 when !sized */
  int64_t order;        /* position in module order (computation, instruction, leaf) */
} BufferRow;

typedef struct BufferTotals {
  int64_t memory_space; /* per-space totals only */
  int64_t count, logical_bytes, physical_bytes;
} BufferTotals;

typedef struct BufferReport {
  Arena *arena; /* owns everything below except the IR pointers */
  int nrows;
  BufferRow *rows; /* largest physical size first, ties in module order; unsized last */
  int64_t nbuffers, naliases, nunsized;
  int ncomputations;       /* computations listed */
  int64_t nunlisted_instrs; /* instructions in fusion bodies, applied or unreachable computations */
  int nspaces;
  BufferTotals *spaces; /* by memory space id, ascending */
  BufferTotals total;
} BufferReport;

/* Builds the report (the module must outlive it).  False only when out of
 * memory (ERR_RUNTIME). */
bool buffers_report(const Module *m, BufferReport *out, Error *err);
void buffers_report_free(BufferReport *r);

#endif
