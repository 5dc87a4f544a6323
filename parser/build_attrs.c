/* Attribute values (hlo-text.md section 6): the grammar has checked the
 * syntax; here values are decoded into the typed forms of ir.h and checked
 * the way XLA's attribute parsers check them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/parse_internal.h"
#include "parser/grammar.tab.h"

static IntList int_list_of(ParseCtx *ctx, const Vec *v) {
  return (IntList){v->n, vec_copy_i64(ctx, ctx->arena, v)};
}

/* The Attr itself is transient (make_instr copies it into the module);
 * everything it points to lives in the module's arena. */
Attr *attr_new(ParseCtx *ctx, const AttrTok *name, AttrValueKind kind) {
  Attr *a = ctx_alloc(ctx, ctx->scratch, sizeof *a, name->off);
  if (!a) return NULL;
  a->key = name->key;
  a->name = ctx_strdup(ctx, name->name);
  a->kind = kind;
  a->offset = name->off;
  return a;
}

Attr *attr_bool(ParseCtx *ctx, AttrTok *name, bool v) {
  Attr *a = attr_new(ctx, name, AV_BOOL);
  if (a) a->v.b = v;
  return a;
}

Attr *attr_int(ParseCtx *ctx, AttrTok *name, IntTok v, int64_t off) {
  if (v.big) parse_error(ctx, off, "integer out of range for %.*s", STR_ARG(name->name));
  Attr *a = attr_new(ctx, name, AV_INT);
  if (a) a->v.i = v.v;
  return a;
}

Attr *attr_float(ParseCtx *ctx, AttrTok *name, double v) {
  Attr *a = attr_new(ctx, name, AV_FLOAT);
  if (a) a->v.f = v;
  return a;
}

Attr *attr_string(ParseCtx *ctx, AttrTok *name, Str s, int64_t off) {
  Attr *a = attr_new(ctx, name, attr_key_value_kind(name->key) == AV_STRING_OR_RAW
                                    ? AV_STRING_OR_RAW
                                    : AV_STRING);
  if (a) a->v.s = ctx_unescape(ctx, s, off);
  return a;
}

Attr *attr_raw_brace(ParseCtx *ctx, AttrTok *name, Str raw) {
  Attr *a = attr_new(ctx, name, AV_STRING_OR_RAW);
  if (a) {
    a->is_raw = true;
    a->v.s = ctx_strdup(ctx, raw);
  }
  return a;
}

Attr *attr_enum(ParseCtx *ctx, AttrTok *name, Str word, int64_t off) {
  (void)off;
  Attr *a = attr_new(ctx, name, AV_ENUM);
  if (a) a->v.s = ctx_strdup(ctx, word);
  return a;
}

Attr *attr_enum_list(ParseCtx *ctx, AttrTok *name, Vec *words) {
  Attr *a = attr_new(ctx, name, AV_ENUM_LIST);
  if (!a) return NULL;
  a->v.enums.n = words->n;
  if (words->n) {
    a->v.enums.v = arena_alloc_array(ctx->arena, (size_t)words->n, sizeof(char *));
    if (!a->v.enums.v) {
      parse_oom(ctx, name->off);
      return a;
    }
    for (int i = 0; i < words->n; i++) a->v.enums.v[i] = ctx_strdup(ctx, VEC_AT(*words, StrTok, i).s);
  }
  return a;
}

Attr *attr_int_list(ParseCtx *ctx, AttrTok *name, Vec *ints) {
  Attr *a = attr_new(ctx, name, AV_INT_LIST);
  if (a) a->v.ints = int_list_of(ctx, ints);
  return a;
}

static IntList *lists_of(ParseCtx *ctx, const Vec *lists) {
  if (lists->n == 0) return NULL;
  IntList *out = arena_alloc_array(ctx->arena, (size_t)lists->n, sizeof *out);
  if (!out) {
    parse_oom(ctx, -1);
    return NULL;
  }
  for (int i = 0; i < lists->n; i++) out[i] = int_list_of(ctx, &VEC_AT(*lists, Vec, i));
  return out;
}

