/* Op: sort
 * Operands: operands (1 or more arrays)
 * Attributes: dimensions={d}, to_apply; optional
 *   is_stable
 *
 * Sorts the operands together.
 *
 * Rule: XLA operation semantics, Sort.
 * Refuses: nothing the verifier accepts.
 */
bool eval_sort(int x) { return x; }
