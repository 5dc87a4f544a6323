/* The user's custom-call registry and its per-device state (user_calls.h). */
#include "interp/custom_call/user_calls.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "interp/custom_call/ffi_host.h"
#include "interp/custom_call/old_call.h"
#include "interp/eval.h"
#include "interp/eval_views.h"
#include "parser/load.h"

typedef enum { UC_LIBRARY, UC_HLO } UserCallKind;

struct UserCall {
  char *target;
  char *spec;   /* as given, for messages */
  int index;    /* in the registry */
  UserCallKind kind;
  /* UC_LIBRARY */
  void *dl;
  XLA_FFI_Handler_Bundle bundle; /* execute: the SYMBOL of either form */
  bool stages_named;             /* the execute=...,prepare=... form */
  /* Whether the handlers answered XLA's metadata query, asked at the
   * first typed-FFI call (an old-style function must never be called with
   * a call frame): 0 not yet, 1 yes, -1 no (check_err says why). */
  pthread_mutex_t check_mu;
  int checked;
  Error check_err;
  /* UC_HLO */
  char *path; /* the module's file (src.display points to it) */
  Module *module;
  ModuleSource src;
};

struct UserCalls {
  int n;
  UserCall **calls;
};

/* Per device: FFI handler instances by call site, substitute evaluators by
 * registration. */
typedef struct UserSite {
  const Instr *in;
  FfiInstance inst;
} UserSite;

struct UserCallState {
  int nsites, cap;
  UserSite *sites;
  int nsubs;
  EvalCtx **subs;
};

static void call_free(UserCall *uc) {
  if (!uc) return;
  if (uc->dl) dlclose(uc->dl);
  if (uc->module) module_free(uc->module);
  module_source_free(&uc->src);
  free(uc->path);
  pthread_mutex_destroy(&uc->check_mu);
  free(uc->target);
  free(uc->spec);
  free(uc);
}

void user_calls_free(UserCalls *calls) {
  if (!calls) return;
  for (int i = 0; i < calls->n; i++) call_free(calls->calls[i]);
  free(calls->calls);
  free(calls);
}

static bool lookup_symbol(UserCall *uc, const char *lib, const char *name, size_t len,
                          XLA_FFI_Handler **out, Error *err) {
  char sym[256];
  if (len == 0 || len >= sizeof sym)
    return error_set(err, ERR_USAGE, -1, "--custom-call %s: bad symbol name", uc->spec);
  memcpy(sym, name, len);
  sym[len] = '\0';
  dlerror();
  void *p = dlsym(uc->dl, sym);
  const char *why = dlerror();
  /* POSIX: a symbol's address converts to a function pointer. */
  *(void **)out = p;
  if (why || !p)
    return error_set(err, ERR_USAGE, -1, "--custom-call %s: no symbol '%s' in %s%s%s", uc->spec,
                     sym, lib, why ? ": " : "", why ? why : "");
  return true;
}

/* "SYM" or "execute=SYM,instantiate=SYM,..." into the bundle. */
static bool read_symbols(UserCall *uc, const char *lib, const char *syms, Error *err) {
  if (!strchr(syms, '='))
    return lookup_symbol(uc, lib, syms, strlen(syms), &uc->bundle.execute, err);
  uc->stages_named = true;
  for (const char *p = syms; *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    static const char *const stages[] = {"instantiate", "prepare", "initialize", "execute"};
    XLA_FFI_Handler **slots[] = {&uc->bundle.instantiate, &uc->bundle.prepare,
                                 &uc->bundle.initialize, &uc->bundle.execute};
    int s = -1;
    for (int k = 0; eq && k < 4; k++)
      if (strlen(stages[k]) == (size_t)(eq - p) && memcmp(p, stages[k], (size_t)(eq - p)) == 0)
        s = k;
    if (s < 0)
      return error_set(err, ERR_USAGE, -1,
                       "--custom-call %s: expected STAGE=SYMBOL with STAGE one of execute, "
                       "instantiate, prepare, initialize",
                       uc->spec);
    if (!lookup_symbol(uc, lib, eq + 1, len - (size_t)(eq + 1 - p), slots[s], err)) return false;
    p += len + (comma != NULL);
  }
  if (!uc->bundle.execute)
    return error_set(err, ERR_USAGE, -1, "--custom-call %s: the execute stage has no symbol",
                     uc->spec);
  return true;
}

/* path as the user means it: from base_dir when relative (the config
 * file's directory) or the working directory.  A library's always gets a
 * '/', since a bare name would make dlopen search the library path. */
