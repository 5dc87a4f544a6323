/* hlolayout: explains an XLA shape's layout (docs/cli.md, docs/hlolayout.md).
 *   hlolayout 'SHAPE' [--index I,J,...] [--offset N] [--map] [--format text|yaml|json]
 *   hlolayout --module MODEL.hlo [--top N] [--format text|yaml|json]
 * Thin: options, wiring, printing and exit codes; the math and the
 * explanations live in layout/, the module's buffers in interp/buffers.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/doc.h"
#include "cmd/common/cli.h"
#include "cmd/hlolayout_args.h"
#include "cmd/hlolayout_report.h"
#include "interp/buffers.h"
#include "interp/schedule.h"
#include "layout/layout.h"
#include "layout/layout_explain.h"
#include "parser/load.h"
#include "parser/parser.h"

/* --map draws at most this much; beyond it the map would not be readable. */
enum { MAP_MAX_ELEMENTS = 4096, MAP_MAX_SLOTS = 16384 };

/* "<what>:1:COL: error: msg", the text and a caret. */
static int diag(const char *what, const char *text, int64_t offset, const char *msg) {
  char *s = diag_render(what, text, strlen(text), offset, msg);
  if (s) fputs(s, stderr);
  free(s);
  return EXIT_INVALID;
}


/* ---------- reading the --index / --offset values ---------- */

static bool read_int(const char *s, size_t *pos, int64_t *out) {
  while (s[*pos] == ' ') (*pos)++;
  size_t start = *pos;
  if (s[*pos] == '-' || s[*pos] == '+') (*pos)++;
  if (s[*pos] < '0' || s[*pos] > '9') {
    *pos = start;
    return false;
  }
  while (s[*pos] >= '0' && s[*pos] <= '9') (*pos)++;
  char *end;
  errno = 0;
  long long v = strtoll(s + start, &end, 10);
  if (errno == ERANGE) {
    *pos = start;
    return false;
  }
  *out = v;
  while (s[*pos] == ' ') (*pos)++;
  return true;
}

static int parse_index(const char *text, const LayoutPlan *p, int64_t *index) {
  size_t pos = 0;
  int n = 0;
  size_t at[SHAPE_MAX_RANK + 1];
  while (text[pos] == ' ') pos++;
  if (text[pos] != '\0' || p->rank > 0) {
    for (;;) {
      at[n < SHAPE_MAX_RANK ? n : SHAPE_MAX_RANK] = pos;
      int64_t v;
      if (!read_int(text, &pos, &v))
        return diag("<index>", text, (int64_t)pos, "expected an integer index component");
      if (n == p->rank) {
        char msg[128];
        snprintf(msg, sizeof msg, "index has more than %d component%s: the shape has rank %d",
                 p->rank, p->rank == 1 ? "" : "s", p->rank);
        return diag("<index>", text, (int64_t)at[n < SHAPE_MAX_RANK ? n : SHAPE_MAX_RANK], msg);
      }
      index[n++] = v;
      if (text[pos] != ',') break;
      pos++;
    }
  }
  if (text[pos] != '\0')
    return diag("<index>", text, (int64_t)pos, "expected ',' or the end of the index");
  if (n != p->rank) {
    char msg[128];
    snprintf(msg, sizeof msg, "index has %d component%s but the shape has rank %d", n,
             n == 1 ? "" : "s", p->rank);
    return diag("<index>", text, (int64_t)pos, msg);
  }
  for (int i = 0; i < n; i++)
    if (index[i] < 0 || index[i] >= p->dims[i]) {
      char msg[160];
      snprintf(msg, sizeof msg, "index %lld is out of range for dimension %d of size %lld",
               (long long)index[i], i, (long long)p->dims[i]);
      return diag("<index>", text, (int64_t)at[i], msg);
    }
  return EXIT_OK;
}

static int parse_offset(const char *text, const LayoutPlan *p, int64_t *offset) {
  size_t pos = 0;
  if (!read_int(text, &pos, offset) || text[pos] != '\0')
    return diag("<offset>", text, (int64_t)pos, "expected an integer element offset");
  if (*offset < 0 || *offset >= p->slots) {
    char msg[160];
    if (p->slots == 0)
      snprintf(msg, sizeof msg, "offset %lld is outside the buffer, which has no slots",
               (long long)*offset);
    else
      snprintf(msg, sizeof msg, "offset %lld is outside the buffer's %lld slots (0..%lld)",
               (long long)*offset, (long long)p->slots, (long long)p->slots - 1);
    size_t start = 0;
    while (text[start] == ' ') start++;
    return diag("<offset>", text, (int64_t)start, msg);
  }
  return EXIT_OK;
}

/* ---------- the answer as a document ---------- */