Attr *attr_int_lists(ParseCtx *ctx, AttrTok *name, IntListsTok *v, int64_t off) {
  Attr *a = attr_new(ctx, name, AV_INT_LISTS);
  if (!a) return NULL;
  int depth = v->depth;
  /* "{}": a flat empty list for gather's slice_sizes, no pairs otherwise. */
  if (depth == 0) depth = name->key == ATTR_SLICE_SIZES ? 1 : 2;
  a->v.lists.depth = depth;
  if (depth == 1) {
    a->v.lists.flat = int_list_of(ctx, &v->flat);
  } else {
    a->v.lists.n = v->lists.n;
    a->v.lists.lists = lists_of(ctx, &v->lists);
  }
  if (name->key == ATTR_SOURCE_TARGET_PAIRS) {
    if (depth != 2) {
      parse_error(ctx, off, "source_target_pairs expects a list of pairs {{source,target},...}");
    } else {
      for (int i = 0; i < v->lists.n; i++)
        if (VEC_AT(v->lists, Vec, i).n != 2) {
          parse_error(ctx, off, "source_target_pairs: each pair must have exactly 2 elements");
          break;
        }
    }
  }
  return a;
}

Attr *attr_bool_list(ParseCtx *ctx, AttrTok *name, Vec *bools) {
  Attr *a = attr_new(ctx, name, AV_BOOL_LIST);
  if (!a) return NULL;
  a->v.bools.n = bools->n;
  if (bools->n) {
    a->v.bools.v = arena_alloc_array(ctx->arena, (size_t)bools->n, sizeof(bool));
    if (!a->v.bools.v) {
      parse_oom(ctx, name->off);
      return a;
    }
    for (int i = 0; i < bools->n; i++) a->v.bools.v[i] = VEC_AT(*bools, int64_t, i) != 0;
  }
  return a;
}

Attr *attr_slice(ParseCtx *ctx, AttrTok *name, Vec *ranges) {
  Attr *a = attr_new(ctx, name, AV_SLICE);
  if (!a) return NULL;
  a->v.slice.n = ranges->n;
  if (ranges->n) {
    a->v.slice.dims = arena_alloc_array(ctx->arena, (size_t)ranges->n, sizeof(SliceDim));
    if (!a->v.slice.dims) {
      parse_oom(ctx, name->off);
      return a;
    }
    for (int i = 0; i < ranges->n; i++) {
      SliceRange r = VEC_AT(*ranges, SliceRange, i);
      a->v.slice.dims[i] = (SliceDim){r.start, r.limit, r.stride};
    }
  }
  return a;
}

/* Splits "a_b[_c]x..." into groups of 2 or 3 integers.  Returns the number
 * of groups, or -1 after an error. */
static int split_pad_text(ParseCtx *ctx, Str text, int64_t off, PadDim **out, bool *has_interior) {
  int n = 1;
  for (int64_t i = 0; i < text.n; i++) n += text.p[i] == 'x';
  PadDim *dims = arena_alloc_array(ctx->arena, (size_t)n, sizeof *dims);
  if (!dims) {
    parse_oom(ctx, off);
    return -1;
  }
  const char *p = text.p, *end = text.p + text.n;
  *has_interior = false;
  for (int d = 0; d < n; d++) {
    const char *q = p;
    while (q < end && *q != 'x') q++;
    int64_t vals[3] = {0, 0, 0};
    int nv = 0;
    const char *f = p;
    while (f <= q && nv < 3) {
      const char *g = f;
      while (g < q && *g != '_') g++;
      bool ok = true;
      vals[nv++] = parse_int_text(ctx, f, g, off, &ok);
      if (!ok) return -1;
      f = g + 1;
    }
    if (nv == 3) *has_interior = true;
    dims[d] = (PadDim){vals[0], vals[1], vals[2]};
    p = q + 1;
  }
  *out = dims;
  return n;
}

