/* Lexer tests (hlo-text.md section 2): every token kind, the number-like
 * priorities, name:/name= lookahead, %names, raw modes and lexical errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "parser/parse_internal.h"
#include "parser/grammar.tab.h"

typedef struct {
  int kind;
  HLOYYSTYPE v;
  HLOYYLTYPE loc;
} Tok;

enum { MAX_TOKS = 64 };

typedef struct {
  Tok t[MAX_TOKS];
  int n;
  Diags diags;
  char *text; /* kept alive: token values point into it */
} Lexed;

/* What the grammar's want_* rules ask for after it shifts each attribute
 * name (grammar.y): the lexer alone leaves every value structured. */
static void ask_as_the_parser_does(Lexer *lx, int kind) {
  switch (kind) {
  case A_COMPUTATION: lex_expect(lx, LEX_EXPECT_BODY); break;
  case A_FRONTEND: lex_expect(lx, LEX_EXPECT_FRONTEND); break;
  case A_STRING_OR_RAW: lex_expect(lx, LEX_EXPECT_RAW_BRACES); break;
  case A_UNKNOWN: lex_expect(lx, LEX_EXPECT_RAW_VALUE); break;
  case A_SHARDING: lex_expect(lx, LEX_EXPECT_SHARDING); break;
  case ATTRIBUTE_NAME:
    if (lx->stack[lx->sp - 1].kind == LX_FRONTEND) lex_expect(lx, LEX_EXPECT_RAW_BRACES);
    break;
  default: break;
  }
}

/* Lexes text (copied, so a NUL inside is possible with explicit len) until
 * end of file or the first error token, asking for modes as the parser
 * does when as_parser is set. */
static Lexed *lex_modes(const char *text, size_t len, bool as_parser) {
  Lexed *r = calloc(1, sizeof *r);
  r->text = malloc(len + 1);
  memcpy(r->text, text, len);
  r->text[len] = '\0';
  ParseCtx ctx;
  cr_assert(parse_ctx_init(&ctx, "t", r->text, len, &r->diags));
  for (;;) {
    Tok t;
    memset(&t, 0, sizeof t);
    t.kind = hloyylex(&t.v, &t.loc, &ctx);
    if (as_parser) ask_as_the_parser_does(&ctx.lx, t.kind);
    cr_assert(r->n < MAX_TOKS, "too many tokens");
    r->t[r->n++] = t;
    if (t.kind == HLOYYEOF || t.kind == HLOYYerror) break;
  }
  parse_ctx_free(&ctx, true);
  return r;
}

static Lexed *lex_n(const char *text, size_t len) { return lex_modes(text, len, true); }
static Lexed *lex(const char *text) { return lex_n(text, strlen(text)); }

static void lexed_free(Lexed *r) {
  diags_free(&r->diags);
  free(r->text);
  free(r);
}

static void expect_kinds(const char *text, const int *kinds, int n) {
  Lexed *r = lex(text);
  cr_assert_eq(r->n, n + 1, "%s: %d tokens, want %d", text, r->n - 1, n);
  for (int i = 0; i < n; i++)
    cr_expect_eq(r->t[i].kind, kinds[i], "%s: token %d is %d, want %d", text, i, r->t[i].kind,
                 kinds[i]);
  cr_expect_eq(r->t[n].kind, HLOYYEOF);
  lexed_free(r);
}

#define KINDS(text, ...)                                   \
  do {                                                     \
    const int k_[] = {__VA_ARGS__};                        \
    expect_kinds(text, k_, (int)(sizeof k_ / sizeof k_[0])); \
  } while (0)

static bool str_eq(Str s, const char *lit) {
  return (size_t)s.n == strlen(lit) && memcmp(s.p, lit, (size_t)s.n) == 0;
}