typedef struct {
  Arena *arena;
  const LayoutPlan *plan;
  const char *shape_text; /* canonical */
  char space_buf[64];
} Ctx;

static void fmt_tuple(char *buf, size_t n, const int64_t *v, int rank, char open, char close) {
  StrBuf sb;
  sb_init(&sb);
  layout_fmt_tuple(&sb, v, rank, open, close);
  snprintf(buf, n, "%s", sb.data ? sb.data : "");
  sb_free(&sb);
}

static Doc *strings(Arena *a, const LayoutLines *l) {
  Doc *s = doc_seq(a);
  for (int i = 0; i < l->count; i++) doc_push(s, doc_str(a, l->items[i]));
  return s;
}

static void common_keys(Ctx *c, Doc *d) {
  Arena *a = c->arena;
  const LayoutPlan *p = c->plan;
  doc_put(a, d, "shape", doc_str(a, c->shape_text));
  doc_put(a, d, "logical_elements", doc_int(a, p->elements));
  doc_put(a, d, "physical_elements", doc_int(a, p->slots));
  doc_put(a, d, "logical_bytes", doc_int(a, p->logical_bytes));
  doc_put(a, d, "physical_bytes", doc_int(a, p->physical_bytes));
  doc_put(a, d, "memory_space", doc_int(a, p->memory_space));
  doc_put(a, d, "memory_space_name",
                 doc_str(a, layout_memory_space_name(p->memory_space, c->space_buf,
                                                            sizeof c->space_buf)));
}

static Doc *summary_doc(Ctx *c, LayoutLines *levels, LayoutLines *notes) {
  Arena *a = c->arena;
  const LayoutPlan *p = c->plan;
  Doc *d = doc_map(a);
  common_keys(c, d);
  doc_put(a, d, "element_type", doc_str(a, etype_name(p->etype)));
  doc_put(a, d, "element_bits",
                 doc_int(a, p->packed_bits ? p->packed_bits : p->storage_bytes * 8));
  doc_put(a, d, "dims", doc_ints(a, p->dims, p->rank));
  doc_put(a, d, "minor_to_major", doc_ints(a, p->minor_to_major, p->rank));
  int64_t order[SHAPE_MAX_RANK];
  for (int k = 0; k < p->rank; k++) order[k] = p->phys_to_logical[k];
  doc_put(a, d, "physical_order", doc_ints(a, order, p->rank));
  doc_put(a, d, "physical_dims", doc_ints(a, p->phys_dims, p->rank));
  Doc *tiling = doc_put(a, d, "tiling", doc_seq(a));
  for (int t = 0; t < p->nlevels; t++) {
    const LayoutLevel *lv = &p->levels[t];
    Doc *l = doc_push(tiling, doc_map(a));
    doc_put(a, l, "level", doc_int(a, t + 1));
    Doc *tile = doc_put(a, l, "tile", doc_seq(a));
    for (int j = 0; j < lv->tile_rank; j++)
      doc_push(tile, lv->written[j] == TILE_DIM_COMBINE ? doc_str(a, "*")
                                                               : doc_int(a, lv->written[j]));
    doc_put(a, l, "input_dims", doc_ints(a, lv->in_dims, lv->in_rank));
    doc_put(a, l, "tile_grid", doc_ints(a, lv->out_dims + lv->nmajor, lv->ntile));
    doc_put(a, l, "output_dims", doc_ints(a, lv->out_dims, lv->out_rank));
    doc_put(a, l, "text", doc_str(a, levels->items[t]));
  }
  doc_put(a, d, "final_dims", doc_ints(a, p->final_dims, p->final_rank));
  doc_put(a, d, "tail_padding_alignment", doc_int(a, p->tail_alignment));
  int64_t pad_bytes = p->physical_bytes - p->logical_bytes;
  doc_put(a, d, "padding_elements", doc_int(a, p->slots - p->elements));
  doc_put(a, d, "padding_bytes", doc_int(a, pad_bytes));
  doc_put(a, d, "padding_waste_percent",
                 doc_num(a, p->physical_bytes ? 100.0 * (double)pad_bytes / (double)p->physical_bytes : 0.0, 1));
  doc_put(a, d, "expansion",
                 p->logical_bytes ? doc_num(a, (double)p->physical_bytes / (double)p->logical_bytes, 1)
                                  : doc_null(a));
  LayoutPadCause causes[64];
  int n = layout_padding_causes(p, causes, 64);
  Doc *pc = doc_put(a, d, "padding_causes", doc_seq(a));
  for (int i = 0; i < n && i < 64; i++) {
    Doc *m = doc_push(pc, doc_map(a));
    doc_put(a, m, "level", doc_int(a, causes[i].level));
    doc_put(a, m, "dim", doc_str(a, causes[i].what));
    doc_put(a, m, "size", doc_int(a, causes[i].size));
    doc_put(a, m, "padded_size", doc_int(a, causes[i].padded));
  }
  doc_put(a, d, "xla_array_size_bytes", p->xla_array_bytes >= 0
                                                   ? doc_int(a, p->xla_array_bytes)
                                                   : doc_null(a));
  doc_put(a, d, "notes", strings(a, notes));
  return d;
}

