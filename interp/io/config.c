#include "interp/io/config.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)
#define GiB ((int64_t)1 << 30)

/* Public figures (per chip) from Google Cloud's TPU system architecture
 * pages and the Pallas TPU guide; host memory sizes are per-chip shares of a
 * typical host and only indicative. */
typedef struct Preset {
  const char *name;
  const char *description;
  int nspaces;
  MemSpaceConfig spaces[4];
  double peak[PEAK_NTYPES]; /* bf16, f16, f32, f64, int8 (0: not stated) */
  const char *peak_note;
} Preset;

const char *const config_peak_names[PEAK_NTYPES] = {"bf16", "f16", "f32", "f64", "int8"};

/* Peak compute (docs/cost-model.md has the sources in full):
 * - bf16 and int8: Google Cloud TPU docs, per chip: v4 275 TFLOP/s bf16
 *   and 275 TOP/s int8 (cloud.google.com/tpu/docs/v4); v5e 197 TFLOP/s bf16
 *   (cloud.google.com/tpu/docs/v5e), 394 TOP/s int8 (Google Cloud's v5e
 *   announcement; the v5e page's 100 PetaOps int8 per 256-chip pod agrees);
 *   v5p 459 TFLOP/s bf16 (cloud.google.com/tpu/docs/v5p), 918 TOP/s int8
 *   (Google Cloud's v5p announcement).
 * - f32 and f16: Google publishes none.  The MXU multiplies bf16; at XLA's
 *   and JAX's default precision an f32 dot is one bf16 pass (JAX docs,
 *   jax.lax.Precision: DEFAULT is bfloat16 on TPU), so f32 and f16 get the
 *   bf16 peak: an optimistic bound (HIGHEST precision is several passes).
 * - f64: not stated (TPUs emulate it); the f32 figure is used.
 * - cpu: a stated nominal figure, not a measurement: 2 cores x 2.5 GHz x
 *   32 f32 flops per cycle (AVX2: two 8-lane FMA pipes), 160 GFLOP/s; f64
 *   half of it; bf16/f16 as f32 (converted to f32 to compute). */
#define TPU_PEAK_NOTE "Google Cloud TPU docs (bf16, int8); f32/f16 at the bf16 peak (default precision)"

