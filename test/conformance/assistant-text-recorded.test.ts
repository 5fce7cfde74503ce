// A model response's text reaches the rows as Hermes's agent stores it (decision 0153): build_assistant_message strips
// its think blocks, `.strip()`s it and redacts it, and takes inline <think> blocks as the reasoning; the wire carries
// what the agent gave the gateway (the callback's text, the final_response), unredacted. The heartbeat's "starting API
// call #N" after the first is never the first touch of its moment. Over both transports, both sinks.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { frames, openChatStream } from '../support/chat-stream.js';
import { describeTransports, T0, type Harness } from '../support/harness.js';
import { submit } from '../support/runs.js';
import { createSession } from '../support/sessions.js';

type Row = Record<string, unknown>;

const SECRET = 'sk-proj-abcdefghijklmnop1234';
/** The redactor's mask of SECRET (spec redaction §6 vector 1). */
const MASKED = 'sk-pro...1234';

const statePath = () => join(mkdtempSync(join(tmpdir(), 'hermetic-text-')), 'state.db');

function fileRows(path: string, session: string): Row[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT role, content, reasoning, reasoning_content FROM messages WHERE session_id = ? ORDER BY id').all(session) as Row[];
  } finally {
    db.close();
  }
}

/** The API server's rows, in the file's columns (a column the row lacks is null, as in the file). */
async function apiRows(h: Harness, session: string): Promise<Row[]> {
  const reply = await h.request('GET', `/api/sessions/${session}/messages`);
  assert.equal(reply.status, 200, reply.text);
  return (reply.json().data as Row[]).map((m) => ({
    role: m.role, content: m.content, reasoning: m.reasoning ?? null, reasoning_content: m.reasoning_content ?? null,
  }));
}

/** The data of each event a /v1/runs event stream carried. */
const runEvents = (text: string): Row[] =>
  text.split('\n\n').filter((f) => f.startsWith('data: ')).map((f) => JSON.parse(f.slice('data: '.length)) as Row);

const row = (role: string, content: unknown, reasoning: string | null = null): Row =>
  ({ role, content, reasoning, reasoning_content: reasoning });

