/* The literal builder (hlo-text.md section 5).  The grammar sends a stream
 * of events ('{', '}', '(', ')', '...', scalars); each lands directly in the
 * literal's final storage, so a 2 MB constant costs one allocation of its
 * own size and no tree.  Rank and size are checked as they come, as XLA's
 * dense literal parser does ("expects nested array in rank 2, but sees 1",
 * "expects 3 elements in ..."). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "layout/etype_convert.h"
#include "parser/parse_internal.h"

static void lit_fail(ParseCtx *ctx, int64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void lit_fail(ParseCtx *ctx, int64_t off, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  parse_error(ctx, off, "%s", buf);
  ctx->lit.failed = true;
}

static LitFrame *push_frame(ParseCtx *ctx, LitFrameKind kind, const Shape *shape, Literal *lit,
                            int64_t off) {
  LitBuilder *b = &ctx->lit;
  if (b->n == b->cap) {
    int cap = b->cap ? b->cap * 2 : 8;
    LitFrame *nf = arena_alloc_array(ctx->scratch, (size_t)cap, sizeof *nf);
    if (!nf) {
      parse_oom(ctx, off);
      b->failed = true;
      return NULL;
    }
    if (b->n) memcpy(nf, b->frames, (size_t)b->n * sizeof *nf);
    b->frames = nf;
    b->cap = cap;
  }
  LitFrame *f = &b->frames[b->n++];
  memset(f, 0, sizeof *f);
  f->kind = kind;
  f->shape = shape;
  f->lit = lit;
  return f;
}

static LitFrame *top(ParseCtx *ctx) {
  return ctx->lit.n ? &ctx->lit.frames[ctx->lit.n - 1] : NULL;
}

void lit_begin(ParseCtx *ctx, const Shape *shape, int64_t off) {
  LitBuilder *b = &ctx->lit;
  b->n = 0;
  b->failed = false;
  b->root = NULL;
  if (!shape || shape->etype == ET_INVALID) {
    b->failed = true; /* the shape's own error was reported */
    return;
  }
  Literal *lit = arena_alloc(ctx->arena, sizeof *lit);
  if (!lit) {
    parse_oom(ctx, off);
    b->failed = true;
    return;
  }
  if (!shape_copy_into(ctx->arena, &lit->shape, shape)) {
    parse_oom(ctx, off);
    b->failed = true;
    return;
  }
  b->root = lit;
  push_frame(ctx, LF_VALUE, &lit->shape, lit, off);
}

static const char *type_name(const Shape *s) {
  return s->etype == ET_TUPLE ? "tuple" : etype_name(s->etype);
}

/* A VALUE frame (or a tuple's element) is complete: pop it. */
static void value_done(ParseCtx *ctx) { ctx->lit.n--; }

/* Before an item: the frame that receives it.  A tuple hands out its next
 * element as a fresh VALUE frame. */
static LitFrame *want_item(ParseCtx *ctx, int64_t off, const char *what) {
  LitFrame *f = top(ctx);
  if (!f) {
    lit_fail(ctx, off, "unexpected %s after the end of the literal", what);
    return NULL;
  }
  if (f->kind == LF_TUPLE) {
    if (f->next >= f->lit->ntuple) {
      lit_fail(ctx, off, "too many elements in tuple literal: expects %d", f->lit->ntuple);
      return NULL;
    }
    Literal *el = &f->lit->tuple[f->next++];
    return push_frame(ctx, LF_VALUE, &el->shape, el, off);
  }
  return f;
}

/* Element storage, allocated at the first stored element (an elided or
 * malformed literal never allocates its nominal size). */
/* A bare scalar written for an array shape (the XLA quirk in lit_scalar)
 * fills a zeroed literal of the whole shape without a byte of text per
 * element; this bounds what such a constant may allocate.  XLA's own
 * onednn_matmul_test writes f32[1,384,1024] constant(15) (1.5 MiB). */
enum { LIT_SCALAR_FILL_MAX_BYTES = 256 << 20 };

static void *elem_ptr(ParseCtx *ctx, LitFrame *f, int64_t index, int64_t off) {
  Literal *lit = f->lit;
  int bytes = etype_storage_bytes(lit->shape.etype);
  if (!lit->data) {
    int64_t n = f->kind == LF_ARRAY ? f->nelems : 1, nbytes;
    /* Every element needs at least one byte of text: more elements than
     * that means the count check will fail; do not allocate for it (the
     * scalar fill is bounded by bytes instead). */
    if (__builtin_mul_overflow(n, (int64_t)bytes, &nbytes)) return NULL;
    if (f->scalar_fill ? nbytes > LIT_SCALAR_FILL_MAX_BYTES : n > (int64_t)ctx->len + 4096)
      return NULL;
    lit->data = arena_alloc(ctx->arena, (size_t)(nbytes ? nbytes : 1));
    if (!lit->data) {
      parse_oom(ctx, off);
      ctx->lit.failed = true;
      return NULL;
    }
    lit->nbytes = nbytes;
  }
  return (char *)lit->data + index * bytes;
}

