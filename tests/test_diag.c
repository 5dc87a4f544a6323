/* Source diagnostics: identical messages folded into the first, rendered
 * once with "the error above is repeated N more times (lines ...)". */
#include <criterion/criterion.h>
#include <string.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "interp/device_list.h"

/* Five lines; line k (1-based) starts at offset 2*(k-1). */
static const char SRC[] = "a\nb\nc\nd\ne\n";

static char *render(const Diags *d) {
  StrBuf sb;
  sb_init(&sb);
  diags_render_all(&sb, "m.hlo", SRC, strlen(SRC), d);
  char *s = strdup(sb.data ? sb.data : "");
  sb_free(&sb);
  return s;
}

Test(diag, identical_messages_fold_into_the_first) {
  Diags d = {0};
  diags_add(&d, 0, "bad %s", "thing");
  diags_add(&d, 2, "other");
  diags_add(&d, 4, "bad thing");
  diags_add(&d, 6, "bad thing");
  cr_assert_eq(d.count, 2);
  cr_assert_eq(d.items[0].offset, 0, "the first occurrence keeps its place");
  cr_assert_eq(d.items[0].repeats, 2);
  cr_assert_eq(d.items[1].repeats, 0);
  char *s = render(&d);
  cr_assert_str_eq(s, "m.hlo:1:1: error: bad thing\n"
                      "a\n"
                      "^\n"
                      "m.hlo: note: the error above is repeated 2 more times (lines 3, 4)\n"
                      "m.hlo:2:1: error: other\n"
                      "b\n"
                      "^\n");
  free(s);
  diags_free(&d);
}

Test(diag, one_repeat_and_many_repeats) {
  Diags d = {0};
  diags_add(&d, 0, "x");
  diags_add(&d, 8, "x");
  char *s = render(&d);
  cr_assert(strstr(s, "m.hlo: note: the error above is repeated 1 more time (line 5)\n"), "%s", s);
  free(s);
  for (int i = 0; i < 998; i++) diags_add(&d, 2 * (i % 5), "x");
  cr_assert_eq(d.count, 1);
  cr_assert_eq(d.items[0].repeats, 999);
  s = render(&d);
  /* the first five repeats are lines 5, 1, 2, 3, 4 */
  cr_assert(strstr(s, "repeated 999 more times (lines 5, 1, 2, 3, 4 and 994 more)\n"), "%s", s);
  free(s);
  diags_free(&d);
}

Test(diag, repeats_do_not_use_up_the_limit) {
  Diags d = {0};
  for (int i = 0; i < 3 * DIAGS_MAX; i++) diags_add(&d, 0, "same");
  diags_add(&d, 2, "different");
  cr_assert_eq(d.count, 2, "a different error after many identical ones is kept");
  cr_assert_eq(d.dropped, 0);
  for (int i = 0; i < DIAGS_MAX; i++) diags_add(&d, i, "distinct %d", i);
  cr_assert_eq(d.count, DIAGS_MAX);
  cr_assert_eq(d.dropped, 2);
  diags_add(&d, 0, "same"); /* still folded once the list is full */
  cr_assert_eq(d.items[0].repeats, 3 * DIAGS_MAX);
  cr_assert_eq(d.dropped, 2);
  diags_free(&d);
}

Test(diag, repeats_without_a_location) {
  Diags d = {0};
  diags_add(&d, -1, "no place");
  diags_add(&d, -1, "no place");
  StrBuf sb;
  sb_init(&sb);
  diags_render_all(&sb, "m.hlo", SRC, strlen(SRC), &d);
  cr_assert_str_eq(sb.data, "m.hlo: error: no place\n"
                            "m.hlo: note: the error above is repeated 1 more time\n");
  sb_free(&sb);
  diags_free(&d);
}

static const char *list(const char *bits, char *buf, size_t cap) {
  bool member[64] = {false};
  int n = (int)strlen(bits);
  for (int i = 0; i < n; i++) member[i] = bits[i] == '1';
  device_list_format(member, n, buf, cap);
  return buf;
}

Test(device_list, ranges) {
  char buf[64];
  cr_assert_str_eq(list("", buf, sizeof buf), "");
  cr_assert_str_eq(list("0000", buf, sizeof buf), "");
  cr_assert_str_eq(list("1", buf, sizeof buf), "0");
  cr_assert_str_eq(list("1111", buf, sizeof buf), "0-3");
  cr_assert_str_eq(list("11011100", buf, sizeof buf), "0-1, 3-5");
  cr_assert_str_eq(list("01010", buf, sizeof buf), "1, 3");
  cr_assert_str_eq(list("0000000000011", buf, sizeof buf), "11-12");
  char all[65];
  memset(all, '1', 64);
  all[64] = 0;
  cr_assert_str_eq(list(all, buf, sizeof buf), "0-63");
}

Test(device_list, cut_when_too_long) {
  char buf[12];
  /* "0, 2, 4, 6, 8" needs 14 bytes: cut after whole ranges, then "..." */
  cr_assert_str_eq(list("101010101", buf, sizeof buf), "0, 2, 4...");
  char tiny[4];
  cr_assert_str_eq(list("10101", tiny, sizeof tiny), "...");
}