static void print_summary_text(Ctx *c, LayoutLines *levels, LayoutLines *notes) {
  const LayoutPlan *p = c->plan;
  char b1[1024], b2[1024];
  printf("shape            %s\n", c->shape_text);
  if (p->packed_bits)
    printf("element type     %s, %d bits packed by E(%d) (%d per byte)\n", etype_name(p->etype),
           p->packed_bits, p->packed_bits, 8 / p->packed_bits);
  else
    printf("element type     %s, %d byte%s per element\n", etype_name(p->etype), p->storage_bytes,
           p->storage_bytes == 1 ? "" : "s");
  fmt_tuple(b1, sizeof b1, p->phys_dims, p->rank, '[', ']');
  printf("physical dims    %s major to minor = ", b1);
  for (int k = 0; k < p->rank; k++) printf("%sdim%d", k ? ", " : "", p->phys_to_logical[k]);
  if (p->rank == 0) printf("(scalar)");
  fmt_tuple(b2, sizeof b2, p->minor_to_major, p->rank, '{', '}');
  printf(" (minor_to_major %s)\n", b2);
  if (p->nlevels == 0) printf("tiling           none\n");
  for (int t = 0; t < p->nlevels; t++) printf("tiling level %d   %s\n", t + 1, levels->items[t]);
  if (p->slots != p->raw_slots)
    printf("tail padding     L(%lld): %lld -> %lld elements\n", (long long)p->tail_alignment,
           (long long)p->raw_slots, (long long)p->slots);
  printf("memory space     S(%lld) %s\n", (long long)p->memory_space,
         layout_memory_space_name(p->memory_space, c->space_buf, sizeof c->space_buf));
  printf("logical          %lld elements, %lld bytes\n", (long long)p->elements,
         (long long)p->logical_bytes);
  printf("physical         %lld elements, %lld bytes (padding included)\n", (long long)p->slots,
         (long long)p->physical_bytes);
  int64_t pad = p->physical_bytes - p->logical_bytes;
  printf("padding waste    %lld elements, %lld bytes = %.1f%% of the buffer\n",
         (long long)(p->slots - p->elements), (long long)pad,
         p->physical_bytes ? 100.0 * (double)pad / (double)p->physical_bytes : 0.0);
  if (p->logical_bytes)
    printf("expansion        %.1fx\n", (double)p->physical_bytes / (double)p->logical_bytes);
  else
    printf("expansion        n/a (empty array)\n");
  LayoutPadCause causes[64];
  int n = layout_padding_causes(p, causes, 64);
  if (n == 0) printf("padding from     nothing: every tile fits exactly\n");
  for (int i = 0; i < n && i < 64; i++) {
    const LayoutPadCause *pc = &causes[i];
    printf("%s", i ? "                 " : "padding from     ");
    if (pc->level)
      printf("level %d: %s %lld -> %lld", pc->level, pc->what, (long long)pc->size,
             (long long)pc->padded);
    else
      printf("%s: %lld -> %lld", pc->what, (long long)pc->size, (long long)pc->padded);
    if (pc->size)
      printf(" (+%lld, x%.2f)\n", (long long)(pc->padded - pc->size),
             (double)pc->padded / (double)pc->size);
    else
      printf("\n");
  }
  for (int i = 0; i < notes->count; i++) printf("note: %s\n", notes->items[i]);
}

static void print_steps(const LayoutLines *steps, const LayoutLines *notes) {
  int n = 0;
  for (int i = 0; i < steps->count; i++) {
    const char *s = steps->items[i];
    if (s[0] == ' ')
      printf("   %s\n", s);
    else
      printf("%d. %s\n", ++n, s);
  }
  for (int i = 0; notes && i < notes->count; i++) printf("note: %s\n", notes->items[i]);
}

/* Writes d; a tree that lost a node to out of memory (a huge --memory
 * listing) is refused whole rather than written without it. */
static void emit(const Doc *d, Format f) {
  StrBuf sb;
  sb_init(&sb);
  bool ok = f == FMT_JSON ? doc_json(d, DOC_JSON_INDENTED, &sb) : doc_yaml(d, DOC_YAML_TYPED, &sb);
  if (!ok || sb.oom) {
    sb_free(&sb);
    cli_error("hlolayout", "out of memory writing the %s output", f == FMT_JSON ? "JSON" : "YAML");
    exit(EXIT_RUNTIME);
  }
  fputs(sb.data ? sb.data : "", stdout);
  sb_free(&sb);
}

