// Edits Hermes makes in place (decision 0053): a reaction on an old reply, a display kind stamped after the turn,
// api_content filled in later — no mark moves, yet the dataset catches up within the pace edits.ts sets, rewriting
// only from the first message that changed, and is then what a clean backfill writes. The pace, the watch window and
// the budget are checked alone with given cursors.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { createIdSource } from '../../shared/ids.js';
import type { Db } from '../../shared/sqlite.js';
import { createStore } from '../../state-db/schema/create.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { StateDbWriter, type MessageInput } from '../../state-db/writer/index.js';
import type { Tail } from '../projector/index.js';
import { openStore, StoreReader, type SessionMark } from '../reader/index.js';
import type { Cursors, SessionCursor } from '../sinks/sink.js';
import { assertCleanBackfill, forwarderRig, type Rig } from '../testing/index.js';
import { checkInterval, dueSessions, findEdits, SETTLED_INTERVAL, WATCH_SECONDS } from './edits.js';
import type { ReadWorkerMode } from './read-mode.js';
import type { StepResult } from './step.js';

const T0 = 1784000000;

interface World {
  w: StateDbWriter;
  db: Db;
  path: string;
  rig: Rig;
  /** Epoch seconds, moved by every write (one second each) and by the test. */
  clock: { t: number };
  /** A forward tick; `compare`: the dataset is then a clean backfill's. */
  tick(label: string, compare?: boolean): StepResult;
}

function scenario(name: string, fn: (x: World) => void): void {
  for (const readWorker of ['off', 'only'] as ReadWorkerMode[]) {
    test(`${name} (read worker ${readWorker})`, () => {
      const { dir, cleanup } = tempDir('hermetic-edits-');
      const path = join(dir, 'hermes', 'state.db');
      const db = createStore({ path, level: 31, journal: 'wal', fts: false, generation: 'gen-a' });
      const clock = { t: T0 };
      const w = new StateDbWriter(db, { now: () => (clock.t += 1), ids: createIdSource('edits') });
      const rig = forwarderRig([path], { dir, home: join(dir, 'ticking'), readWorker, now: () => clock.t * 1000 });
      try {
        fn({
          w, db, path, rig, clock,
          tick: (label, compare = true) => {
            const [r] = rig.forwarder.forwardOnce();
            assert.equal(r!.error, null, `${label}: ${r!.error?.message}`);
            if (compare) assertCleanBackfill(rig, path, label, { now: () => clock.t * 1000 });
            return r!;
          },
        });
      } finally {
        rig.cleanup();
        if (db.open) db.close();
        cleanup();
      }
    });
  }
}

const turn = (i: number): MessageInput[] => [{ role: 'user', content: `question ${i}` }, { role: 'assistant', content: `answer ${i}`, finish_reason: 'stop' }];
const did = (r: StepResult) => ({ checked: r.sessionsChecked, edited: r.sessionsEdited, rewritten: r.sessionsRewritten, appended: r.sessionsAppended });
const reactionsOf = (rig: Rig, messageId: number) => {
  const [row] = rig.query<{ attributes: string | null }>('SELECT attributes FROM messages WHERE message_id = ?', messageId);
  return row?.attributes ? (JSON.parse(row.attributes) as { reactions?: { emoji: string; seen?: boolean }[] }).reactions ?? null : null;
};