static const Preset PRESETS[] = {
    {"cpu",
     "generic CPU: one large device-memory space, a host space, and a generous alternate "
     "space so that TPU dumps using S(1) still run",
     3,
     {{0, "HBM", 64 * GiB, 50e9, "stand-in for device memory on a CPU host"},
      {1, "VMEM", 256 * MiB, 200e9, "alternate fast memory; larger than any TPU's VMEM"},
      {5, "host", 64 * GiB, 25e9, "host memory"}},
     {160e9, 160e9, 160e9, 80e9, 0},
     "nominal: 2 cores x 2.5 GHz x 32 f32 flops/cycle (AVX2 FMA); f64 half"},
    {"tpu-v4",
     "TPU v4 chip: 32 GiB HBM2 at 1200 GB/s, 16 MiB VMEM per TensorCore",
     3,
     {{0, "HBM", 32 * GiB, 1200e9, "Cloud TPU v4: 32 GiB HBM, 1200 GBps"},
      {1, "VMEM", 16 * MiB, 0, "Pallas TPU guide: 16 MiB+ VMEM on v4"},
      {5, "host", 96 * GiB, 16e9, "a quarter of a v4 host's RAM, PCIe-class bandwidth"}},
     {275e12, 275e12, 275e12, 0, 275e12}, /* Cloud TPU v4: 275 TFLOPs bf16, 275 TOPs int8 */
     TPU_PEAK_NOTE},
    {"tpu-v5e",
     "TPU v5e chip: 16 GiB HBM2 at 819 GB/s, 128 MiB VMEM",
     3,
     {{0, "HBM", 16 * GiB, 819e9, "Cloud TPU v5e: 16 GiB HBM, 819 GBps"},
      {1, "VMEM", 128 * MiB, 0, "Pallas TPU guide: 128 MiB VMEM on v5e"},
      {5, "host", 48 * GiB, 16e9, "an eighth of a v5e host's RAM, PCIe-class bandwidth"}},
     {197e12, 197e12, 197e12, 0, 394e12}, /* Cloud TPU v5e: 197 TFLOPs bf16, 394 TOPs int8 */
     TPU_PEAK_NOTE},
    {"tpu-v5p",
     "TPU v5p chip: 95 GiB HBM2e at 2765 GB/s, 64 MiB VMEM (VMEM size an estimate)",
     3,
     {{0, "HBM", 95 * GiB, 2765e9, "Cloud TPU v5p: 95 GiB HBM, 2765 GBps"},
      {1, "VMEM", 64 * MiB, 0, "not published; estimate"},
      {5, "host", 112 * GiB, 16e9, "a quarter of a v5p host's RAM, PCIe-class bandwidth"}},
     {459e12, 459e12, 459e12, 0, 918e12}, /* Cloud TPU v5p: 459 TFLOPs bf16, 918 TOPs int8 */
     TPU_PEAK_NOTE},
    {"unlimited",
     "no capacity limits (S(0) HBM, S(1) VMEM, S(5) host all unlimited)",
     3,
     {{0, "HBM", MEM_UNLIMITED, 0, NULL},
      {1, "VMEM", MEM_UNLIMITED, 0, NULL},
      {5, "host", MEM_UNLIMITED, 0, NULL}},
     {0},
     NULL},
};
enum { NPRESETS = sizeof PRESETS / sizeof PRESETS[0] };

const char *const *config_preset_names(void) {
  static const char *names[NPRESETS + 1];
  for (int i = 0; i < NPRESETS; i++) names[i] = PRESETS[i].name;
  names[NPRESETS] = NULL;
  return names;
}

static void load_preset(const Preset *p, MemConfig *cfg) {
  memset(cfg, 0, sizeof *cfg);
  snprintf(cfg->device, sizeof cfg->device, "%s", p->name);
  cfg->description = p->description;
  cfg->nspaces = p->nspaces;
  for (int i = 0; i < p->nspaces; i++) cfg->spaces[i] = p->spaces[i];
  for (int i = 0; i < PEAK_NTYPES; i++) cfg->peak_flops[i] = p->peak[i];
  cfg->peak_note = p->peak_note;
}

bool config_preset(const char *name, MemConfig *cfg, Error *err) {
  for (int i = 0; i < NPRESETS; i++) {
    if (strcmp(PRESETS[i].name, name) == 0) {
      load_preset(&PRESETS[i], cfg);
      return true;
    }
  }
  char list[256] = "";
  for (int i = 0; i < NPRESETS; i++) {
    size_t n = strlen(list);
    snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", PRESETS[i].name);
  }
  return error_set(err, ERR_USAGE, -1, "unknown device '%s' (known devices: %s)", name, list);
}

void config_default(MemConfig *cfg) { load_preset(&PRESETS[0], cfg); }

/* --- numbers with units --- */

