// What `hermetic report` and `hermetic query` print when the Hermes store holds hostile text: titles, models, sources,
// projects and tool names with terminal escapes, C1 controls, bidi overrides, line separators, CSV formulas, Markdown
// and HTML; counters whose sums pass 2^63; windows that end where they start; values of 300,000 characters (decision
// 0075). One store, read by every test through the real commands in process and the dashboard's server.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { printed } from '../../shared/testing/console.js';
import { queryCommand } from '../cli/query.js';
import { reportCommand } from '../cli/report.js';
import { hermesStore, forwarderRig } from '../testing/index.js';
import { sqliteSource } from '../web/data/sqlite.js';
import { CSP, startWebServer } from '../web/server.js';
import { renderTable, type UsageReport } from './index.js';
import { displayWidth } from './wrap.js';

const NOW = Date.UTC(2026, 6, 15, 10, 30) / 1000;
/** Hostile [title, source, model, project, tool] per session. */
const HOSTILE = [
  ['=HYPERLINK("http://evil","click")', 'cli', '+gpt-5', '/w/@SUM(1+1)', '=cmd|\x1b[31m'],
  ['\u202egnp.exe \u2066isolate\u2069 title', 'telegram', '-model,with "quotes"\nand a line', '/w/\u202eright-to-left', 'read\u2028file'],
  ['a|b\\|c <img src=x onerror=alert(1)> [l](http://t) `code` *em* _u_ ~s~ &amp;\r\n next', '@src', '\x1b]8;;http://evil\x07link\x1b]8;;\x07', '/w/\x1b[2Jclear', 'x\x9b31m'],
  ['\u2028line sep\u2029para \x9b2J\x7f\x00', '\tsrc', 'm\x85nel', '\r/w/cr', 'plain'],
] as const;
const KNOWN_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

let home: string;
let cleanup: () => void;

before(() => {
  let t = NOW - 86400;
  const s = hermesStore('hermetic-hostile-', 'hostile', () => (t += 1));
  for (const [title, source, model, cwd, tool] of HOSTILE) {
    const id = s.w.createSession({ source, model, cwd } as never);
    s.w.updateSession(id, { title });
    s.w.appendMessages(id, [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: tool, arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', tool_name: tool, content: 'ok' },
    ] as never);
    s.w.updateTokenCounts(id, { input_tokens: 1000, output_tokens: 10, estimated_cost_usd: 0.5, model });
  }
  s.db.close();
  const rig = forwarderRig([s.path], { dir: s.dir, timeZone: 'UTC' });
  rig.forwarder.backfill();
  rig.forwarder.close();
  home = rig.home;
  cleanup = s.cleanup;
});
after(() => cleanup());

async function report(args: string[], width = 80): Promise<string> {
  const { value, out } = await printed(() => reportCommand(['--home', home, '--period', 'all', ...args], { now: () => NOW * 1000, color: false, width }));
  assert.equal(value, 0);
  return out.join('\n');
}

/** Refused: the error's code and message (main() prints them as one line). */
async function refused(args: string[]): Promise<[string, string]> {
  try {
    await printed(() => reportCommand(['--home', home, ...args], { now: () => NOW * 1000, color: false, width: 80 }));
  } catch (e) {
    return [(e as { code: string }).code, (e as Error).message];
  }
  return assert.fail(`${args.join(' ')} was not refused`);
}

describe('the terminal view of hostile text', () => {
  it('shows no control, separator or bidi override raw; every line fits 80 columns; overrides are shown as \\u202e', async () => {
    for (const by of [[], ['session'], ['model'], ['source', 'project'], ['tool'], ['project']]) {
      const text = await report(by.flatMap((d) => ['--by', d]));
      const label = `--by ${by.join(' ')}`;
      assert.doesNotMatch(text, KNOWN_CONTROL, label);
      for (const line of text.split('\n')) assert.ok(displayWidth(line) <= 80, `${label}: ${line}`);
    }
    const projects = await report(['--by', 'project'], 200);
    assert.match(projects, /^\/w\/\\u202eright-to-left {2,}\$0\.50 /m);
    assert.match(projects, /^␍\/w\/cr {2,}\$0\.50 /m);
    const sessions = await report(['--by', 'session'], 200);
    assert.match(sessions, / \\u202egnp\.exe \\u2066isolate\\u2069 title {2,}\$0\.50 /);
    assert.match(sessions, / ⏎line sep⏎para \\x9b2J␡␀ {2,}\$0\.50 /);
    assert.match(await report(['--by', 'tool'], 200), /^read⏎file {2,}1 /m);
  });

  it('hermetic query shows the same text the same way', async () => {
    const { value, out } = await printed(() => queryCommand(['--home', home, "SELECT title FROM sessions WHERE title LIKE '%isolate%' OR title LIKE '%line sep%' ORDER BY title"]));
    assert.equal(value, 0);
    assert.doesNotMatch(out.join('\n'), KNOWN_CONTROL);
    assert.ok(out.some((l) => l.startsWith('\\u202egnp.exe \\u2066isolate\\u2069 title')), out.join('\n'));
  });
});