scenario('a reaction on an old reply is seen on the next tick, rewritten from the checkpoint before it', ({ w, rig, clock, tick }) => {
  const s = w.createSession({ source: 'cli', model: 'gpt-5', started_at: T0 });
  const ids: number[] = [];
  for (let i = 0; i < 100; i++) ids.push(...w.appendMessages(s, turn(i)));
  tick('200 messages');
  const reply = ids[151]!; // answer 75, seq 151: checkpoints are every 32 messages
  w.setMessageReaction(reply, '👍');
  const r = tick('a reaction; no counter moved');
  assert.deepEqual(did(r), { checked: 1, edited: 1, rewritten: 1, appended: 0 });
  assert.equal(r.messagesRemoved, 200 - 128, 'rewritten from the checkpoint before the reply (seq 128)');
  assert.deepEqual(reactionsOf(rig, reply)?.map((x) => x.emoji), ['👍']);

  // Looked at a second ago: the next look is a minute after the last, so a change of mind waits for it.
  w.setMessageReaction(reply, '🎉');
  assert.deepEqual(did(tick('too soon to look again', false)), { checked: 0, edited: 0, rewritten: 0, appended: 0 });
  assert.deepEqual(reactionsOf(rig, reply)?.map((x) => x.emoji), ['👍']);
  clock.t += 61;
  assert.deepEqual(did(tick('a minute later')), { checked: 1, edited: 1, rewritten: 1, appended: 0 });
  assert.deepEqual(reactionsOf(rig, reply)?.map((x) => x.emoji), ['🎉']);

  // Nothing committed since that look: nothing to look at, the tick is idle.
  clock.t += 61;
  assert.deepEqual(did(tick('nothing committed')), { checked: 0, edited: 0, rewritten: 0, appended: 0 });
  // A commit elsewhere in the store: the session is looked at, found as written, and nothing is written.
  const other = w.createSession({ source: 'cli', started_at: clock.t });
  w.appendMessages(other, turn(0));
  clock.t += 61;
  const elsewhere = tick('a commit elsewhere');
  assert.deepEqual([did(elsewhere), elsewhere.sessionsWritten], [{ checked: 1, edited: 0, rewritten: 0, appended: 0 }, 1]);
  // The next user turn marks the reaction seen: another edit in place.
  assert.equal(w.takeUnseenReactions(s), 1);
  w.appendMessages(s, turn(100));
  clock.t += 61;
  const both = tick('seen, and a new turn in the same tick');
  assert.deepEqual(did(both), { checked: 2, edited: 1, rewritten: 1, appended: 0 });
  assert.equal(reactionsOf(rig, reply)?.[0]?.seen, true);
});

scenario('a display kind stamped just after the turn was read is caught: the row becomes what Hermes shows', ({ w, rig, tick }) => {
  const s = w.createSession({ source: 'cli', started_at: T0 });
  w.appendMessages(s, turn(0));
  tick('a turn');
  // The auto-continue turn is saved, read by a tick, and only then stamped (Hermes's separate transaction).
  const [cont] = w.appendMessages(s, [{ role: 'user', content: 'continue' }, { role: 'assistant', content: 'going on', finish_reason: 'stop' }]);
  assert.deepEqual(did(tick('read before the stamp')), { checked: 1, edited: 0, rewritten: 0, appended: 1 });
  assert.equal(rig.query<{ kind: string }>('SELECT kind FROM messages WHERE message_id = ?', cont)[0]!.kind, 'message');
  assert.equal(w.stampDisplayKind(s, 'user', 'continue', 'auto_continue'), true);
  // Checked a moment ago (with the append): the stamp waits for the next look.
  tick('too soon', false);
  assert.equal(rig.query<{ kind: string }>('SELECT kind FROM messages WHERE message_id = ?', cont)[0]!.kind, 'message');
});

scenario('after the minute, the stamped display kind and api_content filled in later are in the dataset', ({ w, rig, clock, tick }) => {
  const s = w.createSession({ source: 'cli', started_at: T0 });
  w.appendMessages(s, turn(0));
  const [cont, empty] = w.appendMessages(s, [{ role: 'user', content: 'continue' }, { role: 'assistant', content: '', finish_reason: 'stop' }]);
  tick('the turn as first saved');
  w.stampDisplayKind(s, 'user', 'continue', 'auto_continue');
  w.setMessageApiContent(empty!, 'the reply as the model gave it');
  clock.t += 61;
  assert.deepEqual(did(tick('a minute later')), { checked: 1, edited: 1, rewritten: 1, appended: 0 });
  assert.equal(rig.query<{ kind: string }>('SELECT kind FROM messages WHERE message_id = ?', cont)[0]!.kind, 'auto_continue');
  const texts = rig.query<{ content_text: string | null }>("SELECT content_text FROM parts WHERE message_id = ? AND part_type = 'text'", empty);
  assert.deepEqual(texts.map((p) => p.content_text), ['the reply as the model gave it']);
});

