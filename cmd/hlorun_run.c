/* hlorun's run mode: options, input files, the run, output and reports
 * (cmd/hlorun.c owns the command line, parsing, --check and --print-module). */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/thread_pool.h"
#include "interp/custom_call/user_calls.h"
#include "interp/io/config.h"
#include "interp/io/literal.h"
#include "interp/io/npy.h"
#include "interp/run.h"
#include "cmd/hlorun_run.h"
#include "cmd/hlorun_debug.h"
#include "cmd/hlorun_outputs.h"
#include "cmd/hlorun_report.h"

/* The MPI job this process belongs to (hlorun_run_set_world). */
static int world_rank, world_size = 1;

void hlorun_run_usage(FILE *f) {
  fputs("run options:\n"
        "  --inputs FILE[,FILE...]   bind entry parameters (.npy: one array, by position;\n"
        "                            .npz, compressed or not: its entries, by parameter\n"
        "                            name, JAX argument name or argN, else by position;\n"
        "                            repeatable)\n"
        "  --random-inputs[=SEED]    fill unbound parameters (and infeeds left without\n"
        "                            --infeed data) with deterministic data\n"
        "  --infeed FILE.npy|.npz    data for infeed, one array per array leaf, consumed\n"
        "                            in order (repeatable)\n"
        "  --outfeed-dir DIR         write each array outfeed sends to DIR/outfeedN.npy\n"
        "                            (N = 0, 1, ... in order)\n"
        "  --output FILE.npy|.npz    write the result (npz: every array leaf) instead of\n"
        "                            printing it; output paths are checked before the run\n"
        "  --output-dir DIR          one DIR/r{R}[p{P}].npz per device (under mpirun:\n"
        "                            each rank its own devices'; docs/mpi.md)\n"
        "  --output-raw              write bf16/f8/sub-byte results as raw bits\n"
        "  --print                   print the result even with --output; arrays of more\n"
        "                            than 1000 elements print summarised (first and last 3\n"
        "                            entries of each dimension, '...' between)\n"
        "  --print-full              print the result with every element\n"
        "  --quiet                   do not print the result\n"
        "  --device NAME             memory preset: ",
        f);
  const char *const *names = config_preset_names();
  for (int i = 0; names[i]; i++) fprintf(f, "%s%s", i ? ", " : "", names[i]);
  fputs("\n"
        "  --memory-config FILE.yaml memory spaces (capacity, bandwidth)\n"
        "  --stats[=FILE]            memory/time report after the run (stderr by default)\n"
        "  --stats-format text|yaml|json\n"
        "  --report FILE.html        write the memory report page (docs/report.md), also\n"
        "                            when the run fails (up to where it stopped)\n"
        "  --trace[=FILE]            one line per executed instruction (stderr by default)\n"
        "  --trace-format text|yaml|json\n"
        "  --replicas N              run N replicas (default: the module's replica_count)\n"
        "  --partitions N            run N partitions (default: the module's num_partitions);\n"
        "                            replicas x partitions devices (at most 64), one thread\n"
        "                            each, all on the same inputs; the result of each is\n"
        "                            printed after 'replica R:' ('replica R, partition P:')\n"
        "  --repeat N                evaluate N times on the same inputs; --stats reports\n"
        "                            the best (eval_ns), median and first evaluation\n"
        "  --timeout SECONDS         stop a run still evaluating after SECONDS (exit 1,\n"
        "                            naming the instruction and while iteration it was at)\n"
        "  --max-instructions N      stop a run after N executed instructions (loop\n"
        "                            iterations count their bodies'; exit 1, as --timeout)\n"
        "  --custom-call TARGET=LIB.so:SYMBOL\n"
        "                            run custom calls of TARGET with SYMBOL of the shared\n"
        "                            library: an XLA FFI handler (api_version=\n"
        "                            API_VERSION_TYPED_FFI) or an old-style CPU function\n"
        "                            (LIB.so:execute=S,instantiate=S,... names FFI stages)\n"
        "  --custom-call TARGET=FILE.hlo\n"
        "                            run FILE's entry computation in place of each call\n"
        "                            of TARGET (repeatable; docs/custom-calls.md)\n"
        "  --unknown-custom-calls error|zeros|random\n"
        "                            a custom call whose target hlotools cannot compute:\n"
        "                            fail (default), or yield zeros / deterministic random\n"
        "                            data (the --random-inputs seed) of its declared shape,\n"
        "                            with a warning naming the target; --stats lists them\n"
        "  --threads N               threads the run uses, OpenBLAS's included (default:\n"
        "                            every online processor; 1: one thread in all); the\n"
        "                            results are the same bytes for every N\n"
        "  --text-order              run each computation's instructions in the order\n"
        "                            written (default: a depth-first order instead where it\n"
        "                            lowers the peak memory by 1/16 and 16 MiB or more, as\n"
        "                            XLA schedules an unscheduled module)\n"
        "  --flush-denormals         compute as XLA:CPU (and JAX on a CPU) does: subnormal\n"
        "                            inputs read as zero, subnormal results flushed to\n"
        "                            zero (default: IEEE subnormals, as XLA's evaluator)\n",
        f);
  hlorun_debug_usage(f);
  hlorun_expect_usage(f);
}

