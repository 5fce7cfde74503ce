// `hermetic forward`: the live loop. Each tick reads only what changed since the last one, and writes it with the
// cursors in one local transaction; SIGINT/SIGTERM stop it from the moment it starts (a tick under way stops after the
// batch it is writing).
import { parseFlags, usageError, type FlagValues } from '../../cli/args.js';
import { listenForStop, releaseStopSignals, type StopRequest } from '../../cli/stop-signals.js';
import { createForwarder } from '../pipeline/forwarder.js';
import { findStores } from '../pipeline/stores.js';
import type { StepResult } from '../pipeline/step.js';
import type { StoreMoves } from '../pipeline/result.js';
import { terminalText } from '../../shared/terminal-text.js';
import type { StoreRef } from '../reader/discover.js';
import type { ShipResult } from '../sinks/remote/shipper.js';
import { durationSeconds } from '../../shared/duration.js';
import { clampedText, COMMON_FLAGS, delegationsClause, movesClause, movesJson, noStoreFound, errorKind, EVENTS, missingAsPath, plural, policyDropEvents, policyDropLines, saidUpgrade, shipJson, storeErrorKind, storeMissing } from './common.js';
import { FORWARD_HELP } from './help.js';
import { SINK_FLAGS, sinkSetup } from './sinks.js';

/** The flags forward parses (its help page documents each: help.test.ts). */
export const FLAGS = { ...COMMON_FLAGS, ...SINK_FLAGS, interval: { type: 'string' }, once: { type: 'boolean' }, redact: { type: 'boolean' }, quiet: { type: 'boolean' } } as const;

/**
 * The rows a tick changed: rows written in place of rows removed are rewritten, not new (an edit in place, a
 * compaction, a replaced store file); only those past them are new, and those removed past them removed.
 */
function changes(r: StepResult): string {
  // Rewritten rows are counted per session by the sink: one session's /retry is not another's new message.
  const gone = r.messagesRemoved - r.messagesRewritten;
  return [
    `${plural(r.messages - r.messagesRewritten, 'new message')}, ${plural(r.parts - r.partsRewritten, 'new part')}`,
    r.messagesRewritten > 0 && `${plural(r.messagesRewritten, 'message')} rewritten`,
    gone > 0 && `${plural(gone, 'message')} removed`,
  ].filter(Boolean).join('; ');
}

/**
 * "3 sessions written", "2 sessions written, 1 of them new" (new ones named where they are not all: a first tick's are),
 * or read again whole when the store file was replaced.
 */
function sessionsText(r: StepResult): string {
  if (r.replaced) return `${plural(r.sessionsWritten, 'session')} read again whole: the store file was replaced`;
  const some = r.sessionsNew > 0 && r.sessionsNew < r.sessionsWritten;
  return `${plural(r.sessionsWritten, 'session')} written${some ? `, ${r.sessionsNew} of them new` : ''}`;
}

/** What a tick did to one store, in words: what was new, not the sessions' whole counts. */
export function tickLine(r: StepResult): string {
  const what = [
    r.sessionsEdited && `${r.sessionsEdited} edited in place in Hermes`,
    delegationsClause(r),
    r.sessionsRemoved && `${r.sessionsRemoved} removed in Hermes`,
    r.sessionsIgnored && `${r.sessionsIgnored} ignored by usage policy`,
    r.sessionsQuarantined && `${r.sessionsQuarantined} quarantined`,
    movesClause(r),
  ].filter(Boolean);
  // A long session the tick stopped in (after some of its chunks) is in the dataset in part: said, never as nothing new.
  const partly = r.sessionsPartial > 0 && `${plural(r.sessionsPartial, 'long session')} written in part, the rest next time`;
  const written = r.sessionsWritten > 0 || what.length === 0 ? `${r.sessionsWritten === 0 && partly ? partly : sessionsText(r)} (${changes(r)})` : '';
  if (partly && r.sessionsWritten > 0) what.push(partly);
  // Values changed or left out in what was written (as backfill says): `hermetic status` counts them all.
  const issues = r.rowIssues > 0 ? `; ${plural(r.rowIssues, 'row issue')} recorded` : '';
  return `forward: ${r.profile}: ${[written, ...what].filter(Boolean).join(', ')}${issues}${clampedText(r)}`;
}

