/* The bytes of hlorun's --stats report and --trace lines in text, YAML and
 * JSON (interp/run_stats.c, interp/run_trace.c).  The expected texts are
 * written out by hand from the formats' rules (docs/cli.md); they pin the
 * bytes so that the writers behind them can change without the output
 * changing.  Strings that a writer must escape or quote (a quote, a
 * backslash, a newline, non-ASCII, text that reads as a number or a bool)
 * come in through the device and memory-space names, which a --memory-config
 * file sets freely. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/cost_model.h"
#include "interp/io/config.h"
#include "interp/run.h"
#include "parser/parser.h"
#include "parser/verify.h"

/* "a"b\c<newline>d é": a quote, a backslash, a newline and a two-byte
 * UTF-8 character. */
#define ODD_NAME "a\"b\\c\nd \xc3\xa9"

/* A result with fixed numbers: two memory spaces (one unlimited and
 * configured, one limited, implicit, with a bandwidth), one padded shape,
 * three executed instructions (one in a called computation). */
typedef struct Fixture {
  Module module;
  Computation entry, callee;
  Instr add, neg, copy;
  Arena *arena;
  Shape shape;
  int64_t dims[2];
  RunInstrStat stats[3];
  int64_t space_bytes[2 * MEM_MAX_SPACES];
  RunShapeStat shapes[1];
  RunResult res;
} Fixture;

static void fixture_init(Fixture *f) {
  memset(f, 0, sizeof *f);
  f->module.entry = &f->entry;
  f->add = (Instr){.name = "x\"1", .op = OP_ADD, .parent = &f->entry};
  f->neg = (Instr){.name = "y", .op = OP_NEGATE, .parent = &f->callee};
  f->copy = (Instr){.name = "true", .op = OP_COPY, .parent = &f->entry};
  f->arena = arena_new();
  cr_assert(f->arena);
  f->dims[0] = 2;
  f->dims[1] = 3;
  f->shape = (Shape){.etype = ET_F32, .rank = 2, .dims = f->dims};
  cr_assert(shape_set_default_layout(f->arena, &f->shape));

  f->shapes[0] = (RunShapeStat){&f->shape, 2, 24, 32};
  f->stats[0] = (RunInstrStat){.instr = &f->add, .s = {.count = 2, .ns = 3000, .bytes_read = 8, .bytes_written = 4}};
  f->stats[1] = (RunInstrStat){.instr = &f->neg, .s = {.count = 1, .ns = 1000}};
  f->stats[2] = (RunInstrStat){.instr = &f->copy, .s = {.count = 5, .ns = 0, .bytes_read = 100}};
  /* The cost model's numbers of the add, as run_collect_stats would set
   * them with an f32 peak of 2e12/s: 12 flops (2 runs of 6) take 6 ps; its
   * 12 bytes in S(5) (at 1024 B/s) 12/1024 s = 11718750 ns, the bound. */
  f->space_bytes[2] = 8;
  f->space_bytes[3] = 4;
  f->stats[0].s.space_bytes = f->space_bytes;
  f->stats[0].costed = true;
  f->stats[0].peak_class = PEAK_F32;
  f->stats[0].flops = 12;
  f->stats[0].compute_s = 6e-12;
  f->stats[0].memory_s = f->stats[0].estimate_s = 12.0 / 1024;
  f->stats[0].bound = COST_BOUND_MEMORY;
  f->stats[0].bound_space = 5;
  f->stats[1].bound_space = f->stats[2].bound_space = -1;
  f->res = (RunResult){
      .module = &f->module, .device = "true", .nreplicas = 1, .npartitions = 1, .ndevices = 1,
      .wall_ns = 1500000, .eval_ns = 1234, .repeat = 3, .eval_median_ns = 2000,
      .eval_first_ns = 5000000000, .eval_cpu_ns = 999, .instructions_executed = 7,
      .while_iterations = 2, .conversions = 1, .conversion_bytes = 2048,
      .alloc_logical_bytes = 100, .alloc_physical_bytes = 150, .nbuffers = 4,
      .nshape_stats = 1, .shape_stats = f->shapes, .ninstr_stats = 3, .instr_stats = f->stats,
      .peak_flops = {[PEAK_F32] = 2e12}, .est_flops = 12, .est_time_s = 12.0 / 1024};
  MemSystem *mem = &f->res.mem;
  mem->nspaces = 2;
  mem->spaces[0] = (MemSpace){.id = 0, .name = ODD_NAME, .capacity = MEM_UNLIMITED,
                              .peak = 16, .bytes_read = 16, .bytes_written = 8};
  mem->spaces[1] = (MemSpace){.id = 5, .name = "123", .capacity = 4096, .bandwidth = 1024,
                              .implicit = true, .peak = 1024, .bytes_read = 3072};
}

