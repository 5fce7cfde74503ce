// How the request head is read, as aiohttp reads it (decision 0070), over both transports: an Expect header other
// than 100-continue, a fragment in the request target. Over HTTP, raw sockets then check what only the wire shows
// (the 100 Continue, HTTP/1.0, a pipelined request after a 417).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { it } from 'node:test';
import { startServer } from '../../src/emulator/serve/node.js';
import { DEFAULTS, describeTransports, K } from '../support/harness.js';
import { submit } from '../support/runs.js';

describeTransports('the request head', (open) => {
  it("an Expect header other than 100-continue is aiohttp's 417 page, before the profile, CORS and key checks", async () => {
    const h = await open();
    const refused = await h.request('POST', '/v1/runs', { body: '{"input":"hi"}', auth: false, headers: { Expect: 'foo', Origin: 'http://elsewhere.test' } });
    assert.equal(refused.status, 417);
    assert.equal(refused.text, 'Unknown Expect: foo');
    assert.equal(refused.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(refused.headers['content-security-policy'], undefined);
    assert.equal((await h.request('GET', '/p/nobody/v1/runs/run_x', { headers: { Expect: 'Foo' } })).text, 'Unknown Expect: Foo');
    assert.equal((await h.request('GET', '/nowhere', { headers: { Expect: 'x' } })).status, 417);
    assert.deepEqual((await h.admin.runs()).runs, []);
    // 100-continue, in any case, is no refusal.
    assert.equal((await h.request('POST', '/v1/runs', { body: '{"input":"hi"}', headers: { Expect: '100-Continue' } })).status, 202);
  });

  it('a fragment in the request target is neither the path nor the query', async () => {
    const h = await open();
    assert.equal((await h.request('GET', '/health#top')).status, 200);
    const runId = await submit(h);
    const run = await h.request('GET', `/v1/runs/${runId}#frag`);
    assert.equal(run.status, 200);
    assert.equal(run.json().run_id, runId);
    const sessions = await h.request('GET', '/api/sessions?limit=1#x');
    assert.equal(sessions.json().limit, 1);
  });
});

/** Sends bytes on one connection and reads until the server closes it. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(Buffer.from(bytes, 'latin1'));
  });
}

/** Every status line in what came back (a body without a newline may run into the next one). */
const statusLines = (text: string): string[] => text.match(/HTTP\/1\.[01] \d{3}[^\r]*/g) ?? [];

it('over HTTP: 100 Continue before the answer; the 417 leaves the connection for the next request; HTTP/1.0 has no 417', async () => {
  const server = await startServer({ ...DEFAULTS, port: 0 });
  try {
    const auth = `Authorization: Bearer ${K}\r\n`;
    const continued = await exchange(server.port, `POST /v1/runs HTTP/1.1\r\nHost: h\r\n${auth}Expect: 100-continue\r\nContent-Length: 14\r\nConnection: close\r\n\r\n{"input":"hi"}`);
    assert.deepEqual(statusLines(continued), ['HTTP/1.1 100 Continue', 'HTTP/1.1 202 Accepted']);
    // The refused request's body is not read as a request of its own: the pipelined one after it is answered.
    const pipelined = await exchange(server.port,
      `POST /v1/runs HTTP/1.1\r\nHost: h\r\n${auth}Expect: foo\r\nContent-Length: 14\r\n\r\n{"input":"hi"}GET /health HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`);
    assert.deepEqual(statusLines(pipelined), ['HTTP/1.1 417 Expectation Failed', 'HTTP/1.1 200 OK']);
    assert.ok(pipelined.includes('\r\n\r\nUnknown Expect: fooHTTP/1.1 200 OK'));
    // The first Expect decides, as aiohttp's headers.get().
    const first = await exchange(server.port, `GET /health HTTP/1.1\r\nHost: h\r\nExpect: foo\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`);
    assert.deepEqual(statusLines(first), ['HTTP/1.1 417 Expectation Failed']);
    const old = await exchange(server.port, 'GET /health HTTP/1.0\r\nExpect: foo\r\n\r\n');
    assert.deepEqual(statusLines(old), ['HTTP/1.1 200 OK']);
  } finally {
    await server.close();
  }
});
