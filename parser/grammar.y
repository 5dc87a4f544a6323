/* The grammar of HLO text (hlo-text.md sections 3-7).
 *
 * Read it top-down like the reference: module, computations, instructions,
 * operands, attributes, shapes and layouts, literals, then the structured
 * attribute values (window, sharding, metadata, ...).
 *
 * Two entries: the lexer's first token says whether the text is a module
 * (parse_module) or one shape on its own (parse_shape_text, hlolayout's
 * SHAPE): the shape rules are the same for both.
 *
 * Actions are thin: they call the builder (build*.c), which owns name
 * resolution, IR construction and XLA's parse-time checks.  All semantic
 * values live in the module's arena, so no %destructor is needed: when a
 * parse fails the arena is freed as a whole.
 *
 * Lexical context: the lexer classifies "name=" by where it is (see
 * lexer.re), so instruction attributes arrive as one token kind per value
 * syntax (A_INT_LIST, A_WINDOW, ...), header attributes as H_* tokens, and
 * fields inside structured values as plain ATTRIBUTE_NAME.  Where a value
 * is not a plain structured one (an inline body, raw braces, a verbatim
 * unknown value), the grammar asks the lexer for that mode: want_* below.
 *
 * Error recovery: a syntax error inside a computation body discards the
 * rest of the instruction line (the lexer then hands us RESYNC) and parsing
 * continues with the next instruction, so one run reports several errors. */

%define api.prefix {hloyy}
%define api.pure full
%define api.location.type {SrcSpan}
%locations
%define parse.error custom
/* Exact "expecting ..." lists despite default reductions. */
%define parse.lac full
%param {ParseCtx *ctx}
%expect 0

%code requires {
#include "parser/parse_internal.h"

/* Locations are byte offsets [first, last) into the source. */
typedef struct SrcSpan {
  int64_t first, last;
} SrcSpan;

typedef struct RhsTok {
  Shape *shape; /* NULL when not written */
  OpCall *call;
} RhsTok;
}

%code provides {
int hloyylex(HLOYYSTYPE *lval, HLOYYLTYPE *lloc, ParseCtx *ctx);
int parse_run(ParseCtx *ctx);
}

%code {
#include <math.h>
#include <stdio.h>
#include <string.h>

#define YYLLOC_DEFAULT(Cur, Rhs, N)            \
  do {                                         \
    if (N) {                                   \
      (Cur).first = YYRHSLOC(Rhs, 1).first;    \
      (Cur).last = YYRHSLOC(Rhs, N).last;      \
    } else {                                   \
      (Cur).first = (Cur).last = YYRHSLOC(Rhs, 0).last; \
    }                                          \
  } while (0)

/* Deep nesting is stopped by the lexer (LEX_MAX_NESTING) well before the
 * parser stack gets here; this is only a backstop. */
#define YYMAXDEPTH 20000

static void hloyyerror(const HLOYYLTYPE *loc, ParseCtx *ctx, const char *msg);

#define PUSH_PTR(vec, p) vec_push_ptr(ctx, &(vec), (p))
#define PUSH_I64(vec, x) vec_push_i64(ctx, &(vec), (x))
#define TEXT(loc) ((Str){ctx->src + (loc).first, (loc).last - (loc).first})
#define STOP_IF_HOPELESS() do { if (ctx->too_many_errors || ctx->oom) YYABORT; } while (0)
}

%union {
  Str str;
  IntTok integer;
  Num num;
  EType etype;
  AttrTok attr;
  bool boolean;
  double real;
  Vec vec;
  IntListsTok lists;
  Shape *shape;
  LayoutTok *layout;
  LayoutSuffix *suffix;
  LayoutGroup *group;
  DimTok dim;
  SigTok *sig;
  RhsTok rhs;
  OpCall *call;
  Instr *instr;
  Attr *attrp;
  Computation *comp;
  LitValue litv;
  WindowField wfield;
  SliceRange range;
  Literal *literal;
}

/* ---- tokens ---- */
%token <str> IDENT "identifier"
%token <str> NAME "%name"
%token <str> NAME_COLON "parameter name"
%token <str> STRING "string"
%token <str> RAW "raw value"
%token <str> DIM_LABELS "dim labels"
%token <str> DXD "window dimensions"
%token <str> PAD "padding"
%token <str> SPARSITY_DESC "sparsity descriptor"
%token <str> KW_CONSTANT "constant"
%token <integer> INT "integer"
%token <num> DECIMAL "decimal"
%token <etype> PRIMITIVE_TYPE "type"
%token KW_TRUE "true" KW_FALSE "false" KW_INF "inf"
%token KW_HLOMODULE "HloModule" KW_ENTRY "ENTRY" KW_ROOT "ROOT"
%token KW_MAXIMAL "maximal" KW_REPLICATED "replicated" KW_MANUAL "manual"
%token KW_LAST_TILE_DIM_REPLICATE "last_tile_dim_replicate"
%token KW_SHARD_AS "shard_as" KW_SHARD_LIKE "shard_like" KW_UNKNOWN "unknown"
%token ARROW "->" LEQ "<=" ELLIPSIS "..." BUFFER_LPAREN "b("
%token LAYOUT_LBRACE "'{' of a layout"
%token RESYNC "next line"
%token IOTA_T "T" /* the transpose of an iota list: "<=[2,2]T(1,0)" */
/* The first token, which says what the text is (parse_run sets it). */
%token START_MODULE "start of a module" START_SHAPE "start of a shape"

