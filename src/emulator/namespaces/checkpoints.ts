// Checkpoints of one namespace: each holds what every checkpoint part of the namespace handed over (the core gateway
// state first: rows, run memory, clock, settings, id stream; then faults, scenarios, sessions). Restoring one hands
// each part its state back, in the same order; a checkpoint is never changed by a restore, so restoring it twice
// gives the same state twice.
import { HermeticError } from '../../shared/errors.js';
import type { CheckpointPart } from './checkpoint-part.js';

export type { CheckpointPart } from './checkpoint-part.js';

/** What a checkpoint shows of itself (counts of the core state, measured when it was taken). */
export interface CheckpointSummary {
  id: string;
  taken_at: number;
  runs: number;
  durable_rows: number;
}

interface Checkpoint {
  readonly summary: CheckpointSummary;
  readonly states: ReadonlyArray<readonly [string, unknown]>;
}

/** Checkpoints a namespace keeps: taking one more lets the oldest go (memory stays bounded whatever a test takes). */
export const MAX_CHECKPOINTS = 100;

export class Checkpoints {
  readonly #saved = new Map<string, Checkpoint>();
  #next = 1;
  /** Checkpoints let go to keep MAX_CHECKPOINTS. */
  #evicted = 0;

  /** Saves every part's state now, in order; `summarize` counts what the saved states hold. */
  take(
    parts: ReadonlyArray<readonly [string, CheckpointPart]>,
    summarize: (states: ReadonlyMap<string, unknown>) => Omit<CheckpointSummary, 'id'>,
  ): CheckpointSummary {
    const states = parts.map(([name, part]) => [name, part.snapshot()] as const);
    const id = `cp_${this.#next++}`;
    const checkpoint: Checkpoint = { summary: { id, ...summarize(new Map(states)) }, states };
    this.#saved.set(id, checkpoint);
    // A Map iterates in insertion order: the first key is the oldest.
    while (this.#saved.size > MAX_CHECKPOINTS) {
      this.#saved.delete(this.#saved.keys().next().value!);
      this.#evicted++;
    }
    return { ...checkpoint.summary };
  }

  /**
   * Hands each part its saved state, in the order they were saved. The first part checks what can fail (the core
   * part replaces the durable rows first), so a store that refuses fails the restore before anything has changed.
   */
  restore(id: string, parts: ReadonlyArray<readonly [string, CheckpointPart]>): CheckpointSummary {
    const checkpoint = this.#get(id);
    const byName = new Map(parts);
    for (const [name, state] of checkpoint.states) byName.get(name)?.restore(state);
    return { ...checkpoint.summary };
  }

  list(): CheckpointSummary[] {
    return [...this.#saved.values()].map((c) => ({ ...c.summary }));
  }

  delete(id: string): CheckpointSummary {
    const checkpoint = this.#get(id);
    this.#saved.delete(id);
    return { ...checkpoint.summary };
  }

  #get(id: string): Checkpoint {
    const checkpoint = this.#saved.get(id);
    if (!checkpoint) {
      const known = [...this.#saved.keys()];
      const has = known.length === 0 ? ' (it has none; POST /__admin/checkpoints takes one)'
        : known.length > 5 ? ` (it has ${known.length}: ${known[0]} … ${known[known.length - 1]})` : ` (it has ${known.join(', ')})`;
      const evicted = this.#evicted > 0 ? `; it keeps the latest ${MAX_CHECKPOINTS}, and has let ${this.#evicted} older ones go` : '';
      throw new HermeticError('HERMETIC_CHECKPOINT_UNKNOWN', `No checkpoint ${id} in this namespace${has}${evicted}.`);
    }
    return checkpoint;
  }
}
