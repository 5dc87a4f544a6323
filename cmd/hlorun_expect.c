/* hlorun --expect: options, loading the reference, one line per output
 * (cmd/hlorun_expect.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "cmd/common/cli.h"
#include "cmd/hlorun_expect.h"
#include "cmd/hlorun_outputs.h"
#include "interp/compare.h"
#include "layout/etype_convert.h"

void hlorun_expect_usage(FILE *f) {
  fputs("comparing with a reference:\n"
        "  --expect FILE.npy|.npz    compare the result with reference arrays (entries\n"
        "                            named as --output writes them); one line per output\n"
        "                            on stderr, exit status 4 if anything differs\n"
        "  --rtol R, --atol A        floats pass when |got - want| <= A + R * |want|\n"
        "                            (default per type: f32/f64 1e-5 and 1e-8; bf16, f16,\n"
        "                            f8: two units in the last place, docs/cli.md)\n",
        f);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

/* "--opt=value" or "--opt value" when argv[*i] is --opt; NULL with *is set
 * false when it is another option. */
static const char *option_value(int argc, char **argv, int *i, const char *opt, bool *is) {
  const char *a = argv[*i];
  size_t n = strlen(opt);
  *is = !strncmp(a, opt, n) && (a[n] == 0 || a[n] == '=');
  if (!*is) return NULL;
  if (a[n] == '=') return a + n + 1;
  return *i + 1 < argc ? argv[++*i] : NULL;
}

static int tolerance_option(const char *opt, const char *v, double *out, bool *set) {
  char *end;
  errno = 0;
  double x = v && *v ? strtod(v, &end) : NAN;
  if (!v || !*v || *end || errno || !isfinite(x) || x < 0) {
    cli_error("hlorun", "%s needs a number >= 0, got '%s'", opt, v ? v : "");
    return -1;
  }
  *out = x;
  *set = true;
  return 1;
}

int hlorun_expect_option(int argc, char **argv, int *i, HlorunExpectArgs *a) {
  bool is;
  const char *v = option_value(argc, argv, i, "--expect", &is);
  if (is) {
    if (!v || strlen(v) < 5 || (!ends_with(v, ".npy") && !ends_with(v, ".npz"))) {
      cli_error("hlorun", "--expect must name a .npy or .npz file, got '%s'", v ? v : "");
      return -1;
    }
    a->path = v;
    return 1;
  }
  v = option_value(argc, argv, i, "--rtol", &is);
  if (is) return tolerance_option("--rtol", v, &a->rtol, &a->rtol_set);
  v = option_value(argc, argv, i, "--atol", &is);
  if (is) return tolerance_option("--atol", v, &a->atol, &a->atol_set);
  return 0;
}

int hlorun_expect_load(const char *prog, const HlorunExpectArgs *a, int64_t ndevices,
                       HlorunExpect *e) {
  memset(e, 0, sizeof *e);
  e->args = a;
  if (!a->path) {
    if (a->rtol_set || a->atol_set)
      return cli_usage_error(prog, "--rtol and --atol apply to --expect, which is not given");
    return EXIT_OK;
  }
  e->is_npz = ends_with(a->path, ".npz");
  if (!e->is_npz && ndevices > 1)
    return cli_usage_error(prog,
                           "--expect %s: the run has %" PRId64 " devices, each with its own "
                           "result; give the reference as .npz (entries r{R}_out{i})",
                           a->path, ndevices);
  Error err = {0};
  bool ok = e->is_npz ? npz_read_file(a->path, &e->npz, &err) : npy_read_file(a->path, &e->npy, &err);
  if (!ok) {
    cli_error(prog, "--expect: %s", err.msg);
    return EXIT_RUNTIME;
  }
  e->loaded = true;
  return EXIT_OK;
}

void hlorun_expect_free(HlorunExpect *e) {
  if (!e->loaded) return;
  if (e->is_npz) npz_free(&e->npz);
  else npy_free(&e->npy);
  e->loaded = false;
}

/* The reference entry called `name`, or NULL; marks it used. */
static const NpyArray *find_entry(const HlorunExpect *e, const char *name, bool *used) {
  if (!e->is_npz) {
    if (strcmp(name, "out0")) return NULL;
    used[0] = true;
    return &e->npy;
  }
  for (int k = 0; k < e->npz.count; k++)
    if (!strcmp(e->npz.entries[k].name, name)) {
      used[k] = true;
      return &e->npz.entries[k].array;
    }
  return NULL;
}

static void put_type(StrBuf *sb, const RunLeaf *l) {
  sb_printf(sb, "%s[", etype_name(l->shape->etype));
  for (int d = 0; d < l->shape->rank; d++) sb_printf(sb, "%s%" PRId64, d ? "," : "", l->dims[d]);
  sb_putc(sb, ']');
}