static double value_as_double(LitValue v) {
  switch (v.kind) {
  case LV_INT:
    if (v.i.neg && v.i.v == 0) return -0.0; /* "-0" */
    return v.i.big ? (double)(uint64_t)v.i.v : (double)v.i.v;
  case LV_NUM: return num_to_double(v.num);
  case LV_INF: return (double)INFINITY;
  default: return 0.0;
  }
}

/* Stores one scalar of type t with XLA's range rules. */
static void store_value(ParseCtx *ctx, EType t, void *dst, LitValue v, int64_t off) {
  ETypeKind k = etype_kind(t);
  bool ok = true;
  const char *what = "value";
  switch (k) {
  case EK_PRED:
    if (v.kind == LV_BOOL) ok = etype_store_int(t, v.b, dst);
    else if (v.kind == LV_INT && !v.i.big) ok = etype_store_int(t, v.i.v, dst);
    else ok = false;
    what = "pred value (expects true, false, 0 or 1)";
    break;
  case EK_SINT:
  case EK_UINT:
    if (v.kind != LV_INT) {
      lit_fail(ctx, off, "expects an integer for type %s", etype_name(t));
      return;
    }
    if (t == ET_U64 && !v.i.big && v.i.v < 0)
      /* XLA range-checks a u64 value as the int64 it parsed, reinterpreted
       * as unsigned: -1 is accepted and means 2^64-1. */
      ok = etype_store_uint(t, (uint64_t)v.i.v, dst);
    else
      ok = v.i.big ? etype_store_uint(t, (uint64_t)v.i.v, dst) : etype_store_int(t, v.i.v, dst);
    break;
  case EK_FLOAT:
  case EK_COMPLEX:
    if (v.kind == LV_BOOL) {
      lit_fail(ctx, off, "expects a number for type %s", etype_name(t));
      return;
    }
    if (v.kind == LV_NUM && v.num.kind == NUM_NAN) {
      ok = k == EK_FLOAT ? etype_store_nan(t, v.num.neg, v.num.payload, dst)
                         : etype_store_complex(t, num_to_double(v.num), 0.0, dst);
      what = v.num.payload ? "NaN payload" : "NaN";
    } else if (v.kind == LV_INT && v.i.v == 0 && v.i.neg) {
      /* XLA prints negative zero as "-0": keep its sign. */
      ok = k == EK_FLOAT ? etype_store_float(t, -0.0, dst) : etype_store_complex(t, -0.0, 0.0, dst);
    } else if (v.kind == LV_INT && !v.i.big) {
      ok = etype_store_int(t, v.i.v, dst);
    } else if (v.kind == LV_NUM && v.num.kind == NUM_FINITE && isinf(value_as_double(v))) {
      /* A written number beyond the double range (1.8e308) is an error in
       * XLA even for f64; only inf itself means infinity. */
      lit_fail(ctx, off, "value out of range for double, so out of range for type %s",
               etype_name(t));
      return;
    } else {
      ok = etype_store_float(t, value_as_double(v), dst);
    }
    break;
  default:
    lit_fail(ctx, off, "type %s has no literal values", etype_name(t));
    return;
  }
  if (!ok) lit_fail(ctx, off, "%s out of range for type %s", what, etype_name(t));
}