static char *resolve(const char *base_dir, const char *path, size_t len, bool library) {
  const char *dir = path[0] == '/'                          ? ""
                    : base_dir                              ? base_dir
                    : library && !memchr(path, '/', len) ? "."
                                                            : "";
  size_t n = strlen(dir) + len + 2;
  char *out = malloc(n);
  if (out) snprintf(out, n, "%s%s%.*s", dir, *dir ? "/" : "", (int)len, path);
  return out;
}

static bool load_library(UserCall *uc, const char *value, const char *base_dir, Error *err) {
  const char *colon = strrchr(value, ':');
  if (!colon || colon == value || !colon[1])
    return error_set(err, ERR_USAGE, -1,
                     "--custom-call %s: expected TARGET=LIB.so:SYMBOL or TARGET=FILE.hlo",
                     uc->spec);
  char *path = resolve(base_dir, value, (size_t)(colon - value), true);
  if (!path) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  bool ok = true;
  /* RTLD_NODELETE: the library stays mapped after dlclose, as XLA never
   * unloads a handler's library: a thread a handler started (one that
   * completes a future, say) may still be running its code when the run
   * ends. */
  if (!(uc->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)))
    ok = error_set(err, ERR_USAGE, -1, "--custom-call %s: cannot load %s: %s", uc->spec, path,
                   dlerror());
  if (ok) ok = read_symbols(uc, path, colon + 1, err);
  free(path);
  return ok;
}