static bool hlorun_format(const char *s, RunFormat *out) {
  if (!strcmp(s, "text")) *out = RUN_FMT_TEXT;
  else if (!strcmp(s, "yaml")) *out = RUN_FMT_YAML;
  else if (!strcmp(s, "json")) *out = RUN_FMT_JSON;
  else return false;
  return true;
}

/* "--opt=value" or "--opt value": the value, advancing *i; NULL if missing. */
static const char *hlorun_value(int argc, char **argv, int *i, const char *opt) {
  const char *a = argv[*i];
  size_t n = strlen(opt);
  if (a[n] == '=') return a + n + 1;
  if (*i + 1 >= argc) return NULL;
  return argv[++*i];
}

static bool hlorun_is(const char *arg, const char *opt) {
  size_t n = strlen(opt);
  return strncmp(arg, opt, n) == 0 && (arg[n] == 0 || arg[n] == '=');
}

/* "--opt N" with 1 <= N <= max into *out: 1, or -1 with the error printed. */
static int hlorun_count(int argc, char **argv, int *i, const char *opt, int64_t max,
                        int64_t *out) {
  const char *v = hlorun_value(argc, argv, i, opt);
  if (!v) {
    fprintf(stderr, "hlorun: error: %s needs a number\n", opt);
    return -1;
  }
  char *end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (!*v || *end || errno || n < 1 || n > max) {
    fprintf(stderr, "hlorun: error: %s needs a number from 1 to %" PRId64 ", got '%s'\n", opt,
            max, v);
    return -1;
  }
  *out = n;
  return 1;
}

/* --unknown-custom-calls error|zeros|random: as hlorun_run_option. */
static int unknown_calls_option(int argc, char **argv, int *i, RunUnknownCalls *out) {
  const char *opt = "--unknown-custom-calls";
  if (!hlorun_is(argv[*i], opt)) return 0;
  const char *v = hlorun_value(argc, argv, i, opt);
  static const char *const names[] = {"error", "zeros", "random"};
  for (int k = 0; v && k < 3; k++)
    if (strcmp(v, names[k]) == 0) {
      *out = (RunUnknownCalls)k;
      return 1;
    }
  fprintf(stderr, "hlorun: error: %s takes error, zeros or random%s%s%s\n", opt,
          v ? ", not '" : "", v ? v : "", v ? "'" : "");
  return -1;
}

/* Warns once per target whose results --unknown-custom-calls made up,
 * over every device. */
static void warn_substituted(const char *prog, const RunResult *res, RunUnknownCalls how) {
  for (int d = 0; d < res->ndevices; d++) {
    const RunResult *r = run_result_device(res, d);
    for (int i = 0; i < r->nsubstituted; i++) {
      bool seen = false;
      for (int e = 0; e < d && !seen; e++) {
        const RunResult *q = run_result_device(res, e);
        for (int j = 0; j < q->nsubstituted && !seen; j++)
          seen = strcmp(q->substituted[j].target, r->substituted[i].target) == 0;
      }
      if (!seen)
        fprintf(stderr,
                "%s: warning: custom-call target \"%s\" is not supported: its %s"
                " (--unknown-custom-calls)\n",
                prog, r->substituted[i].target,
                how == RUN_UNKNOWN_CALLS_ZEROS ? "results are zeros" : "results are random data");
    }
  }
}

