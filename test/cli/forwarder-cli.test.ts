// The forwarder's commands as a person meets them, through the real bin: backfill's summary in words and in JSON
// with exact counts, windows, refusals with their codes and exit statuses, query, status, forward's exit codes and
// its wait for a store that is not there yet, policy check, and --redact. No command ever prints a stack trace.
// Runs that only set a test up or read back what a command wrote run main() in process (inProcess): the bin's start
// is then not what the test is about, and each costs about 0.3 s of CPU (decision 0106).
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { createIdSource } from '../../src/shared/ids.js';
import { generate } from '../../src/state-db/generate/index.js';
import { createStore, LATEST_LEVEL } from '../../src/state-db/schema/index.js';
import { copyFixture } from '../../src/state-db/testing/fixtures.js';
import { generatedStore } from '../../src/state-db/testing/generated.js';
import { StateDbWriter } from '../../src/state-db/writer/index.js';
import { dispatchDelegation } from '../../src/state-db/writer/delegations.js';
import {
  childEnv, datasetDifferences, datasetRows, spawnHermetic, STACK_LINE, storeHistoryCounts, storeLiveCounts, storeValue,
} from '../support/forwarder-harness.js';
import { runMain } from '../support/process.js';
import { DEADLINE_MS, waitFor } from '../support/wait.js';
import { DATASET_VERSION } from '../../src/forwarder/dataset/columns.js';
import { COUNTED_TABLES } from '../../src/forwarder/sinks/sqlite/row-counts.js';

let dir: string;
let env: NodeJS.ProcessEnv;
/** The three Hermes fixtures, copied: basic (3 sessions, 42 messages), channels (14, 102), usage (3, 21). */
let fixtures: { basic: string; channels: string; usage: string };
const stderrSeen: string[] = [];

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hermetic-forwarder-cli-'));
  env = childEnv(dir);
  const fx = join(dir, 'fixtures');
  mkdirSync(fx);
  fixtures = { basic: copyFixture('basic', fx), channels: copyFixture('channels', fx), usage: copyFixture('usage', fx) };
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
  assert.doesNotMatch(stderrSeen.join('\n'), STACK_LINE);
});

interface Run { status: number | null; stdout: string; stderr: string }

/** `hermetic ...args` to its end, as its own process; never a stack trace. */
async function hermetic(...args: string[]): Promise<Run> {
  return hermeticWith({}, ...args);
}

/** `hermetic` with these variables added to the environment. */
async function hermeticWith(extra: NodeJS.ProcessEnv, ...args: string[]): Promise<Run> {
  const h = spawnHermetic(args, { env: { ...env, ...extra } });
  const { code, signal } = await h.exited;
  stderrSeen.push(h.stderr());
  assert.doesNotMatch(h.stderr(), STACK_LINE, args.join(' '));
  return { status: code ?? (signal as unknown as number), stdout: h.stdout(), stderr: h.stderr() };
}

/** main() in this process (test/support/process.ts); what it says on stderr is kept to check for stack traces. */
async function inProcess(...args: string[]): Promise<Run> {
  const r = await runMain(args);
  stderrSeen.push(r.stderr);
  return r;
}

const home = (name: string) => join(dir, 'homes', name);
const all = () => ['--state-db', fixtures.basic, '--state-db', fixtures.channels, '--state-db', fixtures.usage];
const refusal = (command: string, message: string, code: string) => `hermetic: ${message} [${code}]\nRun "hermetic ${command} --help" for the options.\n`;

/** A store written through the Hermes-like writer: `build` gets the writer and a settable clock (epoch seconds). */
function buildStore(name: string, build: (w: StateDbWriter, clock: { t: number }) => void): string {
  const path = join(dir, `${name}.db`);
  const db = createStore({ path, level: LATEST_LEVEL, journal: 'wal' });
  const clock = { t: 1_780_000_000 };
  const w = new StateDbWriter(db, { now: () => clock.t, ids: createIdSource(name) });
  build(w, clock);
  db.close();
  return path;
}

interface Summary {
  event: 'hermes.backfill.scan_complete';
  stores: { path: string; profile: string; backend: string; schema_version: number; journal_mode: string; read: string; sessions_written: number; messages: number; parts: number; messages_removed: number; parts_removed: number; row_issues: number; usage_clamped: number; read_by_worker: number; warning: null; error: null | { code: string; message: string }; error_kind: string | null }[];
  sessions: number; messages: number; parts: number; messages_removed: number; parts_removed: number;
  skipped: Record<string, number>;
  row_issues: number; removed_from_store: number; failed_stores: number; wrote_nothing: boolean;
  /** The reference's scan_complete counters (decision 0052). */
  sessions_seen: number; sessions_skipped_window: number; sessions_skipped: number; sessions_projected: number; messages_projected: number;
  seconds: number;
}

/** forward --json's whole lines so far (decision 0052), parsed; every one leads with its event. */
type Line = { event: string; store?: string | null; error_kind?: string | null; [key: string]: unknown };
function lines(stdout: string): Line[] {
  const out = stdout.slice(0, stdout.lastIndexOf('\n') + 1).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Line);
  for (const l of out) assert.equal(Object.keys(l)[0], 'event', JSON.stringify(l));
  return out;
}

const SKIPPED_NONE = { unchanged: 0, outside_window: 0, ignored_by_policy: 0, quarantined: 0, waiting_in_quarantine: 0 };

