/* Recursive-descent parser of one shape with layout (hlo-text.md 4):
 *   shape  := '(' [shape {',' shape}] ')' | 'b' '(' shape ')' | TYPE '[' dims ']' [layout]
 *   layout := '{' [INT {',' INT}] [':' suffixes] '}'
 * Suffixes come in XLA's fixed order D T L # * E S SC P M, each at most once. */
#include "layout/shape_text.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "layout/layout.h"

typedef struct {
  Arena *arena;
  const char *src;
  size_t len, pos;
  Error *err;
} Parser;

static const char *const SUFFIX_ORDER = "D T L # * E S SC P M";
enum { SUF_D, SUF_T, SUF_L, SUF_INDEX, SUF_POINTER, SUF_E, SUF_S, SUF_SC, SUF_P, SUF_M };
static const char *const SUFFIX_NAMES[] = {"D", "T", "L", "#", "*", "E", "S", "SC", "P", "M"};

static bool fail(Parser *p, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail(Parser *p, size_t at, const char *fmt, ...) {
  char buf[sizeof p->err->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return error_set(p->err, ERR_INVALID, (int64_t)at, "%s", buf);
}

static void skip_ws(Parser *p) {
  while (p->pos < p->len && isspace((unsigned char)p->src[p->pos])) p->pos++;
}

static int peek(Parser *p) {
  skip_ws(p);
  return p->pos < p->len ? (unsigned char)p->src[p->pos] : -1;
}

/* "'x'" or "end of input", for messages. */
static const char *found(Parser *p, char *buf, size_t n) {
  if (p->pos >= p->len) return "end of input";
  unsigned char c = (unsigned char)p->src[p->pos];
  if (isprint(c))
    snprintf(buf, n, "'%c'", c);
  else
    snprintf(buf, n, "byte 0x%02x", c);
  return buf;
}

static bool expect(Parser *p, char c, const char *what) {
  if (peek(p) == c) {
    p->pos++;
    return true;
  }
  char b[16];
  return fail(p, p->pos, "expected '%c' %s, found %s", c, what, found(p, b, sizeof b));
}

static bool parse_int(Parser *p, int64_t *out, size_t *at, const char *what) {
  skip_ws(p);
  *at = p->pos;
  size_t i = p->pos;
  bool neg = i < p->len && p->src[i] == '-';
  if (neg) i++;
  if (i >= p->len || !isdigit((unsigned char)p->src[i])) {
    char b[16];
    return fail(p, p->pos, "expected %s, found %s", what, found(p, b, sizeof b));
  }
  int64_t v = 0;
  for (; i < p->len && isdigit((unsigned char)p->src[i]); i++) {
    int digit = p->src[i] - '0';
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, neg ? -digit : digit, &v))
      return fail(p, *at, "number is too large for int64");
  }
  p->pos = i;
  *out = v;
  return true;
}

/* Identifier: letters, digits, '_' (element types are lower-case alnum). */
static size_t scan_ident(Parser *p, bool letters_only) {
  skip_ws(p);
  size_t i = p->pos;
  while (i < p->len && (isalpha((unsigned char)p->src[i]) ||
                        (!letters_only && (isdigit((unsigned char)p->src[i]) || p->src[i] == '_'))))
    i++;
  return i - p->pos;
}

static bool parse_shape(Parser *p, Shape *s, int depth);

static bool parse_tuple(Parser *p, Shape *s, EType kind, int depth) {
  s->etype = kind;
  Shape elems[64];
  int n = 0;
  p->pos++; /* '(' */
  if (peek(p) != ')') {
    for (;;) {
      if (n == (int)(sizeof elems / sizeof *elems))
        return fail(p, p->pos, "tuple has more than %d elements", n);
      memset(&elems[n], 0, sizeof elems[n]);
      if (!parse_shape(p, &elems[n], depth + 1)) return false;
      n++;
      if (peek(p) != ',') break;
      p->pos++;
    }
  }
  if (!expect(p, ')', "to close the tuple")) return false;
  if (kind == ET_BUFFER && n != 1) return fail(p, p->pos - 1, "a buffer shape b(...) holds exactly one shape");
  s->ntuple = n;
  if (n) {
    s->tuple = arena_alloc_array(p->arena, (size_t)n, sizeof(Shape));
    if (!s->tuple) return fail(p, p->pos, "out of memory");
    memcpy(s->tuple, elems, (size_t)n * sizeof(Shape));
  }
  return true;
}