scenario('a session quiet for more than a week is settled: a forward tick looks at it once a day, a backfill not at all', ({ w, path, rig, clock, tick }) => {
  const s = w.createSession({ source: 'cli', started_at: T0 });
  const [q] = w.appendMessages(s, turn(0));
  tick('a turn');
  clock.t += WATCH_SECONDS + 3600;
  // Another session goes on, so ticks find commits; the settled one is looked at (never yet in this process), then
  // not again within the day.
  const other = w.createSession({ source: 'cli', started_at: clock.t });
  w.appendMessages(other, turn(1));
  assert.deepEqual(did(tick('a week later')), { checked: 1, edited: 0, rewritten: 0, appended: 0 });
  w.appendMessages(other, turn(2));
  clock.t += 120;
  assert.deepEqual(did(tick('the next tick', false)), { checked: 1, edited: 0, rewritten: 0, appended: 1 });
  // A reaction on the settled session's reply: not looked for again within the day…
  w.setMessageReaction(q!, '👀');
  clock.t += 3600;
  assert.equal(did(tick('an hour on', false)).edited, 0);
  assert.equal(reactionsOf(rig, q!), null);
  // …nor by a backfill, which leaves settled sessions…
  const [b] = rig.forwarder.backfill();
  assert.deepEqual([b!.error, b!.sessionsEdited], [null, 0]);
  assert.equal(reactionsOf(rig, q!), null);
  // …but a forward tick a day after the last look sees it, and the dataset is a clean backfill's again.
  clock.t += SETTLED_INTERVAL;
  assert.deepEqual(did(tick('a day on')), { checked: 2, edited: 1, rewritten: 1, appended: 0 });
  assert.deepEqual(reactionsOf(rig, q!), [{ emoji: '👀', author: 'user', at: clock.t - SETTLED_INTERVAL - 3600 }]);
  void path;
});

test('the pace slows as a session goes quiet: every minute, then a 24th of the quiet time, hourly at most', () => {
  assert.deepEqual([0, 600, 1440, 3600, 86400, 6 * 86400].map(checkInterval), [60, 60, 60, 150, 3600, 3600]);
});

/** A cursor whose tail covers `rows` rows, written by this build (v 4) or an older one. */
function cursor(rows: number, lastTime: number, v = 4): SessionCursor {
  return { fingerprint: 'f', maxMessageId: rows, usageMark: '', ledger: null, tail: { v, lastTime, rows: { rows, maxMessageId: rows } } as unknown as Tail };
}
const mark = (id: string, activity: number): SessionMark => ({ id, fingerprint: 'f', activity, started: activity, parent: null });
const cursorsOf = (entries: [string, SessionCursor][]): Cursors => ({ row: null, identity: 'i', maxMessageId: 0, usageStamp: null, sessions: new Map(entries), quarantine: new Map() });

