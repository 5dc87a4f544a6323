/* The verifier on small modules written as HLO text: each op's valid form
 * passes, typical wrong forms give the expected diagnostic. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "parser/parser.h"
#include "parser/verify.h"

/* Valid cases must parse and verify; invalid ones must be rejected (some
 * by the parser, which checks a few things first) with a first diagnostic
 * containing want (any, when want is NULL). */
typedef struct {
  const char *name;
  const char *text;
  const char *want;
} Case;

#define ENTRY(body) "HloModule m\n\nENTRY main {\n" body "}\n"
#define ADD_F32 "add {\n x = f32[] parameter(0)\n y = f32[] parameter(1)\n ROOT s = f32[] add(x, y)\n}\n"
#define WITH_ADD(body) "HloModule m\n\n" ADD_F32 "\nENTRY main {\n" body "}\n"
#define LT_F32 "lt {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = pred[] compare(a, b), direction=LT\n}\n"

static const Case valid[] = {
    /* XLA's verifier takes operands of any shape on after-all (its parser
     * tests chain add-dependency through after-all(f32[])). */
    {"after-all of arrays", ENTRY("a = f32[] parameter(0)\n t = token[] after-all(a)\n"
                                  " ROOT d = f32[] add-dependency(a, t)\n"), NULL},
    {"unary ops", ENTRY("p = f32[4] parameter(0)\n"
                        "a = f32[4] abs(p)\n c = f32[4] cbrt(a)\n d = f32[4] ceil(c)\n"
                        "e = f32[4] cosine(d)\n f = f32[4] erf(e)\n g = f32[4] exponential(f)\n"
                        "h = f32[4] exponential-minus-one(g)\n i = f32[4] floor(h)\n"
                        "j = f32[4] log(i)\n k = f32[4] log-plus-one(j)\n l = f32[4] logistic(k)\n"
                        "m = f32[4] negate(l)\n n = f32[4] round-nearest-afz(m)\n"
                        "o = f32[4] round-nearest-even(n)\n q = f32[4] rsqrt(o)\n r = f32[4] sign(q)\n"
                        "s = f32[4] sine(r)\n t = f32[4] sqrt(s)\n u = f32[4] tan(t)\n"
                        "v = f32[4] tanh(u)\n w = f32[4] copy(v)\n fin = pred[4] is-finite(w)\n"
                        "x = f32[4] reduce-precision(w), exponent_bits=5, mantissa_bits=10\n"
                        "ROOT y = (pred[4], f32[4]) tuple(fin, x)\n"),
     NULL},
    {"integer unary ops", ENTRY("p = s32[4] parameter(0)\n a = s32[4] count-leading-zeros(p)\n"
                                "b = s32[4] popcnt(a)\n c = s32[4] not(b)\n ROOT d = s32[4] abs(c)\n"),
     NULL},
    {"complex ops", ENTRY("a = f32[2] parameter(0)\n b = f32[2] parameter(1)\n"
                          "c = c64[2] complex(a, b)\n r = f32[2] real(c)\n i = f32[2] imag(c)\n"
                          "m = f32[2] abs(c)\n ROOT t = (f32[2], f32[2], f32[2]) tuple(r, i, m)\n"),
     NULL},
    {"binary ops", ENTRY("a = f32[2,3] parameter(0)\n b = f32[2,3] parameter(1)\n"
                         "c = f32[2,3] add(a, b)\n d = f32[2,3] subtract(c, b)\n"
                         "e = f32[2,3] multiply(d, b)\n f = f32[2,3] divide(e, b)\n"
                         "g = f32[2,3] maximum(f, b)\n h = f32[2,3] minimum(g, b)\n"
                         "i = f32[2,3] power(h, b)\n j = f32[2,3] remainder(i, b)\n"
                         "k = f32[2,3] atan2(j, b)\n ROOT l = pred[2,3] compare(k, b), direction=GE\n"),
     NULL},
    {"integer binary ops", ENTRY("a = u32[3] parameter(0)\n b = u32[3] parameter(1)\n"
                                 "c = u32[3] and(a, b)\n d = u32[3] or(c, b)\n e = u32[3] xor(d, b)\n"
                                 "f = u32[3] shift-left(e, b)\n g = u32[3] shift-right-logical(f, b)\n"
                                 "ROOT h = u32[3] shift-right-arithmetic(g, b)\n"),
     NULL},
    {"select clamp", ENTRY("p = pred[3] parameter(0)\n a = f32[3] parameter(1)\n"
                           "lo = f32[] parameter(2)\n s = f32[3] select(p, a, a)\n"
                           "ROOT c = f32[3] clamp(lo, s, lo)\n"),
     NULL},
    {"converts", ENTRY("a = f32[2,3] parameter(0)\n b = bf16[2,3] convert(a)\n"
                       "c = u8[2,3,4] bitcast-convert(a)\n d = f32[2,3] bitcast-convert(c)\n"
                       "e = f32[3,2]{0,1} bitcast(d)\n r = u16[2,3] parameter(1)\n"
                       "f = f16[2,3] stochastic-convert(b, r)\n"
                       "ROOT t = (f32[3,2], f16[2,3]) tuple(e, f)\n"),
     NULL},
    {"shape ops", ENTRY("a = f32[2,3] parameter(0)\n i = s32[] parameter(1)\n z = f32[] constant(0)\n"
                        "b = f32[4,2,3] broadcast(a), dimensions={1,2}\n"
                        "r = f32[8,3] reshape(b)\n t = f32[3,8] transpose(r), dimensions={1,0}\n"
                        "v = f32[3,8] reverse(t), dimensions={0,1}\n"
                        "s = f32[2,4] slice(v), slice={[1:3], [0:8:2]}\n"
                        "ds = f32[1,2] dynamic-slice(s, i, i), dynamic_slice_sizes={1,2}\n"
                        "us = f32[2,4] dynamic-update-slice(s, ds, i, i)\n"
                        "c = f32[4,4] concatenate(us, s), dimensions={0}\n"
                        "p = f32[5,8] pad(c, z), padding=0_1x1_0_1\n"
                        "io = s32[5,9] iota(), iota_dimension=1\n"
                        "g = s32[] get-dimension-size(p), dimensions={1}\n"
                        "sd = f32[5,<=8] set-dimension-size(p, g), dimensions={1}\n"
                        "dr = f32[8,5] dynamic-reshape(p, g, g)\n"
                        "ROOT tt = (f32[5,<=8], s32[5,9], f32[8,5]) tuple(sd, io, dr)\n"),
     NULL},
    {"reduce and windows", WITH_ADD("a = f32[4,6] parameter(0)\n z = f32[] constant(0)\n"
                                    "r = f32[6] reduce(a, z), dimensions={0}, to_apply=add\n"
                                    "w = f32[2,3] reduce-window(a, z), window={size=2x2 stride=2x2}, to_apply=add\n"
                                    "ROOT t = (f32[6], f32[2,3]) tuple(r, w)\n"),
     NULL},
    {"variadic reduce", "HloModule m\n\nmx {\n a = f32[] parameter(0)\n b = s32[] parameter(1)\n"
                        " c = f32[] parameter(2)\n d = s32[] parameter(3)\n"
                        " ROOT t = (f32[], s32[]) tuple(a, b)\n}\n\nENTRY main {\n"
                        "v = f32[4,6] parameter(0)\n i = s32[4,6] parameter(1)\n"
                        "z = f32[] constant(0)\n o = s32[] constant(0)\n"
                        "ROOT r = (f32[4], s32[4]) reduce(v, i, z, o), dimensions={1}, to_apply=mx\n}\n",
     NULL},
    {"sort topk", "HloModule m\n\n" LT_F32 "\nENTRY main {\n a = f32[4,6] parameter(0)\n"
                  "s = f32[4,6] sort(a), dimensions={1}, to_apply=lt\n"
                  "k = (f32[4,2], s32[4,2]) topk(s), k=2\n"
                  "ROOT t = (f32[4,6], (f32[4,2], s32[4,2])) tuple(s, k)\n}\n",
     NULL},
    {"dot conv", ENTRY("a = f32[8,2,3] parameter(0)\n b = f32[8,3,5] parameter(1)\n"
                       "d = f32[8,2,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}\n"
                       "x = f32[1,5,5,2] parameter(2)\n k = f32[3,3,2,4] parameter(3)\n"
                       "c = f32[1,3,3,4] convolution(x, k), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n"
                       "ROOT t = (f32[8,2,5], f32[1,3,3,4]) tuple(d, c)\n"),
     NULL},
    {"gather scatter", WITH_ADD("op = f32[5,4] parameter(0)\n idx = s32[3,1] parameter(1)\n"
                                "g = f32[3,4] gather(op, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}\n"
                                "ROOT s = f32[5,4] scatter(op, idx, g), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n"),
     NULL},
    {"linear algebra", ENTRY("a = f32[3,3] parameter(0)\n b = f32[3,4] parameter(1)\n"
                             "l = f32[3,3] cholesky(a), lower=true\n"
                             "x = f32[3,4] triangular-solve(l, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n"
                             "c = c64[8] parameter(2)\n f = c64[8] fft(c), fft_type=FFT, fft_length={8}\n"
                             "r = f32[8] parameter(3)\n rf = c64[5] fft(r), fft_type=RFFT, fft_length={8}\n"
                             "ROOT t = (f32[3,4], c64[8], c64[5]) tuple(x, f, rf)\n"),
     NULL},
    {"batch norm", ENTRY("x = f32[2,4] parameter(0)\n s = f32[4] parameter(1)\n"
                         "t = (f32[2,4], f32[4], f32[4]) batch-norm-training(x, s, s), epsilon=0.001, feature_index=1\n"
                         "i = f32[2,4] batch-norm-inference(x, s, s, s, s), epsilon=0.001, feature_index=1\n"
                         "g = (f32[2,4], f32[4], f32[4]) batch-norm-grad(x, s, s, s, i), epsilon=0.001, feature_index=1\n"
                         "ROOT r = ((f32[2,4], f32[4], f32[4]), (f32[2,4], f32[4], f32[4])) tuple(t, g)\n"),
     NULL},
    {"control flow", "HloModule m\n\ncond {\n p = (s32[], f32[2]) parameter(0)\n"
                     " i = s32[] get-tuple-element(p), index=0\n c = s32[] constant(3)\n"
                     " ROOT lt = pred[] compare(i, c), direction=LT\n}\n\n"
                     "body {\n ROOT p = (s32[], f32[2]) parameter(0)\n}\n\n"
                     "br {\n ROOT x = f32[2] parameter(0)\n}\n\n"
                     "ENTRY main {\n s = (s32[], f32[2]) parameter(0)\n"
                     " w = (s32[], f32[2]) while(s), condition=cond, body=body\n"
                     " v = f32[2] get-tuple-element(w), index=1\n b = pred[] parameter(1)\n"
                     " c = f32[2] conditional(b, v, v), true_computation=br, false_computation=br\n"
                     " k = s32[] parameter(2)\n"
                     " d = f32[2] conditional(k, v, v, c), branch_computations={br, br, br}\n"
                     " e = f32[2] call(d), to_apply=br\n"
                     " f = f32[2] fusion(e), kind=kLoop, calls=br\n"
                     " ROOT o = f32[2] opt-barrier(f)\n}\n",
     NULL},
    {"tokens and io", ENTRY("t = token[] after-all()\n d = f32[2] parameter(0)\n"
                            "a = f32[2] add-dependency(d, t)\n"
                            "i = ((f32[2]), token[]) infeed(t)\n o = token[] outfeed(a, t)\n"
                            "s = (f32[2], u32[], token[]) send(a, t), channel_id=1\n"
                            "sd = token[] send-done(s), channel_id=1\n"
                            "r = (f32[2], u32[], token[]) recv(t), channel_id=2\n"
                            "rd = (f32[2], token[]) recv-done(r), channel_id=2\n"
                            "cs = (f32[2], f32[2], u32[]) copy-start(a)\n cd = f32[2] copy-done(cs)\n"
                            "ROOT x = (f32[2], token[], token[]) tuple(cd, o, sd)\n"),
     NULL},
    {"collectives", WITH_ADD("a = f32[4,2] parameter(0)\n"
                             "r = f32[4,2] all-reduce(a), replica_groups={}, to_apply=add\n"
                             "g = f32[8,2] all-gather(r), dimensions={0}, replica_groups={{0,1}}\n"
                             "s = f32[4,2] reduce-scatter(g), dimensions={0}, replica_groups={{0,1}}, to_apply=add\n"
                             "t = f32[4,2] all-to-all(s), dimensions={0}, replica_groups={{0,1}}\n"
                             "p = f32[4,2] collective-permute(t), source_target_pairs={{0,1},{1,0}}\n"
                             "b = f32[4,2] collective-broadcast(p), replica_groups={{0,1}}\n"
                             "rs = f32[4,2] all-reduce-start(b), to_apply=add\n"
                             "rd = f32[4,2] all-reduce-done(rs)\n"
                             "gs = (f32[4,2], f32[8,2]) all-gather-start(rd), dimensions={0}, replica_groups={{0,1}}\n"
                             "gd = f32[8,2] all-gather-done(gs)\n"
                             "ps = (f32[4,2], f32[4,2], u32[], u32[]) collective-permute-start(rd), source_target_pairs={{0,1}}\n"
                             "pd = f32[4,2] collective-permute-done(ps)\n"
                             "id = u32[] replica-id()\n pid = u32[] partition-id()\n"
                             "ROOT x = (f32[8,2], f32[4,2], u32[], u32[]) tuple(gd, pd, id, pid)\n"),
     NULL},
    {"async", "HloModule m\n\nwrapped {\n p = f32[2] parameter(0)\n ROOT n = f32[2] negate(p)\n}\n\n"
              "ENTRY main {\n a = f32[2] parameter(0)\n"
              " s = ((f32[2]), f32[2], s32[]) async-start(a), calls=wrapped\n"
              " u = ((f32[2]), f32[2], s32[]) async-update(s)\n"
              " ROOT d = f32[2] async-done(u)\n}\n",
     NULL},
    {"rng and custom-call", ENTRY("a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
                                  "r = f32[3] rng(a, b), distribution=rng_uniform\n"
                                  "st = u64[2] parameter(2)\n"
                                  "g = (u64[2], u32[3]) rng-bit-generator(st), algorithm=rng_default\n"
                                  "s = u64[2] rng-get-and-update-state(), delta=4\n"
                                  "c = (f32[3], s32[]) custom-call(r, a), custom_call_target=\"x\"\n"
                                  "d = f32[3] domain(r), domain={kind=\"sharding\", entry={maximal device=0}, exit={replicated}}\n"
                                  "ROOT t = ((u64[2], u32[3]), u64[2], (f32[3], s32[]), f32[3]) tuple(g, s, c, d)\n"),
     NULL},
    {"map", "HloModule m\n\nf {\n x = f32[] parameter(0)\n y = f32[] parameter(1)\n ROOT s = f32[] add(x, y)\n}\n\n"
            "ENTRY main {\n a = f32[3] parameter(0)\n ROOT m = f32[3] map(a, a), dimensions={0}, to_apply=f\n}\n",
     NULL},
    {"select-and-scatter", "HloModule m\n\n" ADD_F32 "\nge {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
                           " ROOT c = pred[] compare(a, b), direction=GE\n}\n\nENTRY main {\n"
                           " o = f32[4] parameter(0)\n s = f32[2] parameter(1)\n z = f32[] constant(0)\n"
                           " ROOT r = f32[4] select-and-scatter(o, s, z), window={size=2 stride=2}, select=ge, scatter=add\n}\n",
     NULL},
    {"tiled layouts and memory spaces", ENTRY("a = bf16[16,256]{1,0:T(8,128)(2,1)S(1)} parameter(0)\n"
                                              "b = s4[1024]{0:T(1024)(128)(2,1)E(4)} parameter(1)\n"
                                              "c = pred[]{:T(256)} parameter(2)\n"
                                              "ROOT t = (bf16[16,256], s4[1024], pred[]) tuple(a, b, c)\n"),
     NULL},
};

