/* The HLO IR: module -> computations -> instructions, all in one arena.
 * Operands and called computations are pointers resolved at parse time, so
 * nothing downstream looks names up.  Every attribute XLA prints is kept:
 * known ones decoded into typed values (attrs.def), unknown ones verbatim. */
#ifndef HLO_PARSER_IR_H
#define HLO_PARSER_IR_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "layout/shape.h"
#include "parser/opcode_flags.h"

typedef enum {
  OP_INVALID = 0,
#define OPCODE(id, text, min_ops, max_ops, cls, ...) OP_##id,
#include "parser/opcodes.def"
#undef OPCODE
  OP_COUNT
} Opcode;

typedef enum { OPC_OTHER, OPC_UNARY, OPC_BINARY } OpClass;

const char *opcode_name(Opcode op);            /* "add" */
Opcode opcode_from_name(const char *s, size_t len); /* OP_INVALID if unknown */
int opcode_min_operands(Opcode op);
int opcode_max_operands(Opcode op);            /* -1 = any number */
OpClass opcode_class(Opcode op);
unsigned opcode_flags(Opcode op);             /* OPF_* bits (parser/opcode_flags.h) */

/* Kinds of attribute values. */
typedef enum {
  AV_NONE,
  AV_BOOL,
  AV_INT,
  AV_FLOAT,
  AV_STRING,          /* decoded string (escapes resolved) */
  AV_STRING_OR_RAW,   /* backend_config: a string, or a raw {...} (then is_raw) */
  AV_ENUM,            /* identifier as written, e.g. "LT", "kLoop" */
  AV_ENUM_LIST,       /* {default, highest} */
  AV_INT_LIST,        /* {1,2,3} */
  AV_INT_LISTS,       /* {1,2} or {{0,1},{1,0}}: nested lists (see IntLists) */
  AV_BOOL_LIST,       /* {true,false} */
  AV_SLICE,
  AV_PADDING,
  AV_WINDOW,
  AV_CONV_DIMS,
  AV_REPLICA_GROUPS,
  AV_COMPUTATION,
  AV_COMPUTATION_LIST,
  AV_SHAPE,
  AV_SHAPE_LIST,
  AV_INSTR_LIST,      /* control-predecessors */
  AV_LITERAL,         /* custom-call literal= (shape then literal) */
  AV_RAW              /* verbatim source text of the value */
} AttrValueKind;

typedef enum {
  ATTR_UNKNOWN = 0,
#define ATTR(id, text, kind) ATTR_##id,
#include "parser/attrs.def"
#undef ATTR
  ATTR_COUNT
} AttrKey;

const char *attr_key_name(AttrKey key);
AttrKey attr_key_from_name(const char *s, size_t len); /* ATTR_UNKNOWN if not listed */
AttrValueKind attr_key_value_kind(AttrKey key);

typedef struct IntList {
  int n;
  int64_t *v;
} IntList;

/* A value written either as a flat list "{1,2}" (depth 1) or as a list of
 * lists "{{0,1},{1,0}}" (depth 2). */
typedef struct IntLists {
  int depth; /* 1 or 2 */
  IntList flat;
  int n;
  IntList *lists;
} IntLists;

typedef struct SliceDim {
  int64_t start, limit, stride;
} SliceDim;

typedef struct PadDim {
  int64_t lo, hi, interior;
} PadDim;

typedef struct WindowDim {
  int64_t size, stride, pad_lo, pad_hi, lhs_dilate, rhs_dilate;
  bool reversal;
} WindowDim;

/* Which sub-fields were written in window={...} (so printing reproduces them). */
enum {
  WIN_SIZE = 1, WIN_STRIDE = 2, WIN_PAD = 4, WIN_LHS_DILATE = 8, WIN_RHS_DILATE = 16,
  WIN_REVERSAL = 32
};

typedef struct Window {
  int rank;
  WindowDim *dims;
  unsigned fields_written; /* WIN_* bits */
} Window;

/* Convolution dimension numbers from dim_labels "b01f_01io->b01f". */
typedef struct ConvDims {
  int nspatial;
  int64_t input_batch, input_feature;
  int64_t *input_spatial;
  int64_t kernel_input_feature, kernel_output_feature;
  int64_t *kernel_spatial;
  int64_t output_batch, output_feature;
  int64_t *output_spatial;
  int input_rank, kernel_rank, output_rank; /* string lengths incl. '?' */
  const char *text; /* as written, for printing */
} ConvDims;

typedef struct ReplicaGroups {
  bool iota; /* [G,S]<=[dims]T(perm) form */
  int ngroups;
  IntList *groups; /* explicit form, or the expansion of the iota form */
  int64_t iota_groups, iota_group_size;
  IntList iota_reshape, iota_perm; /* perm.n == 0 when no T(...) */
} ReplicaGroups;

/* A constant's value: dense, row-major logical order, natural storage of the
 * element type (layout/etype_convert.h), regardless of the shape's layout. */
typedef struct Literal {
  Shape shape;
  void *data;
  int64_t nbytes;
  bool elided; /* written as {...}: contents unknown */
  int ntuple;
  struct Literal *tuple; /* tuple literal elements */
} Literal;

struct Computation;
struct Instr;

