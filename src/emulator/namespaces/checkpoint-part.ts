// A piece of namespace state that checkpoints save and restore (the core gateway state, fault rules, scenarios,
// sessions): each owner implements it; namespaces/checkpoints.ts keeps what they hand over. Imports nothing.

export interface CheckpointPart {
  /** A copy of the state, unchanged by anything that happens after (a restore must be repeatable). */
  snapshot(): unknown;
  /** Puts back what snapshot() returned; the value stays reusable. */
  restore(state: unknown): void;
}
