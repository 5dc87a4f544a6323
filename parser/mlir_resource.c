/* Constants as raw bytes: the {-# dialect_resources #-} section JAX and
 * torch-mlir write for large constants (dense_resource<name>), large hex
 * blobs dense<"0x...">, and hex blobs of types whose values HLO literal text
 * cannot spell exactly.
 *
 * Why bytes and not text: printing a million floats as decimals and lexing
 * them back costs more than everything else in the conversion, and f8/f6/f4
 * values have no exact short decimal in every case.  Such a constant is
 * written as "blob.N = T constant(0)" (a scalar for an array shape gives a
 * zeroed literal without a byte of text per element, build_literal.c), and
 * mlir_fill_blobs copies the bytes into that literal after the HLO parse. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "layout/etype.h"
#include "parser/ir.h"
#include "parser/mlir.h"
#include "parser/mlir_internal.h"

/* Constants with more elements than this go through bytes even when their
 * hex blob could be written as text. */
enum { BLOB_MIN_ELEMS = 256 };

/* "name: "0x..."" entries of one dialect's block, up to its '}'. */
static void resource_entries(MState *st, bool keep) {
  if (mlir_accept(st, "}")) return;
  do {
    int64_t off = mlir_off(st);
    const char *name = mlir_ident(st);
    if (!name) name = mlir_string(st);
    if (!name) mlir_fail(st, off, "expected a resource name");
    mlir_expect(st, ":");
    mlir_skip(st);
    int64_t voff = st->p - st->src;
    if (st->p >= st->end || *st->p != '"') mlir_fail(st, voff, "expected the resource's \"0x...\" string");
    const char *b = ++st->p;
    while (st->p < st->end && *st->p != '"') st->p++;
    if (st->p >= st->end) mlir_fail(st, voff, "unterminated string");
    size_t n = (size_t)(st->p - b);
    st->p++;
    if (!keep) continue;
    if (n < 2 || b[0] != '0' || b[1] != 'x') mlir_fail(st, voff, "a resource blob must be a \"0x...\" string");
    for (int i = 0; i < st->nres; i++)
      if (strcmp(st->res[i].name, name) == 0) mlir_fail(st, off, "resource '%s' is defined twice", name);
    st->res = mlir_grow(st, st->res, st->nres, &st->rescap, sizeof *st->res);
    st->res[st->nres++] = (MResource){name, b + 2, n - 2, voff};
  } while (mlir_accept(st, ","));
  mlir_expect(st, "}");
}

void mlir_resources(MState *st) {
  mlir_expect(st, "{-#");
  if (!mlir_accept(st, "#-}")) {
    do {
      int64_t off = mlir_off(st);
      const char *sect = mlir_ident(st);
      if (!sect) mlir_fail(st, off, "expected dialect_resources or external_resources");
      mlir_expect(st, ":");
      if (strcmp(sect, "dialect_resources") != 0) { /* external_resources, ...: not data */
        mlir_skip_group(st);
        continue;
      }
      mlir_expect(st, "{");
      if (!mlir_accept(st, "}")) {
        do {
          int64_t doff = mlir_off(st);
          const char *dialect = mlir_ident(st);
          if (!dialect) mlir_fail(st, doff, "expected a dialect name");
          mlir_expect(st, ":");
          mlir_expect(st, "{");
          resource_entries(st, strcmp(dialect, "builtin") == 0);
        } while (mlir_accept(st, ","));
        mlir_expect(st, "}");
      }
    } while (mlir_accept(st, ","));
    mlir_expect(st, "#-}");
  }
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = (char)(c | 0x20);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The HLO element type of t, and its bytes per element in MLIR's blobs
 * (natural storage: i1 and sub-byte types one byte each). */
static EType blob_etype(const MType *t, int *bytes) {
  EType e = etype_from_name(t->etype, strlen(t->etype));
  *bytes = e == ET_INVALID ? 0 : etype_storage_bytes(e);
  return e;
}

/* Puts one element as its HLO storage wants it: bools 0/1, sub-byte signed
 * ints sign-extended, other sub-byte types their low bits. */
static void normalize(EType e, uint8_t *d, int64_t n) {
  int bits = etype_bits(e);
  if (e == ET_PRED) {
    for (int64_t i = 0; i < n; i++) d[i] = d[i] != 0;
  } else if (bits < 8 && bits > 0) {
    uint8_t mask = (uint8_t)((1u << bits) - 1);
    bool sign = etype_kind(e) == EK_SINT;
    for (int64_t i = 0; i < n; i++) {
      uint8_t v = d[i] & mask;
      if (sign && (v >> (bits - 1)) & 1) v |= (uint8_t)~mask;
      d[i] = v;
    }
  }
}

/* Decodes nhex hex digits into a new blob whose instruction will be the
 * next mlir_line named "blob" (blob.N, N the next name counter). */
static void new_blob(MState *st, const char *hex, size_t nhex, EType e, int64_t off) {
  size_t nbytes = nhex / 2;
  uint8_t *d = malloc(nbytes ? nbytes : 1);
  if (!d) mlir_fail(st, off, "out of memory for a constant of %zu bytes", nbytes);
  for (size_t i = 0; i < nbytes; i++) {
    int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      free(d);
      mlir_fail(st, off, "'%c' is not a hexadecimal digit", hi < 0 ? hex[2 * i] : hex[2 * i + 1]);
    }
    d[i] = (uint8_t)(hi << 4 | lo);
  }
  normalize(e, d, (int64_t)nbytes);
  if (st->nblobs == st->blobcap) {
    int nc = st->blobcap ? st->blobcap * 2 : 8;
    MBlob *nb = realloc(st->blobs, sizeof *nb * (size_t)nc);
    if (!nb) {
      free(d);
      mlir_fail(st, off, "out of memory");
    }
    st->blobs = nb, st->blobcap = nc;
  }
  st->blobs[st->nblobs++] = (MBlob){st->counter + 1, d, (int64_t)nbytes};
}

