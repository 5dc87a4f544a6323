#include <criterion/criterion.h>

#include "kernels/k_gather.h"
#include "ktest.h"

Test(k_gather, rows_and_columns) {
  int32_t x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, idx[2] = {0, 2}, o[6];
  KArray X = ka(ET_S32, 2, (int64_t[]){3, 3}, x), IX = ka(ET_S32, 1, (int64_t[]){2}, idx);
  KArray O = ka(ET_S32, 2, (int64_t[]){2, 3}, o);
  KGatherDims rows = {1, (int64_t[]){1}, 1, (int64_t[]){0}, 1, (int64_t[]){0}, 0, NULL, NULL, 1, (int64_t[]){1, 3}};
  Error err;
  cr_assert(k_gather(&X, &IX, &rows, &O, &err), "%s", err.msg);
  int32_t w1[] = {1, 2, 3, 7, 8, 9};
  for (int i = 0; i < 6; i++) cr_expect_eq(o[i], w1[i]);
  KArray O2 = ka(ET_S32, 2, (int64_t[]){3, 2}, o);
  KGatherDims cols = {1, (int64_t[]){0}, 1, (int64_t[]){1}, 1, (int64_t[]){1}, 0, NULL, NULL, 1, (int64_t[]){3, 1}};
  cr_assert(k_gather(&X, &IX, &cols, &O2, &err), "%s", err.msg);
  int32_t w2[] = {1, 3, 4, 6, 7, 9};
  for (int i = 0; i < 6; i++) cr_expect_eq(o[i], w2[i]);
}

Test(k_gather, clamps_out_of_bounds_starts) {
  int32_t x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, o[4];
  int64_t idx[4] = {5, -3, 1, 99}; /* two [2] index vectors: (5,-3), (1,99) */
  KArray X = ka(ET_S32, 2, (int64_t[]){3, 3}, x), IX = ka(ET_S64, 2, (int64_t[]){2, 2}, idx);
  KArray O = ka(ET_S32, 3, (int64_t[]){2, 2, 1}, o);
  KGatherDims d = {2, (int64_t[]){1, 2}, 0, NULL, 2, (int64_t[]){0, 1}, 0, NULL, NULL, 1, (int64_t[]){2, 1}};
  Error err;
  cr_assert(k_gather(&X, &IX, &d, &O, &err), "%s", err.msg);
  /* (5,-3) clamps to (1,0): rows 1..2 of col 0 = 4,7; (1,99) -> (1,2): 6,9 */
  cr_expect(o[0] == 4 && o[1] == 7 && o[2] == 6 && o[3] == 9);
}

Test(k_gather, index_vector_dim_equal_rank_and_batching) {
  float x[10] = {0, 1, 2, 3, 4, 10, 11, 12, 13, 14}, o[2];
  uint8_t idx[2] = {3, 1};
  KArray X = ka(ET_F32, 2, (int64_t[]){2, 5}, x), IX = ka(ET_U8, 1, (int64_t[]){2}, idx), O = ka(ET_F32, 1, (int64_t[]){2}, o);
  /* Batching: out[i] = x[i, idx[i]]. */
  KGatherDims d = {0, NULL, 1, (int64_t[]){1}, 1, (int64_t[]){1}, 1, (int64_t[]){0}, (int64_t[]){0}, 1, (int64_t[]){1, 1}};
  Error err;
  cr_assert(k_gather(&X, &IX, &d, &O, &err), "%s", err.msg);
  cr_expect(o[0] == 3 && o[1] == 11);
}