Attr *attr_padding(ParseCtx *ctx, AttrTok *name, Str pad, int64_t off) {
  Attr *a = attr_new(ctx, name, AV_PADDING);
  if (!a) return NULL;
  PadDim *dims = NULL;
  bool interior = false;
  int n = split_pad_text(ctx, pad, off, &dims, &interior);
  if (n < 0) return a;
  for (int i = 0; i < n; i++)
    if (dims[i].interior < 0) parse_error(ctx, off, "interior padding must not be negative");
  a->v.padding.n = n;
  a->v.padding.dims = dims;
  a->v.padding.has_interior = interior;
  return a;
}

/* "3x3" / "3" -> n values. */
static int split_dims_text(ParseCtx *ctx, Str text, int64_t off, int64_t **out) {
  int n = 1;
  for (int64_t i = 0; i < text.n; i++) n += text.p[i] == 'x';
  int64_t *v = arena_alloc_array(ctx->arena, (size_t)n, sizeof *v);
  if (!v) {
    parse_oom(ctx, off);
    return -1;
  }
  const char *p = text.p, *end = text.p + text.n;
  for (int i = 0; i < n; i++) {
    const char *q = p;
    while (q < end && *q != 'x') q++;
    bool ok = true;
    v[i] = parse_int_text(ctx, p, q, off, &ok);
    if (!ok) return -1;
    p = q + 1;
  }
  *out = v;
  return n;
}

Attr *attr_window(ParseCtx *ctx, AttrTok *name, Vec *fields, int64_t off) {
  Attr *a = attr_new(ctx, name, AV_WINDOW);
  if (!a) return NULL;
  static const char *const names[] = {"size", "stride", "pad", "lhs_dilate", "rhs_dilate",
                                      "rhs_reversal"};
  int64_t *vals[6] = {0};
  PadDim *pads = NULL;
  int counts[6] = {0};
  int64_t offs[6] = {0};
  unsigned written = 0;
  for (int i = 0; i < fields->n; i++) {
    WindowField *f = &VEC_AT(*fields, WindowField, i);
    int k = 0;
    while (k < 6 && !str_is(f->name, names[k])) k++;
    if (k == 6) {
      parse_error(ctx, f->off, "unknown window field %.*s (expects size, stride, pad, lhs_dilate, rhs_dilate or rhs_reversal)",
                  STR_ARG(f->name));
      continue;
    }
    if (written & (1u << k)) {
      parse_error(ctx, f->off, "window field %s given twice", names[k]);
      continue;
    }
    written |= 1u << k;
    offs[k] = f->off;
    if (k == 2) {
      bool interior;
      if (f->kind != PAD) {
        parse_error(ctx, f->value_off, "window pad expects low_high pairs such as 0_1x1_0");
        continue;
      }
      counts[k] = split_pad_text(ctx, f->text, f->value_off, &pads, &interior);
      if (counts[k] >= 0 && interior)
        parse_error(ctx, f->value_off, "window pad has no interior field");
    } else {
      if (f->kind == PAD) {
        parse_error(ctx, f->value_off, "window %s expects sizes such as 3x3", names[k]);
        continue;
      }
      counts[k] = split_dims_text(ctx, f->text, f->value_off, &vals[k]);
    }
  }
  int rank = (written & 1) ? counts[0] : 0;
  if (written && !(written & 1)) {
    parse_error(ctx, off, "window requires size when any other field is given");
    return a;
  }
  for (int k = 1; k < 6; k++)
    if ((written & (1u << k)) && counts[k] >= 0 && counts[k] != rank)
      parse_error(ctx, offs[k], "window %s has %d entries, but size has %d", names[k], counts[k], rank);
  if (rank < 0) return a;
  a->v.window.rank = rank;
  a->v.window.fields_written = written; /* bit k = names[k], same order as WIN_* */
  if (rank) {
    a->v.window.dims = arena_alloc_array(ctx->arena, (size_t)rank, sizeof(WindowDim));
    if (!a->v.window.dims) {
      parse_oom(ctx, off);
      return a;
    }
    for (int i = 0; i < rank; i++) {
      WindowDim *d = &a->v.window.dims[i];
      bool ok = true;
#define GET(k, dflt) ((written & (1u << (k))) && counts[k] == rank && vals[k] ? vals[k][i] : (dflt))
      d->size = GET(0, 1);
      d->stride = GET(1, 1);
      d->lhs_dilate = GET(3, 1);
      d->rhs_dilate = GET(4, 1);
      int64_t rev = GET(5, 0);
#undef GET
      if ((written & 4) && counts[2] == rank && pads) {
        d->pad_lo = pads[i].lo;
        d->pad_hi = pads[i].hi;
      }
      if (rev != 0 && rev != 1) ok = false;
      d->reversal = rev == 1;
      if (!ok) parse_error(ctx, offs[5], "rhs_reversal entries must be 0 or 1");
    }
  }
  return a;
}

