// Which state.db a profile's runs and sessions are recorded into (decision 0140): with --state-db, one file for every
// profile; with --state-home, a Hermes home laid out as Hermes lays one out — the default profile's store at
// `<home>/state.db`, each named profile's in its own home, `<home>/profiles/<name>/state.db` (hermes_cli/profiles.py
// get_profile_dir), its folders made owner-only on the profile's first write. Each file has one recorder (record/
// state-db.ts), opened by its first write; the namespace hands every turn and session change here.
import { join } from 'node:path';
import { createDirs } from '../../shared/dirs.js';
import { HermeticError } from '../../shared/errors.js';
import type { IdSource } from '../../shared/ids.js';
import { profileHome } from '../../state-db/home.js';
import type { ForkRecord, ModelLockRecord, SessionMirror } from '../sessions/service.js';
import { StateDbRecorder, type ApiSessionRow } from './state-db.js';
import type { Beat, FinishedTurn, Opening, TurnSink, TurnStart } from './turn-sink.js';

/** Where the recording goes: one file, or a Hermes home. */
export type StateTarget = { file: string } | { home: string };

/** The store a profile's rows go to under `target`, and the profile's own folder to make (none: one file, the home). */
export function stateFileOf(target: StateTarget, profile: string): { path: string; folder: string | null } {
  if ('file' in target) return { path: target.file, folder: null };
  // Checked when the options were read; a name here that is not a profile id is a bug, never a path to follow.
  const home = profileHome(target.home, profile);
  if (home === null) throw new HermeticError('HERMETIC_INTERNAL', `Profile "${profile}" has no folder in a Hermes home.`);
  return { path: join(home, 'state.db'), folder: home === target.home ? null : home };
}

export interface StateFilesOptions {
  now: () => number;
  ids: IdSource;
  /** A new file's generation token comes from here (the namespace's own ids stay where they were). */
  fileIds: IdSource;
  /** Open the default profile's file now, so a bad path fails at start (the default namespace). */
  eager: boolean;
  onError: (what: string, error: unknown) => void;
}

export class StateFiles implements TurnSink, SessionMirror {
  /** One recorder per file, by path: with --state-db every profile shares one. */
  readonly #byPath = new Map<string, StateDbRecorder>();

  constructor(
    private readonly target: StateTarget,
    private readonly options: StateFilesOptions,
  ) {
    if (options.eager) this.#recorder('default');
  }

  /** The recorder of the profile's file, made (its folders with it) when the profile first writes. */
  #recorder(profile: string): StateDbRecorder {
    const { path, folder } = stateFileOf(this.target, profile);
    let recorder = this.#byPath.get(path);
    if (!recorder) {
      // Owner-only (`profiles/` too), as the state.db inside; an existing folder keeps its mode. A folder that cannot
      // be made is said (the recorder's open then fails the same way, once).
      try {
        if (folder !== null) createDirs(folder, 0o700);
      } catch (e) {
        this.options.onError(`making ${folder} for ${path}`, e);
      }
      const { now, ids, fileIds, onError } = this.options;
      recorder = new StateDbRecorder(path, { now, ids, fileIds, eager: profile === 'default' && this.options.eager, onError });
      this.#byPath.set(path, recorder);
    }
    return recorder;
  }

  started(turn: TurnStart, opening: Opening): void {
    this.#recorder(turn.profile).started(turn, opening);
  }

  appended(turn: TurnStart, messages: FinishedTurn['messages']): void {
    this.#recorder(turn.profile).appended(turn, messages);
  }

  touched(turn: TurnStart, beat: Beat): void {
    this.#recorder(turn.profile).touched(turn, beat);
  }

  finished(turn: FinishedTurn): void {
    this.#recorder(turn.profile).finished(turn);
  }

  /** Asked just before a turn's rows are written into the same file: it may hold an earlier process's messages. */
  lastMessageAt(profile: string, sessionId: string): number | null {
    return this.#recorder(profile).lastMessageAt(sessionId);
  }

  sessionCreated(profile: string, row: ApiSessionRow): void {
    this.#recorder(profile).sessionCreated(row);
  }

  sessionUpdated(profile: string, id: string, fields: Record<string, unknown>): void {
    this.#recorder(profile).sessionUpdated(id, fields);
  }

  sessionEnded(profile: string, id: string, reason: string, at: number, wasOpen: boolean): void {
    this.#recorder(profile).sessionEnded(id, reason, at, wasOpen);
  }

  sessionLocked(profile: string, id: string, lock: ModelLockRecord): void {
    this.#recorder(profile).sessionLocked(id, lock);
  }

  sessionDeleted(profile: string, id: string): void {
    this.#recorder(profile).sessionDeleted(id);
  }

  sessionForked(profile: string, fork: ForkRecord): void {
    // SessionDB stamps a new row with the profile its file belongs to (_own_profile_name): known in a Hermes home; a
    // --state-db file is in none, and the fork takes its parent's.
    this.#recorder(profile).sessionForked(fork, 'home' in this.target ? profile : null);
  }

  reset(): void {
    for (const r of this.#byPath.values()) r.reset();
  }

  close(): void {
    for (const r of this.#byPath.values()) r.close();
    this.#byPath.clear();
  }
}