/* Reference gather straight from the formal definition. */
static void ref_gather(const KArray *op, const KArray *ix, const KGatherDims *d, KArray *out) {
  int R = op->rank, IR = ix->rank, OR = out->rank;
  int64_t n = prod(OR, out->dims), es = etype_storage_bytes(op->etype);
  int bdims_out[8], nbo = 0;
  for (int o = 0; o < OR; o++) {
    bool off = false;
    for (int k = 0; k < d->noffset; k++) if (d->offset_dims[k] == o) off = true;
    if (!off) bdims_out[nbo++] = o;
  }
  int remap[8], nr = 0;
  for (int i = 0; i < R; i++) {
    bool skip = false;
    for (int k = 0; k < d->ncollapsed; k++) if (d->collapsed_slice_dims[k] == i) skip = true;
    for (int k = 0; k < d->nbatching; k++) if (d->operand_batching_dims[k] == i) skip = true;
    if (!skip) remap[nr++] = i;
  }
  for (int64_t f = 0; f < n; f++) {
    int64_t oi[8], t = f;
    for (int i = OR - 1; i >= 0; i--) { oi[i] = t % out->dims[i]; t /= out->dims[i]; }
    int64_t G[8];
    for (int k = 0; k < nbo; k++) G[k] = oi[bdims_out[k]];
    int64_t in[8] = {0};
    for (int k = 0; k < d->nstart_map; k++) {
      int64_t ii[8], c = 0, flat = 0;
      for (int j = 0; j < IR; j++) ii[j] = j == d->index_vector_dim ? k : G[c++];
      for (int j = 0; j < IR; j++) flat = flat * ix->dims[j] + ii[j];
      int64_t v = get_i(ix->etype, ix->data, flat), dim = d->start_index_map[k];
      int64_t hi = op->dims[dim] - d->slice_sizes[dim];
      in[dim] = v < 0 ? 0 : v > hi ? hi : v;
    }
    for (int k = 0; k < d->nbatching; k++) {
      int64_t idim = d->start_indices_batching_dims[k];
      in[d->operand_batching_dims[k]] = G[idim < d->index_vector_dim ? idim : idim - 1];
    }
    for (int k = 0; k < d->noffset; k++) in[remap[k]] += oi[d->offset_dims[k]];
    int64_t flat = 0;
    for (int i = 0; i < R; i++) flat = flat * op->dims[i] + in[i];
    memcpy((char *)out->data + f * es, (char *)op->data + flat * es, (size_t)es);
  }
}

Test(k_gather, random_against_formal_definition) {
  Rng rng = {31};
  for (int rep = 0; rep < 400; rep++) {
    int R = (int)rng_int(&rng, 1, 4);
    int64_t od[8];
    for (int i = 0; i < R; i++) od[i] = rng_int(&rng, 1, 5);
    /* Roles per operand dim: 0 offset, 1 collapsed, 2 batching. */
    int role[8], nb = 0, nc = 0, no = 0;
    for (int i = 0; i < R; i++) { role[i] = (int)rng_int(&rng, 0, 2); if (role[i] == 2 && nb >= 1) role[i] = 0; }
    int64_t slice[8], coll[8], obd[8], smap[8];
    int nsm = 0;
    for (int i = 0; i < R; i++) {
      if (role[i] == 0) { slice[i] = rng_int(&rng, 0, od[i]); no++; if (rng_next(&rng) & 1) smap[nsm++] = i; }
      else { slice[i] = 1; if (role[i] == 1) { coll[nc++] = i; smap[nsm++] = i; } else obd[nb++] = i; }
    }
    /* Indices: batch dims (random count, plus one per batching dim) + vector dim. */
    int nbatch_dims = (int)rng_int(&rng, 0, 2) + nb;
    int IR = nbatch_dims + 1;
    int64_t ivd = rng_int(&rng, 0, IR - 1);
    bool implicit = nsm == 1 && (rng_next(&rng) & 1);
    int64_t idims[8], bshape[8];
    for (int j = 0; j < nbatch_dims; j++) bshape[j] = rng_int(&rng, 1, 3);
    int64_t sibd[8];
    for (int j = 0; j < nb; j++) bshape[j] = od[obd[j]];
    if (implicit) { IR = nbatch_dims; ivd = IR; }
    for (int j = 0, c = 0; j < IR; j++) idims[j] = j == ivd ? nsm : bshape[c++];
    for (int j = 0; j < nb; j++) sibd[j] = j < ivd ? j : j + 1;
    int64_t nidx = prod(IR, idims);
    int32_t *iv = malloc((size_t)(nidx + 1) * 4);
    for (int64_t i = 0; i < nidx; i++) iv[i] = (int32_t)rng_int(&rng, -2, 6);
    /* Result: batch dims then offset dims, offset_dims a random sorted subset of positions. */
    int ORk = nbatch_dims + no;
    int64_t offd[8], odims[8];
    int pos[8];
    for (int i = 0; i < ORk; i++) pos[i] = i;
    for (int i = ORk - 1; i > 0; i--) { int j = (int)rng_int(&rng, 0, i), t = pos[i]; pos[i] = pos[j]; pos[j] = t; }
    for (int k = 0; k < no; k++) offd[k] = pos[k];
    for (int a = 0; a < no; a++) for (int b = a + 1; b < no; b++) if (offd[b] < offd[a]) { int64_t t = offd[a]; offd[a] = offd[b]; offd[b] = t; }
    int bi = 0, ki = 0;
    int64_t offsz[8];
    for (int i = 0; i < R; i++) if (role[i] == 0) offsz[ki++] = slice[i];
    ki = 0;
    for (int o = 0; o < ORk; o++) {
      bool isoff = false;
      for (int k = 0; k < no; k++) if (offd[k] == o) { isoff = true; odims[o] = offsz[k]; }
      if (!isoff) odims[o] = bshape[bi++];
    }
    KGatherDims d = {no, offd, nc, coll, nsm, smap, nb, obd, sibd, ivd, slice};
    float *x = rand_array(&rng, ET_F32, prod(R, od), true);
    int64_t n = prod(ORk, odims);
    float *got = malloc((size_t)(n + 1) * 4), *want = malloc((size_t)(n + 1) * 4);
    KArray X = ka(ET_F32, R, od, x), IX = ka(ET_S32, IR, idims, iv), O = ka(ET_F32, ORk, odims, got), W = ka(ET_F32, ORk, odims, want);
    Error err;
    cr_assert(k_gather(&X, &IX, &d, &O, &err), "rep %d: %s", rep, err.msg);
    ref_gather(&X, &IX, &d, &W);
    cr_assert(memcmp(got, want, (size_t)n * 4) == 0, "rep %d", rep);
    free(x); free(iv); free(got); free(want);
  }
}