/* The first error's message contains frag, at byte offset off. */
static void expect_error(const char *text, size_t len, const char *frag, int64_t off) {
  Lexed *r = lex_n(text, len);
  cr_assert_eq(r->t[r->n - 1].kind, HLOYYerror, "no error for %s", text);
  cr_assert(r->diags.count >= 1);
  cr_expect(strstr(r->diags.items[0].msg, frag), "message '%s' lacks '%s'", r->diags.items[0].msg, frag);
  cr_expect_eq(r->diags.items[0].offset, off, "error at %lld, want %lld",
               (long long)r->diags.items[0].offset, (long long)off);
  lexed_free(r);
}

Test(lexer, identifiers_with_dots_and_dashes) {
  Lexed *r = lex("add.1 get-tuple-element.12 a-b fused_computation.3.clone _x");
  cr_assert_eq(r->n, 6);
  const char *want[] = {"add.1", "get-tuple-element.12", "a-b", "fused_computation.3.clone", "_x"};
  for (int i = 0; i < 5; i++) {
    cr_expect_eq(r->t[i].kind, IDENT);
    cr_expect(str_eq(r->t[i].v.str, want[i]));
  }
  lexed_free(r);
}

Test(lexer, name_colon_and_attribute_name_lookahead) {
  Lexed *r = lex("(p0: f32[]) x =");
  cr_assert_eq(r->t[1].kind, NAME_COLON);
  cr_expect(str_eq(r->t[1].v.str, "p0"));
  cr_expect_eq(r->t[6].kind, IDENT, "whitespace before '=' keeps an identifier");
  cr_expect_eq(r->t[7].kind, '=');
  lexed_free(r);
  /* In the module header "name=" is a header attribute. */
  KINDS("HloModule m, replica_count=2", KW_HLOMODULE, IDENT, ',', A_INT, INT);
  KINDS("HloModule m, is_scheduled=true", KW_HLOMODULE, IDENT, ',', A_BOOL, KW_TRUE);
}

Test(lexer, percent_names) {
  Lexed *r = lex("%add.1 %x= %p:");
  cr_expect_eq(r->t[0].kind, NAME);
  cr_expect(str_eq(r->t[0].v.str, "add.1"));
  /* XLA quirk: "%x" never absorbs '=' or ':'. */
  cr_expect_eq(r->t[1].kind, NAME);
  cr_expect_eq(r->t[2].kind, '=');
  cr_expect_eq(r->t[3].kind, NAME);
  cr_expect_eq(r->t[4].kind, ':');
  lexed_free(r);
  expect_error("a %1", 4, "name after '%'", 2);
}

Test(lexer, primitive_types_and_reserved_words) {
  Lexed *r = lex("f32 bf16 f8e4m3fn f8e4m3b11fnuz s4 u2 pred c128 token opaque f4e2m1fn");
  EType want[] = {ET_F32, ET_BF16, ET_F8E4M3FN, ET_F8E4M3B11FNUZ, ET_S4, ET_U2,
                  ET_PRED, ET_C128, ET_TOKEN, ET_OPAQUE, ET_F4E2M1FN};
  for (int i = 0; i < 11; i++) {
    cr_expect_eq(r->t[i].kind, PRIMITIVE_TYPE, "token %d", i);
    cr_expect_eq(r->t[i].v.etype, want[i], "token %d", i);
  }
  lexed_free(r);
  /* Only lower case is reserved; tuple/buffer are not reserved. */
  KINDS("F32 tuple buffer f32x", IDENT, IDENT, IDENT, IDENT);
  KINDS("true false inf HloModule ENTRY ROOT maximal replicated manual", KW_TRUE, KW_FALSE,
        KW_INF, KW_HLOMODULE, KW_ENTRY, KW_ROOT, KW_MAXIMAL, KW_REPLICATED, KW_MANUAL);
  KINDS("last_tile_dim_replicate shard_as shard_like unknown constant", KW_LAST_TILE_DIM_REPLICATE,
        KW_SHARD_AS, KW_SHARD_LIKE, KW_UNKNOWN, KW_CONSTANT);
  KINDS("infeed truex", IDENT, IDENT);
}

