// What a windowed backfill left unread, said where it matters: the pass records the sessions its window left (new, or
// changed since last read) as spans in stores.unread; a report whose window meets a span says how many sessions are not
// counted and between which days (on a terminal under its figures, beside --json/--csv on stderr, on the dashboard's
// overview); a window that does not meet it says nothing; a pass without a window clears it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { generatedStore } from '../../state-db/testing/generated.js';
import { reportCommand } from '../cli/report.js';
import { Zone } from '../ledger/zone.js';
import { createForwarder } from '../pipeline/forwarder.js';
import { sqliteSource } from '../web/data/sqlite.js';
import { startWebServer } from '../web/server.js';
import { unreadIn, unreadText, usageReport } from './index.js';
import { unreadUnknownText } from './render.js';
import { printed } from '../../shared/testing/console.js';

const NOW = Date.UTC(2026, 6, 15, 10, 30) / 1000;
const ZONE = new Zone('Europe/Berlin');
const DAY = 86400;
let tmp: { dir: string; cleanup: () => void };
let store: string;

before(() => {
  tmp = tempDir('hermetic-unread-');
  store = generatedStore({ out: join(tmp.dir, 'hermes', 'state.db'), sessions: 120, messages: 2000, seed: 'unread', end: NOW, days: 30 }).path;
});
after(() => tmp.cleanup());

type Span = { sessions: number; from: number; to: number };

/** A backfill of the store into `home` over a window; its sessions left outside, and stores.unread after it. */
function backfill(home: string, window: { since?: number; until?: number }): { outside: number; unread: Span[] | null } {
  const f = createForwarder({ stateDbs: [store], home, userHome: tmp.dir, hermesHome: undefined, now: () => NOW * 1000, timeZone: ZONE.name });
  try {
    const [r] = f.backfill(window);
    const db = new Database(join(home, 'hermetic.db'), { readonly: true });
    const text = db.prepare('SELECT unread FROM stores').pluck().get() as string | null;
    // The row remote sinks receive (decision 0102) says the same, without the store's path.
    const kept = db.prepare('SELECT scope, stores FROM backfill_unread').all() as { scope: string; stores: string }[];
    db.close();
    assert.deepEqual(kept.map((r) => ({ scope: r.scope, stores: JSON.parse(r.stores) as unknown })), [{ scope: 'stores', stores: text === null ? [] : [JSON.parse(text)] }]);
    assert.ok(!kept[0]!.stores.includes('/'), 'no path leaves');
    return { outside: r!.sessionsOutsideWindow, unread: text === null ? null : (JSON.parse(text) as Span[]) };
  } finally {
    f.close();
  }
}

/** hermetic report in this process: what it printed on stdout and on stderr. */
async function report(home: string, args: string[]): Promise<{ out: string; err: string }> {
  const { value, out, err } = await printed(() => reportCommand(['--home', home, ...args], { now: () => NOW * 1000, color: false, width: 200 }));
  assert.equal(value, 0);
  return { out: out.join('\n'), err: err.join('\n') };
}

const days = (s: Span) => ({ sessions: s.sessions, from: ZONE.dayOf(s.from), to: ZONE.dayOf(s.to) });

