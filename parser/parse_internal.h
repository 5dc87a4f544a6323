/* Internals shared by the lexer (lexer.re), the grammar (grammar.y) and the
 * IR builder (build*.c).  Not part of the library's public interface.
 *
 * Division of labour:
 *   lexer   - bytes -> tokens; classifies attribute names by the context it
 *             tracks itself (module header, instruction attribute list,
 *             nested value), switches to raw modes for backend_config /
 *             frontend_attributes values and unknown attributes;
 *   grammar - the syntax of hlo-text.md sections 3-7, with thin actions;
 *   builder - everything that needs meaning: name tables, IR construction,
 *             literal storage, attribute decoding, XLA's parse-time checks. */
#ifndef HLO_PARSER_PARSE_INTERNAL_H
#define HLO_PARSER_PARSE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/diag.h"
#include "layout/shape.h"
#include "parser/ir.h"

typedef struct ParseCtx ParseCtx;

/* ---------------------------------------------------------------------------
 * Token values (the Bison %union members of the lexer's tokens). */

/* A slice of the source text (not NUL-terminated). */
typedef struct Str {
  const char *p;
  int64_t n;
} Str;

/* s spells lit exactly. */
static inline bool str_is(Str s, const char *lit) {
  size_t n = strlen(lit);
  return (size_t)s.n == n && memcmp(s.p, lit, n) == 0;
}

/* printf arguments for "%.*s": a name in a message, cut at 200 bytes. */
#define STR_ARG(s) (int)((s).n > 200 ? 200 : (s).n), (s).p

typedef struct IntTok {
  int64_t v;
  bool big; /* written value > INT64_MAX; v holds its bits (u64 constants) */
  bool neg; /* written with a leading '-': "-0" is negative zero in a float literal */
} IntTok;

typedef enum { NUM_FINITE, NUM_INF, NUM_NAN } NumKind;

/* DECIMAL tokens: 1.5, -2e3, -inf, nan, -nan, nan(0x1f). */
typedef struct Num {
  double v;         /* NUM_FINITE / NUM_INF (signed) */
  uint64_t payload; /* NUM_NAN: 0 = default quiet NaN */
  NumKind kind;
  bool neg; /* NUM_NAN: written "-nan" */
} Num;

/* An attribute name token ("dimensions=" without the '='). */
typedef struct AttrTok {
  AttrKey key;
  Str name;
  int64_t off;
} AttrTok;

/* ---------------------------------------------------------------------------
 * Arena-backed growable arrays for the grammar's lists. */
typedef struct Vec {
  void *v;
  int n, cap;
} Vec;

/* Appends one zeroed element of elem_size; NULL (and an error) if out of
 * memory or the list would exceed INT_MAX elements. */
void *vec_push(ParseCtx *ctx, Vec *vec, size_t elem_size);
/* The same in a given arena (ctx->arena for lists the module keeps). */
void *vec_push_in(ParseCtx *ctx, Arena *arena, Vec *vec, size_t elem_size);
#define VEC_AT(vec, type, i) (((type *)(vec).v)[i])
bool vec_push_i64(ParseCtx *ctx, Vec *vec, int64_t x);
/* The int64_t elements of v copied into arena (NULL if none). */
int64_t *vec_copy_i64(ParseCtx *ctx, Arena *arena, const Vec *v);
/* The grammar's lists live in the scratch arena; lists the module keeps
 * (computations, instructions) are grown in the module's arena. */
bool vec_push_keep(ParseCtx *ctx, Vec *vec, void *p);
void *scratch_alloc(ParseCtx *ctx, size_t size);
/* size zeroed bytes in arena; NULL after reporting "out of memory" at off. */
void *ctx_alloc(ParseCtx *ctx, Arena *arena, size_t size, int64_t off);
/* Drops the scratch arena's contents (after a top-level instruction or at
 * a computation's start: the IR has copied what it keeps). */
void scratch_reset(ParseCtx *ctx);
bool vec_push_ptr(ParseCtx *ctx, Vec *vec, void *p);

/* ---------------------------------------------------------------------------
 * Intermediate values built by the grammar. */

/* One layout suffix as written ("T(8,128)(2,1)", "S(1)", "#(u16)"). */
typedef enum {
  LS_D, LS_T, LS_L, LS_INDEX, LS_POINTER, LS_E, LS_S, LS_SC, LS_P, LS_M, LS_UNKNOWN
} LayoutSuffixKind;

/* Contents of one parenthesised group of a layout suffix. */
typedef enum { LG_EMPTY, LG_INTS, LG_SPLIT, LG_DLT, LG_SHAPE, LG_TYPE } LayoutGroupKind;