void lit_scalar(ParseCtx *ctx, LitValue v, int64_t off) {
  if (ctx->lit.failed) return;
  LitFrame *f = want_item(ctx, off, "value");
  if (!f) return;
  const Shape *s = f->shape;
  switch (f->kind) {
  case LF_VALUE:
    if (shape_is_tuple(s) || s->etype == ET_BUFFER) {
      lit_fail(ctx, off, "expects a tuple literal ( ... ) for a %s shape", type_name(s));
      return;
    }
    if (s->rank > 0) {
      /* XLA quirk: a bare scalar for an array shape is accepted; it sets
       * element 0 and leaves the rest zero (XLA ignores the rank error on
       * this path).  Seen in XLA's own tests: f32[3,3] constant(1). */
      if (!shape_element_count(s, &f->nelems) || f->nelems == 0) {
        lit_fail(ctx, off, "expects nested array in rank %d, but sees 0", s->rank);
        return;
      }
      f->kind = LF_ARRAY;
      f->scalar_fill = true;
    }
    {
      void *dst = elem_ptr(ctx, f, 0, off);
      if (dst)
        store_value(ctx, s->etype, dst, v, off);
      else if (!ctx->lit.failed)
        lit_fail(ctx, off, "expects nested array in rank %d, but sees 0 (a bare value for %lld "
                 "elements is accepted up to %d MiB)", s->rank, (long long)f->nelems,
                 LIT_SCALAR_FILL_MAX_BYTES >> 20);
    }
    value_done(ctx);
    return;
  case LF_ARRAY: {
    if (f->level != s->rank) {
      lit_fail(ctx, off, "expects nested array in rank %d, but sees %d", s->rank, f->level);
      return;
    }
    if (f->counts[f->level] >= s->dims[s->rank - 1]) {
      lit_fail(ctx, off, "too many elements: expects %lld in this dimension",
               (long long)s->dims[s->rank - 1]);
      return;
    }
    f->counts[f->level]++;
    void *dst = elem_ptr(ctx, f, f->next, off);
    if (dst) store_value(ctx, s->etype, dst, v, off);
    f->next++;
    return;
  }
  case LF_COMPLEX:
    if (f->nparts == 2) {
      lit_fail(ctx, off, "a complex value has two parts: (real, imag)");
      return;
    }
    if (v.kind == LV_BOOL) {
      lit_fail(ctx, off, "expects a number for type %s", etype_name(f->etype));
      return;
    }
    f->parts[f->nparts++] = value_as_double(v);
    return;
  default:
    lit_fail(ctx, off, "unexpected value");
    return;
  }
}

void lit_open_brace(ParseCtx *ctx, int64_t off) {
  if (ctx->lit.failed) return;
  LitFrame *f = want_item(ctx, off, "'{'");
  if (!f) return;
  const Shape *s = f->shape;
  switch (f->kind) {
  case LF_VALUE:
    if (!shape_is_array(s) || s->etype == ET_TOKEN || s->etype == ET_OPAQUE) {
      lit_fail(ctx, off, "expects a tuple literal ( ... ) for a %s shape", type_name(s));
      return;
    }
    if (s->rank == 0) {
      lit_fail(ctx, off, "expects a scalar for a rank-0 shape, not '{'");
      return;
    }
    f->kind = LF_ARRAY;
    f->level = 1;
    f->first_open = off;
    f->counts = arena_alloc_array(ctx->scratch, (size_t)s->rank + 1, sizeof(int64_t));
    if (!f->counts) {
      parse_oom(ctx, off);
      ctx->lit.failed = true;
      return;
    }
    if (!shape_element_count(s, &f->nelems)) {
      lit_fail(ctx, off, "literal shape has too many elements");
      return;
    }
    return;
  case LF_ARRAY:
    if (f->level >= s->rank) {
      lit_fail(ctx, off, "expects nested array in rank %d, but sees more than %d", s->rank, s->rank);
      return;
    }
    if (f->counts[f->level] >= s->dims[f->level - 1]) {
      lit_fail(ctx, off, "too many elements: expects %lld in this dimension",
               (long long)s->dims[f->level - 1]);
      return;
    }
    f->counts[f->level]++;
    f->level++;
    f->counts[f->level] = 0;
    return;
  default:
    lit_fail(ctx, off, "unexpected '{' in a complex value");
    return;
  }
}

void lit_close_brace(ParseCtx *ctx, int64_t off) {
  if (ctx->lit.failed) return;
  LitFrame *f = top(ctx);
  if (!f || f->kind != LF_ARRAY) {
    lit_fail(ctx, off, "unexpected '}' in literal");
    return;
  }
  const Shape *s = f->shape;
  int64_t want = s->dims[f->level - 1], got = f->counts[f->level];
  if (got != want) {
    if (f->level == s->rank && f->level > 1)
      lit_fail(ctx, off, "expects %lld elements in the [%lld]th element, but sees %lld",
               (long long)want, (long long)(f->counts[f->level - 1] - 1), (long long)got);
    else if (f->level < s->rank && got < want && got > 0)
      lit_fail(ctx, off, "expects %lld sub-arrays in dimension %d, but sees %lld", (long long)want,
               f->level - 1, (long long)got);
    else if (f->level < s->rank && got == 0 && want > 0)
      lit_fail(ctx, off, "expects nested array in rank %d, but sees %d", s->rank, f->level);
    else
      lit_fail(ctx, off, "expects %lld elements, but sees %lld", (long long)want, (long long)got);
    return;
  }
  if (--f->level == 0) value_done(ctx);
}