// Each case has its own stores and homes, so they run side by side (the bin's start-up dominates).
describe('the forwarder commands', { concurrency: 2 }, () => {
  describe('hermetic backfill', () => {
    it('with HERMETIC_READ_WORKER=only the worker thread (bundled beside the CLI, decision 0128) reads every session, and the dataset is the calling thread\'s', async () => {
      const [worker, plain] = await Promise.all([
        hermeticWith({ HERMETIC_READ_WORKER: 'only' }, 'backfill', ...all(), '--home', home('worker-only'), '--json'),
        hermeticWith({ HERMETIC_READ_WORKER: 'off' }, 'backfill', ...all(), '--home', home('worker-off'), '--json'),
      ]);
      assert.deepEqual([worker.status, worker.stderr, plain.status, plain.stderr], [0, '', 0, '']);
      const byWorker = (r: Run) => (JSON.parse(r.stdout) as Summary).stores.map((s) => [s.sessions_written, s.read_by_worker]);
      assert.deepEqual(byWorker(worker), [[3, 3], [14, 14], [3, 3]]);
      assert.deepEqual(byWorker(plain), [[3, 0], [14, 0], [3, 0]]);
      assert.deepEqual(datasetDifferences(datasetRows(home('worker-only')), datasetRows(home('worker-off'))), []);
    });

    it('summarises a backfill of the Hermes fixtures in words and in JSON with exact counts; a second run writes nothing', async () => {
      const [words, json] = await Promise.all([hermetic('backfill', ...all(), '--home', home('words')), hermetic('backfill', ...all(), '--home', home('json'), '--json')]);
      // 20 sessions and 165 messages: what the stores hold (every message of these stores is live).
      const live = [fixtures.basic, fixtures.channels, fixtures.usage].map((s) => [...storeLiveCounts(s).values()].reduce((a, b) => a + b, 0));
      assert.deepEqual(live, [42, 102, 21]);
      assert.deepEqual([words.status, words.stderr], [0, '']);
      assert.match(words.stdout, new RegExp(`^backfill: 3 stores, 20 sessions written \\(165 messages, 265 parts\\) in \\d+\\.\\d s → ${home('words')}/hermetic\\.db\\n$`));

      assert.deepEqual([json.status, json.stderr], [0, '']);
      // One line, hermes.backfill.scan_complete, the summary's keys as they were and the reference's counters.
      assert.match(json.stdout, /^\{"event":"hermes\.backfill\.scan_complete",[^\n]*\}\n$/);
      const s = JSON.parse(json.stdout) as Summary;
      assert.deepEqual(Object.keys(s), ['event', 'stores', 'sessions', 'messages', 'parts', 'messages_removed', 'parts_removed', 'skipped', 'delegations', 'delegations_removed', 'row_issues', 'usage_clamped', 'removed_from_store', 'failed_stores', 'wrote_nothing', 'moved_to_local_only', 'moved_to_full',
        'sessions_seen', 'sessions_skipped_window', 'sessions_skipped', 'sessions_projected', 'messages_projected', 'seconds']);
      const store = (path: string, sessions: number, messages: number, parts: number) => ({
        path, profile: 'default', backend: 'sqlite', schema_version: 30, journal_mode: 'delete', read: 'in-place', sessions_written: sessions,
        messages, parts, messages_removed: 0, parts_removed: 0, row_issues: 0, usage_clamped: 0, moved_to_local_only: 0, moved_to_full: 0, read_by_worker: 0, warning: null, error: null, error_kind: null,
      });
      assert.deepEqual({ ...s, seconds: 0 }, {
        event: 'hermes.backfill.scan_complete',
        stores: [store(fixtures.basic, 3, 42, 69), store(fixtures.channels, 14, 102, 166), store(fixtures.usage, 3, 21, 30)],
        sessions: 20, messages: 165, parts: 265, messages_removed: 0, parts_removed: 0, skipped: SKIPPED_NONE, delegations: 0, delegations_removed: 0, row_issues: 0, usage_clamped: 0, removed_from_store: 0,
        failed_stores: 0, wrote_nothing: false, moved_to_local_only: 0, moved_to_full: 0, sessions_seen: 20, sessions_skipped_window: 0, sessions_skipped: 0, sessions_projected: 20, messages_projected: 165, seconds: 0,
      });
      // The stores hold 20 sessions and 165 messages (above): what the counters say.
      assert.equal([fixtures.basic, fixtures.channels, fixtures.usage].map((p) => storeValue(p, 'SELECT COUNT(*) FROM sessions') as number).reduce((a, b) => a + b, 0), s.sessions_seen);
      assert.ok(typeof s.seconds === 'number' && s.seconds >= 0 && s.seconds < 60);
      // The summary is what the dataset holds.
      const counted = await inProcess('query', 'SELECT (SELECT COUNT(*) FROM sessions) AS sessions, (SELECT COUNT(*) FROM messages) AS messages, (SELECT COUNT(*) FROM parts) AS parts', '--home', home('json'), '--json');
      assert.deepEqual(JSON.parse(counted.stdout), [{ sessions: 20, messages: 165, parts: 265 }]);

      const [again, againJson] = await Promise.all([hermetic('backfill', ...all(), '--home', home('words')), hermetic('backfill', ...all(), '--home', home('json'), '--json')]);
      assert.deepEqual(again, { status: 0, stdout: 'backfill: nothing to write: nothing changed since it was last read (20 sessions unchanged).\n', stderr: '' });
      const a = JSON.parse(againJson.stdout) as Summary;
      assert.equal(againJson.status, 0);
      assert.deepEqual([a.wrote_nothing, a.sessions, a.messages, a.parts, a.skipped], [true, 0, 0, 0, { ...SKIPPED_NONE, unchanged: 20 }]);
      assert.deepEqual([a.event, a.sessions_seen, a.sessions_skipped_window, a.sessions_skipped, a.sessions_projected, a.messages_projected], ['hermes.backfill.scan_complete', 20, 0, 20, 0, 0]);
    });

    it('--since 7d picks the sessions active in the last 7 days, by their last activity', async () => {
      const now = Date.now() / 1000;
      const day = 86_400;
      const ids: Record<string, string> = {};
      const store = buildStore('recent', (w, clock) => {
        for (const [name, ago, end] of [['1d', 1, true], ['3d', 3, true], ['10d', 10, true], ['40d', 40, true], ['open-10d-talked-2d', 10, false]] as const) {
          clock.t = now - ago * day;
          const id = (ids[name] = w.createSession({ source: 'cli', model: 'gpt-5' }));
          w.appendMessages(id, [{ role: 'user', content: `hello ${name}` }, { role: 'assistant', content: 'hi', finish_reason: 'stop' }]);
          if (end) w.endSession(id, 'user_exit', clock.t + 60);
        }
        // The open session started 10 days ago and was last written 2 days ago: its last message puts it inside.
        clock.t = now - 2 * day;
        w.appendMessage(ids['open-10d-talked-2d']!, { role: 'user', content: 'still here' });
      });
      const r = await hermetic('backfill', '--state-db', store, '--home', home('recent'), '--since', '7d', '--json');
      assert.equal(r.status, 0, r.stderr);
      const s = JSON.parse(r.stdout) as Summary;
      assert.deepEqual([s.sessions, s.messages, s.skipped.outside_window], [3, 7, 2]);
      assert.deepEqual([s.sessions_seen, s.sessions_skipped_window, s.sessions_skipped, s.sessions_projected, s.messages_projected], [5, 2, 0, 3, 7]);
      const got = JSON.parse((await inProcess('query', 'SELECT session_id FROM sessions ORDER BY started_at', '--home', home('recent'), '--json')).stdout) as { session_id: string }[];
      assert.deepEqual(got.map((x) => x.session_id), [ids['open-10d-talked-2d'], ids['3d'], ids['1d']]);
      // Again, with a narrower window: the sessions read before are unchanged (wherever they are), the others outside it.
      const again = await inProcess('backfill', '--state-db', store, '--home', home('recent'), '--since', '2d');
      assert.deepEqual([again.status, again.stdout], [0, 'backfill: nothing to write: no session in the window changed since it was last read (3 sessions unchanged since last read, 2 others outside the window).\n'
        + 'backfill: 2 sessions outside the window were not read (hermetic status counts them as pending, and a report over their days says they are missing; a backfill without --since, or hermetic forward, reads them).\n']);
    });

    it('a HERMETIC_TZ that is not a zone refuses backfill and forward before anything is read or made: exit 2, one line', async () => {
      for (const command of ['backfill', 'forward']) {
        const where = home(`bad-zone-${command}`);
        const h = spawnHermetic([command, ...(command === 'forward' ? ['--once'] : []), '--state-db', fixtures.basic, '--home', where], { env: { ...env, HERMETIC_TZ: 'Mars/Olympus' } });
        assert.equal((await h.exited).code, 2, command);
        assert.equal(h.stderr(), `hermetic: "Mars/Olympus" (HERMETIC_TZ) is not a time zone; use an IANA name such as Europe/Berlin, or UTC. [HERMETIC_OPTIONS_INVALID]\nRun "hermetic ${command} --help" for the options.\n`);
        assert.equal(h.stdout(), '');
        assert.equal(existsSync(where), false, 'no home, no build file');
      }
    });

    it('--since and --until with ISO dates select exact sessions of the fixtures (mid-2026)', async () => {
      const window = async (name: string, ...flags: string[]) => {
        const r = await inProcess('backfill', ...all(), '--home', home(name), '--json', ...flags);
        assert.equal(r.status, 0, r.stderr);
        const s = JSON.parse(r.stdout) as Summary;
        return { per: s.stores.map((x) => x.sessions_written), outside: s.skipped.outside_window };
      };
      // A date is its midnight in the ledger's zone (HERMETIC_TZ, else the machine's): pinned to UTC here, so the test
      // passes on a machine in any zone; then the same dates in Chatham (+12:45), where midnight is 11:15 UTC the day before.
      const zone = process.env.HERMETIC_TZ;
      const inZone = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
        process.env.HERMETIC_TZ = name;
        try {
          return await run();
        } finally {
          if (zone === undefined) delete process.env.HERMETIC_TZ;
          else process.env.HERMETIC_TZ = zone;
        }
      };
      const [june, lateMay30, untilMay29, between, weekAgo] = await inZone('UTC', () => Promise.all([
        window('since-june', '--since', '2026-06-01'),
        window('since-0200', '--since', '2026-05-30T02:00:00Z'),
        window('until-may29', '--until', '2026-05-29'),
        window('between', '--since', '2026-05-29', '--until', '2026-05-31'),
        window('week', '--since', '7d'),
      ]));
      assert.deepEqual(june, { per: [0, 0, 3], outside: 17 });
      assert.deepEqual(lateMay30, { per: [0, 11, 3], outside: 6 });
      assert.deepEqual(untilMay29, { per: [3, 0, 0], outside: 17 });
      assert.deepEqual(between, { per: [0, 14, 0], outside: 6 });
      // In Chatham the window starts on 28 May at 11:15 UTC, and takes in the first store's three sessions of that evening.
      assert.deepEqual(await inZone('Pacific/Chatham', () => window('between-chatham', '--since', '2026-05-29', '--until', '2026-05-31')), { per: [3, 14, 0], outside: 3 });
      // --since 7d against this clock: the fixtures (May–June 2026) are judged by their last activity like any store.
      const since = Date.now() / 1000 - 7 * 86_400;
      const active = [fixtures.basic, fixtures.channels, fixtures.usage].map((p) => storeValue(p, `SELECT COUNT(*) FROM sessions s WHERE MAX(s.started_at, COALESCE(s.ended_at, 0), COALESCE(s.last_activity_at, 0), COALESCE((SELECT MAX(timestamp) FROM messages m WHERE m.session_id = s.id), 0)) >= ${since}`) as number);
      assert.deepEqual(weekAgo, { per: active, outside: 20 - active.reduce((a, b) => a + b, 0) });
    });

    it('refuses a bad --since or --until with exit 2 before reading anything', async () => {
      const runs = await Promise.all(['yesterday', '7 days', '2026-13-45', '-3d', ''].map((v, i) => (i === 0 ? hermetic : inProcess)('backfill', ...all(), '--home', home('bad'), '--since', v)));
      const [yesterday, spaced, badDate, negative, empty] = runs;
      const why = (v: string) => `--since must be a duration such as 7d, 12h or 30m, or an ISO date such as 2026-11-01; got "${v}".`;
      assert.deepEqual(yesterday, { status: 2, stdout: '', stderr: refusal('backfill', why('yesterday'), 'HERMETIC_CLI_USAGE') });
      assert.deepEqual(spaced, { status: 2, stdout: '', stderr: refusal('backfill', why('7 days'), 'HERMETIC_CLI_USAGE') });
      assert.deepEqual(badDate, { status: 2, stdout: '', stderr: refusal('backfill', '--since "2026-13-45" is not a real date: months run from 01 to 12.', 'HERMETIC_CLI_USAGE') });
      assert.deepEqual(negative, { status: 2, stdout: '', stderr: refusal('backfill', why('-3d'), 'HERMETIC_CLI_USAGE') });
      assert.deepEqual(empty, { status: 2, stdout: '', stderr: refusal('backfill', '--since must not be empty.', 'HERMETIC_CLI_USAGE') });
      const until = await inProcess('backfill', ...all(), '--home', home('bad'), '--until', 'soon');
      assert.deepEqual(until, { status: 2, stdout: '', stderr: refusal('backfill', '--until must be a duration such as 7d, 12h or 30m, or an ISO date such as 2026-11-01; got "soon".', 'HERMETIC_CLI_USAGE') });
    });

    it('a --state-db that does not exist, or a folder without a state.db, is refused (exit 2, HERMETIC_READER_PATH) before anything is created', async () => {
      const missing = join(dir, 'no-such', 'state.db');
      const empty = join(dir, 'empty-folder');
      mkdirSync(empty);
      const [words, json, folder] = await Promise.all([
        hermetic('backfill', '--state-db', missing, '--home', home('missing')),
        inProcess('backfill', '--state-db', missing, '--home', home('missing-json'), '--json'),
        inProcess('backfill', '--state-db', empty, '--home', home('missing')),
      ]);
      for (const r of [words, json]) assert.deepEqual(r, { status: 2, stdout: '', stderr: refusal('backfill', `${missing} does not exist; nothing was read.`, 'HERMETIC_READER_PATH') });
      assert.deepEqual(folder, { status: 2, stdout: '', stderr: refusal('backfill', `${empty} is a folder with no state.db in it; nothing was read.`, 'HERMETIC_READER_PATH') });
      assert.equal(existsSync(home('missing')), false);
    });

    it('a --home that is a file, or a link to nothing, is refused with a sentence that says so, before anything is read', async () => {
      const file = join(dir, 'home-is-a-file');
      writeFileSync(file, 'x');
      const link = join(dir, 'home-is-a-broken-link');
      symlinkSync(join(dir, 'not-there'), link);
      const [f, l, s] = await Promise.all([
        inProcess('forward', '--once', '--state-db', fixtures.usage, '--home', file),
        inProcess('backfill', '--state-db', fixtures.usage, '--home', link),
        inProcess('status', '--home', file),
      ]);
      const sentence = `hermetic: --home ${file} is a file, not a folder; Hermetic keeps its dataset and state in a folder (give --home a folder). [HERMETIC_DATASET_OPEN]\n`;
      assert.deepEqual([f.status, f.stdout, f.stderr], [1, '', sentence]);
      assert.deepEqual([s.status, s.stderr], [1, sentence]);
      assert.deepEqual([l.status, l.stderr], [1, `hermetic: --home ${link} is a link to ${join(dir, 'not-there')}, which does not exist; create that folder or give --home another. [HERMETIC_DATASET_OPEN]\n`]);
      assert.equal(existsSync(join(dir, 'not-there')), false);
    });

    it('a folder given as --state-db stands for the state.db in it (a Hermes home)', async () => {
      const hermesHome = join(dir, 'a-hermes-home');
      mkdirSync(hermesHome);
      const store = copyFixture('usage', hermesHome);
      renameSync(store, join(hermesHome, 'state.db'));
      const r = await inProcess('backfill', '--state-db', hermesHome, '--home', home('folder'), '--json');
      assert.equal(r.status, 0, r.stderr);
      const s = JSON.parse(r.stdout) as Summary;
      assert.deepEqual([s.stores[0]!.path, s.sessions, s.messages], [join(hermesHome, 'state.db'), 3, 21]);
    });

    it('a store that cannot be read fails the run (exit 1): said first, the summary says so, and no dataset is created', async () => {
      const bad = join(dir, 'not-sqlite.db');
      writeFileSync(bad, 'this is not a database, just some text that is long enough to have a header of 100 bytes or so, you see...');
      const [words, json] = await Promise.all([
        inProcess('backfill', '--state-db', bad, '--home', home('bad-store')),
        inProcess('backfill', '--state-db', bad, '--home', home('bad-store-json'), '--json'),
      ]);
      assert.deepEqual(words, {
        status: 1,
        stderr: `hermetic: ${bad} is not a SQLite database (it does not start with SQLite's header). [HERMETIC_READER_OPEN]\n`,
        stdout: 'backfill: nothing was written: 1 of 1 store could not be read (see above).\n',
      });
      assert.equal(json.status, 1);
      const s = JSON.parse(json.stdout) as Summary;
      assert.deepEqual([s.failed_stores, s.wrote_nothing, s.stores[0]!.error?.code, s.stores[0]!.error_kind], [1, true, 'HERMETIC_READER_OPEN', 'open_failed']);
      assert.equal(existsSync(home('bad-store')), false);
      assert.equal(existsSync(home('bad-store-json')), false);
    });

    it('a damaged dataset is said as the dataset\'s state with what to do (exit 1), never as a bug or the user\'s SQL', async () => {
      const h = home('damaged');
      assert.equal((await inProcess('backfill', ...all(), '--home', h)).status, 0);
      // Pages past the schema overwritten: the tables' pages no longer read.
      const file = join(h, 'hermetic.db');
      const bytes = readFileSync(file);
      for (let at = Math.floor(bytes.length / 2); at + 64 < bytes.length; at += 4096) bytes.fill(0xff, at, at + 64);
      writeFileSync(file, bytes);
      const [status, report, query] = await Promise.all([
        inProcess('status', '--home', h),
        inProcess('report', '--period', 'all', '--home', h),
        inProcess('query', 'SELECT COUNT(*), SUM(LENGTH(content)) FROM messages', '--home', h),
      ]);
      // status reads the row counts the writer keeps (decision 0069), not every row: it meets the damage only where it
      // reads a damaged page, and then says it the same way.
      assert.ok(status.status === 0 || status.stderr.includes('[HERMETIC_DATASET_OPEN]'), status.stderr);
      assert.doesNotMatch(status.stderr, /HERMETIC_INTERNAL|\n    at /);
      for (const [name, r] of [['report', report], ['query', query]] as const) {
        assert.equal(r.status, 1, `${name}: ${r.stderr}`);
        assert.match(r.stderr, /damaged or unreadable \(SQLite: .*\).* run hermetic backfill to build it again from Hermes's stores, which Hermetic never writes\. \[HERMETIC_DATASET_OPEN\]\n$/, name);
        assert.doesNotMatch(r.stderr, /HERMETIC_INTERNAL|HERMETIC_QUERY_INVALID|\n    at /, name);
      }
    });

    it('a home under a file is refused before anything is read, by every command (status does not call it "not created yet")', async () => {
      const file = join(dir, 'plain-file');
      writeFileSync(file, 'a file, not a folder');
      const under = join(file, 'home');
      const [b, s, r] = await Promise.all([
        inProcess('backfill', '--state-db', fixtures.usage, '--home', under),
        inProcess('status', '--home', under),
        inProcess('report', '--home', join(under, 'deeper')),
      ]);
      const sentence = (home: string) => `hermetic: --home ${home} cannot be a folder: ${file} is a file; give --home a folder. [HERMETIC_DATASET_OPEN]\n`;
      assert.deepEqual(b, { status: 1, stdout: '', stderr: sentence(under) });
      assert.deepEqual(s, { status: 1, stdout: '', stderr: sentence(under) });
      assert.deepEqual(r, { status: 1, stdout: '', stderr: sentence(join(under, 'deeper')) });
    });

    it('a session that cannot be written fails the run (exit 1), pointing at hermetic status; the next run says it waits, and fails too', async () => {
      const path = buildStore('poison', (w) => {
        w.createSession({ id: 'good', source: 'cli', started_at: 1_780_000_000 });
        w.appendMessages('good', [{ role: 'user', content: 'fine' }]);
        w.createSession({ id: 'bad', source: 'cli', started_at: 1_780_000_000 });
        w.appendMessages('bad', [{ role: 'user', content: 'nested' }]);
      });
      // tool_calls nested deeper than the JS stack: it parses, but cannot be projected.
      const db = new Database(path);
      db.prepare("UPDATE messages SET tool_calls = ? WHERE session_id = 'bad'").run(`${'['.repeat(100000)}${']'.repeat(100000)}`);
      db.close();
      const first = await inProcess('backfill', '--state-db', path, '--home', home('poison'));
      assert.equal(first.status, 1);
      assert.match(first.stdout, /^backfill: 1 store, 1 session written \(1 message, 1 part\); 1 failed \(quarantined; see hermetic status\) in /);
      const again = await inProcess('backfill', '--state-db', path, '--home', home('poison'), '--json');
      assert.equal(again.status, 1);
      const s = JSON.parse(again.stdout) as Summary;
      assert.deepEqual([s.wrote_nothing, s.skipped], [true, { ...SKIPPED_NONE, unchanged: 1, waiting_in_quarantine: 1 }]);
      assert.deepEqual([s.stores[0]!.error, s.stores[0]!.error_kind, s.sessions_seen, s.sessions_skipped, s.sessions_projected], [null, 'quarantine', 2, 2, 0]);
      const words = await inProcess('backfill', '--state-db', path, '--home', home('poison'));
      assert.deepEqual([words.status, words.stdout], [1, 'backfill: nothing was written: 1 session could not be written (1 session unchanged, 1 that failed before, waiting to be retried (see hermetic status)).\n']);
      // forward says the quarantine as the tick's error_kind (the store itself was read), and status as the store's.
      const tick = await inProcess('forward', '--once', '--json', '--state-db', path, '--home', home('poison-forward'));
      assert.equal(tick.status, 0, tick.stderr);
      assert.deepEqual(lines(tick.stdout).map((l) => [l.event, l.store, l.sessions_written, l.quarantined, l.error, l.error_kind]), [['hermes.poll_tick', path, 1, 1, null, 'quarantine']]);
      // A quiet tick after it does not read as all done: the session waiting for its retry is said.
      const quiet = await inProcess('forward', '--once', '--state-db', path, '--home', home('poison-forward'));
      assert.deepEqual([quiet.status, quiet.stderr], [0, 'forward: default: nothing new (1 session up to date; 1 session that failed before, waiting to be retried (see hermetic status))\n']);
      const status = JSON.parse((await inProcess('status', '--state-db', path, '--home', home('poison'), '--json')).stdout) as { stores: { read_error: string | null; error_kind: string | null; quarantined: { session_id: string }[] }[] };
      assert.deepEqual(status.stores.map((x) => [x.read_error, x.error_kind, x.quarantined.map((q) => q.session_id)]), [[null, 'quarantine', ['bad']]]);
    });

    it('Ctrl-C (SIGINT) stops after the batch being written, says to run again, exits 130; the next run finishes', async () => {
      const store = join(dir, 'interrupt', 'state.db');
      const made = generatedStore({ out: store, sessions: 200, messages: 4000, seed: 'interrupt', journal: 'delete' });
      const h = home('interrupt');
      // The first batch waits, committed, until the signal was sent: the pass cannot finish before it (however fast).
      const sent = join(dir, 'interrupt', 'signal-sent');
      const run = spawnHermetic(['backfill', '--state-db', store, '--home', h], { env: { ...env, HERMETIC_PROBE_HOLD_FIRST: sent }, probe: true });
      assert.ok(await run.next((e) => e.kind === 'commit'), run.stderr());
      run.child.kill('SIGINT');
      writeFileSync(sent, '');
      const { code } = await run.exited;
      stderrSeen.push(run.stderr());
      assert.equal(code, 130, run.stderr());
      assert.match(run.stderr(), /^hermetic: interrupted — run again to finish \([\d,]+ sessions? and [\d,]+ messages? written before it stopped\)\n$/);
      assert.equal(run.stdout(), '');
      const again = await inProcess('backfill', '--state-db', store, '--home', h, '--json');
      const s = JSON.parse(again.stdout) as Summary;
      assert.equal(again.status, 0);
      assert.ok(s.skipped.unchanged! > 0 && s.sessions + s.skipped.unchanged! === made.sessions, `the second run wrote the rest: ${s.sessions} + ${s.skipped.unchanged}`);
    });

    it('no Hermes store at all (no ~/.hermes, no $HERMES_HOME): exit 1, said plainly, and no dataset is created', async () => {
      const r = await hermetic('backfill', '--home', home('none'));
      assert.deepEqual(r, { status: 1, stdout: '', stderr: `hermetic: No Hermes store was found (looked for ${join(dir, '.hermes', 'state.db')} and the profiles/<name>/state.db beside it; HERMES_HOME is not set); give --state-db PATH, or make one to try with "hermetic statedb generate --out state.db". [HERMETIC_READER_OPEN]\n` });
      assert.equal(existsSync(home('none')), false);
      // forward --once says it the same way (it used to print nothing and exit 0), with or without --json.
      for (const json of [[], ['--json']]) {
        assert.deepEqual(await hermetic('forward', '--once', ...json, '--home', home('none')), r);
      }
      assert.equal(existsSync(home('none')), false);
      // With a sink, what the dataset holds is still shipped (a machine whose Hermes is gone flushes what it forwarded).
      const h = home('none-but-dataset');
      assert.equal((await inProcess('backfill', '--state-db', fixtures.usage, '--home', h)).status, 0);
      const copy = join(dir, 'none-copy.db');
      const flushed = await hermetic('forward', '--once', '--home', h, '--sink', `sqlite://${copy}`);
      assert.equal(flushed.status, 1);
      assert.match(flushed.stderr, /^hermetic: No Hermes store was found .* \[HERMETIC_READER_OPEN\]\nsink sqlite:.*: up to date \([\d,]+ rows in \d+ batch(es)? sent\)\n$/);
      assert.ok(existsSync(copy));
    });
  });

  describe('hermetic query', () => {
    it('prints a table, or a JSON array of row objects; refuses writes (exit 2) and SQL SQLite cannot run (exit 2)', async () => {
      const h = home('query');
      assert.equal((await inProcess('backfill', '--state-db', fixtures.basic, '--home', h)).status, 0);
      const sql = 'SELECT session_id, live_messages, ended_at IS NOT NULL AS ended FROM sessions ORDER BY session_id';
      const [table, json, write, insert, syntax, unknown] = await Promise.all([
        hermetic('query', sql, '--home', h),
        hermetic('query', sql, '--home', h, '--json'),
        hermetic('query', 'DELETE FROM sessions', '--home', h),
        inProcess('query', "INSERT INTO sessions (store) VALUES ('x')", '--home', h),
        hermetic('query', 'SELEC 1', '--home', h),
        inProcess('query', 'SELECT * FROM no_such_table', '--home', h),
      ]);
      assert.deepEqual(table, {
        status: 0, stderr: '',
        stdout: [
          'session_id              live_messages  ended',
          '----------------------  -------------  -----',
          '20260528_203640_3697a7  14             1',
          '20260528_214744_414d27  14             1',
          '20260528_235851_29303a  14             1',
          '(3 rows)',
          '',
        ].join('\n'),
      });
      assert.deepEqual([json.status, json.stderr], [0, '']);
      assert.deepEqual(JSON.parse(json.stdout), [
        { session_id: '20260528_203640_3697a7', live_messages: 14, ended: 1 },
        { session_id: '20260528_214744_414d27', live_messages: 14, ended: 1 },
        { session_id: '20260528_235851_29303a', live_messages: 14, ended: 1 },
      ]);
      const onlyReads = refusal('query', 'hermetic query only reads the dataset; use a SELECT (or WITH … SELECT) statement.', 'HERMETIC_QUERY_WRITE');
      assert.deepEqual(write, { status: 2, stdout: '', stderr: onlyReads });
      assert.deepEqual(insert, { status: 2, stdout: '', stderr: onlyReads });
      assert.deepEqual(syntax, { status: 2, stdout: '', stderr: refusal('query', 'SQLite cannot run this query: near "SELEC": syntax error.', 'HERMETIC_QUERY_INVALID') });
      // The tables it has are said with it (decision 0107).
      assert.deepEqual([unknown.status, unknown.stdout], [2, '']);
      assert.match(unknown.stderr, /^hermetic: SQLite cannot run this query: no such table: no_such_table; the dataset's tables: (\w+, )+usage_ledger \(docs\/reference\/dataset\.md describes every table and column\)\. \[HERMETIC_QUERY_INVALID\]\nRun "hermetic query --help" for the options\.\n$/);
      assert.match(unknown.stderr, /: .*\bsessions, /);
      // The refused write changed nothing.
      assert.deepEqual(JSON.parse((await inProcess('query', 'SELECT COUNT(*) AS n FROM sessions', '--home', h, '--json')).stdout), [{ n: 3 }]);
    });

    it('before any backfill there is no dataset: exit 1 with HERMETIC_DATASET_OPEN, and nothing is created', async () => {
      const h = home('never');
      const r = await hermetic('query', 'SELECT 1', '--home', h);
      assert.deepEqual(r, { status: 1, stdout: '', stderr: `hermetic: There is no dataset at ${h}/hermetic.db yet; run "hermetic backfill" first. [HERMETIC_DATASET_OPEN]\n` });
      assert.equal(existsSync(h), false);
      const none = await inProcess('query', '', '--home', h);
      assert.deepEqual(none, { status: 2, stdout: '', stderr: refusal('query', 'query needs one SQL statement, e.g. hermetic query "SELECT source, SUM(input_tokens) FROM sessions GROUP BY source".', 'HERMETIC_CLI_USAGE') });
    });
  });

  describe('hermetic status', () => {
    it('--json shows each store\'s schema version, journal mode, cursor and the rows per table', async () => {
      const h = home('status');
      const wal = join(dir, 'status-wal', 'state.db');
      const made = generate({ out: wal, sessions: 6, messages: 60, seed: 'status', journal: 'wal' });
      assert.equal((await inProcess('backfill', ...all(), '--state-db', wal, '--home', h)).status, 0);
      const r = await hermetic('status', ...all(), '--state-db', wal, '--home', h, '--json');
      assert.deepEqual([r.status, r.stderr], [0, '']);
      const s = JSON.parse(r.stdout) as { dataset: string; dataset_exists: boolean; stores: Record<string, unknown>[]; rows: Record<string, number> };
      assert.equal(s.dataset, join(h, 'hermetic.db'));
      assert.equal(s.dataset_exists, true);
      const maxId = (p: string) => storeValue(p, 'SELECT MAX(id) FROM messages');
      assert.deepEqual(s.stores.map((x) => ({ path: x.path, exists: x.exists, schema_version: x.schema_version, journal_mode: x.journal_mode, cursor: x.cursor_max_message_id, tracked: x.sessions_tracked, last_error: x.last_error, error_kind: x.error_kind, quarantined: x.quarantined })), [
        { path: fixtures.basic, exists: true, schema_version: 30, journal_mode: 'delete', cursor: maxId(fixtures.basic), tracked: 3, last_error: null, error_kind: null, quarantined: [] },
        { path: fixtures.channels, exists: true, schema_version: 30, journal_mode: 'delete', cursor: maxId(fixtures.channels), tracked: 14, last_error: null, error_kind: null, quarantined: [] },
        { path: fixtures.usage, exists: true, schema_version: 30, journal_mode: 'delete', cursor: maxId(fixtures.usage), tracked: 3, last_error: null, error_kind: null, quarantined: [] },
        { path: wal, exists: true, schema_version: 30, journal_mode: 'wal', cursor: maxId(wal), tracked: made.sessions, last_error: null, error_kind: null, quarantined: [] },
      ]);
      for (const x of s.stores) assert.match(String(x.last_tick_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const messages = 165 + [...storeHistoryCounts(wal).values()].reduce((a, b) => a + b, 0);
      assert.deepEqual({ sessions: s.rows.sessions, messages: s.rows.messages }, { sessions: 20 + made.sessions, messages });
      // Kept by the writer (row_counts, decision 0069), they are what counting every table gives.
      const counted = JSON.parse((await inProcess('query', `SELECT ${COUNTED_TABLES.map((t) => `(SELECT COUNT(*) FROM ${t}) AS ${t}`).join(', ')}`, '--home', h, '--json')).stdout) as Record<string, number>[];
      assert.deepEqual(s.rows, counted[0]);
      assert.ok(s.rows.parts! > 0 && s.rows.usage_ledger! > 0);
      // The same in words.
      const words = await hermetic('status', '--state-db', wal, '--home', h);
      assert.equal(words.status, 0);
      assert.match(words.stdout, new RegExp(`store ${wal} \\(profile default, sqlite backend\\)\\n  schema v30, wal journal\\n  identity: \\d+:\\d+\\|v30\\|\\S+\\n  cursor: message id ${maxId(wal)}, ${made.sessions} sessions tracked, last tick `));
      assert.match(words.stdout, /\n {2}pending: nothing, the dataset holds everything the store has\n/);
      assert.deepEqual(s.stores.map((x) => x.pending), s.stores.map(() => ({ sessions: 0, messages: 0, removed: 0, waiting: 0, undecodable: 0, delegations: 0, orphan_messages: 0, orphan_sessions: 0, oldest_at: null, lag_seconds: null })));
    });

    it('says what the dataset does not hold yet: sessions and messages to read, and how long the oldest change has waited', async () => {
      const h = home('status-pending');
      const path = buildStore('status-pending', (w, clock) => {
        w.createSession({ id: 'old', source: 'cli', started_at: clock.t });
        w.appendMessages('old', [{ role: 'user', content: 'one' }, { role: 'assistant', content: 'two', finish_reason: 'stop' }]);
      });
      assert.equal((await inProcess('backfill', '--state-db', path, '--home', h)).status, 0);
      // Hermes goes on: two messages in the session read before, a new session with one, a session deleted.
      const db = new Database(path);
      const w = new StateDbWriter(db, { now: () => 1_780_000_500, ids: createIdSource('status-pending-2') });
      w.appendMessages('old', [{ role: 'user', content: 'three' }, { role: 'assistant', content: 'four', finish_reason: 'stop' }]);
      db.close();
      const db2 = new Database(path);
      const w2 = new StateDbWriter(db2, { now: () => 1_780_000_900, ids: createIdSource('status-pending-3') });
      w2.createSession({ id: 'new', source: 'cli', started_at: 1_780_000_900 });
      w2.appendMessages('new', [{ role: 'user', content: 'hi' }]);
      db2.close();
      const r = await inProcess('status', '--state-db', path, '--home', h, '--json');
      assert.equal(r.status, 0, r.stderr);
      const p = (JSON.parse(r.stdout) as { stores: { pending: { sessions: number; messages: number; oldest_at: string; lag_seconds: number } }[] }).stores[0]!.pending;
      const lag = Math.round(Date.now() / 1000 - 1_780_000_500);
      assert.deepEqual({ ...p, lag_seconds: Math.abs(p.lag_seconds - lag) <= 5 }, { sessions: 2, messages: 3, removed: 0, waiting: 0, undecodable: 0, delegations: 0, orphan_messages: 0, orphan_sessions: 0, oldest_at: new Date(1_780_000_500_000).toISOString(), lag_seconds: true });
      const words = await inProcess('status', '--state-db', path, '--home', h);
      assert.match(words.stdout, /\n {2}pending: 2 sessions to read \(3 new messages\), the oldest change \d+ d( \d+ h)? ago \(2026-05-28T\d\d:\d\d:\d\d\.000Z\)\n/);
      // Read, nothing is pending.
      assert.equal((await inProcess('forward', '--once', '--state-db', path, '--home', h)).status, 0);
      const after = JSON.parse((await inProcess('status', '--state-db', path, '--home', h, '--json')).stdout) as { stores: { pending: unknown }[] };
      assert.deepEqual(after.stores[0]!.pending, { sessions: 0, messages: 0, removed: 0, waiting: 0, undecodable: 0, delegations: 0, orphan_messages: 0, orphan_sessions: 0, oldest_at: null, lag_seconds: null });
      // A field changed in place, with no new activity: a session to read again, but no change time to give.
      const pin = new Database(path);
      pin.prepare("UPDATE sessions SET pinned = 1 WHERE id = 'old'").run();
      pin.close();
      const pinned = JSON.parse((await inProcess('status', '--state-db', path, '--home', h, '--json')).stdout) as { stores: { pending: unknown }[] };
      assert.deepEqual(pinned.stores[0]!.pending, { sessions: 1, messages: 0, removed: 0, waiting: 0, undecodable: 0, delegations: 0, orphan_messages: 0, orphan_sessions: 0, oldest_at: null, lag_seconds: null });
      assert.match((await inProcess('status', '--state-db', path, '--home', h)).stdout, /\n {2}pending: 1 session to read \(0 new messages; changed in place, no new activity\)\n/);
      // Two background delegations dispatched from it: counted until a pass writes them.
      const db3 = new Database(path);
      const w3 = new StateDbWriter(db3, { now: () => 1_780_001_000, ids: createIdSource('status-pending-4') });
      for (const goal of ['read the logs', 'bisect the change']) dispatchDelegation(w3, { parent_session_id: 'old', origin_session_id: 'old', goals: [goal] });
      db3.close();
      const delegating = JSON.parse((await inProcess('status', '--state-db', path, '--home', h, '--json')).stdout) as { stores: { pending: { delegations: number } }[] };
      assert.equal(delegating.stores[0]!.pending.delegations, 2);
      assert.match((await inProcess('status', '--state-db', path, '--home', h)).stdout, /\n {2}pending: 1 session to read \(0 new messages; changed in place, no new activity\); 2 background delegations to write\n/);
      // The file replaced by a copy (a restore): another identity, read whole by the next pass.
      const before = (after.stores[0] as unknown as { identity: string }).identity;
      copyFileSync(path, `${path}.copy`);
      renameSync(`${path}.copy`, path);
      const replaced = JSON.parse((await inProcess('status', '--state-db', path, '--home', h, '--json')).stdout) as { stores: { identity: string; replaced: boolean; pending: { sessions: number; messages: number } }[] };
      const s0 = replaced.stores[0]!;
      assert.notEqual(s0.identity, before);
      assert.deepEqual([s0.replaced, s0.pending.sessions, s0.pending.messages], [true, 2, 5]);
      assert.match((await inProcess('status', '--state-db', path, '--home', h)).stdout, /\n {2}identity: \S+ \(replaced since it was last read: the next pass reads it whole\)\n/);
    });

    it('says a backup copied over the store in place is replaced before any pass, though only the time of its newest row tells', async () => {
      const h = home('status-restored');
      const t0 = 1_780_000_000;
      const path = buildStore('status-restored', (w) => {
        w.createSession({ id: 'chat', source: 'cli', started_at: t0 });
        w.appendMessages('chat', [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b', finish_reason: 'stop' }]);
      });
      const backup = `${path}.backup`;
      const hermes = (at: number, name: string, fn: (w: StateDbWriter) => void) => {
        const db = new Database(path);
        try {
          fn(new StateDbWriter(db, { now: () => at, ids: createIdSource(name) }));
        } finally {
          db.close();
        }
      };
      const copy = new Database(path);
      copy.exec(`VACUUM INTO '${backup}'`);
      copy.close();
      hermes(t0 + 10, 'status-restored-2', (w) => w.appendMessages('chat', [{ role: 'user', content: 'lost 1' }, { role: 'assistant', content: 'lost 2', finish_reason: 'stop' }]));
      assert.equal((await hermetic('backfill', '--state-db', path, '--home', h)).status, 0);
      type Status = { stores: { identity: string; replaced: boolean; cursor_max_message_id: number; pending: { sessions: number; messages: number } }[] };
      const status = async () => {
        const [json, words] = [await inProcess('status', '--state-db', path, '--home', h, '--json'), await inProcess('status', '--state-db', path, '--home', h)];
        assert.equal(json.status, 0, json.stderr);
        return { s: (JSON.parse(json.stdout) as Status).stores[0]!, words: words.stdout };
      };
      // Nothing restored: not replaced, neither as read nor after Hermes wrote on in place.
      const read = await status();
      assert.deepEqual([read.s.replaced, read.s.cursor_max_message_id, read.s.pending.sessions], [false, 4, 0]);
      assert.doesNotMatch(read.words, /replaced/);
      hermes(t0 + 20, 'status-restored-3', (w) => w.appendMessages('chat', [{ role: 'user', content: 'on' }]));
      const on = await status();
      assert.deepEqual([on.s.identity, on.s.replaced, on.s.pending.sessions, on.s.pending.messages], [read.s.identity, false, 1, 1]);
      assert.doesNotMatch(on.words, /replaced/);
      // `cp backup state.db`: the same inode and generation. Hermes goes on from it and gives ids 3 and 4 again, so the
      // id sequence is back at the newest id read and that row is the same session's: only its time is another.
      copyFileSync(backup, path);
      hermes(t0 + 30, 'status-restored-4', (w) => w.appendMessages('chat', [{ role: 'user', content: 'new 1' }, { role: 'assistant', content: 'new 2', finish_reason: 'stop' }]));
      const file = new Database(path, { readonly: true });
      assert.deepEqual([file.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'messages'").pluck().get(), file.prepare('SELECT session_id FROM messages WHERE id = 4').pluck().get()], [4, 'chat']);
      file.close();
      const restored = await status();
      assert.deepEqual([restored.s.identity, restored.s.replaced, restored.s.pending.sessions, restored.s.pending.messages], [read.s.identity, true, 1, 4]);
      assert.match(restored.words, /\n {2}identity: \S+ \(replaced since it was last read: the next pass reads it whole\)\n/);
      // The pass agrees, and reads the new messages at the reused ids; then nothing is replaced.
      assert.equal((await hermetic('forward', '--once', '--state-db', path, '--home', h)).status, 0);
      const q = JSON.parse((await hermetic('query', "SELECT content FROM messages WHERE session_id = 'chat' ORDER BY seq", '--home', h, '--json')).stdout) as { content: string }[];
      assert.deepEqual(q.map((m) => m.content), ['a', 'b', 'new 1', 'new 2']);
      const after = await status();
      assert.deepEqual([after.s.replaced, after.s.pending.sessions], [false, 0]);
      assert.doesNotMatch(after.words, /replaced/);
    });
  });

  describe('hermetic status, without a store or a dataset', () => {
    it('says why a store is missing, and gives the dataset path absolute even for a relative --home', async () => {
      const missing = join(dir, 'status-missing', 'state.db');
      const relative = join('.scratch', 'no-such-home-for-status');
      const r = await inProcess('status', '--state-db', missing, '--home', relative, '--json');
      assert.equal(r.status, 0, r.stderr);
      const s = JSON.parse(r.stdout) as { dataset: string; dataset_exists: boolean; stores: { exists: boolean; read_error: string | null; error_kind: string | null; last_error: string | null }[] };
      assert.equal(s.dataset, join(process.cwd(), relative, 'hermetic.db'));
      assert.deepEqual([s.dataset_exists, s.stores[0]!.exists, s.stores[0]!.read_error, s.stores[0]!.error_kind], [false, false, `${missing} does not exist (yet: forward waits for Hermes to create it)`, 'missing']);
      const words = await inProcess('status', '--state-db', missing, '--home', relative);
      assert.match(words.stdout, new RegExp(`^dataset: ${join(process.cwd(), relative, 'hermetic.db')} \\(not created yet; run hermetic backfill\\)\n`));
      assert.match(words.stdout, /\n {2}missing: .* does not exist \(yet: forward waits for Hermes to create it\)\n/);
    });

    it('a store read before and then removed is waited for again, not "yet"; one it cannot read says why on a line of its own', async () => {
      const h = home('status-gone');
      const path = buildStore('status-gone', (w, clock) => {
        w.createSession({ id: 'one', source: 'cli', started_at: clock.t });
        w.appendMessages('one', [{ role: 'user', content: 'hi' }]);
      });
      assert.equal((await inProcess('backfill', '--state-db', path, '--home', h)).status, 0);
      const cut = join(dir, 'status-cut.db');
      copyFileSync(path, cut);
      for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
      const gone = await inProcess('status', '--state-db', path, '--home', h);
      assert.match(gone.stdout, /\n {2}missing: .* does not exist \(it was read before: forward waits for it to come back\)\n/);
      // A store cut short after its first two pages: no schema or journal to show, and the reader's sentence once.
      truncateSync(cut, 8192);
      const junk = await inProcess('status', '--state-db', cut, '--home', h, '--json');
      const said = (JSON.parse(junk.stdout) as { stores: { path: string; read_error: string }[] }).stores.find((x) => x.path === cut)!.read_error;
      assert.ok(said.startsWith(`Cannot read ${cut}: `), said);
      const words = (await inProcess('status', '--state-db', cut, '--home', h)).stdout;
      assert.ok(words.includes(`\n  cannot read it: ${said.slice(`Cannot read ${cut}: `.length)}\n`), words);
      assert.doesNotMatch(words, /schema v\?|cannot read: Cannot read/);
      // The rows line fits 80 columns (piped), each item whole.
      const rows = words.slice(words.indexOf('rows: '), words.indexOf('\nstore ')).split('\n');
      assert.ok(rows.length > 1 && rows.every((l) => l.length <= 80) && rows.slice(1).every((l) => /^ {6}\S/.test(l)), rows.join('\n'));
      assert.match(rows.join(' '), /sessions 1, .*messages 1,/);
    });
  });

  describe('hermetic forget', () => {
    it('removes the sessions forwarded before their folder became ignore, and nothing else', async () => {
      const secret = join(dir, 'forget', 'secret');
      const open = join(dir, 'forget', 'open');
      mkdirSync(secret, { recursive: true });
      mkdirSync(open, { recursive: true });
      const ids: Record<string, string> = {};
      const store = buildStore('forget', (w, clock) => {
        for (const [name, cwd] of [['s1', secret], ['s2', secret], ['o1', open]] as const) {
          clock.t += 10;
          ids[name] = w.createSession({ source: 'cli', cwd });
          w.appendMessages(ids[name]!, [{ role: 'user', content: `hello from ${name}` }, { role: 'assistant', content: 'hi', finish_reason: 'stop' }]);
          w.updateTokenCounts(ids[name]!, { input_tokens: 10, output_tokens: 2, model: 'gpt-5' });
        }
      });
      const h = home('forget');
      assert.equal((await inProcess('backfill', '--state-db', store, '--home', h)).status, 0);
      // Before the folder is ignored there is nothing to forget: refused, nothing removed.
      const early = await inProcess('forget', '--scope', secret, '--home', h);
      assert.equal(early.status, 2);
      assert.match(early.stderr, /hermetic: None of the 2 sessions under .* is ignored by the usage policy now; nothing was removed/);
      writeFileSync(join(secret, '.hypignore'), 'ignore\n');
      const r = await inProcess('forget', '--scope', secret, '--home', h);
      assert.deepEqual(r, { status: 0, stderr: '', stdout: 'forget: 2 sessions removed (4 messages, 4 parts, with their usage and issues).\n' });
      const left = JSON.parse((await inProcess('query', 'SELECT session_id, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.session_id) AS messages, (SELECT COUNT(*) FROM usage_events e WHERE e.session_id = s.session_id) AS events FROM sessions s', '--home', h, '--json')).stdout) as unknown[];
      assert.deepEqual(left, [{ session_id: ids.o1, messages: 2, events: 1 }]);
      const gone = JSON.parse((await inProcess('query', `SELECT (SELECT COUNT(*) FROM messages WHERE session_id != '${ids.o1}') + (SELECT COUNT(*) FROM parts WHERE session_id != '${ids.o1}') + (SELECT COUNT(*) FROM usage_events WHERE session_id != '${ids.o1}') + (SELECT COUNT(*) FROM model_usage WHERE session_id != '${ids.o1}') AS n`, '--home', h, '--json')).stdout) as unknown[];
      assert.deepEqual(gone, [{ n: 0 }]);
      // A session that is not ignored is named and kept; the next passes do not bring the forgotten ones back.
      const kept = await inProcess('forget', '--session', ids.o1!, '--home', h);
      assert.equal(kept.status, 2);
      assert.match(kept.stderr, new RegExp(`^hermetic: session ${ids.o1} kept: no .hypignore above .* \\(only what the usage policy ignores now is forgotten\\)\n`));
      assert.match(kept.stderr, /nothing was removed \(put "ignore" in a \.hypignore above it first\)\. \[HERMETIC_FORGET_NONE\]\n$/);
      assert.equal((await inProcess('backfill', '--state-db', store, '--home', h)).status, 0);
      assert.deepEqual(JSON.parse((await inProcess('query', 'SELECT COUNT(*) AS n FROM sessions', '--home', h, '--json')).stdout), [{ n: 1 }]);
      const nothing = await inProcess('forget', '--scope', secret, '--home', h);
      // The command line was right: no pointer at the options under the sentence that says what happened.
      assert.deepEqual(nothing, { status: 2, stdout: '', stderr: `hermetic: No forwarded session under ${secret}; nothing was removed. [HERMETIC_FORGET_NONE]\n` });
      // An id as typed, shown harmless: a line break or an escape sequence is shown as such, not acted on.
      const odd = await inProcess('forget', '--session', 'a\nb\u001b[31m', '--home', h);
      assert.deepEqual(odd, { status: 2, stdout: '', stderr: 'hermetic: No forwarded session with id a⏎b␛[31m; nothing was removed. [HERMETIC_FORGET_NONE]\n' });
      const both = await inProcess('forget', '--scope', secret, '--session', 'x', '--home', h);
      assert.deepEqual(both, { status: 2, stdout: '', stderr: refusal('forget', 'forget needs one of --session ID (repeatable), --scope DIR or --store PATH (repeatable).', 'HERMETIC_CLI_USAGE') });
      // --store: every row read from the store goes, whatever the policy says; then it is no store of the dataset.
      const whole = await inProcess('forget', '--store', store, '--home', h);
      assert.deepEqual(whole, { status: 0, stderr: '', stdout: `forget: store ${store} removed (1 session, 2 messages, 2 parts, with their usage, issues and cursors).\n` });
      assert.deepEqual(JSON.parse((await inProcess('query', 'SELECT (SELECT COUNT(*) FROM sessions) + (SELECT COUNT(*) FROM stores) + (SELECT COUNT(*) FROM session_cursors) AS n', '--home', h, '--json')).stdout), [{ n: 0 }]);
      const again = await inProcess('forget', '--store', store, '--home', h);
      assert.deepEqual(again, { status: 2, stdout: '', stderr: `hermetic: The dataset holds no store ${store} (it holds none); nothing was removed. [HERMETIC_FORGET_NONE]\n` });
      const mixed = await inProcess('forget', '--store', store, '--state-db', store, '--home', h);
      assert.deepEqual(mixed, { status: 2, stdout: '', stderr: refusal('forget', 'forget --store names the stores itself; leave out --state-db.', 'HERMETIC_CLI_USAGE') });
    });
  });

  describe('a usage-policy list that cannot be read', () => {
    it('stops backfill and forward before any store, also with nothing new, says why, and status shows it', async () => {
      const store = buildStore('policy-broken', (w) => {
        const id = w.createSession({ source: 'cli', cwd: '/work' });
        w.appendMessages(id, [{ role: 'user', content: 'hi' }]);
      });
      const h = home('policy-broken');
      assert.equal((await inProcess('backfill', '--state-db', store, '--home', h)).status, 0);
      mkdirSync(join(h, 'usage-policy'), { recursive: true });
      const list = join(h, 'usage-policy', 'local-only.json');
      writeFileSync(list, '{ bad');
      const said = new RegExp(`^hermetic: The usage-policy list ${list.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .* \\[HERMETIC_POLICY_LIST\\]\n$`);
      // Nothing changed in the store: still refused, not "nothing new".
      for (const argv of [['backfill'], ['forward', '--once']]) {
        const r = await inProcess(...argv, '--state-db', store, '--home', h);
        assert.equal(r.status, 1, argv.join(' '));
        assert.match(r.stderr, said, argv.join(' '));
        assert.equal(r.stdout, '');
      }
      const status = await inProcess('status', '--state-db', store, '--home', h, '--json');
      assert.match((JSON.parse(status.stdout) as { usage_policy_error: string }).usage_policy_error, /^The usage-policy list .* \[HERMETIC_POLICY_LIST\]$/);
      assert.match((await inProcess('status', '--state-db', store, '--home', h)).stdout, /\nusage policy: The usage-policy list .*; nothing is forwarded until it is fixed\n/);
      // Mended, it goes on.
      writeFileSync(list, JSON.stringify({ version: 2, entries: [] }));
      assert.equal((await inProcess('forward', '--once', '--state-db', store, '--home', h)).status, 0);
      assert.equal((JSON.parse((await inProcess('status', '--state-db', store, '--home', h, '--json')).stdout) as { usage_policy_error: null }).usage_policy_error, null);
    });
  });

  describe('hermetic forget (every scope, as forward judges it)', () => {
    it('a session handed off to an ignored channel, and a delegate of an ignored folder, are forgotten as forward would drop them', async () => {
      mkdirSync(join(dir, 'forget-scopes'), { recursive: true });
      const secret = join(dir, 'forget-scopes', 'secret');
      const open = join(dir, 'forget-scopes', 'open');
      mkdirSync(secret, { recursive: true });
      mkdirSync(open, { recursive: true });
      const ids: Record<string, string> = {};
      const store = buildStore('forget-scopes/state', (w) => {
        ids.handed = w.createSession({ source: 'cli', cwd: open });
        w.updateSession(ids.handed, { handoff_platform: 'telegram', handoff_state: 'completed' });
        ids.parent = w.createSession({ source: 'cli', cwd: secret });
        ids.child = w.createSession({ source: 'subagent', parent_session_id: ids.parent, model_config: { _delegate_from: ids.parent } });
        ids.plain = w.createSession({ source: 'cli', cwd: open });
        for (const id of Object.values(ids)) w.appendMessages(id, [{ role: 'user', content: `hello ${id}` }]);
      });
      const h = home('forget-scopes');
      assert.equal((await inProcess('backfill', '--state-db', store, '--home', h)).status, 0);
      const channel = join(dir, 'forget-scopes', 'channels', 'telegram');
      mkdirSync(channel, { recursive: true });
      writeFileSync(join(channel, '.hypignore'), 'ignore\n');
      writeFileSync(join(secret, '.hypignore'), 'ignore\n');
      // By its own folder it is open, but the channel it was handed to ignores it: forgotten by id and by the channel.
      const byId = await inProcess('forget', '--session', ids.handed!, '--home', h);
      assert.deepEqual(byId, { status: 0, stderr: '', stdout: 'forget: 1 session removed (1 message, 1 part, with their usage and issues).\n' });
      // The delegate inherits its parent's folder: forgotten with it, by that folder.
      const bySecret = await inProcess('forget', '--scope', secret, '--home', h, '--json');
      assert.equal(bySecret.status, 0);
      assert.deepEqual((JSON.parse(bySecret.stdout) as { forgotten: { sessionId: string }[] }).forgotten.map((f) => f.sessionId).sort(), [ids.child, ids.parent].sort());
      // What is left is what forward would write: a pass brings nothing back, and nothing else was removed.
      assert.equal((await inProcess('forward', '--once', '--state-db', store, '--home', h)).status, 0);
      assert.deepEqual(JSON.parse((await inProcess('query', 'SELECT session_id FROM sessions', '--home', h, '--json')).stdout), [{ session_id: ids.plain }]);
    });
  });

  describe('hermetic forget (a folder that is gone)', () => {
    it('--scope takes a folder that no longer exists, when the machine\'s list ignores it; a file is still refused', async () => {
      const gone = join(dir, 'forget-gone', 'project');
      mkdirSync(gone, { recursive: true });
      let id = '';
      const store = buildStore('forget-gone', (w) => {
        id = w.createSession({ source: 'cli', cwd: gone });
        w.appendMessages(id, [{ role: 'user', content: 'hello' }]);
      });
      const h = home('forget-gone');
      assert.equal((await inProcess('backfill', '--state-db', store, '--home', h)).status, 0);
      rmSync(gone, { recursive: true });
      mkdirSync(join(h, 'usage-policy'), { recursive: true });
      writeFileSync(join(h, 'usage-policy', 'local-only.json'), JSON.stringify({ version: 2, entries: [{ dir: gone, class: 'ignore' }] }));
      const r = await inProcess('forget', '--scope', gone, '--home', h);
      assert.deepEqual(r, { status: 0, stderr: '', stdout: 'forget: 1 session removed (1 message, 1 part, with their usage and issues).\n' });
      const file = join(dir, 'forget-gone', 'a-file');
      writeFileSync(file, 'x');
      const refused = await inProcess('forget', '--scope', file, '--home', h);
      assert.equal(refused.status, 2);
      assert.match(refused.stderr, /is a file, not a folder/);
    });
  });

  describe('hermetic forward', () => {
    it('says the sessions a changed usage policy moved, to local-only and back to full, in words and in --json (decision 0143)', async () => {
      const secret = join(dir, 'moves', 'secret');
      const open = join(dir, 'moves', 'open');
      mkdirSync(secret, { recursive: true });
      mkdirSync(open, { recursive: true });
      const store = buildStore('moves/state', (w) => {
        for (const cwd of [secret, secret, secret, open]) w.appendMessages(w.createSession({ source: 'cli', cwd }), [{ role: 'user', content: 'hello' }]);
      });
      let other = '';
      const otherStore = buildStore('moves/other', (w) => {
        other = w.createSession({ source: 'cli', cwd: secret });
        w.appendMessages(other, [{ role: 'user', content: 'hello' }]);
      });
      const h = home('moves');
      const policies = async () => JSON.parse((await inProcess('query', 'SELECT policy, COUNT(*) AS n FROM sessions GROUP BY policy ORDER BY policy', '--home', h, '--json')).stdout) as unknown;
      assert.equal((await inProcess('backfill', '--state-db', store, '--state-db', otherStore, '--home', h)).status, 0);
      // Nothing moved: nothing said of it, and the fields are 0.
      assert.deepEqual(await inProcess('forward', '--once', '--state-db', store, '--state-db', otherStore, '--home', h), {
        status: 0, stdout: '', stderr: 'forward: default: nothing new (4 sessions up to date)\nforward: default: nothing new (1 session up to date)\n' });
      const still = await inProcess('forward', '--once', '--json', '--state-db', store, '--home', h);
      assert.deepEqual(lines(still.stdout).map((l) => [l.event, l.moved_to_local_only, l.moved_to_full]), [['hermes.poll_tick', 0, 0]]);
      const quiet = JSON.parse((await inProcess('backfill', '--json', '--state-db', store, '--home', h)).stdout) as Summary & Record<string, unknown>;
      assert.deepEqual([quiet.wrote_nothing, quiet.moved_to_local_only, quiet.moved_to_full], [true, 0, 0]);

      writeFileSync(join(secret, '.hypignore'), 'local-only\n');
      const moved = await inProcess('forward', '--once', '--state-db', store, '--home', h);
      // The other store, not read by this tick, had its session moved too: said by its path.
      assert.deepEqual(moved, { status: 0, stdout: '', stderr: `forward: default: 3 sessions moved to local-only by the usage policy\nforward: ${otherStore}: 1 session moved to local-only by the usage policy (a store this tick did not read)\n` });
      assert.deepEqual(await policies(), [{ policy: 'full', n: 1 }, { policy: 'local-only', n: 4 }]);

      rmSync(join(secret, '.hypignore'));
      const back = await inProcess('forward', '--once', '--json', '--state-db', store, '--home', h);
      assert.equal(back.status, 0);
      assert.deepEqual(lines(back.stdout).map((l) => [l.event, l.store, l.sessions_written, l.moved_to_local_only, l.moved_to_full]), [
        ['hermes.poll_tick', store, 0, 0, 3],
        ['hermetic.policy_moves', otherStore, undefined, 0, 1],
      ]);

      writeFileSync(join(secret, '.hypignore'), 'local-only\n');
      const words = await inProcess('backfill', '--state-db', store, '--state-db', otherStore, '--home', h);
      assert.deepEqual(words, { status: 0, stderr: '', stdout: `backfill: 4 sessions moved to local-only by the usage policy; nothing new to write (5 sessions unchanged) → ${h}/hermetic.db\n` });
      rmSync(join(secret, '.hypignore'));
      // One store read: the other store's move is in the pass's totals, not in a store of its own.
      const json = JSON.parse((await inProcess('backfill', '--json', '--state-db', store, '--home', h)).stdout) as Summary & Record<string, unknown>;
      assert.deepEqual([json.wrote_nothing, json.moved_to_local_only, json.moved_to_full, json.stores.map((s) => [(s as Record<string, unknown>).moved_to_local_only, (s as Record<string, unknown>).moved_to_full])], [false, 0, 4, [[0, 3]]]);
      assert.deepEqual(await policies(), [{ policy: 'full', n: 5 }]);
    });

    it('--once exits 0 when it read every store, 1 when one is missing, 2 for a bad --interval', async () => {
      const [ok, missing, bad, again] = await Promise.all([
        hermetic('forward', '--once', '--state-db', fixtures.usage, '--home', home('once')),
        hermetic('forward', '--once', '--state-db', join(dir, 'gone.db'), '--home', home('once-missing')),
        hermetic('forward', '--once', '--interval', '10ms', '--state-db', fixtures.usage, '--home', home('once-bad')),
        inProcess('forward', '--once', '--interval', 'often', '--state-db', fixtures.usage, '--home', home('once-bad')),
      ]);
      assert.deepEqual(ok, { status: 0, stdout: '', stderr: 'forward: default: 3 sessions written (21 new messages, 30 new parts)\n' });
      // With --json on a fresh home the sessions are new, not rewritten.
      const fresh = await inProcess('forward', '--once', '--json', '--state-db', fixtures.usage, '--home', home('once-json'));
      assert.deepEqual(lines(fresh.stdout).map((l) => [l.event, l.sessions_written, l.sessions_appended, l.sessions_rewritten, l.sessions_new]), [['hermes.poll_tick', 3, 0, 0, 3]]);
      // Nothing waits in one pass: the store is said missing as backfill says it (HERMETIC_READER_PATH).
      assert.deepEqual(missing, { status: 1, stdout: '', stderr: `hermetic: ${join(dir, 'gone.db')} does not exist; nothing was read [HERMETIC_READER_PATH]\n` });
      assert.deepEqual(bad, { status: 2, stdout: '', stderr: refusal('forward', '--interval must be a duration from 50ms to 24h such as 10s or 1m; got "10ms".', 'HERMETIC_CLI_USAGE') });
      assert.deepEqual(again, { status: 2, stdout: '', stderr: refusal('forward', '--interval must be a duration from 50ms to 24h such as 10s or 1m; got "often".', 'HERMETIC_CLI_USAGE') });
      const [second, words] = await Promise.all([
        hermetic('forward', '--once', '--state-db', fixtures.usage, '--home', home('once'), '--json'),
        inProcess('forward', '--once', '--state-db', fixtures.usage, '--home', home('once')),
      ]);
      assert.equal(second.status, 0);
      assert.deepEqual(second.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { sessions_written: number; error: unknown }).sessions_written), [0]);
      // An unchanged tick says so, in words.
      assert.deepEqual(words, { status: 0, stdout: '', stderr: 'forward: default: nothing new (3 sessions up to date)\n' });
    });

    it('on a missing store says once that it waits, then reads the store when it appears; SIGTERM stops it with exit 0', async () => {
      const later = join(dir, 'later');
      mkdirSync(later);
      const store = join(later, 'state.db');
      const h = home('waits');
      const fwd = spawnHermetic(['forward', '--state-db', store, '--home', h, '--interval', '100ms'], { env });
      try {
        assert.ok(await fwd.line(/waiting for it to appear/), fwd.stderr());
        await sleep(1000); // about ten more ticks on the missing store (fewer on a busy machine: the line is still said once)
        const waiting = () => fwd.stderr().split('\n').filter((l) => l.includes('waiting for it to appear'));
        assert.deepEqual(waiting(), [`hermetic: ${store} does not exist; waiting for it to appear [HERMETIC_READER_PATH]`]);
        const made = generate({ out: store, sessions: 5, messages: 40, seed: 'appears', journal: 'wal' });
        const written = await Promise.race([fwd.line(/^forward: default: \d+ sessions? written/), sleep(DEADLINE_MS, null, { ref: false })]);
        assert.match(written ?? '', new RegExp(`^forward: default: ${made.sessions} sessions written \\(${[...storeHistoryCounts(store).values()].reduce((a, b) => a + b, 0)} new messages, \\d+ new parts\\)$`));
        fwd.child.kill('SIGTERM');
        const { code } = await fwd.exited;
        assert.equal(code, 0);
        const lines = fwd.stderr().trimEnd().split('\n');
        assert.deepEqual(lines, [
          `forward: reading ${store} every 100ms into ${h}/hermetic.db; Ctrl-C stops`,
          `hermetic: ${store} does not exist; waiting for it to appear [HERMETIC_READER_PATH]`,
          `hermetic: reading ${store} again`,
          written,
          'forward: stopped',
        ]);
        assert.equal(fwd.stdout(), '');
      } finally {
        fwd.child.kill('SIGKILL');
        stderrSeen.push(fwd.stderr());
      }
    });
  });

  describe('hermetic forward --json (decision 0052)', () => {
    it('a missing store: one hermes.source_idle however many ticks pass, then hermes.source_activated and its hermes.poll_tick when it appears', async () => {
      const steady = join(dir, 'json-steady', 'state.db');
      mkdirSync(join(dir, 'json-steady'));
      const made0 = generate({ out: steady, sessions: 3, messages: 20, seed: 'json-steady', journal: 'wal' });
      mkdirSync(join(dir, 'json-later'));
      const later = join(dir, 'json-later', 'state.db');
      const fwd = spawnHermetic(['forward', '--json', '--state-db', steady, '--state-db', later, '--home', home('json-waits'), '--interval', '100ms'], { env });
      try {
        const of = (store: string) => lines(fwd.stdout()).filter((l) => l.store === store);
        // Five ticks of the steady store: five ticks with the other one missing.
        await waitFor(() => of(steady).length >= 5, 'five ticks');
        const idle = of(later);
        assert.deepEqual(idle, [{
          event: 'hermes.source_idle', at: idle[0]!.at, store: later, profile: 'default', backend: 'sqlite',
          error: { code: 'HERMETIC_READER_PATH', message: `${later} does not exist` }, error_kind: 'missing', removed: false,
        }]);
        const made = generate({ out: later, sessions: 4, messages: 30, seed: 'json-later', journal: 'wal' });
        await waitFor(() => of(later).some((l) => l.event === 'hermes.poll_tick'), 'the store read');
        await waitFor(() => of(later).length >= 4, 'another tick of it');
        fwd.child.kill('SIGTERM');
        assert.equal((await fwd.exited).code, 0, fwd.stderr());
        const seen = of(later);
        assert.deepEqual(seen.map((l) => l.event), ['hermes.source_idle', 'hermes.source_activated', ...seen.slice(2).map(() => 'hermes.poll_tick')]);
        assert.deepEqual(seen[1], { event: 'hermes.source_activated', at: seen[1]!.at, store: later, profile: 'default', backend: 'sqlite', schema_version: 30, journal_mode: 'wal' });
        const messages = [...storeHistoryCounts(later).values()].reduce((a, b) => a + b, 0);
        assert.deepEqual(seen.slice(2).map((l) => [l.sessions_written, l.messages, l.error, l.error_kind]), [[made.sessions, messages, null, null], ...seen.slice(3).map(() => [0, 0, null, null])]);
        // The steady store was there from the start: ticks only, its sessions written by the first.
        const ticks = of(steady);
        assert.deepEqual(ticks.map((l) => [l.event, l.sessions_written, l.error_kind]), ticks.map((_, i) => ['hermes.poll_tick', i === 0 ? made0.sessions : 0, null]));
      } finally {
        fwd.child.kill('SIGKILL');
        stderrSeen.push(fwd.stderr());
      }
    });

    it('a profile removed under a running forward: said once in words and as hermes.source_idle with removed, then read again when back (decision 0104)', async () => {
      // A user home of its own: forward finds ~/.hermes/state.db and its profile by discovery, as it runs for people.
      const user = join(dir, 'removed-user');
      const hermes = join(user, '.hermes');
      const main = join(hermes, 'state.db');
      const work = join(hermes, 'profiles', 'work', 'state.db');
      mkdirSync(join(hermes, 'profiles', 'work'), { recursive: true });
      generate({ out: main, sessions: 2, messages: 10, seed: 'removed-main', journal: 'wal' });
      generate({ out: work, sessions: 3, messages: 10, seed: 'removed-work', journal: 'wal' });
      const fwd = spawnHermetic(['forward', '--json', '--home', home('removed'), '--interval', '100ms'], { env: { ...env, HOME: user } });
      try {
        const of = (store: string) => lines(fwd.stdout()).filter((l) => l.store === store);
        await waitFor(() => of(work).some((l) => l.event === 'hermes.poll_tick'), 'the profile read');
        rmSync(join(hermes, 'profiles', 'work'), { recursive: true });
        await waitFor(() => of(work).some((l) => l.event === 'hermes.source_idle'), 'the profile said gone');
        // Five more ticks of the home's store with the profile gone: still one line for it.
        const ticks = of(main).length;
        await waitFor(() => of(main).length >= ticks + 5, 'five more ticks');
        const idle = of(work).filter((l) => l.event !== 'hermes.poll_tick');
        assert.deepEqual(idle, [{
          event: 'hermes.source_idle', at: idle[0]!.at, store: work, profile: 'work', backend: 'sqlite',
          error: { code: 'HERMETIC_READER_PATH', message: `${work} was removed after this forwarder read it` }, error_kind: 'missing', removed: true,
        }]);
        mkdirSync(join(hermes, 'profiles', 'work'));
        generate({ out: work, sessions: 4, messages: 10, seed: 'removed-work-again', journal: 'wal' });
        await waitFor(() => of(work).filter((l) => l.event === 'hermes.poll_tick').length >= 2 && of(work).at(-1)!.event === 'hermes.poll_tick', 'the profile read again');
        fwd.child.kill('SIGTERM');
        assert.equal((await fwd.exited).code, 0, fwd.stderr());
        const seen = of(work).map((l) => l.event);
        const back = seen.indexOf('hermes.source_activated');
        assert.deepEqual(seen.slice(0, back + 2).filter((e, i, all) => e !== all[i - 1] || e !== 'hermes.poll_tick'), ['hermes.poll_tick', 'hermes.source_idle', 'hermes.source_activated', 'hermes.poll_tick']);
        assert.equal(of(work)[back + 1]!.sessions_written, 4, 'the new file read whole');
        assert.deepEqual(fwd.stderr().trimEnd().split('\n').slice(1), [
          `hermetic: ${work} was removed after this forwarder read it; waiting for it to come back [HERMETIC_READER_PATH]`,
          `hermetic: reading ${work} again`,
          'forward: stopped',
        ]);
      } finally {
        fwd.child.kill('SIGKILL');
        stderrSeen.push(fwd.stderr());
      }
    });

    it('a store a writer keeps locked is hermes.poll_failed with sqlite_busy; one that is not SQLite with open_failed (--once exits 1)', async () => {
      mkdirSync(join(dir, 'json-busy'));
      const busy = join(dir, 'json-busy', 'state.db');
      generate({ out: busy, sessions: 2, messages: 10, seed: 'json-busy', journal: 'delete' });
      const bad = join(dir, 'json-not-sqlite.db');
      writeFileSync(bad, 'x'.repeat(200));
      const writer = new Database(busy);
      writer.exec('BEGIN EXCLUSIVE');
      let r: Run;
      try {
        // The reader waits out its busy timeout on the lock (each of its three tries), which is held until the run ends.
        r = await hermetic('forward', '--once', '--json', '--state-db', busy, '--state-db', bad, '--home', home('json-busy'));
      } finally {
        writer.exec('ROLLBACK');
        writer.close();
      }
      assert.equal(r.status, 1, r.stderr);
      const [locked, notSqlite, ...rest] = lines(r.stdout);
      assert.deepEqual(rest, []);
      assert.deepEqual([locked!.event, locked!.store, locked!.error_kind, locked!.sessions_written], ['hermes.poll_failed', busy, 'sqlite_busy', 0]);
      // Met while opening, the lock is tried again as one met while reading, then said as the writer's.
      const lockError = locked!.error as { code: string; message: string };
      assert.deepEqual([lockError.code, lockError.message], ['HERMETIC_READER_BUSY', `${busy} stayed locked by a Hermes writer: database is locked.`]);
      assert.deepEqual([notSqlite!.event, notSqlite!.store, notSqlite!.error, notSqlite!.error_kind], [
        'hermes.poll_failed', bad, { code: 'HERMETIC_READER_OPEN', message: `${bad} is not a SQLite database (it does not start with SQLite's header).` }, 'open_failed',
      ]);
    });

    it('a profile on the PostgreSQL backend without a connection is backend; a dataset from a newer Hermetic stops the tick as dataset', async () => {
      const pg = join(dir, 'json-pg');
      mkdirSync(pg);
      writeFileSync(join(pg, 'config.yaml'), 'database:\n  backend: postgres\n');
      const newer = home('json-newer');
      mkdirSync(newer, { recursive: true });
      const db = new Database(join(newer, 'hermetic.db'));
      db.pragma('user_version = 999');
      db.close();
      const { HERMES_DATABASE_URL: _, ...noUrl } = env;
      const run = async (...args: string[]) => {
        const h = spawnHermetic(args, { env: noUrl });
        const { code } = await h.exited;
        stderrSeen.push(h.stderr());
        return { status: code, stdout: h.stdout(), stderr: h.stderr() };
      };
      const [backend, dataset] = await Promise.all([
        run('forward', '--once', '--json', '--state-db', pg, '--home', home('json-pg')),
        run('forward', '--once', '--json', '--state-db', fixtures.usage, '--home', newer),
      ]);
      assert.equal(backend.status, 1);
      assert.deepEqual(lines(backend.stdout).map((l) => [l.event, l.store, (l.error as { code: string }).code, l.error_kind]), [['hermes.poll_failed', join(pg, 'state.db'), 'HERMETIC_READER_PG_CONFIG', 'backend']]);
      assert.equal(dataset.status, 1);
      const message = `${join(newer, 'hermetic.db')} is at dataset version 999, newer than this Hermetic's ${DATASET_VERSION}; upgrade Hermetic to use it.`;
      assert.deepEqual(lines(dataset.stdout).map((l) => ({ ...l, at: 0 })), [{ event: 'hermes.poll_failed', at: 0, store: null, profile: null, error: { code: 'HERMETIC_DATASET_VERSION', message }, error_kind: 'dataset' }]);
      assert.equal(dataset.stderr, `hermetic: ${message} [HERMETIC_DATASET_VERSION]\n`);
    });
  });

  describe('hermetic policy check', () => {
    it('names the class, the governing .hypignore and why, in words and in JSON', async () => {
      const project = join(dir, 'project');
      mkdirSync(join(project, 'src', 'deep'), { recursive: true });
      writeFileSync(join(project, '.hypignore'), '# kept on this machine\nlocal-only  # synced elsewhere\n');
      const target = join(project, 'src', 'deep');
      const [words, json, free, none] = await Promise.all([
        hermetic('policy', 'check', target, '--home', home('policy')),
        hermetic('policy', 'check', target, '--home', home('policy'), '--json'),
        hermetic('policy', 'check', join(dir, 'fixtures'), '--home', home('policy')),
        hermetic('policy', 'check', '--home', home('policy')),
      ]);
      assert.deepEqual(words, {
        status: 0, stderr: '',
        stdout: [
          'class: local-only', `scope: ${target}`, `governing file: ${project}/.hypignore`, 'declared token: local-only', 'list entry: none',
          `reason: ${project}/.hypignore says local-only`, '',
        ].join('\n'),
      });
      assert.deepEqual(JSON.parse(json.stdout), { class: 'local-only', scope: target, governingFile: `${project}/.hypignore`, declared: 'local-only', listEntry: null, clamped: false, reason: `${project}/.hypignore says local-only` });
      assert.equal(free.status, 0);
      assert.match(free.stdout, /^class: full\n/);
      assert.deepEqual(none, { status: 2, stdout: '', stderr: refusal('policy', 'policy check needs exactly one PATH (a folder).', 'HERMETIC_CLI_USAGE') });
      // An empty PATH is not the current folder.
      assert.deepEqual(await inProcess('policy', 'check', '', '--home', home('policy')), { status: 2, stdout: '', stderr: refusal('policy', 'policy check PATH must not be empty; give a folder (. for the current one).', 'HERMETIC_CLI_USAGE') });
      // A folder that is not there is refused, never judged `full`.
      const [gone, file] = await Promise.all([
        inProcess('policy', 'check', join(dir, 'nonexistent'), '--home', home('policy')),
        inProcess('policy', 'check', join(project, '.hypignore'), '--home', home('policy')),
      ]);
      assert.deepEqual(gone, { status: 2, stdout: '', stderr: refusal('policy', `${join(dir, 'nonexistent')} does not exist; give a folder (a session's working directory or a scope).`, 'HERMETIC_POLICY_PATH') });
      assert.deepEqual(file, { status: 2, stdout: '', stderr: refusal('policy', `${join(project, '.hypignore')} is a file, not a folder; give the folder a session ran in.`, 'HERMETIC_POLICY_PATH') });
      // Flags before the command read as flags, not as the command.
      const early = await inProcess('policy', '--home', home('policy'), 'check', target);
      assert.deepEqual([early.status, early.stdout], [0, words.stdout]);
    });
  });

  describe('--redact', () => {
    it('stores a secret masked by Hermes\'s redactor; without it the text is kept as Hermes wrote it', async () => {
      const secret = `sk-ant-api03-${'QwErTyUiOpAsDfGhJkLzXcVbNm'.repeat(2).slice(0, 42)}`;
      let sessionId = '';
      const store = buildStore('secret', (w, clock) => {
        sessionId = w.createSession({ source: 'cli', model: 'claude-sonnet-4' });
        clock.t += 5;
        w.appendMessages(sessionId, [
          { role: 'user', content: `my key is ${secret} please keep it` },
          { role: 'assistant', content: 'Noted.', finish_reason: 'stop' },
        ]);
      });
      const [masked, plain] = await Promise.all([
        hermetic('backfill', '--state-db', store, '--home', home('redacted'), '--redact'),
        inProcess('backfill', '--state-db', store, '--home', home('plain')),
      ]);
      assert.deepEqual([masked.status, plain.status], [0, 0]);
      const sql = `SELECT m.content, p.content_text FROM messages m JOIN parts p ON p.store = m.store AND p.message_id = m.message_id WHERE m.session_id = '${sessionId}' AND m.role = 'user'`;
      const [redacted, kept] = await Promise.all([inProcess('query', sql, '--home', home('redacted'), '--json'), inProcess('query', sql, '--home', home('plain'), '--json')]);
      const mask = `sk-ant...${secret.slice(-4)}`;
      assert.deepEqual(JSON.parse(redacted.stdout), [{ content: `my key is ${mask} please keep it`, content_text: `my key is ${mask} please keep it` }]);
      assert.deepEqual(JSON.parse(kept.stdout), [{ content: `my key is ${secret} please keep it`, content_text: `my key is ${secret} please keep it` }]);
      const anywhere = await inProcess('query', `SELECT COUNT(*) AS n FROM parts WHERE content_text LIKE '%${secret}%'`, '--home', home('redacted'), '--json');
      assert.deepEqual(JSON.parse(anywhere.stdout), [{ n: 0 }]);
    });

    it('a dataset once written with --redact stays redacted: a later forward without the flag masks the new text too', async () => {
      const secret = `sk-proj-${'AbCdEfGhIjKlMnOpQrSt'.repeat(2)}`;
      const path = join(dir, 'redact-later.db');
      const db = createStore({ path, level: LATEST_LEVEL, journal: 'wal' });
      const clock = { t: 1_780_000_000 };
      const w = new StateDbWriter(db, { now: () => clock.t, ids: createIdSource('redact-later') });
      try {
        const id = w.createSession({ source: 'cli', model: 'gpt-5' });
        w.appendMessages(id, [{ role: 'user', content: `run 1 ${secret}` }]);
        assert.equal((await inProcess('backfill', '--state-db', path, '--home', home('redact-later'), '--redact')).status, 0);
        clock.t += 60;
        w.appendMessages(id, [{ role: 'user', content: `run 2 ${secret}` }]);
        assert.equal((await inProcess('forward', '--once', '--state-db', path, '--home', home('redact-later'))).status, 0);
      } finally {
        db.close();
      }
      const rows = await inProcess('query', "SELECT content FROM messages ORDER BY seq", '--home', home('redact-later'), '--json');
      const mask = `sk-pro...${secret.slice(-4)}`;
      assert.deepEqual(JSON.parse(rows.stdout), [{ content: `run 1 ${mask}` }, { content: `run 2 ${mask}` }]);
    });
  });
});