/* An integer with the offset it was written at: minor_to_major entries,
 * tile sizes and split indices, which diagnostics point at one by one. */
typedef struct IntAt {
  int64_t v;
  int64_t off;
} IntAt;

typedef struct LayoutGroup {
  LayoutGroupKind kind;
  Vec ints;        /* IntAt: LG_INTS (TILE_DIM_COMBINE for '*'); LG_SPLIT: indices */
  int64_t split_dim;
  Shape *shape;    /* LG_SHAPE */
  EType etype;     /* LG_TYPE */
  int64_t off;
} LayoutGroup;

typedef struct LayoutSuffix {
  LayoutSuffixKind kind;
  Vec groups; /* LayoutGroup */
  int64_t off;
} LayoutSuffix;

/* A layout as built, with where its parts were written, so that a lone
 * shape (parse_shape_text) can check them against the shape. */
typedef struct LayoutTok {
  Layout layout;
  int64_t off;       /* the '{' */
  int64_t *m2m_off;  /* minor_to_major[i] was written at m2m_off[i] */
  int64_t e_off;     /* E(n)'s number */
  int64_t *split_off; /* split config i's dimension number */
} LayoutTok;

/* A dimension of an array shape as written. */
typedef struct DimTok {
  int64_t size;
  bool dynamic; /* "<=N" or "?" */
  int64_t off;
} DimTok;

/* The right-hand side "opcode(operands)" of an instruction or nested
 * operand. */
typedef struct OpCall {
  Str opname;
  int64_t op_off;
  Opcode op, wrapped; /* wrapped: async sugar "X-start" */
  Vec operands;       /* Instr* (NULL where a name did not resolve) */
  bool is_param;
  int64_t param_no;
  Literal *lit; /* constant */
} OpCall;

/* ---------------------------------------------------------------------------
 * Name tables: open addressing, malloc'd, freed when the parse ends. */
typedef struct NameEntry {
  const char *key;
  int64_t len;
  uint64_t hash;
  void *value;
} NameEntry;

typedef struct NameTable {
  NameEntry *slots;
  size_t cap, count; /* cap is a power of two */
} NameTable;

void *names_get(const NameTable *t, const char *key, int64_t len);
/* Returns false if out of memory.  The key must outlive the table. */
bool names_put(NameTable *t, const char *key, int64_t len, void *value);
void names_free(NameTable *t);

/* ---------------------------------------------------------------------------
 * The lexer. */

/* What an attribute name means inside a brace level. */
typedef enum {
  LX_TOP,      /* module header; '{' at depth 0 opens a computation body */
  LX_BODY,     /* computation body: instruction attributes (attrs.def) */
  LX_NESTED,   /* inside a structured value: plain ATTRIBUTE_NAME */
  LX_FRONTEND, /* frontend_attributes: plain names, values raw {...} */
  LX_SHAPE     /* a lone shape (parse_shape_text): every '{' after ']' opens a layout */
} LexContext;

enum { LEX_MAX_NESTING = 256 };

typedef struct LexFrame {
  uint8_t kind;       /* LexContext */
  int32_t brace_depth; /* brace depth inside this frame's '{' */
} LexFrame;

typedef struct Lexer {
  const char *src;
  size_t len;
  const char *cur; /* next byte to scan */
  int last_tok;    /* kind of the previous token (0 at start) */
  int64_t last_end; /* end offset of the previous token */
  /* The re2c condition (lexer.re): init, opens_nested after an attribute
   * name, or the value syntax the parser asked for with lex_expect. */
  int cond;
  int brace_depth;
  int nest; /* all brackets, for LEX_MAX_NESTING */
  int sp;
  LexFrame stack[LEX_MAX_NESTING + 2];
  /* The grammar's entry token (START_MODULE or START_SHAPE), handed out
   * before the first real token; 0 once handed out. */
  int start_token;
  /* Error recovery: skip to the next line and return RESYNC. */
  bool resync;
  int64_t err_tok_start, err_tok_end;
} Lexer;

void lex_init(Lexer *lx, const char *src, size_t len);

/* What the parser expects as the value of the attribute name it has just
 * shifted; the grammar's want_* rules call lex_expect before the value's
 * first token is read.  Without a request, a '{' after an attribute name
 * opens a structured value (LX_NESTED). */