static bool parse_scaled(const char *s, bool allow_per_second, double *out) {
  while (isspace((unsigned char)*s)) s++;
  if (!*s) return false;
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  if (end == s || errno == ERANGE || !isfinite(v) || v < 0) return false;
  while (isspace((unsigned char)*end)) end++;
  static const struct {
    const char *suffix;
    double scale;
  } units[] = {
      {"", 1},           {"B", 1},
      {"K", 1024.0},     {"KiB", 1024.0},           {"KB", 1e3},  {"kB", 1e3},
      {"M", 1048576.0},  {"MiB", 1048576.0},        {"MB", 1e6},
      {"G", 1073741824.0}, {"GiB", 1073741824.0},   {"GB", 1e9},
      {"T", 1099511627776.0}, {"TiB", 1099511627776.0}, {"TB", 1e12},
  };
  char unit[16];
  size_t n = 0;
  while (end[n] && end[n] != '/' && !isspace((unsigned char)end[n])) n++;
  if (n >= sizeof unit) return false;
  memcpy(unit, end, n);
  unit[n] = 0;
  const char *rest = end + n;
  while (isspace((unsigned char)*rest)) rest++;
  if (*rest == '/') {
    if (!allow_per_second || strcmp(rest, "/s") != 0) return false;
  } else if (*rest) {
    return false;
  }
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcmp(unit, units[i].suffix) == 0) {
      *out = v * units[i].scale;
      return true;
    }
  }
  return false;
}

bool config_parse_bytes(const char *s, int64_t *out) {
  if (strcmp(s, "unlimited") == 0) {
    *out = MEM_UNLIMITED;
    return true;
  }
  double v;
  if (!parse_scaled(s, false, &v)) return false;
  if (v >= 9.2e18 || v != floor(v)) return false;
  *out = (int64_t)v;
  return true;
}

bool config_parse_bandwidth(const char *s, double *out) { return parse_scaled(s, true, out); }

/* --- YAML --- */

typedef struct Ctx {
  const char *file;
  yaml_document_t *doc;
  Error *err;
} Ctx;

static bool fail_at(Ctx *c, yaml_mark_t mark, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail_at(Ctx *c, yaml_mark_t mark, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return error_set(c->err, ERR_USAGE, -1, "%s:%zu:%zu: %s", c->file, mark.line + 1,
                   mark.column + 1, msg);
}

static const char *scalar(yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static bool want_scalar(Ctx *c, yaml_node_t *n, const char *what) {
  if (n->type != YAML_SCALAR_NODE) return fail_at(c, n->start_mark, "%s must be a scalar", what);
  return true;
}

/* custom_calls: a list of "TARGET=..." strings. */
static bool parse_custom_calls(Ctx *c, yaml_node_t *v, MemConfig *cfg) {
  if (v->type != YAML_SEQUENCE_NODE)
    return fail_at(c, v->start_mark, "'custom_calls' must be a list of TARGET=LIB.so:SYMBOL "
                                     "or TARGET=FILE.hlo");
  for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
       it++) {
    yaml_node_t *n = yaml_document_get_node(c->doc, *it);
    if (!want_scalar(c, n, "a custom call")) return false;
    if (cfg->ncustom_calls >= CONFIG_MAX_CUSTOM_CALLS)
      return fail_at(c, n->start_mark, "too many custom calls (at most %d)",
                     CONFIG_MAX_CUSTOM_CALLS);
    const char *s = scalar(n);
    if (!strchr(s, '=') || strlen(s) >= CONFIG_CUSTOM_CALL_MAX)
      return fail_at(c, n->start_mark, "a custom call is TARGET=LIB.so:SYMBOL or TARGET=FILE.hlo "
                                       "(at most %d bytes)", CONFIG_CUSTOM_CALL_MAX - 1);
    snprintf(cfg->custom_calls[cfg->ncustom_calls++], CONFIG_CUSTOM_CALL_MAX, "%s", s);
  }
  return true;
}

static bool parse_int(Ctx *c, yaml_node_t *n, const char *what, int64_t *out) {
  if (!want_scalar(c, n, what)) return false;
  const char *s = scalar(n);
  errno = 0;
  char *end;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || errno) return fail_at(c, n->start_mark, "%s: '%s' is not an integer", what, s);
  *out = v;
  return true;
}

static bool parse_bool(Ctx *c, yaml_node_t *n, const char *what, bool *out) {
  if (!want_scalar(c, n, what)) return false;
  const char *s = scalar(n);
  if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on")) *out = true;
  else if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off")) *out = false;
  else return fail_at(c, n->start_mark, "%s: '%s' is not a boolean (true/false)", what, s);
  return true;
}