describe('long values', () => {
  it('a 300,000-character title or message is measured and cut in a moment (it took minutes: decision 0075)', async () => {
    const started = performance.now();
    const fig = { sessions: 1, api_calls: 1, input_tokens: 1, output_tokens: 1, cache_read_tokens: 1, cache_write_tokens: 1, reasoning_tokens: 0, estimated_cost_usd: 1, actual_cost_usd: null, cost_usd: 1 };
    const rows = Array.from({ length: 20 }, (_, i) => ({ session_id: `s${i}`, title: '数据分析'.repeat(75_000), ...fig }));
    const table = renderTable({ period: { since: null, until: null }, by: ['session'], totals: {} as UsageReport['totals'], rows }, false, { width: 80 });
    assert.ok(table.split('\n').every((l) => displayWidth(l) <= 80), table);
    assert.match(table.split('\n')[2]!, /^s0 {2,}数据分析.*… +\$1\.00 /);
    const { value, out } = await printed(() => queryCommand(['--home', home, "SELECT replace(printf('%.*c', 300000, 'x'), 'x', '数') AS long, 1 AS n"]));
    assert.equal(value, 0);
    // 60 columns when piped: 29 wide characters and … take 59, padded to 60.
    assert.equal(out[2], `${'数'.repeat(29)}…   1`);
    assert.ok(performance.now() - started < 10_000, `${Math.round(performance.now() - started)} ms`);
  });
});

describe('--json', () => {
  it('is the store\'s text exactly, with C1 controls, separators and bidi overrides escaped so a terminal obeys none', async () => {
    const text = await report(['--by', 'session', '--json']);
    assert.doesNotMatch(text, KNOWN_CONTROL);
    assert.match(text, /"\\u202egnp\.exe \\u2066isolate\\u2069 title"/);
    const r = JSON.parse(text) as UsageReport;
    assert.deepEqual(r.rows.map((row) => row.title).sort(), HOSTILE.map((h) => h[0] as string).sort());
    // The documented key order: period, by, totals, rows; the keys of a row, then its measures.
    assert.deepEqual(Object.keys(r), ['period', 'by', 'totals', 'rows']);
    assert.deepEqual(Object.keys(r.rows[0]!).slice(0, 4), ['session_id', 'title', 'sessions', 'api_calls']);
    const { out } = await printed(() => queryCommand(['--home', home, '--json', 'SELECT title FROM sessions ORDER BY started_at']));
    assert.doesNotMatch(out.join('\n'), KNOWN_CONTROL);
    assert.deepEqual((JSON.parse(out.join('\n')) as { title: string }[]).map((x) => x.title), HOSTILE.map((h) => h[0]));
  });
});