static void fixture_fini(Fixture *f) { arena_free(f->arena); }

static void expect_stats(const RunResult *r, RunFormat fmt, const char *want) {
  StrBuf sb;
  sb_init(&sb);
  cr_expect(run_format_stats(r, fmt, &sb));
  const char *got = sb.data ? sb.data : "";
  cr_expect_str_eq(got, want, "format %d:\n--- got ---\n%s--- want ---\n%s", (int)fmt, got, want);
  sb_free(&sb);
}

static const char STATS_TEXT[] =
    "== hlorun statistics ==\n"
    "device: true\n"
    "run time: 1.500 ms (evaluation 1.234 us, CPU 0.999 us), 7 instructions executed, 2 while "
    "iterations\n"
    "repeat: 3 evaluations: best 1.234 us, median 2.000 us, first 5.000 s (counters are totals "
    "over all of them)\n"
    "memory spaces:\n"
    "  S(0) " ODD_NAME " capacity unlimited  peak 16 B        read 16 B       written 8 B       \n"
    "  S(5) 123    capacity 4 KiB      peak 1 KiB      ( 25.0%)  read 3 KiB      written 0 B    "
    "    transfer time at 0 GB/s: 3.000 s (not configured)\n"
    "layout padding: 4 buffers, 100 B logical, 150 B physical, overhead 50.0%\n"
    "  f32[2,3]{1,0}: 24 B logical, 32 B physical (1.3x), 2 buffers\n"
    "layout conversions: 1 (2 KiB)\n"
    "top instructions by time (inclusive of called computations):\n"
    "   1. x\"1                          add                      3.000 us 100.0%  x2\n"
    "   2. y                            negate                   1.000 us  33.3%  x1\n"
    "   3. true                         copy                     0.000 us   0.0%  x5\n"
    "top instructions by bytes moved:\n"
    "   1. true                         copy                 read 100 B      written 0 B        x5\n"
    "   2. x\"1                          add                  read 8 B        written 4 B        x2\n"
    "cost model: peak f32 2 TFLOP/s\n"
    "estimated device time: 11.719 ms (12 flops, 0 transcendentals)\n"
    "top instructions by estimate:\n"
    "   1. x\"1                          add                              12 flops       12 B    "
    "11.719 ms memory S(5)\n";

Test(run_output, stats_text) {
  Fixture f;
  fixture_init(&f);
  expect_stats(&f.res, RUN_FMT_TEXT, STATS_TEXT);
  fixture_fini(&f);
}

/* The instruction maps of the YAML report, in time order then bytes order. */
#define YAML_ADD                                                                                   \
  "- name: x\"1\n  opcode: add\n  count: 2\n  time_ns: 3000\n  bytes_read: 8\n  bytes_written: 4\n"
#define YAML_NEG                                                                                   \
  "- name: y\n  opcode: negate\n  count: 1\n  time_ns: 1000\n  bytes_read: 0\n  bytes_written: 0\n"
#define YAML_COPY                                                                                  \
  "- name: true\n  opcode: copy\n  count: 5\n  time_ns: 0\n  bytes_read: 100\n  bytes_written: 0\n"

/* The add's cost model line (only it is costed; see the fixture). */
#define YAML_ADD_COST                                                                              \
  "{name: x\"1, opcode: add, count: 2, flops: 12, transcendentals: 0, peak_type: f32, bytes: "     \
  "[{space: 5, read: 8, written: 4}], compute_ns: 0.006, memory_ns: 11718750.000, estimate_ns: "   \
  "11718750.000, bound: memory, bound_space: 5}\n"