static bool parse_dims(Parser *p, Shape *s) {
  int64_t dims[SHAPE_MAX_RANK];
  bool dyn[SHAPE_MAX_RANK], any_dyn = false;
  int rank = 0;
  int64_t count = 1;
  bool count_known = true;
  p->pos++; /* '[' */
  if (peek(p) != ']') {
    for (;;) {
      skip_ws(p);
      size_t at = p->pos;
      if (rank == SHAPE_MAX_RANK)
        return fail(p, at, "too many dimensions: at most %d are supported", SHAPE_MAX_RANK);
      int64_t d;
      bool is_dyn = false;
      if (peek(p) == '?') {
        p->pos++;
        d = SHAPE_DIM_UNBOUNDED;
        is_dyn = true;
        count_known = false;
      } else {
        if (p->pos + 1 < p->len && p->src[p->pos] == '<' && p->src[p->pos + 1] == '=') {
          p->pos += 2;
          is_dyn = true;
        }
        size_t num_at;
        if (!parse_int(p, &d, &num_at, "a dimension size, '<=N' or '?'")) return false;
        if (d < 0) return fail(p, num_at, "dimension size %lld is negative", (long long)d);
        if (count_known && __builtin_mul_overflow(count, d, &count))
          return fail(p, at, "the number of elements overflows int64");
      }
      dims[rank] = d;
      dyn[rank] = is_dyn;
      any_dyn |= is_dyn;
      rank++;
      if (peek(p) != ',') break;
      p->pos++;
    }
  }
  if (peek(p) != ']') {
    char b[16];
    return fail(p, p->pos, "expected ',' or ']' in the dimensions, found %s", found(p, b, sizeof b));
  }
  p->pos++;
  s->rank = rank;
  if (rank) {
    s->dims = arena_alloc_array(p->arena, (size_t)rank, sizeof(int64_t));
    if (!s->dims) return fail(p, p->pos, "out of memory");
    memcpy(s->dims, dims, (size_t)rank * sizeof *dims);
  }
  if (any_dyn) {
    s->dynamic = arena_alloc_array(p->arena, (size_t)rank, sizeof(bool));
    if (!s->dynamic) return fail(p, p->pos, "out of memory");
    memcpy(s->dynamic, dyn, (size_t)rank * sizeof *dyn);
  }
  return true;
}

static bool parse_minor_to_major(Parser *p, Shape *s) {
  Layout *l = &s->layout;
  bool seen[SHAPE_MAX_RANK] = {false};
  int n = 0;
  if (peek(p) == ':' || peek(p) == '}') goto check_count;
  for (;;) {
    int64_t d;
    size_t at;
    if (!parse_int(p, &d, &at, "a dimension number in minor_to_major")) return false;
    if (n == s->rank)
      return fail(p, at, "too many minor_to_major entries: the shape has rank %d", s->rank);
    if (d < 0 || d >= s->rank)
      return fail(p, at, "minor_to_major entry %lld is not a dimension of this rank-%d shape",
                  (long long)d, s->rank);
    if (seen[d])
      return fail(p, at,
                  "dimension %lld appears twice in minor_to_major; it must be a permutation of "
                  "0..%d",
                  (long long)d, s->rank - 1);
    seen[d] = true;
    l->minor_to_major[n++] = d;
    if (peek(p) != ',') break;
    p->pos++;
  }
check_count:
  if (n != s->rank)
    return fail(p, p->pos, "minor_to_major has %d entr%s but the shape has rank %d", n,
                n == 1 ? "y" : "ies", s->rank);
  return true;
}