/* 1: consumed argv[*i] (and maybe its value); 0: not a run option;
 * -1: usage error (message printed). */
int hlorun_run_option(int argc, char **argv, int *i, HlorunRunArgs *a) {
  const char *arg = argv[*i];
  const char *v;
  int unknown_opt = unknown_calls_option(argc, argv, i, &a->unknown_calls);
  if (unknown_opt) return unknown_opt;
  int debug_opt = hlorun_debug_option(argc, argv, i, a);
  if (debug_opt) return debug_opt;
  int expect_opt = hlorun_expect_option(argc, argv, i, &a->expect);
  if (expect_opt) return expect_opt;
  if (hlorun_is(arg, "--inputs") || hlorun_is(arg, "--input")) {
    v = hlorun_value(argc, argv, i, hlorun_is(arg, "--inputs") ? "--inputs" : "--input");
    if (!v || !*v) {
      fprintf(stderr, "hlorun: error: --inputs needs a file name\n");
      return -1;
    }
    /* comma-separated list; the strings live in argv, so split a copy */
    char *copy = strdup(v);
    if (!copy) return -1;
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
      if (a->ninputs >= HLORUN_MAX_INPUT_FILES) {
        fprintf(stderr, "hlorun: error: too many input files (at most %d)\n",
                HLORUN_MAX_INPUT_FILES);
        free(copy);
        return -1;
      }
      a->inputs[a->ninputs++] = strdup(tok); /* freed by hlorun_run_args_free */
    }
    free(copy);
    return 1;
  }
  if (hlorun_is(arg, "--custom-call")) {
    if (!(v = hlorun_value(argc, argv, i, "--custom-call")) || !strchr(v, '=')) {
      fprintf(stderr, "hlorun: error: --custom-call takes TARGET=LIB.so:SYMBOL or "
                      "TARGET=FILE.hlo\n");
      return -1;
    }
    if (a->ncustom_calls >= HLORUN_MAX_CUSTOM_CALLS) {
      fprintf(stderr, "hlorun: error: too many --custom-call options (at most %d)\n",
              HLORUN_MAX_CUSTOM_CALLS);
      return -1;
    }
    a->custom_calls[a->ncustom_calls++] = v;
    return 1;
  }
  if (hlorun_is(arg, "--infeed")) {
    if (!(v = hlorun_value(argc, argv, i, "--infeed")) || !*v) {
      fprintf(stderr, "hlorun: error: --infeed needs a file name\n");
      return -1;
    }
    if (a->ninfeeds >= HLORUN_MAX_INPUT_FILES) {
      fprintf(stderr, "hlorun: error: too many infeed files (at most %d)\n",
              HLORUN_MAX_INPUT_FILES);
      return -1;
    }
    a->infeeds[a->ninfeeds++] = v;
    return 1;
  }
  if (hlorun_is(arg, "--output-dir")) {
    if (!(v = hlorun_value(argc, argv, i, "--output-dir")) || !*v) {
      fprintf(stderr, "hlorun: error: --output-dir needs a directory\n");
      return -1;
    }
    a->output_dir = v;
    return 1;
  }
  if (hlorun_is(arg, "--outfeed-dir")) {
    if (!(v = hlorun_value(argc, argv, i, "--outfeed-dir")) || !*v) {
      fprintf(stderr, "hlorun: error: --outfeed-dir needs a directory\n");
      return -1;
    }
    a->outfeed_dir = v;
    return 1;
  }
  if (hlorun_is(arg, "--random-inputs")) {
    a->random_inputs = true;
    if (arg[15] == '=') {
      char *end;
      errno = 0;
      unsigned long long s = strtoull(arg + 16, &end, 0);
      if (!arg[16] || *end || errno) {
        fprintf(stderr, "hlorun: error: --random-inputs=SEED needs a number, got '%s'\n",
                arg + 16);
        return -1;
      }
      a->seed = s;
    }
    return 1;
  }
  if (hlorun_is(arg, "--output")) {
    if (!(v = hlorun_value(argc, argv, i, "--output")) || !*v) {
      fprintf(stderr, "hlorun: error: --output needs a file name\n");
      return -1;
    }
    size_t n = strlen(v);
    if (n < 4 || (strcmp(v + n - 4, ".npy") && strcmp(v + n - 4, ".npz"))) {
      fprintf(stderr, "hlorun: error: --output must name a .npy or .npz file, got '%s'\n", v);
      return -1;
    }
    a->output = v;
    return 1;
  }
  if (!strcmp(arg, "--output-raw")) return a->output_raw = true, 1;
  if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) return a->quiet = true, 1;
  if (!strcmp(arg, "--print")) return a->print = true, 1;
  if (!strcmp(arg, "--text-order")) return a->text_order = true, 1;
  if (!strcmp(arg, "--flush-denormals")) return a->flush_denormals = true, 1;
  if (!strcmp(arg, "--print-full")) return a->print_full = true, 1;
  if (hlorun_is(arg, "--device")) {
    if (!(v = hlorun_value(argc, argv, i, "--device"))) {
      fprintf(stderr, "hlorun: error: --device needs a name\n");
      return -1;
    }
    a->device = v;
    return 1;
  }
  if (hlorun_is(arg, "--memory-config")) {
    if (!(v = hlorun_value(argc, argv, i, "--memory-config"))) {
      fprintf(stderr, "hlorun: error: --memory-config needs a file\n");
      return -1;
    }
    a->memory_config = v;
    return 1;
  }
  if (hlorun_is(arg, "--report")) {
    if (!(v = hlorun_value(argc, argv, i, "--report")) || !*v) {
      fprintf(stderr, "hlorun: error: --report needs a file\n");
      return -1;
    }
    a->report = v;
    return 1;
  }
  if (hlorun_is(arg, "--stats-format")) {
    if (!(v = hlorun_value(argc, argv, i, "--stats-format")) ||
        !hlorun_format(v, &a->stats_format)) {
      fprintf(stderr, "hlorun: error: --stats-format takes text, yaml or json\n");
      return -1;
    }
    return 1;
  }
  if (hlorun_is(arg, "--stats")) {
    a->stats = true;
    if (arg[7] == '=') a->stats_file = arg + 8;
    return 1;
  }
  if (hlorun_is(arg, "--trace-format")) {
    if (!(v = hlorun_value(argc, argv, i, "--trace-format")) ||
        !hlorun_format(v, &a->trace_format)) {
      fprintf(stderr, "hlorun: error: --trace-format takes text, yaml or json\n");
      return -1;
    }
    return 1;
  }
  if (hlorun_is(arg, "--trace")) {
    /* --trace=text|yaml|json names the format (as before --trace-format
     * existed); any other --trace=VALUE is the file to write. */
    a->trace = true;
    if (arg[7] == '=' && !hlorun_format(arg + 8, &a->trace_format)) {
      if (!arg[8]) {
        fprintf(stderr, "hlorun: error: --trace= needs a file name\n");
        return -1;
      }
      a->trace_file = arg + 8;
    }
    return 1;
  }
  if (hlorun_is(arg, "--repeat"))
    return hlorun_count(argc, argv, i, "--repeat", 1000000, &a->repeat);
  if (hlorun_is(arg, "--threads"))
    return hlorun_count(argc, argv, i, "--threads", 1024, &a->threads);
  if (hlorun_is(arg, "--max-instructions"))
    return hlorun_count(argc, argv, i, "--max-instructions", INT64_MAX, &a->max_instructions);
  if (hlorun_is(arg, "--replicas"))
    return hlorun_count(argc, argv, i, "--replicas", RUN_MAX_DEVICES, &a->replicas);
  if (hlorun_is(arg, "--partitions"))
    return hlorun_count(argc, argv, i, "--partitions", RUN_MAX_DEVICES, &a->partitions);
  if (hlorun_is(arg, "--timeout")) {
    char *end;
    if (!(v = hlorun_value(argc, argv, i, "--timeout"))) {
      fprintf(stderr, "hlorun: error: --timeout needs a number of seconds\n");
      return -1;
    }
    errno = 0;
    double t = strtod(v, &end);
    /* up to a year: past that the nanosecond deadline could overflow */
    if (!*v || *end || errno || !(t > 0) || t > 31536000) {
      fprintf(stderr, "hlorun: error: --timeout needs seconds above 0 (at most 31536000), got '%s'\n", v);
      return -1;
    }
    a->timeout_ns = (int64_t)(t * 1e9);
    if (a->timeout_ns < 1) a->timeout_ns = 1;
    return 1;
  }
  return 0;
}

