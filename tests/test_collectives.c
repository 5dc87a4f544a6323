/* Multi-device runs: collective groups (interp/collective/groups.c), the
 * rendezvous (interp/collective/rendezvous.c) and run_module over several devices. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#include "interp/collective/groups.h"
#include "interp/collective/rendezvous.h"
#include "interp/run.h"
#include "parser/parser.h"
#include "parser/verify.h"

static Module *parse(const char *text) {
  Diags d = {0};
  Module *m = parse_module("t.hlo", text, strlen(text), &d);
  cr_assert(m && d.count == 0, "%s", d.count ? d.items[0].msg : "no module");
  diags_free(&d);
  return m;
}

/* A module whose entry's instruction "c" is `op` with `attrs` over an
 * s32[4] parameter. */
static Module *with_collective(const char *header, const char *op, const char *attrs) {
  static char buf[2048];
  snprintf(buf, sizeof buf,
           "HloModule t%s\n"
           "add {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
           "  ROOT s = s32[] add(a, b)\n}\n"
           "ENTRY e {\n  x = s32[4] parameter(0)\n  ROOT c = s32[4] %s(x), %s\n}\n",
           header, op, attrs);
  return parse(buf);
}

static const Instr *instr_c(const Module *m) { return m->entry->root; }

/* The group of `device` as a string "a,b,c@index". */
static void group_str(const Module *m, int64_t r, int64_t p, int64_t device, char *out,
                      size_t size) {
  int64_t mem[COLLECTIVE_MAX_DEVICES];
  int n, idx;
  Error err = {0};
  cr_assert(collective_group(instr_c(m), r, p, device, mem, &n, &idx, &err), "%s", err.msg);
  size_t at = 0;
  for (int i = 0; i < n; i++) at += (size_t)snprintf(out + at, size - at, "%s%lld", i ? "," : "", (long long)mem[i]);
  snprintf(out + at, size - at, "@%d", idx);
}

Test(collective_groups, cross_replica_empty_groups_is_every_replica_of_the_partition) {
  Module *m = with_collective("", "all-reduce", "replica_groups={}, to_apply=add");
  char s[128];
  /* 2 replicas x 3 partitions: device 4 = (1, 1); its group (0,1), (1,1). */
  group_str(m, 2, 3, 4, s, sizeof s);
  cr_assert_str_eq(s, "1,4@1");
  module_free(m);
}

Test(collective_groups, listed_order_is_kept) {
  Module *m = with_collective("", "all-reduce", "replica_groups={{3,1},{0,2}}, to_apply=add");
  char s[128];
  group_str(m, 4, 1, 1, s, sizeof s);
  cr_assert_str_eq(s, "3,1@1");
  module_free(m);
}

Test(collective_groups, iota_groups_transposed) {
  /* [2,2]<=[2,2]T(1,0): {{0,2},{1,3}}. */
  Module *m = with_collective("", "all-reduce", "replica_groups=[2,2]<=[2,2]T(1,0), to_apply=add");
  char s[128];
  group_str(m, 4, 1, 3, s, sizeof s);
  cr_assert_str_eq(s, "1,3@1");
  module_free(m);
}

Test(collective_groups, channel_without_global_ids_spans_the_partitions) {
  Module *m = with_collective("", "all-reduce",
                              "channel_id=1, replica_groups={{0},{1}}, to_apply=add");
  char s[128];
  /* 2 x 2: replica 1's devices are 2 and 3 (replica-major). */
  group_str(m, 2, 2, 3, s, sizeof s);
  cr_assert_str_eq(s, "2,3@1");
  module_free(m);
}

Test(collective_groups, flattened_ids) {
  Module *m = with_collective("", "all-reduce",
                              "channel_id=1, replica_groups={{0,3},{2,1}}, "
                              "use_global_device_ids=true, to_apply=add");
  char s[128];
  group_str(m, 2, 2, 1, s, sizeof s);
  cr_assert_str_eq(s, "2,1@1");
  module_free(m);
}

Test(collective_groups, all_to_all_with_channel_is_cross_partition) {
  Module *m = with_collective("", "all-to-all", "channel_id=1, replica_groups={{1,0}}, dimensions={0}");
  char s[128];
  /* device 2 = (1, 0): partitions 1, 0 of replica 1 = devices 3, 2. */
  group_str(m, 2, 2, 2, s, sizeof s);
  cr_assert_str_eq(s, "3,2@1");
  module_free(m);
}

/* The messages say what is wrong; the run loop (prefix_error, interp/eval.c)
 * puts "instruction NAME: " before them, as the goldens in
 * testdata/interp-collectives/ show. */
