// How the request head is read, as aiohttp reads it (decision 0070), over both transports: an Expect header other
// than 100-continue, a fragment in the request target, percent-escapes in the path, and header bytes that are not
// UTF-8. Over HTTP, raw sockets then check what only the wire shows (the 100 Continue, HTTP/1.0, a pipelined request
// after a 417).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { it } from 'node:test';
import { startServer } from '../../src/emulator/serve/node.js';
import { DEFAULTS, describeTransports, K } from '../support/harness.js';
import { submit } from '../support/runs.js';

const PAGE_500 = '500 Internal Server Error\n\nServer got itself in trouble';
/** A body as bytes: node's client then writes the head apart, in latin-1, so each header character is one byte. */
const HI = new TextEncoder().encode('{"input":"hi"}');

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

  it("a run id's escapes decode one by one, as yarl does; an escape that does not decode stays as written", async () => {
    const h = await open();
    for (const [raw, id] of [['%41%zz', 'A%zz'], ['%41%ff', 'A%ff'], ['%C3%25', '%C3%'], ['%E2%82%AC', '\\u20ac']]) {
      const reply = await h.request('GET', `/v1/runs/${raw}`);
      assert.equal(reply.status, 404, raw);
      assert.equal(reply.text, `{"error": {"message": "Run not found: ${id}", "type": "invalid_request_error", "param": null, "code": "run_not_found"}}`, raw);
    }
  });

  it("a Bearer token whose bytes are not UTF-8 makes Hermes's key check raise: aiohttp's 500 page, also for a new namespace", async () => {
    const h = await open();
    for (const path of ['/v1/runs/run_x', '/ns/fresh/v1/capabilities', '/api/sessions']) {
      const reply = await h.request('GET', path, { headers: { Authorization: 'Bearer key\xff' } });
      assert.equal(reply.status, 500, path);
      assert.equal(reply.text, PAGE_500, path);
      assert.equal(reply.headers.connection, 'close', path);
      assert.equal(reply.headers['content-security-policy'], undefined, path);
    }
    // A token in valid UTF-8 (é) is only a wrong key.
    assert.equal((await h.request('GET', '/v1/runs/run_x', { headers: { Authorization: 'Bearer key\xc3\xa9' } })).status, 401);
  });

  it('X-Hermes-Session-Key bytes that are not UTF-8: counted and echoed as aiohttp reads and writes them', async () => {
    const h = await open();
    // Each undecodable byte is one code point (surrogateescape), not one U+FFFD per broken sequence: 129 × E2 82 is
    // 258 code points, past the 256 allowed.
    const long = await h.request('POST', '/v1/runs', { body: HI, headers: { 'X-Hermes-Session-Key': '\xe2\x82'.repeat(129) } });
    assert.equal(long.status, 400);
    assert.equal(long.text, '{"error": {"message": "Session key too long", "type": "invalid_request_error"}}');
    assert.equal((await h.request('POST', '/v1/runs', { body: HI, headers: { 'X-Hermes-Session-Key': '\xe2\x82'.repeat(128) } })).status, 202);
    // aiohttp's header writer skips the lone surrogates those bytes became.
    const echoed = await h.request('POST', '/v1/runs', { body: HI, headers: { 'X-Hermes-Session-Key': 'chan-\xff1' } });
    assert.equal(echoed.status, 202);
    assert.equal(echoed.headers['x-hermes-session-key'], 'chan-1');
    // Keyed, the fingerprint's .encode("utf-8") raises.
    const keyed = await h.request('POST', '/v1/runs', { body: HI, headers: { 'X-Hermes-Session-Key': 'chan-\xff', 'Idempotency-Key': 'k1' } });
    assert.equal(keyed.status, 500);
    assert.equal(keyed.text, PAGE_500);
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

it("over HTTP: aiohttp's 500 page closes the connection, saying so to HTTP/1.1 only", async () => {
  const server = await startServer({ ...DEFAULTS, port: 0 });
  try {
    const auth = `Authorization: Bearer ${K}\r\n`;
    const connection = (text: string) => text.split('\r\n\r\n')[0]!.split('\r\n').filter((h) => /^connection:/i.test(h));
    // A non-object body makes Hermes raise; the request pipelined after it on a connection that could have been kept
    // is never answered. (Data after a request that closes the connection anyway is a parser error in both servers.)
    const next = 'GET /health HTTP/1.0\r\n\r\n';
    const http11 = await exchange(server.port, `POST /v1/runs HTTP/1.1\r\nHost: h\r\n${auth}Content-Length: 2\r\n\r\n[]${next}`);
    assert.deepEqual(statusLines(http11), ['HTTP/1.1 500 Internal Server Error']);
    assert.deepEqual(connection(http11), ['Connection: close']);
    for (const ask of ['', 'Connection: keep-alive\r\n']) {
      const http10 = await exchange(server.port, `POST /v1/runs HTTP/1.0\r\n${ask}${auth}Content-Length: 2\r\n\r\n[]${ask ? next : ''}`);
      assert.deepEqual(statusLines(http10), ['HTTP/1.1 500 Internal Server Error'], ask);
      assert.deepEqual(connection(http10), [], ask);
    }
  } finally {
    await server.close();
  }
});
