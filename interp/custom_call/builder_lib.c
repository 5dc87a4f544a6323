/* xla_builder.{matrix,prng,tridiagonal}.* custom calls (interp/custom_call/builder_lib.h):
 * each target works out the result shape the builder function would give,
 * checks it against the declared one, then runs its kernel on dense views. */
#include "interp/custom_call/builder_lib.h"

#include <stdio.h>
#include <string.h>

#include "interp/eval_views.h"
#include "kernels/k_einsum.h"
#include "kernels/k_movement.h"
#include "kernels/k_rng.h"
#include "kernels/k_tridiagonal.h"
#include "layout/etype_convert.h"

/* The expected result: element type and dims. */
typedef struct LibShape {
  EType etype;
  int rank;
  int64_t dims[SHAPE_MAX_RANK];
} LibShape;

typedef struct LibCall {
  const Instr *in;
  const char *target;
  const KArray *ins;
  int nin;
  KEinsumConfig einsum; /* Einsum only */
  KArray one;           /* unary Einsum: the scalar 1 standing for x */
  unsigned char one_data[16];
} LibCall;

typedef struct LibFn {
  const char *name;
  unsigned counts;         /* bit n set: n operands accepted */
  const char *counts_text; /* the same, for messages */
  bool (*shape)(LibCall *c, LibShape *s, Error *err);
  bool (*run)(LibCall *c, KArray *out, Error *err);
} LibFn;

/* Prefixes a kernel's message with the instruction and target. */
static bool named(const LibCall *c, Error *err) {
  char msg[sizeof err->msg];
  snprintf(msg, sizeof msg, "%s", err->msg);
  return error_set(err, ERR_RUNTIME, c->in->offset, "%s: %s",
                   c->target, msg);
}

static void shape_text(EType t, int rank, const int64_t *dims, char *buf, size_t size) {
  int w = snprintf(buf, size, "%s[", etype_name(t));
  for (int d = 0; d < rank && w > 0 && (size_t)w < size; d++)
    w += snprintf(buf + w, size - (size_t)w, "%s%lld", d ? "," : "", (long long)dims[d]);
  if (w > 0 && (size_t)w < size) snprintf(buf + w, size - (size_t)w, "]");
}

/* --- xla_builder.matrix.Einsum --- */

static bool einsum_shape(LibCall *c, LibShape *s, Error *err) {
  const Attr *a = ir_attr(c->in, ATTR_BACKEND_CONFIG);
  if (!a || (a->kind != AV_STRING && a->kind != AV_STRING_OR_RAW) || a->is_raw || !a->v.s)
    return error_set(err, ERR_RUNTIME, c->in->offset,
                     "%s needs the einsum config (\"ab,bc->ac\") as backend_config",
                     c->target);
  const KArray *x = &c->ins[0], *y = &c->ins[c->nin - 1];
  char config[1100];
  if (c->nin == 1) {
    /* The builder's unary Einsum(x, config) is Einsum(1, x, "," + config). */
    EType t = y->etype;
    memset(c->one_data, 0, sizeof c->one_data);
    if (etype_is_complex(t)) etype_store_complex(t, 1, 0, c->one_data);
    else if (etype_is_float(t)) etype_store_float(t, 1, c->one_data);
    else etype_store_int(t, 1, c->one_data);
    c->one = (KArray){t, 0, NULL, c->one_data};
    x = &c->one;
  }
  if (snprintf(config, sizeof config, "%s%s", c->nin == 1 ? "," : "", a->v.s) >= (int)sizeof config)
    return error_set(err, ERR_RUNTIME, c->in->offset, "einsum config too long");
  s->etype = y->etype;
  return (k_einsum_parse(config, x->rank, y->rank, &c->einsum, err) &&
          k_einsum_shape(&c->einsum, x, y, &s->rank, s->dims, err)) ||
         named(c, err);
}

static bool einsum_run(LibCall *c, KArray *out, Error *err) {
  const KArray *x = c->nin == 1 ? &c->one : &c->ins[0];
  return k_einsum(&c->einsum, x, &c->ins[c->nin - 1], out, err) || named(c, err);
}

/* --- xla_builder.matrix.GetMatrixDiagonalViaGather --- */

static bool diagonal_shape(LibCall *c, LibShape *s, Error *err) {
  const KArray *x = &c->ins[0];
  if (x->rank < 2)
    return error_set(err, ERR_RUNTIME, c->in->offset,
                     "%s needs an operand of rank >= 2, got rank %d",
                     c->target, x->rank);
  int64_t m = x->dims[x->rank - 2], n = x->dims[x->rank - 1];
  s->etype = x->etype;
  s->rank = x->rank - 1;
  memcpy(s->dims, x->dims, sizeof(int64_t) * (size_t)s->rank);
  s->dims[s->rank - 1] = m < n ? m : n;
  return true;
}

static bool diagonal_run(LibCall *c, KArray *out, Error *err) {
  (void)err;
  const KArray *x = &c->ins[0];
  int64_t xs[SHAPE_MAX_RANK], os[SHAPE_MAX_RANK];
  k_row_major_strides(x->dims, x->rank, xs);
  k_row_major_strides(out->dims, out->rank, os);
  xs[x->rank - 2] += xs[x->rank - 1]; /* element [..., i, i] */
  k_strided_copy(out->data, os, x->data, xs, out->dims, out->rank, (size_t)etype_storage_bytes(x->etype));
  return true;
}

