// What `hermetic forward` prints for a tick that wrote something: what was new, and the values it had to change or
// leave out (row issues), as backfill says them.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { emptyResult } from '../pipeline/result.js';
import { forwardCommand, otherMovesLines, passFailedEvent, stateLine, tickEvents, tickLine } from './forward.js';
import { printed } from '../../shared/testing/console.js';

const tick = (over: Partial<ReturnType<typeof emptyResult>>) => ({
  ...emptyResult({ path: '/h/state.db', profile: 'default', hermesHome: '/h', backend: 'sqlite', warning: null } as Parameters<typeof emptyResult>[0]),
  ...over,
});

test('a tick line says what was new, what was rewritten or dropped, and the row issues recorded', () => {
  assert.equal(tickLine(tick({ sessionsWritten: 1, messages: 10, parts: 12 })), 'forward: default: 1 session written (10 new messages, 12 new parts)');
  assert.equal(tickLine(tick({ sessionsWritten: 2, messages: 1, parts: 1, messagesRemoved: 3, messagesRewritten: 1, partsRewritten: 1, rowIssues: 1 })),
    'forward: default: 2 sessions written (0 new messages, 0 new parts; 1 message rewritten; 2 messages removed); 1 row issue recorded');
  // Rewritten is per session: one session's new session and another's rewind are new messages and removed ones.
  assert.equal(tickLine(tick({ sessionsWritten: 2, messages: 5, parts: 8, messagesRemoved: 4 })),
    'forward: default: 2 sessions written (5 new messages, 8 new parts; 4 messages removed)');
  assert.equal(tickLine(tick({ sessionsQuarantined: 1, sessionsIgnored: 2 })), 'forward: default: 2 ignored by usage policy, 1 quarantined');
  assert.equal(tickLine(tick({ sessionsWritten: 1, sessionsChecked: 3, sessionsEdited: 1, messagesRemoved: 40, messages: 42, parts: 44, partsRemoved: 40, messagesRewritten: 40, partsRewritten: 40 })),
    'forward: default: 1 session written (2 new messages, 4 new parts; 40 messages rewritten), 1 edited in place in Hermes');
  // A store file replaced by a copy: every row read again, none of it new.
  assert.equal(tickLine(tick({ replaced: true, sessionsWritten: 3, messages: 42, parts: 69, messagesRemoved: 42, partsRemoved: 69, messagesRewritten: 42, partsRewritten: 69 })),
    'forward: default: 3 sessions read again whole: the store file was replaced (0 new messages, 0 new parts; 42 messages rewritten)');
  // Delegations alone are said too (a pass may write no session and still keep what Hermes pruned).
  // A long session the tick stopped in (SIGTERM between two of its chunks): in the dataset in part, said so.
  assert.equal(tickLine(tick({ sessionsPartial: 1, messages: 20000, parts: 32984 })), 'forward: default: 1 long session written in part, the rest next time (20,000 new messages, 32,984 new parts)');
  assert.equal(tickLine(tick({ sessionsWritten: 3, sessionsPartial: 1, messages: 20040, parts: 33000 })), 'forward: default: 3 sessions written (20,040 new messages, 33,000 new parts), 1 long session written in part, the rest next time');
  assert.equal(tickLine(tick({ delegationsWritten: 2, delegationsRemoved: 1 })), 'forward: default: 2 delegations written, 1 pruned by Hermes (kept)');
  assert.equal(tickLine(tick({ sessionsWritten: 1, messages: 4, parts: 4, rowIssues: 3, sessionsRemoved: 1 })),
    'forward: default: 1 session written (4 new messages, 4 new parts), 1 removed in Hermes; 3 row issues recorded');
  // Sessions new to the dataset are said where others are not (all new, as on a first tick, goes without saying); a drop of Hermes's counters clamped in usage_events is said too.
  assert.equal(tickLine(tick({ sessionsWritten: 2, sessionsNew: 1, messages: 4, parts: 4 })), 'forward: default: 2 sessions written, 1 of them new (4 new messages, 4 new parts)');
  assert.equal(tickLine(tick({ sessionsWritten: 3, sessionsNew: 3, messages: 2, parts: 2 })), 'forward: default: 3 sessions written (2 new messages, 2 new parts)');
  assert.equal(tickLine(tick({ sessionsWritten: 1, usageClamped: 1 })),
    "forward: default: 1 session written (0 new messages, 0 new parts); 1 usage drop clamped to 0 (Hermes's counters went down: usage_events.clamped)");
});

