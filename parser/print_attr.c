/* Attribute values and the order XLA prints attributes in
 * (HloInstruction::PrintExtraAttributes and the subclasses'
 * PrintExtraAttributesImpl; HloModule::Print for the header). */
#include <ctype.h>
#include <string.h>

#include "layout/etype_convert.h"
#include "parser/print.h"
#include "parser/print_internal.h"

/* ---------- canonical order ----------
 * One order satisfies every opcode: instruction-specific attributes (e.g.
 * dot: lhs_batch_dims, lhs_contracting_dims, rhs_batch_dims,
 * rhs_contracting_dims, operand_precision, algorithm), then the called
 * computations, then the generic ones (sharding ... backend_config).  The
 * one exception: reduce-scatter prints dimensions after
 * use_global_device_ids, all-gather before it. */
#define PRINT_ORDER(X)                                                              \
  X(ASYNC_EXECUTION_THREAD) X(FFT_TYPE) X(FFT_LENGTH) X(CROSS_PROGRAM_PREFETCH_INDEX) \
  X(DIRECTION) X(TYPE) X(K) X(LARGEST) X(CHANNEL_ID) X(IS_HOST_TRANSFER)            \
  X(REPLICA_GROUPS) X(CONSTRAIN_LAYOUT) X(DIMENSIONS) X(USE_GLOBAL_DEVICE_IDS)       \
  X(SOURCE_TARGET_PAIRS) X(IS_STABLE) X(NUM_CARRIES) X(IS_REVERSE) X(IS_ASSOCIATIVE) \
  X(INFERRED_DIMENSION) X(SLICE) X(KIND)                                            \
  X(DISTRIBUTION) X(PARAMETER_REPLICATION) X(INDEX) X(EXPONENT_BITS)                \
  X(MANTISSA_BITS) X(WINDOW) X(DIM_LABELS) X(FEATURE_GROUP_COUNT)                   \
  X(BATCH_GROUP_COUNT) X(LHS_BATCH_DIMS) X(LHS_CONTRACTING_DIMS) X(RHS_BATCH_DIMS)   \
  X(RHS_CONTRACTING_DIMS) X(LHS_RAGGED_DIMS) X(RHS_GROUP_DIMS)                      \
  X(OPERAND_PRECISION) X(ALGORITHM) X(SPARSITY) X(PADDING_TYPE)                     \
  X(CUSTOM_CALL_TARGET) X(OPERAND_LAYOUT_CONSTRAINTS)                               \
  X(CUSTOM_CALL_HAS_SIDE_EFFECT) X(LITERAL) X(OUTPUT_TO_OPERAND_ALIASING)           \
  X(SCHEDULE) X(API_VERSION) X(PADDING) X(DYNAMIC_SLICE_SIZES) X(OFFSET_DIMS)       \
  X(COLLAPSED_SLICE_DIMS) X(START_INDEX_MAP) X(OPERAND_BATCHING_DIMS)              \
  X(START_INDICES_BATCHING_DIMS) X(UPDATE_WINDOW_DIMS) X(INSERTED_WINDOW_DIMS)     \
  X(SCATTER_DIMS_TO_OPERAND_DIMS) X(INPUT_BATCHING_DIMS)                            \
  X(SCATTER_INDICES_BATCHING_DIMS) X(INDEX_VECTOR_DIM) X(SLICE_SIZES)               \
  X(INDICES_ARE_SORTED) X(UNIQUE_INDICES) X(IOTA_DIMENSION) X(EPSILON)             \
  X(FEATURE_INDEX) X(LEFT_SIDE) X(LOWER) X(UNIT_DIAGONAL) X(TRANSPOSE_A)           \
  X(INFEED_CONFIG) X(OUTFEED_SHAPE) X(OUTFEED_CONFIG) X(DOMAIN) X(DELTA)           \
  X(TO_APPLY) X(IS_COMPOSITE) X(CONDITION) X(BODY) X(SELECT) X(SCATTER)            \
  X(TRUE_COMPUTATION) X(FALSE_COMPUTATION) X(BRANCH_COMPUTATIONS)                   \
  X(CALLED_COMPUTATIONS) X(CALLS) X(SHARDING) X(FRONTEND_ATTRIBUTES)               \
  X(CONTROL_PREDECESSORS) X(STATISTICS) X(RESULT_ACCURACY) X(ORIGIN) X(METADATA)    \
  X(BACKEND_CONFIG)

