/* FFI handlers written in C straight against the ABI
 * (include/hlotools/ffi/c_api.h), for what the C++ header does not cover:
 * the execution stages with a state kept between them, type ids, the
 * thread pool and an asynchronous result through a future.  Built as
 * lib/libhlo_test_stages.so (cmake/ffi_tests.cmake).
 *
 * Registered as
 *   --custom-call 'T=libhlo_test_stages.so:instantiate=hlo_stage_instantiate,
 *                  prepare=hlo_stage_prepare,initialize=hlo_stage_initialize,
 *                  execute=hlo_stage_execute'
 * a call of T with attribute base = B : i64 returns s64[4]
 *   {B, executions so far, prepares so far, initializes so far}
 * counted per call site (the state its instantiate stage made), the
 * execute stage writing through a task scheduled on the thread pool.
 * hlo_stage_async returns the same through a future completed by another
 * thread. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hlotools/ffi/c_api.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT XLA_FFI_Error *hlo_stage_instantiate(XLA_FFI_CallFrame *f);
EXPORT XLA_FFI_Error *hlo_stage_prepare(XLA_FFI_CallFrame *f);
EXPORT XLA_FFI_Error *hlo_stage_initialize(XLA_FFI_CallFrame *f);
EXPORT XLA_FFI_Error *hlo_stage_execute(XLA_FFI_CallFrame *f);
EXPORT XLA_FFI_Error *hlo_stage_async(XLA_FFI_CallFrame *f);

typedef struct State {
  int64_t base, executions, prepares, initializes;
} State;

static XLA_FFI_Error *fail(const XLA_FFI_CallFrame *f, const char *msg) {
  XLA_FFI_Error_Create_Args a = {XLA_FFI_Error_Create_Args_STRUCT_SIZE, NULL, msg,
                                 XLA_FFI_Error_Code_FAILED_PRECONDITION};
  return f->api->XLA_FFI_Error_Create(&a);
}

/* The metadata query XLA makes before the first call: API 0.1. */
static int metadata(XLA_FFI_CallFrame *f) {
  if (!f->extension_start || f->extension_start->type != XLA_FFI_Extension_Metadata) return 0;
  XLA_FFI_Metadata *md = ((XLA_FFI_Metadata_Extension *)f->extension_start)->metadata;
  md->api_version.major_version = XLA_FFI_API_MAJOR;
  md->api_version.minor_version = XLA_FFI_API_MINOR;
  md->traits = 0;
  return 1;
}

static XLA_FFI_TypeId state_type(const XLA_FFI_CallFrame *f, XLA_FFI_Error **err) {
  XLA_FFI_TypeId id = {0};
  static const char name[] = "hlo_test_stage_state";
  XLA_FFI_TypeId_Register_Args a = {XLA_FFI_TypeId_Register_Args_STRUCT_SIZE, NULL,
                                    {name, sizeof name - 1}, &id};
  *err = f->api->XLA_FFI_TypeId_Register(&a);
  return id;
}

static State *get_state(const XLA_FFI_CallFrame *f, XLA_FFI_Error **err) {
  XLA_FFI_TypeId id = state_type(f, err);
  if (*err) return NULL;
  XLA_FFI_State_Get_Args a = {XLA_FFI_State_Get_Args_STRUCT_SIZE, NULL, f->ctx, &id, NULL};
  *err = f->api->XLA_FFI_State_Get(&a);
  return a.state;
}

XLA_FFI_Error *hlo_stage_instantiate(XLA_FFI_CallFrame *f) {
  if (metadata(f)) return NULL;
  if (f->stage != XLA_FFI_ExecutionStage_INSTANTIATE || f->args.size != 0 || f->rets.size != 0)
    return fail(f, "instantiate: wrong stage or buffers passed");
  if (f->attrs.size != 1 || f->attrs.types[0] != XLA_FFI_AttrType_SCALAR ||
      ((XLA_FFI_Scalar *)f->attrs.attrs[0])->dtype != XLA_FFI_DataType_S64)
    return fail(f, "instantiate: expects one attribute, base : i64");
  State *s = calloc(1, sizeof *s);
  if (!s) return fail(f, "out of memory");
  s->base = *(int64_t *)((XLA_FFI_Scalar *)f->attrs.attrs[0])->value;
  XLA_FFI_Error *err;
  XLA_FFI_TypeId id = state_type(f, &err);
  if (err) {
    free(s);
    return err;
  }
  XLA_FFI_State_Set_Args a = {XLA_FFI_State_Set_Args_STRUCT_SIZE, NULL, f->ctx, &id, s, free};
  err = f->api->XLA_FFI_State_Set(&a);
  if (err) free(s);
  return err;
}

