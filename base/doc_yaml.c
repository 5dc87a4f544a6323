/* base/doc.h as YAML, through libyaml's emitter. */
#include "base/doc_internal.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

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

static bool yaml_scalar(yaml_emitter_t *e, DocYamlStyle style, const char *text, bool is_string) {
  yaml_event_t ev;
  yaml_scalar_style_t sstyle = YAML_ANY_SCALAR_STYLE;
  if (style == DOC_YAML_TYPED && is_string && needs_quotes(text))
    sstyle = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
  yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)(uintptr_t)text, (int)strlen(text),
                               1, 1, sstyle);
  return yaml_emitter_emit(e, &ev) != 0;
}

static bool yaml_node(yaml_emitter_t *e, DocYamlStyle style, const Doc *d) {
  yaml_event_t ev;
  switch (d->kind) {
    case DOC_STR: return yaml_scalar(e, style, d->text, true);
    case DOC_NULL: return yaml_scalar(e, style, "null", false);
    case DOC_INT:
    case DOC_NUM:
    case DOC_BOOL: return yaml_scalar(e, style, d->text, false);
    case DOC_MAP: {
      bool flow = d->flow || !d->first;
      yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                          flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
      if (!yaml_emitter_emit(e, &ev)) return false;
      for (const Doc *c = d->first; c; c = c->next)
        if (!yaml_scalar(e, style, c->key, true) || !yaml_node(e, style, c)) return false;
      yaml_mapping_end_event_initialize(&ev);
      return yaml_emitter_emit(e, &ev) != 0;
    }
    case DOC_SEQ: {
      bool flow = d->flow || !d->first || doc_short_scalars(d);
      yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                           flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
      if (!yaml_emitter_emit(e, &ev)) return false;
      for (const Doc *c = d->first; c; c = c->next)
        if (!yaml_node(e, style, c)) return false;
      yaml_sequence_end_event_initialize(&ev);
      return yaml_emitter_emit(e, &ev) != 0;
    }
  }
  return false;
}

/* Sets up the emitter in the style's mode. */
static bool yaml_open(yaml_emitter_t *e, DocYamlStyle style) {
  if (!yaml_emitter_initialize(e)) return false;
  if (style == DOC_YAML_TYPED) yaml_emitter_set_unicode(e, 1);
  yaml_emitter_set_width(e, -1); /* never fold long lines */
  return true;
}

/* Starts the stream and its one document. */
static bool yaml_begin(yaml_emitter_t *e) {
  yaml_event_t ev;
  yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
  if (!yaml_emitter_emit(e, &ev)) return false;
  yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
  return yaml_emitter_emit(e, &ev) != 0;
}

/* Ends the document and the stream, flushes and frees the emitter. */
static bool yaml_close(yaml_emitter_t *e, bool ok) {
  yaml_event_t ev;
  yaml_document_end_event_initialize(&ev, 1);
  ok = ok && yaml_emitter_emit(e, &ev);
  yaml_stream_end_event_initialize(&ev);
  ok = ok && yaml_emitter_emit(e, &ev);
  ok = ok && yaml_emitter_flush(e);
  yaml_emitter_delete(e);
  return ok;
}

bool doc_yaml(const Doc *d, DocYamlStyle style, StrBuf *out) {
  yaml_emitter_t e;
  if (!doc_complete(d) || !yaml_open(&e, style)) return false;
  yaml_emitter_set_output(&e, yaml_write, out);
  bool ok = yaml_begin(&e) && yaml_node(&e, style, d);
  return yaml_close(&e, ok);
}

struct DocYamlSeq {
  yaml_emitter_t e;
  DocYamlStyle style;
};

DocYamlSeq *doc_yaml_seq_open(FILE *f, DocYamlStyle style) {
  DocYamlSeq *s = malloc(sizeof *s);
  if (!s) return NULL;
  if (!yaml_open(&s->e, style)) {
    free(s);
    return NULL;
  }
  s->style = style;
  yaml_emitter_set_output_file(&s->e, f);
  yaml_event_t ev;
  yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
  (void)(yaml_begin(&s->e) && yaml_emitter_emit(&s->e, &ev));
  return s;
}

bool doc_yaml_seq_item(DocYamlSeq *s, const Doc *item) {
  return doc_complete(item) && yaml_node(&s->e, s->style, item);
}

bool doc_yaml_seq_close(DocYamlSeq *s) {
  yaml_event_t ev;
  yaml_sequence_end_event_initialize(&ev);
  bool ok = yaml_close(&s->e, yaml_emitter_emit(&s->e, &ev) != 0);
  free(s);
  return ok;
}
