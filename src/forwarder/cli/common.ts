// What the forwarder commands share: their flags, durations and times as people write them, the summary line, and
// the event names and error kinds of their JSON lines (decision 0052).
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { looksLikePath, usageError, type FlagSpec } from '../../cli/args.js';
import { HermeticError, type ErrorCode } from '../../shared/errors.js';
import { readIsoTime } from '../../shared/iso-time.js';
import { ledgerTimeZone, Zone } from '../ledger/zone.js';
import { MAX_BACK, parsePoint } from '../report/window.js';
import { terminalText } from '../../shared/terminal-text.js';
import { durationSeconds } from '../../shared/duration.js';
import { hidePassword, userInfoProblem } from '../../shared/url-password.js';
import type { PolicyDrop, StepResult } from '../pipeline/step.js';
import type { StoreRef } from '../reader/discover.js';
import { searchedHomes } from '../pipeline/stores.js';
import type { ShipResult } from '../sinks/remote/shipper.js';

/**
 * Where backfill, forward and status looked for stores, as paths (the user's real home, HERMES_HOME's value), so a
 * reader sees which folders were searched, and whether HERMES_HOME was set at all.
 * @example whereLooked({}, '/home/u') // '/home/u/.hermes/state.db and the profiles/<name>/state.db beside it; HERMES_HOME is not set'
 */
export function whereLooked(env: NodeJS.ProcessEnv = process.env, userHome: string = homedir()): string {
  const { roots, hermesHomeSet, hermesHomeFile } = searchedHomes({ userHome }, env);
  const stores = roots.map((r) => join(r, 'state.db'));
  const hermesHome = !hermesHomeSet ? '; HERMES_HOME is not set' : hermesHomeFile ? `; HERMES_HOME names a file, not Hermes's folder: set it to ${dirname(hermesHomeFile)}` : '';
  return terminalText(`${stores.join(', ')} and the profiles/<name>/state.db beside ${roots.length === 1 ? 'it' : 'them'}${hermesHome}`);
}

/** What backfill and `forward --once` say when no Hermes store is anywhere they look (HERMETIC_READER_OPEN, exit 1). */
export function noStoreFound(env: NodeJS.ProcessEnv = process.env, userHome: string = homedir()): HermeticError {
  return new HermeticError('HERMETIC_READER_OPEN', `No Hermes store was found (looked for ${whereLooked(env, userHome)}); give --state-db PATH, or make one to try with "hermetic statedb generate --out state.db".`);
}

export const COMMON_FLAGS = {
  'state-db': { type: 'string', multiple: true, lone: looksLikePath },
  home: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Record<string, FlagSpec>;

/** A `--from` flag: the fleet store's URL as given (postgres:// or postgresql://), else a usage error (password hidden). */
export function fleetFrom(from: string | undefined): string | undefined {
  if (from !== undefined && !/^postgres(ql)?:\/\//i.test(from)) usageError(`--from takes the fleet store's URL (postgres://… or postgresql://…); got "${hidePassword(from)}".`);
  const userInfo = from === undefined ? null : userInfoProblem(from);
  if (userInfo) usageError(`--from "${hidePassword(from!)}": ${userInfo}.`);
  return from;
}

/**
 * An epoch-seconds time from `7d` (that long ago) or an ISO date or date-time, read as `report` reads one: a date is
 * its midnight in `zone` (the ledger's: HERMETIC_TZ, else the machine's), or with `end` the next midnight (the date's
 * whole day), a time without an offset the zone's wall time; refused with a plain sentence otherwise, a date or time
 * that does not exist (2026-02-30, 25:00) too (shared/iso-time).
 */
export function parseTime(flag: string, text: string, nowSeconds: number, zone: Zone = new Zone(ledgerTimeZone(undefined, null)), end = false): number {
  const ago = durationSeconds(text);
  // A duration is exact here (a backfill reads sessions active that long ago); a date or time as report reads it.
  if (ago !== null) {
    if (ago > MAX_BACK) usageError(`--${flag} ${text.trim()} reaches back more than 100 years; leave --${flag} out for everything.`);
    return nowSeconds - ago;
  }
  if (readIsoTime(text.trim()) === null) usageError(`--${flag} must be a duration such as 7d, 12h or 30m, or an ISO date such as 2026-11-01; got "${text}".`);
  return parsePoint(flag, text, nowSeconds, zone, end, `leave --${flag} out for everything`);
}

/** A file's size as a person reads it (src/shared/byte-size.ts). */
export { byteSize } from '../../shared/byte-size.js';

/** Said before a writing command upgrades a dataset of an older Hermetic (once; seconds for a large one: decision 0172). */
export function saidUpgrade(from: number, to: number, path: string): void {
  console.error(`hermetic: upgrading the dataset at ${path} from version ${from} to ${to} (once; a large dataset takes seconds)…`);
}

export const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

const COUNTED = ['sessionsSeen', 'sessionsWritten', 'sessionsUnchanged', 'sessionsOutsideWindow', 'sessionsIgnored', 'sessionsRemoved', 'sessionsQuarantined', 'sessionsWaiting', 'messages', 'parts', 'messagesRemoved', 'partsRemoved', 'messagesRewritten', 'partsRewritten', 'rowIssues', 'usageClamped', 'delegationsWritten', 'delegationsRemoved', 'sessionsToLocalOnly', 'sessionsToFull'] as const;

/** A pass's counts over every store. */
export type Totals = { stores: number } & Pick<StepResult, (typeof COUNTED)[number]>;

export function totals(results: readonly StepResult[]): Totals {
  const t = { stores: results.length, ...Object.fromEntries(COUNTED.map((k) => [k, 0])) } as Totals;
  for (const r of results) for (const k of COUNTED) t[k] += r[k];
  return t;
}

/** Progress on a terminal: one line rewritten in place on stderr; nothing when piped. */
export function progressBar(stream: NodeJS.WriteStream, label: () => string): { update(done: number, total: number): void; end(): void } | null {
  if (!stream.isTTY) return null;
  let last = 0;
  let shown = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (done < total && now - last < 100) return;
      last = now;
      const width = 30;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      stream.write(`\r${label()} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} sessions`);
      shown = true;
    },
    end() { if (shown) stream.write('\n'); shown = false; },
  };
}