static int run_summary(Ctx *c, Format f) {
  LayoutLines levels = {0}, notes = {0};
  layout_explain_levels(c->plan, &levels);
  layout_explain_size_notes(c->plan, &notes);
  if (f == FMT_TEXT)
    print_summary_text(c, &levels, &notes);
  else
    emit(summary_doc(c, &levels, &notes), f);
  layout_lines_free(&levels);
  layout_lines_free(&notes);
  return EXIT_OK;
}

static int run_index(Ctx *c, const int64_t *index, Format f) {
  const LayoutPlan *p = c->plan;
  LayoutLines steps = {0}, notes = {0};
  layout_explain_index(p, index, &steps, &notes);
  int64_t off = layout_offset_unchecked(p, index), byte;
  int bit;
  layout_byte_position(p, off, &byte, &bit);
  bool subbyte = etype_bits(p->etype) < 8;
  char b[1024];
  fmt_tuple(b, sizeof b, index, p->rank, '(', ')');
  if (f == FMT_TEXT) {
    printf("shape: %s\n", c->shape_text);
    printf("index %s -> element offset %lld, byte offset %lld", b, (long long)off, (long long)byte);
    if (subbyte) printf(", bit offset %d", bit);
    printf("\n\n");
    print_steps(&steps, &notes);
  } else {
    Arena *a = c->arena;
    Doc *d = doc_map(a);
    common_keys(c, d);
    doc_put(a, d, "index", doc_ints(a, index, p->rank));
    doc_put(a, d, "offset", doc_int(a, off));
    doc_put(a, d, "byte_offset", doc_int(a, byte));
    if (subbyte) doc_put(a, d, "bit_offset", doc_int(a, bit));
    int64_t xla;
    doc_put(a, d, "xla_linear_index", layout_xla_linear_index(p, index, &xla)
                                                 ? doc_int(a, xla)
                                                 : doc_null(a));
    doc_put(a, d, "steps", strings(a, &steps));
    doc_put(a, d, "notes", strings(a, &notes));
    emit(d, f);
  }
  layout_lines_free(&steps);
  layout_lines_free(&notes);
  return EXIT_OK;
}

static int run_offset(Ctx *c, int64_t off, Format f) {
  const LayoutPlan *p = c->plan;
  LayoutLines steps = {0};
  layout_explain_offset(p, off, &steps);
  int64_t index[SHAPE_MAX_RANK];
  bool pad = true;
  layout_index_of(p, off, index, &pad, NULL);
  char b[1024];
  fmt_tuple(b, sizeof b, index, p->rank, '(', ')');
  if (f == FMT_TEXT) {
    printf("shape: %s\n", c->shape_text);
    if (pad)
      printf("offset %lld -> padding (no element lives there)\n\n", (long long)off);
    else
      printf("offset %lld -> logical index %s\n\n", (long long)off, b);
    print_steps(&steps, NULL);
  } else {
    Arena *a = c->arena;
    Doc *d = doc_map(a);
    common_keys(c, d);
    doc_put(a, d, "offset", doc_int(a, off));
    doc_put(a, d, "padding", doc_bool(a, pad));
    doc_put(a, d, "index", pad ? doc_null(a) : doc_ints(a, index, p->rank));
    doc_put(a, d, "steps", strings(a, &steps));
    emit(d, f);
  }
  layout_lines_free(&steps);
  return EXIT_OK;
}

/* ---------- --map ---------- */

static int digits(int64_t v) {
  int n = 1;
  while (v >= 10) {
    v /= 10;
    n++;
  }
  return n;
}

static void next_index(int64_t *idx, const int64_t *dims, int rank) {
  for (int i = rank - 1; i >= 0; i--) {
    if (++idx[i] < dims[i]) return;
    idx[i] = 0;
  }
}