Test(k_gather, errors) {
  int32_t x[9] = {0}, idx[2] = {0, 2}, o[6];
  KArray X = ka(ET_S32, 2, (int64_t[]){3, 3}, x), IX = ka(ET_S32, 1, (int64_t[]){2}, idx), O = ka(ET_S32, 2, (int64_t[]){2, 3}, o);
  Error err;
  KGatherDims bad_slice = {1, (int64_t[]){1}, 1, (int64_t[]){0}, 1, (int64_t[]){0}, 0, NULL, NULL, 1, (int64_t[]){1, 4}};
  cr_expect_not(k_gather(&X, &IX, &bad_slice, &O, &err));
  KGatherDims bad_coll = {1, (int64_t[]){1}, 1, (int64_t[]){0}, 1, (int64_t[]){0}, 0, NULL, NULL, 1, (int64_t[]){2, 3}};
  cr_expect_not(k_gather(&X, &IX, &bad_coll, &O, &err));
  KArray F = ka(ET_F32, 1, (int64_t[]){2}, idx);
  KGatherDims ok = {1, (int64_t[]){1}, 1, (int64_t[]){0}, 1, (int64_t[]){0}, 0, NULL, NULL, 1, (int64_t[]){1, 3}};
  cr_expect_not(k_gather(&X, &F, &ok, &O, &err));
}

/* ---------------------------------------------------------------- scatter */

static const KReduceOp ADD1[] = {K_RED_ADD}, REPL1[] = {K_RED_REPLACE};

Test(k_scatter, rows_add_duplicates_and_replace) {
  float x[9] = {0}, u[6] = {1, 2, 3, 10, 20, 30}, o[9];
  int32_t idx[2] = {2, 2};
  KArray X = ka(ET_F32, 2, (int64_t[]){3, 3}, x), IX = ka(ET_S32, 1, (int64_t[]){2}, idx), U = ka(ET_F32, 2, (int64_t[]){2, 3}, u);
  KArray O = ka(ET_F32, 2, (int64_t[]){3, 3}, o);
  KScatterDims d = {1, (int64_t[]){1}, 1, (int64_t[]){0}, 1, (int64_t[]){0}, 0, NULL, NULL, 1};
  KReducer add = {ADD1, NULL, NULL}, repl = {REPL1, NULL, NULL};
  Error err;
  cr_assert(k_scatter(1, &X, &IX, &U, &d, &add, &O, &err), "%s", err.msg);
  cr_expect(o[6] == 11 && o[7] == 22 && o[8] == 33 && o[0] == 0);
  cr_assert(k_scatter(1, &X, &IX, &U, &d, &repl, &O, &err));
  cr_expect(o[6] == 10 && o[7] == 20 && o[8] == 30); /* later update wins */
}

