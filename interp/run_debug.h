/* Debugging aids of a run (docs/cli.md "Debugging"): --find-nonfinite
 * stops at the first instruction that makes a NaN or an Inf out of finite
 * operands and describes it; --dump-values writes instructions' results to
 * .npy files; the progress line.  They work through the evaluator's hooks
 * (EvalCtx.watch, .progress, .calls in interp/eval.h), which a normal run
 * leaves unset.  Nothing is printed here: the report is data for cmd/ to
 * render, the progress line goes to the stream the caller hands in. */
#ifndef HLO_INTERP_RUN_DEBUG_H
#define HLO_INTERP_RUN_DEBUG_H

#include <pthread.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/strbuf.h"
#include "interp/eval.h"

/* One operand of the culprit: its range and non-finite counts over every
 * floating-point array leaf it has. */
typedef struct NonfiniteOperand {
  const Instr *instr;
  bool is_float;           /* has a floating-point array leaf */
  int64_t elements, nan, inf;
  double min, max;         /* NaN when no element is a number */
} NonfiniteOperand;

/* The first instruction that produced a NaN or Inf from finite operands. */
typedef struct NonfiniteReport {
  bool found;
  const Instr *instr;
  int leaf;                /* its result's leaf in flattened tuple order; -1: an array */
  EType etype;             /* of that leaf */
  int64_t elements, nan, inf;
  int rank;
  int64_t index[SHAPE_MAX_RANK]; /* of the first NaN (else the first Inf) */
  int noperands;
  NonfiniteOperand *operands;  /* malloc'd */
  /* Where it ran, innermost first: "in fusion %f", "in while %w iteration 3"... */
  int ncontext;
  char (*context)[256];        /* malloc'd */
  /* The device, when the run has several. */
  bool multi_device;
  int64_t replica, partition, npartitions;
} NonfiniteReport;

typedef struct RunDebug {
  /* --- set by the caller --- */
  bool find_nonfinite;
  const char *dump_dir;        /* --dump-values DIR (must exist), or NULL */
  const regex_t *dump_filter;  /* instruction names to dump; NULL: all */
  int64_t dump_limit;          /* the most files written (> 0) */
  FILE *progress;              /* the progress line's stream, or NULL */
  const char *progress_label;  /* the line's first word ("hlorun") */
  int64_t progress_delay_ns;   /* shown only once a run lasts this long */
  /* --- filled by the run --- */
  NonfiniteReport nonfinite;
  int64_t dump_files, dump_bytes; /* written */
  int64_t dump_over_limit;        /* files not written: over dump_limit */
  pthread_mutex_t lock;           /* devices share the fields above */
} RunDebug;

void run_debug_init(RunDebug *d);
void run_debug_free(RunDebug *d);

/* One device's side (interp/run.c): attaches the hooks d asks for to ctx
 * (the progress line only when show_progress: one device draws it) and
 * detaches them, clearing the progress line, once the run is over. */
typedef struct RunDebugDevice RunDebugDevice;
bool run_debug_attach(RunDebug *d, EvalCtx *ctx, bool show_progress, int64_t replica,
                      int64_t partition, int64_t nreplicas, int64_t npartitions,
                      RunDebugDevice **out, Error *err);
void run_debug_detach(RunDebugDevice *dd);

/* "instruction %name produced NaN from finite operands (first at index
 * [i,j]; N NaN, M Inf of T elements)": the report's headline. */
void nonfinite_headline(const NonfiniteReport *r, char *buf, size_t size);
/* The lines after it: one per operand ("  operand 0: %x f32[4] min=-1 max=2
 * nan=0 inf=0"), then where it ran ("  in fusion %f", ...) and the device. */
void nonfinite_details(const NonfiniteReport *r, StrBuf *out);

#endif