typedef struct Attr {
  AttrKey key;
  const char *name; /* as written (needed for ATTR_UNKNOWN) */
  AttrValueKind kind;
  int64_t offset;   /* byte offset of the attribute name */
  bool is_raw;      /* AV_STRING_OR_RAW holding a raw {...} */
  union {
    bool b;
    int64_t i;
    double f;
    const char *s;      /* AV_STRING, AV_STRING_OR_RAW, AV_ENUM, AV_RAW (verbatim) */
    IntList ints;       /* AV_INT_LIST */
    IntLists lists;     /* AV_INT_LISTS */
    struct {
      int n;
      bool *v;
    } bools;            /* AV_BOOL_LIST */
    struct {
      int n;
      const char **v;
    } enums;            /* AV_ENUM_LIST */
    struct {
      int n;
      SliceDim *dims;
    } slice;
    struct {
      int n;
      PadDim *dims;
      bool has_interior; /* interior field written */
    } padding;
    Window window;
    ConvDims conv;
    ReplicaGroups groups;
    struct Computation *comp;
    struct {
      int n;
      struct Computation **v;
    } comps;
    Shape *shape;
    struct {
      int n;
      Shape *v;
    } shapes;
    struct {
      int n;
      struct Instr **v;
    } instrs;
    Literal *literal;
  } v;
} Attr;

typedef struct Instr {
  const char *name;
  Opcode op;
  /* For async sugar ("custom-call-start", "fusion-done", ...): op is
   * OP_ASYNC_START/UPDATE/DONE and wrapped_op the wrapped opcode; otherwise
   * OP_INVALID. */
  Opcode wrapped_op;
  Shape shape;
  int noperands;
  struct Instr **operands;
  int nattrs;
  Attr *attrs;              /* in the order written */
  int64_t parameter_number; /* parameter(N) */
  Literal *literal;         /* constant(...) */
  bool is_root;             /* written with ROOT */
  int index;                /* position in its computation */
  int64_t offset;           /* byte offset of the instruction's name */
  int64_t opcode_offset;    /* byte offset of the opcode */
  struct Computation *parent;
} Instr;

typedef struct Computation {
  const char *name;
  bool is_entry;
  int ninstrs;
  Instr **instrs; /* text order = a valid execution order */
  Instr *root;
  int nparams;
  Instr **params; /* indexed by parameter number (NULL where missing) */
  bool has_signature;
  int nsig_params;
  const char **sig_param_names;
  Shape *sig_params;
  Shape sig_result;
  const char *execution_thread; /* NULL = "main" */
  int index;                    /* position in the module */
  int64_t offset;               /* byte offset of the name */
} Computation;

typedef struct Module {
  Arena *arena; /* owns everything below */
  const char *name;
  bool has_header;
  int ncomps;
  Computation **comps; /* text order: callees before callers */
  Computation *entry;
  int nattrs;
  Attr *attrs; /* header attributes in the order written (unknown kept raw) */
  /* Decoded header fields. */
  bool has_entry_layout;
  /* Some shape was written with a layout ("f32[4]{0}"): XLA's
   * layout-sensitive verifier rules (bitcast byte sizes) then apply. */
  bool has_layouts;
  int nentry_params;
  Shape *entry_params;
  Shape entry_result;
  int64_t replica_count;  /* 1 if not given */
  int64_t num_partitions; /* 1 if not given */
  bool is_scheduled;
  /* The stack frame index XLA prints between the header and the first
   * computation (FileNames, FunctionNames, FileLocations, StackFrames
   * sections), kept verbatim; NULL when absent.  Points into the arena. */
  const char *stack_index;
  /* Names of the entry result's array leaves, for output files and
   * --expect (StableHLO's jax.result_info); NULL: positional out0, out1. */
  const char **result_names;
  int nresult_names;
  /* The source, kept for diagnostics (not owned). */
  const char *filename;
  const char *source;
  size_t source_len;
  /* StableHLO input (parser/load.h): source is the HLO text it became;
   * origin is the MLIR text and origin_line_off[i] the MLIR offset that
   * line i of source came from (not owned; NULL for HLO input). */
  const char *origin;
  size_t origin_len;
  const int64_t *origin_line_off;
  int origin_nlines;
} Module;

/* Where a diagnostic at `offset` of m's source is shown to the user: the
 * text they wrote (the MLIR for StableHLO input) and the offset in it
 * (-1 when there is none). */
typedef struct SourcePlace {
  const char *text;
  size_t len;
  int64_t offset;
} SourcePlace;
SourcePlace module_source_place(const Module *m, int64_t offset);

/* First attribute with this key, or NULL. */
const Attr *ir_attr(const Instr *instr, AttrKey key);
void module_free(Module *m);
/* The constants whose contents are elided ({...}, also inside a tuple
 * literal): their count, and the first in text order (NULL when none). */
int module_elided_constants(const Module *m, const Instr **first);
/* Whether the computation's written signature lists exactly its parameter
 * instructions (same count, compatible shapes). XLA's parser reads only the
 * result part of a signature, so a module whose signature names other
 * parameters is valid; its parameters are then the body's, not the header's. */
bool computation_signature_lists_params(const Computation *c);

#endif
