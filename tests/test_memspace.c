/* Memory spaces: accounting of live/peak bytes, capacity errors with the
 * numbers, implicit spaces, traffic counters, byte formatting. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "interp/memspace.h"

static MemSystem mem;

static void setup(void) {
  mem_init(&mem);
  Error err;
  cr_assert(mem_add_space(&mem, 1, "VMEM", 1000, 0, &err));
  cr_assert(mem_add_space(&mem, 0, "HBM", 1 << 20, 1e9, &err));
}

TestSuite(memspace, .init = setup);

Test(memspace, spaces_sorted_by_id) {
  cr_assert_eq(mem.nspaces, 2);
  cr_assert_eq(mem.spaces[0].id, 0);
  cr_assert_eq(mem.spaces[1].id, 1);
  cr_assert_str_eq(mem_find(&mem, 1)->name, "VMEM");
  cr_assert_null(mem_find(&mem, 7));
}

Test(memspace, duplicate_and_negative_ids_rejected) {
  Error err;
  cr_assert_not(mem_add_space(&mem, 1, "again", 10, 0, &err));
  cr_assert(strstr(err.msg, "configured twice"));
  cr_assert_not(mem_add_space(&mem, -3, "neg", 10, 0, &err));
}

Test(memspace, live_and_peak) {
  Error err;
  void *a, *b, *c;
  cr_assert(mem_alloc(&mem, 1, 400, true, "a", &a, &err));
  cr_assert(mem_alloc(&mem, 1, 500, false, "b", &b, &err));
  MemSpace *s = mem_find(&mem, 1);
  cr_assert_eq(s->live, 900);
  cr_assert_eq(s->peak, 900);
  cr_assert_eq(((uintptr_t)a) % 64, 0);
  for (int i = 0; i < 400; i++) cr_assert_eq(((unsigned char *)a)[i], 0);
  mem_release(&mem, 1, a, 400);
  cr_assert_eq(s->live, 500);
  cr_assert(mem_alloc(&mem, 1, 300, false, "c", &c, &err));
  cr_assert_eq(s->live, 800);
  cr_assert_eq(s->peak, 900);
  mem_release(&mem, 1, b, 500);
  mem_release(&mem, 1, c, 300);
  cr_assert_eq(s->live, 0);
  cr_assert_eq(s->nallocs, 3);
  cr_assert_eq(s->largest_alloc, 500);
}

Test(memspace, exhausted_names_who_space_and_numbers) {
  Error err;
  void *a, *b;
  cr_assert(mem_alloc(&mem, 1, 600, false, "instruction x", &a, &err));
  cr_assert_not(mem_alloc(&mem, 1, 500, false, "instruction fusion.3", &b, &err));
  cr_assert_eq(err.kind, ERR_RUNTIME);
  cr_assert(strstr(err.msg, "instruction fusion.3"), "%s", err.msg);
  cr_assert(strstr(err.msg, "S(1) VMEM"), "%s", err.msg);
  cr_assert(strstr(err.msg, "asked for 500 bytes"), "%s", err.msg);
  cr_assert(strstr(err.msg, "400 bytes free"), "%s", err.msg);
  cr_assert(strstr(err.msg, "peak use 600 bytes"), "%s", err.msg);
  /* a failed request changes nothing */
  cr_assert_eq(mem_find(&mem, 1)->live, 600);
  mem_release(&mem, 1, a, 600);
}

/* who starts the message when it names something; the run loop passes ""
 * (it prefixes the instruction itself), which must not leave a stray ": ". */
Test(memspace, who_prefix_only_when_named) {
  MemHostBudget host = {.limit = 100};
  mem.host = &host;
  Error err;
  void *p;
  cr_assert_not(mem_alloc(&mem, 0, 4096, false, "", &p, &err));
  cr_assert(strncmp(err.msg, "out of host memory allocating 4096 bytes", 40) == 0, "%s", err.msg);
  cr_assert_not(mem_alloc(&mem, 0, 4096, false, "parameter 0", &p, &err));
  cr_assert(strncmp(err.msg, "parameter 0: out of host memory", 31) == 0, "%s", err.msg);
  cr_assert_not(mem_alloc(&mem, 1, 5000, false, NULL, &p, &err));
  cr_assert(strncmp(err.msg, "memory space S(1) VMEM is exhausted", 35) == 0, "%s", err.msg);
  mem.host = NULL;
}

Test(memspace, exact_fit_is_allowed) {
  Error err;
  void *a;
  cr_assert(mem_alloc(&mem, 1, 1000, false, "x", &a, &err));
  mem_release(&mem, 1, a, 1000);
}

Test(memspace, implicit_space_unless_strict) {
  Error err;
  void *a;
  cr_assert(mem_alloc(&mem, 3, 123, false, "x", &a, &err));
  MemSpace *s = mem_find(&mem, 3);
  cr_assert_not_null(s);
  cr_assert(s->implicit);
  cr_assert_eq(s->capacity, MEM_UNLIMITED);
  mem_release(&mem, 3, a, 123);
  mem.strict = true;
  cr_assert_not(mem_alloc(&mem, 4, 1, false, "y", &a, &err));
  cr_assert(strstr(err.msg, "S(4)"), "%s", err.msg);
}

Test(memspace, zero_byte_buffers) {
  Error err;
  void *a, *b;
  cr_assert(mem_alloc(&mem, 0, 0, false, "e1", &a, &err));
  cr_assert(mem_alloc(&mem, 0, 0, false, "e2", &b, &err));
  cr_assert_neq(a, b);
  mem_release(&mem, 0, a, 0);
  mem_release(&mem, 0, b, 0);
}

Test(memspace, charge_without_allocation) {
  Error err;
  cr_assert(mem_charge(&mem, 1, 999, "x", &err));
  cr_assert_not(mem_charge(&mem, 1, 2, "y", &err));
  mem_discharge(&mem, 1, 999);
  cr_assert_eq(mem_find(&mem, 1)->live, 0);
  cr_assert_eq(mem_find(&mem, 1)->peak, 999);
}

Test(memspace, traffic) {
  mem_count_read(&mem, 0, 10);
  mem_count_read(&mem, 0, 5);
  mem_count_write(&mem, 0, 7);
  mem_count_write(&mem, 9, 7); /* unknown space: ignored */
  cr_assert_eq(mem_find(&mem, 0)->bytes_read, 15);
  cr_assert_eq(mem_find(&mem, 0)->bytes_written, 7);
}

Test(memspace, format_bytes) {
  char b[48];
  mem_format_bytes(0, b, sizeof b);
  cr_assert_str_eq(b, "0 B");
  mem_format_bytes(123, b, sizeof b);
  cr_assert_str_eq(b, "123 B");
  mem_format_bytes((int64_t)32 << 30, b, sizeof b);
  cr_assert_str_eq(b, "32 GiB");
  mem_format_bytes((int64_t)16 << 20, b, sizeof b);
  cr_assert_str_eq(b, "16 MiB");
  mem_format_bytes(1536, b, sizeof b);
  cr_assert_str_eq(b, "1536 B");
  mem_format_bytes(3 * 1024 * 1024 + 1, b, sizeof b);
  cr_assert_str_eq(b, "3.00 MiB");
  mem_format_bytes(MEM_UNLIMITED, b, sizeof b);
  cr_assert_str_eq(b, "unlimited");
}