/* peak_flops: a mapping of element-type class to operations per second;
 * the classes given replace the base's, the others stay. */
static bool parse_peak_flops(Ctx *c, yaml_node_t *v, MemConfig *cfg) {
  if (v->type != YAML_MAPPING_NODE)
    return fail_at(c, v->start_mark, "'peak_flops' must be a mapping of element type to "
                                     "operations per second (e.g. bf16: 197e12)");
  for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
    yaml_node_t *n = yaml_document_get_node(c->doc, p->value);
    if (!want_scalar(c, k, "a peak_flops key") || !want_scalar(c, n, "a peak_flops value"))
      return false;
    int t = 0;
    while (t < PEAK_NTYPES && strcmp(scalar(k), config_peak_names[t])) t++;
    if (t == PEAK_NTYPES)
      return fail_at(c, k->start_mark,
                     "peak_flops: unknown element type '%s' (expected bf16, f16, f32, f64, int8)",
                     scalar(k));
    errno = 0;
    char *end;
    double d = strtod(scalar(n), &end);
    if (end == scalar(n) || *end || errno || !isfinite(d) || d <= 0)
      return fail_at(c, n->start_mark,
                     "peak_flops: '%s' is not a positive number of operations per second "
                     "(e.g. 197e12)",
                     scalar(n));
    cfg->peak_flops[t] = d;
  }
  cfg->peak_note = NULL;
  return true;
}

static MemSpaceConfig *space_slot(MemConfig *cfg, int64_t id) {
  for (int i = 0; i < cfg->nspaces; i++)
    if (cfg->spaces[i].id == id) return &cfg->spaces[i];
  if (cfg->nspaces >= MEM_MAX_SPACES) return NULL;
  MemSpaceConfig *s = &cfg->spaces[cfg->nspaces++];
  memset(s, 0, sizeof *s);
  s->id = id;
  s->capacity = MEM_UNLIMITED;
  snprintf(s->name, sizeof s->name, "S(%" PRId64 ")", id);
  return s;
}

static bool parse_space(Ctx *c, yaml_node_t *n, MemConfig *cfg, int nseen, int64_t *ids) {
  if (n->type != YAML_MAPPING_NODE)
    return fail_at(c, n->start_mark, "each entry of 'spaces' must be a mapping (id, name, "
                                     "capacity, bandwidth)");
  yaml_node_t *idn = NULL, *namen = NULL, *capn = NULL, *bwn = NULL;
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
    yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
    if (!want_scalar(c, k, "a key")) return false;
    const char *key = scalar(k);
    yaml_node_t **slot = !strcmp(key, "id")          ? &idn
                         : !strcmp(key, "name")      ? &namen
                         : !strcmp(key, "capacity")  ? &capn
                         : !strcmp(key, "bandwidth") ? &bwn
                                                     : NULL;
    if (!slot)
      return fail_at(c, k->start_mark,
                     "unknown key '%s' in a memory space (expected id, name, capacity, "
                     "bandwidth)",
                     key);
    if (*slot) return fail_at(c, k->start_mark, "key '%s' given twice", key);
    *slot = v;
  }
  if (!idn) return fail_at(c, n->start_mark, "memory space without an 'id'");
  int64_t id = 0;
  if (!parse_int(c, idn, "id", &id)) return false;
  if (id < 0 || id > 1000000)
    return fail_at(c, idn->start_mark, "id: %" PRId64 " is not a valid memory space id", id);
  for (int i = 0; i < nseen; i++)
    if (ids[i] == id)
      return fail_at(c, idn->start_mark, "memory space %" PRId64 " is listed twice", id);
  ids[nseen] = id;
  MemSpaceConfig *s = space_slot(cfg, id);
  if (!s) return fail_at(c, idn->start_mark, "too many memory spaces (at most %d)", MEM_MAX_SPACES);
  if (namen) {
    if (!want_scalar(c, namen, "name")) return false;
    if (!*scalar(namen)) return fail_at(c, namen->start_mark, "name: must not be empty");
    if (strlen(scalar(namen)) >= sizeof s->name)
      return fail_at(c, namen->start_mark, "name: longer than %d characters", MEM_NAME_MAX - 1);
    snprintf(s->name, sizeof s->name, "%s", scalar(namen));
  }
  if (capn) {
    if (!want_scalar(c, capn, "capacity")) return false;
    if (!config_parse_bytes(scalar(capn), &s->capacity))
      return fail_at(c, capn->start_mark,
                     "capacity: '%s' is not a byte size (e.g. 16GiB, 128MiB, 4096, unlimited)",
                     scalar(capn));
  }
  if (bwn) {
    if (!want_scalar(c, bwn, "bandwidth")) return false;
    if (!config_parse_bandwidth(scalar(bwn), &s->bandwidth))
      return fail_at(c, bwn->start_mark,
                     "bandwidth: '%s' is not a rate in bytes per second (e.g. 819GB/s, 1.2TB/s)",
                     scalar(bwn));
  }
  s->note = NULL;
  return true;
}

