#include "interp/value.h"

#include "base/hostmem.h"
#include "interp/mem_track.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the ArrayInfo cache --- */

bool value_ctx_init(ValueCtx *vc, MemSystem *mem, Arena *arena) {
  memset(vc, 0, sizeof *vc);
  vc->mem = mem;
  vc->arena = arena;
  vc->cap = 256;
  vc->keys = calloc((size_t)vc->cap, sizeof *vc->keys);
  vc->vals = calloc((size_t)vc->cap, sizeof *vc->vals);
  return vc->keys && vc->vals;
}

static void info_free(ArrayInfo *ai) {
  layout_plan_free(&ai->plan);
  if (ai->dense_plan) {
    layout_plan_free(ai->dense_plan);
    free(ai->dense_plan);
  }
  free(ai->pad_runs);
  free(ai);
}

void value_ctx_free(ValueCtx *vc) {
  for (int i = 0; i < vc->cap; i++)
    if (vc->vals && vc->vals[i]) info_free(vc->vals[i]);
  free(vc->keys);
  free(vc->vals);
  vc->keys = NULL;
  vc->vals = NULL;
}

static size_t hash_ptr(const void *p, int cap) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 17;
  x *= 0x9E3779B97F4A7C15ull;
  return (size_t)(x >> 20) & (size_t)(cap - 1);
}

static bool cache_put(ValueCtx *vc, const Shape *s, ArrayInfo *ai) {
  if ((vc->count + 1) * 2 > vc->cap) {
    int ncap = vc->cap * 2;
    const Shape **nk = calloc((size_t)ncap, sizeof *nk);
    ArrayInfo **nv = calloc((size_t)ncap, sizeof *nv);
    if (!nk || !nv) {
      free(nk);
      free(nv);
      return false;
    }
    for (int i = 0; i < vc->cap; i++) {
      if (!vc->keys[i]) continue;
      size_t h = hash_ptr(vc->keys[i], ncap);
      while (nk[h]) h = (h + 1) & (size_t)(ncap - 1);
      nk[h] = vc->keys[i];
      nv[h] = vc->vals[i];
    }
    free(vc->keys);
    free(vc->vals);
    vc->keys = nk;
    vc->vals = nv;
    vc->cap = ncap;
  }
  size_t h = hash_ptr(s, vc->cap);
  while (vc->keys[h]) h = (h + 1) & (size_t)(vc->cap - 1);
  vc->keys[h] = s;
  vc->vals[h] = ai;
  vc->count++;
  return true;
}

/* Is the physical order of p exactly dense row-major natural storage? */
static bool plan_is_identity(const LayoutPlan *p) {
  if (p->packed_bits) return false;
  if (p->element_bits && p->element_bits != (int64_t)p->storage_bytes * 8) return false;
  if (p->slots != p->elements || p->metadata_bytes) return false;
  /* minor_to_major descending once size-1 dims are ignored */
  int64_t prev = -1;
  for (int k = p->rank - 1; k >= 0; k--) {
    int64_t d = p->minor_to_major[k];
    if (p->dims[d] == 1) continue;
    if (d < prev) return false;
    prev = d;
  }
  if (p->nlevels == 0) return true;
  /* Tiles that add no padding may still reorder: check every slot. */
  LayoutIter it;
  layout_iter_init(&it, p);
  int64_t want = 0;
  while (layout_iter_next(&it)) {
    if (it.padding) return false;
    if (layout_row_major(it.index, p->dims, p->rank) != want) return false;
    want++;
  }
  return true;
}

