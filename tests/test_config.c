/* Memory configuration: presets, YAML files, errors with line and column. */
#include <criterion/criterion.h>
#include <string.h>

#include "interp/io/config.h"

static bool parse(const char *text, MemConfig *cfg, Error *err) {
  return config_parse_yaml("m.yaml", text, strlen(text), cfg, err);
}

static const MemSpaceConfig *space(const MemConfig *c, int64_t id) {
  for (int i = 0; i < c->nspaces; i++)
    if (c->spaces[i].id == id) return &c->spaces[i];
  return NULL;
}

Test(config, byte_sizes) {
  int64_t b;
  cr_assert(config_parse_bytes("16GiB", &b));
  cr_assert_eq(b, (int64_t)16 << 30);
  cr_assert(config_parse_bytes("128 MiB", &b));
  cr_assert_eq(b, (int64_t)128 << 20);
  cr_assert(config_parse_bytes("4096", &b));
  cr_assert_eq(b, 4096);
  cr_assert(config_parse_bytes("1.5KiB", &b));
  cr_assert_eq(b, 1536);
  cr_assert(config_parse_bytes("2GB", &b));
  cr_assert_eq(b, 2000000000);
  cr_assert(config_parse_bytes("1T", &b));
  cr_assert_eq(b, (int64_t)1 << 40);
  cr_assert(config_parse_bytes("unlimited", &b));
  cr_assert_eq(b, MEM_UNLIMITED);
  cr_assert_not(config_parse_bytes("", &b));
  cr_assert_not(config_parse_bytes("-5", &b));
  cr_assert_not(config_parse_bytes("12 parsecs", &b));
  cr_assert_not(config_parse_bytes("1.3", &b)); /* not a whole number of bytes */
  cr_assert_not(config_parse_bytes("GiB", &b));
  cr_assert_not(config_parse_bytes("1e30", &b));
}

Test(config, bandwidths) {
  double bw;
  cr_assert(config_parse_bandwidth("819GB/s", &bw));
  cr_assert_float_eq(bw, 819e9, 1);
  cr_assert(config_parse_bandwidth("1.2TB/s", &bw));
  cr_assert_float_eq(bw, 1.2e12, 1);
  cr_assert(config_parse_bandwidth("900e9", &bw));
  cr_assert_float_eq(bw, 900e9, 1);
  cr_assert_not(config_parse_bandwidth("fast", &bw));
  cr_assert_not(config_parse_bandwidth("1GB/h", &bw));
}

Test(config, presets) {
  MemConfig c;
  Error err;
  cr_assert(config_preset("tpu-v4", &c, &err));
  cr_assert_eq(space(&c, 0)->capacity, (int64_t)32 << 30);
  cr_assert_eq(space(&c, 1)->capacity, (int64_t)16 << 20);
  cr_assert_str_eq(space(&c, 1)->name, "VMEM");
  cr_assert(config_preset("tpu-v5e", &c, &err));
  cr_assert_eq(space(&c, 0)->capacity, (int64_t)16 << 30);
  cr_assert_eq(space(&c, 1)->capacity, (int64_t)128 << 20);
  cr_assert_float_eq(space(&c, 0)->bandwidth, 819e9, 1);
  cr_assert(config_preset("cpu", &c, &err));
  cr_assert_not_null(space(&c, 0));
  cr_assert_not_null(space(&c, 5));
  cr_assert_not(config_preset("tpu-v99", &c, &err));
  cr_assert(strstr(err.msg, "unknown device 'tpu-v99'"), "%s", err.msg);
  cr_assert(strstr(err.msg, "tpu-v5e"), "%s", err.msg);
  const char *const *names = config_preset_names();
  int n = 0;
  while (names[n]) n++;
  cr_assert_geq(n, 3);
}

Test(config, full_file) {
  MemConfig c;
  Error err;
  const char *y = "device: board\n"
                  "strict: true\n"
                  "spaces:\n"
                  "  - id: 0\n"
                  "    name: DRAM\n"
                  "    capacity: 2GiB\n"
                  "    bandwidth: 100GB/s\n"
                  "  - {id: 1, name: SRAM, capacity: 256KiB}\n";
  cr_assert(parse(y, &c, &err), "%s", err.msg);
  cr_assert_str_eq(c.device, "board");
  cr_assert(c.strict);
  cr_assert_eq(c.nspaces, 2);
  cr_assert_str_eq(space(&c, 0)->name, "DRAM");
  cr_assert_eq(space(&c, 0)->capacity, (int64_t)2 << 30);
  cr_assert_float_eq(space(&c, 0)->bandwidth, 100e9, 1);
  cr_assert_eq(space(&c, 1)->capacity, 256 * 1024);
  MemSystem m;
  cr_assert(config_apply(&c, &m, &err));
  cr_assert(m.strict);
  cr_assert_eq(m.nspaces, 2);
}

