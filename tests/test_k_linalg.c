#include <criterion/criterion.h>

#include "kernels/k_linalg.h"
#include "layout/etype_convert.h"
#include "ktest.h"

Test(k_cholesky, hand_derived_2x2) {
  double a[] = {4, 2, 2, 3}, l[4];
  int64_t d[] = {2, 2};
  KArray A = ka(ET_F64, 2, d, a), L = ka(ET_F64, 2, d, l);
  Error err;
  cr_assert(k_cholesky(&A, true, &L, &err), "%s", err.msg);
  cr_expect(l[0] == 2 && l[1] == 0 && l[2] == 1 && fabs(l[3] - sqrt(2.0)) < 1e-15);
  cr_assert(k_cholesky(&A, false, &L, &err));
  cr_expect(l[0] == 2 && l[1] == 1 && l[2] == 0 && fabs(l[3] - sqrt(2.0)) < 1e-15);
  double bad[] = {1, 2, 2, 1};
  KArray Bd = ka(ET_F64, 2, d, bad);
  cr_assert(k_cholesky(&Bd, true, &L, &err));
  /* XLA's CholeskyExpander: the whole failed matrix is NaN, both triangles. */
  cr_expect(isnan(l[0]) && isnan(l[1]) && isnan(l[2]) && isnan(l[3]));
  cr_assert(k_cholesky(&Bd, false, &L, &err));
  cr_expect(isnan(l[0]) && isnan(l[1]) && isnan(l[2]) && isnan(l[3]));
}

/* Complex double helpers for the tests. */
static void cload(EType t, const void *p, int64_t i, double *re, double *im) {
  double v[2] = {0, 0};
  if (etype_is_complex(t)) k_cvt(ET_C128, v, t, (const char *)p + i * etype_storage_bytes(t), 1);
  else v[0] = get_f(t, p, i);
  *re = v[0];
  *im = v[1];
}
static void cstore(EType t, void *p, int64_t i, double re, double im) {
  double v[2] = {re, im};
  if (etype_is_complex(t)) k_cvt(t, (char *)p + i * etype_storage_bytes(t), ET_C128, v, 1);
  else set_f(t, p, i, re);
}

Test(k_cholesky, random_spd_batched_all_types) {
  Rng rng = {4};
  EType types[] = {ET_F32, ET_F64, ET_C64, ET_C128};
  for (int rep = 0; rep < 40; rep++) {
    EType t = types[rep % 4];
    bool cpx = etype_is_complex(t), lower = (rep / 4) % 2;
    int64_t B = rng_int(&rng, 1, 3), n = rng_int(&rng, 1, 7);
    int64_t d[] = {B, n, n};
    double tol = (t == ET_F32 || t == ET_C64) ? 1e-4 : 1e-10;
    int es = etype_storage_bytes(t);
    char *a = calloc((size_t)(B * n * n), (size_t)es), *l = calloc((size_t)(B * n * n), (size_t)es);
    double (*full)[2] = malloc((size_t)(B * n * n) * 16);
    for (int64_t b = 0; b < B; b++) {
      double mr[64], mi[64];
      for (int64_t i = 0; i < n * n; i++) { mr[i] = rng_unit(&rng) - 0.5; mi[i] = cpx ? rng_unit(&rng) - 0.5 : 0; }
      for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
          double sr = i == j ? (double)n : 0, si = 0; /* M M^H + n I */
          for (int64_t k = 0; k < n; k++) {
            sr += mr[i * n + k] * mr[j * n + k] + mi[i * n + k] * mi[j * n + k];
            si += mi[i * n + k] * mr[j * n + k] - mr[i * n + k] * mi[j * n + k];
          }
          int64_t f = b * n * n + i * n + j;
          full[f][0] = sr; full[f][1] = si;
          bool read = lower ? i >= j : i <= j;
          if (read) cstore(t, a, f, sr, si);
          else cstore(t, a, f, 1e3, -7); /* garbage in the unread triangle */
        }
    }
    KArray A = ka(t, 3, d, a), Lr = ka(t, 3, d, l);
    Error err;
    cr_assert(k_cholesky(&A, lower, &Lr, &err), "%s", err.msg);
    for (int64_t b = 0; b < B; b++)
      for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
          /* lower: (L L^H)[i][j] = sum_k L[i][k] conj(L[j][k]); upper: (U^H U)[i][j] = sum_k conj(U[k][i]) U[k][j]. */
          double sr = 0, si = 0;
          for (int64_t k = 0; k < n; k++) {
            double ar, ai, br, bi;
            if (lower) { cload(t, l, b * n * n + i * n + k, &ar, &ai); cload(t, l, b * n * n + j * n + k, &br, &bi); bi = -bi; }
            else { cload(t, l, b * n * n + k * n + i, &ar, &ai); ai = -ai; cload(t, l, b * n * n + k * n + j, &br, &bi); }
            sr += ar * br - ai * bi;
            si += ar * bi + ai * br;
          }
          int64_t f = b * n * n + i * n + j;
          cr_assert(fabs(sr - full[f][0]) < tol * (double)n * 4 && fabs(si - full[f][1]) < tol * (double)n * 4, "%s rep %d", etype_name(t), rep);
          double zr, zi;
          cload(t, l, f, &zr, &zi);
          if (lower ? j > i : j < i) cr_assert(zr == 0 && zi == 0);
        }
    free(a); free(l); free(full);
  }
}