/* dim_labels "b01f_01io->b01f" (6.3). */
static bool conv_part(ParseCtx *ctx, Str part, const char *letters, int64_t off, int nspatial,
                      int64_t *a, int64_t *b, int64_t *spatial) {
  *a = *b = -1;
  for (int i = 0; i < nspatial; i++) spatial[i] = -1;
  for (int64_t i = 0; i < part.n; i++) {
    char c = part.p[i];
    if (c == '?') continue;
    if (c == letters[0] || c == letters[1]) {
      int64_t *slot = c == letters[0] ? a : b;
      if (*slot >= 0) {
        parse_error(ctx, off, "dim_labels: '%c' appears twice in %.*s", c, STR_ARG(part));
        return false;
      }
      *slot = i;
    } else if (c >= '0' && c <= '9') {
      int d = c - '0';
      if (d >= nspatial) {
        parse_error(ctx, off, "dim_labels: spatial dimension %d out of range in %.*s", d, STR_ARG(part));
        return false;
      }
      if (spatial[d] >= 0) {
        parse_error(ctx, off, "dim_labels: '%c' appears twice in %.*s", c, STR_ARG(part));
        return false;
      }
      spatial[d] = i;
    } else {
      parse_error(ctx, off, "dim_labels: unexpected '%c' in %.*s (expects %c, %c, digits or ?)", c,
                  STR_ARG(part), letters[0], letters[1]);
      return false;
    }
  }
  if (*a < 0 || *b < 0) {
    parse_error(ctx, off, "dim_labels: %.*s must contain both '%c' and '%c'", STR_ARG(part),
                letters[0], letters[1]);
    return false;
  }
  for (int i = 0; i < nspatial; i++)
    if (spatial[i] < 0) {
      parse_error(ctx, off, "dim_labels: spatial dimension %d missing in %.*s", i, STR_ARG(part));
      return false;
    }
  return true;
}

static int count_digits(Str s) {
  int n = 0;
  for (int64_t i = 0; i < s.n; i++) n += s.p[i] >= '0' && s.p[i] <= '9';
  return n;
}