static void print_map_text(Ctx *c) {
  const LayoutPlan *p = c->plan;
  int w = digits(p->slots > 0 ? p->slots - 1 : 0);
  printf("%s: element offset of each logical index", c->shape_text);
  if (p->rank >= 2)
    printf(" (rows: dim%d, columns: dim%d)\n", p->rank - 2, p->rank - 1);
  else
    printf("\n");
  int64_t idx[SHAPE_MAX_RANK] = {0};
  int64_t cols = p->rank ? p->dims[p->rank - 1] : 1;
  for (int64_t n = 0; n < p->elements; n++) {
    bool row_start = p->rank == 0 || idx[p->rank - 1] == 0;
    bool slice_start = p->rank < 3 || (row_start && idx[p->rank - 2] == 0);
    if (p->rank >= 3 && slice_start) {
      printf("%s[", n ? "\n" : "");
      for (int i = 0; i < p->rank - 2; i++) printf("%lld,", (long long)idx[i]);
      printf(":,:]\n");
    }
    printf("%*lld", w, (long long)layout_offset_unchecked(p, idx));
    bool row_end = p->rank == 0 || idx[p->rank - 1] == cols - 1;
    printf(row_end ? "\n" : " ");
    next_index(idx, p->dims, p->rank);
  }
  /* The memory strip: one line per first-level tile when tiles are small. */
  int64_t per_line = 8;
  if (p->nlevels) {
    int64_t t = 1;
    for (int k = 0; k < p->levels[0].ntile; k++) t *= p->levels[0].tile[k];
    if (t >= 2 && t <= 16) per_line = t;
  }
  int cell = 1;
  for (int i = 0; i < p->rank; i++) cell += digits(p->dims[i]) + 1;
  if (cell < 3) cell = 3;
  printf("\nmemory order (%lld slots, %lld padding marked '.'):\n", (long long)p->slots,
         (long long)(p->slots - p->elements));
  LayoutIter it;
  layout_iter_init(&it, p);
  char b[1024];
  while (layout_iter_next(&it)) {
    if (it.offset % per_line == 0) printf("%*lld:", w + 2, (long long)it.offset);
    if (it.padding)
      printf(" %*s", cell, ".");
    else {
      fmt_tuple(b, sizeof b, it.index, p->rank, '(', ')');
      printf(" %*s", cell, b);
    }
    if ((it.offset + 1) % per_line == 0 || it.offset + 1 == p->slots) printf("\n");
  }
}

static Doc *map_grid(Ctx *c, int dim, int64_t *idx) {
  const LayoutPlan *p = c->plan;
  if (dim == p->rank) return doc_int(c->arena, layout_offset_unchecked(p, idx));
  Doc *s = doc_seq(c->arena);
  for (idx[dim] = 0; idx[dim] < p->dims[dim]; idx[dim]++)
    doc_push(s, map_grid(c, dim + 1, idx));
  idx[dim] = 0;
  return s;
}

static int run_map(Ctx *c, Format f) {
  const LayoutPlan *p = c->plan;
  bool too_big = p->elements > MAP_MAX_ELEMENTS || p->slots > MAP_MAX_SLOTS;
  char note[256];
  snprintf(note, sizeof note,
           "map not drawn: %lld elements in %lld slots; --map draws at most %d elements and %d "
           "slots (try the same layout on a smaller shape)",
           (long long)p->elements, (long long)p->slots, MAP_MAX_ELEMENTS, MAP_MAX_SLOTS);
  if (f == FMT_TEXT) {
    if (too_big)
      printf("%s: %s\n", c->shape_text, note);
    else
      print_map_text(c);
    return EXIT_OK;
  }
  Arena *a = c->arena;
  Doc *d = doc_map(a);
  common_keys(c, d);
  if (too_big) {
    doc_put(a, d, "grid", doc_null(a));
    doc_put(a, d, "memory", doc_null(a));
    doc_put(a, d, "map_note", doc_str(a, note));
  } else {
    int64_t idx[SHAPE_MAX_RANK] = {0};
    doc_put(a, d, "grid", map_grid(c, 0, idx));
    Doc *mem = doc_put(a, d, "memory", doc_seq(a));
    LayoutIter it;
    layout_iter_init(&it, p);
    while (layout_iter_next(&it))
      doc_push(mem, it.padding ? doc_null(a) : doc_ints(a, it.index, p->rank));
  }
  emit(d, f);
  return EXIT_OK;
}

/* Where a plan error points: the layout if there is one, else the dims. */
static int64_t plan_error_offset(const char *text, const char *msg) {
  const char *at = NULL;
  if (strstr(msg, "unbounded")) at = strchr(text, '?');
  if (!at) at = strchr(text, '{');
  if (!at) at = strchr(text, '[');
  return at ? at - text : 0;
}