static const Case invalid[] = {
    {"operand count", ENTRY("a = f32[] parameter(0)\n ROOT r = f32[] add(a)\n"), "add: expects 2 operands, got 1"},
    {"mixed types", ENTRY("a = f32[] parameter(0)\n b = s32[] parameter(1)\n ROOT r = f32[] multiply(a, b)\n"),
     "different element types"},
    {"pred arithmetic", ENTRY("a = pred[] parameter(0)\n ROOT r = pred[] subtract(a, a)\n"), "expected arithmetic"},
    {"float and", ENTRY("a = f32[] parameter(0)\n ROOT r = f32[] and(a, a)\n"), "expected pred or integral"},
    {"declared add", ENTRY("a = f32[2] parameter(0)\n ROOT r = f32[3] add(a, a)\n"),
     "declared shape f32[3] does not match inferred shape f32[2]"},
    {"compare direction", ENTRY("a = f32[] parameter(0)\n ROOT r = pred[] compare(a, a)\n"),
     "direction"},
    {"convert tuple", ENTRY("a = (f32[]) parameter(0)\n ROOT r = s32[] convert(a)\n"), "must be an array"},
    {"bitcast-convert ratio", ENTRY("a = s32[3] parameter(0)\n ROOT r = f64[] bitcast-convert(a)\n"), "bit-width ratio"},
    {"broadcast rank", ENTRY("a = f32[3] parameter(0)\n ROOT r = f32[2,3] broadcast(a), dimensions={0,1}\n"),
     "one entry per operand dimension"},
    {"reshape count", ENTRY("a = f32[6] parameter(0)\n ROOT r = f32[4] reshape(a)\n"), "has 6 elements"},
    {"transpose perm", ENTRY("a = f32[2,3] parameter(0)\n ROOT r = f32[3,2] transpose(a), dimensions={0,2}\n"),
     "not a permutation"},
    {"slice stride", ENTRY("a = f32[6] parameter(0)\n ROOT r = f32[3] slice(a), slice={[0:6:0]}\n"), "not valid"},
    {"pad interior", ENTRY("a = f32[6] parameter(0)\n z = s32[] constant(0)\n ROOT r = f32[6] pad(a, z), padding=0_0\n"),
     "different element types"},
    {"concatenate rank", ENTRY("a = f32[6] parameter(0)\n b = f32[2,3] parameter(1)\n ROOT r = f32[12] concatenate(a, b), dimensions={0}\n"),
     "different ranks"},
    {"dynamic-slice indices", ENTRY("a = f32[6,2] parameter(0)\n i = s32[] parameter(1)\n ROOT r = f32[2,2] dynamic-slice(a, i), dynamic_slice_sizes={2,2}\n"),
     "expects 2 start indices"},
    {"dynamic-update-slice bigger", ENTRY("a = f32[2] parameter(0)\n u = f32[3] parameter(1)\n i = s32[] parameter(2)\n ROOT r = f32[2] dynamic-update-slice(a, u, i)\n"),
     "larger than the operand"},
    {"iota scalar", ENTRY("ROOT r = s32[] iota(), iota_dimension=0\n"), "rank >= 1"},
    {"reduce dims", WITH_ADD("a = f32[2,3] parameter(0)\n z = f32[] constant(0)\n ROOT r = f32[] reduce(a, z), dimensions={0,2}, to_apply=add\n"),
     "out of range"},
    {"reduce init", WITH_ADD("a = f32[2,3] parameter(0)\n z = f32[2] parameter(1)\n ROOT r = f32[3] reduce(a, z), dimensions={0}, to_apply=add\n"),
     "init value 0 must be a scalar"},
    {"reduce-window rank", WITH_ADD("a = f32[4,4] parameter(0)\n z = f32[] constant(0)\n ROOT r = f32[2] reduce-window(a, z), window={size=2 stride=2}, to_apply=add\n"),
     "window has 1 dimensions"},
    {"sort dimension", "HloModule m\n\n" LT_F32 "\nENTRY main {\n a = f32[4] parameter(0)\n ROOT s = f32[4] sort(a), dimensions={1}, to_apply=lt\n}\n",
     "must name one dimension"},
    {"topk k", ENTRY("a = f32[4] parameter(0)\n ROOT t = (f32[5], s32[5]) topk(a), k=5\n"), "out of range"},
    {"dot batch", ENTRY("a = f32[2,3] parameter(0)\n b = f32[4,3] parameter(1)\n ROOT d = f32[3] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}\n"),
     "batch dimension sizes do not match"},
    {"dot int narrowing", ENTRY("a = s32[2,3] parameter(0)\n ROOT d = s8[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n"),
     "narrower"},
    {"conv features", ENTRY("x = f32[1,5,5,3] parameter(0)\n k = f32[3,3,2,4] parameter(1)\n ROOT c = f32[1,3,3,4] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f\n"),
     "kernel input feature"},
    {"conv window", ENTRY("x = f32[1,5,5,2] parameter(0)\n k = f32[3,3,2,4] parameter(1)\n ROOT c = f32[1,4,4,4] convolution(x, k), window={size=2x2}, dim_labels=b01f_01io->b01f\n"),
     "window size 2 does not match"},
    {"gather sizes", ENTRY("op = f32[5,4] parameter(0)\n idx = s32[3,1] parameter(1)\n ROOT g = f32[3,4] gather(op, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,4}\n"),
     "slice size <= 1"},
    {"scatter updates", WITH_ADD("op = f32[5] parameter(0)\n idx = s32[2,1] parameter(1)\n up = f32[3] parameter(2)\n ROOT s = f32[5] scatter(op, idx, up), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n"),
     "scatter dimension 0 must match"},
    {"gte non-tuple", ENTRY("a = f32[2] parameter(0)\n ROOT g = f32[2] get-tuple-element(a), index=0\n"), "must be a tuple"},
    {"conditional operands", "HloModule m\n\nb {\n ROOT x = f32[] parameter(0)\n}\n\nENTRY main {\n p = pred[] parameter(0)\n x = f32[] parameter(1)\n ROOT c = f32[] conditional(p, x), true_computation=b, false_computation=b\n}\n",
     "expects 3 operands"},
    {"conditional branches differ", "HloModule m\n\nb0 {\n ROOT x = f32[] parameter(0)\n}\n\nb1 {\n x = f32[] parameter(0)\n ROOT c = s32[] convert(x)\n}\n\nENTRY main {\n k = s32[] parameter(0)\n x = f32[] parameter(1)\n ROOT c = f32[] conditional(k, x, x), branch_computations={b0, b1}\n}\n",
     "branch 1 returns s32[]"},
    {"call arity", "HloModule m\n\nf {\n ROOT x = f32[] parameter(0)\n}\n\nENTRY main {\n a = f32[] parameter(0)\n ROOT c = f32[] call(a, a), to_apply=f\n}\n",
     "takes 1 parameters, expected 2"},
    {"fusion kind", "HloModule m\n\nf {\n ROOT x = f32[] parameter(0)\n}\n\nENTRY main {\n a = f32[] parameter(0)\n ROOT c = f32[] fusion(a), calls=f\n}\n",
     "kind"},
    {"infeed not tuple", ENTRY("t = token[] after-all()\n ROOT i = f32[2] infeed(t)\n"), "tuple"},
    {"async-done operand", ENTRY("a = f32[2] parameter(0)\n ROOT d = f32[2] async-done(a)\n"), "async-start"},
    {"send-done operand", ENTRY("t = token[] after-all()\n ROOT d = token[] send-done(t)\n"), "must be a send"},
    /* No all-reduce reducer case: XLA's verifier never looks inside that
     * computation (interp/collective/compute.c checks it when it runs). */
    {"reduce-scatter divisibility", WITH_ADD("a = f32[5] parameter(0)\n ROOT r = f32[2] reduce-scatter(a), dimensions={0}, replica_groups={{0,1}}, to_apply=add\n"),
     "not divisible"},
    {"rng types", ENTRY("a = f32[] parameter(0)\n b = s32[] parameter(1)\n ROOT r = f32[3] rng(a, b), distribution=rng_uniform\n"),
     "scalars of one type"},
    {"layout length", ENTRY("a = f32[2,3]{0,2} parameter(0)\n ROOT n = f32[2,3] negate(a)\n"), "not a permutation"},
    {"duplicate instruction names", ENTRY("a = f32[] parameter(0)\n a = f32[] negate(a)\n ROOT r = f32[] negate(a)\n"), NULL},
    {"signature result", "HloModule m\n\nENTRY main (p: f32[2]) -> f32[3] {\n ROOT p = f32[2] parameter(0)\n}\n",
     NULL},
};