Test(collective_groups, errors_name_the_ids) {
  Module *m = with_collective("", "all-reduce", "replica_groups={{0,1},{1,2}}, to_apply=add");
  int64_t mem[COLLECTIVE_MAX_DEVICES];
  int n, idx;
  Error err = {0};
  cr_assert_not(collective_group(instr_c(m), 3, 1, 1, mem, &n, &idx, &err));
  cr_assert(!strncmp(err.msg, "replica id 1 appears twice", 26), "%s", err.msg);
  cr_assert_not(collective_group(instr_c(m), 2, 1, 0, mem, &n, &idx, &err));
  cr_assert(strstr(err.msg, "replica id 2, but the run has 2"), "%s", err.msg);
  module_free(m);
  m = with_collective("", "all-reduce", "replica_groups={{0}}, to_apply=add");
  cr_assert_not(collective_group(instr_c(m), 2, 1, 1, mem, &n, &idx, &err));
  cr_assert(strstr(err.msg, "replica id 1 is in no replica group"), "%s", err.msg);
  module_free(m);
}

Test(collective_groups, permute_sources) {
  Module *m = with_collective("", "collective-permute", "source_target_pairs={{0,1},{1,2}}");
  int64_t src;
  Error err = {0};
  /* 3 replicas x 2 partitions, no channel: replica ids within a partition. */
  cr_assert(collective_permute_source(instr_c(m), 3, 2, 5, &src, &err), "%s", err.msg);
  cr_assert_eq(src, 3); /* (2,1) receives from (1,1) */
  cr_assert(collective_permute_source(instr_c(m), 3, 2, 1, &src, &err), "%s", err.msg);
  cr_assert_eq(src, -1); /* nobody sends to replica 0 */
  module_free(m);
  m = with_collective("", "collective-permute", "channel_id=1, source_target_pairs={{1,0}}");
  cr_assert(collective_permute_source(instr_c(m), 2, 2, 2, &src, &err), "%s", err.msg);
  cr_assert_eq(src, 3); /* partitions: (1,0) receives from (1,1) */
  module_free(m);
  m = with_collective("", "collective-permute", "source_target_pairs={{0,1},{2,1}}");
  cr_assert_not(collective_permute_source(instr_c(m), 3, 1, 1, &src, &err));
  cr_assert(strstr(err.msg, "target of more than one pair"), "%s", err.msg);
  module_free(m);
}

Test(collective_groups, grid_needed) {
  int64_t r, p;
  Module *m = with_collective("", "all-reduce", "replica_groups={{0,1,2}}, to_apply=add");
  collective_grid_needed(m, &r, &p);
  cr_assert(r == 3 && p == 1, "%lld x %lld", (long long)r, (long long)p);
  module_free(m);
  m = with_collective("", "all-reduce",
                      "channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, "
                      "to_apply=add");
  collective_grid_needed(m, &r, &p);
  cr_assert(r == 1 && p == 4, "%lld x %lld", (long long)r, (long long)p);
  module_free(m);
  m = with_collective("", "all-reduce", "replica_groups={{0}}, to_apply=add");
  collective_grid_needed(m, &r, &p);
  cr_assert(r == 1 && p == 1);
  module_free(m);
}

Test(collective_groups, grid_needed_by_send_recv_and_ragged_all_to_all) {
  int64_t r, p;
  /* Device-to-device send pairs name partitions (channel_id); a host
   * transfer names no device. */
  Module *m = parse(
      "HloModule t\nENTRY e {\n  x = f32[2] parameter(0)\n  tok = token[] after-all()\n"
      "  s = (f32[2], u32[], token[]) send(x, tok), channel_id=1, "
      "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,3},{3,1}}\"}\n"
      "  h = (f32[2], u32[], token[]) send(x, tok), channel_id=2, is_host_transfer=true\n"
      "  d = token[] send-done(s), channel_id=1\n"
      "  ROOT e = token[] send-done(h), channel_id=2, is_host_transfer=true\n}\n");
  collective_grid_needed(m, &r, &p);
  cr_assert(r == 1 && p == 4, "%lld x %lld", (long long)r, (long long)p);
  module_free(m);
  m = parse("HloModule t\nENTRY e {\n  x = f32[6] parameter(0)\n  o = s32[3] parameter(1)\n"
            "  ROOT r = f32[6] ragged-all-to-all(x, x, o, o, o, o), channel_id=1, "
            "replica_groups={{0,1,2}}\n}\n");
  collective_grid_needed(m, &r, &p);
  cr_assert(r == 1 && p == 3, "%lld x %lld", (long long)r, (long long)p);
  module_free(m);
}

