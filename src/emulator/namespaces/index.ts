// The emulator's namespaces: created on first use, bounded, listed, reset one or all, closed together. The default
// namespace always exists; a reset of every namespace keeps it (reset) and forgets the others (they come back on first
// use). Past the cap (maxNamespaces), creating one evicts the idle namespace untouched for the longest (decision 0028).
import { ControlledClock } from '../../shared/clock.js';
import { HermeticError } from '../../shared/errors.js';
import { EVERY_NAMESPACE, Faults } from '../faults/index.js';
import { JOURNAL_SLOTS, JournalSlots } from '../journal/journal.js';
import type { ControlledNamespaces, NamespaceSummary } from '../admin/context.js';
import { DEFAULT_NAMESPACE } from './names.js';
import { Namespace, type NamespaceShared } from './namespace.js';
import { limitedWarnings, type Warn } from './warnings.js';

export { DEFAULT_NAMESPACE, NAMESPACE_HEADER, NAMESPACE_PREFIX, namespaceProblem, selectNamespace } from './names.js';
export { initialSettings, Namespace } from './namespace.js';

export class Namespaces implements ControlledNamespaces {
  /** Every namespace but the default, in order of first use. */
  readonly #others = new Map<string, Namespace>();
  /** Stamps of use: each use of a namespace other than the default takes the next one (eviction picks the oldest). */
  #uses = 0;
  readonly #shared: NamespaceShared;
  readonly #max: number;
  readonly default: Namespace;
  /** Namespaces evicted to stay under the cap since the emulator started (metrics). */
  evicted = 0;