Test(k_triangular_solve, all_flag_combinations) {
  Rng rng = {6};
  EType types[] = {ET_F32, ET_F64, ET_C64, ET_C128};
  for (int combo = 0; combo < 24 * 4; combo++) {
    EType t = types[combo % 4];
    int c = combo / 4;
    KTriSolveParams p = {c & 1, (c >> 1) & 1, (c >> 2) & 1, (KTranspose)((c >> 3) % 3)};
    bool cpx = etype_is_complex(t);
    int64_t Bt = rng_int(&rng, 1, 2), m = rng_int(&rng, 1, 5), k = rng_int(&rng, 1, 4);
    int64_t ad[] = {Bt, m, m}, bd[] = {Bt, p.left_side ? m : k, p.left_side ? k : m};
    int es = etype_storage_bytes(t);
    char *a = calloc((size_t)(Bt * m * m), (size_t)es), *b = calloc((size_t)(Bt * m * k), (size_t)es), *x = calloc((size_t)(Bt * m * k), (size_t)es);
    for (int64_t i = 0; i < Bt * m * m; i++) {
      int64_t r = (i / m) % m, cc = i % m;
      double re = rng_unit(&rng) - 0.5, im = cpx ? rng_unit(&rng) - 0.5 : 0;
      if (r == cc) re += 4; /* well conditioned */
      cstore(t, a, i, re, im);
    }
    for (int64_t i = 0; i < Bt * m * k; i++) cstore(t, b, i, rng_unit(&rng) - 0.5, cpx ? rng_unit(&rng) - 0.5 : 0);
    KArray A = ka(t, 3, ad, a), Bm = ka(t, 3, bd, b), X = ka(t, 3, bd, x);
    Error err;
    cr_assert(k_triangular_solve(&A, &Bm, &p, &X, &err), "%s", err.msg);
    double tol = (t == ET_F32 || t == ET_C64) ? 1e-4 : 1e-11;
    for (int64_t bt = 0; bt < Bt; bt++) {
      /* op(a) from the read triangle only. */
      double opr[25], opi[25];
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < m; j++) {
          int64_t ai = p.transpose_a ? j : i, aj = p.transpose_a ? i : j;
          double re = 0, im = 0;
          if (ai == aj && p.unit_diagonal) re = 1;
          else if (p.lower ? ai >= aj : ai <= aj) {
            cload(t, a, bt * m * m + ai * m + aj, &re, &im);
            if (p.transpose_a == K_TRANS_ADJOINT) im = -im;
          }
          opr[i * m + j] = re; opi[i * m + j] = im;
        }
      int64_t rows = p.left_side ? m : k, cols = p.left_side ? k : m;
      for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
          double sr = 0, si = 0;
          for (int64_t q = 0; q < m; q++) {
            double xr, xi, er, ei;
            if (p.left_side) { er = opr[i * m + q]; ei = opi[i * m + q]; cload(t, x, bt * m * k + q * k + j, &xr, &xi); }
            else { cload(t, x, bt * m * k + i * m + q, &xr, &xi); er = opr[q * m + j]; ei = opi[q * m + j]; }
            sr += er * xr - ei * xi;
            si += er * xi + ei * xr;
          }
          double br, bi;
          cload(t, b, bt * m * k + i * cols + j, &br, &bi);
          cr_assert(fabs(sr - br) < tol && fabs(si - bi) < tol, "%s combo %d", etype_name(t), c);
        }
    }
    free(a); free(b); free(x);
  }
}