/**
 * What `forward --json` prints of a tick (decision 0052), line by line: per store, `hermes.source_idle` once when it
 * is missing (then nothing while it stays missing; `removed` when this forward read it before: decision 0104),
 * `hermes.source_activated` when a store said idle is read, then `hermes.poll_tick` (read) or `hermes.poll_failed`
 * (there, but not readable), then its usage-policy drops. `idle` holds the stores said idle so far; `missing` tells a
 * store that is not there from one that failed, `readBefore` one read before from one never there.
 * @example tickEvents(results, (s) => !existsSync(s), idle, new Date().toISOString())
 */
export function tickEvents(results: readonly StepResult[], missing: (store: string) => boolean, idle: Set<string>, at: string, readBefore: (store: string) => boolean = () => false): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const r of results) {
    const gone = r.error !== null && missing(r.store);
    if (gone) {
      if (!idle.has(r.store)) out.push({ event: EVENTS.sourceIdle, at, store: r.store, profile: r.profile, backend: r.backend, error: r.error, error_kind: 'missing', removed: readBefore(r.store) });
      idle.add(r.store);
      continue;
    }
    if (r.error === null && idle.delete(r.store)) {
      out.push({ event: EVENTS.sourceActivated, at, store: r.store, profile: r.profile, backend: r.backend, schema_version: r.schemaVersion, journal_mode: r.journalMode });
    }
    out.push({
      event: r.error ? EVENTS.pollFailed : EVENTS.pollTick,
      at, store: r.store, profile: r.profile, sessions_written: r.sessionsWritten, sessions_appended: r.sessionsAppended,
      sessions_rewritten: r.sessionsRewritten + r.sessionsReplaced - r.sessionsNew, sessions_new: r.sessionsNew, sessions_partial: r.sessionsPartial, messages: r.messages, parts: r.parts, messages_removed: r.messagesRemoved,
      parts_removed: r.partsRemoved, removed_from_store: r.sessionsRemoved, quarantined: r.sessionsQuarantined,
      checked_for_edits: r.sessionsChecked, edited_in_place: r.sessionsEdited, delegations_written: r.delegationsWritten,
      delegations_removed: r.delegationsRemoved, row_issues: r.rowIssues, usage_clamped: r.usageClamped, ...movesJson(r), error: r.error,
      error_kind: storeErrorKind(r, false), warning: r.warning,
    });
    out.push(...policyDropEvents(r, at));
  }
  return out;
}

/**
 * What `forward` says of the usage policy's moves in stores the tick did not read (decision 0143): a
 * `hermetic.policy_moves` line each with --json, else a line each.
 */
export function otherMovesLines(moves: readonly StoreMoves[], at: string, json: boolean): (string | Record<string, unknown>)[] {
  return moves.map((m) => {
    const counts = { sessionsToLocalOnly: m.toLocalOnly, sessionsToFull: m.toFull };
    return json ? { event: EVENTS.policyMoves, at, store: m.store, ...movesJson(counts) } : terminalText(`forward: ${m.store}: ${movesClause(counts)} (a store this tick did not read)`);
  });
}

/**
 * A store's state after a tick, and the line that says it when it changed from `before` (the state said last), else
 * null: idle and error states are said once per change, not every tick. The loop waits for a missing store (one it
 * read before: for it to come back); --once says it read nothing there, as backfill does. "Reading it again" follows
 * an error only: a warning that clears (the dataset replaced under the loop) left the store read all along.
 * @example stateLine(result, said.get(result.store), { missing: false, gone: false, once: false })
 */
export function stateLine(r: StepResult, before: string | undefined, where: { missing: boolean; gone: boolean; once: boolean }): { state: string; line: string | null } {
  const state = r.error ? `${r.error.code}:${r.error.message}` : r.warning ? `warn:${r.warning}` : 'ok';
  if (before === state) return { state, line: null };
  const waits = where.gone ? '; waiting for it to come back' : '; waiting for it to appear';
  if (r.error) return { state, line: `hermetic: ${r.error.message}${where.missing ? (where.once ? '; nothing was read' : waits) : ''} [${r.error.code}]` };
  if (r.warning) return { state, line: `hermetic: warning: ${r.warning}` };
  return { state, line: before !== undefined && !before.startsWith('warn:') ? `hermetic: reading ${r.store} again` : null };
}