/* --- xla_builder.prng.ScramblePhiloxKey --- */

static bool scramble_shape(LibCall *c, LibShape *s, Error *err) {
  const KArray *k = &c->ins[0];
  if (!etype_is_int(k->etype))
    return error_set(err, ERR_RUNTIME, c->in->offset,
                     "%s needs an integer key, got %s", c->target,
                     etype_name(k->etype));
  s->etype = ET_U64;
  s->rank = k->rank;
  if (k->rank) memcpy(s->dims, k->dims, sizeof(int64_t) * (size_t)k->rank);
  return true;
}

static bool scramble_run(LibCall *c, KArray *out, Error *err) {
  const KArray *k = &c->ins[0];
  int64_t n;
  if (!k_num_elements(k->rank, k->dims, &n, err)) return named(c, err);
  int es = etype_storage_bytes(k->etype), bits = etype_bits(k->etype);
  uint64_t *o = out->data;
  for (int64_t i = 0; i < n; i++) {
    /* The builder converts the key to u32 (low word) and shifts it right
     * by 32 (high word: 0 for keys narrower than 64 bits). */
    uint64_t v = (uint64_t)etype_load_i64(k->etype, (const char *)k->data + i * es);
    o[i] = k_scramble_philox_key(bits == 64 ? v : (uint32_t)v);
  }
  return true;
}

/* --- xla_builder.tridiagonal.TridiagonalSolver --- */

static bool tridiagonal_shape(LibCall *c, LibShape *s, Error *err) {
  (void)err;
  const KArray *rhs = &c->ins[c->nin - 1];
  s->etype = rhs->etype;
  s->rank = rhs->rank;
  if (rhs->rank) memcpy(s->dims, rhs->dims, sizeof(int64_t) * (size_t)rhs->rank);
  return true;
}

static bool tridiagonal_run(LibCall *c, KArray *out, Error *err) {
  KTridiagonal t;
  if (c->nin == 2) /* diagonals [..., 3, M]: rows upper, main, lower */
    t = (KTridiagonal){{&c->ins[0], &c->ins[0], &c->ins[0]}, {2, 1, 0}, true};
  else
    t = (KTridiagonal){{&c->ins[0], &c->ins[1], &c->ins[2]}, {0, 0, 0}, false};
  return k_tridiagonal_solve(&t, &c->ins[c->nin - 1], out, err) || named(c, err);
}

static const LibFn lib_fns[] = {
    {"xla_builder.matrix.Einsum", 1u << 1 | 1u << 2, "1 or 2", einsum_shape, einsum_run},
    {"xla_builder.matrix.GetMatrixDiagonalViaGather", 1u << 1, "1", diagonal_shape, diagonal_run},
    {"xla_builder.prng.ScramblePhiloxKey", 1u << 1, "1", scramble_shape, scramble_run},
    {"xla_builder.tridiagonal.TridiagonalSolver", 1u << 2 | 1u << 4, "2 or 4", tridiagonal_shape,
     tridiagonal_run},
};

static const LibFn *lookup(const char *target) {
  for (size_t i = 0; i < sizeof lib_fns / sizeof lib_fns[0]; i++)
    if (!strcmp(target, lib_fns[i].name)) return &lib_fns[i];
  return NULL;
}

bool eval_builder_lib_known(const char *target) { return lookup(target) != NULL; }

bool eval_builder_lib(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                      const Shape *rs, Value **out, Error *err) {
  const LibFn *f = lookup(target);
  if (!f) return error_set(err, ERR_RUNTIME, in->offset, "unknown target %s", target);
  bool count_ok = in->noperands >= 0 && in->noperands < 32 && (f->counts >> in->noperands & 1);
  if (!count_ok || !shape_is_array(rs))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "%s takes %s array operand(s) and returns one array, got %d "
                     "operand(s)%s",
                     target, f->counts_text, in->noperands,
                     shape_is_array(rs) ? "" : " and a non-array result");
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = true;
  for (int i = 0; i < in->noperands && ok; i++) {
    const Value *v = frame_operand(fr, in, i);
    ok = v->info ? eval_view(ctx, &vs, v, in, err)
                 : error_set(err, ERR_RUNTIME, in->offset, "%s: operand %d is not an array",
                             target, i);
  }
  LibCall c = {.in = in, .target = target, .ins = vs.a, .nin = in->noperands};
  LibShape s = {0};
  ok = ok && f->shape(&c, &s, err);
  if (ok && (s.etype != rs->etype || s.rank != rs->rank ||
             (s.rank && memcmp(s.dims, rs->dims, sizeof(int64_t) * (size_t)s.rank)))) {
    char want[256], got[256];
    shape_text(s.etype, s.rank, s.dims, want, sizeof want);
    shape_text(rs->etype, rs->rank, rs->dims, got, sizeof got);
    ok = error_set(err, ERR_RUNTIME, in->offset,
                   "%s gives %s here, but the instruction declares %s",
                   target, want, got);
  }
  ok = ok && eval_outs_new(ctx, in, rs, &o, err) && f->run(&c, &o.a[0], err);
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}
