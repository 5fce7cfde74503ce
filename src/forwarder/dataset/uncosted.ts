// Which sessions Hermes gave no cost (decision 0132): neither an estimate nor a billed cost (a store from before Hermes
// kept costs), or a cost status of `unknown` (usage it could not price: Hermes adds 0 to the estimate and marks the
// status, agent/usage_pricing.py `_unknown_cost`), so a $0.00 is not read as measured. Shared by the report's count
// (report/uncosted.ts) and the fleet store's partial index, which PostgreSQL uses only for the same text.

/** The rule over a `sessions` row, its columns led by `alias.` (or bare, for an index's WHERE). */
export function uncostedSession(alias = ''): string {
  const c = (name: string) => (alias ? `${alias}.${name}` : name);
  return `((${c('estimated_cost_usd')} IS NULL AND ${c('actual_cost_usd')} IS NULL) OR ${c('cost_status')} = 'unknown')`;
}