XLA_FFI_Error *hlo_stage_prepare(XLA_FFI_CallFrame *f) {
  if (metadata(f)) return NULL;
  if (f->stage != XLA_FFI_ExecutionStage_PREPARE) return fail(f, "prepare: wrong stage");
  XLA_FFI_Error *err;
  State *s = get_state(f, &err);
  if (s) s->prepares++;
  return err;
}

XLA_FFI_Error *hlo_stage_initialize(XLA_FFI_CallFrame *f) {
  if (metadata(f)) return NULL;
  if (f->stage != XLA_FFI_ExecutionStage_INITIALIZE) return fail(f, "initialize: wrong stage");
  XLA_FFI_Error *err;
  State *s = get_state(f, &err);
  if (s) s->initializes++;
  return err;
}

typedef struct Task {
  const State *s;
  int64_t *out;
} Task;

static void write_result(void *data) {
  Task *t = data;
  t->out[0] = t->s->base;
  t->out[1] = t->s->executions;
  t->out[2] = t->s->prepares;
  t->out[3] = t->s->initializes;
}

/* The one result: s64[4]. */
static int64_t *result(const XLA_FFI_CallFrame *f) {
  if (f->rets.size != 1) return NULL;
  const XLA_FFI_Buffer *b = f->rets.rets[0];
  return b->dtype == XLA_FFI_DataType_S64 && b->rank == 1 && b->dims[0] == 4 ? b->data : NULL;
}

XLA_FFI_Error *hlo_stage_execute(XLA_FFI_CallFrame *f) {
  if (metadata(f)) return NULL;
  if (f->stage != XLA_FFI_ExecutionStage_EXECUTE) return fail(f, "execute: wrong stage");
  int64_t *out = result(f);
  if (!out) return fail(f, "execute: the result must be s64[4]");
  XLA_FFI_Error *err;
  State *s = get_state(f, &err);
  if (!s) return err;
  s->executions++;
  Task t = {s, out};
  XLA_FFI_ThreadPool_Schedule_Args a = {XLA_FFI_ThreadPool_Schedule_Args_STRUCT_SIZE, NULL,
                                        f->ctx, write_result, &t};
  /* hlotools runs the task before Schedule returns, so t may live here. */
  return f->api->XLA_FFI_ThreadPool_Schedule(&a);
}

typedef struct Async {
  const XLA_FFI_Api *api;
  XLA_FFI_Future *future;
  int64_t *out;
} Async;

static void *complete_later(void *data) {
  Async *a = data;
  for (int i = 0; i < 4; i++) a->out[i] = 100 + i;
  XLA_FFI_Future_SetAvailable_Args s = {XLA_FFI_Future_SetAvailable_Args_STRUCT_SIZE, NULL,
                                        a->future};
  XLA_FFI_Error *err = a->api->XLA_FFI_Future_SetAvailable(&s);
  if (err) {
    XLA_FFI_Error_Destroy_Args d = {XLA_FFI_Error_Destroy_Args_STRUCT_SIZE, NULL, err};
    a->api->XLA_FFI_Error_Destroy(&d);
  }
  free(a);
  return NULL;
}

/* Returns at once; another thread writes {100, 101, 102, 103} and then
 * completes the future. */
XLA_FFI_Error *hlo_stage_async(XLA_FFI_CallFrame *f) {
  if (metadata(f)) return NULL;
  int64_t *out = result(f);
  if (!out) return fail(f, "async: the result must be s64[4]");
  XLA_FFI_Future_Create_Args c = {XLA_FFI_Future_Create_Args_STRUCT_SIZE, NULL, NULL};
  XLA_FFI_Error *err = f->api->XLA_FFI_Future_Create(&c);
  if (err) return err;
  Async *a = malloc(sizeof *a);
  if (!a) return fail(f, "out of memory");
  *a = (Async){f->api, c.future, out};
  pthread_t th;
  if (pthread_create(&th, NULL, complete_later, a) != 0) {
    free(a);
    return fail(f, "cannot start a thread");
  }
  pthread_detach(th);
  f->future = c.future; /* hlotools waits for it, done or not yet */
  return NULL;
}