/* The module must be rejected (by the parser or the verifier) and the
 * first diagnostic contain want (any diagnostic if want is NULL). */
static bool check(const Case *c, char *why, size_t n) {
  Diags d = {0};
  Module *m = parse_module("t.hlo", c->text, strlen(c->text), &d);
  bool rejected = !m || !verify_module(m, &d);
  bool good = rejected && d.count > 0 && (!c->want || strstr(d.items[0].msg, c->want));
  snprintf(why, n, "%s: %s", c->name, d.count ? d.items[0].msg : "accepted");
  diags_free(&d);
  module_free(m);
  return good;
}

Test(verify, valid_forms) {
  for (size_t i = 0; i < sizeof valid / sizeof *valid; i++) {
    Diags d = {0};
    const Case *c = &valid[i];
    Module *m = parse_module("t.hlo", c->text, strlen(c->text), &d);
    cr_expect(m != NULL, "%s: does not parse: %s", c->name, d.count ? d.items[0].msg : "");
    if (m) cr_expect(verify_module(m, &d), "%s: %s", c->name, d.count ? d.items[0].msg : "");
    diags_free(&d);
    module_free(m);
  }
}

Test(verify, wrong_forms) {
  for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++) {
    char why[600];
    cr_expect(check(&invalid[i], why, sizeof why), "%s", why);
  }
}