Attr *attr_dim_labels(ParseCtx *ctx, AttrTok *name, Str labels, int64_t off) {
  Attr *a = attr_new(ctx, name, AV_CONV_DIMS);
  if (!a) return NULL;
  ConvDims *cd = &a->v.conv;
  cd->text = ctx_strdup(ctx, labels);
  /* The lexer's pattern guarantees "lhs_rhs->out". */
  const char *us = memchr(labels.p, '_', (size_t)labels.n);
  const char *arrow = us ? memchr(us, '-', (size_t)(labels.p + labels.n - us)) : NULL;
  if (!us || !arrow) {
    parse_error(ctx, off, "malformed dim_labels");
    return a;
  }
  Str lhs = {labels.p, us - labels.p}, rhs = {us + 1, arrow - us - 1},
      out = {arrow + 2, labels.p + labels.n - arrow - 2};
  int ns = count_digits(lhs);
  if (count_digits(rhs) != ns || count_digits(out) != ns) {
    parse_error(ctx, off, "dim_labels: lhs, rhs and output must have the same number of spatial dimensions");
    return a;
  }
  cd->nspatial = ns;
  cd->input_rank = (int)lhs.n;
  cd->kernel_rank = (int)rhs.n;
  cd->output_rank = (int)out.n;
  cd->input_spatial = arena_alloc_array(ctx->arena, (size_t)(ns ? ns : 1), sizeof(int64_t));
  cd->kernel_spatial = arena_alloc_array(ctx->arena, (size_t)(ns ? ns : 1), sizeof(int64_t));
  cd->output_spatial = arena_alloc_array(ctx->arena, (size_t)(ns ? ns : 1), sizeof(int64_t));
  if (!cd->input_spatial || !cd->kernel_spatial || !cd->output_spatial) {
    parse_oom(ctx, off);
    return a;
  }
  (void)(conv_part(ctx, lhs, "bf", off, ns, &cd->input_batch, &cd->input_feature, cd->input_spatial) &&
      conv_part(ctx, rhs, "io", off, ns, &cd->kernel_input_feature, &cd->kernel_output_feature,
                cd->kernel_spatial) &&
      conv_part(ctx, out, "bf", off, ns, &cd->output_batch, &cd->output_feature, cd->output_spatial));
  return a;
}

Attr *attr_replica_groups(ParseCtx *ctx, AttrTok *name, IntListsTok *v, int64_t off) {
  Attr *a = attr_new(ctx, name, AV_REPLICA_GROUPS);
  if (!a) return NULL;
  if (v->depth == 1) {
    parse_error(ctx, off, "replica_groups expects a list of groups {{0,1},{2,3}}");
    return a;
  }
  a->v.groups.ngroups = v->lists.n;
  a->v.groups.groups = lists_of(ctx, &v->lists);
  return a;
}

enum { MAX_IOTA_DEVICES = 1 << 22 };

static bool product_of(const Vec *v, int64_t *out) {
  int64_t p = 1;
  for (int i = 0; i < v->n; i++) {
    int64_t d = VEC_AT(*v, int64_t, i);
    if (d < 0 || __builtin_mul_overflow(p, d, &p)) return false;
  }
  *out = p;
  return true;
}

/* Checks [dims]<=[reshape]T(perm) and returns the device count. */
static bool check_iota(ParseCtx *ctx, int64_t total, const Vec *reshape, const Vec *perm,
                       int64_t off) {
  int64_t n;
  if (reshape->n == 0 || !product_of(reshape, &n) || n != total) {
    parse_error(ctx, off, "iota list: the reshape dimensions must multiply to %lld",
                (long long)total);
    return false;
  }
  if (perm->n) {
    if (perm->n != reshape->n) {
      parse_error(ctx, off, "iota list: T(...) must have one entry per reshape dimension");
      return false;
    }
    uint64_t seen = 0;
    for (int i = 0; i < perm->n; i++) {
      int64_t p = VEC_AT(*perm, int64_t, i);
      if (p < 0 || p >= perm->n || p >= 64 || (seen >> p & 1)) {
        parse_error(ctx, off, "iota list: T(...) must be a permutation");
        return false;
      }
      seen |= UINT64_C(1) << p;
    }
  }
  return true;
}

