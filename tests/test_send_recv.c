/* send / recv (interp/collective/send_recv.c): host transfers through the feed
 * queues, device-to-device transfers through the rendezvous. */
#include <criterion/criterion.h>
#include <string.h>

#include "interp/run.h"
#include "parser/parser.h"

static Module *parse(const char *text) {
  Diags d = {0};
  Module *m = parse_module("t.hlo", text, strlen(text), &d);
  cr_assert(m && d.count == 0, "%s", d.count ? d.items[0].msg : "no module");
  diags_free(&d);
  return m;
}

Test(send_recv, host_send_goes_to_the_outfeed_in_order_with_outfeed) {
  Module *m = parse("HloModule t\n"
                    "ENTRY e {\n  x = s32[2] constant({3, 4})\n  y = f32[] constant(2.5)\n"
                    "  tok = token[] after-all()\n"
                    "  o = token[] outfeed(y, tok), outfeed_shape=f32[]\n"
                    "  s = (s32[2], u32[], token[]) send(x, o), channel_id=1, is_host_transfer=true\n"
                    "  ROOT d = token[] send-done(s), channel_id=1, is_host_transfer=true\n}\n");
  RunOptions opt = {0};
  RunResult res;
  Error err = {0};
  cr_assert(run_module(m, &opt, NULL, 0, &res, &err), "%s", err.msg);
  cr_assert_eq(res.noutfeed, 2);
  cr_assert_eq(*(const float *)res.outfeed[0].data, 2.5f);
  const int32_t *v = res.outfeed[1].data;
  cr_assert_eq(res.outfeed[1].nbytes, 8);
  cr_assert(v[0] == 3 && v[1] == 4);
  run_result_free(&res);
  module_free(m);
}

Test(send_recv, send_state_tuple_holds_the_data_and_a_zero_context) {
  Module *m = parse("HloModule t\n"
                    "ENTRY e {\n  x = f32[2] constant({1, -1})\n  tok = token[] after-all()\n"
                    "  s = (f32[2], u32[], token[]) send(x, tok), channel_id=1, is_host_transfer=true\n"
                    "  a = f32[2] get-tuple-element(s), index=0\n"
                    "  c = u32[] get-tuple-element(s), index=1\n"
                    "  ROOT t = (f32[2], u32[]) tuple(a, c)\n}\n");
  RunOptions opt = {0};
  RunResult res;
  Error err = {0};
  cr_assert(run_module(m, &opt, NULL, 0, &res, &err), "%s", err.msg);
  cr_assert_eq(res.nleaves, 2);
  const float *a = res.leaves[0].data;
  cr_assert(a[0] == 1.0f && a[1] == -1.0f);
  cr_assert_eq(*(const uint32_t *)res.leaves[1].data, 0u);
  run_result_free(&res);
  module_free(m);
}

Test(send_recv, pairs_outside_the_run_are_an_error) {
  Module *m = parse(
      "HloModule t, num_partitions=2\n"
      "ENTRY e {\n  x = f32[2] constant({1, 2})\n  tok = token[] after-all()\n"
      "  s = (f32[2], u32[], token[]) send(x, tok), channel_id=1, "
      "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,2}}\"}\n"
      "  ROOT d = token[] send-done(s), channel_id=1\n}\n");
  RunOptions opt = {0};
  RunResult res;
  Error err = {0};
  cr_assert_not(run_module(m, &opt, NULL, 0, &res, &err));
  cr_assert(strstr(err.msg, "instruction s: source-target pair {1,2} names a partition this run "
                            "does not have (it has 2)"),
            "%s", err.msg);
  module_free(m);
}

Test(send_recv, malformed_pairs_are_an_error) {
  Module *m = parse(
      "HloModule t\n"
      "ENTRY e {\n  x = f32[2] constant({1, 2})\n  tok = token[] after-all()\n"
      "  s = (f32[2], u32[], token[]) send(x, tok), channel_id=1, "
      "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,0},{1}}\"}\n"
      "  ROOT d = token[] send-done(s), channel_id=1\n}\n");
  RunOptions opt = {0};
  RunResult res;
  Error err = {0};
  cr_assert_not(run_module(m, &opt, NULL, 0, &res, &err));
  cr_assert(strstr(err.msg, "instruction s: _xla_send_recv_source_target_pairs must hold pairs"),
            "%s", err.msg);
  module_free(m);
}