void hlorun_run_args_free(HlorunRunArgs *a) {
  for (int i = 0; i < a->ninputs; i++) free((char *)a->inputs[i]);
  a->ninputs = 0;
}

/* Loaded input files. */
typedef struct HlorunInputs {
  int n, cap;
  RunInput *items;
  NpyArray *npys; /* one per .npy file */
  int nnpy;
  NpzFile *npzs;
  int nnpz;
} HlorunInputs;

static bool hlorun_push_input(HlorunInputs *in, const char *source, const char *name,
                              const NpyArray *a) {
  if (in->n == in->cap) {
    int cap = in->cap ? in->cap * 2 : 16;
    RunInput *ni = realloc(in->items, sizeof *ni * (size_t)cap);
    if (!ni) return false;
    in->items = ni;
    in->cap = cap;
  }
  in->items[in->n++] = (RunInput){source, name, a};
  return true;
}

static void hlorun_inputs_free(HlorunInputs *in) {
  for (int i = 0; i < in->n; i++) free((char *)in->items[i].source);
  free(in->items);
  for (int i = 0; i < in->nnpy; i++) npy_free(&in->npys[i]);
  free(in->npys);
  for (int i = 0; i < in->nnpz; i++) npz_free(&in->npzs[i]);
  free(in->npzs);
}