/* Strings go out as libyaml picks their style: "true" and "123" plain
 * (they read back as a bool and a number), the odd name double-quoted with
 * its é escaped (the emitter is not in unicode mode); an unlimited space
 * has no capacity_bytes key. */
static const char STATS_YAML[] =
    "device: true\n"
    "run_time_ns: 1500000\n"
    "eval_ns: 1234\n"
    "repeat: 3\n"
    "eval_median_ns: 2000\n"
    "eval_first_ns: 5000000000\n"
    "eval_cpu_ns: 999\n"
    "instructions_executed: 7\n"
    "while_iterations: 2\n"
    "memory_spaces:\n"
    "- id: 0\n"
    "  name: \"a\\\"b\\\\c\\nd \\xE9\"\n"
    "  peak_bytes: 16\n"
    "  bytes_read: 16\n"
    "  bytes_written: 8\n"
    "  bandwidth_bytes_per_s: 0\n"
    "  configured: true\n"
    "- id: 5\n"
    "  name: 123\n"
    "  capacity_bytes: 4096\n"
    "  peak_bytes: 1024\n"
    "  bytes_read: 3072\n"
    "  bytes_written: 0\n"
    "  bandwidth_bytes_per_s: 1024\n"
    "  configured: false\n"
    "padding:\n"
    "  buffers: 4\n"
    "  logical_bytes: 100\n"
    "  physical_bytes: 150\n"
    "  overhead_percent: 50.00\n"
    "layout_conversions: 1\n"
    "top_by_time:\n" YAML_ADD YAML_NEG YAML_COPY
    "top_by_bytes:\n" YAML_COPY YAML_ADD YAML_NEG
    "cost_model:\n"
    "  peak_flops_per_s: {f32: 2000000000000}\n"
    "  estimated_time_ns: 11718750.000\n"
    "  flops: 12\n"
    "  transcendentals: 0\n"
    "  top_by_estimate:\n  - " YAML_ADD_COST
    "  instructions:\n  - " YAML_ADD_COST;

Test(run_output, stats_yaml) {
  Fixture f;
  fixture_init(&f);
  expect_stats(&f.res, RUN_FMT_YAML, STATS_YAML);
  fixture_fini(&f);
}

#define JSON_ADD                                                                                   \
  "{\"name\": \"x\\\"1\", \"opcode\": \"add\", \"count\": 2, \"time_ns\": 3000, \"bytes_read\": "  \
  "8, \"bytes_written\": 4}"
#define JSON_NEG                                                                                   \
  "{\"name\": \"y\", \"opcode\": \"negate\", \"count\": 1, \"time_ns\": 1000, \"bytes_read\": 0, " \
  "\"bytes_written\": 0}"
#define JSON_COPY                                                                                  \
  "{\"name\": \"true\", \"opcode\": \"copy\", \"count\": 5, \"time_ns\": 0, \"bytes_read\": 100, " \
  "\"bytes_written\": 0}"

#define JSON_ADD_COST                                                                              \
  "{\"name\": \"x\\\"1\", \"opcode\": \"add\", \"count\": 2, \"flops\": 12, \"transcendentals\": " \
  "0, \"peak_type\": \"f32\", \"bytes\": [{\"space\": 5, \"read\": 8, \"written\": 4}], "         \
  "\"compute_ns\": 0.006, \"memory_ns\": 11718750.000, \"estimate_ns\": 11718750.000, "          \
  "\"bound\": \"memory\", \"bound_space\": 5}"

/* One line per memory space and per instruction; a newline in a string is
 * \u000a, UTF-8 goes through as is. */