Test(k_scatter, out_of_bounds_window_skipped_whole) {
  int32_t x[5] = {0, 0, 0, 0, 0}, u[4] = {1, 2, 3, 4}, o[5];
  int32_t idx[2] = {4, -1}; /* window of 2 at 4 overflows; -1 is negative */
  KArray X = ka(ET_S32, 1, (int64_t[]){5}, x), IX = ka(ET_S32, 2, (int64_t[]){2, 1}, idx), U = ka(ET_S32, 2, (int64_t[]){2, 2}, u);
  KArray O = ka(ET_S32, 1, (int64_t[]){5}, o);
  KScatterDims d = {1, (int64_t[]){1}, 0, NULL, 1, (int64_t[]){0}, 0, NULL, NULL, 1};
  KReducer add = {ADD1, NULL, NULL};
  Error err;
  cr_assert(k_scatter(1, &X, &IX, &U, &d, &add, &O, &err), "%s", err.msg);
  for (int i = 0; i < 5; i++) cr_expect_eq(o[i], 0);
  idx[0] = 3;
  cr_assert(k_scatter(1, &X, &IX, &U, &d, &add, &O, &err));
  cr_expect(o[3] == 1 && o[4] == 2 && o[0] == 0);
}

/* Variadic: keep (value, payload) of the larger value. */
static bool maxpay_fn(void *ctx, int nvals, void *const *acc, const void *const *vals, int64_t n, Error *err) {
  (void)ctx; (void)err; (void)nvals;
  float *a = acc[0];
  int32_t *p = acc[1];
  const float *v = vals[0];
  const int32_t *q = vals[1];
  for (int64_t i = 0; i < n; i++) if (v[i] > a[i]) { a[i] = v[i]; p[i] = q[i]; }
  return true;
}

Test(k_scatter, variadic_callback_and_in_place) {
  float x[3] = {0, 5, 0}, u[4] = {3, 7, 9, 1};
  int32_t px[3] = {-1, -1, -1}, pu[4] = {10, 11, 12, 13}, idx[4] = {0, 1, 0, 2};
  KArray ops[] = {ka(ET_F32, 1, (int64_t[]){3}, x), ka(ET_S32, 1, (int64_t[]){3}, px)};
  KArray upd[] = {ka(ET_F32, 1, (int64_t[]){4}, u), ka(ET_S32, 1, (int64_t[]){4}, pu)};
  KArray IX = ka(ET_S32, 1, (int64_t[]){4}, idx);
  KScatterDims d = {0, NULL, 1, (int64_t[]){0}, 1, (int64_t[]){0}, 0, NULL, NULL, 1};
  KReducer r = {NULL, maxpay_fn, NULL};
  Error err;
  cr_assert(k_scatter(2, ops, &IX, upd, &d, &r, ops, &err), "%s", err.msg);
  cr_expect(x[0] == 9 && px[0] == 12);
  cr_expect(x[1] == 7 && px[1] == 11);
  cr_expect(x[2] == 1 && px[2] == 13);
}

Test(k_scatter, batching_dims_and_narrow_types) {
  /* out[b, idx[b]] += u[b] with input_batching_dims {0}. */
  uint16_t x[6], u[2];
  for (int i = 0; i < 6; i++) set_f(ET_BF16, x, i, 1.0);
  set_f(ET_BF16, u, 0, 0.5); set_f(ET_BF16, u, 1, 2.0);
  int64_t idx[2] = {2, 0};
  KArray X = ka(ET_BF16, 2, (int64_t[]){2, 3}, x), IX = ka(ET_S64, 1, (int64_t[]){2}, idx), U = ka(ET_BF16, 1, (int64_t[]){2}, u);
  KScatterDims d = {0, NULL, 1, (int64_t[]){1}, 1, (int64_t[]){1}, 1, (int64_t[]){0}, (int64_t[]){0}, 1};
  KReducer add = {ADD1, NULL, NULL};
  Error err;
  cr_assert(k_scatter(1, &X, &IX, &U, &d, &add, &X, &err), "%s", err.msg);
  double want[] = {1, 1, 1.5, 3, 1, 1};
  for (int i = 0; i < 6; i++) cr_expect_eq(get_f(ET_BF16, x, i), want[i]);
  /* s4 wraps: 7 + 1 -> -8. */
  int8_t s[2] = {7, 0}, su[1] = {1};
  int32_t si[1] = {0};
  KArray S = ka(ET_S4, 1, (int64_t[]){2}, s), SI = ka(ET_S32, 1, (int64_t[]){1}, si), SU = ka(ET_S4, 1, (int64_t[]){1}, su);
  KScatterDims d1 = {0, NULL, 1, (int64_t[]){0}, 1, (int64_t[]){0}, 0, NULL, NULL, 1};
  cr_assert(k_scatter(1, &S, &SI, &SU, &d1, &add, &S, &err), "%s", err.msg);
  cr_expect_eq(s[0], -8);
}