/* "out0: ok  f32[4,4]  max abs 1.2e-07  max rel 3.4e-08  max ulp 1  mismatches 0/16"
 * and on failure ", first at [0,2]: got 1.5 want 1.25" after the count. */
static void put_report(StrBuf *sb, const RunLeaf *l, const CompareReport *c) {
  EType t = l->shape->etype;
  if (c->verdict == COMPARE_DTYPE_DIFFERS || c->verdict == COMPARE_SHAPE_DIFFERS) {
    sb_printf(sb, "  %s", c->reason);
    return;
  }
  sb_printf(sb, "  max abs %.3g", c->max_abs);
  if (etype_is_float(t) || etype_is_complex(t))
    sb_printf(sb, "  max rel %.3g  max ulp %" PRIu64, c->max_rel, c->max_ulp);
  sb_printf(sb, "  mismatches %" PRId64 "/%" PRId64, c->mismatches, c->total);
  if (c->verdict != COMPARE_VALUES_DIFFER) return;
  sb_puts(sb, ", first at [");
  for (int d = 0; d < c->rank; d++) sb_printf(sb, "%s%" PRId64, d ? "," : "", c->first_index[d]);
  sb_puts(sb, "]: got ");
  etype_format(sb, t, c->got, true);
  sb_puts(sb, " want ");
  etype_format(sb, t, c->want, true);
}

/* The entry-name prefix of a device's outputs, as --output writes them. */
static void device_prefix(const RunResult *all, const RunResult *r, char *buf, size_t size) {
  if (all->ndevices <= 1) buf[0] = 0;
  else if (r->npartitions > 1)
    snprintf(buf, size, "r%" PRId64 "p%" PRId64 "_", r->replica_id, r->partition_id);
  else snprintf(buf, size, "r%" PRId64 "_", r->replica_id);
}

int hlorun_expect_check(const char *prog, const HlorunExpect *e, const RunResult *res, FILE *out) {
  fflush(stdout); /* the printed result first when both streams go to one place */
  int nentries = e->is_npz ? e->npz.count : 1;
  bool *used = calloc((size_t)(nentries ? nentries : 1), sizeof *used);
  if (!used) {
    cli_error(prog, "out of memory comparing with %s", e->args->path);
    return EXIT_RUNTIME;
  }
  bool all_ok = true;
  StrBuf sb;
  sb_init(&sb);
  for (int d = 0; d < res->ndevices; d++) {
    const RunResult *r = run_result_device(res, d);
    char name[320], prefix[64];
    device_prefix(res, r, prefix, sizeof prefix);
    for (int i = 0; i < r->nleaves; i++) {
      const RunLeaf *l = &r->leaves[i];
      /* The result's own name (jax.result_info) first, then out{i}. */
      hlorun_leaf_name(r, i, prefix, name, sizeof name);
      const NpyArray *want = e->is_npz ? find_entry(e, name, used) : NULL;
      if (!want) {
        char pos[96];
        snprintf(pos, sizeof pos, "%sout%d", prefix, i);
        if ((want = find_entry(e, pos, used))) snprintf(name, sizeof name, "%s", pos);
      }
      sb.len = 0;
      CompareReport c;
      if (!want) {
        c.verdict = COMPARE_VALUES_DIFFER;
        sb_printf(&sb, "%s: MISMATCH  ", name);
        put_type(&sb, l);
        sb_printf(&sb, "  missing: %s has no entry %s%s", e->args->path, name,
                  e->is_npz ? "" : " (a .npy holds one array, out0; give a .npz)");
        all_ok = false;
      } else {
        CompareTolerance tol = compare_default_tolerance(l->shape->etype);
        if (e->args->rtol_set) tol.rtol = e->args->rtol;
        if (e->args->atol_set) tol.atol = e->args->atol;
        Error err = {0};
        if (!compare_array(l->shape->etype, l->shape->rank, l->dims, l->data, want, tol, &c,
                           &err)) {
          cli_error(prog, "%s", err.msg);
          sb_free(&sb);
          free(used);
          return EXIT_RUNTIME;
        }
        sb_printf(&sb, "%s: %s  ", name, c.verdict == COMPARE_OK ? "ok" : "MISMATCH");
        put_type(&sb, l);
        put_report(&sb, l, &c);
        all_ok = all_ok && c.verdict == COMPARE_OK;
      }
      sb_putc(&sb, '\n');
      fwrite(sb.data, 1, sb.len, out);
    }
  }
  for (int k = 0; k < nentries; k++) {
    if (used[k]) continue;
    const char *name = e->is_npz ? e->npz.entries[k].name : "out0";
    fprintf(out, "%s: MISMATCH  extra: %s has entry %s, the result has no output of that name\n",
            name, e->args->path, name);
    all_ok = false;
  }
  sb_free(&sb);
  free(used);
  return all_ok ? EXIT_OK : EXIT_MISMATCH;
}
