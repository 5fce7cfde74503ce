// `--by command` (decision 0149) over a store whose terminal calls take every shape: assignments, `cd DIR &&`, sudo,
// pipes, a quoted program, an empty command, one that is not text, arguments that are no JSON object, a result without
// its call, an id used twice; failures judged as `--by tool` judges them, times from call to result; every grouping
// and window adds up to the terminal's calls; JSON, CSV, Markdown and the terminal table; the refusals.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ToolCall } from '../../state-db/writer/types.js';
import { printed } from '../../shared/testing/console.js';
import { reportCommand } from '../cli/report.js';
import { hermesStore, forwarderRig } from '../testing/index.js';
import { postgresDialect } from './dialect.js';
import { renderCsv, renderMarkdown, renderTable, usageReport, type ReportRequest, type UsageReport } from './index.js';
import { COMMAND_FIGURES, MEASURES, planReport } from './query.js';
import { Zone } from '../ledger/zone.js';
import { formatSeconds } from './render.js';

const T0 = Date.UTC(2026, 5, 10, 9) / 1000; // Wednesday 2026-06-10 09:00 UTC
const T1 = T0 + 86400 + 3600; // Thursday 10:00
const T2 = T1 + 7200; // Thursday 12:00
const NOW = T0 + 5 * 86400;

let home: string;
let db: Database.Database;
let cleanup: () => void;
const ids: Record<'a' | 'b' | 'c', string> = { a: '', b: '', c: '' };

const call = (id: string, args: string | object, name = 'terminal'): ToolCall => ({ id, type: 'function', function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } });
const result = (id: string, at: number, body: object, name = 'terminal') => ({ role: 'tool', tool_call_id: id, tool_name: name, content: JSON.stringify(body), timestamp: at });
const ok = { output: 'done', exit_code: 0, error: null };

before(() => {
  let clock = T0;
  const store = hermesStore('hermetic-commands-', 'commands', () => clock);
  const { w, path, dir } = store;
  const usage = (id: string) => w.updateTokenCounts(id, { input_tokens: 1000, output_tokens: 100, estimated_cost_usd: 0.01, model: 'gpt-5' });
  // A: a CLI session on Wednesday, every shape of command in its 09:00 hour, one more call at 10:00.
  ids.a = w.createSession({ source: 'cli', model: 'gpt-5', started_at: T0 });
  w.appendMessages(ids.a, [
    { role: 'user', content: 'build it', timestamp: T0 },
    { role: 'assistant', content: '', timestamp: T0 + 10, tool_calls: [call('a1', { command: 'cd web && FOO=1 sudo -u app npm test' }), call('a2', { command: 'git status | head -5' }), call('a3', { command: '"my tool" --x', workdir: '/tmp' })] },
    result('a2', T0 + 10.5, ok),
    result('a1', T0 + 12.5, { output: '1 failing', exit_code: 1, error: null }),
    result('a3', T0 + 13, { output: '', exit_code: 0, error: 'boom' }),
    { role: 'assistant', content: '', timestamp: T0 + 20, tool_calls: [call('a4', { command: '' }), call('a5', { command: 42 }), call('a6', '["ls"]'), call('a7', 'ls -la'), call('a8', { cmd: 'ls' }), call('a9', { command: 'env -i PATH=/bin python3 x.py', background: true }), call('r1', { path: 'x' }, 'read_file')] },
    result('a4', T0 + 21, ok),
    result('a5', T0 + 22, { output: '', exit_code: -1, error: 'Failed to execute command', status: 'error' }),
    result('a6', T0 + 23, ok),
    result('a7', T0 + 24, ok),
    result('a8', T0 + 25, { success: false }),
    result('r1', T0 + 26, { error: 'no such file' }, 'read_file'),
    // A failed result whose call is not in the store.
    result('ghost', T0 + 30, { output: '', exit_code: 2, error: null }),
    { role: 'assistant', content: '', timestamp: T0 + 3605, tool_calls: [call('b1', { command: 'git log --oneline' })] },
    result('b1', T0 + 3606.25, ok),
    { role: 'assistant', content: 'done', timestamp: T0 + 3610, finish_reason: 'stop' },
  ]);
  usage(ids.a);
  // B: a Telegram session on Thursday.
  clock = T1;
  ids.b = w.createSession({ source: 'telegram', model: 'gpt-5', started_at: T1 });
  w.appendMessages(ids.b, [
    { role: 'user', content: 'deploy', timestamp: T1 },
    { role: 'assistant', content: '', timestamp: T1 + 1, tool_calls: [call('b2', { command: 'timeout 60 npm run build' })] },
    result('b2', T1 + 41, { output: 'error TS2322', exit_code: 2, error: null }),
    { role: 'assistant', content: '', timestamp: T1 + 42, tool_calls: [call('b3', { command: 'cd /srv && git pull' })] },
    result('b3', T1 + 44, ok),
  ]);
  usage(ids.b);
  // C: one call id used twice (as Hermes's own fixtures hold): two calls, timed once, from the first call to the first result.
  clock = T2;
  ids.c = w.createSession({ source: 'cli', model: 'gpt-5', started_at: T2 });
  w.appendMessages(ids.c, [
    { role: 'user', content: 'make', timestamp: T2 },
    { role: 'assistant', content: '', timestamp: T2 + 1, tool_calls: [call('dup', { command: 'make' })] },
    result('dup', T2 + 2, ok),
    { role: 'assistant', content: '', timestamp: T2 + 10, tool_calls: [call('dup', { command: 'make' })] },
    result('dup', T2 + 15, { output: '', exit_code: 1, error: null }),
  ]);
  usage(ids.c);
  store.db.close();
  const rig = forwarderRig([path], { dir, timeZone: 'UTC' });
  rig.forwarder.backfill();
  rig.forwarder.close();
  home = rig.home;
  cleanup = store.cleanup;
  db = new Database(join(home, 'hermetic.db'), { readonly: true });
});
after(() => {
  db.close();
  cleanup();
});