  constructor(shared: Omit<NamespaceShared, 'namespaces' | 'faultsEverywhere' | 'warn' | 'journalSlots'> & { warn?: Warn }) {
    const { options } = shared;
    // The rules for every namespace: one list, never asked to answer (each namespace's Faults tries them), so its
    // clock is never waited on; its draws follow a seed of its own.
    const faultsEverywhere = new Faults({
      clock: new ControlledClock({ frozen: true }),
      seed: options.seed === null ? null : `${options.seed}/ns/${EVERY_NAMESPACE}`,
      initial: options.faults.filter((r) => r.namespace === EVERY_NAMESPACE),
      finish: (r) => r,
      forEveryNamespace: true,
      // A namespace's own rules from the option come back at each start and reset: a shared rule with one of their
      // ids would then refuse them there (the namespace could neither be made nor reset).
      reservedIds: new Set(options.faults.flatMap((r) => (r.namespace !== EVERY_NAMESPACE && r.id !== null ? [r.id] : []))),
    });
    // The journals' shared slots: enough for a journal of the size asked, twice (decision 0022 addendum).
    const journalSlots = new JournalSlots(Math.max(JOURNAL_SLOTS, shared.options.journalSize * 2));
    this.#shared = { ...shared, warn: shared.warn ?? limitedWarnings(), namespaces: this, faultsEverywhere, journalSlots };
    this.#max = shared.options.maxNamespaces;
    this.default = new Namespace(DEFAULT_NAMESPACE, this.#shared);
  }

  /** The namespace called `name`, if it exists, marked as just used. */
  use(name: string): Namespace | undefined {
    if (name === DEFAULT_NAMESPACE) return this.default;
    const ns = this.#others.get(name);
    if (ns) ns.lastUse = ++this.#uses;
    return ns;
  }

  /**
   * The namespace called `name` (a valid name: see names.ts), created if this is its first use. At the cap, the idle
   * namespace untouched for the longest is closed and forgotten first (an unclaimed one before any claimed one); when
   * every one is busy, HERMETIC_NAMESPACE_LIMIT. Unclaimed (`claim` false: front-door.ts, a keyless request that reaches
   * no state on a server with a key), it evicts only unclaimed ones, and is null when none can go.
   */
  get(name: string): Namespace;
  get(name: string, claim: boolean): Namespace | null;
  get(name: string, claim = true): Namespace | null {
    const found = this.use(name);
    if (found) {
      if (claim) found.claimed = true;
      return found;
    }
    if (this.size >= this.#max && !this.#evictOne(claim)) return null;
    const ns = new Namespace(name, this.#shared);
    ns.claimed = claim;
    ns.lastUse = ++this.#uses;
    this.#others.set(name, ns);
    return ns;
  }

  /**
   * A namespace made for one answer and dropped after it (front-door.ts: a keyless request that reaches no state, at
   * the cap with no unclaimed namespace to evict): never held, listed, counted against the cap, or evicted. The caller
   * closes it.
   */
  transient(name: string): Namespace {
    return new Namespace(name, this.#shared);
  }

  /**
   * Closes and forgets the idle namespace used least recently, an unclaimed one first (one scan: eviction is rare, a
   * use costs a stamp). For an unclaimed newcomer only an unclaimed one may go: false when there is none.
   */
  #evictOne(claim: boolean): boolean {
    let idlest: Namespace | null = null;
    let unclaimed: Namespace | null = null;
    for (const ns of this.#others.values()) {
      if (ns.busy) continue;
      if (idlest === null || ns.lastUse < idlest.lastUse) idlest = ns;
      if (!ns.claimed && (unclaimed === null || ns.lastUse < unclaimed.lastUse)) unclaimed = ns;
    }
    const victim = unclaimed ?? (claim ? idlest : null);
    if (victim) {
      this.#others.delete(victim.name);
      victim.close();
      this.evicted++;
      return true;
    }
    if (!claim) return false;
    // A cap of 1 holds the default alone: nothing is busy, and no reset makes room.
    if (this.#max === 1) {
      throw new HermeticError('HERMETIC_NAMESPACE_LIMIT', 'This server holds only the default namespace (--max-namespaces 1), which is never evicted, so no other can be made; raise the cap.');
    }
    throw new HermeticError(
      'HERMETIC_NAMESPACE_LIMIT',
      `This server already holds ${this.size} namespaces (--max-namespaces ${this.#max}), and every one but the default (never evicted) has a run, a stream or a request in progress, so none can be evicted; reset some (POST /__admin/reset) or raise the cap.`,
    );
  }

  /** Without creating it, or marking it used. */
  find(name: string): Namespace | undefined {
    return name === DEFAULT_NAMESPACE ? this.default : this.#others.get(name);
  }

  /** Every namespace, the default first, then in order of first use. */
  list(): Namespace[] {
    return [this.default, ...this.#others.values()];
  }

  get size(): number {
    return this.#others.size + 1;
  }

  get max(): number {
    return this.#max;
  }

  summaries(): NamespaceSummary[] {
    return this.list().map((ns) => ({
      name: ns.name,
      runs: ns.registry.statuses.size,
      live_runs: ns.registry.live.size,
      created_at: ns.createdAt / 1000,
    }));
  }

  /** The namespace other than `except` that knows run `runId` (live or remembered), if any: told to a caller who asked the wrong one. */
  holding(runId: string, except: string): string | null {
    for (const ns of this.list()) if (ns.name !== except && (ns.registry.live.has(runId) || ns.registry.statuses.has(runId))) return ns.name;
    return null;
  }

  /** Resets every namespace: the default starts over, the others are closed and forgotten; the names reset. */
  resetAll(): string[] {
    const names = this.list().map((ns) => ns.name);
    // The default first: a store that refuses fails the reset before any namespace is forgotten.
    this.default.reset();
    for (const ns of this.#others.values()) ns.close();
    this.#others.clear();
    this.#shared.faultsEverywhere.reset();
    return names;
  }

  /** Loaded on the first scrape: prom-client costs ~40 ms to load, which an emulator nobody scrapes never pays. */
  async scrapeMetrics(): Promise<{ contentType: string; text: string }> {
    const { metricsOf } = await import('../metrics/metrics.js');
    return metricsOf(this).scrape();
  }

  close(): void {
    for (const ns of this.list()) ns.close();
    this.#shared.faultsEverywhere.close();
    this.#others.clear();
  }
}
