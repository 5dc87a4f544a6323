/* The verifier: operand counts, element types, attributes and shape
 * inference for every opcode, checked against the declared result shapes. */
#ifndef HLO_PARSER_VERIFY_H
#define HLO_PARSER_VERIFY_H

#include <stdbool.h>

#include "base/diag.h"
#include "parser/ir.h"

/* Appends a diagnostic per problem found (offsets into module->source);
 * returns true if the module is valid. */
bool verify_module(const Module *m, Diags *diags);

#endif
