/* send / send-done / recv / recv-done (interp/collective/send_recv.c).
 *
 * State tuples as XLA defines them: send and recv return (data, u32[]
 * context, token), send-done a token, recv-done (data, token).  The
 * context is always 0 (it names a request in XLA's runtime; nothing here
 * needs one).
 *
 * is_host_transfer=true: the host is the peer.  send hands each array leaf
 * of its data to the outfeed (the --outfeed-dir files, in execution order
 * with outfeed's), recv takes its data from the infeed queue (--infeed,
 * then --random-inputs data) when it executes.
 *
 * Otherwise the peer is another device of the run.  Pairs come from the
 * frontend attribute _xla_send_recv_source_target_pairs="{{s,t},...}"
 * (XLA's kSendRecvSourceTargetPairsAttr): partition ids when the op has a
 * channel_id, replica ids without one (CollectiveOpGroupMode).  Every
 * device executes the send at the same point (a rendezvous, like
 * collective-permute); the device a pair targets keeps a copy of its
 * source's data in its inbox under the send's channel_id, a device no pair
 * targets keeps "nothing".  recv-done takes the oldest inbox entry of its
 * channel_id: the data (element type and dimensions must match), or zeros
 * for "nothing", as XLA's RecvThunk zero-fills without a source.  A
 * recv-done with no entry (no send ran on its channel) is an error.  A
 * single-device run has no peer: device-to-device send/recv is an error
 * there unless a pair sends device 0 to itself. */
#ifndef HLO_INTERP_COLLECTIVE_SEND_RECV_H
#define HLO_INTERP_COLLECTIVE_SEND_RECV_H

#include "interp/eval_internal.h"


/* Frees the messages a device received but no recv-done took. */
void eval_p2p_inbox_free(EvalCtx *ctx);

#endif