const ArrayInfo *value_array_info(ValueCtx *vc, const Shape *s, Error *err) {
  size_t h = hash_ptr(s, vc->cap);
  while (vc->keys[h]) {
    if (vc->keys[h] == s) return vc->vals[h];
    h = (h + 1) & (size_t)(vc->cap - 1);
  }
  ArrayInfo *ai = calloc(1, sizeof *ai);
  if (!ai) {
    error_set(err, ERR_RUNTIME, -1, "out of memory");
    return NULL;
  }
  if (!layout_plan_init(&ai->plan, s, err)) {
    free(ai);
    if (err) err->kind = ERR_RUNTIME;
    return NULL;
  }
  ai->shape = s;
  ai->etype = s->etype;
  ai->rank = s->rank;
  ai->dims = s->dims;
  ai->elements = ai->plan.elements;
  ai->esize = etype_storage_bytes(s->etype);
  ai->dense_bytes = ai->elements * ai->esize;
  ai->phys_bytes = ai->plan.physical_bytes;
  ai->space = s->layout.memory_space;
  ai->packed = ai->plan.packed_bits != 0;
  ai->identity = plan_is_identity(&ai->plan);
  if (!ai->identity) {
    Shape *ds = value_dense_shape(vc, s->etype, s->rank, s->dims, 0);
    ai->dense_plan = calloc(1, sizeof *ai->dense_plan);
    if (!ds || !ai->dense_plan || !layout_plan_init(ai->dense_plan, ds, err)) {
      free(ai->dense_plan);
      ai->dense_plan = NULL;
      info_free(ai);
      error_set(err, ERR_RUNTIME, -1, "out of memory");
      return NULL;
    }
  }
  if (!cache_put(vc, s, ai)) {
    info_free(ai);
    error_set(err, ERR_RUNTIME, -1, "out of memory");
    return NULL;
  }
  return ai;
}

Shape *value_dense_shape(ValueCtx *vc, EType t, int rank, const int64_t *dims, int64_t space) {
  Shape *s = arena_alloc(vc->arena, sizeof *s);
  if (!s) return NULL;
  s->etype = t;
  s->rank = rank;
  s->dims = arena_alloc_array(vc->arena, (size_t)(rank ? rank : 1), sizeof(int64_t));
  if (!s->dims) return NULL;
  if (rank) memcpy(s->dims, dims, sizeof(int64_t) * (size_t)rank);
  if (!shape_set_default_layout(vc->arena, s)) return NULL;
  s->layout.memory_space = space;
  return s;
}

/* --- buffers and values --- */

/* Value and Buffer structs are recycled through per-thread free lists: a
 * loop makes and drops several per iteration, and calloc/free were a good
 * part of its time.  Per thread, because the devices of a run are threads
 * (a struct freed by one device's thread is reused by that thread).  A
 * tuple's element pointers sit right after its Value; tuples of up to
 * VALUE_INLINE_ELEMS elements fit a recycled slot.  Under AddressSanitizer
 * nothing is recycled, so that it still sees every use after free. */
#if defined(__SANITIZE_ADDRESS__)
#define VALUE_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VALUE_POOL 0
#endif
#endif
#ifndef VALUE_POOL
#define VALUE_POOL 1
#endif

enum { VALUE_INLINE_ELEMS = 4, POOL_KEEP = 4096 };
#define VALUE_SLOT_BYTES (sizeof(Value) + VALUE_INLINE_ELEMS * sizeof(Value *))

typedef struct PoolSlot {
  struct PoolSlot *next;
} PoolSlot;
typedef struct Pool {
  PoolSlot *head;
  int n;
} Pool;
static _Thread_local Pool value_pool_, buffer_pool_;

static void *pool_take(Pool *p, size_t bytes) {
  if (VALUE_POOL && p->head) {
    PoolSlot *s = p->head;
    p->head = s->next;
    p->n--;
    return s;
  }
  return malloc(bytes);
}

static void pool_give(Pool *p, void *x) {
  if (!VALUE_POOL || p->n >= POOL_KEEP) {
    free(x);
    return;
  }
  PoolSlot *s = x;
  s->next = p->head;
  p->head = s;
  p->n++;
}

static void pool_drain(Pool *p) {
  while (p->head) {
    PoolSlot *s = p->head;
    p->head = s->next;
    free(s);
  }
  p->n = 0;
}

void value_pool_drain(void) {
  pool_drain(&value_pool_);
  pool_drain(&buffer_pool_);
}