/* Attribute names ("name=" with the '='), one kind per value syntax. */
%token <attr> ATTRIBUTE_NAME "attribute name"
%token <attr> A_BOOL "boolean attribute" A_INT "integer attribute" A_FLOAT "float attribute"
%token <attr> A_STRING "string attribute" A_STRING_OR_RAW "backend_config"
%token <attr> A_ENUM "enum attribute" A_ENUM_LIST "enum list attribute"
%token <attr> A_INT_LIST "integer list attribute" A_INT_LISTS "integer lists attribute"
%token <attr> A_BOOL_LIST "boolean list attribute" A_SLICE "slice" A_PADDING "padding="
%token <attr> A_WINDOW "window" A_DIM_LABELS "dim_labels" A_REPLICA_GROUPS "replica_groups"
%token <attr> A_COMPUTATION "computation attribute" A_COMPUTATION_LIST "computation list attribute"
%token <attr> A_SHAPE "shape attribute" A_SHAPE_LIST "shape list attribute"
%token <attr> A_INSTR_LIST "control-predecessors" A_LITERAL "literal="
%token <attr> A_METADATA "metadata" A_SHARDING "sharding" A_FRONTEND "frontend_attributes"
%token <attr> A_STATISTICS "statistics" A_ORIGIN "origin" A_RESULT_ACCURACY "result_accuracy"
%token <attr> A_SPARSITY "sparsity" A_DOMAIN "domain"
%token <attr> A_OPERAND_ALIASING "output_to_operand_aliasing"
%token <attr> A_UNKNOWN "unknown attribute"
%token <attr> H_ENTRY_LAYOUT "entry_computation_layout" H_IO_ALIAS "input_output_alias"
%token <attr> H_BUFFER_DONOR "buffer_donor" H_BOOL_OR_LIST "allow_spmd attribute"
%token <attr> H_EXEC_THREAD "execution_thread"

/* ---- nonterminals ---- */
%type <str> name exec_thread_opt
%type <boolean> entry_opt root_opt bool
%type <sig> signature_opt sig_params_opt sig_params
%type <rhs> instr_rhs
%type <call> call
%type <instr> operand
%type <vec> operands_opt operand_list attr_list ints_opt ints int_list shape_index
%type <vec> shapes_opt shapes dims_opt dims bools_opt bools idents_opt idents
%type <vec> slice_ranges_opt slice_ranges window_fields_opt window_fields
%type <vec> comp_names_opt comp_names instr_names_opt instr_names iota_perm_opt
%type <vec> layout_suffixes suffix_part suffix_groups groups tdims ints_at_opt ints_at
%type <vec> stat_fields
%type <lists> int_lists int_list_seq
%type <attrp> attribute
%type <comp> computation_ref
%type <shape> shape
%type <layout> layout_opt layout
%type <suffix> layout_suffix
%type <group> group
%type <dim> dim
%type <real> float_value
%type <litv> lit_scalar
%type <wfield> window_field
%type <range> slice_range
%type <vec> shaped_literals
%type <literal> shaped_literal

%%

/* ========================================================================
 * Module (3.1)
 * ======================================================================== */

/* A module (parse_module), or one shape on its own (parse_shape_text). */
input
  : START_MODULE header_opt computations
  | START_SHAPE shape                   { ctx->shape_result = $2; }
  ;

header_opt
  : %empty
  | "HloModule" name header_attrs       { build_header(ctx, $2, @2.first); }
  ;

header_attrs
  : %empty
  | header_attrs ',' header_attr
  ;

/* 3.3: the header attributes.  All are kept as their text; the ones an
 * interpreter needs are decoded into Module fields as well. */
header_attr
  : A_INT INT                           { build_header_int(ctx, &$1, $2, @2.first);
                                          build_header_attr(ctx, &$1, @2.first, @2.last); }
  | A_BOOL bool                         { build_header_bool(ctx, &$1, $2);
                                          build_header_attr(ctx, &$1, @2.first, @2.last); }
  | H_BOOL_OR_LIST bool                 { build_header_attr(ctx, &$1, @2.first, @2.last); }
  | H_BOOL_OR_LIST '{' bools '}'        { build_header_attr(ctx, &$1, @2.first, @4.last); }
  | H_ENTRY_LAYOUT '{' '(' shapes_opt ')' "->" shape '}'
                                        { build_entry_layout(ctx, &$4, $7);
                                          build_header_attr(ctx, &$1, @2.first, @8.last); }
  | H_IO_ALIAS '{' io_aliases_opt '}'   { build_header_attr(ctx, &$1, @2.first, @4.last); }
  | H_BUFFER_DONOR '{' donors_opt '}'   { build_header_attr(ctx, &$1, @2.first, @4.last); }
  | A_FRONTEND want_frontend frontend_attrs
                                        { build_header_attr(ctx, &$1, @3.first, @3.last); }
  | A_UNKNOWN want_raw_value RAW        { build_header_attr(ctx, &$1, @3.first, @3.last); }
  ;

