// The timeline of one namespace: its checkpoints as a graph (each with its parent and the branch it was taken on),
// its branches (name → head checkpoint) and the head the live state descends from (decision 0065). A checkpoint holds
// what every checkpoint part of the namespace handed over (the core gateway state first: rows, run memory, clock,
// settings, id stream; then faults, scenarios, sessions); restoring one hands each part its state back, in the same
// order, and never changes the checkpoint, so restoring it twice gives the same state twice. Bounded: the latest
// MAX_CHECKPOINTS, MAX_CHECKPOINT_BYTES of state in all, MAX_BRANCHES branches; branch heads are never let go.
import { HermeticError } from '../../shared/errors.js';
import type { CheckpointPart } from './checkpoint-part.js';
import { DEFAULT_NAMESPACE, namespaceProblem } from './names.js';
import { estimateBytes } from './size.js';

export type { CheckpointPart } from './checkpoint-part.js';

/** What a checkpoint shows of itself (counts of the core state, measured when it was taken). */
export interface CheckpointSummary {
  /** cp_1, cp_2, … in the default namespace; cp_1@<name>, … in namespace <name>. */
  id: string;
  taken_at: number;
  runs: number;
  durable_rows: number;
  /** The branch it was taken on. */
  branch: string;
  /** The checkpoint the state it holds descends from (the nearest one still kept), or null. */
  parent: string | null;
  /** "METHOD /path" of the request it was taken after (automatic checkpoints); null: taken on request. */
  request: string | null;
  /** `namespace`: it holds the namespace's clock (a restore puts the time back); `caller`: the clock is the caller's (createEmulator({ clock })) and a restore leaves it as it is. */
  clock: 'namespace' | 'caller';
}

/** GET /__admin/timeline. */
export interface TimelineView {
  /** Whether a checkpoint is taken after each request that changed the namespace (POST /__admin/timeline). */
  auto: boolean;
  /** The branch checkpoints are taken on now. */
  branch: string;
  /** The checkpoint the live state descends from: the next one's parent (null after a reset, or before any). */
  head: string | null;
  /** Every branch, in order of creation, and its head (null: no checkpoint on it yet). */
  branches: Record<string, string | null>;
  /** Oldest first. */
  checkpoints: CheckpointSummary[];
  /** Estimated bytes of state the checkpoints hold, and the most they may. */
  bytes: number;
  max_bytes: number;
  max_checkpoints: number;
  /** Checkpoints let go to stay within the bounds. */
  evicted: number;
  /** Automatic checkpoints not taken: the store was busy, or the state would not fit the bounds. */
  skipped: number;
}

interface Checkpoint {
  readonly summary: CheckpointSummary;
  readonly states: ReadonlyArray<readonly [string, unknown]>;
  readonly bytes: number;
}

/** Checkpoints a namespace keeps: taking one more lets the oldest go that heads no branch. */
export const MAX_CHECKPOINTS = 100;
/** The state its checkpoints may hold in all (estimated; size.ts). */
export const MAX_CHECKPOINT_BYTES = 64 * 1024 * 1024;
/** Branches a namespace may have, main included (their heads are kept whatever else goes). */
export const MAX_BRANCHES = 20;
export const MAIN_BRANCH = 'main';

