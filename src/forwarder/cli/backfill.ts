// `hermetic backfill`: read every session active in a window (default: all) into the dataset, once. Ctrl-C stops it
// after the batch it is writing: what it committed stays, and the next run goes on from there.
import { parseFlags, usageError } from '../../cli/args.js';
import { HermeticError } from '../../shared/errors.js';
import { createForwarder } from '../pipeline/forwarder.js';
import { findStores } from '../pipeline/stores.js';
import { explicitProblem, type StoreRef } from '../reader/discover.js';
import { clampedText, COMMON_FLAGS, delegationsClause, movesClause, movesJson, EVENTS, interruption, noStoreFound, missingAsPath, parseTime, plural, policyDropLines, progressBar, rewritten, saidUpgrade, shipJson, storeErrorKind, storeMissing, totals, type Totals } from './common.js';
import { BACKFILL_HELP } from './help.js';
import { SINK_FLAGS, sinkSetup, type SinkSetup } from './sinks.js';
import type { ShipResult } from '../sinks/remote/shipper.js';
import type { StoreMoves } from '../pipeline/result.js';

/** The flags backfill parses (its help page documents each: help.test.ts). */
export const FLAGS = { ...COMMON_FLAGS, ...SINK_FLAGS, since: { type: 'string' }, until: { type: 'string' }, redact: { type: 'boolean' } } as const;

/** Ships the dataset to every sink once, to the end (or until a sink fails); nothing when there are none. */
async function ship(setup: SinkSetup, say: (line: string) => void): Promise<ShipResult[]> {
  if (setup.sinks.length === 0) return [];
  const { openShipper } = await import('../sinks/remote/index.js');
  const shipper = openShipper({ home: setup.home, sinks: setup.sinks, specs: setup.specs, redact: setup.redact, say, once: true });
  try {
    return await shipper.shipAll();
  } finally {
    await shipper.closeAll();
  }
}

/**
 * The reference's `hermes.backfill.scan_complete` counters (spec forwarding §3.1) from a backfill's totals: sessions in
 * the stores read; those outside the window; those in it not projected (unchanged since they were last read, ignored
 * by the usage policy, failed or waiting in quarantine); those projected and written; and the messages written. The
 * three session counts add up to the first (a session Hermes deleted during the pass aside).
 */
export function scanCounters(t: Totals): { sessions_seen: number; sessions_skipped_window: number; sessions_skipped: number; sessions_projected: number; messages_projected: number } {
  return {
    sessions_seen: t.sessionsSeen, sessions_skipped_window: t.sessionsOutsideWindow,
    sessions_skipped: t.sessionsUnchanged + t.sessionsIgnored + t.sessionsQuarantined + t.sessionsWaiting,
    sessions_projected: t.sessionsWritten, messages_projected: t.messages,
  };
}