static bool hlorun_load_inputs(const char *const *files, int nfiles, HlorunInputs *in,
                               Error *err) {
  memset(in, 0, sizeof *in);
  in->npys = calloc((size_t)(nfiles ? nfiles : 1), sizeof *in->npys);
  in->npzs = calloc((size_t)(nfiles ? nfiles : 1), sizeof *in->npzs);
  if (!in->npys || !in->npzs) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  for (int f = 0; f < nfiles; f++) {
    const char *path = files[f];
    size_t n = strlen(path);
    if (n >= 4 && !strcmp(path + n - 4, ".npz")) {
      NpzFile *z = &in->npzs[in->nnpz];
      if (!npz_view_file(path, z, err)) return false;
      in->nnpz++;
      for (int e = 0; e < z->count; e++) {
        size_t len = n + strlen(z->entries[e].name) + 2;
        char *src = malloc(len);
        if (!src) return error_set(err, ERR_RUNTIME, -1, "out of memory");
        snprintf(src, len, "%s:%s", path, z->entries[e].name);
        if (!hlorun_push_input(in, src, z->entries[e].name, &z->entries[e].array)) {
          free(src);
          return error_set(err, ERR_RUNTIME, -1, "out of memory");
        }
      }
    } else {
      NpyArray *y = &in->npys[in->nnpy];
      if (!npy_view_file(path, y, err)) return false;
      in->nnpy++;
      char *src = strdup(path);
      if (!src || !hlorun_push_input(in, src, NULL, y)) {
        free(src);
        return error_set(err, ERR_RUNTIME, -1, "out of memory");
      }
    }
  }
  return true;
}

/* The result as a literal tree over the leaves, in flattened order. */
static bool hlorun_literal_node(const Shape *s, const RunResult *r, int *leaf, LiteralNode *node) {
  memset(node, 0, sizeof *node);
  if (shape_is_tuple(s)) {
    LiteralNode *el = calloc((size_t)(s->ntuple ? s->ntuple : 1), sizeof *el);
    if (!el) return false;
    node->etype = ET_TUPLE;
    node->count = s->ntuple;
    node->elems = el;
    for (int i = 0; i < s->ntuple; i++)
      if (!hlorun_literal_node(&s->tuple[i], r, leaf, &el[i])) return false;
    return true;
  }
  if (!value_shape_has_data(s)) {
    node->etype = ET_TOKEN;
    return true;
  }
  const RunLeaf *l = &r->leaves[(*leaf)++];
  node->etype = l->shape->etype;
  node->rank = l->shape->rank;
  node->dims = l->dims;
  node->data = l->data;
  node->bounds = l->shape->dims;
  node->dynamic = l->shape->dynamic;
  return true;
}