Attr *attr_replica_groups_iota(ParseCtx *ctx, AttrTok *name, IntTok g, IntTok s, Vec *reshape,
                               Vec *perm, int64_t off) {
  Attr *a = attr_new(ctx, name, AV_REPLICA_GROUPS);
  if (!a) return NULL;
  int64_t total;
  if (g.big || s.big || g.v < 0 || s.v < 0 || __builtin_mul_overflow(g.v, s.v, &total) ||
      total > MAX_IOTA_DEVICES || g.v > INT32_MAX) {
    parse_error(ctx, off, "replica_groups: bad group count or size");
    return a;
  }
  if (!check_iota(ctx, total, reshape, perm, off)) return a;
  ReplicaGroups *rg = &a->v.groups;
  rg->iota = true;
  rg->iota_groups = g.v;
  rg->iota_group_size = s.v;
  rg->iota_reshape = int_list_of(ctx, reshape);
  rg->iota_perm = int_list_of(ctx, perm);
  /* Expand: iota(N) reshaped to [d0..], transposed by perm, read row-major. */
  int r = reshape->n;
  int64_t *dims = (int64_t *)reshape->v;
  int64_t tdims[64], idx[64], strides[64];
  if (r > 64) return a;
  for (int i = 0; i < r; i++) {
    int p = perm->n ? (int)VEC_AT(*perm, int64_t, i) : i;
    tdims[i] = dims[p];
  }
  int64_t st = 1;
  for (int i = r - 1; i >= 0; i--) {
    strides[i] = st;
    st *= dims[i];
  }
  rg->ngroups = (int)g.v;
  rg->groups = g.v ? arena_alloc_array(ctx->arena, (size_t)g.v, sizeof(IntList)) : NULL;
  int64_t *vals = total ? arena_alloc_array(ctx->arena, (size_t)total, sizeof(int64_t)) : NULL;
  if ((g.v && !rg->groups) || (total && !vals)) {
    parse_oom(ctx, off);
    return a;
  }
  memset(idx, 0, sizeof idx);
  for (int64_t k = 0; k < total; k++) {
    int64_t v = 0;
    for (int i = 0; i < r; i++) v += idx[i] * strides[perm->n ? VEC_AT(*perm, int64_t, i) : i];
    vals[k] = v;
    for (int i = r - 1; i >= 0; i--) {
      if (++idx[i] < tdims[i]) break;
      idx[i] = 0;
    }
  }
  for (int64_t i = 0; i < g.v; i++) rg->groups[i] = (IntList){(int)s.v, vals + i * s.v};
  return a;
}

Attr *attr_computation(ParseCtx *ctx, AttrTok *name, Computation *c) {
  Attr *a = attr_new(ctx, name, AV_COMPUTATION);
  if (a) a->v.comp = c;
  return a;
}

Attr *attr_computation_list(ParseCtx *ctx, AttrTok *name, Vec *comps) {
  Attr *a = attr_new(ctx, name, AV_COMPUTATION_LIST);
  if (!a) return NULL;
  a->v.comps.n = comps->n;
  if (comps->n) {
    a->v.comps.v = arena_alloc_array(ctx->arena, (size_t)comps->n, sizeof(Computation *));
    if (!a->v.comps.v) {
      parse_oom(ctx, name->off);
      return a;
    }
    memcpy(a->v.comps.v, comps->v, (size_t)comps->n * sizeof(Computation *));
  }
  return a;
}

Attr *attr_shape(ParseCtx *ctx, AttrTok *name, Shape *s) {
  Attr *a = attr_new(ctx, name, AV_SHAPE);
  if (a && s) {
    a->v.shape = shape_clone(ctx->arena, s);
    if (!a->v.shape) parse_oom(ctx, name->off);
  }
  return a;
}

Attr *attr_shape_list(ParseCtx *ctx, AttrTok *name, Vec *shapes) {
  Attr *a = attr_new(ctx, name, AV_SHAPE_LIST);
  if (!a) return NULL;
  a->v.shapes.n = shapes->n;
  if (shapes->n) {
    a->v.shapes.v = arena_alloc_array(ctx->arena, (size_t)shapes->n, sizeof(Shape));
    if (!a->v.shapes.v) {
      parse_oom(ctx, name->off);
      return a;
    }
    for (int i = 0; i < shapes->n; i++) {
      Shape *s = VEC_AT(*shapes, Shape *, i);
      if (s && !shape_copy_into(ctx->arena, &a->v.shapes.v[i], s)) parse_oom(ctx, name->off);
    }
  }
  return a;
}