type Figures = [calls: number, failed: number, timed: number, seconds: number, median: number | null];
const figures = (r: UsageReport, key: (row: Record<string, unknown>) => string = (row) => String(row.command)) =>
  Object.fromEntries(r.rows.map((row) => [key(row), [row.tool_calls, row.tool_errors, row.timed_calls, row.seconds, row.median_seconds]]));

/** The rows add up to totals.commands: calls, failed results, timed calls and their milliseconds. */
function addsUp(r: UsageReport, label: string): void {
  const t = r.totals.commands!;
  for (const m of ['tool_calls', 'tool_errors', 'timed_calls'] as const) assert.equal(r.rows.reduce((n, x) => n + Number(x[m]), 0), t[m], `${label} ${m}`);
  assert.equal(Math.round(r.rows.reduce((n, x) => n + Number(x.seconds) * 1000, 0)), Math.round(t.seconds * 1000), `${label} seconds`);
}

describe('--by command', () => {
  it('one row per program, its calls, failed results (the rule --by tool judges by) and times; the totals are the terminal tool\'s', () => {
    const r = usageReport(db, { by: ['command'] });
    assert.deepEqual(r.by, ['command']);
    assert.deepEqual(figures(r), {
      npm: [2, 2, 2, 42.5, 21.25],
      git: [3, 0, 3, 3.75, 1.25],
      '(no command)': [4, 2, 4, 14, 3.5],
      make: [2, 1, 1, 1, 1],
      'my tool': [1, 1, 1, 3, 3],
      '(empty)': [1, 0, 1, 1, 1],
      python3: [1, 0, 0, 0, null],
      '(no call)': [0, 1, 0, 0, null],
    } satisfies Record<string, Figures>);
    // Most called first, then by name (as tools are ranked).
    assert.deepEqual(r.rows.map((x) => x.command), ['(no command)', 'git', 'make', 'npm', '(empty)', 'my tool', 'python3', '(no call)']);
    assert.deepEqual(r.totals.commands, { sessions: 3, tool_calls: 14, tool_errors: 7, timed_calls: 12, seconds: 65.25, median_seconds: 2.25 });
    assert.deepEqual(r.rows.map((x) => x.sessions), [1, 2, 1, 2, 1, 1, 1, 1]);
    addsUp(r, 'by command');
    // The window's totals are the report's as ever: every tool's calls, and usage.
    assert.deepEqual([r.totals.tool_calls, r.totals.tool_errors], [15, 8]);
    assert.equal(r.totals.sessions, 3);
    // The temporary table is gone: a report by command leaves the connection as it found it.
    assert.equal(db.prepare("SELECT COUNT(*) FROM temp.sqlite_master WHERE name = 'command_usage'").pluck().get(), 0);
  });

  it('rows have the measures of a row by tool (usage null) then the command figures, in the order of the CSV', () => {
    const r = usageReport(db, { by: ['command'] });
    assert.deepEqual(Object.keys(r.rows[0]!), ['command', ...MEASURES, ...COMMAND_FIGURES]);
    assert.deepEqual(Object.keys(r.totals), [...MEASURES, 'tool_calls', 'tool_errors', 'commands']);
    assert.ok(r.rows.every((x) => x.cost_usd === null && x.input_tokens === null));
    // Without --by command the totals have no commands.
    assert.equal(usageReport(db, {}).totals.commands, undefined);
    assert.equal(usageReport(db, { by: ['tool'] }).totals.commands, undefined);
  });

  it('combines with time, session, tree, source, project and machine; every grouping adds up', () => {
    for (const by of [['day'], ['hour'], ['week'], ['month'], ['weekday'], ['hour_of_day'], ['session'], ['tree'], ['source'], ['profile'], ['project'], ['machine']]) {
      const r = usageReport(db, { by: ['command', ...by] });
      addsUp(r, `command × ${by.join()}`);
      addsUp(usageReport(db, { by: [...by, 'command'] }), `${by.join()} × command`);
      addsUp(usageReport(db, { by: ['command', ...by], top: 3 }), `command × ${by.join()} --top 3`);
    }
    const byDay = usageReport(db, { by: ['day', 'command'] });
    assert.deepEqual(figures(byDay, (x) => `${String(x.day)} ${String(x.command)}`)['2026-06-11 npm'], [1, 1, 1, 40, 40]);
    assert.deepEqual(byDay.rows.map((x) => x.day), [...byDay.rows.map((x) => x.day)].sort(), 'days in order');
    // git ran at 09:00 and at 10:00 on Wednesday, and on Thursday.
    const byHour = usageReport(db, { by: ['hour', 'command'] });
    assert.deepEqual(byHour.rows.filter((x) => x.command === 'git').map((x) => [x.hour, x.tool_calls, x.seconds]), [['2026-06-10 09:00', 1, 0.5], ['2026-06-10 10:00', 1, 1.25], ['2026-06-11 10:00', 1, 2]]);
    const bySession = usageReport(db, { by: ['session', 'command'] });
    assert.ok(bySession.rows.every((x) => typeof x.session_id === 'string' && 'title' in x));
    assert.deepEqual(bySession.rows.filter((x) => x.session_id === ids.c).map((x) => [x.command, x.tool_calls, x.tool_errors]), [['make', 2, 1]]);
    const bySource = usageReport(db, { by: ['source', 'command'] });
    assert.deepEqual(figures(bySource, (x) => `${String(x.source)} ${String(x.command)}`)['telegram npm'], [1, 1, 1, 40, 40]);
  });

  it('the window counts a call where --by tool does (its cell), a failed result where it failed; tool calls and the terminal row agree', () => {
    for (const [since, until] of [[T0, T0 + 3600], [T0 + 3600, T1 + 3600], [T1, NOW], [T0 + 1800, T0 + 7200], [T2, T2 + 12]]) {
      const request: ReportRequest = { since, until, by: ['command'] };
      const r = usageReport(db, request);
      addsUp(r, `${since}..${until}`);
      const terminal = usageReport(db, { since, until, by: ['tool'] }).rows.find((x) => x.tool === 'terminal');
      assert.deepEqual([r.totals.commands!.tool_calls, r.totals.commands!.tool_errors], [Number(terminal?.tool_calls ?? 0), Number(terminal?.tool_errors ?? 0)], `${since}..${until}`);
    }
    // Wednesday 09:00 alone: the first ten calls and five failures; git's 10:00 call is out.
    const nine = usageReport(db, { since: T0, until: T0 + 3600, by: ['command'] });
    assert.deepEqual(figures(nine).git, [1, 0, 1, 0.5, 0.5]);
    assert.equal(nine.totals.commands!.tool_calls, 9);
    // A failed result is counted in its own hour, under the program of its call wherever that is (here the same hour).
    const windows = [usageReport(db, { since: T0, until: T1, by: ['command'] }), usageReport(db, { since: T1, until: NOW, by: ['command'] })];
    assert.equal(windows[0]!.totals.commands!.tool_calls + windows[1]!.totals.commands!.tool_calls, 14, 'two windows make the whole');
    // A window with no terminal call: no rows, totals of nothing.
    const none = usageReport(db, { since: NOW - 60, until: NOW, by: ['command'] });
    assert.deepEqual([none.rows, none.totals.commands], [[], { sessions: 0, tool_calls: 0, tool_errors: 0, timed_calls: 0, seconds: 0, median_seconds: null }]);
  });

  it('filters as tool calls are filtered: by source, session, tree, and by model through the sessions with such usage', () => {
    const telegram = usageReport(db, { by: ['command'], filter: { source: ['telegram'] } });
    assert.deepEqual(figures(telegram), { npm: [1, 1, 1, 40, 40], git: [1, 0, 1, 2, 2] });
    addsUp(telegram, 'telegram');
    const c = usageReport(db, { by: ['command'], filter: { session: [ids.c] } });
    assert.deepEqual(figures(c), { make: [2, 1, 1, 1, 1] });
    assert.deepEqual(usageReport(db, { by: ['command'], filter: { tree: [ids.b] } }).rows.map((x) => x.command), ['git', 'npm']);
    assert.equal(usageReport(db, { by: ['command'], filter: { model: ['gpt-5'] } }).totals.commands!.tool_calls, 14);
    assert.deepEqual(usageReport(db, { by: ['command'], filter: { model: ['nonexistent'] } }).rows, []);
  });

  it('--top keeps the most run programs and sums the rest into one row, whose median is not one figure', () => {
    const whole = usageReport(db, { by: ['command'] });
    const top = usageReport(db, { by: ['command'], top: 3 });
    assert.deepEqual(top.rows.slice(0, 3), whole.rows.slice(0, 3));
    const other = top.rows[3]!;
    assert.deepEqual([other.command, other.other_rows, other.tool_calls, other.tool_errors, other.timed_calls, other.seconds, other.median_seconds, other.sessions],
      [null, 5, 5, 4, 4, 46.5, null, 2]);
    addsUp(top, 'top 3');
    assert.equal(top.rows.length, 4);
  });

  it('refuses what --by tool refuses, --by tool with it, --max-cost, and the fleet store', async () => {
    const refused = (request: ReportRequest, message: string) => assert.throws(() => usageReport(db, request), { code: 'HERMETIC_REPORT_INVALID', message });
    refused({ by: ['command', 'tool'] }, 'Commands are the calls of one tool, terminal: group by command or by tool, not both.');
    refused({ by: ['tool', 'command'] }, 'Commands are the calls of one tool, terminal: group by command or by tool, not both.');
    refused({ by: ['command', 'model', 'task'] }, 'Terminal commands cannot be grouped by model or task: Hermes records usage per call, not per tool; group commands by hour, day, week, month, weekday, hour_of_day, profile, source, project, session, tree, machine.');
    const fleet = 'The fleet store cannot be grouped by command: a terminal call\'s program is read from its arguments on a machine\'s own dataset; run the report there, without --from.';
    assert.throws(() => planReport({ by: ['command'] }, new Zone('UTC'), postgresDialect('hermetic')).next(), { code: 'HERMETIC_REPORT_INVALID', message: fleet });
    const cli = (args: string[]) => reportCommand(['--period', 'all', ...args], { now: () => NOW * 1000 });
    await assert.rejects(cli(['--home', home, '--by', 'command', '--max-cost', '1']), { code: 'HERMETIC_REPORT_INVALID', message: '--max-cost judges cost, and rows by command count terminal calls, which carry none; drop --by command.' });
    // Refused before the fleet store is reached (nothing listens at this address).
    await assert.rejects(cli(['--from', 'postgres://nobody@127.0.0.1:1/none', '--by', 'command']), { code: 'HERMETIC_REPORT_INVALID', message: fleet });
    await assert.rejects(cli(['--home', home, '--by', 'command', '--by', 'provider']), { code: 'HERMETIC_REPORT_INVALID' });
  });
});