static bool load_module(UserCall *uc, const char *value, const char *base_dir, Error *err) {
  char *path = uc->path = resolve(base_dir, value, strlen(value), false);
  if (!path) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  StrBuf report;
  sb_init(&report);
  ErrorKind kind = ERR_NONE;
  uc->module = parse_load_module(path, &uc->src, &report, &kind);
  if (!uc->module) {
    const char *text = report.data ? report.data : "";
    size_t n = strlen(text);
    while (n && text[n - 1] == '\n') n--;
    error_set(err, kind == ERR_INVALID ? ERR_INVALID : ERR_USAGE, -1,
              "--custom-call %s: %.*s", uc->spec, (int)(n < 900 ? n : 900), text);
  }
  sb_free(&report);
  return uc->module != NULL;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool user_calls_add(UserCalls **calls, const char *spec, const char *base_dir, Error *err) {
  const char *eq = strchr(spec, '=');
  if (!eq || eq == spec || !eq[1])
    return error_set(err, ERR_USAGE, -1,
                     "--custom-call '%s': expected TARGET=LIB.so:SYMBOL or TARGET=FILE.hlo",
                     spec);
  if (!*calls && !(*calls = calloc(1, sizeof **calls)))
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  UserCalls *r = *calls;
  UserCall *uc = calloc(1, sizeof *uc);
  if (!uc) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  pthread_mutex_init(&uc->check_mu, NULL);
  uc->target = strndup(spec, (size_t)(eq - spec));
  uc->spec = strdup(spec);
  bool ok = (uc->target && uc->spec) || error_set(err, ERR_RUNTIME, -1, "out of memory");
  if (ok && user_calls_find(r, uc->target))
    ok = error_set(err, ERR_USAGE, -1, "--custom-call: target '%s' is given twice", uc->target);
  const char *value = eq + 1;
  bool is_hlo = ends_with(value, ".hlo") || ends_with(value, ".txt") || !strchr(value, ':');
  uc->kind = is_hlo ? UC_HLO : UC_LIBRARY;
  if (ok) ok = is_hlo ? load_module(uc, value, base_dir, err)
                : load_library(uc, value, base_dir, err);
  UserCall **grown = ok ? realloc(r->calls, (size_t)(r->n + 1) * sizeof *grown) : NULL;
  if (ok && !grown) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  if (!ok) {
    call_free(uc);
    return false;
  }
  r->calls = grown;
  uc->index = r->n;
  r->calls[r->n++] = uc;
  return true;
}

const UserCall *user_calls_find(const UserCalls *calls, const char *target) {
  for (int i = 0; calls && i < calls->n; i++)
    if (strcmp(calls->calls[i]->target, target) == 0) return calls->calls[i];
  return NULL;
}

/* ---- per-device state ---------------------------------------------------- */

static struct UserCallState *state_of(EvalCtx *ctx) {
  if (!ctx->user_state) ctx->user_state = calloc(1, sizeof *ctx->user_state);
  return ctx->user_state;
}

static FfiInstance *site_instance(EvalCtx *ctx, const Instr *in) {
  struct UserCallState *st = state_of(ctx);
  if (!st) return NULL;
  for (int i = 0; i < st->nsites; i++)
    if (st->sites[i].in == in) return &st->sites[i].inst;
  if (st->nsites == st->cap) {
    int cap = st->cap ? 2 * st->cap : 8;
    UserSite *g = realloc(st->sites, (size_t)cap * sizeof *g);
    if (!g) return NULL;
    st->sites = g;
    st->cap = cap;
  }
  UserSite *s = &st->sites[st->nsites++];
  memset(s, 0, sizeof *s);
  s->in = in;
  return &s->inst;
}

void user_calls_state_free(EvalCtx *ctx) {
  struct UserCallState *st = ctx->user_state;
  if (!st) return;
  for (int i = 0; i < st->nsites; i++) ffi_instance_free(&st->sites[i].inst);
  for (int i = 0; i < st->nsubs; i++)
    if (st->subs[i]) {
      eval_free(st->subs[i]);
      free(st->subs[i]);
    }
  free(st->sites);
  free(st->subs);
  free(st);
  ctx->user_state = NULL;
}

/* ---- HLO substitutes ----------------------------------------------------- */

static bool shape_text(const Shape *s, char *buf, size_t size) {
  StrBuf sb;
  sb_init(&sb);
  shape_print_without_layout(&sb, s);
  snprintf(buf, size, "%s", sb.data ? sb.data : "");
  sb_free(&sb);
  return true;
}

static EvalCtx *substitute_ctx(EvalCtx *ctx, const UserCall *uc, Error *err) {
  struct UserCallState *st = state_of(ctx);
  if (!st) return error_set(err, ERR_RUNTIME, -1, "out of memory"), NULL;
  if (uc->index >= st->nsubs) {
    EvalCtx **g = realloc(st->subs, (size_t)(uc->index + 1) * sizeof *g);
    if (!g) return error_set(err, ERR_RUNTIME, -1, "out of memory"), NULL;
    for (int i = st->nsubs; i <= uc->index; i++) g[i] = NULL;
    st->subs = g;
    st->nsubs = uc->index + 1;
  }
  if (st->subs[uc->index]) return st->subs[uc->index];
  EvalCtx *sub = calloc(1, sizeof *sub);
  if (!sub) return error_set(err, ERR_RUNTIME, -1, "out of memory"), NULL;
  /* Same memory spaces and run arena: the substitute's buffers count in
   * the device's memory as the call's own would. */
  if (!eval_init(sub, uc->module, ctx->vc.mem, ctx->vc.arena, err)) {
    free(sub);
    return NULL;
  }
  sub->replica_id = ctx->replica_id;
  sub->partition_id = ctx->partition_id;
  sub->device_id = ctx->device_id;
  sub->num_replicas = ctx->num_replicas;
  sub->num_partitions = ctx->num_partitions;
  sub->deadline_ns = ctx->deadline_ns;
  /* Inside a substitute, custom calls run as they do outside it. */
  sub->user_calls = ctx->user_calls;
  sub->substitute_of = uc;
  sub->substitute_caller = ctx;
  sub->unknown_call = ctx->unknown_call;
  sub->infeed = ctx->infeed;
  sub->outfeed = ctx->outfeed;
  sub->feed_ud = ctx->feed_ud;
  st->subs[uc->index] = sub;
  return sub;
}

/* An error inside a substitute: its offset is in the substitute's text,
 * so the message says where (FILE:LINE:COL) and the error points at the
 * call. */
static bool substitute_error(const UserCall *uc, const Instr *in, Error *err) {
  char where[64] = "";
  if (err->offset >= 0 && (size_t)err->offset <= uc->src.len) {
    int line = 1, col = 1;
    for (int64_t i = 0; i < err->offset; i++) {
      if (uc->src.text[i] == '\n') line++, col = 1;
      else col++;
    }
    snprintf(where, sizeof where, ":%d:%d", line, col);
  }
  char msg[sizeof err->msg];
  snprintf(msg, sizeof msg, "%s", err->msg);
  return error_set(err, err->kind, in->offset, "custom-call %s: in the substitute %.300s%s: %s",
                   uc->target, uc->src.display, where, msg);
}

static bool run_substitute(EvalCtx *ctx, Frame *fr, const Instr *in, const UserCall *uc,
                           const Shape *rs, Value **out, Error *err) {
  const Computation *e = uc->module->entry;
  if (e->nparams != in->noperands)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "custom-call %s: the substitute %s takes %d parameters, the call has %d "
                     "operands",
                     uc->target, uc->src.display, e->nparams, in->noperands);
  char a[256], b[256];
  for (int k = 0; k < in->noperands; k++) {
    const Shape *want = &e->params[k]->shape, *have = &in->operands[k]->shape;
    if (!shape_compatible(want, have))
      return shape_text(want, a, sizeof a) && shape_text(have, b, sizeof b) &&
             error_set(err, ERR_RUNTIME, in->offset,
                       "custom-call %s: parameter %d of the substitute %s is %s, the operand "
                       "is %s",
                       uc->target, k, uc->src.display, a, b);
  }
  if (!shape_compatible(&e->root->shape, rs))
    return shape_text(&e->root->shape, a, sizeof a) && shape_text(rs, b, sizeof b) &&
           error_set(err, ERR_RUNTIME, in->offset,
                     "custom-call %s: the substitute %s returns %s, the call returns %s",
                     uc->target, uc->src.display, a, b);
  /* A substitute that calls its own target (directly or through others)
   * would nest evaluators without end. */
  for (const EvalCtx *c = ctx; c; c = c->substitute_caller)
    if (c->substitute_of == uc)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "custom-call %s: the substitute %s calls its own target", uc->target,
                       uc->src.display);
  EvalCtx *sub = substitute_ctx(ctx, uc, err);
  if (!sub) return false;
  Value *args[EVAL_MAX_VIEWS];
  if (in->noperands > EVAL_MAX_VIEWS)
    return error_set(err, ERR_RUNTIME, in->offset, "custom-call %s: too many operands",
                     uc->target);
  bool ok = true;
  int nargs = 0;
  for (int k = 0; ok && k < in->noperands; k++, nargs++)
    ok = value_coerce(&ctx->vc, (Value *)frame_operand(fr, in, k), &e->params[k]->shape, "",
                      &args[k], err);
  Value *res = NULL;
  int64_t before = sub->instructions_executed;
  sub->max_instructions = ctx->max_instructions > 0
                              ? ctx->max_instructions - ctx->instructions_executed +
                                    sub->instructions_executed
                              : 0;
  bool ran = ok && eval_computation(sub, e, args, nargs, &res, err);
  ctx->instructions_executed += sub->instructions_executed - before;
  for (int k = 0; k < nargs; k++) value_unref(&ctx->vc, args[k]);
  if (ok && !ran) return substitute_error(uc, in, err);
  if (ok) ok = value_coerce(&ctx->vc, res, rs, "", out, err);
  value_unref(&ctx->vc, res);
  return ok;
}