static int run_shape(const Options *o) {
  Arena *arena = arena_new();
  if (!arena) return EXIT_RUNTIME;
  int rc = EXIT_OK;
  Shape shape = {0}, *s = &shape;
  Error err = {0};
  LayoutPlan plan = {0};
  bool have_plan = false;
  if (!parse_shape_text(o->shape, strlen(o->shape), arena, s, &err)) {
    rc = diag("<shape>", o->shape, err.offset, err.msg);
    goto done;
  }
  if (s->etype == ET_TUPLE || s->etype == ET_BUFFER) {
    rc = diag("<shape>", o->shape, 0,
              "hlolayout explains one array shape; tuples are not supported (pass one element)");
    goto done;
  }
  if (!layout_plan_init(&plan, s, &err)) {
    rc = diag("<shape>", o->shape, plan_error_offset(o->shape, err.msg), err.msg);
    goto done;
  }
  have_plan = true;
  Ctx c = {.arena = arena, .plan = &plan};
  c.shape_text = shape_to_string(s);
  switch (o->mode) {
    case MODE_SUMMARY: rc = run_summary(&c, o->format); break;
    case MODE_INDEX: {
      int64_t index[SHAPE_MAX_RANK];
      rc = parse_index(o->index, &plan, index);
      if (rc == EXIT_OK) rc = run_index(&c, index, o->format);
      break;
    }
    case MODE_OFFSET: {
      int64_t off;
      rc = parse_offset(o->offset, &plan, &off);
      if (rc == EXIT_OK) rc = run_offset(&c, off, o->format);
      break;
    }
    case MODE_MAP: rc = run_map(&c, o->format); break;
  }
  free((void *)c.shape_text);
done:
  if (have_plan) layout_plan_free(&plan);
  arena_free(arena);
  return rc;
}

/* ---------- --module: every buffer of a module ---------- */