enum {
#define PRINT_RANK(key) PRINT_RANK_##key,
  PRINT_ORDER(PRINT_RANK)
#undef PRINT_RANK
  PRINT_RANK_UNLISTED
};

/* Position + 1 (0 = not listed). */
static const unsigned char attr_rank[ATTR_COUNT] = {
#define PRINT_RANK(key) [ATTR_##key] = PRINT_RANK_##key + 1,
    PRINT_ORDER(PRINT_RANK)
#undef PRINT_RANK
};

int print_attr_order(AttrKey key) {
  if ((unsigned)key >= ATTR_COUNT || !attr_rank[key]) return -1;
  return attr_rank[key] - 1;
}

static Opcode effective_opcode(const Instr *in) {
  return in->wrapped_op != OP_INVALID ? in->wrapped_op : in->op;
}

/* Sort key; odd values slot in between two listed keys. */
static int attr_sort_key(const Instr *in, const Attr *a) {
  if (a->key == ATTR_DIMENSIONS && effective_opcode(in) == OP_REDUCE_SCATTER)
    return 2 * PRINT_RANK_USE_GLOBAL_DEVICE_IDS + 1;
  int order = print_attr_order(a->key);
  return 2 * (order < 0 ? PRINT_RANK_UNLISTED : order);
}

/* ---------- values ---------- */

/* "1,2,3" */
static void print_int_seq(StrBuf *sb, const int64_t *v, int n) {
  for (int i = 0; i < n; i++) sb_printf(sb, i ? ",%lld" : "%lld", (long long)v[i]);
}

static void print_int_list(StrBuf *sb, const IntList *l) {
  sb_putc(sb, '{');
  print_int_seq(sb, l->v, l->n);
  sb_putc(sb, '}');
}

/* "{{0,1},{2,3}}" */
static void print_int_list_list(StrBuf *sb, const IntList *lists, int n) {
  sb_putc(sb, '{');
  for (int i = 0; i < n; i++) {
    if (i) sb_putc(sb, ',');
    print_int_list(sb, &lists[i]);
  }
  sb_putc(sb, '}');
}

static void print_int_lists(StrBuf *sb, const IntLists *l) {
  if (l->depth == 2)
    print_int_list_list(sb, l->lists, l->n);
  else
    print_int_list(sb, &l->flat);
}

static void print_slice(StrBuf *sb, const SliceDim *dims, int n) {
  bool strided = false;
  for (int i = 0; i < n; i++) strided |= dims[i].stride != 1;
  sb_putc(sb, '{');
  for (int i = 0; i < n; i++) {
    sb_printf(sb, "%s[%lld:%lld", i ? ", " : "", (long long)dims[i].start,
              (long long)dims[i].limit);
    if (strided) sb_printf(sb, ":%lld", (long long)dims[i].stride);
    sb_putc(sb, ']');
  }
  sb_putc(sb, '}');
}

/* PaddingConfigToString: interior printed for all dims iff any is non-zero. */
static void print_padding(StrBuf *sb, const PadDim *dims, int n) {
  bool interior = false;
  for (int i = 0; i < n; i++) interior |= dims[i].interior != 0;
  for (int i = 0; i < n; i++) {
    sb_printf(sb, "%s%lld_%lld", i ? "x" : "", (long long)dims[i].lo, (long long)dims[i].hi);
    if (interior) sb_printf(sb, "_%lld", (long long)dims[i].interior);
  }
}

/* window_util::ToString: size always, the others only when some dimension
 * differs from the default. */
typedef enum { WF_SIZE, WF_STRIDE, WF_PAD, WF_LHS_DILATE, WF_RHS_DILATE, WF_REVERSAL, WF_COUNT } WindowField;

static const char *const window_field_names[WF_COUNT] = {
    "size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal"};

static bool window_dim_is_default(const WindowDim *d, WindowField f) {
  switch (f) {
    case WF_SIZE: return false;
    case WF_STRIDE: return d->stride == 1;
    case WF_PAD: return d->pad_lo == 0 && d->pad_hi == 0;
    case WF_LHS_DILATE: return d->lhs_dilate == 1;
    case WF_RHS_DILATE: return d->rhs_dilate == 1;
    default: return !d->reversal;
  }
}

