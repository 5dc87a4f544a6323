/* Parsing a module from a test's text: the first diagnostic logged and the
 * test failed when it does not parse.  Shared by the tests that run or
 * schedule whole modules. */
#ifndef HLO_TESTS_PARSE_FIXTURE_H
#define HLO_TESTS_PARSE_FIXTURE_H

#include <criterion/criterion.h>
#include <string.h>

#include "parser/parser.h"

static inline Module *parse_named(const char *name, const char *text) {
  Diags d = {0};
  Module *m = parse_module(name, text, strlen(text), &d);
  if (!m && d.count) cr_log_error("%s: %s", name, d.items[0].msg);
  diags_free(&d);
  cr_assert_not_null(m, "%s does not parse", name);
  return m;
}

static inline Module *parse_text(const char *text) { return parse_named("<test>", text); }

#endif
