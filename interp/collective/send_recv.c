/* send / recv and their -done halves (interp/collective/send_recv.h). */
#include "interp/collective/send_recv.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/eval_feed.h"
#include "interp/collective/rendezvous.h"
#include "interp/collective/send_recv_pairs.h"
#include "kernels/k_types.h"
#include "layout/etype.h"

/* A message a device received from a peer's send, waiting for its recv
 * (or recv-done); or, with `waiting`, a recv that ran before its message
 * arrived and takes it at recv-done.  Both queue per channel in order. */
typedef struct P2PMessage {
  struct P2PMessage *next;
  int64_t channel;
  bool waiting; /* a recv waiting for the next message of the channel */
  bool nothing; /* no pair targets this device: recv-done gives zeros */
  int64_t source;
  EType etype;
  int rank;
  int64_t dims[SHAPE_MAX_RANK];
  void *bytes;
} P2PMessage;

void eval_p2p_inbox_free(EvalCtx *ctx) {
  P2PMessage *m = ctx->p2p_inbox;
  while (m) {
    P2PMessage *next = m->next;
    free(m->bytes);
    free(m);
    m = next;
  }
  ctx->p2p_inbox = NULL;
}

static bool is_host_transfer(const Instr *in) {
  const Attr *a = ir_attr(in, ATTR_IS_HOST_TRANSFER);
  return a && a->v.b;
}

static bool channel_of(const Instr *in, int64_t *ch) {
  const Attr *a = ir_attr(in, ATTR_CHANNEL_ID);
  *ch = a ? a->v.i : 0;
  return a != NULL;
}

/* The global id of the device `device` receives from, -1 when no pair
 * targets it.  With a positive channel_id pairs name partitions of the
 * device's replica; with none, or channel_id=0, replicas of its partition
 * (XLA's GPU send/recv take the cross-partition mode only for
 * channel_id > 0, and XLA's own replicated send/recv tests use
 * channel_id=0 with pairs of replicas). */
static bool source_device(const EvalCtx *ctx, const Instr *in, int64_t device, int64_t *source,
                          Error *err) {
  int64_t (*pairs)[2] = malloc(sizeof(int64_t[SEND_RECV_MAX_PAIRS][2]));
  if (!pairs) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  int n;
  bool ok = send_recv_pairs(in, pairs, &n, err);
  int64_t ch;
  bool by_partition = channel_of(in, &ch) && ch > 0;
  int64_t np = ctx->num_partitions > 0 ? ctx->num_partitions : 1;
  int64_t nr = ctx->num_replicas > 0 ? ctx->num_replicas : 1;
  int64_t r = device / np, p = device % np;
  int64_t me = by_partition ? p : r, count = by_partition ? np : nr;
  *source = -1;
  for (int i = 0; ok && i < n; i++) {
    if (pairs[i][0] < 0 || pairs[i][0] >= count || pairs[i][1] < 0 || pairs[i][1] >= count) {
      ok = error_set(err, ERR_RUNTIME, in->offset,
                     "source-target pair {%" PRId64 ",%" PRId64
                     "} names a %s this run does not have (it has %" PRId64 ")",
                     pairs[i][0], pairs[i][1], by_partition ? "partition" : "replica",
                     count);
    } else if (pairs[i][1] == me) {
      *source = by_partition ? r * np + pairs[i][0] : pairs[i][0] * np + p;
    }
  }
  free(pairs);
  return ok;
}

static bool need_state_shape(const Instr *in, const Shape *rs, Error *err) {
  if (shape_is_tuple(rs) && rs->ntuple == 3) return true;
  return error_set(err, ERR_RUNTIME, in->offset,
                   "%s returns (data, u32[] context, token)",
                   opcode_name(in->op));
}

static bool deliver(EvalCtx *ctx, int64_t channel, int64_t source, const KArray *a, Error *err) {
  P2PMessage *m = calloc(1, sizeof *m);
  if (!m) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  m->channel = channel;
  m->source = source;
  m->nothing = a == NULL;
  if (a) {
    int64_t n;
    if (!k_num_elements(a->rank, a->dims, &n, err)) {
      free(m);
      return false;
    }
    size_t bytes = (size_t)n * (size_t)k_elem_size(a->etype);
    m->bytes = malloc(bytes ? bytes : 1);
    if (!m->bytes) {
      free(m);
      return error_set(err, ERR_RUNTIME, -1, "out of memory");
    }
    /* Scalars have no dims array and empty arrays may have no data: memcpy
     * must not see their NULL pointers. */
    if (bytes) memcpy(m->bytes, a->data, bytes);
    m->etype = a->etype;
    m->rank = a->rank;
    if (a->rank > 0) memcpy(m->dims, a->dims, (size_t)a->rank * sizeof *a->dims);
  }
  P2PMessage **tail = (P2PMessage **)&ctx->p2p_inbox;
  while (*tail) tail = &(*tail)->next;
  *tail = m;
  return true;
}

