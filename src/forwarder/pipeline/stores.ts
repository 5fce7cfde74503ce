// The stores a forwarder's passes read: discovered (reader/discover.ts) with HERMES_HOME resolved, a PostgreSQL store
// through its mirror, a store under another spelling of a file the dataset knows kept under that key; a store file a
// pass found, gone since, kept in later passes as not there; and a store that vanished under its step said removed.
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { discoverStores, spelledAsKnown, storeFile, storeRoots, type StoreRef } from '../reader/discover.js';
import { mirrorFile } from '../reader/postgres/settings.js';
import type { Sink } from '../sinks/sink.js';
import type { StepResult } from './result.js';

/** Where the stores are looked for: the user's home, HERMES_HOME (the option, else the environment's), --state-db. */
export interface StoreSearch {
  userHome?: string;
  hermesHome?: string | undefined;
  stateDbs?: readonly string[];
}

/**
 * The stores a pass reads (reader/discover.ts), with HERMES_HOME taken from the environment when not given.
 * @example findStores({ stateDbs: ['/tmp/state.db'] })
 */
export function findStores(search: StoreSearch = {}, env: NodeJS.ProcessEnv = process.env): StoreRef[] {
  return discoverStores({ home: search.userHome ?? homedir(), hermesHome: hermesHomeOf(search, env), explicit: search.stateDbs ?? [], env });
}

/** HERMES_HOME as a pass takes it: the option, else the environment's (the one place the forwarder reads it). */
function hermesHomeOf(search: StoreSearch, env: NodeJS.ProcessEnv): string | undefined {
  return 'hermesHome' in search ? search.hermesHome : env.HERMES_HOME;
}

/**
 * The Hermes homes findStores searches when no --state-db is given (HERMES_HOME's first, when set), whether
 * HERMES_HOME was set, and the file it names when it names one (a store, not Hermes's folder): what the commands say
 * when they found no store.
 * @example searchedHomes({ userHome: '/home/u' }, {}) // { roots: ['/home/u/.hermes'], hermesHomeSet: false }
 */
export function searchedHomes(search: StoreSearch = {}, env: NodeJS.ProcessEnv = process.env): { roots: string[]; hermesHomeSet: boolean; hermesHomeFile: string | null } {
  const hermesHome = hermesHomeOf(search, env) || undefined;
  return { roots: storeRoots({ home: search.userHome ?? homedir(), hermesHome }), hermesHomeSet: hermesHome !== undefined, hermesHomeFile: hermesHome !== undefined && statSync(hermesHome, { throwIfNoEntry: false })?.isFile() ? resolve(hermesHome) : null };
}

/**
 * The stores a forwarder finds now. A PostgreSQL store is read through its local mirror in Hermetic's home (decision
 * 0038). A store the dataset knows under another spelling of the same file keeps that key (its rows are not written
 * twice).
 */
export function forwarderStores(search: StoreSearch, home: string, sink: Sink): () => StoreRef[] {
  return () => spelledAsKnown(findStores(search), sink.storeKeys?.() ?? [])
    .map((r) => (r.source ? { ...r, file: mirrorFile(home, r.source) } : r));
}

/** A store a pass found, gone since (storesOfPasses, vanished): not there, said removed (decision 0104). */
const gone = (r: StoreRef, absent: string | undefined): StoreRef =>
  ({ ...r, exists: false, absent: absent === undefined || absent === 'does not exist' ? 'was removed after this forwarder read it' : absent, gone: true });

/**
 * The stores of each pass: those discovery lists, and the store files an earlier pass of this forwarder found that it
 * no longer lists. One gone since — its state.db deleted, its profile folder (or the whole Hermes home) removed — stays
 * in every pass as not there: the commands say it once (forward waits for it), and read it again, as any store, once
 * it is back.
 */
export function storesOfPasses(stores: () => StoreRef[]): () => StoreRef[] {
  const seen = new Map<string, StoreRef>();
  return () => {
    const found = stores();
    for (const r of found) if (r.exists && r.backend === 'sqlite' && !r.source) seen.set(r.path, r);
    const listed = new Set(found.map((r) => r.path));
    const unlisted: StoreRef[] = [];
    for (const r of seen.values()) {
      if (listed.has(r.path)) continue;
      // Still there but not listed (a profiles folder that cannot be listed: its home's store says so), or behind a
      // folder that cannot be entered: not gone.
      const look = storeFile(r.path);
      if (!look.exists && !look.unreachable) unlisted.push(gone(r, look.absent));
    }
    return [...found.map((r) => (!r.exists && !r.problem && seen.has(r.path) ? gone(r, r.absent) : r)), ...unlisted];
  };
}

/**
 * A store that went away between discovery and its step (removed mid-tick): the open failed on a file no longer there.
 * Its result is then the missing store's, and `onStore` hears of it again as not there, so the commands say it as
 * removed, not as a store that could not be opened. Null when that is not what happened.
 */
export function vanished(ref: StoreRef, r: StepResult): StoreRef | null {
  if (r.error === null || r.read !== null || !ref.exists || ref.source || ref.backend !== 'sqlite') return null;
  const look = storeFile(ref.path);
  return look.exists || look.unreachable ? null : gone(ref, look.absent);
}
