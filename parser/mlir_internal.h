/* Internals of the StableHLO (MLIR text) reader: a hand-written cursor
 * lexer (mlir_lex.c), types and dense literals (mlir_types.c), one op in
 * either syntax read into an MOp (mlir_ops.c), an MOp written as HLO text
 * (mlir_emit.c), and functions, regions and the module (mlir_module.c).
 * See docs/stablehlo.md for the design.
 *
 * Errors: the first error is recorded (message and MLIR byte offset) and the
 * reader unwinds with longjmp to mlir_to_hlo; everything it allocated lives in
 * one arena, so nothing leaks on that path. */
#ifndef HLO_PARSER_MLIR_INTERNAL_H
#define HLO_PARSER_MLIR_INTERNAL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/strbuf.h"

enum { MLIR_MAX_RANK = 16, MLIR_MAX_OPERANDS = 256, MLIR_MAX_DEPTH = 64 };

/* A type: a ranked tensor, a tuple of types, or !stablehlo.token. */
typedef enum { MT_TENSOR, MT_TUPLE, MT_TOKEN } MTypeKind;
typedef struct MType {
  MTypeKind kind;
  const char *etype; /* HLO spelling ("f32", "pred", "c64"); tensors only */
  int rank;
  int64_t dims[MLIR_MAX_RANK];
  /* Bit d: dimension d is dynamic with bound dims[d] (tensor<?x3xf32,
   * #stablehlo.bounds<4, ?>> is HLO's f32[<=4,3]). */
  uint32_t bounded;
  int nelems; /* tuples */
  struct MType **elems;
} MType;

/* An attribute value, kept as a small tree. */
typedef enum {
  MA_INT,   /* 3, or 3 : i64 */
  MA_FLOAT, /* 1.5 */
  MA_STR,   /* "text" */
  MA_WORD,  /* GT, true, DEFAULT, @symbol, or #dialect<kind WORD> (its last word) */
  MA_LIST,  /* [a, b], array<i64: 1, 2>, dense<[1, 2]> : tensor<2xi64> (ints) */
  MA_DICT,  /* {a = 1, b} and #stablehlo.gather<...> bodies */
  MA_TYPE,  /* a type used as an attribute */
  MA_DENSE, /* dense<...> with its tensor type (constants); dense_resource<name>:
             * s is the resource name and body "" */
} MAttrKind;
typedef struct MAttr {
  MAttrKind kind;
  int64_t offset; /* in the MLIR text */
  int64_t i;
  double f;
  const char *s; /* STR, WORD (NUL-terminated, arena) */
  int n;         /* LIST, DICT entries */
  struct MAttr **items;
  const char **keys; /* DICT */
  MType *type;       /* TYPE, DENSE, and a typed INT */
  const char *body;  /* DENSE: text between dense< and > */
  size_t body_len;
  int64_t body_off;
} MAttr;

/* A value in scope: its SSA name ("%0", "%0#1", "%arg0"), the HLO
 * instruction holding it, and its type. */
typedef struct MValue {
  const char *ssa, *hlo;
  MType *type;
  /* A result of interpreter.run_parallel: 1 + the process that computes it
   * (mlir_emit_parallel.c); 0 for every other value. */
  int owner;
} MValue;

/* One emitted HLO line and the MLIR offset it came from. */
typedef struct MLine {
  char *text; /* "name = shape op(...)" without ROOT */
  const char *name;
  int64_t mlir_off;
} MLine;

/* An HLO computation being written. */
typedef struct MComp {
  const char *name;
  MLine *lines;
  int nlines, cap;
  MValue *vals; /* the scope: SSA name -> value */
  int nvals, vcap;
  int *htab; /* open addressing: index + 1 into vals, 0 = empty */
  uint32_t *hhash; /* each slot's name hash, to skip most string compares */
  int hcap;  /* a power of two, > 2 * nvals */
  int64_t off; /* where it begins in the MLIR text */
  const char *root; /* HLO name of the root instruction */
  bool is_entry;
  /* Regions: the enclosing computation, and the values of it the region
   * uses (StableHLO regions may; HLO computations take them as extra
   * parameters after the block arguments). */
  struct MComp *parent;
  int nparams;
  int ncapt, captcap;
  MValue **capt; /* in the parent's scope */
} MComp;