const BRANCH_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const CHECKPOINT_ID = /^cp_[1-9][0-9]*(?:@(.+))?$/;
const MIB = 1024 * 1024;
const mib = (bytes: number): string => (bytes < MIB ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / MIB).toFixed(1)} MiB`);

export class Checkpoints {
  readonly #saved = new Map<string, Checkpoint>();
  /** name → head, in order of creation. */
  readonly #branches = new Map<string, string | null>([[MAIN_BRANCH, null]]);
  #current = MAIN_BRANCH;
  #head: string | null = null;
  #next = 1;
  #bytes = 0;
  #evicted = 0;
  #skipped = 0;
  readonly #suffix: string;

  /** `maxBytes`: the state its checkpoints may hold in all (tests give a smaller one). */
  constructor(
    readonly namespace: string,
    readonly maxBytes: number = MAX_CHECKPOINT_BYTES,
  ) {
    this.#suffix = namespace === DEFAULT_NAMESPACE ? '' : `@${namespace}`;
  }

  /**
   * Saves every part's state now, in order, as the current branch's new head; `summarize` counts what the saved
   * states hold. HERMETIC_CHECKPOINT_LIMIT, and nothing changed, when the state would not fit beside the branch heads.
   */
  take(
    parts: ReadonlyArray<readonly [string, CheckpointPart]>,
    summarize: (states: ReadonlyMap<string, unknown>) => Pick<CheckpointSummary, 'taken_at' | 'runs' | 'durable_rows' | 'clock'>,
    request: string | null = null,
  ): CheckpointSummary {
    const states = parts.map(([name, part]) => [name, part.snapshot()] as const);
    const bytes = estimateBytes(states);
    // What must stay whatever goes: the other branches' heads (the current branch's head moves to the new one).
    const pinned = new Set<string>();
    for (const [name, head] of this.#branches) if (name !== this.#current && head !== null) pinned.add(head);
    let kept = bytes;
    for (const id of pinned) kept += this.#saved.get(id)!.bytes;
    if (kept > this.maxBytes) {
      const heads = pinned.size > 0 ? ` beside the ${pinned.size} other branch head${pinned.size === 1 ? '' : 's'} (${mib(kept - bytes)})` : '';
      throw new HermeticError(
        'HERMETIC_CHECKPOINT_LIMIT',
        `The namespace's state is about ${mib(bytes)}: it does not fit${heads} in the ${mib(this.maxBytes)} its checkpoints may hold.${pinned.size > 0 ? ' Delete a branch (DELETE /__admin/branches/{branch}) to make room.' : ''}`,
      );
    }
    const id = `cp_${this.#next++}${this.#suffix}`;
    const summary: CheckpointSummary = { id, ...summarize(new Map(states)), branch: this.#current, parent: this.#head, request };
    this.#saved.set(id, { summary, states, bytes });
    this.#bytes += bytes;
    this.#branches.set(this.#current, id);
    this.#head = id;
    this.#evict();
    return { ...summary };
  }

  /** An automatic checkpoint that could not be taken (counted in the timeline). */
  skipped(): void {
    this.#skipped++;
  }

  /**
   * Hands each part its saved state, in the order they were saved, and makes the checkpoint the head of the current
   * branch. The first part checks what can fail (the core part replaces the durable rows first), so a store that
   * refuses fails the restore before anything has changed.
   */
  restore(id: string, parts: ReadonlyArray<readonly [string, CheckpointPart]>): CheckpointSummary {
    return this.checkout(this.#current, id, parts).checkpoint!;
  }

  /**
   * The branch becomes the current one, at `id` when given (its head moves there) else at its head, and the namespace
   * takes that checkpoint's state. A branch with no checkpoint yet leaves the state as it is.
   */
  checkout(
    branch: string,
    id: string | undefined,
    parts: ReadonlyArray<readonly [string, CheckpointPart]>,
  ): { branch: string; checkpoint: CheckpointSummary | null } {
    this.#branch(branch);
    const target = id ?? this.#branches.get(branch)!;
    const checkpoint = target === null ? null : this.#get(target);
    if (checkpoint) {
      const byName = new Map(parts);
      for (const [name, state] of checkpoint.states) byName.get(name)?.restore(state);
    }
    this.#current = branch;
    if (checkpoint) {
      this.#branches.set(branch, checkpoint.summary.id);
      this.#head = checkpoint.summary.id;
    }
    return { branch, checkpoint: checkpoint ? { ...checkpoint.summary } : null };
  }

  /** A new branch whose head is `id` (default: the head now); the current branch stays. */
  createBranch(name: string, id?: string): { branch: string; head: string } {
    if (!BRANCH_NAME.test(name)) {
      throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', `The branch name ${JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name)} must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit.`);
    }
    if (this.#branches.has(name)) throw new HermeticError('HERMETIC_BRANCH_EXISTS', `This namespace already has a branch "${name}" (at ${this.#branches.get(name) ?? 'no checkpoint'}); a checkout with {"checkpoint"} moves it.`);
    if (this.#branches.size >= MAX_BRANCHES) {
      throw new HermeticError('HERMETIC_BRANCH_LIMIT', `This namespace already has ${MAX_BRANCHES} branches, the most it may; delete one first (DELETE /__admin/branches/{branch}).`);
    }
    const at = id ?? this.#head;
    if (at === null) throw new HermeticError('HERMETIC_CHECKPOINT_UNKNOWN', 'There is no checkpoint to start the branch at: take one (POST /__admin/checkpoints), or name one with {"checkpoint"}.');
    const head = this.#get(at).summary.id;
    this.#branches.set(name, head);
    return { branch: name, head };
  }

  /** Forgets a branch (its checkpoints stay, and may now be let go); never the current one. */
  deleteBranch(name: string): { branch: string; head: string | null } {
    const head = this.#branch(name);
    if (name === this.#current) throw new HermeticError('HERMETIC_BRANCH_CURRENT', `"${name}" is the current branch; check another out first (POST /__admin/branches/{branch}/checkout).`);
    this.#branches.delete(name);
    return { branch: name, head };
  }

  /** The live state no longer descends from any checkpoint (a namespace reset): the next one has no parent. */
  detach(): void {
    this.#head = null;
  }

  list(): CheckpointSummary[] {
    return [...this.#saved.values()].map((c) => ({ ...c.summary }));
  }

  timeline(auto: boolean): TimelineView {
    return {
      auto,
      branch: this.#current,
      head: this.#head,
      branches: Object.fromEntries(this.#branches),
      checkpoints: this.list(),
      bytes: this.#bytes,
      max_bytes: this.maxBytes,
      max_checkpoints: MAX_CHECKPOINTS,
      evicted: this.#evicted,
      skipped: this.#skipped,
    };
  }

  /** Forgets one checkpoint; what pointed at it (children, branch heads, the head) points at its parent instead. */
  delete(id: string): CheckpointSummary {
    const checkpoint = this.#get(id);
    this.#forget(checkpoint);
    return { ...checkpoint.summary };
  }

  /** Lets the oldest checkpoints that head no branch go until the bounds hold. */
  #evict(): void {
    if (this.#saved.size <= MAX_CHECKPOINTS && this.#bytes <= this.maxBytes) return;
    const heads = new Set(this.#branches.values());
    // A Map iterates in insertion order: the oldest first.
    for (const checkpoint of [...this.#saved.values()]) {
      if (this.#saved.size <= MAX_CHECKPOINTS && this.#bytes <= this.maxBytes) return;
      if (heads.has(checkpoint.summary.id)) continue;
      this.#forget(checkpoint);
      this.#evicted++;
    }
  }

  #forget(checkpoint: Checkpoint): void {
    const { id, parent } = checkpoint.summary;
    this.#saved.delete(id);
    this.#bytes -= checkpoint.bytes;
    for (const other of this.#saved.values()) if (other.summary.parent === id) other.summary.parent = parent;
    for (const [name, head] of this.#branches) if (head === id) this.#branches.set(name, parent);
    if (this.#head === id) this.#head = parent;
  }

  /** The head of a branch that exists (HERMETIC_BRANCH_UNKNOWN otherwise). */
  #branch(name: string): string | null {
    const head = this.#branches.get(name);
    if (head === undefined) {
      const names = [...this.#branches.keys()].map((n) => `"${n}"`).join(', ');
      throw new HermeticError('HERMETIC_BRANCH_UNKNOWN', `No branch "${name.length > 80 ? `${name.slice(0, 80)}…` : name}" in this namespace (it has ${names}); POST /__admin/branches/{branch} makes one.`);
    }
    return head;
  }

  #get(id: string): Checkpoint {
    const checkpoint = this.#saved.get(id);
    if (checkpoint) return checkpoint;
    const shown = id.length > 80 ? `${id.slice(0, 80)}…` : id;
    const owner = CHECKPOINT_ID.exec(id);
    if (owner) {
      const of = owner[1] ?? DEFAULT_NAMESPACE;
      // A suffix that names no namespace makes no namespace's id: unknown, not foreign.
      if (of !== this.namespace && namespaceProblem(of) === null) {
        const path = of === DEFAULT_NAMESPACE ? '/__admin/…' : `/ns/${of}/__admin/…`;
        throw new HermeticError(
          'HERMETIC_CHECKPOINT_FOREIGN',
          `${shown} is a checkpoint id of namespace "${of}" (whether or not it was taken there), not of this namespace ("${this.namespace}"): a namespace is only restored from its own checkpoints (${path} reaches that one).`,
        );
      }
    }
    const known = [...this.#saved.keys()];
    const has = known.length === 0 ? ' (it has none; POST /__admin/checkpoints takes one)'
      : known.length > 5 ? ` (it has ${known.length}: ${known[0]} … ${known[known.length - 1]})` : ` (it has ${known.join(', ')})`;
    const evicted = this.#evicted > 0 ? `; it keeps the latest ${MAX_CHECKPOINTS} (and at most ${mib(this.maxBytes)} of state), and has let ${this.#evicted} older ones go` : '';
    throw new HermeticError('HERMETIC_CHECKPOINT_UNKNOWN', `No checkpoint ${shown} in this namespace${has}${evicted}.`);
  }
}