/* A zeroed Value with one reference; a tuple (n elements) gets its element
 * array (never NULL, even when empty) after the struct. */
static Value *value_alloc(bool tuple, int n) {
  Value *v = n <= VALUE_INLINE_ELEMS
                 ? pool_take(&value_pool_, VALUE_SLOT_BYTES)
                 : malloc(sizeof(Value) + (size_t)n * sizeof(Value *));
  if (!v) return NULL;
  memset(v, 0, sizeof *v);
  v->refs = 1;
  if (tuple) {
    v->ntuple = n;
    v->elems = (Value **)(v + 1);
  }
  return v;
}

static void value_dealloc(Value *v) {
  if (v->ntuple <= VALUE_INLINE_ELEMS) pool_give(&value_pool_, v);
  else free(v);
}

static Buffer *buffer_alloc(void) {
  Buffer *b = pool_take(&buffer_pool_, sizeof(Buffer));
  if (b) memset(b, 0, sizeof *b);
  return b;
}

/* A space too full for nbytes: the error gets the largest buffers live in
 * it (the out-of-memory report, docs/report.md) and the tracker notes where
 * the run stopped. */
static void oom_listing(ValueCtx *vc, int64_t space, int64_t nbytes, Error *err) {
  MemSpace *s = mem_find(vc->mem, space);
  if (!err || !s || nbytes <= s->capacity - s->live) return; /* not a full space */
  MemTrack *t = vc->track;
  t->oom = true;
  t->oom_space = space;
  t->oom_bytes = nbytes;
  t->oom_instr = t->cur;
  StrBuf sb;
  sb_init(&sb);
  memtrack_oom_text(t, space, 5, &sb);
  if (!sb.oom && sb.len) {
    size_t used = strlen(err->msg), room = sizeof err->msg - 1 - used;
    size_t n = sb.len;
    if (n > room) { /* whole lines only: the largest come first */
      n = 0;
      for (size_t k = 0; k < room; k++)
        if (sb.data[k] == '\n') n = k;
    }
    memcpy(err->msg + used, sb.data, n);
    err->msg[used + n] = 0;
  }
  sb_free(&sb);
}

static bool buffer_new(ValueCtx *vc, const ArrayInfo *ai, int64_t space, int64_t nbytes, bool zero,
                       const char *who, Buffer **out, Error *err) {
  Buffer *b = buffer_alloc();
  if (!b) return error_set(err, ERR_RUNTIME, -1, "%s%sout of memory", MEM_WHO(who));
  b->refs = 1;
  b->space = space;
  b->nbytes = nbytes;
  if (vc->uncounted > 0) {
    /* Scratch is not accounted, but cannot be bigger than its space's room. */
    if (!mem_fits(vc->mem, space, nbytes, who, err)) {
      pool_give(&buffer_pool_, b);
      return false;
    }
    b->data = mem_raw_alloc(vc->mem, nbytes, zero);
    if (!b->data) {
      pool_give(&buffer_pool_, b);
      return error_set(err, ERR_RUNTIME, -1, "%s%sout of host memory (%" PRId64 " bytes)", MEM_WHO(who),
                       nbytes);
    }
  } else {
    if (!mem_alloc(vc->mem, space, nbytes, zero, who, &b->data, err)) {
      pool_give(&buffer_pool_, b);
      if (vc->track) oom_listing(vc, space, nbytes, err);
      return false;
    }
    b->counted = true;
    if (vc->track) memtrack_buffer_alloc(vc->track, vc->mem, b, ai);
  }
  *out = b;
  return true;
}

void buffer_unref(ValueCtx *vc, Buffer *b) {
  if (!b || --b->refs > 0) return;
  if (b->borrowed) {
    /* not ours */
  } else if (b->counted) {
    if (b->tracked) memtrack_buffer_release(vc->track, b);
    mem_release(vc->mem, b->space, b->data, b->nbytes);
  } else {
    mem_raw_free(vc->mem, b->data, b->nbytes);
  }
  pool_give(&buffer_pool_, b);
}