typedef enum {
  LEX_EXPECT_BODY,       /* to_apply=: a '{' opens an inline computation body */
  LEX_EXPECT_FRONTEND,   /* frontend_attributes=: a '{' opens LX_FRONTEND */
  LEX_EXPECT_RAW_BRACES, /* backend_config=: a '{' starts a raw {...} value */
  LEX_EXPECT_RAW_VALUE,  /* an unknown attribute: its value verbatim, one RAW */
  LEX_EXPECT_SHARDING    /* sharding=: structured, or raw {...} if it names a mesh */
} LexExpect;
void lex_expect(Lexer *lx, LexExpect what);
/* Called when the parser reports a syntax error at the token [start, end):
 * the next token returned will be RESYNC, and scanning resumes at the
 * start of the next instruction line. */
void lex_request_resync(Lexer *lx, int64_t tok_start, int64_t tok_end);

/* ---------------------------------------------------------------------------
 * The literal builder: constant literals are parsed as a stream of events
 * and stored directly in their final typed storage, checking rank and sizes
 * as XLA's dense literal parser does. */
typedef enum { LF_VALUE, LF_TUPLE, LF_ARRAY, LF_COMPLEX } LitFrameKind;

typedef struct LitFrame {
  LitFrameKind kind;
  const Shape *shape;
  Literal *lit;        /* the literal this frame fills */
  int level;           /* LF_ARRAY: current brace depth (1..rank) */
  int64_t *counts;     /* LF_ARRAY: elements seen per level (rank + 1) */
  int64_t next;        /* LF_ARRAY: next linear element; LF_TUPLE: next index */
  int64_t nelems;
  int64_t first_open;  /* LF_ARRAY: offset of the first '{' */
  bool saw_ellipsis;
  bool scalar_fill;    /* LF_ARRAY from a bare scalar (XLA quirk, lit_scalar) */
  /* LF_COMPLEX */
  double parts[2];
  int nparts;
  void *dst;
  EType etype;
} LitFrame;

typedef struct LitBuilder {
  LitFrame *frames;
  int n, cap;
  bool failed; /* stop storing after the first error in this literal */
  Literal *root;
} LitBuilder;

typedef enum { LV_INT, LV_NUM, LV_BOOL, LV_INF } LitValueKind;

typedef struct LitValue {
  LitValueKind kind;
  IntTok i;
  Num num;
  bool b;
} LitValue;

void lit_begin(ParseCtx *ctx, const Shape *shape, int64_t off);
void lit_open_brace(ParseCtx *ctx, int64_t off);
void lit_close_brace(ParseCtx *ctx, int64_t off);
void lit_open_paren(ParseCtx *ctx, int64_t off);
void lit_close_paren(ParseCtx *ctx, int64_t off);
void lit_ellipsis(ParseCtx *ctx, int64_t off);
void lit_scalar(ParseCtx *ctx, LitValue v, int64_t off);
/* The finished literal, or NULL after an error. */
Literal *lit_end(ParseCtx *ctx, int64_t off);
/* A tuple literal of already built literals (NULL if one of them failed). */
Literal *lit_tuple_of(ParseCtx *ctx, const Vec *elems, int64_t off);

/* ---------------------------------------------------------------------------
 * The parse context: everything one parse owns. */

typedef struct Scope {
  Computation *comp;
  Vec instrs; /* Instr* */
  NameTable names;
  Instr *root;
  int64_t sig_off; /* where the signature's result shape was written */
  int nerrors_at_begin;
  struct Scope *parent;
} Scope;

enum { PARSE_MAX_ERRORS = 20 };

struct ParseCtx {
  Arena *arena;   /* the module's: everything the IR points to */
  /* Transient values of the grammar (shapes as written, lists, attribute
   * structs, OpCalls, literal frames): reset after every top-level
   * instruction, so operand shapes and lists cost nothing in the end.
   * Whatever the IR keeps is deep-copied into arena. */
  Arena *scratch;
  Module *m;
  Diags *diags;
  const char *src;
  size_t len;
  Lexer lx;
  int nerrors;
  bool oom;
  bool too_many_errors;
  NameTable comp_names; /* Computation* by name */
  NameTable opcodes;    /* opcode names -> (void*)(intptr_t)Opcode */
  NameTable attr_keys;  /* attrs.def names -> (void*)(intptr_t)AttrKey */
  Scope *scope;         /* innermost computation being parsed */
  Vec comps;            /* Computation* in completion order */
  int nentries;
  int64_t second_entry_off;
  int inline_count;
  LitBuilder lit;
  /* Header values decoded on the way. */
  Vec header_attrs; /* Attr */
  /* parse_shape_text: the text is one shape, with no verifier after the
   * parse, so its layout is checked against it here, each problem at the
   * token it comes from. */
  bool lone_shape;
  Shape *shape_result;
};

/* Sets up a parse of text (NUL at text[len]); false if out of memory.
 * parse_ctx_free releases the tables, and the arena too if asked (on
 * success the arena belongs to ctx->m).  Tests drive the lexer this way. */
