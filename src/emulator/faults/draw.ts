// Seeded draws for fault probabilities: the k-th draw of a rule is a pure function of (seed, rule id, k), so a rule's
// draws do not depend on what other rules saw, and a checkpoint only needs each rule's count of draws.
import { createHash } from 'node:crypto';

/** A number in [0, 1) from SHA-256 of the seed, the rule id and the draw's index (48 bits). */
export function draw(seed: string, ruleId: string, index: number): number {
  const digest = createHash('sha256').update(`${seed}\0fault\0${ruleId}\0${index}`).digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}