static double percent(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* "fusion", or "custom-call-start" for async sugar. */
static const char *op_text(const Instr *in, char *buf, size_t n) {
  if (in->wrapped_op == OP_INVALID) return opcode_name(in->op);
  snprintf(buf, n, "%s-%s", opcode_name(in->wrapped_op),
           in->op == OP_ASYNC_START ? "start" : in->op == OP_ASYNC_UPDATE ? "update" : "done");
  return buf;
}

/* logical_bytes .. expansion of one row or total (unsized: nulls). */
static void size_keys(Arena *a, Doc *d, bool sized, int64_t logical, int64_t physical) {
  doc_put(a, d, "logical_bytes", sized ? doc_int(a, logical) : doc_null(a));
  doc_put(a, d, "physical_bytes", sized ? doc_int(a, physical) : doc_null(a));
  doc_put(a, d, "waste_bytes",
                 sized ? doc_int(a, physical - logical) : doc_null(a));
  doc_put(a, d, "waste_percent",
                 sized ? doc_num(a, percent(physical - logical, physical), 1) : doc_null(a));
  doc_put(a, d, "expansion",
                 sized && logical > 0 ? doc_num(a, (double)physical / (double)logical, 1)
                                      : doc_null(a));
}

static Doc *totals_doc(Arena *a, const BufferTotals *t, bool with_space) {
  char buf[64];
  Doc *d = doc_map(a);
  if (with_space) {
    doc_put(a, d, "memory_space", doc_int(a, t->memory_space));
    doc_put(a, d, "memory_space_name",
                   doc_str(a, layout_memory_space_name(t->memory_space, buf, sizeof buf)));
  }
  doc_put(a, d, "buffer_count", doc_int(a, t->count));
  size_keys(a, d, true, t->logical_bytes, t->physical_bytes);
  return d;
}

static void module_doc(const Module *m, const BufferReport *r, int64_t shown, Format f) {
  Arena *a = r->arena;
  char buf[64];
  Doc *d = doc_map(a);
  doc_put(a, d, "module", doc_str(a, m->name));
  doc_put(a, d, "entry", doc_str(a, m->entry->name));
  const struct {
    const char *key;
    int64_t v;
  } counts[] = {{"computations_listed", r->ncomputations},
                {"unlisted_instructions", r->nunlisted_instrs},
                {"buffer_count", r->nbuffers},
                {"alias_count", r->naliases},
                {"unsized_count", r->nunsized},
                {"rows", r->nrows},
                {"rows_shown", shown}};
  for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
    doc_put(a, d, counts[i].key, doc_int(a, counts[i].v));
  Doc *rows = doc_put(a, d, "buffers", doc_seq(a));
  for (int64_t i = 0; i < shown; i++) {
    const BufferRow *row = &r->rows[i];
    Doc *e = doc_push(rows, doc_map(a));
    doc_put(a, e, "computation", doc_str(a, row->comp->name));
    doc_put(a, e, "instruction", doc_str(a, row->instr->name));
    doc_put(a, e, "shape_index", doc_ints(a, row->index, row->index_len));
    doc_put(a, e, "name", doc_str(a, row->name));
    doc_put(a, e, "opcode", doc_str(a, op_text(row->instr, buf, sizeof buf)));
    doc_put(a, e, "shape", doc_str(a, row->shape));
    doc_put(a, e, "memory_space", doc_int(a, row->memory_space));
    doc_put(a, e, "memory_space_name",
                   doc_str(a, layout_memory_space_name(row->memory_space, buf, sizeof buf)));
    doc_put(a, e, "alias", doc_bool(a, row->alias));
    doc_put(a, e, "alias_of", row->alias_of ? doc_str(a, row->alias_of)
                                                   : doc_null(a));
    size_keys(a, e, row->sized, row->logical_bytes, row->physical_bytes);
    doc_put(a, e, "error", row->error ? doc_str(a, row->error) : doc_null(a));
  }
  Doc *spaces = doc_put(a, d, "memory_spaces", doc_seq(a));
  for (int i = 0; i < r->nspaces; i++) doc_push(spaces, totals_doc(a, &r->spaces[i], true));
  doc_put(a, d, "totals", totals_doc(a, &r->total, false));
  emit(d, f);
}

/* The listing's columns; numbers are right-aligned, the last is not padded. */
enum { COL_POS, COL_PHYS, COL_LOG, COL_WASTE, COL_PCT, COL_EXP, COL_SPACE, COL_COMP, COL_NAME,
       COL_OP, COL_SHAPE, COL_NOTE, NCOLS };
static const char *const COL_HEAD[NCOLS] = {"#",     "physical",    "logical", "waste",
                                            "waste%", "expand",     "space",   "computation",
                                            "buffer", "opcode",     "shape",   "note"};
enum { CELL = 48 };

static void row_cells(const BufferRow *row, int64_t pos, const char *cell[NCOLS],
                      char buf[NCOLS][CELL], char *note, size_t note_size) {
  for (int k = 0; k < NCOLS; k++) cell[k] = buf[k];
  snprintf(buf[COL_POS], CELL, "%lld", (long long)pos);
  if (row->sized) {
    int64_t waste = row->physical_bytes - row->logical_bytes;
    snprintf(buf[COL_PHYS], CELL, "%lld", (long long)row->physical_bytes);
    snprintf(buf[COL_LOG], CELL, "%lld", (long long)row->logical_bytes);
    snprintf(buf[COL_WASTE], CELL, "%lld", (long long)waste);
    snprintf(buf[COL_PCT], CELL, "%.1f%%", percent(waste, row->physical_bytes));
    if (row->logical_bytes > 0)
      snprintf(buf[COL_EXP], CELL, "%.1fx", (double)row->physical_bytes / (double)row->logical_bytes);
    else
      snprintf(buf[COL_EXP], CELL, "-");
  } else {
    for (int k = COL_PHYS; k <= COL_EXP; k++) snprintf(buf[k], CELL, "?");
  }
  snprintf(buf[COL_SPACE], CELL, "%lld %s", (long long)row->memory_space,
           layout_memory_space_short(row->memory_space));
  cell[COL_COMP] = row->comp->name;
  cell[COL_NAME] = row->name;
  cell[COL_OP] = op_text(row->instr, buf[COL_OP], CELL);
  cell[COL_SHAPE] = row->shape;
  if (row->alias)
    snprintf(note, note_size, "alias of %s", row->alias_of ? row->alias_of : "another buffer");
  else if (!row->sized)
    snprintf(note, note_size, "size unknown: %s", row->error ? row->error : "");
  else
    note[0] = '\0';
  cell[COL_NOTE] = note;
}

static void print_cells(const char *const cell[NCOLS], const int width[NCOLS]) {
  int last = NCOLS - 1;
  while (last > 0 && !cell[last][0]) last--;
  for (int k = 0; k <= last; k++) {
    int w = k == last ? 0 : k <= COL_EXP ? width[k] : -width[k];
    printf("%s%*s", k ? "  " : "", w, cell[k]);
  }
  printf("\n");
}

static void print_totals_line(const char *label, int label_width, const BufferTotals *t) {
  int64_t waste = t->physical_bytes - t->logical_bytes;
  printf("%-*s  %7lld  %14lld  %14lld  %14lld  %6.1f%%  ", label_width, label, (long long)t->count,
         (long long)t->logical_bytes, (long long)t->physical_bytes, (long long)waste,
         percent(waste, t->physical_bytes));
  if (t->logical_bytes > 0)
    printf("%6.1fx\n", (double)t->physical_bytes / (double)t->logical_bytes);
  else
    printf("%7s\n", "-");
}

static const char *plural(int64_t n, const char *one, const char *many) {
  return n == 1 ? one : many;
}

static void module_text(const Module *m, const BufferReport *r, int64_t shown) {
  printf("module %s (entry %s): %lld %s and %lld %s in %d %s\n", m->name, m->entry->name,
         (long long)r->nbuffers, plural(r->nbuffers, "buffer", "buffers"), (long long)r->naliases,
         plural(r->naliases, "alias", "aliases"), r->ncomputations,
         plural(r->ncomputations, "computation", "computations"));
  printf("aliases (get-tuple-element, bitcast, tuple, while, call, conditional, parameters of\n"
         "called computations, forwarded parts of async/copy/collective ops) share the buffer\n"
         "in their note and are not in the totals\n");
  if (r->nunlisted_instrs)
    printf("not listed: %lld %s in fusion bodies and applied computations (no buffers)\n",
           (long long)r->nunlisted_instrs,
           plural(r->nunlisted_instrs, "instruction", "instructions"));
  if (r->nunsized)
    printf("size unknown: %lld %s whose layout cannot be sized (not in the totals)\n",
           (long long)r->nunsized, plural(r->nunsized, "buffer", "buffers"));
  printf("\n");
  int width[NCOLS];
  const char *cell[NCOLS];
  char buf[NCOLS][CELL], note[1200];
  for (int k = 0; k < NCOLS; k++) width[k] = (int)strlen(COL_HEAD[k]);
  for (int64_t i = 0; i < shown; i++) {
    row_cells(&r->rows[i], i + 1, cell, buf, note, sizeof note);
    for (int k = 0; k < NCOLS; k++) {
      int n = (int)strlen(cell[k]);
      if (n > width[k]) width[k] = n;
    }
  }
  print_cells(COL_HEAD, width);
  for (int64_t i = 0; i < shown; i++) {
    row_cells(&r->rows[i], i + 1, cell, buf, note, sizeof note);
    print_cells(cell, width);
  }
  if (shown < r->nrows)
    printf("... %lld more %s (--top %lld of %lld rows)\n", (long long)(r->nrows - shown),
           plural(r->nrows - shown, "row", "rows"), (long long)shown, (long long)r->nrows);
  printf("\n");
  char label[96], name[64];
  int lw = (int)strlen("memory space");
  for (int i = 0; i < r->nspaces; i++) {
    int64_t sp = r->spaces[i].memory_space;
    int n = snprintf(label, sizeof label, "S(%lld) %s", (long long)sp,
                     layout_memory_space_name(sp, name, sizeof name));
    if (n > lw) lw = n;
  }
  printf("%-*s  %7s  %14s  %14s  %14s  %7s  %7s\n", lw, "memory space", "buffers", "logical",
         "physical", "waste", "waste%", "expand");
  for (int i = 0; i < r->nspaces; i++) {
    int64_t sp = r->spaces[i].memory_space;
    snprintf(label, sizeof label, "S(%lld) %s", (long long)sp,
             layout_memory_space_name(sp, name, sizeof name));
    print_totals_line(label, lw, &r->spaces[i]);
  }
  print_totals_line("total", lw, &r->total);
}

static int run_module(const Options *o) {
  ModuleSource src;
  StrBuf report;
  sb_init(&report);
  ErrorKind kind = ERR_NONE;
  Module *m = parse_load_module(o->module, &src, &report, &kind);
  int rc = EXIT_OK;
  if (!m) {
    if (kind == ERR_RUNTIME || kind == ERR_USAGE) fputs("hlolayout: error: ", stderr);
    fputs(report.data ? report.data : "", stderr);
    rc = kind == ERR_RUNTIME ? EXIT_RUNTIME : kind == ERR_USAGE ? EXIT_USAGE : EXIT_INVALID;
  } else if (o->report) {
    schedule_module(m); /* the order hlorun runs it in */
    rc = module_report(m, o);
  } else {
    BufferReport r;
    Error err = {0};
    if (!buffers_report(m, &r, &err)) {
      cli_error("hlolayout", "%s", err.msg);
      rc = EXIT_RUNTIME;
    } else {
      int64_t shown = o->top && o->top < r.nrows ? o->top : r.nrows;
      if (o->format == FMT_TEXT)
        module_text(m, &r, shown);
      else
        module_doc(m, &r, shown, o->format);
      buffers_report_free(&r);
    }
  }
  module_free(m);
  module_source_free(&src);
  sb_free(&report);
  return rc;
}

int main(int argc, char **argv) {
  Options o = {0};
  bool help = false;
  bool version = false;
  int rc = hlolayout_parse_args(argc, argv, &o, &help, &version);
  if (rc != EXIT_OK) return rc;
  if (help) {
    hlolayout_help(stdout);
    return cli_finish_stdout("hlolayout", EXIT_OK);
  }
  if (version) {
    cli_print_version("hlolayout");
    return cli_finish_stdout("hlolayout", EXIT_OK);
  }
  rc = o.module ? run_module(&o) : run_shape(&o);
  return cli_finish_stdout("hlolayout", rc);
}
