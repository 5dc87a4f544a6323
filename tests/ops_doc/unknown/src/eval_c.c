/* Self-test fixture: a header naming an op opcodes.def does not have. */
/* Op: frobnicate
 * Operands: operand
 * Attributes: none
 *
 * Not an op.
 *
 * Rule: none.
 * Refuses: nothing.
 */
bool eval_frobnicate(int x) { return x; }