Attr *attr_instr_list(ParseCtx *ctx, AttrTok *name, Vec *instrs) {
  Attr *a = attr_new(ctx, name, AV_INSTR_LIST);
  if (!a) return NULL;
  a->v.instrs.n = instrs->n;
  if (instrs->n) {
    a->v.instrs.v = arena_alloc_array(ctx->arena, (size_t)instrs->n, sizeof(Instr *));
    if (!a->v.instrs.v) {
      parse_oom(ctx, name->off);
      return a;
    }
    memcpy(a->v.instrs.v, instrs->v, (size_t)instrs->n * sizeof(Instr *));
  }
  return a;
}

Attr *attr_literal(ParseCtx *ctx, AttrTok *name, Literal *lit) {
  Attr *a = attr_new(ctx, name, AV_LITERAL);
  if (a) a->v.literal = lit;
  return a;
}

Attr *attr_raw_text(ParseCtx *ctx, AttrTok *name, int64_t first, int64_t last) {
  Attr *a = attr_new(ctx, name, AV_RAW);
  if (a) a->v.s = ctx_source_text(ctx, first, last);
  return a;
}

/* ---------------------------------------------------------------------------
 * Checks on values kept verbatim */

void check_sharding_name(ParseCtx *ctx, Str name, int64_t off, const char *expected) {
  if (!str_is(name, expected))
    parse_error(ctx, off, "unexpected %.*s= in sharding (expects %s=)", STR_ARG(name), expected);
}

void check_tile_assignment(ParseCtx *ctx, Vec *dims, Vec *devices, int64_t off) {
  int64_t n;
  if (!product_of(dims, &n))
    parse_error(ctx, off, "sharding: bad tile assignment dimensions");
  else if (n != devices->n)
    parse_error(ctx, off, "sharding: the tile assignment needs %lld devices, but %d are listed",
                (long long)n, devices->n);
}

void check_tile_assignment_iota(ParseCtx *ctx, Vec *dims, Vec *reshape, Vec *perm, int64_t off) {
  int64_t n;
  if (!product_of(dims, &n)) {
    parse_error(ctx, off, "sharding: bad tile assignment dimensions");
    return;
  }
  check_iota(ctx, n, reshape, perm, off);
}

void check_result_accuracy_mode(ParseCtx *ctx, Str field, int64_t off, Str value,
                                int64_t value_off) {
  if (!str_is(field, "mode")) {
    parse_error(ctx, off, "result_accuracy expects mode= or tolerance=, not %.*s=", STR_ARG(field));
    return;
  }
  if (!((value.n == 7 && strncasecmp(value.p, "default", 7) == 0) ||
        (value.n == 7 && strncasecmp(value.p, "highest", 7) == 0)))
    parse_error(ctx, value_off, "unknown result_accuracy mode '%.*s' (expects default or highest)",
                STR_ARG(value));
}

void check_result_accuracy_tolerance(ParseCtx *ctx, Str field, int64_t off, Vec *fields) {
  if (!str_is(field, "tolerance")) {
    parse_error(ctx, off, "result_accuracy expects mode= or tolerance=, not %.*s=", STR_ARG(field));
    return;
  }
  for (int i = 0; i < fields->n; i++) {
    StrTok *f = &VEC_AT(*fields, StrTok, i);
    if (!str_is(f->s, "atol") && !str_is(f->s, "rtol") && !str_is(f->s, "ulps"))
      parse_error(ctx, f->off, "unknown tolerance field %.*s (expects atol, rtol or ulps)",
                  STR_ARG(f->s));
  }
}

/* origin={[synthetic_call]}: the one bracketed form XLA's parser knows. */
void check_synthetic_call(ParseCtx *ctx, Str word, int64_t off) {
  if (word.n != 14 || memcmp(word.p, "synthetic_call", 14) != 0)
    parse_error(ctx, off, "expects 'synthetic_call' after '[' in an origin value, got '%.*s'",
                STR_ARG(word));
}