/* The devices exchange the send's data at a rendezvous: each publishes a
 * dense view, the device a pair targets copies its source's into its
 * inbox. */
static bool exchange(EvalCtx *ctx, const Instr *in, const Value *data, Error *err) {
  if (!data->info || !data->buf)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "device-to-device send of a tuple is not supported");
  int64_t ch;
  channel_of(in, &ch);
  const void *d;
  DenseTmp tmp = {NULL};
  if (!value_dense_read(&ctx->vc, data, &d, &tmp, err)) return false;
  KArray mine = {data->info->etype, data->info->rank, data->info->dims, (void *)d};
  if (!rdv_publish(ctx->rendezvous, (int)ctx->device_id, in, &mine, 1, err)) {
    value_tmp_free(&tmp);
    return false;
  }
  int64_t src;
  bool ok = source_device(ctx, in, ctx->device_id, &src, err);
  if (ok) {
    int nposted;
    const KArray *theirs = src >= 0 ? rdv_payload(ctx->rendezvous, (int)src, &nposted) : NULL;
    ok = deliver(ctx, ch, src, theirs, err);
  }
  Error rel;
  bool released = rdv_release(ctx->rendezvous, (int)ctx->device_id, ok ? &rel : NULL);
  value_tmp_free(&tmp);
  if (ok && !released && err) *err = rel;
  return ok && released;
}

/* Op: send
 * Operands: data, token
 * Attributes: channel_id; optional is_host_transfer, frontend_attributes
 *   (_xla_send_recv_source_target_pairs)
 *
 * Host transfer: hands data's array leaves to the outfeed queue.  Between devices:
 * every device executes the send at one rendezvous and the device a pair targets
 * files a copy of its source's data under channel_id for a recv.  Result: XLA's
 * state (data, u32[] context, token).
 *
 * Rule: XLA's Send / SendThunk; pairs name partitions with channel_id > 0, replicas
 *   otherwise; a single-device run without a pair {0,0} sends nowhere, as XLA.
 * Refuses: a pair naming a device the run does not have; a tuple sent between
 *   devices.
 */
bool eval_send(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
               Error *err) {
  if (in->noperands != 2)
    return error_set(err, ERR_RUNTIME, in->offset, "send takes (data, token)");
  if (!need_state_shape(in, rs, err)) return false;
  Value *data = frame_operand(f, in, 0);
  if (is_host_transfer(in)) {
    if (!eval_feed_give(ctx, data, err)) return false;
  } else if (ctx->rendezvous) {
    if (!exchange(ctx, in, data, err)) return false;
  } else {
    int64_t src, ch;
    if (!source_device(ctx, in, 0, &src, err)) return false;
    /* No pair sends device 0 to itself: as XLA's send thunk without a
     * peer, the data goes nowhere. */
    if (src != 0) {
      Value *first[1] = {value_ref(data)};
      return eval_state_tuple(ctx, in, rs, first, 1, out, err);
    }
    channel_of(in, &ch);
    /* A pair {0,0}: device 0 sends to itself. */
    KArray a;
    const void *d;
    DenseTmp tmp = {NULL};
    if (!data->info || !data->buf)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "device-to-device send of a tuple is not supported");
    if (!value_dense_read(&ctx->vc, data, &d, &tmp, err)) return false;
    a = (KArray){data->info->etype, data->info->rank, data->info->dims, (void *)d};
    bool ok = deliver(ctx, ch, 0, &a, err);
    value_tmp_free(&tmp);
    if (!ok) return false;
  }
  Value *first[1] = {value_ref(data)};
  return eval_state_tuple(ctx, in, rs, first, 1, out, err);
}

static bool need_state_operand(const Instr *in, const Value *st, Error *err) {
  if (st->ntuple == 3) return true;
  return error_set(err, ERR_RUNTIME, in->offset,
                   "%s takes the (data, context, token) state of its start",
                   opcode_name(in->op));
}

/* Op: send-done
 * Operands: the send's state (data, context, token)
 * Attributes: channel_id; optional is_host_transfer
 *
 * Completes a send: the transfer already happened at the send; returns a token.
 *
 * Rule: XLA's SendDone.
 * Refuses: nothing the verifier accepts.
 */