/* input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}) } */
io_aliases_opt
  : %empty
  | io_aliases
  ;

io_aliases
  : io_alias
  | io_aliases ',' io_alias
  ;

io_alias
  : shape_index ':' '(' INT ',' shape_index ')'
  | shape_index ':' '(' INT ',' shape_index ',' IDENT ')'
                                        { check_alias_kind(ctx, $8, @8.first); }
  ;

/* buffer_donor={ (0, {}), (1, {}) } */
donors_opt
  : %empty
  | donors
  ;

donors
  : '(' INT ',' shape_index ')'
  | donors ',' '(' INT ',' shape_index ')'
  ;

/* ========================================================================
 * Computations
 * ======================================================================== */

computations
  : computation
  | computations computation
  ;

computation
  : entry_opt name signature_opt '{'
                                        { build_computation_begin(ctx, $1, @1.first, $2, @2.first, $3); }
    instr_list '}'
                                        { $<comp>$ = build_computation_end(ctx, @7.first); }
    exec_thread_opt
                                        { if ($9.p) build_execution_thread(ctx, $<comp>8, $9, @9.first); }
  ;

entry_opt
  : %empty                              { $$ = false; }
  | "ENTRY"                             { $$ = true; }
  ;

/* (p0: f32[], p1: s32[2]) -> f32[] */
signature_opt
  : %empty                              { $$ = NULL; }
  | '(' sig_params_opt ')' "->" shape   { $$ = $2; $$->result = $5; $$->result_off = @5.first; }
  ;

sig_params_opt
  : %empty                              { $$ = sig_new(ctx); }
  | sig_params
  ;

sig_params
  : NAME_COLON shape                    { $$ = sig_new(ctx); sig_add(ctx, $$, $1, @1.first, $2); }
  | sig_params ',' NAME_COLON shape     { $$ = $1; sig_add(ctx, $$, $3, @3.first, $4); }
  ;

exec_thread_opt
  : %empty                              { $$ = (Str){NULL, 0}; }
  | ',' H_EXEC_THREAD STRING            { $$ = $3; }
  ;

instr_list
  : instruction
  | error RESYNC                        { STOP_IF_HOPELESS(); yyerrok; }
  | instr_list instruction
  | instr_list error RESYNC             { STOP_IF_HOPELESS(); yyerrok; }
  ;

/* ========================================================================
 * Instructions (3.1, 3.2, 3.4)
 * ======================================================================== */

instruction
  : root_opt name '=' instr_rhs attr_list
                                        { build_instr(ctx, $1, @1.first, $2, @2.first,
                                                      $4.shape, $4.call, &$5);
                                          STOP_IF_HOPELESS(); }
  ;

root_opt
  : %empty                              { $$ = false; }
  | "ROOT"                              { $$ = true; }
  ;

/* XLA's lexer makes both "%x" and "x:" a name token, so "x:" is accepted
 * wherever a name is ("HloModule m:" occurs in real files). */
name
  : IDENT
  | NAME
  | NAME_COLON
  | "constant"
  ;

/* The result shape is optional for opcodes whose shape can be inferred;
 * a constant's literal is parsed against its (mandatory) shape. */
instr_rhs
  : call                                { $$ = (RhsTok){NULL, $1}; }
  | shape call                          { $$ = (RhsTok){$1, $2}; }
  | shape "constant" '('                { lit_begin(ctx, $1, @3.first); }
    literal ')'                         { $$ = (RhsTok){$1, build_const_call(ctx, @2.first, lit_end(ctx, @6.first))}; }
  ;

/* opcode(operands), or parameter(N) */
call
  : IDENT '(' operands_opt ')'          { $$ = build_call(ctx, $1, @1.first, &$3); }
  | IDENT '(' INT ')'                   { $$ = build_param_call(ctx, $1, @1.first, $3, @3.first); }
  ;

operands_opt
  : %empty                              { $$ = (Vec){0}; }
  | operand_list
  ;

operand_list
  : operand                             { $$ = (Vec){0}; PUSH_PTR($$, $1); }
  | operand_list ',' operand            { $$ = $1; PUSH_PTR($$, $3); }
  ;

/* "[shape] name", or a nested unnamed instruction (3.4). */
operand
  : name                                { $$ = build_operand_ref(ctx, $1, @1.first, NULL, 0); }
  | shape name                          { $$ = build_operand_ref(ctx, $2, @2.first, $1, @1.first); }
  | call                                { $$ = build_nested_instr(ctx, NULL, $1); }
  | shape call                          { $$ = build_nested_instr(ctx, $1, $2); }
  | shape "constant" '('                { lit_begin(ctx, $1, @3.first); }
    literal ')'                         { $$ = build_nested_instr(ctx, $1, build_const_call(ctx, @2.first, lit_end(ctx, @6.first))); }
  ;

