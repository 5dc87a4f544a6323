/* AwsNeuronGelu, AwsNeuronGeluApprxTanh and AwsNeuronGeluBackward
 * (interp/custom_call/neuron.c) give, element for element, the scalar
 * formulas of torch-neuronx's reference computed here with libm, in f32 and
 * through bf16, on every bf16 bit pattern (specials included). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "interp/io/config.h"
#include "interp/run.h"
#include "parser/parser.h"

enum { N = 65536 };

static float gelu_ref(float x) { return 0.5f * x * (1.0f + erff(x * (float)M_SQRT1_2)); }
static float gelu_tanh_ref(float x) {
  const float k = 0.7978845608f;
  return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}
static float gelu_grad_ref(float x) {
  const float inv_sqrt_2pi = 0.3989422804f;
  return 0.5f * (1.0f + erff(x * (float)M_SQRT1_2)) + x * inv_sqrt_2pi * expf(-0.5f * x * x);
}

static float bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
/* f32 -> bf16 -> f32, round to nearest even (NaN stays NaN) */
static float via_bf16(float f) {
  if (f != f) return f;
  uint32_t u = f32_bits(f);
  u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  return bits_f32(u);
}

static void check(const char *type) {
  char text[1024];
  snprintf(text, sizeof text,
           "HloModule g\nENTRY e {\n  x = f32[%d] parameter(0)\n  c = %s[%d] convert(x)\n"
           "  a = %s[%d] custom-call(c), custom_call_target=\"AwsNeuronGelu\"\n"
           "  b = %s[%d] custom-call(c), custom_call_target=\"AwsNeuronGeluApprxTanh\"\n"
           "  d = %s[%d] custom-call(c), custom_call_target=\"AwsNeuronGeluBackward\"\n"
           "  fa = f32[%d] convert(a)\n  fb = f32[%d] convert(b)\n  fd = f32[%d] convert(d)\n"
           "  ROOT t = (f32[%d], f32[%d], f32[%d]) tuple(fa, fb, fd)\n}\n",
           N, type, N, type, N, type, N, type, N, N, N, N, N, N, N);
  Diags diags = {0};
  Module *m = parse_module("g.hlo", text, strlen(text), &diags);
  cr_assert_not_null(m);
  static float x[N];
  for (uint32_t i = 0; i < N; i++) x[i] = bits_f32(i << 16); /* every bf16 value */
  NpyArray a = {.etype = ET_F32, .rank = 1, .count = N, .data = x};
  a.dims[0] = N;
  RunInput in = {"x", NULL, &a};
  MemConfig cfg;
  config_default(&cfg);
  RunOptions opt = {0};
  opt.memory = &cfg;
  opt.threads = 2;
  RunResult res;
  Error err = {0};
  cr_assert(run_module(m, &opt, &in, 1, &res, &err), "%s", err.msg);
  float (*ref[3])(float) = {gelu_ref, gelu_tanh_ref, gelu_grad_ref};
  bool bf = strcmp(type, "bf16") == 0;
  for (int k = 0; k < 3; k++) {
    const float *got = res.leaves[k].data;
    for (int i = 0; i < N; i++) {
      float want = ref[k](x[i]);
      if (bf) want = via_bf16(want);
      if (want != want) cr_assert(got[i] != got[i], "%s op %d x=%a: want NaN, got %a", type, k, x[i], got[i]);
      else cr_assert_eq(f32_bits(got[i]), f32_bits(want), "%s op %d x=%a: got %a, want %a", type, k,
                        x[i], got[i], want);
    }
  }
  run_result_free(&res);
  module_free(m);
  diags_free(&diags);
}

Test(neuron_gelu, f32_every_bf16_value) { check("f32"); }
Test(neuron_gelu, bf16_every_value) { check("bf16"); }