static bool parse_doc(Ctx *c, MemConfig *cfg) {
  yaml_node_t *root = yaml_document_get_root_node(c->doc);
  if (!root) {
    yaml_mark_t m = {0, 0, 0};
    return fail_at(c, m, "empty memory configuration (expected a mapping with 'spaces')");
  }
  if (root->type != YAML_MAPPING_NODE)
    return fail_at(c, root->start_mark,
                   "the memory configuration must be a mapping (device, base, strict, spaces)");
  /* 'base' first, whatever its position, so other keys override it. */
  yaml_node_t *spaces = NULL, *device = NULL, *calls = NULL, *peaks = NULL;
  bool have_strict = false, strict = false;
  for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
       p++) {
    yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
    yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
    if (!want_scalar(c, k, "a key")) return false;
    const char *key = scalar(k);
    if (!strcmp(key, "base")) {
      if (!want_scalar(c, v, "base")) return false;
      Error e;
      if (!config_preset(scalar(v), cfg, &e)) return fail_at(c, v->start_mark, "%s", e.msg);
    } else if (!strcmp(key, "device")) {
      if (!want_scalar(c, v, "device")) return false;
      device = v;
    } else if (!strcmp(key, "strict")) {
      if (!parse_bool(c, v, "strict", &strict)) return false;
      have_strict = true;
    } else if (!strcmp(key, "custom_calls")) {
      calls = v;
    } else if (!strcmp(key, "peak_flops")) {
      peaks = v;
    } else if (!strcmp(key, "spaces")) {
      if (v->type != YAML_SEQUENCE_NODE)
        return fail_at(c, v->start_mark, "'spaces' must be a list of memory spaces");
      spaces = v;
    } else {
      return fail_at(c, k->start_mark,
                     "unknown key '%s' (expected device, base, strict, spaces, peak_flops, "
                     "custom_calls)",
                     key);
    }
  }
  if (device) snprintf(cfg->device, sizeof cfg->device, "%s", scalar(device));
  if (calls && !parse_custom_calls(c, calls, cfg)) return false;
  if (peaks && !parse_peak_flops(c, peaks, cfg)) return false;
  if (have_strict) cfg->strict = strict;
  if (spaces) {
    int64_t ids[MEM_MAX_SPACES + 1];
    int nseen = 0;
    for (yaml_node_item_t *it = spaces->data.sequence.items.start;
         it < spaces->data.sequence.items.top; it++) {
      yaml_node_t *sn = yaml_document_get_node(c->doc, *it);
      if (nseen >= MEM_MAX_SPACES)
        return fail_at(c, sn->start_mark, "too many memory spaces (at most %d)", MEM_MAX_SPACES);
      if (!parse_space(c, sn, cfg, nseen, ids)) return false;
      nseen++;
    }
  }
  if (cfg->nspaces == 0)
    return fail_at(c, root->start_mark, "no memory spaces configured ('spaces' or 'base')");
  return true;
}