static void hlorun_literal_free(LiteralNode *node) {
  if (node->etype != ET_TUPLE) return;
  for (int i = 0; i < node->count; i++) hlorun_literal_free((LiteralNode *)&node->elems[i]);
  free((void *)node->elems);
}

/* literal_print_with's flush: the text so far goes to stdout. */
static void hlorun_flush_stdout(void *ctx, StrBuf *sb) {
  (void)ctx;
  fwrite(sb->data ? sb->data : "", 1, sb->len, stdout);
  sb->len = 0;
}

static void hlorun_print_result(const RunResult *r, bool full) {
  LiteralNode node;
  int leaf = 0;
  StrBuf sb;
  sb_init(&sb);
  if (hlorun_literal_node(r->shape, r, &leaf, &node)) {
    LiteralPrintOptions opt = {.print_shape = true, .summarise = !full,
                               .flush = hlorun_flush_stdout};
    literal_print_with(&sb, &node, &opt);
    fwrite(sb.data ? sb.data : "", 1, sb.len, stdout);
    fputc('\n', stdout); /* the text never ends in a newline */
  }
  hlorun_literal_free(&node);
  sb_free(&sb);
}

/* hlo-text.md: "{...}" means the text does not say what the values are; the
 * run uses zeros, so say so once (with the first such constant located). */
static void hlorun_warn_elided(const Module *m) {
  const Instr *first;
  int n = module_elided_constants(m, &first);
  if (!n) return;
  char msg[512];
  if (n == 1)
    snprintf(msg, sizeof msg,
             "constant %s has elided contents ({...}): the text does not give its values, "
             "they are taken as zeros",
             first->name);
  else
    snprintf(msg, sizeof msg,
             "%d constants, the first %s, have elided contents ({...}): the text does not give "
             "their values, they are taken as zeros",
             n, first->name);
  SourcePlace at = module_source_place(m, first->offset);
  char *s = diag_render_as(m->filename, at.text, at.len, at.offset, "warning", msg);
  if (s) fputs(s, stderr);
  free(s);
}

static int hlorun_run_debugged(const char *prog, const Module *m, const HlorunRunArgs *a,
                               const MemConfig *cfg, const UserCalls *calls, RunDebug *debug,
                               const HlorunExpect *expect);
static int load_custom_calls(const char *prog, const HlorunRunArgs *a, const MemConfig *cfg,
                             UserCalls **calls);

/* A run error: located in the module's text (as parse errors are) when it
 * concerns an instruction, "PROG: error: msg" otherwise. */
static void hlorun_report(const char *prog, const Module *m, const Error *err) {
  /* Lines after the first (the out-of-memory listing of live buffers) go
   * after the source line and caret. */
  char first[sizeof err->msg];
  snprintf(first, sizeof first, "%s", err->msg);
  const char *rest = strchr(err->msg, '\n');
  if (rest) first[rest - err->msg] = 0;
  char *s = NULL;
  if (err->offset >= 0 && m->source && (size_t)err->offset <= m->source_len) {
    SourcePlace at = module_source_place(m, err->offset);
    if (at.offset >= 0) s = diag_render_as(m->filename, at.text, at.len, at.offset, "error", first);
  }
  if (s) fputs(s, stderr);
  else fprintf(stderr, "%s: error: %s\n", prog, first);
  if (rest) fprintf(stderr, "%s\n", rest + 1);
  free(s);
}

/* Runs a parsed, verified module with the --expect reference loaded.
 * Returns the exit status (cli.md). */
