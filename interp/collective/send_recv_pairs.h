/* The peers of a device-to-device send / recv: XLA keeps them in the
 * frontend attribute _xla_send_recv_source_target_pairs="{{s,t},...}"
 * (kSendRecvSourceTargetPairsAttr in collective_ops_utils.h), which the
 * parser keeps as raw text. */
#ifndef HLO_INTERP_COLLECTIVE_SEND_RECV_PAIRS_H
#define HLO_INTERP_COLLECTIVE_SEND_RECV_PAIRS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "parser/ir.h"

enum { SEND_RECV_MAX_PAIRS = 256 };

/* pairs[0..*n) (room for SEND_RECV_MAX_PAIRS); *n = 0 without the
 * attribute.  A malformed attribute is an error naming the instruction. */
bool send_recv_pairs(const Instr *in, int64_t (*pairs)[2], int *n, Error *err);

#endif