test('due sessions: known ones inside the week, least recently looked at first; an older tail format is due to be read whole', () => {
  const now = T0 + 30 * 86400;
  const cursors = cursorsOf([
    ['fresh', cursor(10, now - 30)], ['quiet', cursor(10, now - 2 * 86400)], ['gone', { ...cursor(10, now - 30), fingerprint: '-removed-' }],
    ['old', cursor(10, now - 8 * 86400)], ['v3', cursor(10, now - 30, 3)], ['looked', cursor(10, now - 30)],
  ]);
  const marks = ['fresh', 'quiet', 'gone', 'old', 'v3', 'looked', 'new'].map((id) => mark(id, 0));
  const checks = { checkedAt: new Map([['quiet', now - 3000], ['looked', now - 10]]), owed: new Map<string, number>(), committed: true, budget: Infinity };
  const due = dueSessions(marks, cursors, checks, now);
  // 'quiet' was looked at 3000 s ago but its pace is hourly; 'looked' 10 s ago; 'old' is past the week; 'new' unknown.
  assert.deepEqual(due.map((d) => [d.id, d.fresh]), [['fresh', true], ['v3', false]]);
  checks.checkedAt.set('quiet', now - 3600);
  assert.deepEqual(dueSessions(marks, cursors, checks, now).map((d) => d.id), ['fresh', 'v3', 'quiet']);
  // The session's own last activity counts as well as its last message.
  assert.deepEqual(dueSessions([mark('old', now - 60)], cursors, checks, now).map((d) => d.id), ['old']);
  // Nothing committed since the last pass: only the sessions owed a look are due.
  assert.deepEqual(dueSessions(marks, cursors, { ...checks, committed: false, owed: new Map([['v3', now - 5]]) }, now).map((d) => d.id), ['v3']);
  // Settled sessions (past the week), for a forward pass: due once a day.
  assert.deepEqual(dueSessions(marks, cursors, { ...checks, settled: true }, now).map((d) => d.id), ['fresh', 'v3', 'old', 'quiet']);
  const lookedOld = { ...checks, settled: true, checkedAt: new Map([...checks.checkedAt, ['old', now - 3600]]) };
  assert.deepEqual(dueSessions(marks, cursors, lookedOld, now).map((d) => d.id), ['fresh', 'v3', 'quiet']);
  lookedOld.checkedAt.set('old', now - SETTLED_INTERVAL);
  assert.deepEqual(dueSessions(marks, cursors, lookedOld, now).map((d) => d.id), ['fresh', 'v3', 'old', 'quiet']);
  // Nudged (a PostgreSQL mirror copied edits of it): due now whatever its pace, committed or not; never past the week.
  const nudged = new Set(['looked', 'old']);
  assert.deepEqual(dueSessions(marks, cursors, { ...checks, committed: false, owed: new Map(), nudged }, now).map((d) => d.id), ['looked']);
});

test('the budget: rows compared per pass, at least one session; those left are owed a look at once', () => {
  const { dir, cleanup } = tempDir('hermetic-edits-budget-');
  try {
    const path = join(dir, 'hermes', 'state.db');
    const db = createStore({ path, level: 31, journal: 'wal', fts: false, generation: 'gen-a' });
    const clock = { t: T0 };
    const w = new StateDbWriter(db, { now: () => (clock.t += 1), ids: createIdSource('budget') });
    const sessions = [0, 1, 2].map(() => w.createSession({ source: 'cli', started_at: T0 }));
    for (const s of sessions) for (let i = 0; i < 20; i++) w.appendMessages(s, turn(i));
    const rig = forwarderRig([path], { dir, readWorker: 'off', now: () => clock.t * 1000 });
    try {
      assert.equal(rig.forwarder.forwardOnce()[0]!.error, null);
      const cursors = rig.forwarder.sink.cursors(path);
      const conn = openStore(path);
      try {
        const reader = new StoreReader(conn.db, path);
        const marks = reader.snapshot(() => reader.marks());
        const checks = { checkedAt: new Map<string, number>(), owed: new Map<string, number>(), committed: true, budget: 50 };
        const first = findEdits(reader, marks, cursors, checks, clock.t);
        assert.deepEqual([first.checked.length, first.left, first.edited.size], [1, 2, 0]);
        // The two left are owed a look at once (a forward tick after this one is not idle); the one looked at is not.
        assert.deepEqual([...first.owed.keys()].sort(), sessions.filter((id) => id !== first.checked[0]).sort());
        assert.ok([...first.owed.values()].every((t) => t <= clock.t));
        w.setMessageReaction(3, '👍');
        const all = findEdits(reader, marks, cursors, { checkedAt: new Map(), owed: new Map(), committed: true, budget: 120 }, clock.t);
        assert.deepEqual([all.checked.length, all.left, [...all.edited]], [3, 0, [sessions[0]]]);
      } finally {
        conn.close();
      }
      db.close();
    } finally {
      rig.cleanup();
    }
  } finally {
    cleanup();
  }
});
