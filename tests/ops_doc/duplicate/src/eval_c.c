/* Self-test fixture: a second header for negate must be refused. */
/* Op: negate
 * Operands: operand
 * Attributes: none
 *
 * Again.
 *
 * Rule: none.
 * Refuses: nothing.
 */
bool eval_negate(int x) { return x; }