/* --- the rendezvous --- */

typedef struct Peer {
  Rendezvous *r;
  int device;
  const Instr *in;
  int value;
  int sum;
  bool ok;
  bool fail_instead; /* call rdv_fail instead of publishing */
  Error err;
} Peer;

static void *peer_main(void *arg) {
  Peer *p = arg;
  if (p->fail_instead) {
    rdv_fail(p->r, p->device, "boom");
    return NULL;
  }
  KArray mine = {ET_S32, 0, NULL, &p->value};
  p->ok = rdv_publish(p->r, p->device, p->in, &mine, 1, &p->err);
  if (!p->ok) return NULL;
  for (int d = 0; d < 3; d++) {
    int n;
    p->sum += *(const int *)rdv_payload(p->r, d, &n)->data;
  }
  p->ok = rdv_release(p->r, p->device, &p->err);
  if (p->ok) rdv_finish(p->r, p->device);
  return NULL;
}

static const char *const names[3] = {"device 0", "device 1", "device 2"};

static void run_peers(Peer *p, Rendezvous *r) {
  pthread_t t[3];
  for (int d = 0; d < 3; d++) {
    p[d].r = r;
    p[d].device = d;
    cr_assert_eq(pthread_create(&t[d], NULL, peer_main, &p[d]), 0);
  }
  for (int d = 0; d < 3; d++) pthread_join(t[d], NULL);
}

Test(rendezvous, exchange) {
  Module *m = with_collective("", "all-reduce", "replica_groups={}, to_apply=add");
  Rendezvous *r = rdv_new(3, names);
  Peer p[3] = {{.in = instr_c(m), .value = 1}, {.in = instr_c(m), .value = 2},
               {.in = instr_c(m), .value = 4}};
  run_peers(p, r);
  for (int d = 0; d < 3; d++) cr_assert(p[d].ok && p[d].sum == 7, "%s", p[d].err.msg);
  cr_assert_eq(rdv_failed_device(r, NULL), -1);
  rdv_free(r);
  module_free(m);
}

Test(rendezvous, a_failure_wakes_the_waiters) {
  Module *m = with_collective("", "all-reduce", "replica_groups={}, to_apply=add");
  Rendezvous *r = rdv_new(3, names);
  Peer p[3] = {{.in = instr_c(m)}, {.fail_instead = true}, {.in = instr_c(m)}};
  run_peers(p, r);
  cr_assert_not(p[0].ok);
  cr_assert_not(p[2].ok);
  cr_assert_str_eq(p[0].err.msg, "device 1 failed: boom");
  const char *why;
  cr_assert_eq(rdv_failed_device(r, &why), 1);
  rdv_free(r);
  module_free(m);
}

Test(rendezvous, different_instructions) {
  Module *m = parse("HloModule t\nadd {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
                    "  ROOT s = s32[] add(a, b)\n}\nENTRY e {\n  x = s32[] parameter(0)\n"
                    "  y = s32[] all-reduce(x), to_apply=add\n"
                    "  ROOT z = s32[] all-reduce(y), to_apply=add\n}\n");
  Rendezvous *r = rdv_new(3, names);
  const Instr *y = m->entry->instrs[1], *z = m->entry->root;
  Peer p[3] = {{.in = y}, {.in = y}, {.in = z}};
  run_peers(p, r);
  for (int d = 0; d < 3; d++) cr_assert_not(p[d].ok);
  cr_assert(strstr(p[0].err.msg, "the devices reached different collectives"), "%s", p[0].err.msg);
  rdv_free(r);
  module_free(m);
}

/* A ranked rendezvous (interp/collective/mpi_world.h's side simulated
 * here): devices 0 and 1 are local, device 2 belongs to another rank. */
static void start_local(Peer *p, Rendezvous *r, pthread_t *t) {
  for (int d = 0; d < 2; d++) {
    p[d].r = r;
    p[d].device = d;
    cr_assert_eq(pthread_create(&t[d], NULL, peer_main, &p[d]), 0);
  }
}