bool eval_send_done(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                    Error *err) {
  (void)ctx;
  if (in->noperands != 1 || !need_state_operand(in, frame_operand(f, in, 0), err))
    return in->noperands == 1 ? false
                              : error_set(err, ERR_RUNTIME, in->offset,
                                          "send-done takes one operand");
  *out = value_new_token(rs);
  return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
}

/* The first message node of channel ch (skipping waiting recvs) that a
 * recv running now may take: none while an earlier recv of the channel
 * still waits, as messages go to recvs in order. */
static P2PMessage **claimable(EvalCtx *ctx, int64_t ch) {
  P2PMessage **pm = (P2PMessage **)&ctx->p2p_inbox, **first = NULL;
  for (; *pm; pm = &(*pm)->next) {
    if ((*pm)->channel != ch) continue;
    if ((*pm)->waiting) return NULL;
    if (!first) first = pm;
  }
  return first;
}

static bool add_waiting(EvalCtx *ctx, int64_t ch, Error *err) {
  P2PMessage *m = calloc(1, sizeof *m);
  if (!m) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  m->channel = ch;
  m->waiting = true;
  P2PMessage **tail = (P2PMessage **)&ctx->p2p_inbox;
  while (*tail) tail = &(*tail)->next;
  *tail = m;
  return true;
}

static bool from_message(EvalCtx *ctx, const Instr *in, const P2PMessage *m, const Shape *s,
                         Value **out, Error *err);

/* A u32[] context of 1: the recv's data element already holds the message
 * (XLA's recv writes the data into its own output buffer; recv-done only
 * hands it on), so recv-done takes it from there. */
static bool claimed_context(EvalCtx *ctx, const Instr *in, const Shape *s, Value **out,
                            Error *err) {
  if (!eval_zero_value(ctx, in, s, out, err)) return false;
  if (!(*out)->info || (*out)->info->etype != ET_U32 || (*out)->info->elements != 1) return true;
  void *d;
  DenseTmp tmp = {NULL};
  if (!value_dense_target(&ctx->vc, *out, &d, &tmp, err)) return false;
  *(uint32_t *)d = 1;
  return value_dense_commit(&ctx->vc, *out, &tmp, err);
}

/* Op: recv
 * Operands: token
 * Attributes: channel_id; optional is_host_transfer, frontend_attributes
 *   (_xla_send_recv_source_target_pairs)
 *
 * Host transfer: takes its data from the infeed queue.  Between devices: a message
 * already filed for channel_id (its send ran first) becomes the recv's data at once;
 * otherwise the recv waits and its recv-done takes the message.  Result: XLA's state
 * (data, u32[] context, token), context 1 when data holds the message.
 *
 * Rule: XLA's Recv / RecvThunk; a device no pair targets receives zeros, as XLA.
 * Refuses: a message whose type or shape differs from the recv's data; running out
 *   of infeed data (host transfer).
 */
bool eval_recv(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
               Error *err) {
  (void)f;
  if (in->noperands != 1)
    return error_set(err, ERR_RUNTIME, in->offset, "recv takes a token");
  if (!need_state_shape(in, rs, err)) return false;
  if (is_host_transfer(in)) {
    Value *first[1] = {NULL};
    if (!eval_feed_take(ctx, &rs->tuple[0], &first[0], err)) return false;
    return eval_state_tuple(ctx, in, rs, first, 1, out, err);
  }
  int64_t ch;
  channel_of(in, &ch);
  if (!ctx->rendezvous) {
    /* No pair sends to device 0 (one device): as XLA's recv thunk without a
     * peer, the data is zeros. */
    int64_t src;
    if (!source_device(ctx, in, 0, &src, err)) return false;
    if (src != 0 && !deliver(ctx, ch, -1, NULL, err)) return false;
  }
  /* A message that arrived before this recv (its send ran first) is the
   * recv's data at once, as on XLA's GPU where the recv thunk fills the
   * recv's own buffer: modules may read it without a recv-done. */
  P2PMessage **pm = claimable(ctx, ch);
  if (!pm) {
    /* The data arrives at recv-done (after the peer's send); until then the
     * buffer holds zeros. */
    if (!add_waiting(ctx, ch, err)) return false;
    return eval_state_tuple(ctx, in, rs, NULL, 0, out, err);
  }
  P2PMessage *m = *pm;
  Value *first[2] = {NULL, NULL};
  bool ok = m->nothing ? eval_zero_value(ctx, in, &rs->tuple[0], &first[0], err)
                       : from_message(ctx, in, m, &rs->tuple[0], &first[0], err);
  if (ok && !(ok = claimed_context(ctx, in, &rs->tuple[1], &first[1], err)))
    value_unref(&ctx->vc, first[0]);
  *pm = m->next;
  free(m->bytes);
  free(m);
  if (!ok) return false;
  return eval_state_tuple(ctx, in, rs, first, 2, out, err);
}

