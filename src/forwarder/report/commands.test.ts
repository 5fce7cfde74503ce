// `--by command` (decision 0149) over a store whose terminal calls take every shape: assignments, `cd DIR &&`, sudo,
// pipes, a quoted program, an empty command, one that is not text, arguments that are no JSON object, a result without
// its call, an id used twice; failures judged as `--by tool` judges them, times from call to result; every grouping
// and window adds up to the terminal's calls; JSON, CSV, Markdown and the terminal table; the refusals.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { after, before, describe, it } from 'node:test';
import { printed } from '../../shared/testing/console.js';
import { reportCommand } from '../cli/report.js';
import { commandsStore, NOW, T0, T1, T2, type CommandsStore } from './testing/commands.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { PROGRAM_RULES } from '../dataset/program.js';
import { join } from 'node:path';
import { renderCsv, renderMarkdown, renderTable, usageReport, type ReportRequest, type UsageReport } from './index.js';
import { COMMAND_FIGURES, MEASURES } from './query.js';
import { formatSeconds } from './render.js';

let home: string;
let db: Database.Database;
let cleanup: () => void;
let ids: CommandsStore['ids'];

before(() => {
  const store = commandsStore();
  ({ home, ids, cleanup } = store);
  db = new Database(store.dataset, { readonly: true });
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

  it('reads each call\'s stored program; a dataset named by other rules, or from before programs were stored, is named here from the arguments: the same report (decision 0152)', () => {
    const shapes: ReportRequest[] = [{ by: ['command'] }, { by: ['command', 'day'], top: 3 }, { by: ['session', 'command'] }, { by: ['tree', 'command'] },
      { by: ['hour_of_day', 'command'] }, { by: ['command'], filter: { source: ['telegram'] } }, { by: ['command'], since: T0, until: T0 + 3600 }];
    const { dir, cleanup: done } = tempDir('hermetic-commands-twin-');
    const path = join(dir, 'hermetic.db');
    db.exec(`VACUUM INTO '${path.replace(/'/g, "''")}'`);
    const other = new Database(path);
    try {
      // Stored by this Hermetic's rules: the stored names are what the report reads (a failed result takes its call's).
      other.exec("UPDATE parts SET program = 'stored' WHERE program IS NOT NULL");
      assert.deepEqual(usageReport(other, { by: ['command'] }).rows.map((x) => [x.command, x.tool_calls, x.tool_errors]), [['stored', 14, 6], ['(no call)', 0, 1]]);
      // Named by other rules: each call named from its arguments here, by this Hermetic's rules, as the writer would.
      other.prepare("UPDATE dataset_meta SET value = ? WHERE key = 'program_rules'").run(String(PROGRAM_RULES + 1));
      for (const shape of shapes) assert.deepEqual(usageReport(other, shape), usageReport(db, shape), JSON.stringify(shape));
      // A dataset of version 14, read without migrating it (a reader never writes): no column, no index, named here too.
      other.exec("DROP INDEX parts_terminal; ALTER TABLE parts DROP COLUMN program; DELETE FROM dataset_meta WHERE key = 'program_rules'; PRAGMA user_version = 14");
      other.close();
      const old = new Database(path, { readonly: true });
      try {
        for (const shape of shapes) assert.deepEqual(usageReport(old, shape), usageReport(db, shape), JSON.stringify(shape));
      } finally {
        old.close();
      }
    } finally {
      if (other.open) other.close();
      done();
    }
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

  it('refuses what --by tool refuses, --by tool with it, and --max-cost (the fleet store is no longer refused: decision 0152)', async () => {
    const refused = (request: ReportRequest, message: string) => assert.throws(() => usageReport(db, request), { code: 'HERMETIC_REPORT_INVALID', message });
    refused({ by: ['command', 'tool'] }, 'Commands are the calls of one tool, terminal: group by command or by tool, not both.');
    refused({ by: ['tool', 'command'] }, 'Commands are the calls of one tool, terminal: group by command or by tool, not both.');
    refused({ by: ['command', 'model', 'task'] }, 'Terminal commands cannot be grouped by model or task: Hermes records usage per call, not per tool; group commands by hour, day, week, month, weekday, hour_of_day, profile, source, project, session, tree, machine.');
    const cli = (args: string[]) => reportCommand(['--period', 'all', ...args], { now: () => NOW * 1000 });
    await assert.rejects(cli(['--home', home, '--by', 'command', '--max-cost', '1']), { code: 'HERMETIC_REPORT_INVALID', message: '--max-cost judges cost, and rows by command count terminal calls, which carry none; drop --by command.' });
    // The fleet store is asked now (nothing listens at this address): no refusal before connecting.
    await assert.rejects(cli(['--from', 'postgres://nobody@127.0.0.1:1/none', '--by', 'command']), { code: 'HERMETIC_FLEET_UNAVAILABLE' });
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
    // The rows shown that name no program are said; a row not shown is not.
    const note = text.slice(text.indexOf('(each call')).replace(/\n/g, ' ');
    assert.match(note, /; \(no command\) holds calls whose arguments have no command text; \(empty\) holds command lines that run no program \(blank, a comment, only assignments\); \(no call\) holds failed results whose call is not in the dataset\)$/);
    const top = (await run(['--top', '2'])).out.join('\n');
    assert.match(top.replace(/\n/g, ' '), /a typical call's; \(no command\) holds calls whose arguments have no command text\)$/);
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