describeTransports('a response\'s text as the agent stores it (decision 0153)', (open) => {
  it('a response\'s text and the final answer are stored stripped of think blocks and whitespace and redacted; the wire carries them as given', async () => {
    const path = statePath();
    const h = await open({ stateDb: path });
    const run = await submit(h, `{"input":"use ${SECRET}","session_id":"conv-text"}`);
    const stream = await h.events(`/v1/runs/${run}/events`);
    const said = `  <thinking>which file?</thinking>Reading the config with ${SECRET}.\n`;
    await h.admin.event(run, { event: 'reasoning.available', text: said });
    await h.admin.event(run, { event: 'tool.started', tool: 'read_file', arguments: { path: '.env' } });
    await h.admin.event(run, { event: 'tool.completed', tool: 'read_file', result: `OPENAI_API_KEY=${SECRET}` });
    const output = `The key is ${SECRET}.`;
    await h.admin.complete(run, { output, usage: { input_tokens: 9, output_tokens: 4 } });

    // The gateway forwards the callback's text and the agent's final_response as they are.
    const events = runEvents(await stream.ended);
    assert.deepEqual(events.map((e) => [e.event, e.text ?? e.output ?? null]), [
      ['reasoning.available', said], ['tool.started', null], ['tool.completed', null], ['run.completed', output],
    ]);
    assert.equal((await h.request('GET', `/v1/runs/${run}`)).json().output, output);

    // The user message and the tool's result are stored as they came; the responses as build_assistant_message stores them.
    const expected = [
      row('user', `use ${SECRET}`), row('assistant', `Reading the config with ${MASKED}.`),
      row('tool', `OPENAI_API_KEY=${SECRET}`), row('assistant', `The key is ${MASKED}.`),
    ];
    assert.deepEqual(await apiRows(h, 'conv-text'), expected);
    await h.close();
    assert.deepEqual(fileRows(path, 'conv-text'), expected);
  });

  it('with HERMES_REDACT_SECRETS off (redactSecrets: false) the responses are stored as given, only stripped (decision 0165)', async () => {
    const path = statePath();
    const h = await open({ stateDb: path, redactSecrets: false });
    const run = await submit(h, `{"input":"use ${SECRET}","session_id":"conv-raw"}`);
    await h.admin.event(run, { event: 'reasoning.available', text: `  Reading the config with ${SECRET}.\n` });
    await h.admin.event(run, { event: 'tool.started', tool: 'read_file', arguments: { path: '.env' } });
    await h.admin.event(run, { event: 'tool.completed', tool: 'read_file', result: 'ok' });
    await h.admin.complete(run, { output: `The key is ${SECRET}.` });
    const expected = [
      row('user', `use ${SECRET}`), row('assistant', `Reading the config with ${SECRET}.`), row('tool', 'ok'), row('assistant', `The key is ${SECRET}.`),
    ];
    assert.deepEqual(await apiRows(h, 'conv-raw'), expected);
    await h.close();
    assert.deepEqual(fileRows(path, 'conv-raw'), expected);
  });

  it('inline <think> blocks are the row\'s reasoning and reasoning_content, unredacted; other tag forms only go', async () => {
    const path = statePath();
    const h = await open({ stateDb: path });
    const run = await submit(h, '{"input":"list","session_id":"conv-think"}');
    const stream = await h.events(`/v1/runs/${run}/events`);
    await h.admin.event(run, { event: 'reasoning.available', text: '<think>need ls</think>Listing.' });
    await h.admin.event(run, { event: 'tool.started', tool: 'terminal', arguments: { command: 'ls' } });
    await h.admin.event(run, { event: 'tool.completed', tool: 'terminal', result: 'a\nb' });
    await h.admin.event(run, { event: 'reasoning.available', text: '<REASONING_SCRATCHPAD>read a</REASONING_SCRATCHPAD>' });
    await h.admin.event(run, { event: 'tool.started', tool: 'read_file', arguments: { path: 'a' } });
    await h.admin.event(run, { event: 'tool.completed', tool: 'read_file', result: 'A' });
    const output = `<think>two files; a holds ${SECRET}</think>\n\nTwo files.`;
    await h.admin.complete(run, { output });
    const events = runEvents(await stream.ended);
    assert.deepEqual(events.filter((e) => e.event === 'run.completed').map((e) => e.output), [output], 'the output as the agent returned it');

    const reasoning = `two files; a holds ${SECRET}`;
    const expected = [
      row('user', 'list'), row('assistant', 'Listing.', 'need ls'), row('tool', 'a\nb'),
      row('assistant', ''), row('tool', 'A'), row('assistant', 'Two files.', reasoning),
    ];
    assert.deepEqual(await apiRows(h, 'conv-think'), expected);
    await h.close();
    assert.deepEqual(fileRows(path, 'conv-think'), expected);
  });

  it('a delegate child\'s answer is stored as its own agent stores it', async () => {
    const path = statePath();
    const h = await open({ stateDb: path });
    const run = await submit(h, '{"input":"delegate","session_id":"conv-parent"}');
    await h.admin.event(run, { event: 'subagent.start', goal: `check ${SECRET}`, child_session_id: 'child-text' });
    await h.admin.event(run, {
      event: 'subagent.complete', child_session_id: 'child-text', status: 'completed', summary: ` <think>ok</think>It works: ${SECRET} `,
    });
    await h.admin.complete(run, { output: 'Delegated.' });
    // The goal is the child's user message, stored as given.
    const expected = [row('user', `check ${SECRET}`), row('assistant', `It works: ${MASKED}`, 'ok')];
    assert.deepEqual(await apiRows(h, 'child-text'), expected);
    await h.close();
    assert.deepEqual(fileRows(path, 'child-text'), expected);
  });

  it('the chat stream\'s run.completed carries the stored messages, redacted; assistant.completed the answer as the agent gave it', async () => {
    const h = await open();
    await createSession(h, '{"id": "s"}');
    const { stream, runId } = await openChatStream(h, 's', '{"message": "go"}');
    await h.admin.event(runId, { event: 'reasoning.available', text: `Using ${SECRET}.` });
    await h.admin.event(runId, { event: 'tool.started', tool: 'terminal' });
    await h.admin.event(runId, { event: 'tool.completed', tool: 'terminal', result: 'ok' });
    await h.admin.complete(runId, { output: `<think>done</think>Done with ${SECRET}.` });
    const all = frames(await stream.ended);
    const progress = all.find((f) => f.event === 'tool.progress')!;
    assert.equal(progress.data.delta, `Using ${SECRET}.`, 'the callback\'s text, as the agent sent it');
    assert.equal(all.find((f) => f.event === 'assistant.completed')!.data.content, `<think>done</think>Done with ${SECRET}.`);
    const messages = all.find((f) => f.event === 'run.completed')!.data.messages as Row[];
    assert.deepEqual(messages.map((m) => [m.role, m.content, m.reasoning ?? null, m.reasoning_content ?? null]), [
      ['assistant', `Using ${MASKED}.`, null, null], ['tool', 'ok', null, null], ['assistant', `Done with ${MASKED}.`, 'done', 'done'],
    ]);
    assert.deepEqual((await apiRows(h, 's')).slice(1).map((m) => m.content), messages.map((m) => m.content), 'the session\'s rows');
    await h.close();
  });

  it('"starting API call #N" after the first is never written: it comes at the moment of "tool completed", and a later touch is the next event\'s own (decision 0151)', async () => {
    const path = statePath();
    const h = await open({ stateDb: path });
    const run = await submit(h, '{"input":"go","session_id":"conv-start"}');
    const activity = () => {
      const db = new Database(path, { readonly: true, fileMustExist: true });
      try {
        return db.prepare("SELECT last_activity_at, last_activity_description FROM sessions WHERE id = 'conv-start'").raw().get();
      } finally {
        db.close();
      }
    };
    await h.admin.clock({ advance: 10 });
    await h.admin.event(run, { event: 'tool.started', tool: 'terminal' });
    await h.admin.clock({ advance: 40 });
    // "tool completed", "tool results posted …" and "starting API call #2", all 50 s after the last write: none is due.
    await h.admin.event(run, { event: 'tool.completed', tool: 'terminal', duration: 40, result: 'ok' });
    assert.deepEqual(activity(), [T0, 'starting API call #1']);
    // 15 s into the second call (before its own 30 s notice) a stream chunk is the touch that finds the minute due.
    await h.admin.clock({ advance: 15 });
    await h.admin.event(run, { event: 'message.delta', delta: 'Do' });
    assert.deepEqual(activity(), [T0 + 65, 'receiving stream response']);
    await h.admin.complete(run, { output: 'Done.' });
    await h.close();
  });
});
