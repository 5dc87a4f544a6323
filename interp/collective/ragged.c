/* ragged-all-to-all over a group's dense operands
 * (interp/collective/ragged.h). */
#include "interp/collective/ragged.h"

#include <inttypes.h>
#include <string.h>

#include "layout/etype.h"

enum { OP_INPUT, OP_OUTPUT, OP_INPUT_OFFSETS, OP_SEND_SIZES, OP_OUTPUT_OFFSETS, OP_RECV_SIZES };

static const char *const index_names[] = {"", "", "input_offsets", "send_sizes",
                                          "output_offsets", "recv_sizes"};

static int64_t at(const KArray *a, int64_t k) {
  switch (a->etype) {
  case ET_S8: return ((const int8_t *)a->data)[k];
  case ET_S16: return ((const int16_t *)a->data)[k];
  case ET_S32: return ((const int32_t *)a->data)[k];
  case ET_S64: return ((const int64_t *)a->data)[k];
  case ET_U8: return ((const uint8_t *)a->data)[k];
  case ET_U16: return ((const uint16_t *)a->data)[k];
  case ET_U32: return ((const uint32_t *)a->data)[k];
  case ET_U64: {
    uint64_t v = ((const uint64_t *)a->data)[k];
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
  }
  default: return -1; /* rejected by check_shapes */
  }
}

static bool supported_index_type(EType t) {
  switch (t) {
  case ET_S8: case ET_S16: case ET_S32: case ET_S64:
  case ET_U8: case ET_U16: case ET_U32: case ET_U64:
    return true;
  default: return false;
  }
}

/* Shapes of one member's operands; *total = T, *row_bytes. */
static bool check_shapes(const Instr *in, const KArray *ops, int64_t *total, size_t *row_bytes,
                         Error *err) {
  const KArray *x = &ops[OP_INPUT], *o = &ops[OP_OUTPUT];
  if (x->etype != o->etype || x->rank != o->rank || x->rank < 1)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "input and output must be arrays of one type and rank >= 1");
  int64_t row = 1;
  for (int d = 1; d < x->rank; d++) {
    if (x->dims[d] != o->dims[d])
      return error_set(err, ERR_RUNTIME, in->offset,
                       "input and output rows differ in dimension %d (%" PRId64
                       " vs %" PRId64 ")",
                       d, x->dims[d], o->dims[d]);
    row *= x->dims[d];
  }
  *row_bytes = (size_t)row * (size_t)k_elem_size(x->etype);
  for (int i = OP_INPUT_OFFSETS; i <= OP_RECV_SIZES; i++) {
    const KArray *a = &ops[i];
    if (a->rank != 1 || !supported_index_type(a->etype))
      return error_set(err, ERR_RUNTIME, in->offset,
                       "%s must be an integer vector", index_names[i]);
    if (i == OP_INPUT_OFFSETS) *total = a->dims[0];
    if (a->dims[0] != *total)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "%s has %" PRId64 " entries, input_offsets %" PRId64,
                       index_names[i], a->dims[0], *total);
  }
  return true;
}

/* Rows [start, start + size) within [0, limit). */
static bool in_range(int64_t start, int64_t size, int64_t limit) {
  return start >= 0 && size >= 0 && start <= limit && size <= limit - start;
}

bool collective_ragged_all_to_all(const Instr *in, const CollectiveInputs *g, KArray *out,
                                  Error *err) {
  if (g->nops != 6)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "ragged-all-to-all takes 6 operands (input, output, "
                     "input_offsets, send_sizes, output_offsets, recv_sizes), got %d",
                     g->nops);
  const KArray *mine = g->ops[g->me];
  int64_t total;
  size_t row_bytes;
  if (!check_shapes(in, mine, &total, &row_bytes, err)) return false;
  const KArray *o = &mine[OP_OUTPUT];
  bool same = out->etype == o->etype && out->rank == o->rank;
  for (int d = 0; same && d < o->rank; d++) same = out->dims[d] == o->dims[d];
  if (!same)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "the result must have the output operand's shape");
  if (g->n < 1 || total % g->n != 0)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "%" PRId64 " offsets do not split evenly over a group of %d",
                     total, g->n);
  int64_t per_peer = total / g->n, out_rows = o->dims[0];
  if (row_bytes && out_rows) memcpy(out->data, o->data, (size_t)out_rows * row_bytes);
  for (int j = 0; j < g->n; j++) {
    const KArray *theirs = g->ops[j];
    int64_t their_total;
    size_t their_row;
    if (!check_shapes(in, theirs, &their_total, &their_row, err)) return false;
    if (their_total != total || their_row != row_bytes)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "group member %d's operands differ in shape from this "
                       "device's",
                       j);
    int64_t in_rows = theirs[OP_INPUT].dims[0];
    for (int64_t i = 0; i < per_peer; i++) {
      int64_t k = (int64_t)g->me * per_peer + i;
      int64_t src = at(&theirs[OP_INPUT_OFFSETS], k), rows = at(&theirs[OP_SEND_SIZES], k);
      int64_t dst = at(&theirs[OP_OUTPUT_OFFSETS], k);
      int64_t expect = at(&mine[OP_RECV_SIZES], (int64_t)j * per_peer + i);
      if (!in_range(src, rows, in_rows))
        return error_set(err, ERR_RUNTIME, in->offset,
                         "group member %d sends input rows [%" PRId64 ", %" PRId64
                         " + %" PRId64 ") (input_offsets[%" PRId64 "], send_sizes[%" PRId64
                         "]) outside its %" PRId64 " input rows",
                         j, src, src, rows, k, k, in_rows);
      if (!in_range(dst, rows, out_rows))
        return error_set(err, ERR_RUNTIME, in->offset,
                         "group member %d writes %" PRId64
                         " rows at output_offsets[%" PRId64 "] = %" PRId64
                         ", outside this device's %" PRId64 " output rows",
                         j, rows, k, dst, out_rows);
      if (expect != rows)
        return error_set(err, ERR_RUNTIME, in->offset,
                         "recv_sizes[%" PRId64 "] = %" PRId64
                         " but group member %d sends %" PRId64 " rows",
                         (int64_t)j * per_peer + i, expect, j, rows);
      if (rows && row_bytes)
        memcpy((char *)out->data + (size_t)dst * row_bytes,
               (const char *)theirs[OP_INPUT].data + (size_t)src * row_bytes,
               (size_t)rows * row_bytes);
    }
  }
  return true;
}
