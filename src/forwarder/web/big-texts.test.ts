// A session view bounded whatever the dataset holds (decision 0088), over real HTTP and a real SQLite dataset: a tool
// result of 20 MB, a call's arguments of 2 MB and a reasoning of 1 MB come cut at 32,768 characters with their whole
// length in characters and bytes; a session of 500 messages of 100,000 characters each comes a page of at most 2 MiB of messages at a
// time, `next_from` leading on to the rest of the page; each whole text is `/api/message-text`, text/plain with its
// exact length, the dataset's very bytes; what is not there or not asked right is refused in the HERMETIC_WEB_*
// envelope; a text rewritten while it is sent is broken off, and a client that leaves mid-text leaves the server answering.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { after, before, describe, it } from 'node:test';
import { ATTRIBUTES_CAP, FIELD_CAP, LIST_ROWS, PAGE_BYTES, TEXT_CAP, TITLE_CAP } from './data/rows.js';
import { usageReport, type ReportRow } from '../report/index.js';
import { CSP } from './server.js';
import { BIG_SESSION_TEXTS, HUGE_RESULT_SESSION, MANY_BIG_SESSION, MANY_CALLS_SESSION, bigTextsStore, dashboardRig, inflateBigTexts, inflateSessionTexts, type DashboardRig } from './testing.js';

/** Each message of MANY_BIG_SESSION: past the cap (so cut), a dataset of 50 MB rather than 500 (as fast, the same pages). */
const MANY = 100_000;
/** The generated history's two costliest sessions: the first's own texts made hundreds of thousands of characters long, the second its child (decision 0094). */
const costliest = (db: Database.Database) => db.prepare(`SELECT session_id FROM usage_ledger WHERE store NOT LIKE '%/profiles/%'
  GROUP BY store, session_id ORDER BY SUM(cost_usd) DESC, session_id LIMIT 2`).pluck().all() as [string, string];
let app: DashboardRig;
before(async () => {
  app = await dashboardRig({
    sessions: 5, messages: 100, extraStores: (dir) => [bigTextsStore(dir)],
    prepare: (home) => {
      inflateBigTexts(home, MANY);
      const db = new Database(join(home, 'hermetic.db'));
      try {
        inflateSessionTexts(db, ...costliest(db));
        // A short text holding a NUL character, which SQLite's substr would end at (decision 0094).
        db.prepare("UPDATE messages SET content = 'write' || char(0) || 'ten files' WHERE session_id = ? AND seq = 0").run(MANY_CALLS_SESSION);
      } finally {
        db.close();
      }
    },
  });
});
after(() => app.close());

/**
 * One request on a connection of its own. The server runs in this process, and between two requests the test reads and
 * hashes texts of 20 MB synchronously: under load that can hold the event loop past node's 5-second keep-alive, and a
 * pooled connection is then reused in the same instant the server's overdue timer closes it (ECONNRESET: seen in two
 * of three runs beside the other dashboard suites; a loop held 7 s between two fetches resets half of them). A browser,
 * in a process of its own, does not hold the server's loop.
 */
async function api(path: string, init?: RequestInit): Promise<{ status: number; body: any; bytes: number; headers: Headers }> {
  const res = await fetch(new URL(path, app.url), { ...init, headers: { ...(init?.headers as Record<string, string> | undefined), connection: 'close' } });
  const raw = Buffer.from(await res.arrayBuffer());
  const json = res.headers.get('content-type')?.startsWith('application/json');
  return { status: res.status, body: json ? JSON.parse(raw.toString('utf8')) : raw, bytes: raw.length, headers: res.headers };
}

/** The dataset's own value of a message's column, and its lengths as SQLite counts them. */
const stored = (id: string, seq: number, column: string) => app.db.prepare(`SELECT ${column} FROM messages WHERE session_id = ? AND seq = ?`).pluck().get(id, seq) as string;
const sha = (v: string | Buffer) => createHash('sha256').update(v).digest('hex');
/** Characters as SQLite and PostgreSQL count them (code points), where JS's length counts UTF-16 units. */
const codePoints = (s: string) => [...s].length;