// What `forward --json` prints of each tick (decision 0052): the event first, then the keys the tick line always had.
const AT = '2026-06-01T00:00:00.000Z';
const missingOpen = { code: 'HERMETIC_READER_OPEN', message: '/h/state.db does not exist' };

test('a missing store is said idle once, nothing while it stays missing, then activated before the tick that reads it', () => {
  const idle = new Set<string>();
  const gone = () => true;
  const first = tickEvents([tick({ error: missingOpen })], gone, idle, AT);
  assert.deepEqual(first, [{ event: 'hermes.source_idle', at: AT, store: '/h/state.db', profile: 'default', backend: 'sqlite', error: missingOpen, error_kind: 'missing', removed: false }]);
  assert.deepEqual(tickEvents([tick({ error: missingOpen })], gone, idle, AT), []);
  assert.deepEqual(tickEvents([tick({ error: missingOpen })], gone, idle, AT), []);
  // Two sessions written whole: one new to the dataset, one rewritten (its rows were there before).
  const read = tickEvents([tick({ schemaVersion: 30, journalMode: 'wal', sessionsWritten: 2, messages: 5, parts: 6, sessionsReplaced: 2, sessionsNew: 1 })], () => false, idle, AT);
  assert.deepEqual(read, [
    { event: 'hermes.source_activated', at: AT, store: '/h/state.db', profile: 'default', backend: 'sqlite', schema_version: 30, journal_mode: 'wal' },
    {
      event: 'hermes.poll_tick', at: AT, store: '/h/state.db', profile: 'default', sessions_written: 2, sessions_appended: 0, sessions_rewritten: 1, sessions_new: 1, sessions_partial: 0, messages: 5, parts: 6,
      messages_removed: 0, parts_removed: 0, removed_from_store: 0, quarantined: 0, checked_for_edits: 0, edited_in_place: 0, delegations_written: 0, delegations_removed: 0, row_issues: 0, usage_clamped: 0, moved_to_local_only: 0, moved_to_full: 0, error: null, error_kind: null, warning: null,
    },
  ]);
  // Read again: a tick line only. Gone again: idle again, once.
  assert.deepEqual(tickEvents([tick({})], () => false, idle, AT).map((l) => l.event), ['hermes.poll_tick']);
  assert.deepEqual(tickEvents([tick({ error: missingOpen })], gone, idle, AT).map((l) => l.event), ['hermes.source_idle']);
  assert.deepEqual(tickEvents([tick({ error: missingOpen })], gone, idle, AT).map((l) => l.event), []);
});

test('a store this forward read before and is gone now is idle with removed: true, once; activated when it is back (decision 0104)', () => {
  const idle = new Set<string>();
  const removed = { code: 'HERMETIC_READER_PATH', message: '/h/state.db was removed after this forwarder read it' };
  const readBefore = (s: string) => s === '/h/state.db';
  assert.deepEqual(tickEvents([tick({})], () => false, idle, AT, readBefore).map((l) => l.event), ['hermes.poll_tick']);
  assert.deepEqual(tickEvents([tick({ error: removed })], () => true, idle, AT, readBefore),
    [{ event: 'hermes.source_idle', at: AT, store: '/h/state.db', profile: 'default', backend: 'sqlite', error: removed, error_kind: 'missing', removed: true }]);
  assert.deepEqual(tickEvents([tick({ error: removed })], () => true, idle, AT, readBefore), []);
  assert.deepEqual(tickEvents([tick({})], () => false, idle, AT, readBefore).map((l) => l.event), ['hermes.source_activated', 'hermes.poll_tick']);
});

