/* base/doc.h as JSON, in its two layouts. */
#include "base/doc_internal.h"

/* The one JSON string escaper: '"', '\' and control characters; the
 * indented layout spells a newline \n, the compact one \u000a. */
static void json_string(StrBuf *out, const char *s, DocJsonStyle style) {
  sb_putc(out, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      sb_putc(out, '\\');
      sb_putc(out, (char)c);
    } else if (c == '\n' && style == DOC_JSON_INDENTED) {
      sb_puts(out, "\\n");
    } else if (c < 0x20) {
      sb_printf(out, "\\u%04x", c);
    } else {
      sb_putc(out, (char)c);
    }
  }
  sb_putc(out, '"');
}

static bool one_line(const Doc *d, DocJsonStyle style) {
  return style == DOC_JSON_COMPACT || d->flow || (d->kind == DOC_SEQ && doc_short_scalars(d));
}

/* depth: nesting level of d (0 for the whole document). */
static void json_node(const Doc *d, DocJsonStyle style, StrBuf *out, int depth) {
  switch (d->kind) {
    case DOC_STR: json_string(out, d->text, style); return;
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
  bool inline_list = one_line(d, style);
  sb_putc(out, map ? '{' : '[');
  for (const Doc *c = d->first; c; c = c->next) {
    if (inline_list && c->newline) {
      sb_printf(out, "%s\n%*s", c != d->first ? "," : "", depth + 1, "");
    } else if (inline_list) {
      if (c != d->first) sb_puts(out, ", ");
    } else {
      sb_printf(out, "\n%*s", 2 * depth + 2, "");
    }
    if (map) {
      json_string(out, c->key, style);
      sb_puts(out, ": ");
    }
    json_node(c, style, out, depth + 1);
    if (c->next && !inline_list) sb_putc(out, ',');
  }
  if (!inline_list) sb_printf(out, "\n%*s", 2 * depth, "");
  sb_putc(out, map ? '}' : ']');
}

bool doc_json(const Doc *d, DocJsonStyle style, StrBuf *out) {
  if (!doc_complete(d)) return false;
  json_node(d, style, out, 0);
  sb_putc(out, '\n');
  return true;
}