bool value_adopt(ValueCtx *vc, Value *v, const char *who, Error *err) {
  if (!v) return true;
  if (v->ntuple) {
    for (int i = 0; i < v->ntuple; i++)
      if (!value_adopt(vc, v->elems[i], who, err)) return false;
    return true;
  }
  Buffer *b = v->buf;
  if (!b || b->counted || b->borrowed) return true;
  /* Account the scratch buffer: allocate the accounting, keep the bytes. */
  if (!mem_charge(vc->mem, b->space, b->nbytes, who, err)) {
    if (vc->track) oom_listing(vc, b->space, b->nbytes, err);
    return false;
  }
  b->counted = true;
  if (vc->track) memtrack_buffer_alloc(vc->track, vc->mem, b, v->info);
  return true;
}

bool value_new_array(ValueCtx *vc, const Shape *s, bool zero, const char *who, Value **out,
                     Error *err) {
  *out = NULL;
  const ArrayInfo *ai = value_array_info(vc, s, err);
  if (!ai) return false;
  Value *v = value_alloc(false, 0);
  if (!v) return error_set(err, ERR_RUNTIME, -1, "%s%sout of memory", MEM_WHO(who));
  v->shape = s;
  v->info = ai;
  if (!buffer_new(vc, ai, ai->space, ai->phys_bytes, zero, who, &v->buf, err)) {
    value_dealloc(v);
    return false;
  }
  if (v->buf->counted) {
    ((ArrayInfo *)ai)->nallocs++;
    vc->nbuffers++;
    vc->alloc_logical_bytes += ai->plan.logical_bytes;
    vc->alloc_physical_bytes += ai->phys_bytes;
  }
  *out = v;
  return true;
}

Value *value_wrap_buffer(const Shape *s, const ArrayInfo *info, Buffer *buf) {
  Value *v = value_alloc(false, 0);
  if (!v) return NULL;
  v->shape = s;
  v->info = info;
  v->buf = buf;
  if (buf) buf->refs++;
  return v;
}

Value *value_wrap_external(const Shape *s, const ArrayInfo *info, void *data) {
  Buffer *b = buffer_alloc();
  if (!b) return NULL;
  b->refs = 1;
  b->space = info->space;
  b->nbytes = info->phys_bytes;
  b->borrowed = true;
  b->data = data;
  Value *v = value_wrap_buffer(s, info, b);
  b->refs--; /* value_wrap_buffer took its own reference */
  if (!v) pool_give(&buffer_pool_, b);
  return v;
}

Value *value_new_tuple(const Shape *s, int n, Value **elems) {
  Value *v = value_alloc(true, n);
  if (!v) return NULL;
  v->shape = s;
  if (n) memcpy(v->elems, elems, sizeof *elems * (size_t)n);
  return v;
}

Value *value_new_token(const Shape *s) {
  Value *v = value_alloc(false, 0);
  if (!v) return NULL;
  v->shape = s;
  return v;
}

void value_unref(ValueCtx *vc, Value *v) {
  if (!v || --v->refs > 0) return;
  for (int i = 0; i < v->ntuple; i++) value_unref(vc, v->elems[i]);
  free(v->dyn);
  buffer_unref(vc, v->buf);
  value_dealloc(v);
}

bool value_set_dyn(Value *v, const int64_t *sizes) {
  bool below = false;
  for (int d = 0; sizes && v->info && d < v->info->rank; d++) below |= sizes[d] != v->info->dims[d];
  if (!below) {
    free(v->dyn);
    v->dyn = NULL;
    return true;
  }
  if (!v->dyn) v->dyn = malloc(sizeof(int64_t) * (size_t)v->info->rank);
  if (!v->dyn) return false;
  if (v->dyn != sizes) memcpy(v->dyn, sizes, sizeof(int64_t) * (size_t)v->info->rank);
  return true;
}