Test(lexer, decimals) {
  Lexed *r = lex("1.5 -0.25 3. 1e10 -2.5E-3 -.5 0.1e+2");
  double want[] = {1.5, -0.25, 3.0, 1e10, -2.5e-3, -0.5, 10.0};
  for (int i = 0; i < 7; i++) {
    cr_expect_eq(r->t[i].kind, DECIMAL, "token %d", i);
    cr_expect_eq(r->t[i].v.num.kind, NUM_FINITE);
    cr_expect_float_eq(r->t[i].v.num.v, want[i], 1e-15, "token %d", i);
  }
  lexed_free(r);
}

Test(lexer, nan_and_inf) {
  Lexed *r = lex("nan nan(0x1f) -nan -nan(0x3) -inf inf");
  cr_expect_eq(r->t[0].kind, DECIMAL);
  cr_expect_eq(r->t[0].v.num.kind, NUM_NAN);
  cr_expect_eq(r->t[0].v.num.payload, 0);
  cr_expect_eq(r->t[1].v.num.kind, NUM_NAN);
  cr_expect_eq(r->t[1].v.num.payload, 0x1f);
  cr_expect(!r->t[1].v.num.neg);
  cr_expect(r->t[2].v.num.neg);
  cr_expect_eq(r->t[3].v.num.payload, 3);
  cr_expect(r->t[3].v.num.neg);
  cr_expect_eq(r->t[4].kind, DECIMAL);
  cr_expect_eq(r->t[4].v.num.kind, NUM_INF);
  cr_expect(r->t[4].v.num.v < 0);
  cr_expect_eq(r->t[5].kind, KW_INF);
  lexed_free(r);
  expect_error("nan(0x10000000000000)", 21, "NaN payload out of range", 0);
  expect_error("x nan(0x0)", 10, "NaN payload out of range", 2);
}

Test(lexer, number_like_priorities) {
  /* DECIMAL is tried first: 1.5x2 is a decimal then an identifier. */
  KINDS("1.5x2", DECIMAL, IDENT);
  KINDS("b01f_01io->b01f 01bf_o01i->f01b bf01_oi01->bf01 ?" "?_?" "?->?" "?", DIM_LABELS, DIM_LABELS,
        DIM_LABELS, DIM_LABELS);
  KINDS("3x3 1x2x2x1", DXD, DXD);
  KINDS("0_0 1_2x3_4 -1_2_0x0_0_1 3_4", PAD, PAD, PAD, PAD);
  KINDS("0 -7 18446744073709551615 -9223372036854775808", INT, INT, INT, INT);
  KINDS("? -> <= ...", '?', ARROW, LEQ, ELLIPSIS);
  /* No hex: 0x1p3 is "0x1" (window dims) then "p3". */
  KINDS("0x1p3", DXD, IDENT);
  KINDS("L.1@2:4 L.1@2:4_R.0@2:4", SPARSITY_DESC, SPARSITY_DESC);
  KINDS("f32[?,<=8]", PRIMITIVE_TYPE, '[', '?', ',', LEQ, INT, ']');
}

Test(lexer, integer_range) {
  Lexed *r = lex("18446744073709551615 9223372036854775807 -9223372036854775808");
  cr_expect(r->t[0].v.integer.big);
  cr_expect_eq((uint64_t)r->t[0].v.integer.v, UINT64_MAX);
  cr_expect(!r->t[1].v.integer.big);
  cr_expect_eq(r->t[1].v.integer.v, INT64_MAX);
  cr_expect_eq(r->t[2].v.integer.v, INT64_MIN);
  lexed_free(r);
  expect_error("18446744073709551616", 20, "integer out of range", 0);
  expect_error("x -9223372036854775809", 22, "integer out of range", 2);
}

