/* libFuzzer target for the whole pipeline (scripts/fuzz-run.sh builds and
 * runs it): parse, verify and, when both succeed, run the entry computation
 * on deterministic random inputs.  Any input must end in a result or an
 * error: never a crash, a leak, undefined behaviour, a hang or a huge
 * allocation.  The run is bounded by small memory spaces (strict: no
 * implicit unlimited ones) and an instruction budget. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "interp/io/config.h"
#include "interp/run.h"
#include "interp/schedule.h"
#include "parser/parser.h"
#include "parser/verify.h"

enum { SPACE_BYTES = 4 << 20, MAX_INSTRUCTIONS = 5000 };
/* Element operations one instruction may cost (estimated from above). */
#define MAX_COST 2e7

static double elements(const Shape *s) {
  int64_t n;
  return shape_is_array(s) && shape_element_count(s, &n) ? (double)n : 0;
}

/* Modules whose dot, convolution or windowed reduction costs many element
 * operations are legitimately slow, not a bug: they are skipped. */
static bool cheap(const Module *m) {
  for (int c = 0; c < m->ncomps; c++)
    for (int i = 0; i < m->comps[c]->ninstrs; i++) {
      const Instr *in = m->comps[c]->instrs[i];
      double cost = 0;
      if ((in->op == OP_DOT || in->op == OP_CONVOLUTION || in->op == OP_RAGGED_DOT) &&
          in->noperands >= 2)
        cost = elements(&in->shape) * elements(&in->operands[1]->shape);
      const Attr *w = ir_attr(in, ATTR_WINDOW);
      if (w && w->kind == AV_WINDOW && in->noperands >= 1) {
        double wc = elements(&in->operands[0]->shape) + elements(&in->shape);
        for (int d = 0; d < w->v.window.rank; d++) wc *= (double)w->v.window.dims[d].size;
        if (wc > cost) cost = wc;
      }
      if (cost > MAX_COST) return false;
    }
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  Diags diags = {0};
  Module *m = parse_module("fuzz.hlo", text, size, &diags);
  if (m && diags.count == 0 && verify_module(m, &diags) && diags.count == 0 && cheap(m)) {
    MemConfig cfg;
    config_default(&cfg);
    cfg.strict = true;
    for (int i = 0; i < cfg.nspaces; i++) cfg.spaces[i].capacity = SPACE_BYTES;
    RunOptions opt = {0};
    opt.memory = &cfg;
    opt.random_inputs = true;
    opt.seed = size;
    /* Every other input runs past unknown custom calls with made-up data:
     * both paths stay covered. */
    opt.unknown_calls = size % 2 ? RUN_UNKNOWN_CALLS_RANDOM : RUN_UNKNOWN_CALLS_ERROR;
    opt.max_instructions = MAX_INSTRUCTIONS;
    /* Every other pair of inputs runs in a depth-first order wherever that
     * saves a byte (interp/schedule.h): reordered programs stay covered. */
    if (size / 2 % 2) schedule_module_min(m, 1);
    opt.flush_denormals = size / 4 % 2; /* and every other quadruple flushes subnormals */
    RunResult res;
    Error err = {0};
    if (run_module(m, &opt, NULL, 0, &res, &err)) run_result_free(&res);
  }
  module_free(m);
  diags_free(&diags);
  free(text);
  return 0;
}