describe('a tool result of 20 MB, arguments of 2 MB, a reasoning of 1 MB', () => {
  it('each comes cut at 32,768 characters, saying so with its whole length in characters and bytes; the rest as it was', async () => {
    const r = await api(`/api/session?id=${HUGE_RESULT_SESSION}`);
    assert.equal(r.status, 200);
    assert.ok(r.bytes < 200_000, `the answer is ${r.bytes} bytes`);
    const t = r.body.transcript;
    assert.deepEqual([t.total, t.from, t.next_from, t.limits], [4, 0, null, { text_characters: TEXT_CAP, page_bytes: PAGE_BYTES }]);
    const [question, call, result, done] = t.messages;
    assert.deepEqual([question.cut, question.content, done.cut, done.content], [null, 'show me the log', null, 'done']);
    // The result: the first 32,768 characters (the first is é, two bytes), and its whole length.
    const whole = stored(HUGE_RESULT_SESSION, 2, 'content');
    assert.equal(result.content, whole.slice(0, TEXT_CAP));
    assert.deepEqual(result.cut, { content: { characters: 20_000_000, bytes: 20_000_001 } });
    // The calls' JSON is past the cap: its calls are listed from it, the big arguments cut (not parsed), the small parsed.
    const calls = JSON.parse(stored(HUGE_RESULT_SESSION, 1, 'tool_calls')) as { id: string; function: { name: string; arguments: string } }[];
    const bigArgs = calls[0]!.function.arguments;
    assert.equal(call.reasoning, stored(HUGE_RESULT_SESSION, 1, 'reasoning').slice(0, TEXT_CAP));
    assert.deepEqual(call.cut, {
      reasoning: { characters: 1_000_000, bytes: 1_000_000 },
      tool_calls: { characters: codePoints(stored(HUGE_RESULT_SESSION, 1, 'tool_calls')), bytes: Buffer.byteLength(stored(HUGE_RESULT_SESSION, 1, 'tool_calls')), calls: 2, shown: 2 },
    });
    assert.deepEqual(call.tool_calls, [
      { id: 'call_big', name: 'write_file', arguments: bigArgs.slice(0, TEXT_CAP), cut: { characters: bigArgs.length, bytes: Buffer.byteLength(bigArgs) } },
      { id: 'call_small', name: 'terminal', arguments: { command: 'ls' }, cut: null },
    ]);
  });

  it('/api/message-text gives each whole, as text/plain of its exact length: the dataset\'s bytes', async () => {
    const calls = JSON.parse(stored(HUGE_RESULT_SESSION, 1, 'tool_calls')) as { function: { arguments: string } }[];
    for (const [query, want] of [
      ['seq=2&field=content', stored(HUGE_RESULT_SESSION, 2, 'content')],
      ['seq=1&field=reasoning', stored(HUGE_RESULT_SESSION, 1, 'reasoning')],
      ['seq=1&field=tool_calls', stored(HUGE_RESULT_SESSION, 1, 'tool_calls')],
      ['seq=1&field=arguments&call=0', calls[0]!.function.arguments],
      ['seq=1&field=arguments&call=1', calls[1]!.function.arguments],
      ['seq=3&field=content', 'done'],
    ] as const) {
      const r = await api(`/api/message-text?id=${HUGE_RESULT_SESSION}&${query}`);
      assert.equal(r.status, 200, query);
      assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
      assert.equal(r.headers.get('content-length'), String(Buffer.byteLength(want)), query);
      assert.equal(r.headers.get('content-security-policy'), CSP);
      // Shown as the text it is, never sniffed as a page (a stored text may be HTML).
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(r.bytes, Buffer.byteLength(want), query);
      assert.equal(sha(r.body), sha(want), query);
    }
    // HEAD: the same head, no text read.
    const head = await fetch(new URL(`/api/message-text?id=${HUGE_RESULT_SESSION}&seq=2&field=content`, app.url), { method: 'HEAD' });
    assert.deepEqual([head.status, head.headers.get('content-length'), (await head.arrayBuffer()).byteLength], [200, '20000001', 0]);
  });

  it('what is not there, or not asked right, is refused with its code and sentence', async () => {
    const refused = async (query: string, status: number, code: string, message: string) => {
      const r = await api(`/api/message-text?${query}`);
      assert.deepEqual([r.status, r.body], [status, { error: { code, message } }], query);
    };
    const id = HUGE_RESULT_SESSION;
    const name = 'Name the text: /api/message-text?id=<session id>&seq=<message number>&field=<content, reasoning, tool_calls, arguments or attributes>.';
    await refused(`id=${id}&field=content`, 400, 'HERMETIC_WEB_INVALID', name);
    await refused(`id=${id}&seq=2`, 400, 'HERMETIC_WEB_INVALID', name);
    await refused('seq=2&field=content', 400, 'HERMETIC_WEB_INVALID', name);
    await refused(`id=${id}&seq=2&field=model`, 400, 'HERMETIC_WEB_INVALID', '"field" must be one of content, reasoning, tool_calls, arguments, attributes; got "model".');
    await refused(`id=${id}&seq=3&field=attributes`, 404, 'HERMETIC_WEB_NOT_FOUND', `Message #3 of session "${id}" has no attributes.`);
    await refused(`id=${id}&seq=1&field=arguments`, 400, 'HERMETIC_WEB_INVALID', 'field=arguments needs the call: call=<its index in the message\'s tool calls, from 0>.');
    await refused(`id=${id}&seq=1&field=content&call=0`, 400, 'HERMETIC_WEB_INVALID', '"call" is for field=arguments, not field=content.');
    await refused(`id=${id}&seq=-1&field=content`, 400, 'HERMETIC_WEB_INVALID', '"seq" must be a whole number from 0 to 1000000000; got "-1".');
    await refused(`id=${id}&seq=2&seq=3&field=content`, 400, 'HERMETIC_WEB_INVALID', '"seq" was given 2 times; give it once.');
    await refused(`id=${id}&seq=2&field=content&offset=5`, 400, 'HERMETIC_WEB_INVALID', '"offset" is not a parameter of this endpoint; it takes id, store, machine, seq, field, call.');
    await refused('id=nope&seq=0&field=content', 404, 'HERMETIC_WEB_NOT_FOUND', 'The dataset has no session "nope".');
    await refused(`id=${id}&seq=9&field=content`, 404, 'HERMETIC_WEB_NOT_FOUND', `Session "${id}" has no message #9.`);
    await refused(`id=${id}&seq=0&field=reasoning`, 404, 'HERMETIC_WEB_NOT_FOUND', `Message #0 of session "${id}" has no reasoning.`);
    await refused(`id=${id}&seq=0&field=tool_calls`, 404, 'HERMETIC_WEB_NOT_FOUND', `Message #0 of session "${id}" has no tool calls.`);
    await refused(`id=${id}&seq=1&field=arguments&call=2`, 404, 'HERMETIC_WEB_NOT_FOUND', `Message #1 of session "${id}" has no call 2 with arguments.`);
  });

  it('a text rewritten while it is sent is broken off (never two texts in one answer); a client that leaves mid-text leaves the server answering', async () => {
    // A client that reads the first bytes and goes.
    const gone = await fetch(new URL(`/api/message-text?id=${HUGE_RESULT_SESSION}&seq=2&field=content`, app.url));
    const reader = gone.body!.getReader();
    await reader.read();
    await reader.cancel();
    assert.equal((await api(`/api/message-text?id=${HUGE_RESULT_SESSION}&seq=3&field=content`)).status, 200);
    // A forwarder rewrites the result after the first chunk went out: the rest is not read, the answer ends short.
    const res = await fetch(new URL(`/api/message-text?id=${HUGE_RESULT_SESSION}&seq=2&field=content`, app.url));
    const body = res.body!.getReader();
    let got = (await body.read()).value!.length;
    const writer = new Database(join(app.home, 'hermetic.db'));
    const before = stored(HUGE_RESULT_SESSION, 2, 'content');
    try {
      writer.prepare('UPDATE messages SET content = ? WHERE session_id = ? AND seq = 2').run('rewritten', HUGE_RESULT_SESSION);
      await assert.rejects(async () => {
        for (;;) {
          const { done, value } = await body.read();
          if (done) break;
          got += value.length;
        }
      });
      assert.ok(got < 20_000_001, `${got} bytes arrived`);
      assert.equal((await api(`/api/message-text?id=${HUGE_RESULT_SESSION}&seq=2&field=content`)).body.toString(), 'rewritten');
    } finally {
      writer.prepare('UPDATE messages SET content = ? WHERE session_id = ? AND seq = 2').run(before, HUGE_RESULT_SESSION);
      writer.close();
    }
  });
});

