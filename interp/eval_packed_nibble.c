/* packed_nibble products: split each operand into its two 4-bit halves
 * and sum the two products (see eval_packed_nibble.h). */
#include "interp/eval_packed_nibble.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernels/kernels.h"

int eval_packed_nibble_count(const Instr *in) {
  const Attr *a = ir_attr(in, ATTR_OPERAND_PRECISION);
  if (!a || a->kind != AV_ENUM_LIST) return 0;
  int n = 0;
  for (int i = 0; i < a->v.enums.n; i++)
    if (strcasecmp(a->v.enums.v[i], "packed_nibble") == 0) n++;
  return n;
}

static int64_t elements_of(const KArray *a) {
  int64_t n = 1;
  for (int d = 0; d < a->rank; d++) n *= a->dims[d];
  return n;
}

/* n copies of the shift amount 4 in type t (k_binary shifts elementwise). */
static void *fours(EType t, int64_t n, Error *err) {
  size_t es = (size_t)k_elem_size(t);
  char *buf = malloc((size_t)(n ? n : 1) * es);
  const int64_t four = 4;
  if (!buf) {
    error_set(err, ERR_RUNTIME, -1, "out of memory");
    return NULL;
  }
  if (!k_convert(t, buf, ET_S64, &four, 1, err)) {
    free(buf);
    return NULL;
  }
  for (int64_t i = 1; i < n; i++) memcpy(buf + (size_t)i * es, buf, es);
  return buf;
}

/* The low and high nibbles of src, each converted to type rt, into
 * halves[0] and halves[1] (arrays the caller frees). */
static bool split(const Instr *in, const KArray *src, EType rt, void *halves[2], Error *err) {
  EType t = src->etype;
  if (!etype_is_int(t))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "packed_nibble needs integer operands, not %s",
                     etype_name(t));
  int64_t n = elements_of(src);
  size_t es = (size_t)k_elem_size(t), rs = (size_t)k_elem_size(rt);
  KBinaryOp shr = etype_kind(t) == EK_SINT ? KB_SHR_ARITH : KB_SHR_LOGICAL;
  void *four = fours(t, n, err);
  char *tmp = malloc((size_t)(n ? n : 1) * es), *half = malloc((size_t)(n ? n : 1) * es);
  halves[0] = malloc((size_t)(n ? n : 1) * rs);
  halves[1] = malloc((size_t)(n ? n : 1) * rs);
  bool ok = four && tmp && half && halves[0] && halves[1];
  if (!ok && four) error_set(err, ERR_RUNTIME, -1, "out of memory");
  ok = ok && k_binary(KB_SHL, t, tmp, src->data, four, n, err) &&
       k_binary(shr, t, half, tmp, four, n, err) && k_convert(rt, halves[0], t, half, n, err) &&
       k_binary(shr, t, half, src->data, four, n, err) && k_convert(rt, halves[1], t, half, n, err);
  free(four);
  free(tmp);
  free(half);
  if (!ok) {
    free(halves[0]);
    free(halves[1]);
    halves[0] = halves[1] = NULL;
  }
  return ok;
}

bool eval_packed_nibble_product(const Instr *in, const KArray *lhs, const KArray *rhs,
                                NibbleProductFn fn, const void *arg, KArray *out, Error *err) {
  if (eval_packed_nibble_count(in) != 2)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "packed_nibble must be given for both operands");
  EType rt = out->etype;
  if (!etype_is_int(rt))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "packed_nibble needs an integer result, not %s",
                     etype_name(rt));
  void *l[2] = {NULL, NULL}, *r[2] = {NULL, NULL};
  int64_t n = elements_of(out);
  size_t rs = (size_t)k_elem_size(rt);
  char *high = NULL, *sum = NULL;
  bool ok = split(in, lhs, rt, l, err) && split(in, rhs, rt, r, err);
  if (ok) {
    high = malloc((size_t)(n ? n : 1) * rs);
    sum = malloc((size_t)(n ? n : 1) * rs);
    if (!high || !sum) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  if (ok) {
    KArray ll = {rt, lhs->rank, lhs->dims, l[0]}, lr = {rt, rhs->rank, rhs->dims, r[0]};
    KArray hl = {rt, lhs->rank, lhs->dims, l[1]}, hr = {rt, rhs->rank, rhs->dims, r[1]};
    KArray ho = {rt, out->rank, out->dims, high};
    ok = fn(&ll, &lr, arg, out, err) && fn(&hl, &hr, arg, &ho, err) &&
         k_binary(KB_ADD, rt, sum, out->data, high, n, err);
    if (ok) memcpy(out->data, sum, (size_t)n * rs);
  }
  free(l[0]);
  free(l[1]);
  free(r[0]);
  free(r[1]);
  free(high);
  free(sum);
  return ok;
}
