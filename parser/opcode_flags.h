/* The flags column of parser/opcodes.def: facts about an op that the
 * parser, the evaluator and the buffer report read (see the column comment
 * there). */
#ifndef HLO_PARSER_OPCODE_FLAGS_H
#define HLO_PARSER_OPCODE_FLAGS_H

enum {
  OPF_NO_TRAFFIC = 1, /* hands values on: its reads/writes are not memory traffic */
  OPF_UNTIMED = 2,    /* bookkeeping too cheap to read the clock for */
  OPF_SEQ_CALLS = 4,  /* runs its called computations as sequential code */
  OPF_RESULT_ACCURACY = 8, /* may carry result_accuracy (XLA's IsUnaryOpWithResultAccuracy) */
};

#endif