static void print_window_value(StrBuf *sb, const WindowDim *d, WindowField f) {
  switch (f) {
    case WF_SIZE: sb_printf(sb, "%lld", (long long)d->size); break;
    case WF_STRIDE: sb_printf(sb, "%lld", (long long)d->stride); break;
    case WF_PAD: sb_printf(sb, "%lld_%lld", (long long)d->pad_lo, (long long)d->pad_hi); break;
    case WF_LHS_DILATE: sb_printf(sb, "%lld", (long long)d->lhs_dilate); break;
    case WF_RHS_DILATE: sb_printf(sb, "%lld", (long long)d->rhs_dilate); break;
    default: sb_putc(sb, d->reversal ? '1' : '0'); break;
  }
}

static void print_window(StrBuf *sb, const Window *w) {
  sb_putc(sb, '{');
  bool first = true;
  for (int f = 0; f < WF_COUNT && w->rank > 0; f++) {
    bool shown = false;
    for (int i = 0; i < w->rank; i++) shown |= !window_dim_is_default(&w->dims[i], (WindowField)f);
    if (!shown) continue;
    sb_printf(sb, "%s%s=", first ? "" : " ", window_field_names[f]);
    first = false;
    for (int i = 0; i < w->rank; i++) {
      if (i) sb_putc(sb, 'x');
      print_window_value(sb, &w->dims[i], (WindowField)f);
    }
  }
  sb_putc(sb, '}');
}

/* "[G,S]<=[d0,d1]T(p0,p1)" (T present iff the reshape has > 1 dims) or the
 * explicit "{{0,1},{2,3}}". */
static void print_replica_groups(StrBuf *sb, const ReplicaGroups *g) {
  if (!g->iota) {
    print_int_list_list(sb, g->groups, g->ngroups);
    return;
  }
  sb_printf(sb, "[%lld,%lld]<=[", (long long)g->iota_groups, (long long)g->iota_group_size);
  print_int_seq(sb, g->iota_reshape.v, g->iota_reshape.n);
  sb_putc(sb, ']');
  if (g->iota_reshape.n <= 1) return;
  sb_puts(sb, "T(");
  if (g->iota_perm.n == g->iota_reshape.n)
    print_int_seq(sb, g->iota_perm.v, g->iota_perm.n);
  else
    for (int i = 0; i < g->iota_reshape.n; i++) sb_printf(sb, i ? ",%d" : "%d", i);
  sb_putc(sb, ')');
}

/* XLA keeps epsilon as an f32 and prints it shortest-round-trip. */
static void print_float_attr(StrBuf *sb, double v) {
  float f;
  if (etype_store_float(ET_F32, v, &f))
    print_float_value(sb, ET_F32, &f);
  else
    sb_printf(sb, "%.17g", v);
}

/* Keys whose enum values XLA reads in any case and prints in one case. */
static int enum_case(AttrKey key) {
  switch (key) {
    case ATTR_DISTRIBUTION:
    case ATTR_ALGORITHM:
    case ATTR_OPERAND_PRECISION: return -1; /* lower */
    case ATTR_SCHEDULE:
    case ATTR_API_VERSION: return 1; /* upper */
    default: return 0; /* as written */
  }
}

static void print_enum(StrBuf *sb, AttrKey key, const char *s) {
  int mode = enum_case(key);
  for (const char *p = s ? s : ""; *p; p++) {
    int c = (unsigned char)*p;
    sb_putc(sb, (char)(mode < 0 ? tolower(c) : mode > 0 ? toupper(c) : c));
  }
}

/* Does a backend_config string read back as a raw {...} value?  It must
 * start with '{' and its matching '}' (braces in "..." not counted) must be
 * its last byte; XLA then prints it unquoted. */
static bool lexes_as_json_dict(const char *s) {
  if (!s || s[0] != '{') return false;
  int depth = 0;
  for (const char *p = s; *p; p++) {
    if (*p == '"') {
      for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && !*++p) return false;
      if (!*p) return false;
    } else if (*p == '{') {
      depth++;
    } else if (*p == '}' && --depth == 0) {
      return p[1] == '\0';
    }
  }
  return false;
}

static void print_string_or_raw(StrBuf *sb, const Attr *a) {
  if (a->is_raw || lexes_as_json_dict(a->v.s))
    sb_puts(sb, a->v.s ? a->v.s : "{}");
  else
    print_string(sb, a->v.s);
}