Test(k_batch_norm, training_hand_example_and_inference) {
  /* x [2, 2] with features on dim 1: feature 0 = {1, 3}, feature 1 = {2, 6}. */
  float x[] = {1, 2, 3, 6}, sc[] = {1, 2}, of[] = {0, 1}, y[4], mu[2], var[2];
  int64_t d[] = {2, 2}, c[] = {2};
  KArray X = ka(ET_F32, 2, d, x), S = ka(ET_F32, 1, c, sc), O = ka(ET_F32, 1, c, of);
  KArray Y = ka(ET_F32, 2, d, y), M = ka(ET_F32, 1, c, mu), V = ka(ET_F32, 1, c, var);
  Error err;
  cr_assert(k_batch_norm_training(&X, &S, &O, 0.0, 1, &Y, &M, &V, &err), "%s", err.msg);
  cr_expect(mu[0] == 2 && mu[1] == 4 && var[0] == 1 && var[1] == 4);
  cr_expect(y[0] == -1 && y[2] == 1 && y[1] == -1 && y[3] == 3);
  float yi[4];
  KArray YI = ka(ET_F32, 2, d, yi);
  cr_assert(k_batch_norm_inference(&X, &S, &O, &M, &V, 0.0, 1, &YI, &err));
  for (int i = 0; i < 4; i++) cr_expect_eq(yi[i], y[i]);
  cr_expect_not(k_batch_norm_training(&X, &S, &O, 0.0, 2, &Y, &M, &V, &err));
}

/* cuDNN's backward takes 1 / sqrt(var + eps) instead of var and eps, and
 * keeps f32 vectors beside f16 data.  x = {0, 1, 2, 5} (one feature, mean 2),
 * dy = {1, 0, 0, 1}, scale 2, inv = +-0.5, by hand: xhat = (x - 2) inv,
 * dx = scale inv (dy - mean(dy) - xhat mean(dy xhat)),
 * grad_scale = sum(dy xhat), grad_offset = sum(dy). */
Test(k_batch_norm, grad_from_inv_stddev_with_f16_data) {
  const float xs[] = {0, 1, 2, 5}, dys[] = {1, 0, 0, 1};
  const float want_dx[] = {0.625f, -0.4375f, -0.5f, 0.3125f};
  uint16_t x[4], dy[4], dx[4];
  for (int i = 0; i < 4; i++) x[i] = etype_f32_to_f16(xs[i]), dy[i] = etype_f32_to_f16(dys[i]);
  for (int sign = -1; sign <= 1; sign += 2) {
    float sc[] = {2}, mu[] = {2}, inv[] = {0.5f * (float)sign}, gs[1], go[1];
    int64_t d[] = {4, 1}, c[] = {1};
    KArray X = ka(ET_F16, 2, d, x), GY = ka(ET_F16, 2, d, dy), GX = ka(ET_F16, 2, d, dx);
    KArray S = ka(ET_F32, 1, c, sc), M = ka(ET_F32, 1, c, mu), IS = ka(ET_F32, 1, c, inv);
    KArray GS = ka(ET_F32, 1, c, gs), GO = ka(ET_F32, 1, c, go);
    Error err;
    cr_assert(k_batch_norm_grad_inv_stddev(&X, &S, &M, &IS, &GY, 1, &GX, &GS, &GO, &err), "%s",
              err.msg);
    for (int i = 0; i < 4; i++)
      cr_expect_eq(etype_f16_to_f32(dx[i]), (float)sign * want_dx[i], "dx[%d] sign %d", i, sign);
    cr_expect_eq(gs[0], 0.5f * (float)sign);
    cr_expect_eq(go[0], 2.0f);
  }
}