void value_dense_valid(const Value *v, const void *dense, void *out) {
  const ArrayInfo *ai = v->info;
  int r = ai->rank;
  int64_t n = 1;
  for (int d = 0; d < r; d++) n *= value_dim_size(v, d);
  int64_t idx[SHAPE_MAX_RANK] = {0};
  for (int64_t i = 0; i < n; i++) {
    int64_t at = 0;
    for (int d = 0; d < r; d++) at = at * ai->dims[d] + idx[d];
    memcpy((char *)out + i * ai->esize, (const char *)dense + at * ai->esize, (size_t)ai->esize);
    for (int d = r - 1; d >= 0 && ++idx[d] == value_dim_size(v, d); d--) idx[d] = 0;
  }
}

bool value_has_dyn(const Value *v) {
  if (!v) return false;
  if (v->dyn) return true;
  for (int i = 0; i < v->ntuple; i++)
    if (value_has_dyn(v->elems[i])) return true;
  return false;
}

/* --- dense views --- */

/* Big temporaries reuse host blocks already faulted in (base/hostmem.h). */
static void *tmp_alloc(int64_t bytes) {
  bool zeroed;
  size_t n = bytes ? (size_t)bytes : 1;
  return n >= HOSTMEM_MIN ? hostmem_alloc(n, &zeroed) : malloc(n);
}

void value_tmp_free(DenseTmp *t) {
  if (!t->p) return; /* the usual case: no conversion, no lookup under hostmem's lock */
  if (!hostmem_free(t->p)) free(t->p);
  t->p = NULL;
}

/* v's buffer converted into a temporary of `bytes` laid out per plan. */
static bool read_converted(ValueCtx *vc, const Value *v, const LayoutPlan *plan, int64_t bytes,
                           const void **data, DenseTmp *tmp, Error *err) {
  void *t = tmp_alloc(bytes);
  if (!t) return error_set(err, ERR_RUNTIME, -1, "out of memory (%" PRId64 " bytes)", bytes);
  tmp->p = t;
  if (!layout_convert(plan, t, &v->info->plan, v->buf->data, err)) {
    value_tmp_free(tmp);
    return false;
  }
  vc->conversions++;
  vc->conversion_bytes += v->info->phys_bytes;
  *data = t;
  return true;
}

bool value_dense_read(ValueCtx *vc, const Value *v, const void **data, DenseTmp *tmp, Error *err) {
  const ArrayInfo *ai = v->info;
  tmp->p = NULL;
  if (ai->identity) {
    *data = v->buf->data;
    return true;
  }
  return read_converted(vc, v, ai->dense_plan, ai->dense_bytes, data, tmp, err);
}

void *value_take_dense(ValueCtx *vc, Value *v) {
  Buffer *b = v->buf;
  if (v->refs != 1 || v->dyn || !v->info || !v->info->identity || !b || b->refs != 1 ||
      !b->counted || b->borrowed || !b->data)
    return NULL;
  void *p = b->data;
  if (b->tracked) memtrack_buffer_release(vc->track, b);
  mem_detach(vc->mem, b->space, p, b->nbytes);
  b->data = NULL;
  b->borrowed = true; /* nothing left to free */
  return p;
}

bool value_read_as(ValueCtx *vc, const Value *v, const ArrayInfo *like, const void **data, DenseTmp *tmp,
                   Error *err) {
  const ArrayInfo *ai = v->info;
  tmp->p = NULL;
  if (ai->packed || like->packed || ai->esize != like->esize)
    return error_set(err, ERR_RUNTIME, -1, "value_read_as: element sizes differ");
  return read_converted(vc, v, &like->plan, like->plan.slots * ai->esize, data, tmp, err);
}

bool value_dense_target(ValueCtx *vc, Value *v, void **data, DenseTmp *tmp, Error *err) {
  (void)vc;
  const ArrayInfo *ai = v->info;
  tmp->p = NULL;
  if (ai->identity) {
    *data = v->buf->data;
    return true;
  }
  void *t = tmp_alloc(ai->dense_bytes);
  if (!t) return error_set(err, ERR_RUNTIME, -1, "out of memory (%" PRId64 " bytes)",
                           ai->dense_bytes);
  *data = t;
  tmp->p = t;
  return true;
}