it('calls whose JSON is past the cap: the first 8 listed, each parsed, with the count of all; every call\'s arguments whole from /api/message-text', async () => {
  const r = await api(`/api/session?id=${MANY_CALLS_SESSION}`);
  const m = r.body.transcript.messages[1];
  const stored10 = stored(MANY_CALLS_SESSION, 1, 'tool_calls');
  const all = JSON.parse(stored10) as { id: string; function: { name: string; arguments: string } }[];
  assert.deepEqual(m.cut, { tool_calls: { characters: stored10.length, bytes: stored10.length, calls: 10, shown: 8 } });
  assert.deepEqual(m.tool_calls, all.slice(0, 8).map((c) => ({ id: c.id, name: c.function.name, arguments: JSON.parse(c.function.arguments), cut: null })));
  // The ninth and tenth are not listed, and are there all the same.
  const tenth = await api(`/api/message-text?id=${MANY_CALLS_SESSION}&seq=1&field=arguments&call=9`);
  assert.equal(tenth.body.toString(), all[9]!.function.arguments);
  // A text within the cap comes whole, a NUL character in it and all (SQLite's substr would stop at it; decision 0094).
  assert.deepEqual([r.body.transcript.messages[0].content, r.body.transcript.messages[0].cut], ['write\u0000ten files', null]);
});