#define STATS_JSON_BODY                                                                            \
  "\"run_time_ns\": 1500000, \"eval_ns\": 1234, \"repeat\": 3, \"eval_median_ns\": 2000, "         \
  "\"eval_first_ns\": 5000000000, \"eval_cpu_ns\": 999, \"instructions_executed\": 7, "            \
  "\"while_iterations\": 2,\n"                                                                     \
  " \"memory_spaces\": [\n"                                                                        \
  "  {\"id\": 0, \"name\": \"a\\\"b\\\\c\\u000ad \xc3\xa9\", \"capacity_bytes\": null, "            \
  "\"peak_bytes\": 16, \"bytes_read\": 16, \"bytes_written\": 8, \"bandwidth_bytes_per_s\": 0, "   \
  "\"configured\": true},\n"                                                                       \
  "  {\"id\": 5, \"name\": \"123\", \"capacity_bytes\": 4096, \"peak_bytes\": 1024, "              \
  "\"bytes_read\": 3072, \"bytes_written\": 0, \"bandwidth_bytes_per_s\": 1024, \"configured\": "  \
  "false}],\n"                                                                                     \
  " \"padding\": {\"buffers\": 4, \"logical_bytes\": 100, \"physical_bytes\": 150, "               \
  "\"overhead_percent\": 50.00},\n"                                                                \
  " \"layout_conversions\": 1,\n"                                                                  \
  " \"top_by_time\": [\n  " JSON_ADD ",\n  " JSON_NEG ",\n  " JSON_COPY "],\n"                     \
  " \"top_by_bytes\": [\n  " JSON_COPY ",\n  " JSON_ADD ",\n  " JSON_NEG "],\n"                    \
  " \"cost_model\": {\"peak_flops_per_s\": {\"f32\": 2000000000000},\n"                          \
  "  \"estimated_time_ns\": 11718750.000, \"flops\": 12, \"transcendentals\": 0,\n"              \
  "  \"top_by_estimate\": [\n   " JSON_ADD_COST "],\n"                                            \
  "  \"instructions\": [\n   " JSON_ADD_COST "]}}\n"

Test(run_output, stats_json) {
  Fixture f;
  fixture_init(&f);
  expect_stats(&f.res, RUN_FMT_JSON, "{\"device\": \"true\", " STATS_JSON_BODY);
  fixture_fini(&f);
}

/* A device of a multi-device run names its replica and partition. */
Test(run_output, stats_of_one_device_of_many) {
  Fixture f;
  fixture_init(&f);
  f.res.nreplicas = 2;
  f.res.npartitions = 2;
  f.res.replica_id = 1;
  f.res.partition_id = 0;
  expect_stats(&f.res, RUN_FMT_JSON,
               "{\"device\": \"true\", \"replica\": 1, \"partition\": 0, " STATS_JSON_BODY);
  char yaml[sizeof STATS_YAML + 64];
  snprintf(yaml, sizeof yaml, "device: true\nreplica: 1\npartition: 0\n%s",
           STATS_YAML + strlen("device: true\n"));
  expect_stats(&f.res, RUN_FMT_YAML, yaml);
  fixture_fini(&f);
}

