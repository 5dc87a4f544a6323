/* --trace: one record per executed instruction (name, opcode, shape, the
 * memory space of its result, time, call depth) as a text line, a JSON line
 * or an item of one YAML sequence (base/doc.h). */
#include <inttypes.h>
#include <stdlib.h>

#include "interp/run_internal.h"

void run_trace_start(RunTracer *t, FILE *f, RunFormat fmt, MemSystem *mem) {
  *t = (RunTracer){f, fmt, mem, NULL, NULL, false};
  if (fmt == RUN_FMT_YAML) t->yaml = doc_yaml_seq_open(f, DOC_YAML_PLAIN);
  if (fmt != RUN_FMT_TEXT) t->scratch = arena_new();
  t->lost = (fmt == RUN_FMT_YAML && !t->yaml) || (fmt != RUN_FMT_TEXT && !t->scratch);
}

bool run_trace_finish(RunTracer *t) {
  if (t->yaml && !doc_yaml_seq_close(t->yaml)) t->lost = true;
  t->yaml = NULL;
  arena_free(t->scratch);
  t->scratch = NULL;
  return !t->lost;
}

static void space_of(const Value *v, MemSystem *mem, char *buf, size_t size) {
  if (!v || (!v->info && !v->ntuple)) {
    snprintf(buf, size, "-");
    return;
  }
  if (v->ntuple) {
    snprintf(buf, size, "tuple");
    return;
  }
  MemSpace *s = mem_find(mem, v->info->space);
  if (s) mem_space_label(s, buf, (int)size);
  else snprintf(buf, size, "S(%" PRId64 ")", v->info->space);
}

/* One executed instruction as a trace record (YAML and JSON). */
static Doc *trace_record(Arena *a, const Instr *in, const char *shape, const char *space,
                         int64_t ns, int depth) {
  Doc *r = doc_flow(doc_map(a));
  doc_put(a, r, "name", doc_str(a, in->name));
  doc_put(a, r, "opcode", doc_str(a, opcode_name(in->op)));
  doc_put(a, r, "shape", doc_str(a, shape));
  doc_put(a, r, "space", doc_str(a, space));
  doc_put(a, r, "time_us", doc_num(a, (double)ns / 1000.0, 3));
  doc_put(a, r, "depth", doc_int(a, depth));
  return r;
}

void run_trace_instr(void *ud, const Instr *in, const Value *result, int64_t ns, int depth) {
  RunTracer *t = ud;
  char *shape = shape_to_string(&in->shape);
  char space[96];
  space_of(result, t->mem, space, sizeof space);
  if (t->fmt == RUN_FMT_TEXT) {
    fprintf(t->f, "%*s%-24s %-22s %-40s %-14s %10.3f us\n", depth * 2, "", in->name,
            opcode_name(in->op), shape ? shape : "?", space, (double)ns / 1000.0);
    free(shape);
    return;
  }
  Arena *a = t->scratch;
  Doc *r = a ? trace_record(a, in, shape ? shape : "?", space, ns, depth) : NULL;
  if (t->fmt == RUN_FMT_JSON) { /* JSON Lines: one object a line */
    StrBuf sb;
    sb_init(&sb);
    if (doc_json(r, DOC_JSON_COMPACT, &sb) && !sb.oom) fputs(sb.data, t->f);
    else t->lost = true;
    sb_free(&sb);
  } else if (!t->yaml || !doc_yaml_seq_item(t->yaml, r)) {
    t->lost = true;
  }
  if (a) arena_reset(a);
  free(shape);
}