static double bn_loss(const double *x, const double *gy, const double *sc, const double *of, double eps, int64_t n0, int64_t c, int64_t n2) {
  double *y = malloc((size_t)(n0 * c * n2) * 8), mu[8], var[8], loss = 0;
  int64_t d[] = {n0, c, n2}, cd[] = {c};
  KArray X = ka(ET_F64, 3, d, (void *)x), S = ka(ET_F64, 1, cd, (void *)sc), O = ka(ET_F64, 1, cd, (void *)of);
  KArray Y = ka(ET_F64, 3, d, y), M = ka(ET_F64, 1, cd, mu), V = ka(ET_F64, 1, cd, var);
  Error err;
  k_batch_norm_training(&X, &S, &O, eps, 1, &Y, &M, &V, &err);
  for (int64_t i = 0; i < n0 * c * n2; i++) loss += gy[i] * y[i];
  free(y);
  return loss;
}

Test(k_batch_norm, grad_matches_finite_differences) {
  Rng rng = {12};
  int64_t n0 = 3, c = 2, n2 = 4, n = n0 * c * n2;
  double *x = rand_array(&rng, ET_F64, n, true), *gy = rand_array(&rng, ET_F64, n, true);
  double sc[] = {1.5, -0.7}, of[] = {0.2, 0.1}, eps = 1e-3, mu[2], var[2], *yt = malloc((size_t)n * 8);
  int64_t d[] = {n0, c, n2}, cd[] = {c};
  KArray X = ka(ET_F64, 3, d, x), S = ka(ET_F64, 1, cd, sc), O = ka(ET_F64, 1, cd, of), GY = ka(ET_F64, 3, d, gy);
  KArray M = ka(ET_F64, 1, cd, mu), V = ka(ET_F64, 1, cd, var), YT = ka(ET_F64, 3, d, yt);
  Error err;
  cr_assert(k_batch_norm_training(&X, &S, &O, eps, 1, &YT, &M, &V, &err));
  double *gx = malloc((size_t)n * 8), gs[2], go[2];
  KArray GX = ka(ET_F64, 3, d, gx), GS = ka(ET_F64, 1, cd, gs), GO = ka(ET_F64, 1, cd, go);
  cr_assert(k_batch_norm_grad(&X, &S, &M, &V, &GY, eps, 1, &GX, &GS, &GO, &err), "%s", err.msg);
  double h = 1e-6;
  for (int64_t i = 0; i < n; i++) {
    double keep = x[i];
    x[i] = keep + h;
    double lp = bn_loss(x, gy, sc, of, eps, n0, c, n2);
    x[i] = keep - h;
    double lm = bn_loss(x, gy, sc, of, eps, n0, c, n2);
    x[i] = keep;
    cr_assert(fabs((lp - lm) / (2 * h) - gx[i]) < 1e-5, "grad_x[%lld] %g vs %g", (long long)i, (lp - lm) / (2 * h), gx[i]);
  }
  for (int64_t f = 0; f < c; f++) {
    double keep = sc[f];
    sc[f] = keep + h;
    double lp = bn_loss(x, gy, sc, of, eps, n0, c, n2);
    sc[f] = keep - h;
    double lm = bn_loss(x, gy, sc, of, eps, n0, c, n2);
    sc[f] = keep;
    cr_assert(fabs((lp - lm) / (2 * h) - gs[f]) < 1e-5);
    double s = 0;
    for (int64_t a = 0; a < n0; a++) for (int64_t b = 0; b < n2; b++) s += gy[(a * c + f) * n2 + b];
    cr_assert(fabs(go[f] - s) < 1e-12);
  }
  free(x); free(gy); free(yt); free(gx);
}

/* The kernels stream the operand in chunks; check every way features can
 * fall across chunk boundaries (rows longer than a chunk, rows straddling
 * chunks, one element per row as in NHWC) against plain per-feature loops. */