Test(lexer, punctuation_errors) {
  expect_error(".5", 2, "unexpected '.'", 0);
  expect_error("a ..", 4, "unexpected '.'", 2);
  expect_error("a / b", 5, "unexpected character '/'", 2);
  expect_error("a < b", 5, "unexpected character '<'", 2);
  expect_error("a ! b", 5, "unexpected character '!'", 2);
  expect_error("a - b", 5, "unexpected character '-'", 2);
  KINDS("= , : * ? # + ~ [ ] ( )", '=', ',', ':', '*', '?', '#', '+', '~', '[', ']', '(', ')');
}

Test(lexer, strings_and_escapes) {
  const char *text = "\"a\\n\\t\\\"\\\\\\x41\\101\\u00e9\\?\\'\"";
  Lexed *r = lex(text);
  cr_assert_eq(r->t[0].kind, STRING);
  ParseCtx ctx;
  Diags d = {0};
  cr_assert(parse_ctx_init(&ctx, "t", r->text, strlen(r->text), &d));
  const char *s = ctx_unescape(&ctx, r->t[0].v.str, 0);
  cr_expect_str_eq(s, "a\n\t\"\\AA\xc3\xa9?'");
  parse_ctx_free(&ctx, true);
  diags_free(&d);
  lexed_free(r);
  /* Strings may span lines. */
  KINDS("\"a\nb\" x", STRING, IDENT);
  expect_error("x \"abc", 6, "unterminated string", 2);
  expect_error("x \"a\\qb\"", 8, "invalid escape", 4);
}

Test(lexer, comments) {
  KINDS("a // comment ( [\n b /* c { */ d /*index=5*/ e", IDENT, IDENT, IDENT, IDENT);
  /* Comments do not nest. */
  KINDS("a /* /* */ b", IDENT, IDENT);
  expect_error("a /* never closed", 17, "unterminated comment", 2);
  /* '#' is a token, not a comment. */
  KINDS("# x", '#', IDENT);
}

Test(lexer, nul_byte) {
  expect_error("a \0 b", 5, "NUL byte", 2);
  expect_error("a /* \0 */", 9, "NUL byte", 5);
  expect_error("\"a\0\"", 4, "NUL byte", 2);
}

Test(lexer, attribute_classes_in_a_body) {
  KINDS("e { x = f32[] t(), dimensions={0}, to_apply=f, window={size=3}", IDENT, '{', IDENT, '=',
        PRIMITIVE_TYPE, '[', ']', IDENT, '(', ')', ',', A_INT_LIST, '{', INT, '}', ',',
        A_COMPUTATION, IDENT, ',', A_WINDOW, '{', ATTRIBUTE_NAME, INT, '}');
}

Test(lexer, raw_brace_values) {
  Lexed *r = lex("e { x = f32[] t(), backend_config={\"a\": {\"b\": \"}\"}} y");
  int i = 0;
  while (r->t[i].kind != A_STRING_OR_RAW) i++;
  cr_assert_eq(r->t[i + 1].kind, RAW);
  cr_expect(str_eq(r->t[i + 1].v.str, "{\"a\": {\"b\": \"}\"}}"));
  cr_expect_eq(r->t[i + 2].kind, IDENT);
  lexed_free(r);
  /* frontend_attributes: each value raw or string. */
  KINDS("e { x = f32[] t(), frontend_attributes={k=\"v\", k2={a {b}}}", IDENT, '{', IDENT, '=',
        PRIMITIVE_TYPE, '[', ']', IDENT, '(', ')', ',', A_FRONTEND, '{', ATTRIBUTE_NAME, STRING,
        ',', ATTRIBUTE_NAME, RAW, '}');
}

