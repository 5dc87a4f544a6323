/* interpreter.run_parallel, the op StableHLO's interpreter tests use to run
 * a function on several processes at once (stablehlo/tests/InterpreterOps.td):
 *
 *   %r:4 = "interpreter.run_parallel"(%a0, %b0, %a1, %b1)
 *            {programs = [[@f], [@f]]} : (...) -> (...)
 *
 * runs @f on a grid of len(programs) replicas by len(programs[0]) partitions;
 * process i (replica-major) takes the next nargs(@f) operands and gives the
 * next nresults(@f) results.  hlotools runs the whole module on that many
 * devices instead (the module's replica and partition counts become the
 * grid's): every device computes its own process number from replica-id and
 * partition-id, picks its operands by it, and calls @f; a result of process
 * i is that call's result on device i, so the values bound to the op's
 * results remember their owner (MValue.owner) and the checks made of them
 * run on that device only (mlir_emit_check.c passes the guard).  Every
 * process must run the same function; an infeed list is refused. */
#include <string.h>

#include "parser/mlir_internal.h"

/* A scalar tensor type of element type e (HLO spelling). */
static MType *scalar(MState *st, const char *e) {
  MType *t = arena_alloc(st->arena, sizeof *t);
  if (!t) mlir_fail(st, -1, "out of memory");
  memset(t, 0, sizeof *t);
  t->kind = MT_TENSOR;
  t->etype = e;
  return t;
}

/* The function of every process: all the same. */
static MFunc *the_program(MState *st, const MOp *op, const MAttr *programs, int *R, int *P) {
  if (!programs || programs->kind != MA_LIST || programs->n < 1)
    mlir_fail(st, op->off, "run_parallel needs programs = [[@f, ...], ...]");
  *R = programs->n;
  *P = -1;
  const char *sym = NULL;
  for (int r = 0; r < programs->n; r++) {
    const MAttr *row = programs->items[r];
    if (row->kind != MA_LIST || row->n < 1 || (*P >= 0 && row->n != *P))
      mlir_fail(st, row->offset, "run_parallel's programs must be rows of one length (one per partition)");
    *P = row->n;
    for (int p = 0; p < row->n; p++) {
      const MAttr *f = row->items[p];
      if (f->kind != MA_WORD || f->s[0] != '@') mlir_fail(st, f->offset, "expected a function @name");
      if (sym && strcmp(sym, f->s) != 0)
        mlir_fail(st, f->offset, "run_parallel with different functions per process is not supported");
      sym = f->s;
    }
  }
  MFunc *f = mlir_find_func(st, sym + 1);
  if (!f) mlir_fail(st, programs->offset, "run_parallel of unknown function %s", sym);
  return f;
}

/* Operand j of this device's process: a select over the processes' ones. */
static const char *pick(MState *st, const MOp *op, const MFunc *f, int nproc, int j, const char *flat) {
  MType *t = f->args[j];
  if (t->kind != MT_TENSOR) mlir_fail(st, op->off, "run_parallel passes arrays only");
  MType *pred = arena_alloc(st->arena, sizeof *pred), *u32 = scalar(st, "u32"), *bool0 = scalar(st, "pred");
  if (!pred) mlir_fail(st, -1, "out of memory");
  *pred = *t;
  pred->etype = "pred";
  const char *v = NULL;
  for (int i = 0; i < nproc; i++) {
    const MValue *x = op->opnds[i * f->nargs + j];
    if (!mlir_type_eq(x->type, t))
      mlir_fail(st, op->opnd_off[i * f->nargs + j], "operand of process %d: the type differs from @%s's argument %d",
                i, f->sym, j);
    if (!v) {
      v = x->hlo;
      continue;
    }
    const char *id = mlir_line(st, op->off, "c", u32, "constant(%d)", i);
    const char *is = mlir_line(st, op->off, "v", bool0, "compare(%s, %s), direction=EQ", flat, id);
    const char *mask = mlir_line(st, op->off, "v", pred, "broadcast(%s), dimensions={}", is);
    v = mlir_line(st, op->off, "v", t, "select(%s, %s, %s)", mask, x->hlo, v);
  }
  return v;
}