bool value_dense_commit(ValueCtx *vc, Value *v, DenseTmp *tmp, Error *err) {
  if (!tmp->p) return true;
  const ArrayInfo *ai = v->info;
  bool ok = layout_convert(&ai->plan, v->buf->data, ai->dense_plan, tmp->p, err);
  vc->conversions++;
  vc->conversion_bytes += ai->phys_bytes;
  value_tmp_free(tmp);
  return ok;
}

bool value_from_dense(ValueCtx *vc, const Shape *s, const void *dense, const char *who,
                      Value **out, Error *err) {
  if (!value_new_array(vc, s, false, who, out, err)) return false;
  Value *v = *out;
  const ArrayInfo *ai = v->info;
  bool ok;
  if (ai->identity) {
    if (ai->dense_bytes) memcpy(v->buf->data, dense, (size_t)ai->dense_bytes);
    ok = true;
  } else {
    ok = layout_convert(&ai->plan, v->buf->data, ai->dense_plan, dense, err);
    vc->conversions++;
    vc->conversion_bytes += ai->phys_bytes;
  }
  if (!ok) {
    value_unref(vc, v);
    *out = NULL;
  }
  return ok;
}

static bool compute_pad_runs(ArrayInfo *ai) {
  LayoutIter it;
  layout_iter_init(&it, &ai->plan);
  int cap = 16, n = 0;
  int64_t *runs = malloc(sizeof(int64_t) * 2 * (size_t)cap);
  if (!runs) return false;
  while (layout_iter_next(&it)) {
    if (!it.padding) continue;
    if (n > 0 && runs[2 * (n - 1)] + runs[2 * (n - 1) + 1] == it.offset) {
      runs[2 * (n - 1) + 1]++;
      continue;
    }
    if (n == cap) {
      cap *= 2;
      int64_t *nr = realloc(runs, sizeof(int64_t) * 2 * (size_t)cap);
      if (!nr) {
        free(runs);
        return false;
      }
      runs = nr;
    }
    runs[2 * n] = it.offset;
    runs[2 * n + 1] = 1;
    n++;
  }
  ai->pad_runs = runs;
  ai->npad_runs = n;
  ai->pad_runs_ready = true;
  return true;
}

bool value_zero_padding(ValueCtx *vc, Value *v, Error *err) {
  (void)vc;
  ArrayInfo *ai = (ArrayInfo *)v->info;
  if (ai->identity || ai->plan.slots == ai->elements) return true;
  if (ai->packed) return error_set(err, ERR_RUNTIME, -1, "internal: padding of a packed layout");
  if (!ai->pad_runs_ready && !compute_pad_runs(ai))
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  unsigned char *p = v->buf->data;
  for (int i = 0; i < ai->npad_runs; i++)
    memset(p + ai->pad_runs[2 * i] * ai->esize, 0, (size_t)(ai->pad_runs[2 * i + 1] * ai->esize));
  return true;
}

/* --- coercion between layouts / spaces --- */

static bool same_arrangement(const Layout *a, const Layout *b) {
  Layout x = *a, y = *b;
  x.memory_space = y.memory_space = 0;
  return layout_equal(&x, &y);
}

bool value_coerce_is_identity(const Value *v, const Shape *s) {
  if (shape_is_tuple(s)) {
    if (v->ntuple != s->ntuple || !v->elems) return false;
    for (int i = 0; i < s->ntuple; i++)
      if (!value_coerce_is_identity(v->elems[i], &s->tuple[i])) return false;
    return true;
  }
  if (!shape_is_array(s) || !v->info) return true;
  /* Another Shape object with the same dims, element type, dynamic flags and
   * layout (space included) describes the same bytes. */
  return v->info->shape == s || shape_equal(v->info->shape, s);
}