Test(lexer, unknown_attribute_values_are_verbatim) {
  Lexed *r = lex("e { x = f32[] t(), my_attr=bar(1, {2,3}) , other=\"s, t\"\n y");
  int i = 0;
  while (r->t[i].kind != A_UNKNOWN) i++;
  cr_expect(str_eq(r->t[i].v.attr.name, "my_attr"));
  cr_assert_eq(r->t[i + 1].kind, RAW);
  cr_expect(str_eq(r->t[i + 1].v.str, "bar(1, {2,3})"));
  cr_expect_eq(r->t[i + 2].kind, ',');
  cr_expect_eq(r->t[i + 3].kind, A_UNKNOWN);
  cr_expect(str_eq(r->t[i + 4].v.str, "\"s, t\""));
  cr_expect_eq(r->t[i + 5].kind, IDENT);
  lexed_free(r);
}

Test(lexer, modes_are_the_parsers_to_ask) {
  /* Unasked, the values of backend_config and of an unknown name are
   * structured ('{' and names), not raw: the mode comes from the grammar. */
  const char *text = "e { x = f32[] t(), backend_config={a=1}, zz={b=2}";
  Lexed *r = lex_modes(text, strlen(text), false);
  int i = 0;
  while (r->t[i].kind != A_STRING_OR_RAW) i++;
  cr_expect_eq(r->t[i + 1].kind, '{');
  cr_expect_eq(r->t[i + 2].kind, ATTRIBUTE_NAME);
  while (r->t[i].kind != A_UNKNOWN) i++;
  cr_expect_eq(r->t[i + 1].kind, '{');
  cr_expect_eq(r->t[i + 2].kind, ATTRIBUTE_NAME);
  lexed_free(r);
  /* Asked, the same text gives one RAW value each. */
  KINDS(text, IDENT, '{', IDENT, '=', PRIMITIVE_TYPE, '[', ']', IDENT, '(', ')', ',',
        A_STRING_OR_RAW, RAW, ',', A_UNKNOWN, RAW);
  /* A sharding naming a mesh is kept raw; a plain one is structured. */
  KINDS("e { x = f32[] t(), sharding={mesh[a=2], {}}", IDENT, '{', IDENT, '=', PRIMITIVE_TYPE,
        '[', ']', IDENT, '(', ')', ',', A_SHARDING, RAW);
  KINDS("e { x = f32[] t(), sharding={replicated}", IDENT, '{', IDENT, '=', PRIMITIVE_TYPE, '[',
        ']', IDENT, '(', ')', ',', A_SHARDING, '{', KW_REPLICATED, '}');
}

Test(lexer, layout_braces) {
  /* '{' right after ']' and before a digit or ':' is a layout. */
  KINDS("f32[4]{0} f32[]{:S(1)}", PRIMITIVE_TYPE, '[', INT, ']', LAYOUT_LBRACE, INT, '}',
        PRIMITIVE_TYPE, '[', ']', LAYOUT_LBRACE, ':', IDENT, '(', INT, ')', '}');
  /* "-> f32[4] {" then a name: the computation body. */
  KINDS("-> f32[4] {\n x", ARROW, PRIMITIVE_TYPE, '[', INT, ']', '{', IDENT);
  KINDS("b(f32[2])", BUFFER_LPAREN, PRIMITIVE_TYPE, '[', INT, ']', ')');
  KINDS("[2,2]<=[2,2]T(1,0)", '[', INT, ',', INT, ']', LEQ, '[', INT, ',', INT, ']', IOTA_T, '(',
        INT, ',', INT, ')');
  KINDS("{0:T(2,2)}", '{', INT, ':', IDENT, '(', INT, ',', INT, ')', '}');
}

Test(lexer, unknown_type_name) { expect_error("x g32[]", 7, "unknown element type 'g32'", 2); }

Test(lexer, locations_are_byte_offsets) {
  Lexed *r = lex("  ab\n  %cd");
  cr_expect_eq(r->t[0].loc.first, 2);
  cr_expect_eq(r->t[0].loc.last, 4);
  cr_expect_eq(r->t[1].loc.first, 7);
  cr_expect_eq(r->t[1].loc.last, 10);
  lexed_free(r);
}