/* Element i of "{%a, %b}". */
static void print_ref(StrBuf *sb, int i, const char *name) {
  if (i) sb_puts(sb, ", ");
  print_name(sb, name);
}

static void print_computation_refs(StrBuf *sb, struct Computation *const *v, int n) {
  sb_putc(sb, '{');
  for (int i = 0; i < n; i++) print_ref(sb, i, v[i] ? v[i]->name : NULL);
  sb_putc(sb, '}');
}

static void print_instr_refs(StrBuf *sb, struct Instr *const *v, int n) {
  sb_putc(sb, '{');
  for (int i = 0; i < n; i++) print_ref(sb, i, v[i] ? v[i]->name : NULL);
  sb_putc(sb, '}');
}

static void print_enum_list(StrBuf *sb, AttrKey key, const char *const *v, int n) {
  sb_putc(sb, '{');
  for (int i = 0; i < n; i++) {
    if (i) sb_putc(sb, ',');
    print_enum(sb, key, v[i]);
  }
  sb_putc(sb, '}');
}

static void print_bool_list(StrBuf *sb, const bool *v, int n) {
  sb_putc(sb, '{');
  for (int i = 0; i < n; i++) sb_printf(sb, "%s%s", i ? "," : "", v[i] ? "true" : "false");
  sb_putc(sb, '}');
}

/* literal= values: "shape literal", and a tuple as "( shaped, ... )" with
 * each element's own shape, the one form XLA's parser reads back. */
static void print_shaped_literal(StrBuf *sb, const Literal *lit) {
  if (shape_is_tuple(&lit->shape) && !lit->elided) {
    sb_puts(sb, "( ");
    for (int i = 0; i < lit->ntuple; i++) {
      if (i) sb_puts(sb, ", ");
      print_shaped_literal(sb, &lit->tuple[i]);
    }
    sb_puts(sb, " )");
    return;
  }
  print_shape(sb, &lit->shape);
  sb_putc(sb, ' ');
  print_literal(sb, lit);
}

static void print_attr_value(StrBuf *sb, const Attr *a) {
  switch (a->kind) {
    case AV_BOOL: sb_puts(sb, a->v.b ? "true" : "false"); break;
    case AV_INT: sb_printf(sb, "%lld", (long long)a->v.i); break;
    case AV_FLOAT: print_float_attr(sb, a->v.f); break;
    case AV_STRING: print_string(sb, a->v.s); break;
    case AV_STRING_OR_RAW: print_string_or_raw(sb, a); break;
    case AV_ENUM: print_enum(sb, a->key, a->v.s); break;
    case AV_ENUM_LIST: print_enum_list(sb, a->key, a->v.enums.v, a->v.enums.n); break;
    case AV_INT_LIST: print_int_list(sb, &a->v.ints); break;
    case AV_INT_LISTS: print_int_lists(sb, &a->v.lists); break;
    case AV_BOOL_LIST: print_bool_list(sb, a->v.bools.v, a->v.bools.n); break;
    case AV_SLICE: print_slice(sb, a->v.slice.dims, a->v.slice.n); break;
    case AV_PADDING: print_padding(sb, a->v.padding.dims, a->v.padding.n); break;
    case AV_WINDOW: print_window(sb, &a->v.window); break;
    case AV_CONV_DIMS: sb_puts(sb, a->v.conv.text ? a->v.conv.text : ""); break;
    case AV_REPLICA_GROUPS: print_replica_groups(sb, &a->v.groups); break;
    case AV_COMPUTATION: print_name(sb, a->v.comp ? a->v.comp->name : ""); break;
    case AV_COMPUTATION_LIST: print_computation_refs(sb, a->v.comps.v, a->v.comps.n); break;
    case AV_SHAPE:
      if (a->v.shape) print_shape(sb, a->v.shape);
      break;
    case AV_SHAPE_LIST:
      sb_putc(sb, '{');
      print_shape_list(sb, a->v.shapes.v, a->v.shapes.n);
      sb_putc(sb, '}');
      break;
    case AV_INSTR_LIST: print_instr_refs(sb, a->v.instrs.v, a->v.instrs.n); break;
    case AV_LITERAL:
      if (a->v.literal) print_shaped_literal(sb, a->v.literal);
      break;
    case AV_RAW:
    case AV_NONE: sb_puts(sb, a->v.s ? a->v.s : ""); break;
  }
}

