/* Evaluation of computations: instructions in text order (a valid execution
 * order), each operand a pointer resolved at parse time, with liveness: a
 * value is released right after its last use (last uses precomputed once per
 * computation by eval_init, not per run), so each memory space's peak is the
 * real high-water mark of the program.
 *
 * Called computations (call, fusion, while, conditional, map, async and
 * *-start/-done pairs) run through the same machinery.  Fusion insides are
 * scratch: their intermediates are not accounted in memory spaces (as on a
 * device, where a fusion keeps them in registers/VMEM), only the fusion's
 * operands and result are. */
#ifndef HLO_INTERP_EVAL_H
#define HLO_INTERP_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "interp/value.h"
#include "parser/ir.h"

typedef struct InstrStats {
  int64_t count;                      /* executions */
  int64_t ns;                         /* inclusive wall time */
  int64_t bytes_read, bytes_written;  /* own traffic (physical bytes) */
  /* The same traffic per memory space (the cost model divides each by its
   * space's bandwidth): 2 * MEM_MAX_SPACES entries, read then written of
   * the space at MemSystem.spaces[k] at [2k] and [2k+1]; allocated on the
   * first traffic (most instructions of a big module have none), NULL
   * before.  Owned by the plan until run_collect_stats takes it. */
  int64_t *space_bytes;
} InstrStats;

/* Per computation, built once by eval_init. */
typedef struct CompPlan {
  const Computation *comp;
  int *last_use;      /* per instr: index of the last user, -1 if none */
  int *release_start; /* CSR: instrs whose value dies after instr i */
  int *release;
  InstrStats *stats;  /* per instr */
  Value **consts;     /* per instr: materialised constants (cached per run) */
  void **aux;         /* per instr: op-specific data prepared on first use */
  /* Elementwise fusion: group_end[i] >= i when instructions i..group_end[i]
   * are elementwise ops over one big shape (and constants, hoisted): they
   * run block by block (as XLA's loop fusion would), materialising only
   * the values needed after the group.  -1 otherwise.  A group of one is a
   * lone elementwise op reading a deferred broadcast. */
  int *group_end;
  /* Per instr: 1 for a big broadcast that only fused groups read: it is
   * never materialised (each group re-derives it from its operand), unless
   * a reader runs unfused, which then materialises it on demand. */
  unsigned char *deferred;
  /* Per group member: 1 when its value is needed after the group (it is
   * then materialised), else it lives only in block scratch. */
  unsigned char *keep;
  /* Per instr: EVAL_IF_* bits, IR-level facts run_one would otherwise
   * re-derive at every execution (they are on the hot path of loops). */
  unsigned char *iflags;
} CompPlan;

enum {
  EVAL_IF_MIXED = 1,   /* some float operand has another precision */
  EVAL_IF_DYN = 2,     /* operands' dynamic sizes must be looked at */
  EVAL_IF_TRAFFIC = 4, /* reads/writes count as memory traffic */
  /* Bookkeeping that only hands references on (parameter, constant,
   * get-tuple-element, tuple, ...): when stats time instructions without a
   * trace, the clock is not read for it (a read costs as much as the op);
   * its few ns count towards the next timed instruction. */
  EVAL_IF_UNTIMED = 8,
  /* a float result type XLA's verifier allows but that cannot be run */
  EVAL_IF_MIXED_RESULT = 16,
};

/* Called once per executed instruction when tracing. */
typedef void (*EvalTraceFn)(void *ud, const Instr *instr, const Value *result, int64_t ns,
                            int depth);

typedef struct EvalCtx EvalCtx;

/* Debugging hooks (interp/run_debug.c: --find-nonfinite, --dump-values,
 * the progress line); all NULL in a normal run.
 *
 * watch: called after each instruction's result is made, in every
 * computation the evaluator runs as one (fusion bodies, called, while
 * bodies and conditions, branches, map bodies and the reducer bodies it
 * runs vectorised), with the frame's values (operands still alive, by
 * instruction index); false stops the run with err.  Elementwise groups
 * are not fused while it is set (each member gets a value). */
typedef bool (*EvalWatchFn)(void *ud, EvalCtx *ctx, const Instr *in, Value *const *vals,
                            const Value *result, Error *err);
/* progress: called before an instruction of the frame at depth
 * ctx->depth - 1 once ctx->instructions_executed reaches ctx->checkpoint;
 * it returns how many instructions to let run before the next call. */
typedef int64_t (*EvalProgressFn)(void *ud, EvalCtx *ctx, const Instr *next);

enum { EVAL_MAX_DEPTH = 200 }; /* nested calls (for a recursion limit) */

