/* The host side of XLA's FFI (ffi_host.h): the function table and the call
 * frames hlotools builds for a typed-FFI custom call.
 *
 * What a CPU handler gets here, and why:
 *   - buffers: every operand leaf and result leaf, dense row-major (XLA:CPU's
 *     default layout), tuples flattened (interp/custom_call/call_leaves.h);
 *   - attributes: the backend_config dictionary (ffi_attrs.h), parsed once
 *     per call site;
 *   - stages: INSTANTIATE once per call site and device, with attributes
 *     only; PREPARE, INITIALIZE and EXECUTE at every execution, with the
 *     buffers;
 *   - state (XLA_FFI_State_Set/Get): per call site and device, destroyed
 *     with the run;
 *   - thread pool: a scheduled task runs at once on the calling thread (the
 *     API allows it, and results stay deterministic);
 *   - device memory: host memory, as XLA:CPU's allocator gives;
 *   - futures: waited for before the results are read.
 * Streams and user data of an execution context do not exist on a CPU run
 * here: asking for them is an error the handler reports. */
#include "interp/custom_call/ffi_host.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/custom_call/call_leaves.h"
#include "interp/custom_call/ffi_attrs.h"

/* ---- errors ------------------------------------------------------------- */

struct XLA_FFI_Error {
  XLA_FFI_Error_Code code;
  char message[];
};

/* Returned when an error cannot be allocated; destroying it does nothing. */
static struct {
  XLA_FFI_Error_Code code;
  char message[16];
} no_memory = {XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "out of memory"};