attr_list
  : %empty                              { $$ = (Vec){0}; }
  | attr_list ',' attribute             { $$ = $1; if ($3) PUSH_PTR($$, $3); }
  ;

/* ========================================================================
 * Attributes (6)
 * ======================================================================== */

attribute
  : A_BOOL bool                         { $$ = attr_bool(ctx, &$1, $2); }
  | A_INT INT                           { $$ = attr_int(ctx, &$1, $2, @2.first); }
  | A_FLOAT float_value                 { $$ = attr_float(ctx, &$1, $2); }
  | A_STRING STRING                     { $$ = attr_string(ctx, &$1, $2, @2.first); }
  | A_STRING_OR_RAW want_raw_braces STRING
                                        { $$ = attr_string(ctx, &$1, $3, @3.first); }
  | A_STRING_OR_RAW want_raw_braces RAW { $$ = attr_raw_brace(ctx, &$1, $3); }
  | A_ENUM IDENT                        { $$ = attr_enum(ctx, &$1, $2, @2.first); }
  | A_ENUM_LIST '{' idents_opt '}'      { $$ = attr_enum_list(ctx, &$1, &$3); }
  | A_INT_LIST int_list                 { $$ = attr_int_list(ctx, &$1, &$2); }
  | A_INT_LISTS int_lists               { $$ = attr_int_lists(ctx, &$1, &$2, @2.first); }
  | A_BOOL_LIST '{' bools_opt '}'       { $$ = attr_bool_list(ctx, &$1, &$3); }
  | A_SLICE '{' slice_ranges_opt '}'    { $$ = attr_slice(ctx, &$1, &$3); }
  | A_PADDING PAD                       { $$ = attr_padding(ctx, &$1, $2, @2.first); }
  | A_WINDOW '{' window_fields_opt '}'  { $$ = attr_window(ctx, &$1, &$3, @2.first); }
  | A_DIM_LABELS DIM_LABELS             { $$ = attr_dim_labels(ctx, &$1, $2, @2.first); }
  | A_REPLICA_GROUPS int_lists          { $$ = attr_replica_groups(ctx, &$1, &$2, @2.first); }
  | A_REPLICA_GROUPS '[' INT ',' INT ']' "<=" '[' ints ']' iota_perm_opt
                                        { $$ = attr_replica_groups_iota(ctx, &$1, $3, $5, &$9, &$11, @2.first); }
  | A_COMPUTATION want_body computation_ref
                                        { $$ = attr_computation(ctx, &$1, $3); }
  | A_COMPUTATION_LIST '{' comp_names_opt '}'
                                        { $$ = attr_computation_list(ctx, &$1, &$3); }
  | A_SHAPE shape                       { $$ = attr_shape(ctx, &$1, $2); }
  | A_SHAPE_LIST '{' shapes_opt '}'     { $$ = attr_shape_list(ctx, &$1, &$3); }
  | A_INSTR_LIST '{' instr_names_opt '}'
                                        { $$ = attr_instr_list(ctx, &$1, &$3); }
  | A_LITERAL shape                     { lit_begin(ctx, $2, @2.last); }
    literal                             { $$ = attr_literal(ctx, &$1, lit_end(ctx, @4.last)); }
  | A_LITERAL '(' shaped_literals ')'   { $$ = attr_literal(ctx, &$1, lit_tuple_of(ctx, &$3, @2.first)); }
  | A_METADATA metadata                 { $$ = attr_raw_text(ctx, &$1, @2.first, @2.last); }
  | A_SHARDING want_sharding sharding   { $$ = attr_raw_text(ctx, &$1, @3.first, @3.last); }
  | A_SHARDING want_sharding RAW        { $$ = attr_raw_text(ctx, &$1, @3.first, @3.last); }
  | A_FRONTEND want_frontend frontend_attrs
                                        { $$ = attr_raw_text(ctx, &$1, @3.first, @3.last); }
  | A_STATISTICS statistics             { $$ = attr_raw_text(ctx, &$1, @2.first, @2.last); }
  | A_ORIGIN origin                     { $$ = attr_raw_text(ctx, &$1, @2.first, @2.last); }
  | A_RESULT_ACCURACY result_accuracy   { $$ = attr_raw_text(ctx, &$1, @2.first, @2.last); }
  | A_SPARSITY SPARSITY_DESC            { $$ = attr_raw_text(ctx, &$1, @2.first, @2.last); }
  | A_DOMAIN domain                     { $$ = attr_raw_text(ctx, &$1, @2.first, @2.last); }
  | A_OPERAND_ALIASING operand_aliasing { $$ = attr_raw_text(ctx, &$1, @2.first, @2.last); }
  | A_UNKNOWN want_raw_value RAW        { $$ = attr_raw_text(ctx, &$1, @3.first, @3.last); }
  ;