/** How many ignored sessions are named one per line; past that, one line sums them up. */
export const POLICY_DROPS_NAMED = 3;

/**
 * What the usage policy kept out of a pass, for stderr: a line per session when there are a few, else one line with
 * the count, the first ids, why (when one reason covers them all) and where to look.
 * @example policyDropLines(drops) // ['hermetic: 120 sessions not recorded, ignored by the usage policy: a, b, c and 117 more (…)']
 */
export function policyDropLines(drops: readonly PolicyDrop[]): string[] {
  // Ids and folders come from the store (a session's id and cwd): shown harmless, as report shows them (terminalText).
  // A session the dataset held had its rows removed: said, not only "not recorded" (decision 0143).
  if (drops.length <= POLICY_DROPS_NAMED) return drops.map((d) => terminalText(`hermetic: session ${d.sessionId} not recorded${d.removed ? ', and its rows forwarded before removed from the dataset' : ''}: ${d.reason}`));
  const removed = drops.filter((d) => d.removed).length;
  const first = terminalText(drops.slice(0, POLICY_DROPS_NAMED).map((d) => d.sessionId).join(', '));
  const reasons = new Set(drops.map((d) => terminalText(d.reason)));
  const where = reasons.size === 1 ? `all because ${[...reasons][0]!}` : `under ${plural(new Set(drops.map((d) => d.scope)).size, 'folder')}`;
  const more = (drops.length - POLICY_DROPS_NAMED).toLocaleString('en-US');
  const held = removed > 0 ? ` (${removed.toLocaleString('en-US')} of them forwarded before: their rows removed from the dataset)` : '';
  return [`hermetic: ${plural(drops.length, 'session')} not recorded${held}, ignored by the usage policy: ${first} and ${more} more (${where}; "hermetic policy check DIR" explains a folder)`];
}

/** ", 3 messages rewritten" when a pass removed messages (a rewrite: /retry, a rewind, compaction), else "". */
export function rewritten(t: Pick<StepResult, 'messagesRemoved'>): string {
  return t.messagesRemoved > 0 ? `; ${plural(t.messagesRemoved, 'message')} removed or rewritten` : '';
}

/**
 * "; 1 usage drop clamped …" when Hermes's counters of a session went down since the last read (absolute-mode counters
 * after an agent restart): the drop is not subtracted (usage_events.clamped = 1), else "".
 */
export function clampedText(t: Pick<StepResult, 'usageClamped'>): string {
  return t.usageClamped > 0 ? `; ${plural(t.usageClamped, 'usage drop')} clamped to 0 (Hermes's counters went down: usage_events.clamped)` : '';
}