/* A parsed region: its computation's HLO name and its block's argument and
 * result types. */
typedef struct MRegion {
  const char *comp;
  int nargs, nresults;
  MType **args, **results;
  int64_t off;
  int ncapt;
  MValue **capt; /* outer values passed after the block arguments */
} MRegion;

/* One op, from either syntax. */
typedef struct MOp {
  const char *name; /* "stablehlo.add", "func.call", ... */
  int64_t off;
  int nresults;
  const char *result_ssa; /* "%0" (results are %0 or %0#i) */
  const char **res_names; /* "%a, %b:2 = ...": each result's name, else NULL */
  int nopnds;
  MValue *opnds[MLIR_MAX_OPERANDS];
  int64_t opnd_off[MLIR_MAX_OPERANDS];
  int nattrs;
  const char *akeys[64];
  MAttr *avals[64];
  int nregions;
  MRegion *regions[8];
  int nin, nout; /* the trailing function type, or the result type */
  MType **in, **out;
  /* reduce's "applies stablehlo.add" compact form: the binary op name */
  const char *applies;
} MOp;

/* A function: its name, signature and HLO computation name. */
typedef struct MFunc {
  const char *sym, *hlo;
  bool is_public;
  int nargs, nresults;
  MType **args, **results;
  const char **arg_names; /* HLO parameter names (loc names for the entry) */
  const char **arg_info;  /* jax.arg_info per argument, or NULL */
  const char **result_info; /* jax.result_info per result, or NULL */
  const char *body;       /* text of the body, for the second pass */
  /* The generic form ("func.func"() <{...}> ({^bb0(...): ...})): where its
   * block arguments' "(" is; body is then just after the block label. */
  const char *generic_args;
  int64_t off;
  int state; /* 0 not converted, 1 converting, 2 done */
} MFunc;

/* A blob of the {-# dialect_resources: { builtin: { name: "0x..." } } #-}
 * section: its hex digits (after "0x"), in the source text. */
typedef struct MResource {
  const char *name, *hex;
  size_t nhex;
  int64_t off;
} MResource;

/* A constant whose bytes go straight into the IR: its HLO text is
 * "blob.N = T constant(0)" and mlir_fill_blobs copies data in after the
 * HLO parse (parser/mlir_resource.c). */
typedef struct MBlob {
  int id; /* N of its instruction name blob.N */
  void *data; /* malloc'd, natural storage of the element type */
  int64_t nbytes;
} MBlob;

typedef struct MState {
  Arena *arena;
  const char *src, *p, *end;
  jmp_buf fail;
  char errmsg[512];
  int64_t erroff;
  int depth;
  int counter; /* unique HLO names */
  MComp **comps; /* finished computations, in definition order */
  int ncomps, ccap;
  MFunc *funcs;
  int nfuncs, fcap;
  MComp *cur;
  int64_t num_replicas, num_partitions;
  const char *module_name;
  /* #locN = loc("name") aliases, for argument names */
  const char **loc_keys, **loc_vals;
  int nlocs, loccap;
  /* Scratch buffers (mlir_sb): freed at the end, also after an error. */
  StrBuf **sbs;
  int nsbs, sbcap;
  StrBuf *line_sb; /* mlir_line's */
  int64_t op_off;   /* the op being read, for errors without a better place */
  /* interpreter.run_parallel: this device's process number (HLO name) and
   * the computation it lives in. */
  const char *parallel_flat;
  MComp *parallel_comp;
  MResource *res; /* dialect resources (arena) */
  int nres, rescap;
  /* reduce's "applies stablehlo.OP" computations, one per op and element
   * type (shared, as a JAX-built HLO module shares its to_apply). */
  struct { const char *bin, *etype, *comp; } applied[16];
  int napplied;
  /* mlir_in_list's memo: (list, name) -> member, open addressing */
  struct { const char *const *list; const char *name; bool in; } memo[512];
  int nmemo;
  StrBuf *tmp_sb; /* mlir_opnd_list's and the like: one result at a time */
  /* Interned plain tensor types by their text ("2x3xf32" of tensor<2x3xf32>):
   * types are never changed once read, so one MType serves every use. */
  struct MTypeSlot { const char *text; size_t len; MType *t; } *types;
  int ntypes, tcap; /* tcap a power of two or 0 */
  MBlob *blobs; /* malloc'd; handed to the MlirHlo on success */
  int nblobs, blobcap;
} MState;