static XLA_FFI_Error *make_error(XLA_FFI_Error_Code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  XLA_FFI_Error *e = n >= 0 ? malloc(sizeof *e + (size_t)n + 1) : NULL;
  if (!e) return (XLA_FFI_Error *)&no_memory;
  e->code = code;
  va_start(ap, fmt);
  vsnprintf(e->message, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return e;
}

static void free_error(XLA_FFI_Error *e) {
  if (e != (XLA_FFI_Error *)&no_memory) free(e);
}

static XLA_FFI_Error *error_create(XLA_FFI_Error_Create_Args *args) {
  return make_error(args->errc, "%s", args->message ? args->message : "");
}

static void error_get_message(XLA_FFI_Error_GetMessage_Args *args) {
  args->message = args->error ? args->error->message : "";
}

static void error_destroy(XLA_FFI_Error_Destroy_Args *args) {
  if (args->error) free_error(args->error);
}

static const char *code_name(XLA_FFI_Error_Code c) {
  static const char *const names[] = {
      "OK",        "CANCELLED",          "UNKNOWN",          "INVALID_ARGUMENT",
      "DEADLINE_EXCEEDED", "NOT_FOUND",  "ALREADY_EXISTS",   "PERMISSION_DENIED",
      "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
      "UNIMPLEMENTED", "INTERNAL",       "UNAVAILABLE",      "DATA_LOSS",
      "UNAUTHENTICATED"};
  return c >= 0 && (size_t)c < sizeof names / sizeof names[0] ? names[c] : "UNKNOWN";
}

/* ---- execution context, state, user types -------------------------------- */

struct XLA_FFI_ExecutionContext {
  FfiInstance *inst;
};

static XLA_FFI_Error *handler_register(XLA_FFI_Handler_Register_Args *args) {
  (void)args;
  return make_error(XLA_FFI_Error_Code_UNIMPLEMENTED,
                    "hlotools does not take handler registrations: name the handler with "
                    "--custom-call TARGET=LIB.so:SYMBOL");
}

static XLA_FFI_Error *stream_get(XLA_FFI_Stream_Get_Args *args) {
  (void)args;
  return make_error(XLA_FFI_Error_Code_UNIMPLEMENTED,
                    "hlotools runs handlers on the CPU: there is no device stream");
}

static XLA_FFI_Error *execution_context_get(XLA_FFI_ExecutionContext_Get_Args *args) {
  return make_error(XLA_FFI_Error_Code_NOT_FOUND,
                    "no user data of type id %lld in the execution context (hlotools passes "
                    "none)",
                    args->type_id ? (long long)args->type_id->type_id : -1LL);
}

/* User types: one id per name, for the whole process. */
static pthread_mutex_t types_mu = PTHREAD_MUTEX_INITIALIZER;
static char **type_names;
static int64_t ntypes;

static XLA_FFI_Error *type_id_register(XLA_FFI_TypeId_Register_Args *args) {
  pthread_mutex_lock(&types_mu);
  int64_t id = 0;
  for (int64_t i = 0; i < ntypes && !id; i++)
    if (strlen(type_names[i]) == args->name.len &&
        memcmp(type_names[i], args->name.ptr, args->name.len) == 0)
      id = i + 1;
  if (!id) {
    char **grown = realloc(type_names, (size_t)(ntypes + 1) * sizeof *grown);
    char *copy = malloc(args->name.len + 1);
    if (grown) type_names = grown;
    if (grown && copy) {
      memcpy(copy, args->name.ptr, args->name.len);
      copy[args->name.len] = '\0';
      type_names[ntypes++] = copy;
      id = ntypes;
    } else
      free(copy);
  }
  pthread_mutex_unlock(&types_mu);
  if (!id) return make_error(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "out of memory");
  args->type_id->type_id = id;
  return NULL;
}

static XLA_FFI_Error *state_set(XLA_FFI_State_Set_Args *args) {
  FfiInstance *inst = args->ctx ? args->ctx->inst : NULL;
  if (!inst) return make_error(XLA_FFI_Error_Code_INTERNAL, "no execution context");
  if (inst->state)
    return make_error(XLA_FFI_Error_Code_ALREADY_EXISTS, "the state of this call site is already set");
  inst->state = args->state;
  inst->state_type = args->type_id ? args->type_id->type_id : 0;
  inst->deleter = args->deleter;
  return NULL;
}

static XLA_FFI_Error *state_get(XLA_FFI_State_Get_Args *args) {
  FfiInstance *inst = args->ctx ? args->ctx->inst : NULL;
  if (!inst) return make_error(XLA_FFI_Error_Code_INTERNAL, "no execution context");
  if (!inst->state)
    return make_error(XLA_FFI_Error_Code_NOT_FOUND,
                      "no state set for this call site (set it in the instantiate stage)");
  int64_t want = args->type_id ? args->type_id->type_id : 0;
  if (want != inst->state_type)
    return make_error(XLA_FFI_Error_Code_INVALID_ARGUMENT,
                      "the state has type id %lld, not %lld", (long long)inst->state_type,
                      (long long)want);
  args->state = inst->state;
  return NULL;
}

/* ---- device memory and the thread pool ----------------------------------- */

static XLA_FFI_Error *memory_allocate(XLA_FFI_DeviceMemory_Allocate_Args *args) {
  size_t align = args->alignment ? args->alignment : 64;
  if (align & (align - 1))
    return make_error(XLA_FFI_Error_Code_INVALID_ARGUMENT, "alignment %zu is not a power of two",
                      align);
  if (align < sizeof(void *)) align = sizeof(void *);
  void *p = NULL;
  if (posix_memalign(&p, align, args->size ? args->size : 1))
    return make_error(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "cannot allocate %zu bytes",
                      args->size);
  args->data = p;
  return NULL;
}

static XLA_FFI_Error *memory_free(XLA_FFI_DeviceMemory_Free_Args *args) {
  free(args->data);
  return NULL;
}

static XLA_FFI_Error *thread_pool_schedule(XLA_FFI_ThreadPool_Schedule_Args *args) {
  if (!args->task) return make_error(XLA_FFI_Error_Code_INVALID_ARGUMENT, "no task");
  args->task(args->data);
  return NULL;
}

/* ---- futures ------------------------------------------------------------- */

struct XLA_FFI_Future {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool done;
  XLA_FFI_Error *error;
};

static XLA_FFI_Error *future_create(XLA_FFI_Future_Create_Args *args) {
  XLA_FFI_Future *f = calloc(1, sizeof *f);
  if (!f) return make_error(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "out of memory");
  pthread_mutex_init(&f->mu, NULL);
  pthread_cond_init(&f->cv, NULL);
  args->future = f;
  return NULL;
}

static XLA_FFI_Error *future_complete(XLA_FFI_Future *f, XLA_FFI_Error *error) {
  if (!f) return make_error(XLA_FFI_Error_Code_INVALID_ARGUMENT, "no future");
  pthread_mutex_lock(&f->mu);
  bool twice = f->done;
  if (!twice) {
    f->done = true;
    f->error = error;
    pthread_cond_broadcast(&f->cv);
  }
  pthread_mutex_unlock(&f->mu);
  if (twice) {
    if (error) free_error(error);
    return make_error(XLA_FFI_Error_Code_FAILED_PRECONDITION, "the future is already complete");
  }
  return NULL;
}

static XLA_FFI_Error *future_set_available(XLA_FFI_Future_SetAvailable_Args *args) {
  return future_complete(args->future, NULL);
}

static XLA_FFI_Error *future_set_error(XLA_FFI_Future_SetError_Args *args) {
  return future_complete(args->future, args->error);
}

/* Waits for f, frees it and returns its error (NULL: available). */
static XLA_FFI_Error *future_wait(XLA_FFI_Future *f) {
  pthread_mutex_lock(&f->mu);
  while (!f->done) pthread_cond_wait(&f->cv, &f->mu);
  pthread_mutex_unlock(&f->mu);
  XLA_FFI_Error *e = f->error;
  pthread_cond_destroy(&f->cv);
  pthread_mutex_destroy(&f->mu);
  free(f);
  return e;
}

/* ---- the table ----------------------------------------------------------- */

static const XLA_FFI_Api api = {
    .struct_size = sizeof(XLA_FFI_Api),
    .extension_start = NULL,
    .api_version = {XLA_FFI_Api_Version_STRUCT_SIZE, NULL, XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR},
    .internal_api = NULL,
    .XLA_FFI_Error_Create = error_create,
    .XLA_FFI_Error_GetMessage = error_get_message,
    .XLA_FFI_Error_Destroy = error_destroy,
    .XLA_FFI_Handler_Register = handler_register,
    .XLA_FFI_Stream_Get = stream_get,
    .XLA_FFI_TypeId_Register = type_id_register,
    .XLA_FFI_ExecutionContext_Get = execution_context_get,
    .XLA_FFI_State_Set = state_set,
    .XLA_FFI_State_Get = state_get,
    .XLA_FFI_DeviceMemory_Allocate = memory_allocate,
    .XLA_FFI_DeviceMemory_Free = memory_free,
    .XLA_FFI_ThreadPool_Schedule = thread_pool_schedule,
    .XLA_FFI_Future_Create = future_create,
    .XLA_FFI_Future_SetAvailable = future_set_available,
    .XLA_FFI_Future_SetError = future_set_error,
};

/* ---- call frames --------------------------------------------------------- */

static XLA_FFI_DataType ffi_dtype(EType t) {
  switch (t) {
  case ET_PRED: return XLA_FFI_DataType_PRED;
  case ET_S8: return XLA_FFI_DataType_S8;
  case ET_S16: return XLA_FFI_DataType_S16;
  case ET_S32: return XLA_FFI_DataType_S32;
  case ET_S64: return XLA_FFI_DataType_S64;
  case ET_U8: return XLA_FFI_DataType_U8;
  case ET_U16: return XLA_FFI_DataType_U16;
  case ET_U32: return XLA_FFI_DataType_U32;
  case ET_U64: return XLA_FFI_DataType_U64;
  case ET_F16: return XLA_FFI_DataType_F16;
  case ET_BF16: return XLA_FFI_DataType_BF16;
  case ET_F32: return XLA_FFI_DataType_F32;
  case ET_F64: return XLA_FFI_DataType_F64;
  case ET_C64: return XLA_FFI_DataType_C64;
  case ET_C128: return XLA_FFI_DataType_C128;
  case ET_TOKEN: return XLA_FFI_DataType_TOKEN;
  case ET_F8E5M2: return XLA_FFI_DataType_F8E5M2;
  case ET_F8E4M3FN: return XLA_FFI_DataType_F8E4M3FN;
  case ET_F8E4M3B11FNUZ: return XLA_FFI_DataType_F8E4M3B11FNUZ;
  case ET_F8E5M2FNUZ: return XLA_FFI_DataType_F8E5M2FNUZ;
  case ET_F8E4M3FNUZ: return XLA_FFI_DataType_F8E4M3FNUZ;
  case ET_F8E4M3: return XLA_FFI_DataType_F8E4M3;
  case ET_F8E3M4: return XLA_FFI_DataType_F8E3M4;
  default: return XLA_FFI_DataType_INVALID;
  }
}

static XLA_FFI_CallFrame frame_new(XLA_FFI_ExecutionContext *ectx, XLA_FFI_ExecutionStage stage) {
  XLA_FFI_CallFrame f;
  memset(&f, 0, sizeof f);
  f.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE;
  f.api = &api;
  f.ctx = ectx;
  f.stage = stage;
  f.args.struct_size = XLA_FFI_Args_STRUCT_SIZE;
  f.rets.struct_size = XLA_FFI_Rets_STRUCT_SIZE;
  f.attrs.struct_size = XLA_FFI_Attrs_STRUCT_SIZE;
  return f;
}

bool ffi_check_handler(XLA_FFI_Handler *handler, const char *what, Error *err) {
  XLA_FFI_Metadata md;
  memset(&md, 0, sizeof md);
  md.struct_size = XLA_FFI_Metadata_STRUCT_SIZE;
  XLA_FFI_Metadata_Extension ext = {
      {XLA_FFI_Metadata_Extension_STRUCT_SIZE, XLA_FFI_Extension_Metadata, NULL}, &md};
  XLA_FFI_CallFrame f = frame_new(NULL, XLA_FFI_ExecutionStage_EXECUTE);
  f.extension_start = &ext.extension_base;
  XLA_FFI_Error *e = handler(&f);
  if (e) {
    bool ok = error_set(err, ERR_USAGE, -1, "%s: the handler fails XLA's metadata query: %s",
                        what, e->message);
    free_error(e);
    return ok;
  }
  if (md.api_version.major_version != XLA_FFI_API_MAJOR ||
      md.api_version.minor_version != XLA_FFI_API_MINOR)
    return error_set(err, ERR_USAGE, -1,
                     "%s: the handler was built for XLA FFI API %d.%d; hlotools provides %d.%d",
                     what, md.api_version.major_version, md.api_version.minor_version,
                     XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR);
  return true;
}

static const char *const stage_names[] = {"instantiate", "prepare", "initialize", "execute"};

/* Calls one stage; a handler's error (or its future's) becomes err. */
static bool call_stage(XLA_FFI_Handler *h, XLA_FFI_CallFrame *f, const Instr *in,
                       const char *target, Error *err) {
  XLA_FFI_Error *e = h(f);
  if (!e && f->future) {
    e = future_wait(f->future);
    f->future = NULL;
  }
  if (!e) return true;
  bool ok = error_set(err, ERR_RUNTIME, in->offset,
                      "custom-call %s: the FFI handler's %s stage failed (%s): %s", target,
                      stage_names[f->stage], code_name(e->code), e->message);
  free_error(e);
  return ok;
}

/* The call site's attributes, parsed at its first call. */
static bool site_attrs(FfiInstance *inst, const Instr *in, const char *target, Error *err) {
  if (inst->attrs_arena) return true;
  const Attr *a = ir_attr(in, ATTR_BACKEND_CONFIG);
  const char *text =
      a && (a->kind == AV_STRING_OR_RAW || a->kind == AV_STRING) && a->v.s ? a->v.s : "";
  Arena *arena = arena_new();
  if (!arena) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  /* A raw {...} is the source text verbatim: offsets in it are offsets in
   * the file after "backend_config=". */
  int64_t base = a && a->is_raw ? a->offset + (int64_t)strlen("backend_config=") : -1;
  Error perr = {0};
  if (!ffi_attrs_parse(text, strlen(text), arena, base < 0 ? 0 : base, &inst->attrs, &perr)) {
    arena_free(arena);
    return error_set(err, ERR_RUNTIME, base < 0 ? in->offset : perr.offset,
                     "custom-call %s: backend_config is not an attribute dictionary XLA's "
                     "FFI passes: %s",
                     target, perr.msg);
  }
  inst->attrs_arena = arena;
  return true;
}

/* Fills buffer descriptors for the call's leaves; false when an element
 * type has no FFI number. */
static bool describe_leaves(const CallLeaves *cl, const Instr *in, const char *target,
                            XLA_FFI_Buffer *args, void **argp, XLA_FFI_ArgType *argt,
                            XLA_FFI_Buffer *rets, void **retp, XLA_FFI_RetType *rett,
                            Error *err) {
  static int64_t no_dims[1];
  for (int k = 0; k < cl->nleaves; k++) {
    int v = cl->leaf_view[k];
    const KArray *a = v >= 0 ? &cl->ins.a[v] : NULL;
    XLA_FFI_DataType t = a ? ffi_dtype(a->etype) : XLA_FFI_DataType_TOKEN;
    if (t == XLA_FFI_DataType_INVALID)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "custom-call %s: operand leaf %d is %s, which XLA's FFI has no data "
                       "type for",
                       target, k, etype_name(a->etype));
    args[k] = (XLA_FFI_Buffer){XLA_FFI_Buffer_STRUCT_SIZE, NULL, t, a ? a->data : NULL,
                               a ? a->rank : 0, a ? (int64_t *)a->dims : no_dims};
    argp[k] = &args[k];
    argt[k] = XLA_FFI_ArgType_BUFFER;
  }
  for (int k = 0; k < cl->outs.n; k++) {
    const KArray *a = &cl->outs.a[k];
    XLA_FFI_DataType t = ffi_dtype(a->etype);
    if (t == XLA_FFI_DataType_INVALID)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "custom-call %s: result %d is %s, which XLA's FFI has no data type for",
                       target, k, etype_name(a->etype));
    rets[k] = (XLA_FFI_Buffer){XLA_FFI_Buffer_STRUCT_SIZE, NULL, t, a->data, a->rank,
                               (int64_t *)a->dims};
    retp[k] = &rets[k];
    rett[k] = XLA_FFI_RetType_BUFFER;
  }
  return true;
}

