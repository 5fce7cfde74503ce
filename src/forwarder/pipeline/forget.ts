// `hermetic forget`: what was forwarded before a folder became `ignore` is removed now (issue 16 §5), instead of
// when each session next changes. Only sessions the usage policy ignores now, judged by every scope as `forward`
// judges them, are removed — every row of them, in one transaction per store with their cursors — and nothing else.
// Their cursors become what a pass writes for a session it ignored (cursor-marks.ts IGNORED: the scopes that ignored
// it, then its fingerprint): an unchanged session is not read again while the policy still ignores it, and once the
// ignore is lifted the next pass reads it again and `status` counts it as pending.
// `forget --store` removes every row read from a store no pass reads any more (a demo store, a copy), whatever the
// policy says: the store, its sessions and its cursors all go.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { HermeticError } from '../../shared/errors.js';
import { realPathOf } from '../../shared/real-path.js';
import { isLockedOut } from '../../shared/sqlite-errors.js';
import { isWithin, realPath, spellings, type PolicyResolver } from '../policy/index.js';
import { NOTHING_WRITTEN, type SessionWrite, type Written } from '../sinks/sink.js';
import type { SqliteSink } from '../sinks/sqlite/sink.js';
import { explicitStore, type StoreRef } from '../reader/discover.js';
import { mirrorFile } from '../reader/postgres/settings.js';
import { sessionsWithScopes } from './dataset-scopes.js';
import { judgeScopes } from './project.js';
import { ignoredFingerprint } from './cursor-marks.js';

export interface ForgetRequest {
  /** Session ids (in any store, or only those of `stores`). */
  sessions?: readonly string[];
  /** A folder: every session whose scope is it or under it. */
  scope?: string;
  /** Only sessions read from these stores (absolute paths). */
  stores?: readonly string[];
}

export interface ForgetMatch { store: string; sessionId: string; scope: string | null; reason: string }

export interface ForgetResult {
  forgotten: ForgetMatch[];
  /** Sessions that match but are not ignored now: kept, with why. */
  kept: ForgetMatch[];
  written: Written;
}

/**
 * Whether a session's scope is the folder or under it, by every spelling the policy judges a folder by (as written and
 * symlink-resolved): `--scope ~/link` reaches a session that ran in the folder the link names, and the other way round.
 */
function underScope(dir: string): (scope: string | null) => boolean {
  const dirs = spellings(dir, realPath);
  const known = new Map<string, boolean>();
  return (scope) => {
    if (scope === null || !isAbsolute(scope)) return false;
    let hit = known.get(scope);
    if (hit === undefined) known.set(scope, (hit = spellings(scope, realPath).some((s) => dirs.some((d) => isWithin(s, d)))));
    return hit;
  };
}

/**
 * Removes the matching sessions that the policy ignores now, judged as `forward` judges them: by every scope that
 * governs them (their own folder, a handoff's channel, a delegate's parents), the strictest winning.
 * @example forgetSessions(sink, policy, { scope: '/home/u/secret' }).forgotten.length
 */
export function forgetSessions(sink: SqliteSink, policy: PolicyResolver, request: ForgetRequest): ForgetResult {
  const ids = request.sessions ? new Set(request.sessions) : null;
  const stores = request.stores ? new Set(request.stores) : null;
  const under = request.scope === undefined ? null : underScope(request.scope);
  const out: ForgetResult = { forgotten: [], kept: [], written: { ...NOTHING_WRITTEN } };
  /** The scopes each forgotten session was judged by, kept in its cursor. */
  const judgedBy = new Map<ForgetMatch, string[]>();
  for (const { row: r, scopes } of sessionsWithScopes(sink.db)) {
    if (stores && !stores.has(r.store)) continue;
    if (ids && !ids.has(r.session_id)) continue;
    if (under && !scopes.some(under)) continue;
    const verdict = judgeScopes(scopes, policy);
    const reason = 'error' in verdict ? `its usage policy cannot be judged (${verdict.error})`
      : verdict.why || (scopes[0] !== undefined ? policy.resolve(scopes[0]).reason : 'no folder governs it: full');
    const match = { store: r.store, sessionId: r.session_id, scope: r.scope, reason };
    const ignored = !('error' in verdict) && verdict.cls === 'ignore';
    (ignored ? out.forgotten : out.kept).push(match);
    if (ignored) judgedBy.set(match, scopes);
  }
  const forgotten = new Map<string, ForgetMatch[]>();
  for (const m of out.forgotten) forgotten.set(m.store, [...(forgotten.get(m.store) ?? []), m]);
  for (const [store, matches] of forgotten) {
    const cursors = sink.cursors(store);
    const writes: SessionWrite[] = matches.map((m) => {
      const c = cursors.sessions.get(m.sessionId);
      const fingerprint = ignoredFingerprint(judgedBy.get(m)!, c?.fingerprint ?? '');
      return { sessionId: m.sessionId, projection: null, policy: 'full', fingerprint, maxMessageId: c?.maxMessageId ?? 0, usageMark: c?.usageMark ?? '', ledger: null, base: null };
    });
    const w = unlessBusy(sink, `the sessions of ${store} were not removed`, () => sink.write({
      store: cursors.row ?? { store, profile: '?', max_message_id: 0 }, reset: false, writes, removed: [],
      quarantine: { failed: [], cleared: matches.map((m) => m.sessionId) },
    }));
    out.written = { ...out.written, messagesRemoved: out.written.messagesRemoved + w.messagesRemoved, partsRemoved: out.written.partsRemoved + w.partsRemoved };
  }
  return out;
}