/* Lexer modes the parser asks for (lexer.re, lex_expect): reduced right
 * after the attribute name is shifted, in a state with this reduction as
 * its only action, so Bison runs them before reading the value's first
 * token. */
want_body:       %empty { lex_expect(&ctx->lx, LEX_EXPECT_BODY); };
want_frontend:   %empty { lex_expect(&ctx->lx, LEX_EXPECT_FRONTEND); };
want_raw_braces: %empty { lex_expect(&ctx->lx, LEX_EXPECT_RAW_BRACES); };
want_raw_value:  %empty { lex_expect(&ctx->lx, LEX_EXPECT_RAW_VALUE); };
want_sharding:   %empty { lex_expect(&ctx->lx, LEX_EXPECT_SHARDING); };

bool
  : "true"                              { $$ = true; }
  | "false"                             { $$ = false; }
  ;

float_value
  : INT                                 { $$ = $1.big ? (double)(uint64_t)$1.v : (double)$1.v; }
  | DECIMAL                             { $$ = num_to_double($1); }
  | "inf"                               { $$ = (double)INFINITY; }
  ;

/* {1, 2, 3} */
int_list
  : '{' ints_opt '}'                    { $$ = $2; }
  ;

ints_opt
  : %empty                              { $$ = (Vec){0}; }
  | ints
  ;

ints
  : INT                                 { $$ = (Vec){0}; PUSH_I64($$, $1.v); }
  | ints ',' INT                        { $$ = $1; PUSH_I64($$, $3.v); }
  ;

/* {} | {1,2} | {{0,1},{1,0}} */
int_lists
  : '{' '}'                             { $$ = (IntListsTok){0}; }
  | '{' ints '}'                        { $$ = (IntListsTok){.depth = 1, .flat = $2}; }
  | '{' int_list_seq '}'                { $$ = $2; }
  ;

int_list_seq
  : int_list                            { $$ = (IntListsTok){.depth = 2}; vec_push_vec(ctx, &$$.lists, &$1); }
  | int_list_seq ',' int_list           { $$ = $1; vec_push_vec(ctx, &$$.lists, &$3); }
  ;

bools_opt
  : %empty                              { $$ = (Vec){0}; }
  | bools
  ;

bools
  : bool                                { $$ = (Vec){0}; PUSH_I64($$, $1); }
  | bools ',' bool                      { $$ = $1; PUSH_I64($$, $3); }
  ;

idents_opt
  : %empty                              { $$ = (Vec){0}; }
  | idents
  ;

idents
  : IDENT                               { $$ = (Vec){0}; vec_push_str(ctx, &$$, $1, @1.first); }
  | idents ',' IDENT                    { $$ = $1; vec_push_str(ctx, &$$, $3, @3.first); }
  ;

/* slice={[0:2], [1:9:2]} */
slice_ranges_opt
  : %empty                              { $$ = (Vec){0}; }
  | slice_ranges
  ;

slice_ranges
  : slice_range                         { $$ = (Vec){0}; vec_push_range(ctx, &$$, $1); }
  | slice_ranges ',' slice_range        { $$ = $1; vec_push_range(ctx, &$$, $3); }
  ;

slice_range
  : '[' INT ':' INT ']'                 { $$ = (SliceRange){$2.v, $4.v, 1}; }
  | '[' INT ':' INT ':' INT ']'         { $$ = (SliceRange){$2.v, $4.v, $6.v}; }
  ;

/* window={size=3x3 stride=2x2 pad=0_1x0_1}: fields separated by spaces. */
window_fields_opt
  : %empty                              { $$ = (Vec){0}; }
  | window_fields
  ;

window_fields
  : window_field                        { $$ = (Vec){0}; vec_push_wfield(ctx, &$$, $1); }
  | window_fields window_field          { $$ = $1; vec_push_wfield(ctx, &$$, $2); }
  ;

window_field
  : ATTRIBUTE_NAME INT                  { $$ = (WindowField){$1.name, $1.off, INT, TEXT(@2), @2.first}; }
  | ATTRIBUTE_NAME DXD                  { $$ = (WindowField){$1.name, $1.off, DXD, $2, @2.first}; }
  | ATTRIBUTE_NAME PAD                  { $$ = (WindowField){$1.name, $1.off, PAD, $2, @2.first}; }
  ;

/* replica_groups=[2,2]<=[2,2]T(1,0): the T(...) part of the iota form. */
iota_perm_opt
  : %empty                              { $$ = (Vec){0}; }
  | IOTA_T '(' ints ')'                 { $$ = $3; }
  ;

/* to_apply=%add, or an inline body to_apply={ ... } */
computation_ref
  : name                                { $$ = build_computation_ref(ctx, $1, @1.first); }
  | '{'                                 { build_inline_computation_begin(ctx, @1.first); }
    instr_list '}'                      { $$ = build_computation_end(ctx, @4.first); }
  ;