/* Whether mlir_dense_hlo writes this type's hex values as text. */
static bool text_spells(EType e) {
  switch (etype_kind(e)) {
  case EK_PRED: case EK_COMPLEX: return true;
  case EK_SINT: case EK_UINT: return etype_bits(e) >= 8;
  case EK_FLOAT: return etype_bits(e) >= 16;
  default: return false;
  }
}

const char *mlir_blob_constant(MState *st, const MOp *op, const MAttr *v, const MType *t) {
  if (t->kind != MT_TENSOR) return NULL;
  int eb;
  EType e = blob_etype(t, &eb);
  int64_t want = mlir_type_elems(t);
  if (e == ET_INVALID || eb < 1 || want < 0) return NULL;
  const char *hex;
  size_t nhex;
  int64_t off = v->offset;
  if (v->s) { /* dense_resource<name> */
    const MResource *r = NULL;
    for (int i = 0; i < st->nres && !r; i++)
      if (strcmp(st->res[i].name, v->s) == 0) r = &st->res[i];
    if (strcmp(v->s, "__elided__") == 0 && !r)
      mlir_fail(st, off, "the constant's data was elided when the module was printed (dense_resource<__elided__>): "
                         "print it without elision of large constants");
    if (!r) mlir_fail(st, off, "dense_resource<%s>: no such blob in the {-# dialect_resources #-} section", v->s);
    /* The first 4 bytes are the blob's alignment (little-endian). */
    if (r->nhex < 8 || r->nhex % 2)
      mlir_fail(st, r->off, "resource '%s' is too short: it starts with 4 bytes of alignment", r->name);
    hex = r->hex + 8, nhex = r->nhex - 8;
    if (nhex / 2 != (size_t)want * (size_t)eb)
      mlir_fail(st, off, "dense_resource<%s> has %zu bytes of data; %s needs %lld", v->s, nhex / 2, t->etype,
                (long long)want * eb);
    if (want == 0) mlir_fail(st, off, "dense_resource<%s> of a tensor without elements", v->s);
  } else {
    /* dense<"0x...">: all elements, or one for a splat. */
    const char *b = v->body, *end = v->body + v->body_len;
    while (b < end && isspace((unsigned char)*b)) b++;
    while (end > b && isspace((unsigned char)end[-1])) end--;
    if (end - b < 4 || b[0] != '"' || b[1] != '0' || b[2] != 'x' || end[-1] != '"') return NULL;
    hex = b + 3, nhex = (size_t)(end - 1 - hex);
    bool splat = nhex == 2 * (size_t)eb;
    if (want == 0 || nhex % 2 || (!splat && nhex / 2 != (size_t)want * (size_t)eb)) return NULL; /* text path reports it */
    if (text_spells(e) && (splat || want <= BLOB_MIN_ELEMS)) return NULL;
    if (splat && want != 1) {
      MType *s = arena_alloc(st->arena, sizeof *s);
      if (!s) mlir_fail(st, -1, "out of memory");
      s->kind = MT_TENSOR, s->etype = t->etype;
      new_blob(st, hex, nhex, e, off);
      const char *c = mlir_line(st, op->off, "blob", s, "constant(0)");
      return mlir_line(st, op->off, "v", t, "broadcast(%s), dimensions={}", c);
    }
  }
  new_blob(st, hex, nhex, e, off);
  return mlir_line(st, op->off, "blob", t, "constant(0)");
}

static int by_id(const void *a, const void *b) {
  int x = ((const MBlob *)a)->id, y = ((const MBlob *)b)->id;
  return (x > y) - (x < y);
}

bool mlir_fill_blobs(const MlirHlo *h, Module *m, Diags *diags) {
  int filled = 0;
  for (int c = 0; c < m->ncomps; c++) {
    Computation *comp = m->comps[c];
    for (int i = 0; i < comp->ninstrs; i++) {
      Instr *in = comp->instrs[i];
      if (in->op != OP_CONSTANT || strncmp(in->name, "blob.", 5) != 0) continue;
      MBlob key = {.id = atoi(in->name + 5)};
      MBlob *b = bsearch(&key, h->blobs, (size_t)h->nblobs, sizeof *b, by_id);
      if (!b) continue;
      Literal *lit = in->literal;
      if (!lit || !lit->data || lit->nbytes != b->nbytes) {
        diags_add(diags, in->offset, "constant %s: its %lld bytes of data do not fit its shape", in->name,
                  (long long)b->nbytes);
        return false;
      }
      memcpy(lit->data, b->data, (size_t)b->nbytes);
      filled++;
    }
  }
  if (filled != h->nblobs) {
    diags_add(diags, -1, "%d constants of the StableHLO module were not found in its HLO", h->nblobs - filled);
    return false;
  }
  return true;
}