/* One frame of the chain of computations being run (EvalCtx.calls). */
typedef struct EvalCall {
  const Computation *comp;
  const Instr *caller; /* the instruction that runs it; NULL: the entry, or
                        * a caller that does not say (reducers, scan) */
  int64_t iteration;   /* while body/condition: the iteration (from 0), else -1 */
} EvalCall;

struct EvalCtx {
  const Module *module;
  ValueCtx vc;
  CompPlan *plans; /* by Computation.index */
  int nplans;
  /* By the module's Computation.index: the flat form of a scalar
   * computation that has fusions/calls/tuples inside (eval_inline.c), its
   * plan after the module's; NULL where the computation is used as is. */
  const Computation **scalar_body;
  int64_t replica_id, partition_id;
  /* Multi-device runs (interp/run_devices.c): the meeting point of all devices'
   * collectives, this device's global id (replica * num_partitions +
   * partition) and the device grid.  NULL for a single device, whose
   * collectives are groups of one. */
  struct Rendezvous *rendezvous;
  int64_t device_id, num_replicas, num_partitions;
  bool timing;     /* measure per-instruction time */
  bool fuse;       /* run elementwise groups fused (default on) */
  int64_t fused_instructions;
  EvalTraceFn trace;
  void *trace_ud;
  int depth;       /* call depth (for traces and a recursion limit) */
  int64_t instructions_executed;
  int64_t while_iterations;
  /* An InstrStats.space_bytes could not be allocated: the per-space
   * traffic is incomplete (run_collect_stats reports out of memory). */
  bool traffic_oom;
  int64_t max_instructions; /* > 0: executing more is a runtime error */
  int64_t deadline_ns;      /* > 0: the CLOCK_MONOTONIC instant past which the
                             * run stops with a runtime error (--timeout) */
  /* The innermost while loop running and its iteration (from 0), for the
   * messages of a run stopped by the budget or the deadline; NULL outside. */
  const Instr *loop;
  int64_t loop_iteration;
  /* infeed / outfeed (eval_feed.c); NULL makes the op an error.  infeed
   * makes each array leaf of the infeed's data shape in order; outfeed is
   * handed each array leaf of the data it sends, in order. */
  bool (*infeed)(void *ud, EvalCtx *ctx, const Shape *leaf, Value **out, Error *err);
  bool (*outfeed)(void *ud, EvalCtx *ctx, const Value *leaf, Error *err);
  void *feed_ud;
  /* A custom call whose target has no evaluator (custom_call/targets.c):
   * NULL makes it an error; else the run's fallback makes its result
   * (--unknown-custom-calls; ud is feed_ud). */
  bool (*unknown_call)(void *ud, EvalCtx *ctx, const Instr *in, const char *target,
                       const Shape *rs, Value **out, Error *err);
  /* Targets the user brought (--custom-call; interp/custom_call/user_calls.h),
   * tried before the built-in ones; NULL: none.  user_state is this
   * device's part of them (handler states, substitutes' evaluators), made
   * on first use and freed by eval_free. */
  const struct UserCalls *user_calls;
  struct UserCallState *user_state;
  /* An evaluator running an HLO substitute: the registration it runs and
   * the evaluator of the call; NULL in the run's own. */
  const void *substitute_of;
  const EvalCtx *substitute_caller;
  /* Device-to-device messages a peer's send delivered, waiting for this
   * device's recv-done (interp/collective/send_recv.c). */
  struct P2PMessage *p2p_inbox;
  /* Debugging hooks (see EvalWatchFn). */
  EvalWatchFn watch;
  void *watch_ud;
  EvalProgressFn progress;
  void *progress_ud;
  /* When a hook needs it, EVAL_MAX_DEPTH entries: calls[d] is the frame at
   * depth d (0: the entry) while it runs; NULL otherwise.  A call site
   * names itself in next_caller/next_iteration just before the call. */
  EvalCall *calls;
  const Instr *next_caller;
  int64_t next_iteration;
  /* The instruction budget and the progress hook are looked at only once
   * instructions_executed reaches this (0 at eval_init): one compare per
   * instruction for both. */
  int64_t checkpoint;
};

bool eval_init(EvalCtx *ctx, const Module *m, MemSystem *mem, Arena *run_arena, Error *err);
void eval_free(EvalCtx *ctx);
/* The form of a scalar computation to run over vectors (reducers,
 * comparators, combiners, map bodies): its flat form when it has one. */
const Computation *eval_scalar_body(const EvalCtx *ctx, const Computation *c);

/* Runs comp on args (nargs values, borrowed); *out receives a new reference
 * to the result. */
bool eval_computation(EvalCtx *ctx, const Computation *comp, Value *const *args, int nargs,
                      Value **out, Error *err);

#endif