comp_names_opt
  : %empty                              { $$ = (Vec){0}; }
  | comp_names
  ;

comp_names
  : name                                { $$ = (Vec){0}; PUSH_PTR($$, build_computation_ref(ctx, $1, @1.first)); }
  | comp_names ',' name                 { $$ = $1; PUSH_PTR($$, build_computation_ref(ctx, $3, @3.first)); }
  ;

instr_names_opt
  : %empty                              { $$ = (Vec){0}; }
  | instr_names
  ;

instr_names
  : name                                { $$ = (Vec){0}; PUSH_PTR($$, build_instr_ref(ctx, $1, @1.first)); }
  | instr_names ',' name                { $$ = $1; PUSH_PTR($$, build_instr_ref(ctx, $3, @3.first)); }
  ;

/* ---- values kept verbatim, checked for syntax here ---- */

/* metadata={op_type="Add" op_name="a/b" source_file="f.py" source_line=3} */
metadata
  : '{' meta_fields_opt '}'
  ;

meta_fields_opt
  : %empty
  | meta_fields
  ;

meta_fields
  : meta_field
  | meta_fields meta_field
  | meta_fields ',' meta_field
  ;

meta_field
  : ATTRIBUTE_NAME STRING
  | ATTRIBUTE_NAME INT
  | ATTRIBUTE_NAME bool
  | ATTRIBUTE_NAME int_list
  ;

/* 6.4 sharding */
sharding
  : '{' '}'
  | '{' sharding_single '}'
  | '{' sharding_elems '}'
  ;

sharding_elems
  : '{' sharding_single '}'
  | sharding_elems ',' '{' sharding_single '}'
  ;

sharding_single
  : sharding_kind sharding_extras
  ;

sharding_kind
  : "replicated"
  | "manual"
  | "unknown"
  | "maximal" ATTRIBUTE_NAME INT        { check_sharding_name(ctx, $2.name, $2.off, "device"); }
  | ATTRIBUTE_NAME '[' ints ']' ints    { check_sharding_name(ctx, $1.name, $1.off, "devices");
                                          check_tile_assignment(ctx, &$3, &$5, @2.first); }
  | ATTRIBUTE_NAME '[' ints ']' "<=" '[' ints ']' iota_perm_opt
                                        { check_sharding_name(ctx, $1.name, $1.off, "devices");
                                          check_tile_assignment_iota(ctx, &$3, &$7, &$9, @2.first); }
  ;

sharding_extras
  : %empty
  | sharding_extras sharding_extra
  ;

sharding_extra
  : "last_tile_dim_replicate"
  | "shard_as" INT
  | "shard_like" INT
  | ATTRIBUTE_NAME '{' sharding_kinds '}'
                                        { check_sharding_name(ctx, $1.name, $1.off, "last_tile_dims"); }
  | ATTRIBUTE_NAME metadata             { check_sharding_name(ctx, $1.name, $1.off, "metadata"); }
  | ATTRIBUTE_NAME '{' metadata_list '}'
                                        { check_sharding_name(ctx, $1.name, $1.off, "metadata"); }
  ;

sharding_kinds
  : sharding_kw
  | sharding_kinds ',' sharding_kw
  ;

sharding_kw
  : "manual"
  | "replicated"
  | "unknown"
  | "maximal"
  ;

metadata_list
  : metadata
  | metadata_list ',' metadata
  ;

/* frontend_attributes={key="value", key2={raw}} */
frontend_attrs
  : '{' '}'
  | '{' frontend_list '}'
  ;

frontend_list
  : frontend_attr
  | frontend_list ',' frontend_attr
  ;

frontend_attr
  : ATTRIBUTE_NAME want_raw_braces STRING
  | ATTRIBUTE_NAME want_raw_braces RAW
  ;

/* statistics={visualizing_index=1,stat0=0.5} */
statistics
  : '{' stat_fields '}'
  ;

stat_fields
  : ATTRIBUTE_NAME number               { $$ = (Vec){0}; vec_push_str(ctx, &$$, $1.name, $1.off); }
  | stat_fields ',' ATTRIBUTE_NAME number
                                        { $$ = $1; vec_push_str(ctx, &$$, $3.name, $3.off); }
  ;

number
  : INT
  | DECIMAL
  | "inf"
  ;

/* result_accuracy={mode=highest} | {tolerance={atol=0,rtol=0,ulps=1}} */
result_accuracy
  : '{' ATTRIBUTE_NAME IDENT '}'        { check_result_accuracy_mode(ctx, $2.name, $2.off, $3, @3.first); }
  | '{' ATTRIBUTE_NAME '{' stat_fields '}' '}'
                                        { check_result_accuracy_tolerance(ctx, $2.name, $2.off, &$4); }
  ;

/* origin={{"a"}} | {({"a" {0}}, {"b"})} | {[synthetic_call]}; a leaf may
 * be empty ({}) where the value has no origin. */