test('a store present from the start is not activated; one that cannot be read fails every tick with its kind', () => {
  const idle = new Set<string>();
  assert.deepEqual(tickEvents([tick({ sessionsWritten: 1 })], () => false, idle, AT).map((l) => l.event), ['hermes.poll_tick']);
  const busy = { code: 'HERMETIC_READER_BUSY', message: '/h/state.db stayed locked by a Hermes writer: database is locked.' };
  for (let i = 0; i < 2; i++) {
    const [line, ...rest] = tickEvents([tick({ error: busy })], () => false, idle, AT);
    assert.deepEqual(rest, []);
    assert.deepEqual([line!.event, line!.error, line!.error_kind, line!.sessions_written], ['hermes.poll_failed', busy, 'sqlite_busy', 0]);
  }
  // A store that was missing and is now there but unreadable is not activated yet; it is when it is read.
  const idleToo = new Set(['/h/state.db']);
  assert.deepEqual(tickEvents([tick({ error: { code: 'HERMETIC_READER_OPEN', message: '/h/state.db is not a SQLite database.' } })], () => false, idleToo, AT).map((l) => [l.event, l.error_kind]), [['hermes.poll_failed', 'open_failed']]);
  assert.deepEqual(tickEvents([tick({})], () => false, idleToo, AT).map((l) => l.event), ['hermes.source_activated', 'hermes.poll_tick']);
});

test('a tick line keeps the keys it always had, in order, after the event; quarantine and policy drops are said', () => {
  const [line, ...drops] = tickEvents([tick({ sessionsWritten: 1, sessionsQuarantined: 1, warning: '2 messages of session x, which has no row', policyDrops: [{ sessionId: 'secret', scope: '/p', reason: '/p/.hypignore says ignore' }] })], () => false, new Set(), AT);
  assert.deepEqual(Object.keys(line!), ['event', 'at', 'store', 'profile', 'sessions_written', 'sessions_appended', 'sessions_rewritten', 'sessions_new', 'sessions_partial', 'messages', 'parts', 'messages_removed', 'parts_removed', 'removed_from_store', 'quarantined', 'checked_for_edits', 'edited_in_place', 'delegations_written', 'delegations_removed', 'row_issues', 'usage_clamped', 'moved_to_local_only', 'moved_to_full', 'error', 'error_kind', 'warning']);
  assert.deepEqual([line!.event, line!.quarantined, line!.error_kind, line!.warning], ['hermes.poll_tick', 1, 'quarantine', '2 messages of session x, which has no row']);
  assert.deepEqual(drops, [{ event: 'plugin.hermes.usage_policy_drop', at: AT, store: '/h/state.db', profile: 'default', session_id: 'secret', scope: '/p', reason: '/p/.hypignore says ignore', removed_from_dataset: false }]);
});

test('a pass the dataset stopped is hermes.poll_failed for no store, with its kind', () => {
  const e = { code: 'HERMETIC_DATASET_VERSION', message: '/h/hermetic.db is at dataset version 99.' };
  assert.deepEqual(passFailedEvent(e, AT), { event: 'hermes.poll_failed', at: AT, store: null, profile: null, error: e, error_kind: 'dataset' });
  assert.equal(passFailedEvent({ code: 'HERMETIC_POLICY_LIST', message: 'x' }, AT).error_kind, 'policy');
});

/** forwardCommand in this process, with what it printed to stdout and stderr. */
async function forwardIn(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const { value, out, err } = await printed(() => forwardCommand(argv));
  return { code: value, out, err };
}