bool ffi_run(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
             const XLA_FFI_Handler_Bundle *b, FfiInstance *inst, const Shape *rs, Value **out,
             Error *err) {
  if (!site_attrs(inst, in, target, err)) return false;
  XLA_FFI_ExecutionContext ectx = {inst};
  if (!inst->instantiated && b->instantiate) {
    XLA_FFI_CallFrame f = frame_new(&ectx, XLA_FFI_ExecutionStage_INSTANTIATE);
    f.attrs = inst->attrs;
    if (!call_stage(b->instantiate, &f, in, target, err)) return false;
  }
  inst->instantiated = true;
  CallLeaves cl;
  if (!call_leaves_open(ctx, fr, in, target, rs, &cl, err)) return false;
  XLA_FFI_Buffer args[EVAL_MAX_VIEWS], rets[EVAL_MAX_OUTS];
  void *argp[EVAL_MAX_VIEWS], *retp[EVAL_MAX_OUTS];
  XLA_FFI_ArgType argt[EVAL_MAX_VIEWS];
  XLA_FFI_RetType rett[EVAL_MAX_OUTS];
  bool ok = describe_leaves(&cl, in, target, args, argp, argt, rets, retp, rett, err);
  XLA_FFI_Handler *stages[] = {b->prepare, b->initialize, b->execute};
  static const XLA_FFI_ExecutionStage ids[] = {XLA_FFI_ExecutionStage_PREPARE,
                                               XLA_FFI_ExecutionStage_INITIALIZE,
                                               XLA_FFI_ExecutionStage_EXECUTE};
  for (int s = 0; ok && s < 3; s++) {
    if (!stages[s]) continue;
    XLA_FFI_CallFrame f = frame_new(&ectx, ids[s]);
    f.args.size = cl.nleaves;
    f.args.types = argt;
    f.args.args = argp;
    f.rets.size = cl.outs.n;
    f.rets.types = rett;
    f.rets.rets = retp;
    f.attrs = inst->attrs;
    ok = call_stage(stages[s], &f, in, target, err);
  }
  return call_leaves_close(ctx, rs, &cl, ok, out, err);
}

void ffi_instance_free(FfiInstance *inst) {
  if (inst->state && inst->deleter) inst->deleter(inst->state);
  if (inst->attrs_arena) arena_free(inst->attrs_arena);
  memset(inst, 0, sizeof *inst);
}