/* Nothing executed, no memory space: empty lists, a single evaluation. */
Test(run_output, stats_of_an_empty_run) {
  RunResult r = {0};
  Module m = {0};
  r.module = &m;
  r.repeat = 1;
  snprintf(r.device, sizeof r.device, "cpu");
  expect_stats(&r, RUN_FMT_TEXT,
               "== hlorun statistics ==\n"
               "device: cpu\n"
               "run time: 0.000 us (evaluation 0.000 us, CPU 0.000 us), 0 instructions executed, "
               "0 while iterations\n"
               "memory spaces:\n"
               "layout padding: 0 buffers, 0 B logical, 0 B physical, overhead 0.0%\n"
               "layout conversions: 0 (0 B)\n"
               "top instructions by time (inclusive of called computations):\n"
               "top instructions by bytes moved:\n"
               "cost model: peak\n"
               "estimated device time: 0.000 ns (0 flops, 0 transcendentals)\n"
               "top instructions by estimate:\n");
  expect_stats(&r, RUN_FMT_YAML,
               "device: cpu\nrun_time_ns: 0\neval_ns: 0\nrepeat: 1\neval_median_ns: 0\n"
               "eval_first_ns: 0\neval_cpu_ns: 0\ninstructions_executed: 0\n"
               "while_iterations: 0\nmemory_spaces: []\npadding:\n  buffers: 0\n"
               "  logical_bytes: 0\n  physical_bytes: 0\n  overhead_percent: 0.00\n"
               "layout_conversions: 0\ntop_by_time: []\ntop_by_bytes: []\ncost_model:\n"
               "  peak_flops_per_s: {}\n  estimated_time_ns: 0.000\n  flops: 0\n"
               "  transcendentals: 0\n  top_by_estimate: []\n  instructions: []\n");
  expect_stats(&r, RUN_FMT_JSON,
               "{\"device\": \"cpu\", \"run_time_ns\": 0, \"eval_ns\": 0, \"repeat\": 1, "
               "\"eval_median_ns\": 0, \"eval_first_ns\": 0, \"eval_cpu_ns\": 0, "
               "\"instructions_executed\": 0, \"while_iterations\": 0,\n"
               " \"memory_spaces\": [],\n"
               " \"padding\": {\"buffers\": 0, \"logical_bytes\": 0, \"physical_bytes\": 0, "
               "\"overhead_percent\": 0.00},\n"
               " \"layout_conversions\": 0,\n"
               " \"top_by_time\": [],\n"
               " \"top_by_bytes\": [],\n"
               " \"cost_model\": {\"peak_flops_per_s\": {},\n"
               "  \"estimated_time_ns\": 0.000, \"flops\": 0, \"transcendentals\": 0,\n"
               "  \"top_by_estimate\": [],\n"
               "  \"instructions\": []}}\n");
}

/* --- the trace --- */

/* A call (depth 1 inside it), a copy into space 1, a token (no space) and
 * a tuple. */
static const char TRACE_MODULE[] =
    "HloModule m\n"
    "body {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(p)\n}\n"
    "ENTRY main {\n"
    "  a = f32[2] constant({1, 2})\n"
    "  b = f32[2]{0:S(1)} copy(a)\n"
    "  tok = token[] after-all()\n"
    "  t = (f32[2], f32[2]) tuple(a, b)\n"
    "  ROOT c = f32[2] call(a), to_apply=body\n"
    "}\n";

static const char TRACE_CONFIG[] =
    "device: \"true\"\n"
    "spaces:\n"
    "  - {id: 0, name: \"a\\\"b\\\\c\\nd \\u00e9\"}\n"
    "  - {id: 1, name: \"123\", capacity: 4096, bandwidth: 1e9}\n";

/* Times vary from run to run: every " <blanks>N.NNN" (a time in
 * microseconds, the only numbers with three decimals) becomes " #". */
static char *without_times(const char *s) {
  char *out = malloc(strlen(s) + 1), *o = out;
  cr_assert(out);
  while (*s) {
    const char *p = s;
    while (*p == ' ') p++;
    const char *q = p;
    while (*q >= '0' && *q <= '9') q++;
    bool time = s[0] == ' ' && q > p && q[0] == '.' && q[1] >= '0' && q[1] <= '9' &&
                q[2] >= '0' && q[2] <= '9' && q[3] >= '0' && q[3] <= '9' &&
                !(q[4] >= '0' && q[4] <= '9');
    if (time) {
      memcpy(o, " #", 2);
      o += 2;
      s = q + 4;
    } else {
      *o++ = *s++;
    }
  }
  *o = '\0';
  return out;
}

static void expect_trace(RunFormat fmt, const char *want) {
  Diags d = {0};
  Module *m = parse_module("trace.hlo", TRACE_MODULE, strlen(TRACE_MODULE), &d);
  cr_assert(m && d.count == 0 && verify_module(m, &d));
  MemConfig cfg;
  Error err = {0};
  cr_assert(config_parse_yaml("trace.yaml", TRACE_CONFIG, strlen(TRACE_CONFIG), &cfg, &err), "%s",
            err.msg);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(f);
  RunOptions opt = {.memory = &cfg, .trace = f, .trace_format = fmt};
  RunResult res;
  cr_assert(run_module(m, &opt, NULL, 0, &res, &err), "%s", err.msg);
  cr_assert(fclose(f) == 0);
  char *got = without_times(buf);
  cr_expect_str_eq(got, want, "format %d:\n--- got ---\n%s--- want ---\n%s", (int)fmt, got, want);
  free(got);
  free(buf);
  run_result_free(&res);
  module_free(m);
  diags_free(&d);
}