static const char *attr_name(const Attr *a) {
  if (a->key != ATTR_UNKNOWN || !a->name) return attr_key_name(a->key);
  return a->name;
}

static void print_attr(StrBuf *sb, const Attr *a) {
  sb_puts(sb, ", ");
  sb_puts(sb, attr_name(a));
  sb_putc(sb, '=');
  print_attr_value(sb, a);
}

/* ---------- instruction attributes ---------- */

/* Selection by (sort key, position): attribute lists are short, and this
 * needs no memory. */
void print_instr_attrs(StrBuf *sb, const Instr *in) {
  int last_key = -1, last_pos = -1;
  for (int printed = 0; printed < in->nattrs; printed++) {
    int best = -1, best_key = 0;
    for (int i = 0; i < in->nattrs; i++) {
      int key = attr_sort_key(in, &in->attrs[i]);
      bool after_last = key > last_key || (key == last_key && i > last_pos);
      if (after_last && (best < 0 || key < best_key)) {
        best = i;
        best_key = key;
      }
    }
    print_attr(sb, &in->attrs[best]);
    last_key = best_key;
    last_pos = best;
  }
}

/* ---------- module header ---------- */

/* HloModule::Print's order; the decoded ones are printed from their fields. */
static const char *const header_order[] = {
    "is_scheduled", "input_output_alias", "buffer_donor", "alias_passthrough_params",
    "entry_computation_layout", "allow_spmd_sharding_propagation_to_parameters",
    "allow_spmd_sharding_propagation_to_output", "replica_count", "num_partitions",
    "frontend_attributes"};
enum { HEADER_ORDER_COUNT = (int)(sizeof header_order / sizeof header_order[0]) };

static int header_rank(const char *name) {
  for (int i = 0; i < HEADER_ORDER_COUNT; i++)
    if (strcmp(header_order[i], name) == 0) return i;
  return HEADER_ORDER_COUNT;
}

static bool entry_layout_derivable(const Computation *c) {
  if (!c || !c->root) return false;
  for (int i = 0; i < c->nparams; i++)
    if (!c->params[i]) return false;
  return true;
}

/* Written, or (as XLA's parser does) taken from the entry computation. */
static void print_entry_layout(StrBuf *sb, const Module *m) {
  const Computation *e = m->entry;
  if (!m->has_entry_layout && !entry_layout_derivable(e)) return;
  sb_puts(sb, ", entry_computation_layout={(");
  if (m->has_entry_layout) {
    print_shape_list(sb, m->entry_params, m->nentry_params);
  } else {
    for (int i = 0; i < e->nparams; i++) {
      print_list_sep(sb, i);
      print_shape(sb, &e->params[i]->shape);
    }
  }
  sb_puts(sb, ")->");
  print_shape(sb, m->has_entry_layout ? &m->entry_result : &e->root->shape);
  sb_putc(sb, '}');
}

static void print_decoded_header_attr(StrBuf *sb, const Module *m, int rank) {
  const char *name = header_order[rank];
  if (strcmp(name, "is_scheduled") == 0 && m->is_scheduled) sb_puts(sb, ", is_scheduled=true");
  if (strcmp(name, "entry_computation_layout") == 0) print_entry_layout(sb, m);
  if (strcmp(name, "replica_count") == 0 && m->replica_count != 1)
    sb_printf(sb, ", replica_count=%lld", (long long)m->replica_count);
  if (strcmp(name, "num_partitions") == 0 && m->num_partitions != 1)
    sb_printf(sb, ", num_partitions=%lld", (long long)m->num_partitions);
}

static bool header_attr_is_decoded(const char *name) {
  return strcmp(name, "is_scheduled") == 0 || strcmp(name, "entry_computation_layout") == 0 ||
         strcmp(name, "replica_count") == 0 || strcmp(name, "num_partitions") == 0;
}

void print_header_attrs(StrBuf *sb, const Module *m) {
  for (int rank = 0; rank <= HEADER_ORDER_COUNT; rank++) {
    if (rank < HEADER_ORDER_COUNT && header_attr_is_decoded(header_order[rank])) {
      print_decoded_header_attr(sb, m, rank);
      continue;
    }
    for (int i = 0; i < m->nattrs; i++) {
      const char *name = attr_name(&m->attrs[i]);
      if (header_rank(name) == rank && !header_attr_is_decoded(name)) print_attr(sb, &m->attrs[i]);
    }
  }
}
