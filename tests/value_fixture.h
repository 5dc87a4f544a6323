/* A value context over a fresh arena and memory system for each test of
 * a suite (tests/test_value_*.c): TestSuite(name, .init = value_setup,
 * .fini = value_teardown); sh() parses a shape in it. */
#ifndef HLO_TESTS_VALUE_FIXTURE_H
#define HLO_TESTS_VALUE_FIXTURE_H

#include <criterion/criterion.h>
#include <string.h>

#include "interp/value.h"
#include "parser/parser.h"

static Arena *A;
static MemSystem mem;
static ValueCtx vc;

static Shape *sh(const char *text) {
  Shape *s = arena_alloc(A, sizeof *s);
  Error err = {0};
  cr_assert(parse_shape_text(text, strlen(text), A, s, &err), "shape %s: %s", text, err.msg);
  return s;
}

static void value_setup(void) {
  A = arena_new();
  mem_init(&mem);
  cr_assert(value_ctx_init(&vc, &mem, A));
}

static void value_teardown(void) {
  value_ctx_free(&vc);
  mem_destroy(&mem);
  value_pool_drain();
  arena_free(A);
}

#endif