static bool from_message(EvalCtx *ctx, const Instr *in, const P2PMessage *m, const Shape *s,
                         Value **out, Error *err) {
  bool same = value_shape_has_data(s) && !shape_is_tuple(s) && s->etype == m->etype &&
              s->rank == m->rank;
  for (int k = 0; same && k < m->rank; k++) same = s->dims[k] == m->dims[k];
  if (!same)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "device %" PRId64 " sent %s data of rank %d on channel "
                     "%" PRId64 " that does not match this recv-done's data shape",
                     m->source, etype_name(m->etype), m->rank, m->channel);
  if (!value_new_array(&ctx->vc, s, false, "", out, err)) return false;
  void *d;
  DenseTmp tmp = {NULL};
  int64_t n;
  if (!value_dense_target(&ctx->vc, *out, &d, &tmp, err) ||
      !k_num_elements(m->rank, m->dims, &n, err)) {
    value_tmp_free(&tmp);
    value_unref(&ctx->vc, *out);
    return false;
  }
  if (n) memcpy(d, m->bytes, (size_t)n * (size_t)k_elem_size(m->etype));
  if (value_dense_commit(&ctx->vc, *out, &tmp, err)) return true;
  value_unref(&ctx->vc, *out);
  return false;
}

/* Whether a recv state's context says its data element holds the message
 * (claimed_context). */
static bool context_is_claimed(EvalCtx *ctx, const Value *c) {
  if (!c || !c->info || c->info->etype != ET_U32 || c->info->elements != 1) return false;
  const void *d;
  DenseTmp tmp = {NULL};
  Error ignore = {0};
  if (!value_dense_read(&ctx->vc, c, &d, &tmp, &ignore)) return false;
  bool claimed = *(const uint32_t *)d == 1;
  value_tmp_free(&tmp);
  return claimed;
}

/* Op: recv-done
 * Operands: the recv's state (data, context, token)
 * Attributes: channel_id; optional is_host_transfer
 *
 * Result (data, token): the data the recv already holds, or else the oldest message
 * filed for channel_id (messages go to the recvs of a channel in order).
 *
 * Rule: XLA's RecvDone.
 * Refuses: a channel that got no send before this recv-done; a message whose type or
 *   shape differs from the data's.
 */
bool eval_recv_done(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                    Error *err) {
  if (in->noperands != 1)
    return error_set(err, ERR_RUNTIME, in->offset, "recv-done takes one operand");
  Value *st = frame_operand(f, in, 0);
  if (!need_state_operand(in, st, err)) return false;
  if (!shape_is_tuple(rs) || rs->ntuple != 2)
    return error_set(err, ERR_RUNTIME, in->offset, "recv-done returns (data, token)");
  Value *first[1] = {NULL};
  if (is_host_transfer(in)) {
    if (!value_coerce(&ctx->vc, st->elems[0], &rs->tuple[0], "", &first[0], err)) return false;
    return eval_state_tuple(ctx, in, rs, first, 1, out, err);
  }
  if (context_is_claimed(ctx, st->elems[1])) {
    if (!value_coerce(&ctx->vc, st->elems[0], &rs->tuple[0], "", &first[0], err)) return false;
    return eval_state_tuple(ctx, in, rs, first, 1, out, err);
  }
  int64_t ch;
  channel_of(in, &ch);
  /* This recv waited: drop its marker, take the channel's next message. */
  P2PMessage **pw = (P2PMessage **)&ctx->p2p_inbox;
  while (*pw && !((*pw)->channel == ch && (*pw)->waiting)) pw = &(*pw)->next;
  if (*pw) {
    P2PMessage *w = *pw;
    *pw = w->next;
    free(w);
  }
  P2PMessage **pm = (P2PMessage **)&ctx->p2p_inbox;
  while (*pm && ((*pm)->channel != ch || (*pm)->waiting)) pm = &(*pm)->next;
  if (!*pm)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "nothing was sent to this device on channel %" PRId64
                     " (no send with that channel_id ran before this recv-done)",
                     ch);
  P2PMessage *m = *pm;
  bool ok = m->nothing ? eval_zero_value(ctx, in, &rs->tuple[0], &first[0], err)
                       : from_message(ctx, in, m, &rs->tuple[0], &first[0], err);
  *pm = m->next;
  free(m->bytes);
  free(m);
  if (!ok) return false;
  return eval_state_tuple(ctx, in, rs, first, 1, out, err);
}
