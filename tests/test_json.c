/* The strict JSON reader (interp/io/json.h) and the protobuf JSON check of
 * backend_configs (interp/custom_call/backend_json.h): values, escapes, limits,
 * malformed text with its byte offset, both field spellings, refusals. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/custom_call/backend_json.h"
#include "interp/custom_call/backend_schemas.h"
#include "interp/io/json.h"

static Json *parse_ok(const char *s) {
  Json *v = NULL;
  Error err = {0};
  bool ok = json_parse(s, strlen(s), &v, &err);
  cr_assert(ok, "%s: %s", s, err.msg);
  return v;
}

/* Parses s expecting failure at byte offset at with why in the message. */
static void parse_bad(const char *s, size_t n, int64_t at, const char *why) {
  Json *v = NULL;
  Error err = {0};
  cr_assert_not(json_parse(s, n, &v, &err), "accepted: %.*s", (int)n, s);
  cr_assert_null(v);
  cr_assert_eq(err.offset, at, "%.*s: offset %lld, not %lld (%s)", (int)n, s,
               (long long)err.offset, (long long)at, err.msg);
  cr_assert(strstr(err.msg, why), "%.*s: message \"%s\" lacks \"%s\"", (int)n, s, err.msg, why);
}

static void bad(const char *s, int64_t at, const char *why) { parse_bad(s, strlen(s), at, why); }

Test(json, values_keep_order_and_text) {
  Json *v = parse_ok(" {\"b\": [1, -0, 2.5e-3, 9223372036854775807], \"a\": {\"x\": null},"
                     " \"t\": true, \"f\": false, \"s\": \"hi\"} ");
  cr_assert_eq(v->kind, JSON_OBJECT);
  cr_assert_eq(v->nkids, 5);
  cr_assert_str_eq(v->kids[0].key, "b");
  cr_assert_str_eq(v->kids[1].key, "a"); /* text order, not sorted */
  const Json *b = json_member(v, "b");
  cr_assert_eq(b->kind, JSON_ARRAY);
  cr_assert_eq(b->nkids, 4);
  cr_assert_str_eq(b->kids[1].text, "-0");
  cr_assert_str_eq(b->kids[2].text, "2.5e-3");
  cr_assert_str_eq(b->kids[3].text, "9223372036854775807"); /* kept exact */
  cr_assert_eq(b->kids[0].offset, 8);
  cr_assert_eq(json_member(json_member(v, "a"), "x")->kind, JSON_NULL);
  cr_assert_eq(json_member(v, "t")->kind, JSON_TRUE);
  cr_assert_eq(json_member(v, "f")->kind, JSON_FALSE);
  cr_assert_str_eq(json_member(v, "s")->text, "hi");
  cr_assert_null(json_member(v, "missing"));
  json_free(v);
  v = parse_ok("[]");
  cr_assert_eq(v->nkids, 0);
  json_free(v);
  v = parse_ok("{}");
  cr_assert_eq(v->kind, JSON_OBJECT);
  json_free(v);
  v = parse_ok("7");
  cr_assert_str_eq(v->text, "7");
  json_free(v);
}