Test(k_batch_norm, chunked_geometries_match_plain_loops) {
  const int64_t geo[][3] = {{3, 5, 1500}, {2100, 7, 1}, {2, 3, 5000}, {1, 1, 9000}};
  for (size_t gi = 0; gi < sizeof geo / sizeof geo[0]; gi++) {
    int64_t n0 = geo[gi][0], c = geo[gi][1], n2 = geo[gi][2], n = n0 * c * n2;
    Rng rng = {31 + gi};
    double *x = rand_array(&rng, ET_F64, n, true), *gy = rand_array(&rng, ET_F64, n, true);
    double *y = malloc((size_t)n * 8), *gx = malloc((size_t)n * 8), eps = 0.01;
    double sc[7], of[7], mu[7], var[7], gs[7], go[7];
    for (int64_t f = 0; f < c; f++) { sc[f] = 0.5 + (double)f; of[f] = 0.25 * (double)f; }
    int64_t d[] = {n0, c, n2}, cd[] = {c};
    KArray X = ka(ET_F64, 3, d, x), S = ka(ET_F64, 1, cd, sc), O = ka(ET_F64, 1, cd, of), GY = ka(ET_F64, 3, d, gy);
    KArray Y = ka(ET_F64, 3, d, y), M = ka(ET_F64, 1, cd, mu), V = ka(ET_F64, 1, cd, var);
    KArray GX = ka(ET_F64, 3, d, gx), GS = ka(ET_F64, 1, cd, gs), GO = ka(ET_F64, 1, cd, go);
    Error err;
    cr_assert(k_batch_norm_training(&X, &S, &O, eps, 1, &Y, &M, &V, &err), "%s", err.msg);
    cr_assert(k_batch_norm_grad(&X, &S, &M, &V, &GY, eps, 1, &GX, &GS, &GO, &err), "%s", err.msg);
    for (int64_t f = 0; f < c; f++) {
      double m = 0, v = 0, sgy = 0, sgyx = 0, cnt = (double)(n0 * n2);
      for (int64_t a = 0; a < n0; a++) for (int64_t b = 0; b < n2; b++) m += x[(a * c + f) * n2 + b];
      m /= cnt;
      for (int64_t a = 0; a < n0; a++)
        for (int64_t b = 0; b < n2; b++) {
          int64_t i = (a * c + f) * n2 + b;
          v += (x[i] - m) * (x[i] - m); sgy += gy[i]; sgyx += gy[i] * (x[i] - m);
        }
      v /= cnt;
      cr_assert(fabs(mu[f] - m) < 1e-12 && fabs(var[f] - v) < 1e-12, "geometry %zu feature %lld", gi, (long long)f);
      cr_assert(fabs(go[f] - sgy) < 1e-9 && fabs(gs[f] - sgyx / sqrt(v + eps)) < 1e-9);
      for (int64_t a = 0; a < n0; a++)
        for (int64_t b = 0; b < n2; b++) {
          int64_t i = (a * c + f) * n2 + b;
          double want_y = (x[i] - m) / sqrt(v + eps) * sc[f] + of[f];
          double want_gx = sc[f] / sqrt(v + eps) * (gy[i] - sgy / cnt - sgyx / cnt / (v + eps) * (x[i] - m));
          cr_assert(fabs(y[i] - want_y) < 1e-9 && fabs(gx[i] - want_gx) < 1e-9, "geometry %zu element %lld", gi, (long long)i);
        }
    }
    free(x); free(gy); free(y); free(gx);
  }
}

Test(k_linalg, errors) {
  float a[6] = {0};
  KArray A = ka(ET_F32, 2, (int64_t[]){2, 3}, a), Iv = ka(ET_S32, 2, (int64_t[]){2, 2}, a);
  Error err;
  cr_expect_not(k_cholesky(&A, true, &A, &err));
  cr_expect_not(k_cholesky(&Iv, true, &Iv, &err));
  KTriSolveParams p = {true, true, false, K_TRANS_NO};
  KArray Sq = ka(ET_F32, 2, (int64_t[]){2, 2}, a), Bb = ka(ET_F32, 2, (int64_t[]){3, 2}, a);
  cr_expect_not(k_triangular_solve(&Sq, &Bb, &p, &Bb, &err));
}
