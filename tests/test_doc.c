/* base/doc.h: a report built without checks fails once when a node was
 * lost to out of memory (simulated here by the NULL a failed constructor
 * returns), instead of being written without it. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/doc.h"

static bool json_of(const Doc *d, StrBuf *sb) {
  sb_init(sb);
  return doc_json(d, DOC_JSON_COMPACT, sb);
}

Test(doc, whole_tree_is_written) {
  Arena *a = arena_new();
  Doc *m = doc_map(a);
  doc_put(a, m, "n", doc_int(a, 3));
  Doc *s = doc_put(a, m, "list", doc_seq(a));
  doc_push(s, doc_str(a, "x"));
  StrBuf sb;
  cr_assert(json_of(m, &sb));
  cr_expect_str_eq(sb.data, "{\"n\": 3, \"list\": [\"x\"]}\n");
  sb_free(&sb);
  arena_free(a);
}

Test(doc, a_lost_node_fails_the_whole_report) {
  Arena *a = arena_new();
  /* A value lost directly under the root... */
  Doc *m = doc_map(a);
  doc_put(a, m, "n", doc_int(a, 3));
  cr_expect_null(doc_put(a, m, "lost", NULL));
  StrBuf sb;
  cr_expect_not(json_of(m, &sb));
  cr_expect_eq(sb.len, 0, "nothing written");
  sb_free(&sb);
  StrBuf yb;
  sb_init(&yb);
  cr_expect_not(doc_yaml(m, DOC_YAML_PLAIN, &yb));
  sb_free(&yb);
  /* ...or deep inside: an element pushed as NULL, and a container that was
   * never made (its children's puts go nowhere, its parent is marked). */
  Doc *r = doc_map(a);
  Doc *s = doc_put(a, r, "list", doc_seq(a));
  doc_push(s, doc_int(a, 1));
  doc_push(s, NULL);
  cr_expect_not(json_of(r, &sb));
  sb_free(&sb);
  Doc *q = doc_map(a);
  Doc *missing = doc_put(a, q, "inner", NULL);
  doc_put(a, missing, "k", doc_int(a, 1));
  cr_expect_not(json_of(q, &sb));
  sb_free(&sb);
  cr_expect_not(json_of(NULL, &sb));
  sb_free(&sb);
  arena_free(a);
}