describe('sessions a windowed backfill left unread', () => {
  it('are recorded by the pass, said by a report whose window meets them, and cleared by a pass without a window', async () => {
    const home = join(tmp.dir, 'since');
    const since = NOW - 7 * DAY;
    const first = backfill(home, { since });
    assert.ok(first.outside > 0, 'the generated month has sessions before the last 7 days');
    assert.equal(first.unread?.length, 1, 'one span: the sessions active only before the window');
    const span = first.unread![0]!;
    assert.equal(span.sessions, first.outside);
    assert.ok(span.from <= span.to && span.to < since, JSON.stringify(span));

    // A month's report meets them: the summary says so under its figures, in words and by local days.
    const sentence = unreadText(days(span));
    assert.match(sentence, new RegExp(`^${span.sessions} sessions active between \\d{4}-\\d\\d-\\d\\d and \\d{4}-\\d\\d-\\d\\d are not counted: a backfill's window`));
    const month = await report(home, ['--period', '30d']);
    assert.ok(month.out.replace(/\n {11}/g, ' ').split('\n').includes(`unread     ${sentence}`), month.out);
    // --by on a terminal says it too; --json keeps its document exactly and says it on stderr.
    assert.ok((await report(home, ['--period', '30d', '--by', 'model'])).out.replace(/\n {11}/g, ' ').includes(sentence));
    const json = await report(home, ['--period', '30d', '--json']);
    const db = new Database(join(home, 'hermetic.db'), { readonly: true });
    try {
      const window = { since: ZONE.startOfDay(ZONE.dayOf(NOW - 29 * DAY)), until: NOW };
      assert.deepEqual(JSON.parse(json.out), usageReport(db, { ...window, by: [] }));
      assert.equal(json.err, `hermetic: ${sentence}`);
      // The span meets a window that reaches into it, not one that starts after it or ends before it.
      assert.deepEqual(unreadIn(db, { since: span.to, until: null }), { ...span, stores: 1 });
      assert.equal(unreadIn(db, { since: span.to + 1, until: null }), null);
      assert.equal(unreadIn(db, { since: null, until: span.from }), null);
      assert.deepEqual(unreadIn(db, { since: null, until: span.from + 1 }), { ...span, stores: 1 });
    } finally {
      db.close();
    }
    // The dashboard's overview says the same, by the same days.
    const served = new Database(join(home, 'hermetic.db'), { readonly: true });
    const web = await startWebServer({ source: sqliteSource(served), port: 0, now: () => NOW * 1000, onError: (e) => { throw e; } });
    try {
      const overview = async (q: string) => ((await (await fetch(new URL(`/api/overview?${q}`, web.url))).json()) as { unread: unknown }).unread;
      assert.deepEqual(await overview('period=30d'), days(span));
      assert.equal(await overview('period=7d'), null);
    } finally {
      await web.close();
      served.close();
    }
    const week = await report(home, ['--since', '7d']);
    assert.doesNotMatch(week.out, /not counted/, 'the last 7 days were read whole');
    assert.equal((await report(home, ['--since', '7d', '--csv'])).err, '');

    // A later backfill without a window reads them, and nothing is said any more.
    const whole = backfill(home, {});
    assert.deepEqual([whole.outside, whole.unread], [0, null]);
    assert.doesNotMatch((await report(home, ['--period', '30d'])).out, /not counted/);
  });

  it('a window with an end: the sessions before it and those started after it are two spans, each met on its own', async () => {
    const home = join(tmp.dir, 'until');
    const since = NOW - 20 * DAY;
    const until = NOW - 10 * DAY;
    const { outside, unread } = backfill(home, { since, until });
    assert.equal(unread?.length, 2, JSON.stringify(unread));
    const [early, late] = unread as [Span, Span];
    assert.equal(early.sessions + late.sessions, outside);
    assert.ok(early.to < since && late.from > until, JSON.stringify(unread));
    // The days read in between are whole: a report over them says nothing; one over the last 5 days names only the
    // sessions started after the window, one over the whole month both.
    const between = await report(home, ['--since', ZONE.dayOf(since + DAY), '--until', ZONE.dayOf(until - DAY)]);
    assert.doesNotMatch(between.out, /not counted/, between.out);
    const recent = (await report(home, ['--since', '5d'])).out.replace(/\n {11}/g, ' ');
    assert.ok(recent.includes(`${late.sessions} session${late.sessions === 1 ? '' : 's'} active `), recent);
    const both = { sessions: early.sessions + late.sessions, from: Math.min(early.from, late.from), to: Math.max(early.to, late.to) };
    assert.ok((await report(home, ['--period', 'all'])).out.replace(/\n {11}/g, ' ').includes(unreadText(days(both))));
  });
});

describe('unreadUnknownText: the silent machines named (decision 0105 addendum)', () => {
  const tail = 'not say which sessions windowed backfills left unread (a forwarder older than dataset version 13 does not send it); the count is of';
  it('names up to three by their host names, then how many more; a name that would act on a terminal is shown harmless', () => {
    const said = (machines: number, of: number, names: string[]) => unreadUnknownText({ machines, of, names }, true);
    assert.equal(said(1, 3, ['old-c']), `1 of the fleet's 3 machines (old-c) does ${tail} the other 2.`);
    assert.equal(said(2, 3, ['a', 'b']), `2 of the fleet's 3 machines (a and b) do ${tail} the other machine.`);
    assert.equal(said(3, 4, ['a', 'b', 'c']), `3 of the fleet's 4 machines (a, b and c) do ${tail} the other machine.`);
    assert.equal(said(5, 6, ['a', 'b', 'c']), `5 of the fleet's 6 machines (a, b, c and 2 more) do ${tail} the other machine.`);
    // Two silent machines of one name: the name once, and the other counted.
    assert.equal(said(2, 3, ['box']), `2 of the fleet's 3 machines (box and 1 more) do ${tail} the other machine.`);
    // Not known (an older fleet store), nothing in brackets.
    assert.equal(said(1, 2, []), `1 of the fleet's 2 machines does ${tail} the other machine.`);
    assert.equal(said(1, 2, ['evil\u001b[2J\u202ex']), `1 of the fleet's 2 machines (evil␛[2J\\u202ex) does ${tail} the other machine.`);
  });
});