describe('hermetic report --by command', () => {
  const run = (args: string[]) => printed(() => reportCommand(['--home', home, '--period', 'all', '--by', 'command', ...args], { now: () => NOW * 1000, width: 80, color: false }));

  it('--json is usageReport\'s report; --csv and --markdown its rows', async () => {
    const json = await run(['--json']);
    assert.equal(json.value, 0);
    const report = JSON.parse(json.out.join('\n')) as UsageReport;
    assert.deepEqual(report.rows, usageReport(db, { by: ['command'] }).rows);
    assert.deepEqual(report.totals.commands, usageReport(db, { by: ['command'] }).totals.commands);
    const csv = (await run(['--csv'])).out.join('\n').split('\n');
    assert.equal(csv[0], ['command', ...MEASURES, ...COMMAND_FIGURES].join(','));
    assert.equal(csv.length, report.rows.length + 1);
    assert.ok(csv.includes('npm,2,,,,,,,,,,2,2,2,42.5,21.25'), csv.join('\n'));
    assert.ok(csv.includes('(no call),1,,,,,,,,,,0,1,0,0,'), 'an unknown median is empty');
    assert.equal(renderCsv(report), csv.join('\n'));
    const md = (await run(['--markdown'])).out.join('\n').split('\n');
    assert.equal(md.length, report.rows.length + 2);
    assert.ok(md.includes('| npm | 2 |  |  |  |  |  |  |  |  |  | 2 | 2 | 2 | 43s | 21s |'), md.join('\n'));
    assert.ok(md.includes('| my tool | 1 |  |  |  |  |  |  |  |  |  | 1 | 1 | 1 | 3.0s | 3.0s |'), md.join('\n'));
    assert.equal(renderMarkdown(report), md.join('\n'));
    // --top in each form: the rest labelled, its keys empty in CSV.
    assert.match((await run(['--top', '2', '--markdown'])).out.join('\n').split('\n').at(-1)!, /^\| \(6 more\) \| /);
    assert.match((await run(['--top', '2', '--csv'])).out.join('\n').split('\n').at(-1)!, /^,3,/);
  });

  it('on a terminal: the summary, then the table by command with its note', async () => {
    const { value, out } = await run([]);
    assert.equal(value, 0);
    const text = out.join('\n');
    assert.match(text, /^By command\ncommand +calls +failed +time +median +sessions$/m);
    assert.match(text, /^\(no command\) +4 +2 +14s +3\.5s +1$/m);
    assert.match(text, /^npm +2 +2 +43s +21s +2$/m);
    assert.match(text, /^python3 +1 +0 +- +- +1$/m);
    assert.match(text, /^\(each call under the first program its command line runs;/m);
    assert.ok(text.split('\n').every((l) => l.length <= 80), text);
    const table = renderTable(usageReport(db, { by: ['command'] }), false, { width: 30 });
    assert.match(table, /^command +calls +time$/m, 'a narrow terminal keeps the calls and the time');
  });
});

describe('formatSeconds', () => {
  it('reads at every scale', () => {
    const cases: [number | null, string][] = [[null, '-'], [0, '0.00s'], [0.4249, '0.42s'], [0.996, '1.0s'], [8.14, '8.1s'], [9.96, '10s'], [42.4, '42s'],
      [59.6, '1m 00s'], [185, '3m 05s'], [3599.4, '59m 59s'], [3599.6, '1h 00m'], [7620, '2h 07m'], [86_369, '23h 59m'], [86_371, '1d 00h'], [273_600, '3d 04h'], [1e9, '11,574d 02h']];
    assert.deepEqual(cases.map(([v]) => formatSeconds(v)), cases.map(([, s]) => s));
  });
});
