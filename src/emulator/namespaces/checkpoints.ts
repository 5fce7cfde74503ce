// Checkpoints of one namespace: its runs (memory, queued events, live runs and their start timers), durable rows,
// clock, settings, id stream position and the state of its parts (faults, scenarios). Restoring one puts all of it
// back; a checkpoint is never changed by a restore, so restoring it twice gives the same state twice.
import type { ControlledClock } from '../../shared/clock.js';
import { HermeticError } from '../../shared/errors.js';
import type { GatewaySettings } from '../gateway.js';
import type { MemorySnapshot } from '../runs/registry.js';
import type { IdempotencyRow } from '../runs/run-table.js';
import type { Namespace } from './namespace.js';

/** A piece of namespace state owned elsewhere (fault rules, scenarios) that a checkpoint saves and restores. */
export interface CheckpointPart {
  snapshot(): unknown;
  restore(state: unknown): void;
}

interface Checkpoint {
  readonly id: string;
  /** Namespace clock time when it was taken. */
  readonly takenAt: number;
  readonly clock: { now: number; frozen: boolean } | null;
  readonly gateway: GatewaySettings;
  readonly rows: readonly IdempotencyRow[];
  readonly memory: MemorySnapshot;
  readonly idPosition: number | undefined;
  readonly parts: ReadonlyMap<string, unknown>;
}

export interface CheckpointSummary {
  id: string;
  taken_at: number;
  runs: number;
  durable_rows: number;
}

const copySettings = (g: GatewaySettings): GatewaySettings => ({
  ...g,
  corsOrigins: [...g.corsOrigins],
  profiles: new Map([...g.profiles].map(([name, p]) => [name, { ...p }])),
});

export class Checkpoints {
  readonly #saved = new Map<string, Checkpoint>();
  #next = 1;

  /** Saves the namespace's state now; held writes are committed first so the rows are what clients were answered. */
  take(ns: Namespace, ownClock: ControlledClock | null, parts: ReadonlyMap<string, CheckpointPart>): CheckpointSummary {
    const id = `cp_${this.#next++}`;
    const checkpoint: Checkpoint = {
      id,
      takenAt: ns.clock.now(),
      clock: ownClock ? { now: ownClock.now(), frozen: ownClock.frozen } : null,
      gateway: copySettings(ns.gateway),
      rows: ns.store.rows(),
      memory: ns.registry.snapshotMemory((run) => ns.agent.steerRaises(run)),
      idPosition: ns.ids.position,
      parts: new Map([...parts].map(([name, part]) => [name, part.snapshot()])),
    };
    this.#saved.set(id, checkpoint);
    return summary(checkpoint);
  }

  /** Puts the namespace back as it was when `id` was taken (attached event streams are cut, as in a restart). */
  restore(ns: Namespace, id: string, ownClock: ControlledClock | null, parts: ReadonlyMap<string, CheckpointPart>): CheckpointSummary {
    const checkpoint = this.#get(id);
    // The rows first: if the store refuses, nothing else has changed.
    ns.store.replaceAll(checkpoint.rows);
    ns.registry.stopSweeps();
    ns.registry.clearMemory();
    if (ownClock && checkpoint.clock) ownClock.reset({ start: checkpoint.clock.now, frozen: checkpoint.clock.frozen });
    Object.assign(ns.gateway, copySettings(checkpoint.gateway));
    if (checkpoint.idPosition !== undefined) ns.ids.seek?.(checkpoint.idPosition);
    ns.registry.restoreMemory(checkpoint.memory, (run) => void ns.agent.revive(run));
    for (const [name, part] of parts) {
      if (checkpoint.parts.has(name)) part.restore(checkpoint.parts.get(name));
    }
    ns.registry.startSweeps();
    return summary(checkpoint);
  }

  list(): CheckpointSummary[] {
    return [...this.#saved.values()].map(summary);
  }

  delete(id: string): CheckpointSummary {
    const checkpoint = this.#get(id);
    this.#saved.delete(id);
    return summary(checkpoint);
  }

  #get(id: string): Checkpoint {
    const checkpoint = this.#saved.get(id);
    if (!checkpoint) {
      const known = [...this.#saved.keys()];
      throw new HermeticError(
        'HERMETIC_CHECKPOINT_UNKNOWN',
        `No checkpoint ${id} in this namespace${known.length ? ` (it has ${known.join(', ')})` : ' (it has none; POST /__admin/checkpoints takes one)'}.`,
      );
    }
    return checkpoint;
  }
}

function summary(c: Checkpoint): CheckpointSummary {
  return { id: c.id, taken_at: c.takenAt, runs: c.memory.statuses.length, durable_rows: c.rows.length };
}