bool mlir_emit_parallel(MState *st, MOp *op) {
  if (strcmp(op->name, "interpreter.run_parallel") != 0) return false;
  if (mlir_op_attr(op, "infeed"))
    mlir_fail(st, op->off, "run_parallel with an infeed list is not supported");
  int R, P;
  MFunc *f = the_program(st, op, mlir_op_attr(op, "programs"), &R, &P);
  int nproc = R * P;
  if (op->nopnds != nproc * f->nargs)
    mlir_fail(st, op->off, "run_parallel of %d processes running @%s (%d arguments) needs %d operands, has %d",
              nproc, f->sym, f->nargs, nproc * f->nargs, op->nopnds);
  if (op->nresults != nproc * f->nresults)
    mlir_fail(st, op->off, "run_parallel of %d processes running @%s (%d results) gives %d results, %d are named",
              nproc, f->sym, f->nresults, nproc * f->nresults, op->nresults);
  if (st->parallel_flat)
    mlir_fail(st, op->off, "one run_parallel per module: the module itself runs on its processes");
  if ((st->num_replicas != 1 && st->num_replicas != R) || (st->num_partitions != 1 && st->num_partitions != P))
    mlir_fail(st, op->off, "run_parallel's %d x %d processes differ from the module's replica and partition counts",
              R, P);
  st->num_replicas = R;
  st->num_partitions = P;
  /* This device's process number, replica-major. */
  MType *u32 = scalar(st, "u32");
  const char *rep = mlir_line(st, op->off, "v", u32, "replica-id()");
  const char *part = mlir_line(st, op->off, "v", u32, "partition-id()");
  const char *np = mlir_line(st, op->off, "c", u32, "constant(%d)", P);
  const char *flat = mlir_line(st, op->off, "v", u32, "add(%s, %s)",
                               mlir_line(st, op->off, "v", u32, "multiply(%s, %s)", rep, np), part);
  st->parallel_flat = flat;
  st->parallel_comp = st->cur;
  StrBuf *args = mlir_sb(st);
  for (int j = 0; j < f->nargs; j++)
    sb_printf(args, "%s%s", j ? ", " : "", pick(st, op, f, nproc, j, flat));
  if (args->oom) mlir_fail(st, op->off, "out of memory");
  MType *rt = f->nresults == 1 ? f->results[0] : mlir_tuple_of(st, f->results, f->nresults);
  const char *call = mlir_line(st, op->off, "v", rt, "call(%s), to_apply=%s", args->data ? args->data : "", f->hlo);
  sb_free(args);
  /* Result q is process q / n's result q % n: this device's own when it is
   * that process. */
  for (int q = 0; q < op->nresults; q++) {
    int i = q / f->nresults, k = q % f->nresults;
    const char *h = f->nresults == 1 ? call
                                     : mlir_line(st, op->off, "gte", f->results[k],
                                                 "get-tuple-element(%s), index=%d", call, k);
    const char *ssa = mlir_result_name(st, op, q);
    mlir_bind(st, ssa, h, f->results[k]);
    mlir_lookup(st, ssa, op->off)->owner = i + 1;
  }
  return true;
}

const char *mlir_parallel_guard(MState *st, const MOp *op, int owner) {
  if (!owner) return NULL;
  if (!st->parallel_flat || st->parallel_comp != st->cur)
    mlir_fail(st, op->off, "a result of run_parallel used outside the function that runs it");
  MType *u32 = scalar(st, "u32"), *b = scalar(st, "pred");
  const char *id = mlir_line(st, op->off, "c", u32, "constant(%d)", owner - 1);
  return mlir_line(st, op->off, "v", b, "compare(%s, %s), direction=EQ", st->parallel_flat, id);
}