static bool parse_paren_int(Parser *p, const char *name, int64_t min, int64_t *out, size_t *at) {
  if (!expect(p, '(', name)) return false;
  if (!parse_int(p, out, at, "a number")) return false;
  if (*out < min)
    return fail(p, *at, "%s(%lld): the value must be at least %lld", name, (long long)*out,
                (long long)min);
  return expect(p, ')', name);
}

static bool parse_tiles(Parser *p, Shape *s) {
  Layout *l = &s->layout;
  Tile tiles[LAYOUT_MAX_LEVELS];
  int nt = 0;
  if (peek(p) != '(') return expect(p, '(', "to start a tile after 'T'");
  while (peek(p) == '(') {
    if (nt == LAYOUT_MAX_LEVELS)
      return fail(p, p->pos, "more than %d tiling levels are not supported", LAYOUT_MAX_LEVELS);
    p->pos++;
    int64_t dims[LAYOUT_MAX_DIMS];
    int n = 0;
    size_t last_star = 0;
    bool last_is_star = false;
    if (peek(p) != ')') {
      for (;;) {
        if (n == LAYOUT_MAX_DIMS)
          return fail(p, p->pos, "a tile has more than %d entries", LAYOUT_MAX_DIMS);
        int c = peek(p);
        if (c == '*') {
          last_star = p->pos++;
          last_is_star = true;
          dims[n++] = TILE_DIM_COMBINE;
        } else if (c == '?') {
          return fail(p, p->pos, "'?' is not allowed in a tile; tile sizes are positive numbers or '*'");
        } else {
          size_t at;
          if (!parse_int(p, &dims[n], &at, "a tile size or '*'")) return false;
          if (dims[n] <= 0)
            return fail(p, at, "tile size %lld is invalid; tile sizes must be positive",
                        (long long)dims[n]);
          last_is_star = false;
          n++;
        }
        if (peek(p) != ',') break;
        p->pos++;
      }
    }
    if (last_is_star)
      return fail(p, last_star,
                  "'*' ends the tile: it combines a dimension with the next more-minor one, "
                  "so it cannot be last");
    if (!expect(p, ')', "to close the tile")) return false;
    tiles[nt].rank = n;
    tiles[nt].dims = n ? arena_alloc_array(p->arena, (size_t)n, sizeof(int64_t)) : NULL;
    if (n && !tiles[nt].dims) return fail(p, p->pos, "out of memory");
    if (n) memcpy(tiles[nt].dims, dims, (size_t)n * sizeof *dims);
    nt++;
  }
  l->ntiles = nt;
  l->tiles = arena_alloc_array(p->arena, (size_t)nt, sizeof(Tile));
  if (!l->tiles) return fail(p, p->pos, "out of memory");
  memcpy(l->tiles, tiles, (size_t)nt * sizeof *tiles);
  return true;
}

static bool parse_dim_level_types(Parser *p) {
  if (!expect(p, '(', "after 'D'")) return false;
  for (;;) {
    int c = peek(p);
    if (c != 'D' && c != 'C' && c != 'S' && c != 'H') {
      char b[16];
      return fail(p, p->pos, "unknown dimension level type %s (expected D, C, S or H)",
                  found(p, b, sizeof b));
    }
    p->pos++;
    if (p->pos < p->len && p->src[p->pos] == '+') p->pos++;
    if (p->pos < p->len && p->src[p->pos] == '~') p->pos++;
    if (peek(p) != ',') break;
    p->pos++;
  }
  return expect(p, ')', "to close D(...)");
}

static bool parse_uint_type(Parser *p, const char *name, EType *out) {
  if (!expect(p, '(', name)) return false;
  size_t n = scan_ident(p, false);
  size_t at = p->pos;
  EType t = etype_from_name(p->src + at, n);
  if (n == 0 || etype_kind(t) != EK_UINT)
    return fail(p, at, "%s(...) must name an unsigned integer type such as u16", name);
  p->pos += n;
  *out = t;
  return expect(p, ')', name);
}