/* Reference scatter: sequential per update element in row-major order. */
static void ref_scatter(KArray *o, const KArray *ix, const KArray *up, const KScatterDims *d) {
  int R = o->rank, IR = ix->rank, UR = up->rank;
  int usd[8], ns = 0, wop[8], nw = 0;
  for (int i = 0; i < UR; i++) {
    bool w = false;
    for (int k = 0; k < d->nupdate_window; k++) if (d->update_window_dims[k] == i) w = true;
    if (!w) usd[ns++] = i;
  }
  int64_t wsz[8];
  for (int i = 0; i < R; i++) {
    bool skip = false;
    for (int k = 0; k < d->ninserted; k++) if (d->inserted_window_dims[k] == i) skip = true;
    for (int k = 0; k < d->nbatching; k++) if (d->input_batching_dims[k] == i) skip = true;
    wsz[i] = 1;
    if (!skip) wop[nw++] = i;
  }
  for (int k = 0; k < nw; k++) wsz[wop[k]] = up->dims[d->update_window_dims[k]];
  /* Scatter index major, window minor (XLA's evaluator order). */
  int64_t nsc = 1, nwin = 1;
  for (int k = 0; k < ns; k++) nsc *= up->dims[usd[k]];
  for (int k = 0; k < d->nupdate_window; k++) nwin *= up->dims[d->update_window_dims[k]];
  for (int64_t ff = 0; ff < nsc * nwin; ff++) {
    int64_t ui[8], t = ff % nwin, t2 = ff / nwin;
    for (int k = d->nupdate_window - 1; k >= 0; k--) { int64_t dd = up->dims[d->update_window_dims[k]]; ui[d->update_window_dims[k]] = t % dd; t /= dd; }
    for (int k = ns - 1; k >= 0; k--) { ui[usd[k]] = t2 % up->dims[usd[k]]; t2 /= up->dims[usd[k]]; }
    int64_t f = 0;
    for (int i = 0; i < UR; i++) f = f * up->dims[i] + ui[i];
    int64_t G[8];
    for (int k = 0; k < ns; k++) G[k] = ui[usd[k]];
    int64_t start[8] = {0};
    for (int k = 0; k < d->nscatter_map; k++) {
      int64_t ii[8], c = 0, flat = 0;
      for (int j = 0; j < IR; j++) ii[j] = j == d->index_vector_dim ? k : G[c++];
      for (int j = 0; j < IR; j++) flat = flat * ix->dims[j] + ii[j];
      start[d->scatter_dims_to_operand_dims[k]] = get_i(ix->etype, ix->data, flat);
    }
    for (int k = 0; k < d->nbatching; k++) {
      int64_t idim = d->scatter_indices_batching_dims[k];
      start[d->input_batching_dims[k]] = G[idim < d->index_vector_dim ? idim : idim - 1];
    }
    bool inb = true;
    for (int i = 0; i < R; i++) if (start[i] < 0 || start[i] + wsz[i] > o->dims[i]) inb = false;
    if (!inb) continue;
    int64_t in[8];
    for (int i = 0; i < R; i++) in[i] = start[i];
    for (int k = 0; k < nw; k++) in[wop[k]] += ui[d->update_window_dims[k]];
    int64_t flat = 0;
    for (int i = 0; i < R; i++) flat = flat * o->dims[i] + in[i];
    ((double *)o->data)[flat] = ((double *)o->data)[flat] * 0.5 + ((double *)up->data)[f];
  }
}

/* Non-commutative combiner acc*0.5 + upd: checks the application order. */
static bool halfadd_fn(void *ctx, int nvals, void *const *acc, const void *const *vals, int64_t n, Error *err) {
  (void)ctx; (void)err; (void)nvals;
  double *a = acc[0];
  const double *v = vals[0];
  for (int64_t i = 0; i < n; i++) a[i] = a[i] * 0.5 + v[i];
  return true;
}