bool parse_ctx_init(ParseCtx *ctx, const char *filename, const char *text, size_t len,
                    Diags *diags);
void parse_ctx_free(ParseCtx *ctx, bool free_arena);

/* Diagnostics: every error goes through here (counts, caps). */
void parse_error(ParseCtx *ctx, int64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void parse_oom(ParseCtx *ctx, int64_t off);

/* Copies text into the arena (NUL-terminated). */
const char *ctx_strdup(ParseCtx *ctx, Str s);
/* Decodes a STRING token (with quotes and C escapes) into the arena. */
const char *ctx_unescape(ParseCtx *ctx, Str s, int64_t off);
/* The source text between two offsets, as an arena string. */
const char *ctx_source_text(ParseCtx *ctx, int64_t first, int64_t last);

/* ---------------------------------------------------------------------------
 * Builder entry points called from grammar actions (parser/build*.c). */
Shape *build_array_shape(ParseCtx *ctx, EType t, int64_t t_off, Vec *dims, LayoutTok *layout);
Shape *build_tuple_shape(ParseCtx *ctx, Vec *elems, int64_t off);
Shape *build_buffer_shape(ParseCtx *ctx, Shape *inner, int64_t off);
/* m2m: IntAt; colon: the ':' before the suffixes was written. */
LayoutTok *build_layout(ParseCtx *ctx, Vec *m2m, Vec *suffixes, bool colon, int64_t off);
LayoutSuffix *build_layout_suffix(ParseCtx *ctx, Str letter, int64_t off, Vec *groups);

void build_header(ParseCtx *ctx, Str name, int64_t off);
void build_header_attr(ParseCtx *ctx, AttrTok *name, int64_t first, int64_t last);
void build_entry_layout(ParseCtx *ctx, Vec *params, Shape *result);
void build_header_int(ParseCtx *ctx, AttrTok *name, IntTok v, int64_t off);
void build_header_bool(ParseCtx *ctx, AttrTok *name, bool v);

/* A computation signature "(p0: f32[], p1: s32[]) -> f32[]". */
typedef struct SigTok {
  Vec names; /* StrTok */
  Vec shapes; /* Shape* */
  Shape *result;
  int64_t result_off;
} SigTok;

/* A string with the offset it was written at. */
typedef struct StrTok {
  Str s;
  int64_t off;
} StrTok;

SigTok *sig_new(ParseCtx *ctx);
void sig_add(ParseCtx *ctx, SigTok *sig, Str name, int64_t off, Shape *shape);

void build_computation_begin(ParseCtx *ctx, bool entry, int64_t entry_off, Str name,
                             int64_t name_off, SigTok *sig /* NULL: none */);
Computation *build_computation_end(ParseCtx *ctx, int64_t close_off);
Computation *build_inline_computation_begin(ParseCtx *ctx, int64_t off);
void build_execution_thread(ParseCtx *ctx, Computation *c, Str s, int64_t off);

/* Operands and instructions. */
Instr *build_operand_ref(ParseCtx *ctx, Str name, int64_t off, Shape *shape, int64_t shape_off);
OpCall *build_call(ParseCtx *ctx, Str opname, int64_t off, Vec *operands);
OpCall *build_param_call(ParseCtx *ctx, Str opname, int64_t off, IntTok n, int64_t n_off);
OpCall *build_const_call(ParseCtx *ctx, int64_t off, Literal *lit);
Instr *build_nested_instr(ParseCtx *ctx, Shape *shape, OpCall *call);
void build_instr(ParseCtx *ctx, bool root, int64_t root_off, Str name, int64_t name_off,
                 Shape *shape, OpCall *call, Vec *attrs);

/* Attributes (build_attrs.c).  Each returns an Attr in the arena. */
Attr *attr_new(ParseCtx *ctx, const AttrTok *name, AttrValueKind kind);
Attr *attr_bool(ParseCtx *ctx, AttrTok *name, bool v);
Attr *attr_int(ParseCtx *ctx, AttrTok *name, IntTok v, int64_t off);
Attr *attr_float(ParseCtx *ctx, AttrTok *name, double v);
Attr *attr_string(ParseCtx *ctx, AttrTok *name, Str s, int64_t off);
Attr *attr_raw_brace(ParseCtx *ctx, AttrTok *name, Str raw);
Attr *attr_enum(ParseCtx *ctx, AttrTok *name, Str word, int64_t off);
Attr *attr_enum_list(ParseCtx *ctx, AttrTok *name, Vec *words);
Attr *attr_int_list(ParseCtx *ctx, AttrTok *name, Vec *ints);
/* "{}" (depth 0), "{1,2}" (depth 1) or "{{0,1},{1,0}}" (depth 2). */
typedef struct IntListsTok {
  int depth;
  Vec flat;  /* int64_t */
  Vec lists; /* Vec of int64_t */
} IntListsTok;

Attr *attr_int_lists(ParseCtx *ctx, AttrTok *name, IntListsTok *v, int64_t off);
Attr *attr_bool_list(ParseCtx *ctx, AttrTok *name, Vec *bools);
Attr *attr_slice(ParseCtx *ctx, AttrTok *name, Vec *ranges);
Attr *attr_padding(ParseCtx *ctx, AttrTok *name, Str pad, int64_t off);
Attr *attr_window(ParseCtx *ctx, AttrTok *name, Vec *fields, int64_t off);
Attr *attr_dim_labels(ParseCtx *ctx, AttrTok *name, Str labels, int64_t off);
Attr *attr_replica_groups(ParseCtx *ctx, AttrTok *name, IntListsTok *v, int64_t off);
Attr *attr_replica_groups_iota(ParseCtx *ctx, AttrTok *name, IntTok g, IntTok s, Vec *reshape,
                               Vec *perm, int64_t off);
Attr *attr_computation(ParseCtx *ctx, AttrTok *name, Computation *c);
Attr *attr_computation_list(ParseCtx *ctx, AttrTok *name, Vec *comps);
Attr *attr_shape(ParseCtx *ctx, AttrTok *name, Shape *s);
Attr *attr_shape_list(ParseCtx *ctx, AttrTok *name, Vec *shapes);
Attr *attr_instr_list(ParseCtx *ctx, AttrTok *name, Vec *instrs);
Attr *attr_literal(ParseCtx *ctx, AttrTok *name, Literal *lit);
/* Values kept as their verbatim source text [first, last). */
Attr *attr_raw_text(ParseCtx *ctx, AttrTok *name, int64_t first, int64_t last);

Computation *build_computation_ref(ParseCtx *ctx, Str name, int64_t off);
Instr *build_instr_ref(ParseCtx *ctx, Str name, int64_t off);

/* Structured sub-values checked on the way (build_attrs.c). */
typedef struct WindowField {
  Str name;
  int64_t off;
  int kind; /* token kind: INT, DXD or PAD */
  Str text;
  int64_t value_off;
} WindowField;

typedef struct SliceRange {
  int64_t start, limit, stride;
} SliceRange;

void check_synthetic_call(ParseCtx *ctx, Str word, int64_t off);
void check_sharding_name(ParseCtx *ctx, Str name, int64_t off, const char *expected);
void check_result_accuracy_mode(ParseCtx *ctx, Str field, int64_t off, Str value,
                                int64_t value_off);
void check_result_accuracy_tolerance(ParseCtx *ctx, Str field, int64_t off, Vec *fields);
void check_tile_assignment(ParseCtx *ctx, Vec *dims, Vec *devices, int64_t off);
void check_tile_assignment_iota(ParseCtx *ctx, Vec *dims, Vec *reshape, Vec *perm, int64_t off);
int64_t parse_int_text(ParseCtx *ctx, const char *p, const char *end, int64_t off, bool *ok);
void check_alias_kind(ParseCtx *ctx, Str kind, int64_t off);
void check_dim(ParseCtx *ctx, IntTok v, int64_t off);
void check_dim_level_type(ParseCtx *ctx, Str letter, int64_t off);
double num_to_double(Num n);

/* More list helpers for the grammar. */
bool vec_push_vec(ParseCtx *ctx, Vec *vec, const Vec *elem);
bool vec_push_str(ParseCtx *ctx, Vec *vec, Str s, int64_t off); /* StrTok */
bool vec_push_range(ParseCtx *ctx, Vec *vec, SliceRange r);
bool vec_push_wfield(ParseCtx *ctx, Vec *vec, WindowField f);
bool vec_push_dim(ParseCtx *ctx, Vec *vec, DimTok d);
bool vec_push_int_at(ParseCtx *ctx, Vec *vec, int64_t v, int64_t off); /* IntAt */

/* Layout pieces. */
LayoutSuffix *layout_type_suffix(ParseCtx *ctx, LayoutSuffixKind kind, EType t, int64_t off);
void layout_shape_group(ParseCtx *ctx, Vec *groups, Shape *shape, int64_t off);
LayoutGroup *layout_group(ParseCtx *ctx, LayoutGroupKind kind, Vec *ints, int64_t split_dim,
                          int64_t off);

/* The lexer entry point (lexer.re).  Defined with Bison's types. */
#endif