static bool parse_splits(Parser *p, Shape *s) {
  Layout *l = &s->layout;
  SplitConfig cfg[SHAPE_MAX_RANK];
  int n = 0;
  if (peek(p) != '(') return expect(p, '(', "after 'SC'");
  while (peek(p) == '(') {
    p->pos++;
    if (n == SHAPE_MAX_RANK) return fail(p, p->pos, "too many split configs");
    int64_t d;
    size_t at;
    if (!parse_int(p, &d, &at, "a physical dimension number")) return false;
    if (d < 0 || d >= s->rank)
      return fail(p, at, "split config names physical dimension %lld of a rank-%d shape",
                  (long long)d, s->rank);
    if (n && d <= cfg[n - 1].dimension)
      return fail(p, at, "split configs must name increasing dimensions");
    int64_t size = s->dims[l->minor_to_major[s->rank - 1 - d]];
    if (!expect(p, ':', "after the split dimension")) return false;
    int64_t idx[256], last = 0;
    int k = 0;
    if (peek(p) != ')') {
      for (;;) {
        if (k == 256) return fail(p, p->pos, "too many split indices");
        if (!parse_int(p, &idx[k], &at, "a split index")) return false;
        if (idx[k] <= last || idx[k] >= size)
          return fail(p, at, "split index %lld must be increasing and inside (0, %lld)",
                      (long long)idx[k], (long long)size);
        last = idx[k++];
        if (peek(p) != ',') break;
        p->pos++;
      }
    }
    if (!expect(p, ')', "to close the split config")) return false;
    cfg[n].dimension = d;
    cfg[n].nindices = k;
    cfg[n].indices = k ? arena_alloc_array(p->arena, (size_t)k, sizeof(int64_t)) : NULL;
    if (k && !cfg[n].indices) return fail(p, p->pos, "out of memory");
    if (k) memcpy(cfg[n].indices, idx, (size_t)k * sizeof *idx);
    n++;
  }
  l->nsplits = n;
  l->splits = arena_alloc_array(p->arena, (size_t)n, sizeof(SplitConfig));
  if (!l->splits) return fail(p, p->pos, "out of memory");
  memcpy(l->splits, cfg, (size_t)n * sizeof *cfg);
  return true;
}

static bool parse_suffixes(Parser *p, Shape *s, int depth) {
  Layout *l = &s->layout;
  int last = -1;
  while (peek(p) != '}' && p->pos < p->len) {
    size_t at = p->pos;
    int kind;
    size_t n = 1;
    char c = p->src[at];
    if (c == '#') {
      kind = SUF_INDEX;
    } else if (c == '*') {
      kind = SUF_POINTER;
    } else {
      n = scan_ident(p, true);
      static const struct { const char *name; int kind; } letters[] = {
          {"D", SUF_D}, {"T", SUF_T}, {"L", SUF_L}, {"E", SUF_E},
          {"S", SUF_S}, {"SC", SUF_SC}, {"P", SUF_P}, {"M", SUF_M}};
      kind = -1;
      for (size_t i = 0; i < sizeof letters / sizeof *letters; i++)
        if (strlen(letters[i].name) == n && memcmp(letters[i].name, p->src + at, n) == 0)
          kind = letters[i].kind;
      if (kind < 0) {
        if (n == 0) {
          char b[16];
          return fail(p, at, "expected a layout suffix (%s) or '}', found %s", SUFFIX_ORDER,
                      found(p, b, sizeof b));
        }
        return fail(p, at, "unknown layout suffix '%.*s' (expected one of %s)", (int)n,
                    p->src + at, SUFFIX_ORDER);
      }
    }
    if (kind == last)
      return fail(p, at, "layout suffix '%s' appears twice", SUFFIX_NAMES[kind]);
    if (kind < last)
      return fail(p, at, "layout suffix '%s' must come before '%s' (XLA's fixed order is %s)",
                  SUFFIX_NAMES[kind], SUFFIX_NAMES[last], SUFFIX_ORDER);
    last = kind;
    p->pos = at + n;
    int64_t v;
    size_t vat;
    switch (kind) {
      case SUF_D:
        if (!parse_dim_level_types(p)) return false; /* parsed, then dropped as XLA does */
        break;
      case SUF_T:
        if (!parse_tiles(p, s)) return false;
        break;
      case SUF_L:
        if (!parse_paren_int(p, "L", 1, &l->tail_padding_alignment, &vat)) return false;
        break;
      case SUF_INDEX:
        if (!parse_uint_type(p, "#", &l->index_type)) return false;
        break;
      case SUF_POINTER:
        if (!parse_uint_type(p, "*", &l->pointer_type)) return false;
        break;
      case SUF_E: {
        if (!parse_paren_int(p, "E", 0, &v, &vat)) return false;
        Error e;
        if (!layout_element_bits_ok(s->etype, v, &e)) return fail(p, vat, "%s", e.msg);
        l->element_size_bits = v;
        break;
      }
      case SUF_S:
        if (!parse_paren_int(p, "S", 0, &l->memory_space, &vat)) return false;
        break;
      case SUF_SC:
        if (!parse_splits(p, s)) return false;
        break;
      case SUF_P: {
        if (!expect(p, '(', "after 'P'")) return false;
        Shape phys;
        memset(&phys, 0, sizeof phys);
        if (!parse_shape(p, &phys, depth + 1)) return false;
        if (!expect(p, ')', "to close P(...)")) return false;
        /* Every array here is dense (D(...) is dropped), and XLA rejects a
         * physical shape on a dense array. */
        return fail(p, at, "layout has a physical shape P(...), but the array is not sparse");
      }
      case SUF_M:
        if (!parse_paren_int(p, "M", 0, &l->dynamic_metadata_bytes, &vat)) return false;
        break;
      default: break;
    }
  }
  return true;
}