/** A tick the dataset (or the usage-policy list) stopped before any store was done: `hermes.poll_failed` for no store. */
export function passFailedEvent(e: { code: string; message: string }, at: string): Record<string, unknown> {
  return { event: EVENTS.pollFailed, at, store: null, profile: null, error: { code: e.code, message: e.message }, error_kind: errorKind(e) };
}

export async function forwardCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  if (values.help) return console.log(FORWARD_HELP), 0;
  // One pass (--once) ends on a signal as any other command does. The loop listens before it opens or prints anything,
  // so a SIGINT or SIGTERM at any moment stops it cleanly with exit 0.
  if (values.once) await releaseStopSignals();
  const stop = values.once ? null : listenForStop();
  try {
    return await forward(values, stop);
  } finally {
    stop?.dispose();
  }
}

async function forward(values: FlagValues<typeof FLAGS>, stop: StopRequest | null): Promise<number> {
  const interval = values.interval === undefined ? 10 : durationSeconds(values.interval);
  if (interval === null || interval < 0.05 || interval > 86400) usageError(`--interval must be a duration from 50ms to 24h such as 10s or 1m; got "${values.interval}".`);
  const say = (line: string) => { if (!values.quiet) console.error(line); };
  if (stop?.signal) return say('forward: stopped'), 0;
  // Sink URLs and the config file are checked before anything is read; each tick then ships (decision 0035).
  const setup = await sinkSetup(values);
  // One pass with no store anywhere is said, as backfill says it (a loop waits for Hermes to create one). With sinks,
  // what the dataset holds is still shipped first: a machine whose Hermes is gone can flush what it forwarded.
  const noStore = values.once && findStores({ stateDbs: values['state-db'] ?? [] }).length === 0 ? noStoreFound() : null;
  if (noStore && setup.sinks.length === 0) throw noStore;
  const remote = setup.sinks.length > 0 ? await import('../sinks/remote/index.js') : null;
  const json = (line: Record<string, unknown>) => console.log(JSON.stringify(line));
  const shipEvent = (r: ShipResult) => json({ event: EVENTS.sinkShip, at: new Date().toISOString(), ...shipJson(r) });
  // The loop's --json lines say each sink pass that sent something or failed (--once says every pass after the tick).
  const shipped = (r: ShipResult) => {
    if (r.batches > 0 || r.skipped > 0 || r.error) shipEvent(r);
  };
  const shipper = remote?.openShipper({ home: setup.home, sinks: setup.sinks, specs: setup.specs, redact: setup.redact, say: (line) => say(line), once: values.once === true, onShipped: values.json && stop ? shipped : undefined }) ?? null;
  const forwarder = createForwarder({ home: values.home, stateDbs: values['state-db'] ?? [], redact: values.redact === true, onDatasetUpgrade: saidUpgrade });
  const said = new Map<string, string>();
  /** Whether anything has been said of a store's sessions yet (an unchanged first tick says it is up to date). */
  const spoken = new Set<string>();
  /**
   * The stores said idle (`hermes.source_idle`) and not read since; which stores of this tick were not there, and of
   * them which this forward read before (removed since: decision 0104).
   */
  const idle = new Set<string>();
  const missing = new Set<string>();
  const gone = new Set<string>();
  const onStore = (ref: StoreRef) => {
    if (storeMissing(ref)) missing.add(ref.path);
    else missing.delete(ref.path);
    if (ref.gone) gone.add(ref.path);
    else gone.delete(ref.path);
  };
  /** The usage policy's moves of stores the last tick did not read: said after its stores. */
  let otherMoves: StoreMoves[] = [];
  /** The pass of one tick; a HermeticError that stopped it (the dataset, the policy list) is a `hermes.poll_failed` line too. */
  const pass = async (keepGoing?: () => boolean) => {
    try {
      const onOtherMoves = (moves: StoreMoves[]) => { otherMoves = moves; };
      const results = await forwarder.forwardOnceAsync({ onStore, onOtherMoves, ...(keepGoing ? { keepGoing } : {}) });
      return results.map((r) => missingAsPath(r, missing.has(r.store)));
    } catch (e) {
      if (values.json && String((e as { code?: unknown }).code).startsWith('HERMETIC_')) json(passFailedEvent(e as { code: string; message: string }, new Date().toISOString()));
      throw e;
    }
  };
  const report = (results: StepResult[], once: boolean) => {
    if (values.json) for (const line of tickEvents(results, (s) => missing.has(s), idle, new Date().toISOString(), (s) => gone.has(s))) json(line);
    for (const r of results) {
      const { state, line } = stateLine(r, said.get(r.store), { missing: missing.has(r.store), gone: gone.has(r.store), once });
      if (line !== null) say(line);
      said.set(r.store, state);
      if (values.json) continue;
      if (r.sessionsWritten + r.sessionsPartial + r.sessionsRemoved + r.sessionsQuarantined + r.sessionsIgnored + r.delegationsWritten + r.delegationsRemoved + r.sessionsToLocalOnly + r.sessionsToFull > 0) {
        say(tickLine(r));
        spoken.add(r.store);
      } else if (!r.error && (once || !spoken.has(r.store))) {
        // Sessions that failed and wait for their retry are not up to date: said, so a quiet tick does not read as all done.
        const waiting = r.sessionsWaiting > 0 ? `; ${plural(r.sessionsWaiting, 'session')} that failed before, waiting to be retried (see hermetic status)` : '';
        say(`forward: ${r.profile}: nothing new (${plural(r.sessionsUnchanged, 'session')} up to date${waiting})`);
        spoken.add(r.store);
      }
    }
    for (const line of otherMovesLines(otherMoves, new Date().toISOString(), values.json === true)) {
      if (typeof line === 'string') say(line);
      else json(line);
    }
    otherMoves = [];
    // Sessions the usage policy ignores: each named when there are a few, else one line for every store.
    for (const line of policyDropLines(results.flatMap((r) => r.policyDrops))) say(line);
  };
  if (!stop) {
    try {
      const results = noStore ? [] : await pass();
      if (noStore) say(`hermetic: ${noStore.message} [${noStore.code}]`);
      report(results, true);
      const shipped = (await shipper?.shipAll()) ?? [];
      for (const r of shipped) {
        if (values.json) shipEvent(r);
        else say(remote!.shipLine(r));
      }
      return noStore || results.some((r) => r.error) || shipped.some((r) => r.state !== 'caught-up') ? 1 : 0;
    } finally {
      forwarder.close();
      await shipper?.closeAll();
    }
  }
  say(`forward: reading ${forwarder.stores().map((s) => s.path).join(', ') || '(no store yet)'} every ${values.interval ?? '10s'} into ${forwarder.home}/hermetic.db; Ctrl-C stops`);
  return new Promise<number>((resolve, reject) => {
    let timer: NodeJS.Timeout | null = null;
    let ticking = false;
    const finish = () => {
      forwarder.close();
      // A sink's batch under way gets 2 s to finish (its cursor then moves, so nothing is sent twice for no reason),
      // then is cut short and sent again next run: Ctrl-C never waits out a receiver's timeout (Shipper.close).
      void (shipper?.closeAll() ?? Promise.resolve()).finally(() => {
        say('forward: stopped');
        resolve(0);
      });
    };
    void stop.stopped.then(() => {
      if (timer) clearTimeout(timer);
      // A tick under way stops after its batch, then finishes; between ticks, now.
      if (!ticking) finish();
    });
    const tick = async () => {
      if (stop.signal) return;
      ticking = true;
      try {
        report(await pass(() => !stop.signal), false);
        // Each sink goes on from its cursor at its own pace; one still busy from the last tick is left to it.
        if (!stop.signal) shipper?.kick();
      } catch (e) {
        // The dataset itself failed (disk full, a newer version): say it and keep trying. A bug stops the loop.
        if ((e as { code?: string }).code === undefined || !String((e as { code?: string }).code).startsWith('HERMETIC_')) throw e;
        say(`hermetic: ${(e as Error).message} [${(e as { code?: string }).code}]`);
      } finally {
        ticking = false;
      }
      if (stop.signal) finish();
      else timer = setTimeout(() => void tick().catch(fail), interval * 1000);
    };
    const fail = (e: unknown) => {
      forwarder.close();
      void shipper?.closeAll().catch(() => undefined);
      reject(e);
    };
    void tick().catch(fail);
  });
}