Test(run_output, trace_text) {
  expect_trace(RUN_FMT_TEXT,
               "a                        constant               f32[2]{0}                        "
               "        S(0) " ODD_NAME " # us\n"
               "b                        copy                   f32[2]{0:S(1)}                   "
               "        S(1) 123 # us\n"
               "tok                      after-all              token[]                          "
               "        - # us\n"
               "t                        tuple                  (f32[2]{0}, f32[2]{0})           "
               "        tuple # us\n"
               "  p                        parameter              f32[2]{0}                      "
               "          S(0) " ODD_NAME " # us\n"
               "  n                        negate                 f32[2]{0}                      "
               "          S(0) " ODD_NAME " # us\n"
               "c                        call                   f32[2]{0}                        "
               "        S(0) " ODD_NAME " # us\n");
}

/* One YAML document: a block sequence of flow mappings, strings as libyaml
 * picks their style (flow indicators force quotes). */
Test(run_output, trace_yaml) {
#define ODD_YAML "\"S(0) a\\\"b\\\\c\\nd \\xE9\""
  expect_trace(RUN_FMT_YAML,
               "- {name: a, opcode: constant, shape: 'f32[2]{0}', space: " ODD_YAML
               ", time_us: #, depth: 0}\n"
               "- {name: b, opcode: copy, shape: 'f32[2]{0:S(1)}', space: S(1) 123, time_us: #, "
               "depth: 0}\n"
               "- {name: tok, opcode: after-all, shape: 'token[]', space: '-', time_us: #, depth: "
               "0}\n"
               "- {name: t, opcode: tuple, shape: '(f32[2]{0}, f32[2]{0})', space: tuple, "
               "time_us: #, depth: 0}\n"
               "- {name: p, opcode: parameter, shape: 'f32[2]{0}', space: " ODD_YAML
               ", time_us: #, depth: 1}\n"
               "- {name: n, opcode: negate, shape: 'f32[2]{0}', space: " ODD_YAML
               ", time_us: #, depth: 1}\n"
               "- {name: c, opcode: call, shape: 'f32[2]{0}', space: " ODD_YAML
               ", time_us: #, depth: 0}\n");
#undef ODD_YAML
}

/* JSON Lines: one object a line. */
Test(run_output, trace_json) {
#define ODD_JSON "\"S(0) a\\\"b\\\\c\\u000ad \xc3\xa9\""
  expect_trace(RUN_FMT_JSON,
               "{\"name\": \"a\", \"opcode\": \"constant\", \"shape\": \"f32[2]{0}\", \"space\": "
               ODD_JSON ", \"time_us\": #, \"depth\": 0}\n"
               "{\"name\": \"b\", \"opcode\": \"copy\", \"shape\": \"f32[2]{0:S(1)}\", \"space\": "
               "\"S(1) 123\", \"time_us\": #, \"depth\": 0}\n"
               "{\"name\": \"tok\", \"opcode\": \"after-all\", \"shape\": \"token[]\", \"space\": "
               "\"-\", \"time_us\": #, \"depth\": 0}\n"
               "{\"name\": \"t\", \"opcode\": \"tuple\", \"shape\": \"(f32[2]{0}, f32[2]{0})\", "
               "\"space\": \"tuple\", \"time_us\": #, \"depth\": 0}\n"
               "{\"name\": \"p\", \"opcode\": \"parameter\", \"shape\": \"f32[2]{0}\", \"space\": "
               ODD_JSON ", \"time_us\": #, \"depth\": 1}\n"
               "{\"name\": \"n\", \"opcode\": \"negate\", \"shape\": \"f32[2]{0}\", \"space\": "
               ODD_JSON ", \"time_us\": #, \"depth\": 1}\n"
               "{\"name\": \"c\", \"opcode\": \"call\", \"shape\": \"f32[2]{0}\", \"space\": "
               ODD_JSON ", \"time_us\": #, \"depth\": 0}\n");
#undef ODD_JSON
}