/**
 * A store `forget --store` removed, and what went with it: for a PostgreSQL store, the path of its local mirror (a copy
 * of its sessions, reader/postgres/mirror.ts) when one was there and is gone too.
 */
export interface StoreForgetResult { store: string; sessions: number; messagesRemoved: number; partsRemoved: number; mirror: string | null }

/**
 * The dataset's key for a store named on the command line: as written (a PostgreSQL store's key), else the path made
 * absolute (a folder standing for the state.db in it), else a key naming the same file through other links; null when
 * the dataset holds no such store.
 * @example storeKey('demo', ['/home/u/demo/state.db']) // '/home/u/demo/state.db' (run in /home/u)
 */
export function storeKey(given: string, known: readonly string[]): string | null {
  if (known.includes(given)) return given;
  const path = explicitStore(given);
  if (known.includes(path)) return path;
  const real = realPathOf(path);
  return known.find((k) => !k.startsWith('postgres://') && realPathOf(k) === real) ?? null;
}

/**
 * Removes every row read from each named store (`hermetic forget --store`), a transaction each, after checking them
 * all: a store the dataset does not hold, or one that a backfill or forward here reads on its own (`readByDefault`,
 * the stores discovery finds in HERMES_HOME and ~/.hermes), is refused before anything is removed; the second would be
 * read again by the next pass.
 */
export function forgetStores(sink: SqliteSink, given: readonly string[], readByDefault: readonly StoreRef[], home: string): StoreForgetResult[] {
  const known = sink.db.prepare('SELECT store FROM stores ORDER BY store').pluck().all() as string[];
  const keys: string[] = [];
  for (const g of given) {
    const key = storeKey(g, known);
    if (key === null) {
      const held = known.length === 0 ? 'it holds none' : `it holds ${known.slice(0, 5).join(', ')}${known.length > 5 ? ` and ${known.length - 5} more` : ''}`;
      throw new HermeticError('HERMETIC_FORGET_NONE', `The dataset holds no store ${g.startsWith('postgres://') ? g : explicitStore(g)} (${held}); nothing was removed.`);
    }
    const found = readByDefault.find((r) => r.exists && (r.path === key || (!r.source && realPathOf(r.path) === realPathOf(key))));
    if (found) {
      throw new HermeticError('HERMETIC_FORGET_READ', `${key} is a store every backfill and forward here reads (it is in ${found.hermesHome}): removed, it would be read again by the next pass. Nothing was removed.`);
    }
    if (!keys.includes(key)) keys.push(key);
  }
  return keys.map((store) => {
    // The mirror first: one that cannot be deleted stops here with the store's rows kept, so forget can be run again;
    // a mirror gone with the rows kept is only a cache, made again if the store is ever read again.
    const mirror = store.startsWith('postgres://') ? removeMirror(home, store) : null;
    const removed = unlessBusy(sink, `store ${store} was not removed`, () => sink.forgetStore(store));
    return { store, ...removed, mirror };
  });
}

/**
 * Deletes the local mirror a PostgreSQL store was read through (with its journal files, and what a rebuild cut short
 * left beside it: `<mirror>.<pid>-<thread>.new`, reader/postgres/mirror.ts): a copy of its sessions left on disk would
 * keep what the user asked to forget. Its path when there was one; HERMETIC_FORGET_MIRROR when a file cannot be
 * deleted (nothing of the store's rows is removed then).
 */
function removeMirror(home: string, identity: string): string | null {
  const file = mirrorFile(home, { identity });
  const there = existsSync(file);
  const dir = dirname(file);
  const rebuilt = new RegExp(`^${basename(file).replace(/\./g, '\\.')}\\.\\d+-\\d+\\.new(?:-journal)?$`);
  const leftovers = existsSync(dir) ? readdirSync(dir).filter((name) => rebuilt.test(name)).map((name) => join(dir, name)) : [];
  for (const path of [...['', '-wal', '-shm', '-journal'].map((suffix) => file + suffix), ...leftovers]) {
    try {
      rmSync(path, { force: true });
    } catch (e) {
      const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      throw new HermeticError('HERMETIC_FORGET_MIRROR', `The local mirror of ${identity} could not be deleted (${path}: ${why}); nothing of the store was removed. Delete the file, or let this user write ${dir}, and run hermetic forget again.`);
    }
  }
  return there ? file : null;
}

/** A write that met the dataset locked by another process past the wait: said with what was not done, not as a bug. */
function unlessBusy<T>(sink: SqliteSink, notDone: string, write: () => T): T {
  try {
    return write();
  } catch (e) {
    if (!isLockedOut(e)) throw e;
    throw new HermeticError('HERMETIC_DATASET_WRITE', `Another process kept the dataset ${sink.db.name} locked (a backfill or forward writing it); ${notDone} (what was removed before it stays removed): run hermetic forget again.`);
  }
}