static int hlorun_run_loaded(const char *prog, const Module *m, const HlorunRunArgs *a,
                             const HlorunExpect *expect) {
  Error err = {0};
  MemConfig cfg;
  if (a->device && a->memory_config) {
    fprintf(stderr, "%s: error: --device and --memory-config exclude each other\n", prog);
    fprintf(stderr, "Try '%s --help' for more information.\n", prog);
    return 2;
  }
  bool ok = true;
  if (a->memory_config) ok = config_load_file(a->memory_config, &cfg, &err);
  else if (a->device) ok = config_preset(a->device, &cfg, &err);
  else config_default(&cfg);
  if (!ok) {
    fprintf(stderr, "%s: error: %s\n", prog, err.msg);
    return err.kind == ERR_RUNTIME ? 1 : 2;
  }
  UserCalls *calls = NULL;
  int status = load_custom_calls(prog, a, &cfg, &calls);
  if (status != 0) return status;
  RunOptions grid = {0};
  grid.replicas = a->replicas;
  grid.partitions = a->partitions;
  int64_t replicas, partitions;
  run_device_grid(m, &grid, &replicas, &partitions);
  char why[4400];
  if (!hlorun_check_outputs(m, a, replicas * partitions, why, sizeof why)) {
    fprintf(stderr, "%s: error: %s\n", prog, why);
    user_calls_free(calls);
    return 2;
  }
  RunDebug debug;
  run_debug_init(&debug);
  regex_t filter;
  bool filter_used;
  int debug_status = hlorun_debug_prepare(prog, a, &debug, &filter, &filter_used);
  if (debug_status != 0) {
    run_debug_free(&debug);
    user_calls_free(calls);
    return debug_status;
  }
  status = hlorun_run_debugged(prog, m, a, &cfg, calls, &debug, expect);
  user_calls_free(calls);
  if (filter_used) regfree(&filter);
  run_debug_free(&debug);
  return status;
}

/* The --custom-call registrations, then the config's custom_calls whose
 * targets the command line does not name (the command line wins).
 * Returns 0, or the exit status of a failure (printed). */
static int load_custom_calls(const char *prog, const HlorunRunArgs *a, const MemConfig *cfg,
                             UserCalls **calls) {
  Error err = {0};
  bool ok = true;
  for (int k = 0; ok && k < a->ncustom_calls; k++)
    ok = user_calls_add(calls, a->custom_calls[k], NULL, &err);
  for (int k = 0; ok && k < cfg->ncustom_calls; k++) {
    const char *spec = cfg->custom_calls[k];
    size_t n = strcspn(spec, "=");
    char target[CONFIG_CUSTOM_CALL_MAX];
    snprintf(target, sizeof target, "%.*s", (int)n, spec);
    if (!user_calls_find(*calls, target))
      ok = user_calls_add(calls, spec, cfg->dir[0] ? cfg->dir : NULL, &err);
  }
  if (ok) return 0;
  fprintf(stderr, "%s: error: %s\n", prog, err.msg);
  user_calls_free(*calls);
  *calls = NULL;
  return err.kind == ERR_INVALID ? 3 : err.kind == ERR_RUNTIME ? 1 : 2;
}