/** RFC 4180 read back: rows of cells. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [[]];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') cell += c, i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') rows.at(-1)!.push(cell), cell = '';
    else if (c === '\n') rows.at(-1)!.push(cell), rows.push([]), cell = '';
    else cell += c;
  }
  rows.at(-1)!.push(cell);
  return rows;
}

describe('--csv', () => {
  it('leads a cell a spreadsheet would run as a formula with \', shows controls and overrides, and quotes commas, quotes and line breaks', async () => {
    const text = await report(['--by', 'session', '--csv']);
    // TAB and LF are a cell's data (quoted where they matter), U+2028 and U+2029 text: no other control is raw. A CR
    // is a line break as LF (printed raw, it sent the terminal's cursor back over what the cell showed).
    assert.doesNotMatch(text, /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
    const [head, ...rows] = parseCsv(text);
    assert.equal(head![1], 'title');
    const titles = new Map(rows.map((r) => [r[0], r[1]]));
    assert.ok(rows.every((r) => r.length === head!.length));
    assert.deepEqual([...titles.values()].sort(), [
      '\'=HYPERLINK("http://evil","click")',
      'a|b\\|c <img src=x onerror=alert(1)> [l](http://t) `code` *em* _u_ ~s~ &amp;\n next',
      '\\u202egnp.exe \\u2066isolate\\u2069 title',
      '\u2028line sep\u2029para \\x9b2J␡␀',
    ].sort());
    const models = parseCsv(await report(['--by', 'model', '--csv'])).slice(1).map((r) => r[0]).sort();
    assert.deepEqual(models, ['\'+gpt-5', '\'-model,with "quotes"\nand a line', '␛]8;;http://evil␇link␛]8;;␇', 'm\\x85nel'].sort());
    const sources = parseCsv(await report(['--by', 'source', '--csv'])).slice(1).map((r) => r[0]).sort();
    assert.deepEqual(sources, ['\'\tsrc', '\'@src', 'cli', 'telegram'].sort());
    const projects = parseCsv(await report(['--by', 'project', '--csv'])).slice(1).map((r) => r[0]).sort();
    assert.deepEqual(projects, ['\'\n/w/cr', '/w/@SUM(1+1)', '/w/\\u202eright-to-left', '/w/␛[2Jclear'].sort());
    // The figures are numbers, never led by ': the rows still add up to the totals.
    const json = JSON.parse(await report(['--by', 'model', '--json'])) as UsageReport;
    const cost = rows.reduce((t, r) => t + Number(r[head!.indexOf('cost_usd')]), 0);
    assert.equal(cost, json.totals.cost_usd);
  });
});

describe('--max-cost', () => {
  it('names the rows over it harmless on a terminal, by tree and by source (decision 0117)', async () => {
    for (const by of ['tree', 'source']) {
      const { value, err } = await printed(() => reportCommand(['--home', home, '--period', 'all', '--by', by, '--max-cost', '0.1'], { now: () => NOW * 1000, color: false, width: 80 }));
      assert.equal(value, 3);
      assert.equal(err.length, 1 + HOSTILE.length, err.join('\n'));
      for (const line of err) assert.doesNotMatch(line, KNOWN_CONTROL, line);
    }
  });
});

describe('--markdown', () => {
  it('keeps each row one line of its columns: pipes, backslashes, HTML, links, code and emphasis escaped, controls shown', async () => {
    const text = await report(['--by', 'session', '--markdown']);
    // An underscore inside a word is no emphasis: a session id reads as it is written.
    assert.match(text, /^\| 20260714_103001_[0-9a-f]+ \| /m);
    const lines = text.split('\n');
    assert.equal(lines.length, 2 + HOSTILE.length, text);
    assert.doesNotMatch(text, KNOWN_CONTROL);
    // Cells are split at pipes no backslash escapes: each line has as many as the header.
    const cells = (l: string) => l.replace(/\\\\/g, '').split(/(?<!\\)\|/).length;
    assert.ok(lines.every((l) => cells(l) === cells(lines[0]!)), text);
    const row = lines.find((l) => l.includes('onerror'))!;
    assert.ok(row.includes(' a\\|b\\\\\\|c \\<img src=x onerror=alert(1)\\> \\[l\\](http://t) \\`code\\` \\*em\\* \\_u\\_ \\~s\\~ \\&amp;⏎ next |'), row);
    assert.ok(lines.some((l) => l.includes(' \\\\u202egnp.exe \\\\u2066isolate\\\\u2069 title |')), text);
    assert.doesNotMatch(text, /(?<!\\)</);
  });
});

describe('windows that hold no time, or reach past 9999', () => {
  it('are refused, each in one sentence with its code: a day after the --until day, two equal times, the end of 9999', async () => {
    assert.deepEqual(await refused(['--since', '2026-03-30', '--until', '2026-03-29']),
      ['HERMETIC_REPORT_INVALID', '--since 2026-03-30 starts after --until 2026-03-29 ends; swap them.']);
    assert.deepEqual(await refused(['--since', '2026-07-01T09:00', '--until', '2026-07-01T09:00']),
      ['HERMETIC_REPORT_INVALID', '--since 2026-07-01T09:00 and --until 2026-07-01T09:00 leave no time between them: the window is empty.']);
    assert.deepEqual(await refused(['--until', '9999-12-31']),
      ['HERMETIC_CLI_USAGE', '--until 9999-12-31 reaches past the year 9999; leave --until out for an open window.']);
    // One day is a window; so is a leap day.
    const json = async (args: string[]) => JSON.parse((await printed(() => reportCommand(['--home', home, ...args, '--json'], { now: () => NOW * 1000 }))).out.join('\n')) as UsageReport;
    assert.equal((await json(['--since', '2026-07-14', '--until', '2026-07-14'])).totals.sessions, HOSTILE.length);
    assert.deepEqual((await json(['--since', '2024-02-29', '--until', '2024-02-29'])).period, { since: '2024-02-29T00:00:00Z', until: '2024-03-01T00:00:00Z' });
  });
});

describe('counters whose sums pass 2^63', () => {
  it('report every grouping (SQLite\'s SUM of integers would fail with "integer overflow"), the rows adding up to the totals', async () => {
    // The same dataset under another home, its ledger given 1,100 more rows of the most a counter holds (2^53 − 1,
    // normalize/values.ts): what ~1,000 sessions whose Hermes counters a model or a bug filled with garbage leave.
    const big = join(home, '..', 'big-home');
    const source = new Database(join(home, 'hermetic.db'), { readonly: true });
    mkdirSync(big, { recursive: true });
    source.exec(`VACUUM INTO '${join(big, 'hermetic.db').replace(/'/g, "''")}'`);
    source.close();
    const db = new Database(join(big, 'hermetic.db'));
    const counters = ['api_calls', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'];
    const cols = (db.prepare('PRAGMA table_info(usage_ledger)').all() as { name: string }[]).map((c) => c.name);
    db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1100)
      INSERT INTO usage_ledger (${cols.join(', ')}) SELECT ${cols.map((c) => (c === 'at' ? 'l.at + n.i' : counters.includes(c) ? '9007199254740991' : `l.${c}`)).join(', ')}
      FROM n, (SELECT * FROM usage_ledger LIMIT 1) l`);
    db.close();
    const run = async (args: string[]) => {
      const { value, out } = await printed(() => reportCommand(['--home', big, '--period', 'all', ...args], { now: () => NOW * 1000, color: false, width: 80 }));
      assert.equal(value, 0);
      return out.join('\n');
    };
    for (const by of [['model'], ['session'], ['day', 'source'], ['tool']]) {
      const r = JSON.parse(await run([...by.flatMap((d) => ['--by', d]), '--json', '--top', '2'])) as UsageReport;
      assert.ok(r.totals.input_tokens! > 2 ** 63, `${by}: ${r.totals.input_tokens}`);
      for (const m of ['input_tokens', 'api_calls', 'cost_usd'] as const) {
        if (by[0] === 'tool') continue;
        const sum = r.rows.reduce((t, row) => t + (row[m] as number), 0);
        assert.ok(Math.abs(sum - r.totals[m]!) <= 1e-12 * r.totals[m]!, `${by} ${m}: ${sum} != ${r.totals[m]}`);
      }
    }
    assert.match(await run([]), /^tokens +9\.91e\+18 input/m);
    assert.match(await run(['--by', 'model', '--csv']), /^'\+gpt-5,/m);
  });
});

describe('the dashboard', () => {
  it('serves the titles as JSON (never in HTML), every answer with the self-only CSP and nosniff', async () => {
    const db = new Database(join(home, 'hermetic.db'), { readonly: true });
    const server = await startWebServer({ source: sqliteSource(db), port: 0, now: () => NOW * 1000 });
    try {
      const api = await fetch(new URL('/api/sessions?period=all', server.url));
      assert.equal(api.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(api.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(api.headers.get('content-security-policy'), CSP);
      const body = (await api.json()) as { rows: { title: string }[] };
      assert.deepEqual(body.rows.map((r) => r.title).sort(), HOSTILE.map((h) => h[0] as string).sort());
      // The page is static: what it shows is built from the JSON as text nodes (dom.js), never parsed as HTML.
      const page = await (await fetch(new URL('/session?id=x', server.url))).text();
      assert.doesNotMatch(page, /onerror|HYPERLINK/);
      // The Report view's CSV is --csv's, formulas led by ' the same way, by tree and weekday too (decision 0117).
      for (const by of [['tree'], ['weekday', 'source']]) {
        const file = await (await fetch(new URL(`/api/report.csv?period=all&${by.map((d) => `by=${d}`).join('&')}`, server.url))).text();
        assert.equal(file, `${await report([...by.flatMap((d) => ['--by', d]), '--csv'])}\n`, by.join());
      }
      assert.match(await (await fetch(new URL('/api/report.csv?period=all&by=tree', server.url))).text(), /,"'=HYPERLINK\(""http:\/\/evil"",""click""\)",/);
    } finally {
      await server.close();
      db.close();
    }
  });
});