static bool parse_layout(Parser *p, Shape *s, int depth) {
  size_t open = p->pos;
  p->pos++; /* '{' */
  int c = peek(p);
  if (c == '}')
    return fail(p, open, "'{}' is not a layout: write minor_to_major (e.g. {1,0}) or leave the "
                         "layout out");
  if (c != ':' && c != '-' && !(c >= '0' && c <= '9')) {
    char b[16];
    return fail(p, p->pos, "expected minor_to_major or ':' after '{', found %s",
                found(p, b, sizeof b));
  }
  if (!parse_minor_to_major(p, s)) return false;
  if (peek(p) == ':') {
    p->pos++;
    if (!parse_suffixes(p, s, depth)) return false;
  }
  return expect(p, '}', "to close the layout");
}

static bool parse_shape(Parser *p, Shape *s, int depth) {
  if (depth > 32) return fail(p, p->pos, "shape nested too deeply");
  int c = peek(p);
  if (c == '(') return parse_tuple(p, s, ET_TUPLE, depth);
  size_t at = p->pos;
  size_t n = scan_ident(p, false);
  if (n == 0) {
    char b[16];
    return fail(p, at, "expected a shape such as f32[3,5], found %s", found(p, b, sizeof b));
  }
  if (n == 1 && p->src[at] == 'b') {
    p->pos = at + 1;
    if (peek(p) == '(') return parse_tuple(p, s, ET_BUFFER, depth);
    p->pos = at;
  }
  EType t = etype_from_name(p->src + at, n);
  if (t == ET_INVALID) return fail(p, at, "unknown element type '%.*s'", (int)n, p->src + at);
  p->pos = at + n;
  s->etype = t;
  if (peek(p) != '[') return expect(p, '[', "after the element type");
  if (!parse_dims(p, s)) return false;
  if (!shape_set_default_layout(p->arena, s)) return fail(p, p->pos, "out of memory");
  if (peek(p) == '{') {
    if (t == ET_TOKEN || t == ET_OPAQUE)
      return fail(p, p->pos, "%s has no layout", etype_name(t));
    return parse_layout(p, s, depth);
  }
  return true;
}

bool shape_parse_text(Arena *arena, const char *text, size_t len, Shape **out, Error *err) {
  Parser p = {arena, text, len, 0, err};
  Shape *s = arena_alloc(arena, sizeof *s);
  if (!s) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  if (!parse_shape(&p, s, 0)) return false;
  if (peek(&p) != -1) {
    char b[16];
    return fail(&p, p.pos, "unexpected %s after the shape", found(&p, b, sizeof b));
  }
  *out = s;
  return true;
}