/* The run proper, with the debugging options prepared. */
static int hlorun_run_debugged(const char *prog, const Module *m, const HlorunRunArgs *a,
                               const MemConfig *cfgp, const UserCalls *calls, RunDebug *debug,
                               const HlorunExpect *expect) {
  Error err = {0};
  MemConfig cfg = *cfgp;
  bool ok;
  HlorunInputs in, feed;
  bool loaded = hlorun_load_inputs(a->inputs, a->ninputs, &in, &err);
  bool fed = loaded && hlorun_load_inputs(a->infeeds, a->ninfeeds, &feed, &err);
  if (!fed) {
    fprintf(stderr, "%s: error: %s\n", prog, err.msg);
    hlorun_inputs_free(&in);
    if (loaded) hlorun_inputs_free(&feed);
    return 1;
  }
  RunOptions opt = {0};
  opt.memory = &cfg;
  opt.replicas = a->replicas;
  opt.partitions = a->partitions;
  opt.random_inputs = a->random_inputs;
  opt.seed = a->seed;
  opt.unknown_calls = a->unknown_calls;
  opt.custom_calls = calls;
  opt.stats = a->stats;
  opt.repeat = a->repeat;
  opt.timeout_ns = a->timeout_ns;
  opt.max_instructions = a->max_instructions;
  opt.threads = a->threads > 0 ? (int)a->threads : pool_default_threads();
  opt.flush_denormals = a->flush_denormals;
  opt.world_rank = world_rank;
  opt.world_size = world_size;
  FILE *trace = a->trace ? stderr : NULL;
  if (a->trace_file && !(trace = fopen(a->trace_file, "w"))) {
    fprintf(stderr, "%s: error: cannot write %s: %s\n", prog, a->trace_file, strerror(errno));
    hlorun_inputs_free(&in);
    hlorun_inputs_free(&feed);
    return 1;
  }
  opt.trace = trace;
  opt.trace_format = a->trace_format;
  opt.infeed = feed.items;
  opt.ninfeed = feed.n;
  /* --output writes the result instead of printing it, unless --print(-full) */
  bool print = !a->quiet && (!a->output || a->print || a->print_full);
  opt.discard_result = !print && !a->output && !a->expect.path && !a->output_dir;
  /* Under mpirun only these need the other ranks' data on rank 0. */
  opt.gather_data = print || a->output || a->expect.path;
  opt.debug = debug;
  /* --report: each device's memory timeline, kept whatever the run does. */
  MemTrack *tracks[RUN_MAX_DEVICES] = {0};
  if (a->report) {
    opt.tracks = tracks;
    opt.stats = true; /* the cost model's rows */
  }
  RunResult res;
  hlorun_warn_elided(m);
  ok = run_module(m, &opt, in.items, in.n, &res, &err);
  hlorun_inputs_free(&in);
  hlorun_inputs_free(&feed);
  if (trace && trace != stderr && fclose(trace) != 0 && ok) {
    fprintf(stderr, "%s: error: cannot write %s: %s\n", prog, a->trace_file, strerror(errno));
    run_result_free(&res);
    hlorun_tracks_free(tracks);
    return 1;
  }
  if (!ok) {
    if (!hlorun_debug_report_failure(m, debug)) hlorun_report(prog, m, &err);
    hlorun_debug_summary(prog, a, debug);
    /* The page up to where the run stopped; the exit stays the run's. */
    if (a->report) hlorun_report_page(prog, m, a, cfg.device, tracks, NULL, err.msg);
    return err.kind == ERR_MISMATCH ? 4 : 1; /* 4: a check.* call failed */
  }
  hlorun_debug_summary(prog, a, debug);
  int dir_status = 0;
  if (a->output_dir && !hlorun_write_output_dir(a, &res, &err)) {
    fprintf(stderr, "%s: error: %s\n", prog, err.msg);
    dir_status = 1;
  }
  if (world_rank != 0) { /* rank 0 holds every device's result */
    run_result_free(&res);
    return dir_status;
  }
  warn_substituted(prog, &res, a->unknown_calls);
  int status = dir_status;
  for (int d = 0; print && d < res.ndevices; d++) {
    const RunResult *r = run_result_device(&res, d);
    if (res.ndevices > 1 && r->npartitions > 1)
      printf("replica %" PRId64 ", partition %" PRId64 ":\n", r->replica_id, r->partition_id);
    else if (res.ndevices > 1)
      printf("replica %" PRId64 ":\n", r->replica_id);
    hlorun_print_result(r, a->print_full);
  }
  int verdict = a->expect.path ? hlorun_expect_check(prog, expect, &res, stderr) : 0;
  if (a->output && !hlorun_write_output(a, &res, &err)) {
    fprintf(stderr, "%s: error: %s\n", prog, err.msg);
    status = err.kind == ERR_USAGE ? 2 : 1;
  }
  if (a->outfeed_dir && !hlorun_write_outfeed(a, &res, &err)) {
    fprintf(stderr, "%s: error: %s\n", prog, err.msg);
    status = 1;
  }
  if (a->stats && hlorun_write_stats(prog, a, &res) != 0) status = 1;
  if (a->report && hlorun_report_page(prog, m, a, cfg.device, tracks, &res, NULL) != 0) status = 1;
  run_result_free(&res);
  return status ? status : verdict;
}

void hlorun_run_set_world(int rank, int size) {
  world_rank = rank;
  world_size = size;
}

/* Runs a parsed, verified module.  Returns the exit status (cli.md). */
int hlorun_run_mode(const char *prog, const Module *m, const HlorunRunArgs *a) {
  /* The reference first, so that a missing or bad one fails before the run. */
  RunOptions grid = {.replicas = a->replicas, .partitions = a->partitions};
  int64_t replicas, partitions;
  run_device_grid(m, &grid, &replicas, &partitions);
  HlorunExpect expect;
  int status = hlorun_expect_load(prog, &a->expect, replicas * partitions, &expect);
  if (status) return status;
  status = hlorun_run_loaded(prog, m, a, &expect);
  hlorun_expect_free(&expect);
  return status;
}