/* Lexing (mlir_lex.c). */
/* Room for element n of an arena array *cap long (doubled, copied): the
 * array, or the old one when it has room; fails the read when out of memory. */
void *mlir_grow(MState *st, void *old, int n, int *cap, size_t size);
_Noreturn void mlir_fail(MState *st, int64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mlir_skip(MState *st);            /* white space and // comments */
bool mlir_peek(MState *st, const char *s); /* next text is s (after blanks) */
bool mlir_accept(MState *st, const char *s);
void mlir_expect(MState *st, const char *s);
bool mlir_accept_word(MState *st, const char *w); /* s then a non-identifier char */
int64_t mlir_off(MState *st);
/* An identifier [A-Za-z_][A-Za-z0-9_.$-]*, or NULL (nothing consumed). */
const char *mlir_ident(MState *st);
/* %name or %name#N, ^name, @name, #name: the sigil included. */
const char *mlir_sigil_name(MState *st, char sigil);
bool mlir_int(MState *st, int64_t *v);
const char *mlir_string(MState *st); /* "..." with escapes kept raw */
/* Skips a balanced (), [], {} or <> group starting at the cursor. */
void mlir_skip_group(MState *st);
void mlir_skip_loc(MState *st); /* an optional trailing loc(...) */
/* A scratch StrBuf that is freed when the conversion ends, whichever way. */
StrBuf *mlir_sb(MState *st);
char *mlir_strdup(MState *st, const char *s, size_t n);
char *mlir_fmt(MState *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Types and literals (mlir_types.c). */
MType *mlir_type(MState *st);
bool mlir_peek_type(MState *st);
void mlir_type_hlo(StrBuf *sb, const MType *t);
bool mlir_type_eq(const MType *a, const MType *b);
int64_t mlir_type_elems(const MType *t);
/* dense<...> for type t written as an HLO literal (text after "constant(").
 * scalar_out: set when the literal is one splat value for a non-scalar
 * type (the caller broadcasts it). */
void mlir_dense_hlo(MState *st, StrBuf *sb, const MAttr *a, const MType *t, bool *splat);

/* Attributes and ops (mlir_ops.c). */
MAttr *mlir_attr(MState *st);
bool mlir_is_spec_op(const char *shortname);
MAttr *mlir_op_attr(const MOp *op, const char *key);
void mlir_parse_op(MState *st, MOp *op);
MValue *mlir_lookup(MState *st, const char *ssa, int64_t off);
/* Integer list of an attribute (LIST, array<>, dense<>): count or -1. */
int mlir_attr_ints(MState *st, const MAttr *a, int64_t *out, int cap);

/* Pieces of the pretty-form reader for other dialects' ops. */
void mlir_op_operand(MState *st, MOp *op); /* %name, appended to op's operands */
void mlir_op_set_attr(MState *st, MOp *op, const char *key, MAttr *v);
void mlir_op_attr_dict(MState *st, MOp *op); /* {k = v, ...} into op's attributes */

/* The check dialect of StableHLO's test files (mlir_emit_check.c): the
 * pretty form of check.<sn>, and its conversion (true when op is one). */
void mlir_parse_check(MState *st, MOp *op, const char *sn);
bool mlir_emit_check(MState *st, MOp *op);

/* interpreter.run_parallel of StableHLO's interpreter tests
 * (mlir_emit_parallel.c): true when op is one.  The guard of a check of a
 * value owned by process owner - 1: a pred[] true on that device only (NULL
 * for owner 0). */
bool mlir_emit_parallel(MState *st, MOp *op);
const char *mlir_parallel_guard(MState *st, const MOp *op, int owner);

/* Whether name is one of the NULL-terminated list (op names), remembered
 * per list and name so that each op costs one hash probe, not a scan. */
bool mlir_in_list(MState *st, const char *name, const char *const *list);

/* Emitting (mlir_emit.c). */
void mlir_emit_op(MState *st, MOp *op);
const char *mlir_new_name(MState *st, const char *hint);
const char *mlir_line(MState *st, int64_t off, const char *hint, const MType *t,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void mlir_bind(MState *st, const char *ssa, const char *hlo, MType *t);

/* Control flow and ops with regions (mlir_emit_control.c): true when op
 * was one of them. */
bool mlir_emit_control(MState *st, MOp *op, const char *shortname);
MType *mlir_tuple_of(MState *st, MType **elems, int n);
/* Collectives, infeed/outfeed, send/recv, replica_id/partition_id
 * (mlir_emit_coll.c): true when op was one of them. */
bool mlir_emit_coll(MState *st, MOp *op, const char *shortname);
/* chlo ops (mlir_emit_chlo.c): true when name is "chlo.*" (converted or
 * refused); mlir_chlo_pretty reads the pretty form after "chlo.NAME". */
bool mlir_emit_chlo(MState *st, MOp *op, const char *name);
void mlir_chlo_pretty(MState *st, MOp *op, const char *shortname);
/* The SSA name of result i of op: %0 or %0#i, or its own name in a list. */
const char *mlir_result_name(MState *st, const MOp *op, int i);
const char *mlir_opnd_list(MState *st, const MOp *op, int from, int to);
void mlir_bind_results(MState *st, MOp *op, const char *hlo, MType *tuple_type);
const char *mlir_result_name(MState *st, const MOp *op, int i); /* %r, %r#i or a listed name */
void mlir_no_captures(MState *st, const MOp *op, const MRegion *r);

/* StableHLO ops with their own semantics (mlir_emit_nn.c, mlir_emit_dyn.c):
 * convolution, select_and_scatter, rng, fft, linear algebra, batch norm, the
 * dynamic ops, ...; true when op was one of them.  mlir_pretty_nn reads their
 * pretty forms (mlir_pretty_nn.c): true when it read the op's own syntax. */
bool mlir_emit_nn(MState *st, MOp *op, const char *shortname);
bool mlir_pretty_nn(MState *st, MOp *op, const char *shortname);
/* broadcast_in_dim of x (bd: n dimensions) to op's result type, as XLA's
 * builder lowers it: operand dimensions of size 1 that expand are reshaped
 * away first, HLO's broadcast keeping sizes.  Returns the HLO name. */
const char *mlir_broadcast_in_dim(MState *st, const MOp *op, const MValue *x, const int64_t *bd, int n);

/* Dialect resources and constants carried as raw bytes (mlir_resource.c). */
/* The {-# ... #-} section at the cursor. */
void mlir_resources(MState *st);
/* A constant whose value is a dense_resource, a large hex blob, or a hex
 * blob of a type HLO literal text cannot spell exactly (f8/f6/f4, sub-byte
 * ints): its HLO name, after writing its line(s); NULL when the literal is
 * better written as text. */
const char *mlir_blob_constant(MState *st, const MOp *op, const MAttr *v, const MType *t);

/* Regions and op sequences (mlir_module.c). */
/* A region "{ ^bb0(%a: T, ...): ops }"; with names, a block "{ ops }" whose
 * arguments are the given names and types. */
MRegion *mlir_region(MState *st, int nargs, const char **names, MType **arg_types);
/* Reads the block arguments of a pretty "reducer(%a: T, %b: T) (%c: T, %d: T) {...}". */
MRegion *mlir_region_with_args(MState *st, int npairs_groups, const char *hint);
MComp *mlir_new_comp(MState *st, const char *name, int64_t off);
void mlir_finish_comp(MState *st, MComp *c); /* appends it to the module */
/* Ops up to '}' (consumed); the return sets the root.  res: the function's
 * declared results (NULL in a region: taken from the return). */
void mlir_body(MState *st, MComp *c, int nres, MType **res, int *nout, MType ***out, const char *what);
/* loc("name") or loc(#alias): the name when it is a plain one, else NULL. */
const char *mlir_loc_name(MState *st);

/* Functions (mlir_func.c). */
/* A func.func in either form read (its body skipped for the second pass),
 * or false when none starts at the cursor. */
bool mlir_any_func(MState *st);
/* ": () -> ()", the type of the generic module and func.func ops. */
void mlir_expect_unit_fn_type(MState *st);
/* Converts f's body to its computation (once; callees first). */
void mlir_convert_func(MState *st, MFunc *f, bool entry);
/* The function @sym, converted (once) to its computation; NULL if none. */
MFunc *mlir_find_func(MState *st, const char *sym);

#endif