export async function backfillCommand(argv: string[], now = Date.now): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  if (values.help) return console.log(BACKFILL_HELP), 0;
  const nowS = now() / 1000;
  const since = values.since === undefined ? undefined : parseTime('since', values.since, nowS);
  const until = values.until === undefined ? undefined : parseTime('until', values.until, nowS, undefined, true);
  // A window that ends before it starts reads nothing: refused as report refuses it, before the dataset is created.
  if (since !== undefined && until !== undefined && since > until) usageError(`--since ${values.since!} starts after --until ${values.until!} ends; swap them.`);
  // As `report` refuses it: a window that starts in the future holds nothing (a typo for a year, most likely).
  if (since !== undefined && since > nowS) usageError(`--since ${values.since!} is after now: nothing can have been recorded yet.`);
  const started = process.hrtime.bigint();
  // A store named on the command line must be one: said before anything (the dataset included) is created.
  const problems = (values['state-db'] ?? []).map(explicitProblem).filter((p): p is string => p !== null);
  if (problems.length > 0) throw new HermeticError('HERMETIC_READER_PATH', `${problems.join('; ')}; nothing was read.`);
  if (findStores({ stateDbs: values['state-db'] ?? [] }).length === 0) throw noStoreFound();
  // Sink URLs and the config file are checked before anything is read.
  const setup = await sinkSetup(values);
  const forwarder = createForwarder({ home: values.home, stateDbs: values['state-db'] ?? [], redact: values.redact === true, onDatasetUpgrade: saidUpgrade });
  const stop = interruption();
  try {
    let current = '';
    /** The stores that were not there (their error_kind is `missing`). */
    const missing = new Set<string>();
    const bar = values.json ? null : progressBar(process.stderr, () => `backfill ${current}`);
    const onStore = (ref: StoreRef) => {
      current = ref.profile;
      if (storeMissing(ref)) missing.add(ref.path);
    };
    /** The usage policy's moves of stores this pass did not read (a --state-db pass): in the totals. */
    let otherMoves: StoreMoves[] = [];
    const results = (await forwarder.backfillAsync({ since, until, keepGoing: stop.keepGoing, onStore, onProgress: (d, t) => bar?.update(d, t), onOtherMoves: (m) => { otherMoves = m; } }))
      .map((r) => missingAsPath(r, missing.has(r.store)));
    bar?.end();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const t = totals(results);
    for (const m of otherMoves) {
      t.sessionsToLocalOnly += m.toLocalOnly;
      t.sessionsToFull += m.toFull;
    }
    const moved = t.sessionsToLocalOnly + t.sessionsToFull;
    const failed = results.filter((r) => r.error);
    if (stop.interrupted) {
      // Messages too: a long session is written in chunks (decision 0055), so some may be in before its session is.
      console.error(`hermetic: interrupted — run again to finish (${plural(t.sessionsWritten, 'session')} and ${plural(t.messages, 'message')} written before it stopped)`);
      return 130;
    }
    // After the local pass, the remote sinks (decision 0035): a sink that fails keeps its cursor and catches up later.
    const shipped = await ship(setup, (line) => console.error(line));
    const sinkFailed = shipped.some((r) => r.state !== 'caught-up');
    // A session that could not be written leaves the dataset short: the run says so and fails, as a store that
    // could not be read does (it is retried with backoff; `hermetic status` lists it with its error).
    const unwritten = t.sessionsQuarantined + t.sessionsWaiting;
    const exitCode = failed.length > 0 || sinkFailed || unwritten > 0 ? 1 : 0;
    if (values.json) {
      // One line, `hermes.backfill.scan_complete` (decision 0052): the whole of stdout stays one JSON document.
      console.log(JSON.stringify({
        event: EVENTS.scanComplete,
        stores: results.map((r) => ({
          path: r.store, profile: r.profile, backend: r.backend, schema_version: r.schemaVersion, journal_mode: r.journalMode, read: r.read,
          sessions_written: r.sessionsWritten, messages: r.messages, parts: r.parts, messages_removed: r.messagesRemoved, parts_removed: r.partsRemoved,
          row_issues: r.rowIssues, usage_clamped: r.usageClamped, ...movesJson(r), read_by_worker: r.readByWorker, warning: r.warning, error: r.error, error_kind: storeErrorKind(r, missing.has(r.store)),
        })),
        sessions: t.sessionsWritten, messages: t.messages, parts: t.parts, messages_removed: t.messagesRemoved, parts_removed: t.partsRemoved,
        skipped: { unchanged: t.sessionsUnchanged, outside_window: t.sessionsOutsideWindow, ignored_by_policy: t.sessionsIgnored, quarantined: t.sessionsQuarantined, waiting_in_quarantine: t.sessionsWaiting },
        delegations: t.delegationsWritten, delegations_removed: t.delegationsRemoved,
        row_issues: t.rowIssues, usage_clamped: t.usageClamped, removed_from_store: t.sessionsRemoved, failed_stores: failed.length,
        // The dataset unchanged by the pass: the usage policy's moves change it (decision 0143).
        wrote_nothing: t.sessionsWritten + t.sessionsIgnored + t.sessionsRemoved + t.delegationsWritten + t.delegationsRemoved + moved === 0,
        ...movesJson(t),
        ...scanCounters(t),
        seconds: Math.round(seconds * 1000) / 1000,
        ...(shipped.length > 0 ? { sinks: shipped.map(shipJson) } : {}),
      }));
      return exitCode;
    }
    for (const r of results) {
      if (r.warning && r.warning !== r.error?.message) console.error(`hermetic: warning: ${r.warning}`);
      if (r.error) console.error(`hermetic: ${r.error.message} [${r.error.code}]`);
    }
    // Sessions the usage policy ignores: each named when there are a few, else one line for every store.
    for (const line of policyDropLines(results.flatMap((r) => r.policyDrops))) console.error(line);
    const skipped = [
      // Unchanged sessions are found before the window is applied: those outside it are the others.
      t.sessionsUnchanged && `${plural(t.sessionsUnchanged, 'session')} unchanged${t.sessionsOutsideWindow ? ' since last read' : ''}`,
      t.sessionsOutsideWindow && `${t.sessionsOutsideWindow} ${t.sessionsUnchanged ? (t.sessionsOutsideWindow === 1 ? 'other ' : 'others ') : ''}outside the window`,
      t.sessionsIgnored && `${t.sessionsIgnored} ignored by usage policy`,
      t.sessionsQuarantined && `${t.sessionsQuarantined} failed (quarantined; see hermetic status)`,
      t.sessionsWaiting && `${t.sessionsWaiting} that failed before, waiting to be retried (see hermetic status)`,
    ].filter(Boolean);
    const wrote = t.sessionsWritten + t.sessionsIgnored + t.sessionsRemoved + t.delegationsWritten + t.delegationsRemoved > 0;
    const delegations = delegationsClause(t);
    // A store that failed is said first, and the run fails: a summary must not read like a success.
    // A dataset that cannot be opened or written fails every store alike: said as the dataset's problem, not the stores'.
    const datasetFailed = failed.length > 0 && failed.every((r) => r.error?.code.startsWith('HERMETIC_DATASET_'));
    const failure = failed.length === 0 ? null : datasetFailed ? 'the dataset could not be written (see above)' : `${failed.length} of ${plural(results.length, 'store')} could not be read (see above)`;
    if (!wrote) {
      const why = failure ?? (unwritten > 0 ? `${plural(unwritten, 'session')} could not be written` : t.sessionsUnchanged > 0 ? (t.sessionsOutsideWindow > 0 ? 'no session in the window changed since it was last read' : 'nothing changed since it was last read') : t.sessionsSeen === 0 ? 'the store has no session yet' : 'no session was active in the window');
      const counted = skipped.length ? ` (${skipped.join(', ')})` : '';
      // Sessions the usage policy moved are the dataset changing (decision 0143): said first, never "nothing to write" alone.
      if (moved > 0 && !failure && unwritten === 0) console.log(`backfill: ${movesClause(t)}; nothing new to write${counted} → ${forwarder.home}/hermetic.db`);
      else console.log(`backfill: nothing ${failure || unwritten > 0 ? 'was written' : 'to write'}: ${why}${counted}${moved > 0 ? `; ${movesClause(t)}` : ''}.`);
    } else {
      const stores = failure ? `${failure}; ${plural(results.length - failed.length, 'store')} read` : plural(t.stores, 'store');
      console.log(`backfill: ${stores}, ${plural(t.sessionsWritten, 'session')} written (${plural(t.messages, 'message')}, ${plural(t.parts, 'part')}${rewritten(t)})${delegations ? `, ${delegations}` : ''}${skipped.length ? `; ${skipped.join(', ')}` : ''}${t.rowIssues ? `; ${plural(t.rowIssues, 'row issue')} recorded` : ''}${clampedText(t)}${moved > 0 ? `; ${movesClause(t)}` : ''} in ${seconds.toFixed(1)} s → ${forwarder.home}/hermetic.db`);
    }
    // A windowed backfill leaves the rest unread: said where it happens, since a report cannot tell (status counts them).
    if (t.sessionsOutsideWindow > 0) {
      const one = t.sessionsOutsideWindow === 1;
      console.log(`backfill: ${plural(t.sessionsOutsideWindow, 'session')} outside the window ${one ? 'was' : 'were'} not read (hermetic status counts ${one ? 'it' : 'them'} as pending, and a report over ${one ? 'its' : 'their'} days says ${one ? 'it is' : 'they are'} missing; a backfill without --since, or hermetic forward, reads ${one ? 'it' : 'them'}).`);
    }
    if (shipped.length > 0) {
      const { shipLine } = await import('../sinks/remote/index.js');
      for (const r of shipped) console.log(shipLine(r));
    }
    return exitCode;
  } finally {
    stop.release();
    forwarder.close();
  }
}
