/* __cub$DeviceRadixSort(keys[, values]) -> (keys', [values',] u8[N]
 * scratch), the custom call XLA:GPU's sort_rewriter puts in place of a sort
 * along the minor dimension whose comparator is one compare of the key
 * pair: every row (all dimensions but the last) is sorted by key, stably,
 * ascending or -- SortOptions {"descending": true} -- descending, values
 * carried along; the scratch is zeroed.  Keys order as CUB's radix sort
 * orders them: integers by value, floats with -0.0 and +0.0 equal (kept in
 * input order), negative NaNs before -inf and positive NaNs after +inf. */
#include "interp/custom_call/cub_sort.h"

#include <stdlib.h>
#include <string.h>

#include "interp/custom_call/backend_json.h"
#include "interp/custom_call/backend_schemas.h"
#include "interp/eval_views.h"
#include "layout/etype_convert.h"

typedef struct SortItem {
  uint64_t key; /* order-preserving image of the key */
  int64_t index;
} SortItem;

/* n leading sizes equal (dims may be NULL when n is 0). */
static bool dims_eq(const int64_t *a, const int64_t *b, int n) {
  return n <= 0 || !memcmp(a, b, sizeof(int64_t) * (size_t)n);
}

static int cmp_asc(const void *a, const void *b) {
  const SortItem *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

static int cmp_desc(const void *a, const void *b) {
  const SortItem *x = a, *y = b;
  if (x->key != y->key) return x->key > y->key ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* The radix image of one key: floats through f64 bits (sign-magnitude to
 * two's-complement order, -0 made +0), signed integers with the sign bit
 * flipped, unsigned ones as they are. */
static uint64_t radix_key(EType t, const void *p) {
  const uint64_t top = (uint64_t)1 << 63;
  if (etype_is_float(t)) {
    double v = etype_load_f64(t, p);
    if (v == 0) v = 0.0;
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b & top ? ~b : b ^ top;
  }
  uint64_t u = (uint64_t)etype_load_i64(t, p);
  return etype_kind(t) == EK_SINT ? u ^ top : u;
}

static bool sort_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                        int nouts, Error *err) {
  bool descending = *(const bool *)arg;
  int nvals = nouts - 1;
  const KArray *k = &ins[0];
  bool ok = k->rank >= 1 && (etype_is_float(k->etype) || etype_is_int(k->etype));
  for (int i = 0; i < nvals && ok; i++)
    ok = ins[i].rank == k->rank && outs[i].rank == k->rank && outs[i].etype == ins[i].etype &&
         dims_eq(ins[i].dims, k->dims, k->rank) && dims_eq(outs[i].dims, k->dims, k->rank);
  if (!ok)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "__cub$DeviceRadixSort takes integer or float keys (and "
                     "values of their shape) and returns them sorted with a u8 scratch");
  int64_t n = k->dims[k->rank - 1], rows = 1;
  for (int d = 0; d < k->rank - 1; d++) rows *= k->dims[d];
  int64_t sn = 1;
  for (int d = 0; d < outs[nvals].rank; d++) sn *= outs[nvals].dims[d];
  if (sn > 0) memset(outs[nvals].data, 0, (size_t)sn * (size_t)etype_storage_bytes(outs[nvals].etype));
  SortItem *items = malloc((size_t)(n ? n : 1) * sizeof *items);
  if (!items) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  int ks = etype_storage_bytes(k->etype);
  for (int64_t r = 0; r < rows; r++) {
    for (int64_t j = 0; j < n; j++)
      items[j] = (SortItem){radix_key(k->etype, (const char *)k->data + (r * n + j) * ks), j};
    qsort(items, (size_t)n, sizeof *items, descending ? cmp_desc : cmp_asc);
    for (int i = 0; i < nvals; i++) {
      int es = etype_storage_bytes(ins[i].etype);
      const char *src = (const char *)ins[i].data + r * n * es;
      char *dst = (char *)outs[i].data + r * n * es;
      for (int64_t j = 0; j < n; j++) memcpy(dst + j * es, src + items[j].index * es, (size_t)es);
    }
  }
  free(items);
  return true;
}

bool eval_cub_sort(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                   Error *err) {
  if ((in->noperands != 1 && in->noperands != 2) || !shape_is_tuple(rs) ||
      rs->ntuple != in->noperands + 1)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "__cub$DeviceRadixSort takes keys (and values) and returns "
                     "(keys, [values,] scratch)");
  BackendConfig bc;
  if (!backend_config_read(in, "__cub$DeviceRadixSort", &SCHEMA_SORT, NULL, NULL, &bc, err))
    return false;
  bool descending = bc_bool(&bc, "descending");
  backend_config_free(&bc);
  return eval_kernel_op(ctx, fr, in, rs, in->noperands, sort_kernel, &descending, out, err);
}
