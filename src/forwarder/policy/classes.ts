// The three usage-policy classes and their order: ignore > local-only > full (spec forwarding §4).

export type PolicyClass = 'ignore' | 'local-only' | 'full';

const RANK: Readonly<Record<PolicyClass, number>> = { full: 0, 'local-only': 1, ignore: 2 };

/** How restrictive a class is; a bigger number exposes less. */
export function rank(cls: PolicyClass): number {
  return RANK[cls];
}

/** True when `a` exposes strictly less than `b`. */
export function isStricter(a: PolicyClass, b: PolicyClass): boolean {
  return RANK[a] > RANK[b];
}

/** The more restrictive of two classes. @example strictest('full', 'local-only') === 'local-only' */
export function strictest(a: PolicyClass, b: PolicyClass): PolicyClass {
  return isStricter(b, a) ? b : a;
}

export function isPolicyClass(value: unknown): value is PolicyClass {
  return value === 'ignore' || value === 'local-only' || value === 'full';
}