describe('a session of 500 messages of 100,000 characters each', () => {
  const page = async (query: string) => {
    const r = await api(`/api/session?id=${MANY_BIG_SESSION}&${query}`);
    assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 300));
    // Bounded: past the budget by at most the last message (≤ 32,768 characters of text).
    assert.ok(r.bytes < PAGE_BYTES + 100_000, `${r.bytes} bytes`);
    for (const m of r.body.transcript.messages) {
      assert.equal(m.content, `${m.seq} ${'m'.repeat(TEXT_CAP - `${m.seq} `.length)}`);
      assert.deepEqual(m.cut, { content: { characters: MANY + `${m.seq} `.length, bytes: MANY + `${m.seq} `.length } });
    }
    const t = r.body.transcript;
    return { ...t, seqs: t.messages.map((m: { seq: number }) => m.seq) };
  };
  const run = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

  it('a page stops once its messages reach 2 MiB (64 of them cut at 32 KiB); next_from is where its rest starts, asked for with from', async () => {
    // Before decision 0088 this page was the whole 50 MB of JSON (500 MB with messages of 1 MB: 18 s here); the first 64 messages' JSON passes 2 MiB.
    const first = await page('page_size=500');
    assert.deepEqual([first.page, first.page_size, first.pages, first.total, first.from, first.seqs, first.next_from], [1, 500, 1, 500, 0, run(0, 64), 64]);
    const second = await page('page_size=500&from=64');
    assert.deepEqual([second.from, second.seqs, second.next_from], [64, run(64, 64), 128]);
    // The page's end: what is left fits, and nothing follows.
    const last = await page('page_size=500&from=448');
    assert.deepEqual([last.from, last.seqs, last.next_from], [448, run(448, 52), null]);
  });

  it('pages keep their numbers: page 2 of 100 starts at #100 and its rest at its next_from, up to #199', async () => {
    const page2 = await page('page=2');
    assert.deepEqual([page2.page, page2.pages, page2.from, page2.seqs, page2.next_from], [2, 5, 100, run(100, 64), 164]);
    const rest = await page('page=2&from=164');
    assert.deepEqual([rest.page, rest.from, rest.seqs, rest.next_from], [2, 164, run(164, 36), null]);
  });
});