Test(rendezvous, ranked_remote_operands) {
  Module *m = with_collective("", "all-reduce", "replica_groups={}, to_apply=add");
  Rendezvous *r = rdv_new_ranked(3, names, 0, 2);
  Peer p[2] = {{.in = instr_c(m), .value = 1}, {.in = instr_c(m), .value = 2}};
  pthread_t t[2];
  start_local(p, r, t);
  const Instr *at = NULL;
  int failed = -1;
  char why[64];
  cr_assert_eq(rdv_wait_local(r, &at, &failed, why, sizeof why), RDV_LOCAL_PUBLISHED);
  cr_assert_eq(at, instr_c(m));
  int remote = 4;
  KArray a = {ET_S32, 0, NULL, &remote};
  rdv_post_remote(r, 2, &a, 1);
  rdv_open(r);
  cr_assert_eq(rdv_wait_local(r, &at, &failed, why, sizeof why), RDV_LOCAL_ENDED);
  for (int d = 0; d < 2; d++) pthread_join(t[d], NULL);
  for (int d = 0; d < 2; d++) cr_assert(p[d].ok && p[d].sum == 7, "%s", p[d].err.msg);
  rdv_free(r);
  module_free(m);
}

Test(rendezvous, ranked_abort_from_another_rank) {
  Module *m = with_collective("", "all-reduce", "replica_groups={}, to_apply=add");
  Rendezvous *r = rdv_new_ranked(3, names, 0, 2);
  Peer p[2] = {{.in = instr_c(m)}, {.in = instr_c(m)}};
  pthread_t t[2];
  start_local(p, r, t);
  const Instr *at = NULL;
  int failed = -1;
  char why[64];
  cr_assert_eq(rdv_wait_local(r, &at, &failed, why, sizeof why), RDV_LOCAL_PUBLISHED);
  rdv_abort(r, -1, "device 2, rank 1 failed: boom");
  for (int d = 0; d < 2; d++) pthread_join(t[d], NULL);
  for (int d = 0; d < 2; d++) {
    cr_assert_not(p[d].ok);
    cr_assert_str_eq(p[d].err.msg, "device 2, rank 1 failed: boom");
  }
  cr_assert_eq(rdv_wait_local(r, &at, &failed, why, sizeof why), RDV_LOCAL_ABORTED);
  cr_assert_str_eq(why, "device 2, rank 1 failed: boom");
  rdv_free(r);
  module_free(m);
}

/* --- run_module over several devices --- */

Test(run_devices, results_per_device) {
  Module *m = parse("HloModule t, replica_count=2, num_partitions=3\n"
                    "ENTRY e {\n  r = u32[] replica-id()\n  p = u32[] partition-id()\n"
                    "  ROOT t = (u32[], u32[]) tuple(r, p)\n}\n");
  RunOptions opt = {0};
  RunResult res;
  Error err = {0};
  cr_assert(run_module(m, &opt, NULL, 0, &res, &err), "%s", err.msg);
  cr_assert_eq(res.ndevices, 6);
  for (int d = 0; d < 6; d++) {
    const RunResult *r = run_result_device(&res, d);
    cr_assert_eq(r->nleaves, 2);
    cr_assert_eq(r->replica_id, d / 3);
    cr_assert_eq(r->partition_id, d % 3);
    cr_assert_eq(*(const uint32_t *)r->leaves[0].data, (uint32_t)(d / 3));
    cr_assert_eq(*(const uint32_t *)r->leaves[1].data, (uint32_t)(d % 3));
  }
  run_result_free(&res);
  /* --replicas / --partitions override the header. */
  opt.replicas = 1;
  opt.partitions = 1;
  cr_assert(run_module(m, &opt, NULL, 0, &res, &err), "%s", err.msg);
  cr_assert_eq(res.ndevices, 1);
  run_result_free(&res);
  module_free(m);
}

/* Devices 1 and 2 fail on their own at the same collective, each with its
 * own message, while device 0 passes it.  Which of them aborts the run
 * first is a race; the error must name the lowest one every time. */
Test(run_devices, the_lowest_failing_device_is_named) {
  Module *m = parse("HloModule t, replica_count=3\n"
                    "ENTRY e {\n  x = s32[3] constant({1, 2, 3})\n"
                    "  out = s32[3] constant({0, 0, 0})\n"
                    "  io = s32[3] constant({0, 9, 9})\n  one = s32[3] constant({1, 1, 1})\n"
                    "  oo = s32[3] constant({0, 1, 2})\n"
                    "  ROOT r = s32[3] ragged-all-to-all(x, out, io, one, oo, one), "
                    "replica_groups={}\n}\n");
  RunOptions opt = {0};
  for (int i = 0; i < 40; i++) {
    RunResult res;
    Error err = {0};
    cr_assert_not(run_module(m, &opt, NULL, 0, &res, &err));
    cr_assert(strstr(err.msg, "device 1 (replica 1)") &&
                  strstr(err.msg, "input_offsets[1]"),
              "run %d: %s", i, err.msg);
  }
  module_free(m);
}