/* A memory configuration is a mapping of a list of mappings: 3 levels.  A
 * deeper document is refused from libyaml's event stream before the
 * document loader sees it (100k nested flow lists took it 28 s). */
enum { CONFIG_MAX_DEPTH = 16 };

static bool check_depth(Ctx *c, const char *text, size_t len) {
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser))
    return error_set(c->err, ERR_RUNTIME, -1, "%s: cannot initialise the YAML parser", c->file);
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  bool ok = true;
  int depth = 0;
  for (;;) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&parser, &ev)) break; /* the loader reports it */
    yaml_event_type_t t = ev.type;
    yaml_mark_t m = ev.start_mark;
    yaml_event_delete(&ev);
    if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) depth++;
    if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) depth--;
    if (depth > CONFIG_MAX_DEPTH) {
      ok = fail_at(c, m, "nested deeper than %d levels", CONFIG_MAX_DEPTH);
      break;
    }
    if (t == YAML_STREAM_END_EVENT) break;
  }
  yaml_parser_delete(&parser);
  return ok;
}

bool config_parse_yaml(const char *filename, const char *text, size_t len, MemConfig *cfg,
                       Error *err) {
  memset(cfg, 0, sizeof *cfg);
  snprintf(cfg->device, sizeof cfg->device, "custom");
  Ctx depth_ctx = {filename, NULL, err};
  if (!check_depth(&depth_ctx, text, len)) return false;
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser))
    return error_set(err, ERR_RUNTIME, -1, "%s: cannot initialise the YAML parser", filename);
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  yaml_document_t doc;
  Ctx c = {filename, &doc, err};
  bool ok;
  if (!yaml_parser_load(&parser, &doc)) {
    yaml_mark_t m = parser.problem_mark;
    ok = fail_at(&c, m, "malformed YAML: %s%s%s", parser.problem ? parser.problem : "error",
                 parser.context ? " " : "", parser.context ? parser.context : "");
    yaml_parser_delete(&parser);
    return ok;
  }
  ok = parse_doc(&c, cfg);
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  return ok;
}

bool config_load_file(const char *path, MemConfig *cfg, Error *err) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return error_set(err, ERR_USAGE, -1, "cannot open memory configuration %s: %s", path,
                     strerror(errno));
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n + 1 >= cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t r = fread(buf + n, 1, cap - n - 1, f);
    if (r == 0) break;
    n += r;
  }
  bool rerr = ferror(f);
  fclose(f);
  if (!buf) return error_set(err, ERR_RUNTIME, -1, "%s: out of memory", path);
  if (rerr) {
    free(buf);
    return error_set(err, ERR_USAGE, -1, "cannot read memory configuration %s", path);
  }
  buf[n] = 0;
  bool ok = config_parse_yaml(path, buf, n, cfg, err);
  if (ok) { /* the directory custom_calls' paths are relative to */
    const char *slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path) < sizeof cfg->dir)
      snprintf(cfg->dir, sizeof cfg->dir, "%.*s", (int)(slash == path ? 1 : slash - path), path);
    else
      snprintf(cfg->dir, sizeof cfg->dir, ".");
  }
  free(buf);
  return ok;
}

bool config_apply(const MemConfig *cfg, MemSystem *mem, Error *err) {
  mem_init(mem);
  mem->strict = cfg->strict;
  for (int i = 0; i < cfg->nspaces; i++) {
    const MemSpaceConfig *s = &cfg->spaces[i];
    if (!mem_add_space(mem, s->id, s->name, s->capacity, s->bandwidth, err)) return false;
  }
  return true;
}