it('a "from" outside its page is refused with the page\'s bounds', async () => {
  for (const [query, text] of [
    ['from=4', '"from" must be a message of page 1 (#0 to #3); got 4.'],
    ['page_size=2&page=2&from=1', '"from" must be a message of page 2 (#2 to #3); got 1.'],
    ['from=x', '"from" must be a whole number from 0 to 1000000000; got "x".'],
    ['from=1&from=2', '"from" was given 2 times; give it once.'],
  ]) {
    const r = await api(`/api/session?id=${HUGE_RESULT_SESSION}&${query}`);
    assert.deepEqual([r.status, r.body], [400, { error: { code: 'HERMETIC_WEB_INVALID', message: text } }], query);
  }
  assert.deepEqual((await api(`/api/session?id=${HUGE_RESULT_SESSION}&page_size=2&page=2&from=3`)).body.transcript.messages.map((m: { seq: number }) => m.seq), [3]);
});

describe('a session whose title, cwd, system prompt and attributes are far past their caps (decision 0094)', () => {
  const t = BIG_SESSION_TEXTS;
  const sessionColumn = (id: string, column: string) => app.db.prepare(`SELECT ${column} FROM sessions WHERE session_id = ?`).pluck().get(id) as string;
  /** The big session's title as every answer gives it: its first 256 characters (é, then T). */
  const cutTitle = `é${'T'.repeat(TITLE_CAP - 1)}`;

  it('its view: each text cut in SQL with its whole length, its attributes measured rather than sent broken, its system prompt measured; the answer stays small', async () => {
    const [big, child] = costliest(app.db);
    const r = await api(`/api/session?id=${big}`);
    assert.equal(r.status, 200);
    // Before: the title, cwd and attributes whole, whatever their size (15 MB of JSON at 5 MB of title).
    assert.ok(r.bytes < 100_000, `the answer is ${r.bytes} bytes`);
    const s = r.body.session;
    assert.equal(s.title, cutTitle);
    assert.equal(s.cwd, `/${'d'.repeat(FIELD_CAP - 1)}`);
    assert.equal(s.attributes, null);
    assert.deepEqual(s.cut, { title: { characters: t.title, bytes: t.title + 1 }, cwd: { characters: t.cwd, bytes: t.cwd }, attributes: { characters: t.attributes, bytes: t.attributes } });
    assert.deepEqual(s.system_prompt_length, { characters: t.system_prompt, bytes: t.system_prompt });
    assert.equal(s.system_prompt, undefined, 'the system prompt itself is not sent');
    assert.deepEqual(r.body.limits, { title_characters: TITLE_CAP, field_characters: FIELD_CAP, attributes_characters: ATTRIBUTES_CAP, list_rows: LIST_ROWS });
    assert.deepEqual(r.body.more, { children: false, delegations: false, model_changes: false });
    assert.deepEqual(r.body.children.map((c: { session_id: string; cut: unknown }) => [c.session_id, c.cut]), [[child, null]]);
    const first = r.body.transcript.messages[0];
    assert.deepEqual([first.attributes, first.cut], [null, { attributes: { characters: t.messageAttributes, bytes: t.messageAttributes } }]);
    // Its child's view shows it as the parent: the title cut the same way.
    const c = (await api(`/api/session?id=${child}`)).body;
    assert.deepEqual([c.parent.session_id, c.parent.title, c.parent.cut], [big, cutTitle, { title: { characters: t.title, bytes: t.title + 1 } }]);
    // An ordinary session says nothing was cut.
    assert.deepEqual((await api(`/api/session?id=${child}`)).body.session.cut, null);
  });

  it('the lists of sessions carry its title cut with its whole length, and stay small', async () => {
    const [big] = costliest(app.db);
    // Trees the same (decision 0114): the big session is the first of its tree (its child is a branch of it).
    const lists = [
      { id: 'session_id', title: 'title', paths: ['/api/sessions?period=all&top=1000000', '/api/sessions?period=all', '/api/report?period=all&by=session', '/api/report?period=all&by=session&by=model&top=1000000'] },
      { id: 'tree', title: 'tree_title', paths: ['/api/trees?period=all&top=1000000', '/api/trees?period=all', '/api/report?period=all&by=tree&by=model&top=1000000'] },
    ];
    for (const { id, title, paths } of lists) {
      for (const path of paths) {
        const r = await api(path);
        assert.equal(r.status, 200, path);
        // Before: the title whole in each, whatever its size.
        assert.ok(r.bytes < 20_000, `${path}: ${r.bytes} bytes`);
        const row = r.body.rows.find((x: ReportRow) => x[id] === big);
        assert.deepEqual([row[title], row.cut], [cutTitle, { [title]: { characters: t.title, bytes: t.title + 1 } }], path);
        assert.ok(r.body.rows.filter((x: ReportRow) => x[id] !== big).every((x: ReportRow) => x.cut === undefined), path);
        assert.equal(r.body.stopped, undefined, path);
      }
    }
  });

  it('a list of sessions stops at its bytes: the rows a top of as many keeps, the rest summed into "other" as that top sums them', () => {
    const first = (title: unknown) => (typeof title === 'string' ? [...title].slice(0, TITLE_CAP).join('') : title);
    const strip = (rows: ReportRow[]) => rows.map(({ title, tree_title, cut, ...r }) => ({ ...r, title: first(title), tree_title: first(tree_title) }));
    for (const by of [['session'], ['session', 'model'], ['tree']]) {
      const all = usageReport(app.db, { by, top: 1000 }).rows;
      const bounded = usageReport(app.db, { by, top: 1000, bounds: { titleCharacters: TITLE_CAP, bytes: 1500 } });
      const kept = bounded.stopped!.rows;
      assert.ok(kept >= 1 && kept < all.length, `${by}: ${kept} rows kept of ${all.length}`);
      assert.deepEqual(bounded.stopped, { rows: kept, bytes: 1500 });
      // The rows kept reach the bytes, and one fewer would not have.
      const sizes = bounded.rows.filter((r) => r.other_rows === undefined).map((r) => Buffer.byteLength(JSON.stringify(r)));
      assert.ok(sizes.reduce((a, b) => a + b, 0) >= 1500 && sizes.slice(0, -1).reduce((a, b) => a + b, 0) < 1500, `${by}: ${sizes}`);
      assert.deepEqual(strip(bounded.rows), strip(usageReport(app.db, { by, top: kept }).rows), String(by));
      assert.equal(usageReport(app.db, { by, top: 1000, bounds: { titleCharacters: TITLE_CAP, bytes: 10_000_000 } }).stopped, undefined);
    }
  });

  it('/api/session-text gives each of its texts whole, as /api/message-text does a message\'s; what is not there or not asked right is refused', async () => {
    const [big] = costliest(app.db);
    for (const field of ['title', 'cwd', 'system_prompt', 'attributes']) {
      const want = sessionColumn(big, field);
      const r = await api(`/api/session-text?id=${big}&field=${field}`);
      assert.equal(r.status, 200, field);
      assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
      assert.equal(r.headers.get('content-length'), String(Buffer.byteLength(want)), field);
      assert.equal(sha(r.body), sha(want), field);
    }
    const attributes = await api(`/api/message-text?id=${big}&seq=0&field=attributes`);
    assert.equal(sha(attributes.body), sha(stored(big, 0, 'attributes')));
    const refused = async (query: string, status: number, code: string, message: string) => {
      const r = await api(`/api/session-text?${query}`);
      assert.deepEqual([r.status, r.body], [status, { error: { code, message } }], query);
    };
    const name = 'Name the text: /api/session-text?id=<session id>&field=<title, profile, source, model, provider, lineage_kind, cwd, git_repo_root, git_branch, end_reason, cost_status, system_prompt, attributes>.';
    await refused(`id=${big}`, 400, 'HERMETIC_WEB_INVALID', name);
    await refused('field=title', 400, 'HERMETIC_WEB_INVALID', name);
    await refused(`id=${big}&field=content`, 400, 'HERMETIC_WEB_INVALID', '"field" must be one of title, profile, source, model, provider, lineage_kind, cwd, git_repo_root, git_branch, end_reason, cost_status, system_prompt, attributes; got "content".');
    await refused(`id=${big}&field=title&offset=1`, 400, 'HERMETIC_WEB_INVALID', '"offset" is not a parameter of this endpoint; it takes id, store, machine, field.');
    await refused('id=nope&field=title', 404, 'HERMETIC_WEB_NOT_FOUND', 'The dataset has no session "nope".');
    await refused(`id=${HUGE_RESULT_SESSION}&field=system_prompt`, 404, 'HERMETIC_WEB_NOT_FOUND', `Session "${HUGE_RESULT_SESSION}" has no system prompt.`);
  });
});