Test(config, base_preset_then_override) {
  MemConfig c;
  Error err;
  const char *y = "spaces:\n  - id: 1\n    capacity: 1MiB\nbase: tpu-v4\n";
  cr_assert(parse(y, &c, &err), "%s", err.msg);
  cr_assert_eq(space(&c, 1)->capacity, 1 << 20);
  cr_assert_str_eq(space(&c, 1)->name, "VMEM");       /* kept from the base */
  cr_assert_eq(space(&c, 0)->capacity, (int64_t)32 << 30);
}

static void expect_error(const char *y, const char *where, const char *what) {
  MemConfig c;
  Error err = {0};
  cr_assert_not(parse(y, &c, &err), "accepted: %s", y);
  cr_assert_eq(err.kind, ERR_USAGE);
  cr_assert(strstr(err.msg, where), "want '%s' in: %s", where, err.msg);
  cr_assert(strstr(err.msg, what), "want '%s' in: %s", what, err.msg);
}

Test(config, errors_with_line_and_column) {
  expect_error("spaces:\n  - id: 0\n    capacity: 12 parsecs\n", "m.yaml:3:15:", "capacity");
  expect_error("spaces:\n  - id: 0\n    colour: red\n", "m.yaml:3:5:", "unknown key 'colour'");
  expect_error("devices: x\n", "m.yaml:1:1:", "unknown key 'devices'");
  expect_error("spaces: [1, 2\n", "m.yaml:", "malformed YAML");
  expect_error("spaces:\n  - name: X\n", "m.yaml:2:5:", "without an 'id'");
  expect_error("spaces:\n  - id: zero\n", "m.yaml:2:9:", "not an integer");
  expect_error("spaces:\n  - id: 0\n  - id: 0\n", "m.yaml:3:9:", "listed twice");
  expect_error("spaces: 3\n", "m.yaml:1:9:", "must be a list");
  expect_error("- 1\n", "m.yaml:1:1:", "must be a mapping");
  expect_error("", "m.yaml:1:1:", "empty");
  expect_error("base: tpu-v0\n", "m.yaml:1:7:", "unknown device");
  expect_error("strict: maybe\n", "m.yaml:1:9:", "not a boolean");
  expect_error("spaces:\n  - id: 0\n    bandwidth: quick\n", "m.yaml:3:16:", "bandwidth");
  expect_error("device: x\n", "m.yaml:1:1:", "no memory spaces");
}

Test(config, missing_file) {
  MemConfig c;
  Error err;
  cr_assert_not(config_load_file("/nonexistent/m.yaml", &c, &err));
  cr_assert(strstr(err.msg, "/nonexistent/m.yaml"), "%s", err.msg);
}

/* Peak compute: the presets carry the Cloud TPU per-chip figures; a file
 * replaces the classes it names and keeps the base's others. */
Test(config, peak_flops) {
  MemConfig c;
  Error err;
  cr_assert(config_preset("tpu-v5e", &c, &err));
  cr_assert_eq(c.peak_flops[PEAK_BF16], 197e12);
  cr_assert_eq(c.peak_flops[PEAK_INT8], 394e12);
  cr_assert(config_preset("tpu-v5p", &c, &err));
  cr_assert_eq(c.peak_flops[PEAK_BF16], 459e12);
  cr_assert_eq(c.peak_flops[PEAK_INT8], 918e12);
  cr_assert(config_preset("tpu-v4", &c, &err));
  cr_assert_eq(c.peak_flops[PEAK_BF16], 275e12);
  const char *y = "base: tpu-v4\npeak_flops: {f32: 1.5e12, f64: 7e11}\n";
  cr_assert(parse(y, &c, &err), "%s", err.msg);
  cr_assert_eq(c.peak_flops[PEAK_F32], 1.5e12);
  cr_assert_eq(c.peak_flops[PEAK_F64], 7e11);
  cr_assert_eq(c.peak_flops[PEAK_BF16], 275e12); /* kept from the base */
  const char *bad[][2] = {
      {"base: cpu\npeak_flops: {f8: 1e12}\n", "m.yaml:2:14: peak_flops: unknown element type 'f8'"},
      {"base: cpu\npeak_flops: {f32: fast}\n", "m.yaml:2:19: peak_flops: 'fast' is not a positive"},
      {"base: cpu\npeak_flops: {f32: -1}\n", "m.yaml:2:19: peak_flops: '-1' is not a positive"},
      {"base: cpu\npeak_flops: [1e12]\n", "m.yaml:2:13: 'peak_flops' must be a mapping"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cr_assert_not(parse(bad[i][0], &c, &err), "accepted: %s", bad[i][0]);
    cr_expect(strncmp(err.msg, bad[i][1], strlen(bad[i][1])) == 0, "got: %s\nwant: %s", err.msg,
              bad[i][1]);
  }
}