origin
  : '{' origin_nodes_opt '}'
  | '{' '[' IDENT ']' '}'                { check_synthetic_call(ctx, $3, @3.first); }
  ;

origin_nodes_opt
  : %empty
  | origin_nodes
  ;

origin_nodes
  : origin_node
  | origin_nodes ',' origin_node
  ;

origin_node
  : '{' '}'
  | '{' STRING '}'
  | '{' STRING shape_index '}'
  | '(' origin_nodes_opt ')'
  ;

/* domain={kind="sharding", entry={maximal device=0}, exit={replicated}} */
domain
  : '{' domain_fields '}'
  ;

domain_fields
  : domain_field
  | domain_fields ',' domain_field
  ;

domain_field
  : ATTRIBUTE_NAME STRING
  | ATTRIBUTE_NAME sharding
  ;

/* output_to_operand_aliasing={{0}: (1, {}), {1}: (2, {0})} */
operand_aliasing
  : '{' '}'
  | '{' alias_entries '}'
  ;

alias_entries
  : alias_entry
  | alias_entries ',' alias_entry
  ;

alias_entry
  : shape_index ':' '(' INT ',' shape_index ')'
  ;

shape_index
  : '{' ints_opt '}'                    { $$ = $2; }
  ;

/* ========================================================================
 * Shapes and layouts (4)
 * ======================================================================== */

shape
  : PRIMITIVE_TYPE '[' dims_opt ']' layout_opt
                                        { $$ = build_array_shape(ctx, $1, @1.first, &$3, $5); }
  | '(' shapes_opt ')'                  { $$ = build_tuple_shape(ctx, &$2, @1.first); }
  | "b(" shape ')'                      { $$ = build_buffer_shape(ctx, $2, @1.first); }
  ;

shapes_opt
  : %empty                              { $$ = (Vec){0}; }
  | shapes
  ;

shapes
  : shape                               { $$ = (Vec){0}; PUSH_PTR($$, $1); }
  | shapes ',' shape                    { $$ = $1; PUSH_PTR($$, $3); }
  ;

dims_opt
  : %empty                              { $$ = (Vec){0}; }
  | dims
  ;

dims
  : dim                                 { $$ = (Vec){0}; vec_push_dim(ctx, &$$, $1); }
  | dims ',' dim                        { $$ = $1; vec_push_dim(ctx, &$$, $3); }
  ;

/* 8 | <=8 | ? */
dim
  : INT                                 { $$ = (DimTok){$1.v, false, @1.first}; check_dim(ctx, $1, @1.first); }
  | "<=" INT                            { $$ = (DimTok){$2.v, true, @2.first}; check_dim(ctx, $2, @2.first); }
  | '?'                                 { $$ = (DimTok){SHAPE_DIM_UNBOUNDED, true, @1.first}; }
  ;

layout_opt
  : %empty                              { $$ = NULL; }
  | layout
  ;

/* {1,0:T(8,128)(2,1)E(4)S(1)} */
layout
  : LAYOUT_LBRACE ints_at_opt suffix_part '}'
                                        { $$ = build_layout(ctx, &$2, &$3, @3.first < @3.last, @1.first); }
  ;

/* Integers whose offsets diagnostics need: minor_to_major, split indices. */
ints_at_opt
  : %empty                              { $$ = (Vec){0}; }
  | ints_at
  ;

ints_at
  : INT                                 { $$ = (Vec){0}; vec_push_int_at(ctx, &$$, $1.v, @1.first); }
  | ints_at ',' INT                     { $$ = $1; vec_push_int_at(ctx, &$$, $3.v, @3.first); }
  ;

suffix_part
  : %empty                              { $$ = (Vec){0}; }
  | ':' layout_suffixes                 { $$ = $2; }
  ;

layout_suffixes
  : %empty                              { $$ = (Vec){0}; }
  | layout_suffixes layout_suffix       { $$ = $1; PUSH_PTR($$, $2); }
  ;

/* T(..)(..), L(n), E(n), S(n), M(n), SC(d:i,..), D(D,C+~), P(shape), #(t), *(t) */
layout_suffix
  : IDENT suffix_groups                 { $$ = build_layout_suffix(ctx, $1, @1.first, &$2); }
  | '#' '(' PRIMITIVE_TYPE ')'          { $$ = layout_type_suffix(ctx, LS_INDEX, $3, @1.first); }
  | '*' '(' PRIMITIVE_TYPE ')'          { $$ = layout_type_suffix(ctx, LS_POINTER, $3, @1.first); }
  ;

suffix_groups
  : '(' shape ')'                       { $$ = (Vec){0}; layout_shape_group(ctx, &$$, $2, @2.first); }
  | groups
  ;

groups
  : group                               { $$ = (Vec){0}; PUSH_PTR($$, $1); }
  | groups group                        { $$ = $1; PUSH_PTR($$, $2); }
  ;