test('forward --once on a missing store: HERMETIC_READER_PATH as backfill says it, no "waiting" (nothing waits), exit 1', async () => {
  const { dir, cleanup } = tempDir('hermetic-forward-missing-');
  try {
    const store = join(dir, 'nonexistent', 'state.db');
    const home = join(dir, 'home');
    assert.deepEqual(await forwardIn(['--once', '--state-db', store, '--home', home]), { code: 1, out: [], err: [`hermetic: ${store} does not exist; nothing was read [HERMETIC_READER_PATH]`] });
    const json = await forwardIn(['--once', '--json', '--state-db', store, '--home', home]);
    assert.equal(json.code, 1);
    assert.deepEqual(json.out.map((l) => JSON.parse(l) as Record<string, unknown>).map(({ event, error, error_kind }) => ({ event, error, error_kind })), [
      { event: 'hermes.source_idle', error: { code: 'HERMETIC_READER_PATH', message: `${store} does not exist` }, error_kind: 'missing' },
    ]);
    assert.deepEqual(json.err, [`hermetic: ${store} does not exist; nothing was read [HERMETIC_READER_PATH]`]);
    // Nothing was read, so nothing was created.
    assert.equal(existsSync(home), false);
  } finally {
    cleanup();
  }
});

test('a tick that only moved sessions by the usage policy says so, each way, in words and in its poll_tick (decision 0143)', () => {
  assert.equal(tickLine(tick({ sessionsToLocalOnly: 3 })), 'forward: default: 3 sessions moved to local-only by the usage policy');
  assert.equal(tickLine(tick({ sessionsToFull: 1 })), 'forward: default: 1 session moved to full by the usage policy');
  assert.equal(tickLine(tick({ sessionsWritten: 1, messages: 2, parts: 2, sessionsToLocalOnly: 2, sessionsToFull: 1 })),
    'forward: default: 1 session written (2 new messages, 2 new parts), 2 sessions moved to local-only and 1 session moved to full by the usage policy');
  // Nothing moved: nothing said of moves.
  assert.doesNotMatch(tickLine(tick({ sessionsWritten: 1, messages: 2, parts: 2 })), /moved/);
  const [line] = tickEvents([tick({ sessionsToLocalOnly: 3, sessionsToFull: 1 })], () => false, new Set(), AT);
  assert.deepEqual([line!.moved_to_local_only, line!.moved_to_full, line!.sessions_written], [3, 1, 0]);
  // A store the tick did not read: a line of its own, by its path.
  const other = [{ store: '/o/state.db', toLocalOnly: 0, toFull: 2 }];
  assert.deepEqual(otherMovesLines(other, AT, false), ['forward: /o/state.db: 2 sessions moved to full by the usage policy (a store this tick did not read)']);
  assert.deepEqual(otherMovesLines(other, AT, true), [{ event: 'hermetic.policy_moves', at: AT, store: '/o/state.db', moved_to_local_only: 0, moved_to_full: 2 }]);
  assert.deepEqual(otherMovesLines([], AT, true), []);
});

test('a store is said read again after an error only: a warning that clears (the dataset replaced) left it read all along', () => {
  const where = { missing: false, gone: false, once: false };
  const replaced = 'the dataset at /d/hermetic.db was removed or replaced while this forwarder ran: it writes to the file there now';
  const said: (string | null)[] = [];
  let before: string | undefined;
  for (const r of [tick({}), tick({ warning: replaced }), tick({}), tick({}), tick({ error: missingOpen }), tick({}), tick({})]) {
    const { state, line } = stateLine(r, before, { ...where, missing: r.error !== null });
    said.push(line);
    before = state;
  }
  assert.deepEqual(said, [null, `hermetic: warning: ${replaced}`, null, null, `hermetic: ${missingOpen.message}; waiting for it to appear [${missingOpen.code}]`, 'hermetic: reading /h/state.db again', null]);
});
