#include "layout/layout_doc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef enum { DOC_MAP, DOC_SEQ, DOC_INT, DOC_NUM, DOC_STR, DOC_BOOL, DOC_NULL } DocKind;

struct LayoutDoc {
  DocKind kind;
  const char *key;  /* when inside a map */
  const char *text; /* scalar text as written (numbers pre-formatted) */
  LayoutDoc *first, *last, *next;
};

static LayoutDoc *node(Arena *a, DocKind k, const char *text) {
  LayoutDoc *d = arena_alloc(a, sizeof *d);
  if (!d) return NULL;
  d->kind = k;
  d->text = text;
  return d;
}

LayoutDoc *layout_doc_map(Arena *a) { return node(a, DOC_MAP, NULL); }
LayoutDoc *layout_doc_seq(Arena *a) { return node(a, DOC_SEQ, NULL); }
LayoutDoc *layout_doc_str(Arena *a, const char *s) { return node(a, DOC_STR, arena_strdup(a, s)); }
LayoutDoc *layout_doc_bool(Arena *a, bool v) { return node(a, DOC_BOOL, v ? "true" : "false"); }
LayoutDoc *layout_doc_null(Arena *a) { return node(a, DOC_NULL, "null"); }

LayoutDoc *layout_doc_int(Arena *a, int64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)v);
  return node(a, DOC_INT, arena_strdup(a, buf));
}

LayoutDoc *layout_doc_num(Arena *a, double v, int decimals) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return node(a, DOC_NUM, arena_strdup(a, buf));
}

LayoutDoc *layout_doc_ints(Arena *a, const int64_t *v, int n) {
  LayoutDoc *s = layout_doc_seq(a);
  for (int i = 0; s && i < n; i++) layout_doc_push(s, layout_doc_int(a, v[i]));
  return s;
}

LayoutDoc *layout_doc_push(LayoutDoc *seq, LayoutDoc *val) {
  if (!seq || !val) return val;
  if (seq->last)
    seq->last->next = val;
  else
    seq->first = val;
  seq->last = val;
  return val;
}

LayoutDoc *layout_doc_put(Arena *a, LayoutDoc *map, const char *key, LayoutDoc *val) {
  if (!val) return NULL;
  val->key = arena_strdup(a, key);
  return layout_doc_push(map, val);
}

/* Short scalar lists ([2, 3], [*, 4, 4]) are written on one line. */
static bool short_scalars(const LayoutDoc *d) {
  for (const LayoutDoc *c = d->first; c; c = c->next)
    if (c->kind == DOC_MAP || c->kind == DOC_SEQ || (c->kind == DOC_STR && strlen(c->text) > 8))
      return false;
  return true;
}

static void json_string(StrBuf *out, const char *s) {
  sb_putc(out, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      sb_putc(out, '\\');
      sb_putc(out, (char)c);
    } else if (c == '\n') {
      sb_puts(out, "\\n");
    } else if (c < 0x20) {
      sb_printf(out, "\\u%04x", c);
    } else {
      sb_putc(out, (char)c);
    }
  }
  sb_putc(out, '"');
}

static void json_node(const LayoutDoc *d, StrBuf *out, int indent) {
  switch (d->kind) {
    case DOC_STR: json_string(out, d->text); return;
    case DOC_INT:
    case DOC_NUM:
    case DOC_BOOL:
    case DOC_NULL: sb_puts(out, d->text); return;
    case DOC_MAP:
    case DOC_SEQ: break;
  }
  bool map = d->kind == DOC_MAP;
  if (!d->first) {
    sb_puts(out, map ? "{}" : "[]");
    return;
  }
  /* Lists of numbers stay on one line: "index": [2, 3]. */
  bool inline_list = !map && short_scalars(d);
  sb_putc(out, map ? '{' : '[');
  for (const LayoutDoc *c = d->first; c; c = c->next) {
    if (inline_list) {
      if (c != d->first) sb_puts(out, ", ");
    } else {
      sb_printf(out, "\n%*s", indent + 2, "");
    }
    if (map) {
      json_string(out, c->key);
      sb_puts(out, ": ");
    }
    json_node(c, out, indent + 2);
    if (c->next && !inline_list) sb_putc(out, ',');
  }
  if (!inline_list) sb_printf(out, "\n%*s", indent, "");
  sb_putc(out, map ? '}' : ']');
}

void layout_doc_json(const LayoutDoc *d, StrBuf *out) {
  json_node(d, out, 0);
  sb_putc(out, '\n');
}

static int yaml_write(void *data, unsigned char *buffer, size_t size) {
  sb_append(data, (const char *)buffer, size);
  return 1;
}

/* Strings that a YAML reader would take for another type get quoted. */
static bool needs_quotes(const char *s) {
  if (!*s) return true;
  static const char *const words[] = {"true", "false", "null", "~", "yes", "no", "on", "off",
                                      "True", "False", "Null", "Yes", "No"};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++)
    if (strcmp(s, words[i]) == 0) return true;
  char *end;
  (void)strtod(s, &end);
  return *end == '\0';
}

static bool yaml_scalar(yaml_emitter_t *e, const char *text, bool is_string) {
  yaml_event_t ev;
  yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;
  if (is_string && needs_quotes(text)) style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
  yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)(uintptr_t)text, (int)strlen(text),
                               1, 1, style);
  return yaml_emitter_emit(e, &ev) != 0;
}

static bool yaml_node(yaml_emitter_t *e, const LayoutDoc *d) {
  yaml_event_t ev;
  switch (d->kind) {
    case DOC_STR: return yaml_scalar(e, d->text, true);
    case DOC_NULL: return yaml_scalar(e, "null", false);
    case DOC_INT:
    case DOC_NUM:
    case DOC_BOOL: return yaml_scalar(e, d->text, false);
    case DOC_MAP:
      yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                          d->first ? YAML_BLOCK_MAPPING_STYLE : YAML_FLOW_MAPPING_STYLE);
      if (!yaml_emitter_emit(e, &ev)) return false;
      for (const LayoutDoc *c = d->first; c; c = c->next)
        if (!yaml_scalar(e, c->key, true) || !yaml_node(e, c)) return false;
      yaml_mapping_end_event_initialize(&ev);
      return yaml_emitter_emit(e, &ev) != 0;
    case DOC_SEQ: {
      bool flow = !d->first || short_scalars(d);
      yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                           flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
      if (!yaml_emitter_emit(e, &ev)) return false;
      for (const LayoutDoc *c = d->first; c; c = c->next)
        if (!yaml_node(e, c)) return false;
      yaml_sequence_end_event_initialize(&ev);
      return yaml_emitter_emit(e, &ev) != 0;
    }
  }
  return false;
}

bool layout_doc_yaml(const LayoutDoc *d, StrBuf *out) {
  yaml_emitter_t e;
  yaml_event_t ev;
  if (!yaml_emitter_initialize(&e)) return false;
  yaml_emitter_set_output(&e, yaml_write, out);
  yaml_emitter_set_unicode(&e, 1);
  yaml_emitter_set_width(&e, -1); /* never fold long step lines */
  bool ok = true;
  yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
  ok = ok && yaml_emitter_emit(&e, &ev);
  yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
  ok = ok && yaml_emitter_emit(&e, &ev);
  ok = ok && yaml_node(&e, d);
  yaml_document_end_event_initialize(&ev, 1);
  ok = ok && yaml_emitter_emit(&e, &ev);
  yaml_stream_end_event_initialize(&ev);
  ok = ok && yaml_emitter_emit(&e, &ev);
  ok = ok && yaml_emitter_flush(&e);
  yaml_emitter_delete(&e);
  return ok;
}
