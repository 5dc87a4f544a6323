/* Self-test fixture: every op has one well-formed header. */
static int helper(void) { return 0; }

/* Op: negate
 * Operands: operand
 * Attributes: none
 *
 * -x, element by element.
 *
 * Rule: XLA operation semantics, Neg.
 * Refuses: nothing the verifier accepts.
 */
bool eval_negate(int x) { return x == helper(); }