/* ---- dispatch ------------------------------------------------------------ */

static bool check_ffi(const UserCall *ucc, Error *err) {
  UserCall *uc = (UserCall *)ucc; /* the check's memo only */
  pthread_mutex_lock(&uc->check_mu);
  if (!uc->checked) {
    XLA_FFI_Handler *hs[] = {uc->bundle.instantiate, uc->bundle.prepare, uc->bundle.initialize,
                             uc->bundle.execute};
    bool ok = true;
    for (int s = 0; ok && s < 4; s++)
      if (hs[s]) ok = ffi_check_handler(hs[s], uc->spec, &uc->check_err);
    uc->checked = ok ? 1 : -1;
  }
  bool ok = uc->checked > 0;
  if (!ok) *err = uc->check_err;
  pthread_mutex_unlock(&uc->check_mu);
  return ok;
}

bool user_call_eval(EvalCtx *ctx, Frame *fr, const Instr *in, const UserCall *uc,
                    const Shape *rs, Value **out, Error *err) {
  if (uc->kind == UC_HLO) return run_substitute(ctx, fr, in, uc, rs, out, err);
  const char *api = eval_attr_enum(in, ATTR_API_VERSION, "API_VERSION_ORIGINAL");
  if (strcmp(api, "API_VERSION_TYPED_FFI") == 0) {
    if (!check_ffi(uc, err)) {
      err->offset = in->offset;
      return false;
    }
    FfiInstance *inst = site_instance(ctx, in);
    if (!inst) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    return ffi_run(ctx, fr, in, uc->target, &uc->bundle, inst, rs, out, err);
  }
  OldCallKind kind;
  if (strcmp(api, "API_VERSION_ORIGINAL") == 0) kind = OLD_CALL_ORIGINAL;
  else if (strcmp(api, "API_VERSION_STATUS_RETURNING") == 0) kind = OLD_CALL_STATUS_RETURNING;
  else if (strcmp(api, "API_VERSION_STATUS_RETURNING_UNIFIED") == 0)
    kind = OLD_CALL_STATUS_RETURNING_UNIFIED;
  else
    return error_set(err, ERR_RUNTIME, in->offset,
                     "custom-call %s: api_version=%s is not one hlotools can call", uc->target,
                     api);
  if (uc->stages_named)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "custom-call %s: execution stages are for XLA FFI handlers, but the call "
                     "has api_version=%s",
                     uc->target, api);
  return old_call_run(ctx, fr, in, uc->target, (OldCallFn *)uc->bundle.execute, kind, rs, out,
                      err);
}