/** The background delegations a pass wrote and those Hermes pruned (decision 0054), as a clause; '' when none. */
export function delegationsClause(t: Pick<StepResult, 'delegationsWritten' | 'delegationsRemoved'>): string {
  const parts = [
    t.delegationsWritten > 0 && `${plural(t.delegationsWritten, 'delegation')} written`,
    t.delegationsRemoved > 0 && `${t.delegationsRemoved} pruned by Hermes (kept)`,
  ].filter(Boolean);
  return parts.join(', ');
}

/**
 * The sessions already forwarded that the usage policy moved after a pass (decisions 0063, 0143), as a clause; '' when
 * none. The dataset changed although nothing was read: a summary says it, never "nothing new" over it.
 * @example movesClause({ sessionsToLocalOnly: 3, sessionsToFull: 0 }) // '3 sessions moved to local-only by the usage policy'
 */
export function movesClause(t: Pick<StepResult, 'sessionsToLocalOnly' | 'sessionsToFull'>): string {
  const parts = [
    t.sessionsToLocalOnly > 0 && `${plural(t.sessionsToLocalOnly, 'session')} moved to local-only`,
    t.sessionsToFull > 0 && `${plural(t.sessionsToFull, 'session')} moved to full`,
  ].filter(Boolean);
  return parts.length === 0 ? '' : `${parts.join(' and ')} by the usage policy`;
}

/** The JSON fields of the usage policy's moves (backfill's summary and its stores, forward's `hermes.poll_tick`). */
export function movesJson(t: Pick<StepResult, 'sessionsToLocalOnly' | 'sessionsToFull'>): { moved_to_local_only: number; moved_to_full: number } {
  return { moved_to_local_only: t.sessionsToLocalOnly, moved_to_full: t.sessionsToFull };
}

/**
 * Ctrl-C (SIGINT) for a command whose pass lets the event loop run between batches: the first stops the pass after
 * the batch it is writing (keepGoing turns false); a second one ends the process at once.
 */
export function interruption(): { readonly interrupted: boolean; keepGoing: () => boolean; release(): void } {
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) {
      console.error('hermetic: interrupted — run again to finish');
      process.exit(130);
    }
    interrupted = true;
  };
  process.on('SIGINT', onSignal);
  return {
    get interrupted() { return interrupted; },
    keepGoing: () => !interrupted,
    release: () => {
      process.off('SIGINT', onSignal);
    },
  };
}

/**
 * The `event` that leads each JSON line of backfill and forward (decision 0052): HypAware's names where the reference
 * adapter logs the same thing (spec forwarding §3.1, §3.2, §7), Hermetic's own for what it alone does.
 */
export const EVENTS = {
  /** forward: a store read this tick (every tick, also when nothing changed). */
  pollTick: 'hermes.poll_tick',
  /** forward: a store that is there but could not be read this tick (every such tick), or a tick the dataset stopped. */
  pollFailed: 'hermes.poll_failed',
  /** forward: a store that is not there (once, until it appears). */
  sourceIdle: 'hermes.source_idle',
  /** forward: a store said idle has been read (once, before that tick's hermes.poll_tick). */
  sourceActivated: 'hermes.source_activated',
  /** forward: a session the usage policy ignored (one line each). */
  usagePolicyDrop: 'plugin.hermes.usage_policy_drop',
  /** forward: the usage policy moved sessions of a store the tick did not read (a `--state-db` tick; decision 0143). */
  policyMoves: 'hermetic.policy_moves',
  /** backfill: its summary, the only line it prints. */
  scanComplete: 'hermes.backfill.scan_complete',
  /** forward --once: what one sink's shipment did. */
  sinkShip: 'hermetic.sink_ship',
} as const;

/**
 * The reference's `error_kind`s (missing, open_failed, sqlite_busy, sqlite_unavailable, unknown) and Hermetic's for
 * the states it has no word for: Hermes's store schema, Hermes's PostgreSQL backend, Hermetic's dataset, a remote
 * sink, the usage-policy list, and sessions in quarantine.
 */
export type ErrorKind = 'missing' | 'open_failed' | 'sqlite_busy' | 'sqlite_unavailable' | 'schema' | 'backend' | 'dataset' | 'sink' | 'policy' | 'quarantine' | 'unknown';

/**
 * The error_kind of each code a store's pass, a tick or a sink's shipment can report; any other code is `unknown`.
 * `missing` and `quarantine` are states, not codes (storeErrorKind); `sqlite_unavailable` (the reference's Node
 * without node:sqlite) never happens here: better-sqlite3 is a dependency.
 */