void lit_open_paren(ParseCtx *ctx, int64_t off) {
  if (ctx->lit.failed) return;
  LitFrame *f = want_item(ctx, off, "'('");
  if (!f) return;
  const Shape *s = f->shape;
  if (f->kind == LF_VALUE && shape_is_tuple(s)) {
    f->kind = LF_TUPLE;
    f->next = 0;
    f->lit->ntuple = s->ntuple;
    if (s->ntuple) {
      f->lit->tuple = arena_alloc_array(ctx->arena, (size_t)s->ntuple, sizeof(Literal));
      if (!f->lit->tuple) {
        parse_oom(ctx, off);
        ctx->lit.failed = true;
        return;
      }
      for (int i = 0; i < s->ntuple; i++) f->lit->tuple[i].shape = s->tuple[i];
    }
    return;
  }
  if (f->kind == LF_VALUE && etype_is_complex(s->etype) && s->rank == 0) {
    void *dst = elem_ptr(ctx, f, 0, off);
    f->kind = LF_COMPLEX;
    f->etype = s->etype;
    f->dst = dst;
    f->nparts = 0;
    f->next = 1; /* completes the VALUE frame it replaced */
    return;
  }
  if (f->kind == LF_ARRAY && etype_is_complex(s->etype) && f->level == s->rank) {
    if (f->counts[f->level] >= s->dims[s->rank - 1]) {
      lit_fail(ctx, off, "too many elements: expects %lld in this dimension",
               (long long)s->dims[s->rank - 1]);
      return;
    }
    f->counts[f->level]++;
    void *dst = elem_ptr(ctx, f, f->next++, off);
    LitFrame *c = push_frame(ctx, LF_COMPLEX, s, f->lit, off);
    if (!c) return;
    c->etype = s->etype;
    c->dst = dst;
    c->next = 0;
    return;
  }
  if (f->kind == LF_ARRAY && f->level != s->rank)
    lit_fail(ctx, off, "expects nested array in rank %d, but sees %d", s->rank, f->level);
  else
    lit_fail(ctx, off, "'(' is only for tuples and complex numbers, not %s", type_name(s));
}

void lit_close_paren(ParseCtx *ctx, int64_t off) {
  if (ctx->lit.failed) return;
  LitFrame *f = top(ctx);
  if (f && f->kind == LF_TUPLE) {
    if (f->next != f->lit->ntuple) {
      lit_fail(ctx, off, "expects %d elements in tuple literal, but sees %lld", f->lit->ntuple,
               (long long)f->next);
      return;
    }
    value_done(ctx);
    return;
  }
  if (f && f->kind == LF_COMPLEX) {
    if (f->nparts != 2) {
      lit_fail(ctx, off, "a complex value has two parts: (real, imag)");
      return;
    }
    if (f->dst && !etype_store_complex(f->etype, f->parts[0], f->parts[1], f->dst)) {
      lit_fail(ctx, off, "complex value out of range for type %s", etype_name(f->etype));
      return;
    }
    value_done(ctx);
    return;
  }
  lit_fail(ctx, off, "unexpected ')' in literal");
}

void lit_ellipsis(ParseCtx *ctx, int64_t off) {
  if (ctx->lit.failed) return;
  LitFrame *f = top(ctx);
  if (!f || f->kind != LF_ARRAY || f->level != 1 || f->counts[1] != 0) {
    lit_fail(ctx, off, "'...' may only stand for the whole contents: {...}");
    return;
  }
  /* Elided contents: no storage; consumers see elided and data == NULL. */
  f->saw_ellipsis = true;
  f->counts[1] = f->shape->dims[0];
  f->lit->elided = true;
}

Literal *lit_end(ParseCtx *ctx, int64_t off) {
  LitBuilder *b = &ctx->lit;
  if (b->failed) return NULL;
  if (b->n != 0) {
    lit_fail(ctx, off, "incomplete literal");
    return NULL;
  }
  return b->root;
}

Literal *lit_tuple_of(ParseCtx *ctx, const Vec *elems, int64_t off) {
  int n = elems->n;
  for (int i = 0; i < n; i++)
    if (!VEC_AT(*elems, Literal *, i)) return NULL; /* its error was reported */
  Literal *lit = arena_alloc(ctx->arena, sizeof *lit);
  Shape *shapes = n ? arena_alloc_array(ctx->arena, (size_t)n, sizeof(Shape)) : NULL;
  Literal *items = n ? arena_alloc_array(ctx->arena, (size_t)n, sizeof(Literal)) : NULL;
  if (!lit || (n && (!shapes || !items))) {
    parse_oom(ctx, off);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    items[i] = *VEC_AT(*elems, Literal *, i);
    shapes[i] = items[i].shape;
  }
  lit->shape.etype = ET_TUPLE;
  lit->shape.ntuple = n;
  lit->shape.tuple = shapes;
  lit->ntuple = n;
  lit->tuple = items;
  return lit;
}