Test(k_scatter, random_against_sequential_reference) {
  Rng rng = {77};
  for (int rep = 0; rep < 400; rep++) {
    int R = (int)rng_int(&rng, 1, 3);
    int64_t od[8];
    for (int i = 0; i < R; i++) od[i] = rng_int(&rng, 1, 5);
    int role[8], nb = 0, ni = 0, nw = 0;
    int64_t ins[8], ibd[8], smap[8], wop[8];
    int nsm = 0;
    for (int i = 0; i < R; i++) {
      role[i] = (int)rng_int(&rng, 0, 2);
      if (role[i] == 2 && nb >= 1) role[i] = 0;
      if (role[i] == 0) { wop[nw++] = i; if (rng_next(&rng) & 1) smap[nsm++] = i; }
      else if (role[i] == 1) { ins[ni++] = i; smap[nsm++] = i; }
      else ibd[nb++] = i;
    }
    int nsd = (int)rng_int(&rng, 0, 2) + nb;
    int IR = nsd + 1;
    int64_t ivd = rng_int(&rng, 0, IR - 1);
    int64_t sshape[8], idims[8], sibd[8];
    for (int j = 0; j < nsd; j++) sshape[j] = rng_int(&rng, 1, 4);
    for (int j = 0; j < nb; j++) sshape[j] = od[ibd[j]];
    for (int j = 0, c = 0; j < IR; j++) idims[j] = j == ivd ? nsm : sshape[c++];
    for (int j = 0; j < nb; j++) sibd[j] = j < ivd ? j : j + 1;
    int64_t nidx = prod(IR, idims);
    int32_t *iv = malloc((size_t)(nidx + 1) * 4);
    for (int64_t i = 0; i < nidx; i++) iv[i] = (int32_t)rng_int(&rng, -1, 5);
    /* Updates: window dims at random sorted positions. */
    int UR = nsd + nw, pos[8];
    for (int i = 0; i < UR; i++) pos[i] = i;
    for (int i = UR - 1; i > 0; i--) { int j = (int)rng_int(&rng, 0, i), t = pos[i]; pos[i] = pos[j]; pos[j] = t; }
    int64_t uwd[8], ud[8];
    for (int k = 0; k < nw; k++) uwd[k] = pos[k];
    for (int a = 0; a < nw; a++) for (int b = a + 1; b < nw; b++) if (uwd[b] < uwd[a]) { int64_t t = uwd[a]; uwd[a] = uwd[b]; uwd[b] = t; }
    int si = 0;
    for (int u = 0; u < UR; u++) {
      int kk = -1;
      for (int k = 0; k < nw; k++) if (uwd[k] == u) kk = k;
      ud[u] = kk >= 0 ? rng_int(&rng, 0, od[wop[kk]]) : sshape[si++];
    }
    KScatterDims d = {nw, uwd, ni, ins, nsm, smap, nb, ibd, sibd, ivd};
    int64_t n = prod(R, od), nu = prod(UR, ud);
    double *x = rand_array(&rng, ET_F64, n, false), *u = rand_array(&rng, ET_F64, nu, false);
    double *got = malloc((size_t)n * 8), *want = malloc((size_t)n * 8);
    memcpy(want, x, (size_t)n * 8);
    KArray X = ka(ET_F64, R, od, x), IX = ka(ET_S32, IR, idims, iv), U = ka(ET_F64, UR, ud, u);
    KArray O = ka(ET_F64, R, od, got), W = ka(ET_F64, R, od, want);
    KReducer r = {NULL, halfadd_fn, NULL};
    Error err;
    cr_assert(k_scatter(1, &X, &IX, &U, &d, &r, &O, &err), "rep %d: %s", rep, err.msg);
    ref_scatter(&W, &IX, &U, &d);
    for (int64_t i = 0; i < n; i++) cr_assert_eq(got[i], want[i], "rep %d elem %lld", rep, (long long)i);
    free(x); free(u); free(iv); free(got); free(want);
  }
}

Test(k_scatter, errors) {
  float x[9] = {0}, u[6] = {0};
  int32_t idx[2] = {0, 1};
  KArray X = ka(ET_F32, 2, (int64_t[]){3, 3}, x), IX = ka(ET_S32, 1, (int64_t[]){2}, idx), U = ka(ET_F32, 2, (int64_t[]){2, 3}, u);
  KScatterDims d = {1, (int64_t[]){1}, 1, (int64_t[]){0}, 1, (int64_t[]){0}, 0, NULL, NULL, 1};
  KReducer bad = {(KReduceOp[]){K_RED_AND}, NULL, NULL};
  Error err;
  cr_expect_not(k_scatter(1, &X, &IX, &U, &d, &bad, &X, &err));
  KScatterDims d2 = {1, (int64_t[]){0}, 1, (int64_t[]){0}, 1, (int64_t[]){0}, 0, NULL, NULL, 1};
  KReducer add = {ADD1, NULL, NULL};
  cr_expect_not(k_scatter(1, &X, &IX, &U, &d2, &add, &X, &err));
}