bool value_coerce(ValueCtx *vc, Value *v, const Shape *s, const char *who, Value **out,
                  Error *err) {
  *out = NULL;
  if (value_coerce_is_identity(v, s)) {
    *out = value_ref(v);
    return true;
  }
  if (shape_is_tuple(s)) {
    if (v->ntuple != s->ntuple || !v->elems)
      return error_set(err, ERR_RUNTIME, -1, "%s%svalue is not a %d-tuple", MEM_WHO(who), s->ntuple);
    Value **el = calloc((size_t)(s->ntuple ? s->ntuple : 1), sizeof *el);
    if (!el) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    bool same = true;
    for (int i = 0; i < s->ntuple; i++) {
      if (!value_coerce(vc, v->elems[i], &s->tuple[i], who, &el[i], err)) {
        for (int j = 0; j < i; j++) value_unref(vc, el[j]);
        free(el);
        return false;
      }
      if (el[i] != v->elems[i]) same = false;
    }
    if (same) {
      for (int i = 0; i < s->ntuple; i++) value_unref(vc, el[i]);
      free(el);
      *out = value_ref(v);
      return true;
    }
    *out = value_new_tuple(s, s->ntuple, el);
    free(el);
    if (!*out) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    return true;
  }
  if (!shape_is_array(s) || !v->info) {
    *out = value_ref(v);
    return true;
  }
  const Shape *vs = v->info->shape;
  if (vs == s) {
    *out = value_ref(v);
    return true;
  }
  const ArrayInfo *ai = value_array_info(vc, s, err);
  if (!ai) return false;
  bool arr = same_arrangement(&vs->layout, &s->layout);
  if (arr && ai->space == v->info->space) {
    *out = value_wrap_buffer(s, ai, v->buf);
    if (!*out || !value_set_dyn(*out, v->dyn)) {
      value_unref(vc, *out);
      *out = NULL;
      return error_set(err, ERR_RUNTIME, -1, "out of memory");
    }
    return true;
  }
  Value *nv;
  if (!value_new_array(vc, s, false, who, &nv, err)) return false;
  bool ok = true;
  if (arr) {
    if (ai->phys_bytes) memcpy(nv->buf->data, v->buf->data, (size_t)ai->phys_bytes);
  } else {
    ok = layout_convert(&ai->plan, nv->buf->data, &v->info->plan, v->buf->data, err);
    vc->conversions++;
    vc->conversion_bytes += ai->phys_bytes;
  }
  if (ok && !value_set_dyn(nv, v->dyn)) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  if (!ok) {
    value_unref(vc, nv);
    return false;
  }
  *out = nv;
  return true;
}

const ArrayInfo *value_ctx_next_info(const ValueCtx *vc, int *pos) {
  while (*pos < vc->cap) {
    int i = (*pos)++;
    if (vc->keys[i]) return vc->vals[i];
  }
  return NULL;
}

int64_t value_phys_bytes(const Value *v) {
  if (!v) return 0;
  if (v->ntuple) {
    int64_t n = 0;
    for (int i = 0; i < v->ntuple; i++) n += value_phys_bytes(v->elems[i]);
    return n;
  }
  return v->info ? v->info->phys_bytes : 0;
}

bool value_build(ValueCtx *vc, const Shape *s, const char *desc, ValueLeafFn fn, void *ud,
                 Value **out, Error *err) {
  if (shape_is_tuple(s)) {
    Value **el = calloc((size_t)(s->ntuple ? s->ntuple : 1), sizeof *el);
    if (!el) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    for (int i = 0; i < s->ntuple; i++) {
      char sub[400];
      snprintf(sub, sizeof sub, "%s element {%d}", desc, i);
      if (!value_build(vc, &s->tuple[i], sub, fn, ud, &el[i], err)) {
        for (int j = 0; j < i; j++) value_unref(vc, el[j]);
        free(el);
        return false;
      }
    }
    *out = value_new_tuple(s, s->ntuple, el);
    free(el);
    return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  if (!value_shape_has_data(s)) {
    *out = value_new_token(s);
    return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  return fn(ud, s, desc, out, err);
}