Test(json, string_escapes) {
  Json *v = parse_ok("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20ac\\ud83d\\ude00\"");
  cr_assert_str_eq(v->text, "a\"b\\c/d\b\f\n\r\tA\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  json_free(v);
  v = parse_ok("\"x\\u0000y\""); /* a NUL inside a value is kept, with its length */
  cr_assert_eq(v->len, 3);
  cr_assert_eq(memcmp(v->text, "x\0y", 3), 0);
  json_free(v);
}

Test(json, bad_escapes) {
  bad("\"\\x\"", 1, "bad escape");
  bad("\"\\u12G4\"", 1, "bad \\u escape");
  bad("\"\\u12\"", 1, "bad \\u escape");
  bad("\"\\ud83d\"", 1, "high surrogate");
  bad("\"\\ud83d\\u0041\"", 1, "high surrogate");
  bad("\"\\ude00\"", 1, "lone low surrogate");
  bad("\"a\tb\"", 2, "control character");
  bad("{\"a\\u0000\": 1}", 1, "in a key");
}

Test(json, truncated) {
  bad("", 0, "unexpected end");
  bad("   ", 3, "unexpected end");
  bad("{", 1, "expected a key");
  bad("{\"a\"", 4, "expected ':'");
  bad("{\"a\":", 5, "unexpected end");
  bad("{\"a\":1", 6, "expected ',' or '}'");
  bad("[1,", 3, "unexpected end");
  bad("[1", 2, "expected ',' or ']'");
  bad("\"abc", 0, "unterminated string");
  bad("\"abc\\", 0, "unterminated string");
  bad("tru", 0, "bad literal");
  bad("-", 1, "expected a digit");
  bad("1.", 2, "after '.'");
  bad("1e", 2, "exponent");
  /* every prefix of a valid document is refused, never read past its end */
  const char *doc = "{\"k\":[1,2.5e3,\"s\\u00e9\",true,null,{\"x\":-1}]}";
  for (size_t n = 0; n < strlen(doc); n++) {
    char *cut = malloc(n ? n : 1); /* exactly n bytes: ASan sees any overread */
    memcpy(cut, doc, n);
    Json *v = NULL;
    Error err = {0};
    cr_assert_not(json_parse(cut, n, &v, &err), "prefix %zu accepted", n);
    cr_assert(err.offset >= 0 && (size_t)err.offset <= n);
    free(cut);
  }
}

Test(json, strict_grammar) {
  bad("{\"a\":1,}", 7, "expected a key");
  bad("[1,]", 3, "expected a digit");
  bad("01", 1, "leading zero");
  bad("+1", 0, "expected a digit");
  bad(".5", 0, "expected a digit");
  bad("{a:1}", 1, "expected a key");
  bad("'a'", 0, "expected a digit");
  bad("NaN", 0, "expected a digit");
  bad("[1] 2", 4, "text after the value");
  bad("/* c */ 1", 0, "expected a digit");
  bad("{\"a\":1,\"a\":2}", 7, "duplicate key");
  parse_bad("[1,\0]", 5, 3, "NUL byte");
}

Test(json, huge_numbers_kept_as_text) {
  Json *v = parse_ok("[123456789012345678901234567890, 1e999, -1e-999]");
  cr_assert_str_eq(v->kids[0].text, "123456789012345678901234567890");
  cr_assert_str_eq(v->kids[1].text, "1e999");
  json_free(v);
}

Test(json, depth_limit) {
  char deep[2 * JSON_MAX_DEPTH + 8];
  int n = JSON_MAX_DEPTH;
  memset(deep, '[', (size_t)n);
  memset(deep + n, ']', (size_t)n);
  deep[2 * n] = 0;
  json_free(parse_ok(deep));
  char deeper[2 * JSON_MAX_DEPTH + 8];
  n = JSON_MAX_DEPTH + 1;
  memset(deeper, '[', (size_t)n);
  memset(deeper + n, ']', (size_t)n);
  deeper[2 * n] = 0;
  bad(deeper, JSON_MAX_DEPTH, "nested too deeply");
  /* far deeper than the limit, unterminated: refused without recursing */
  size_t big = 100000;
  char *s = malloc(big);
  memset(s, '{', big);
  parse_bad(s, big, 1, "expected a key");
  memset(s, '[', big);
  parse_bad(s, big, JSON_MAX_DEPTH, "nested too deeply");
  free(s);
}

Test(json, member_limit) {
  size_t cap = (size_t)(JSON_MAX_MEMBERS + 1) * 16 + 8, k = 0;
  char *s = malloc(cap);
  s[k++] = '{';
  for (int i = 0; i <= JSON_MAX_MEMBERS; i++)
    k += (size_t)snprintf(s + k, cap - k, "%s\"k%d\":0", i ? "," : "", i);
  s[k++] = '}';
  Json *v = NULL;
  Error err = {0};
  cr_assert_not(json_parse(s, k, &v, &err));
  cr_assert(strstr(err.msg, "too many members"), "%s", err.msg);
  free(s);
}

/* -- proto3 JSON mapping -- */

static bool check(const char *text, const ProtoMessage *m, Error *err) {
  Json *v = NULL;
  bool ok = json_parse(text, strlen(text), &v, err) && proto_json_check(v, m, err);
  json_free(v);
  return ok;
}

static void check_ok(const char *text, const ProtoMessage *m) {
  Error err = {0};
  cr_assert(check(text, m, &err), "%s: %s", text, err.msg);
}

static void check_bad(const char *text, const ProtoMessage *m, const char *why) {
  Error err = {0};
  cr_assert_not(check(text, m, &err), "accepted: %s", text);
  cr_assert(strstr(err.msg, why), "%s: message \"%s\" lacks \"%s\"", text, err.msg, why);
}

Test(proto_json, both_spellings_and_value_forms) {
  check_ok("{\"alpha_real\": 1, \"alphaImag\": \"0.5\", \"beta\": \"NaN\", \"epilogue\": 5,"
           " \"dotDimensionNumbers\": {\"lhs_contracting_dimensions\": [\"1\"],"
           " \"rhsContractingDimensions\": [0]}, \"selectedAlgorithm\": \"-1\","
           " \"precisionConfig\": {\"operandPrecision\": [\"HIGHEST\", 0], \"algorithm\": 11},"
           " \"lhs_stride\": \"9223372036854775807\", \"damax_output\": false}",
           &SCHEMA_GEMM);
  check_ok("{\"epilogue\": \"BIAS_GELU_AUX\", \"beta\": \"-Infinity\", \"alpha_real\": null}",
           &SCHEMA_GEMM);
  check_ok("{\"epilogue\": \"7\"}", &SCHEMA_GEMM);
  check_ok("{\"activationMode\": \"kRelu\", \"convResultScale\": 1e0, \"sideInputScale\": 0,"
           " \"algorithm\": {\"algoId\": \"3\", \"mathType\": \"TENSOR_OP_MATH\","
           " \"tuningKnobs\": {\"2\": \"1\"}, \"workspaceSize\": \"1024\"}}",
           &SCHEMA_CUDNN_CONV);
  check_ok("{\"operationQueueId\": \"0\", \"waitOnOperationQueues\": [],"
           " \"gemmBackendConfig\": {\"beta\": 0}, \"forceEarliestSchedule\": false,"
           " \"reificationCost\": [{\"endToEndCycles\": 5, \"name\": \"x\"}]}",
           &SCHEMA_GPU_GEMM);
  check_ok("{}", &SCHEMA_GEMM);
}

Test(proto_json, refusals_name_the_field) {
  check_bad("{\"gemm_backend_config\": {\"epilog\": 1}}", &SCHEMA_GPU_GEMM,
            "field \"gemm_backend_config.epilog\": not a field of GemmBackendConfig");
  check_bad("{\"dot_dimension_numbers\": {\"lhs_batch\": []}}", &SCHEMA_GEMM,
            "field \"dot_dimension_numbers.lhs_batch\": not a field of DotDimensionNumbers");
  check_bad("{\"epilogue\": \"SILU\"}", &SCHEMA_GEMM,
            "field \"epilogue\": value \"SILU\" is not supported");
  check_bad("{\"epilogue\": 8}", &SCHEMA_GEMM, "value 8 is not supported");
  check_bad("{\"epilogue\": 1.5}", &SCHEMA_GEMM, "value 1.5 is not supported");
  check_bad("{\"beta\": 0, \"beta\": 1}", &SCHEMA_GEMM, "duplicate key");
  check_bad("{\"alpha_real\": 1, \"alphaReal\": 2}", &SCHEMA_GEMM,
            "field \"alphaReal\": the field is given twice (also as \"alpha_real\")");
  check_bad("{\"damax_output\": true}", &SCHEMA_GEMM,
            "field \"damax_output\": value true is not supported");
  check_bad("{\"isFp8\": true}", &SCHEMA_GEMM, "field \"isFp8\": value true");
  check_bad("{\"reordered_int8_nchw_vect\": true}", &SCHEMA_CUDNN_CONV, "not supported");
  check_bad("{\"serialized_graph\": \"g\"}", &SCHEMA_CUDNN_CONV, "value \"g\" is not supported");
  check_bad("{\"fusion_backend_config\": {\"kind\": \"kLoop\"}}", &SCHEMA_GPU_GEMM,
            "field \"fusion_backend_config\": value {...} is not supported");
  check_bad("[]", &SCHEMA_GEMM, "expected an object");
}

Test(proto_json, types_checked) {
  check_bad("{\"beta\": \"one\"}", &SCHEMA_GEMM, "field \"beta\": expected a finite number");
  check_bad("{\"beta\": 1e999}", &SCHEMA_GEMM, "field \"beta\": expected a finite number");
  check_bad("{\"beta\": \"inf\"}", &SCHEMA_GEMM, "expected a finite number");
  check_bad("{\"beta\": true}", &SCHEMA_GEMM, "not true");
  check_bad("{\"selected_algorithm\": 1.0}", &SCHEMA_GEMM, "expected a 64-bit integer");
  check_bad("{\"selected_algorithm\": \"9223372036854775808\"}", &SCHEMA_GEMM,
            "expected a 64-bit integer");
  check_bad("{\"selected_algorithm\": \" 1\"}", &SCHEMA_GEMM, "expected a 64-bit integer");
  check_bad("{\"grad_x\": 1}", &SCHEMA_GEMM, "expected true or false, not a number");
  check_bad("{\"dot_dimension_numbers\": {\"lhs_batch_dimensions\": 0}}", &SCHEMA_GEMM,
            "expected an array (a repeated field), not a number");
  check_bad("{\"dot_dimension_numbers\": {\"lhs_batch_dimensions\": [0, null]}}", &SCHEMA_GEMM,
            "field \"dot_dimension_numbers.lhs_batch_dimensions[1]\": null in a repeated");
  check_bad("{\"dot_dimension_numbers\": {\"lhs_batch_dimensions\": [\"x\"]}}", &SCHEMA_GEMM,
            "lhs_batch_dimensions[0]\": expected a 64-bit integer");
  check_bad("{\"dot_dimension_numbers\": []}", &SCHEMA_GEMM, "expected an object, not an array");
  check_bad("{\"to_apply_type\": 3}", &SCHEMA_PARTIAL_REDUCE, "expected a string");
}