group
  : '(' ')'                             { $$ = layout_group(ctx, LG_EMPTY, NULL, 0, @1.first); }
  | '(' tdims ')'                       { $$ = layout_group(ctx, LG_INTS, &$2, 0, @1.first); }
  | '(' INT ':' ints_at_opt ')'         { $$ = layout_group(ctx, LG_SPLIT, &$4, $2.v, @2.first); }
  | '(' dlts ')'                        { $$ = layout_group(ctx, LG_DLT, NULL, 0, @1.first); }
  ;

tdims
  : INT                                 { $$ = (Vec){0}; vec_push_int_at(ctx, &$$, $1.v, @1.first); }
  | '*'                                 { $$ = (Vec){0}; vec_push_int_at(ctx, &$$, TILE_DIM_COMBINE, @1.first); }
  | tdims ',' INT                       { $$ = $1; vec_push_int_at(ctx, &$$, $3.v, @3.first); }
  | tdims ',' '*'                       { $$ = $1; vec_push_int_at(ctx, &$$, TILE_DIM_COMBINE, @3.first); }
  ;

/* D(D, C+, S~): dim level types, parsed and checked, then dropped as XLA does. */
dlts
  : dlt
  | dlts ',' dlt
  ;

dlt
  : IDENT dlt_flags                     { check_dim_level_type(ctx, $1, @1.first); }
  ;

dlt_flags
  : %empty
  | '+'
  | '~'
  | '+' '~'
  ;

/* ========================================================================
 * Literals (5): a stream of events for the literal builder, which checks
 * them against the shape as they come.  Commas are optional, as in XLA.
 * ======================================================================== */

literal
  : lit_item
  ;

/* A tuple literal whose elements carry their own shapes, as in
 * custom-call's literal=( s32[2] {1, 2}, pred[] 0 ). */
shaped_literals
  : shaped_literal                      { $$ = (Vec){0}; vec_push_keep(ctx, &$$, $1); }
  | shaped_literals ',' shaped_literal  { $$ = $1; vec_push_keep(ctx, &$$, $3); }
  ;

shaped_literal
  : shape                               { lit_begin(ctx, $1, @1.last); }
    literal                             { $$ = lit_end(ctx, @3.last); }
  | '(' shaped_literals ')'             { $$ = lit_tuple_of(ctx, &$2, @1.first); }
  ;

lit_item
  : lit_scalar                          { lit_scalar(ctx, $1, @1.first); }
  | '{'                                 { lit_open_brace(ctx, @1.first); }
    lit_seq '}'                         { lit_close_brace(ctx, @4.first); }
  | '('                                 { lit_open_paren(ctx, @1.first); }
    lit_seq ')'                         { lit_close_paren(ctx, @4.first); }
  ;

lit_seq
  : %empty
  | lit_seq lit_item
  | lit_seq ','
  | lit_seq "..."                       { lit_ellipsis(ctx, @2.first); }
  ;

lit_scalar
  : INT                                 { $$ = (LitValue){.kind = LV_INT, .i = $1}; }
  | DECIMAL                             { $$ = (LitValue){.kind = LV_NUM, .num = $1}; }
  | "inf"                               { $$ = (LitValue){.kind = LV_INF}; }
  | "true"                              { $$ = (LitValue){.kind = LV_BOOL, .b = true}; }
  | "false"                             { $$ = (LitValue){.kind = LV_BOOL, .b = false}; }
  ;

%%

static void hloyyerror(const HLOYYLTYPE *loc, ParseCtx *ctx, const char *msg) {
  /* Bison only calls this for "memory exhausted" (parser stack). */
  if (strstr(msg, "exhausted"))
    parse_error(ctx, loc->first, "nesting too deep");
  else
    parse_error(ctx, loc->first, "%s", msg);
  lex_request_resync(&ctx->lx, loc->first, loc->last);
}

/* "syntax error: unexpected ']', expecting integer or '?'" */
static int yyreport_syntax_error(const yypcontext_t *yyctx, ParseCtx *ctx) {
  enum { MAX_EXPECTED = 5 };
  yysymbol_kind_t expected[MAX_EXPECTED];
  int n = yypcontext_expected_tokens(yyctx, expected, MAX_EXPECTED);
  yysymbol_kind_t la = yypcontext_token(yyctx);
  const HLOYYLTYPE *loc = yypcontext_location(yyctx);
  char msg[512];
  size_t k = 0;
  k += (size_t)snprintf(msg, sizeof msg, "syntax error: unexpected %s", yysymbol_name(la));
  if (n > 0) {
    for (int i = 0; i < n && k < sizeof msg; i++)
      k += (size_t)snprintf(msg + k, sizeof msg - k, "%s%s", i == 0 ? ", expecting " : " or ",
                            yysymbol_name(expected[i]));
  }
  parse_error(ctx, loc->first, "%s", msg);
  lex_request_resync(&ctx->lx, loc->first, loc->last);
  return 0;
}

int parse_run(ParseCtx *ctx) {
  ctx->lx.start_token = ctx->lone_shape ? START_SHAPE : START_MODULE;
  return yyparse(ctx);
}