export const ERROR_KINDS = {
  HERMETIC_READER_PATH: 'missing',
  HERMETIC_READER_OPEN: 'open_failed',
  HERMETIC_READER_BUSY: 'sqlite_busy',
  HERMETIC_READER_PG_SCHEMA: 'schema',
  HERMETIC_READER_PG_CONFIG: 'backend',
  HERMETIC_READER_PG_CONNECT: 'backend',
  HERMETIC_READER_PG_AUTH: 'backend',
  HERMETIC_DATASET_OPEN: 'dataset',
  HERMETIC_DATASET_VERSION: 'dataset',
  HERMETIC_DATASET_WRITE: 'dataset',
  HERMETIC_POLICY_LIST: 'policy',
  HERMETIC_SINK_URL: 'sink',
  HERMETIC_SINK_NOT_BUILT: 'sink',
  HERMETIC_SINK_UNAVAILABLE: 'sink',
  HERMETIC_SINK_FAILED: 'sink',
  HERMETIC_SINK_DUPLICATE: 'sink',
  HERMETIC_SINK_REMOVED: 'sink',
  HERMETIC_SINK_CURSOR_MOVED: 'sink',
  HERMETIC_SINK_DIVERGED: 'sink',
  HERMETIC_SINK_UNKNOWN: 'sink',
  HERMETIC_SINK_CONFLICT: 'sink',
  HERMETIC_SINK_STATEMENT_TIMEOUT: 'sink',
  HERMETIC_SINK_AUTH: 'sink',
  HERMETIC_SINK_NO_DATABASE: 'sink',
  HERMETIC_SINK_SCHEMA: 'sink',
  HERMETIC_SINK_REJECTED: 'sink',
  HERMETIC_SINK_OTLP_URL: 'sink',
  HERMETIC_SINK_OTLP_HEADERS: 'sink',
  HERMETIC_SINK_OTLP_UNAVAILABLE: 'sink',
  HERMETIC_SINK_OTLP_REJECTED: 'sink',
  HERMETIC_SINK_OTLP_PARTIAL: 'sink',
} as const satisfies Partial<Record<ErrorCode, ErrorKind>>;

/** The error_kind of an error, by its code. */
export function errorKind(error: { code: string; message?: string }): ErrorKind {
  return (ERROR_KINDS as Partial<Record<string, ErrorKind>>)[error.code] ?? 'unknown';
}

/** A store that is not there (yet): no file, and nothing else wrong with it (a PostgreSQL profile with a problem is one). */
export const storeMissing = (ref: Pick<StoreRef, 'exists' | 'problem'>): boolean => !ref.exists && !ref.problem;

/**
 * A store's pass result as the commands say it: a store that is not there fails as HERMETIC_READER_PATH (error_kind
 * `missing`), the code backfill refuses a --state-db that names nothing with, not the pass's HERMETIC_READER_OPEN.
 * @example missingAsPath(result, true).error // { code: 'HERMETIC_READER_PATH', message: '/h/state.db does not exist' }
 */
export function missingAsPath<R extends Pick<StepResult, 'error'>>(r: R, missing: boolean): R {
  return missing && r.error !== null ? { ...r, error: { ...r.error, code: 'HERMETIC_READER_PATH' } } : r;
}

/**
 * A store's state after a pass as an error_kind: its error's kind (`missing` when it is not there), else
 * `quarantine` while any of its sessions failed and waits to be retried, else null.
 * @example storeErrorKind(result, false) // 'sqlite_busy' for a store a writer kept locked
 */
export function storeErrorKind(r: Pick<StepResult, 'error' | 'sessionsQuarantined' | 'sessionsWaiting'>, missing: boolean): ErrorKind | null {
  if (r.error) return missing ? 'missing' : errorKind(r.error);
  return r.sessionsQuarantined + r.sessionsWaiting > 0 ? 'quarantine' : null;
}

/** One `plugin.hermes.usage_policy_drop` line per session the usage policy kept out of a store's pass. */
export function policyDropEvents(r: Pick<StepResult, 'store' | 'profile' | 'policyDrops'>, at: string): Record<string, unknown>[] {
  return r.policyDrops.map((d) => ({ event: EVENTS.usagePolicyDrop, at, store: r.store, profile: r.profile, session_id: d.sessionId, scope: d.scope, reason: d.reason, removed_from_dataset: d.removed === true }));
}

/** A sink's shipment as JSON (backfill's `sinks`, forward's `hermetic.sink_ship` lines): the ShipResult, and its error's kind. */
export function shipJson(r: ShipResult): Record<string, unknown> {
  return { sink: r.display, state: r.state, batches: r.batches, skipped: r.skipped, rows: r.rows, error: r.error, retry_at: r.retryAt, error_kind: r.error ? errorKind(r.error) : null };
}
