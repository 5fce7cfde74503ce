// aiohttp's parser refusals as node:http answers them (decision 0046): the limits, single-value headers and Host,
// repeated headers read as their first value, and aiohttp's Connection header. Raw sockets: every byte is the test's.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startServer, type ServerHandle } from './node.js';
import { bytesRepr, parserRefusal } from './parser-limits.js';

const KEY = 'test-key-0123456789abcdef';
const AUTH = `Authorization: Bearer ${KEY}\r\n`;

function raw(server: ServerHandle, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.end(Buffer.from(bytes, 'latin1'));
  });
}

/** Status line, header lines (Date left out) and body. */
function parse(text: string): { status: string; headers: string[]; body: string } {
  const [head, ...rest] = text.split('\r\n\r\n');
  const [status, ...headers] = head!.split('\r\n');
  return { status: status!, headers: headers.filter((h) => !h.startsWith('Date: ')), body: rest.join('\r\n\r\n') };
}

const page = (body: string) => ({
  status: 'HTTP/1.0 400 Bad Request',
  headers: ['Content-Type: text/plain; charset=utf-8', `Content-Length: ${Buffer.byteLength(body)}`, 'Server: Python/3.11 aiohttp/3.14.3'],
  body,
});

describe('parserRefusal', () => {
  const head = (rawHeaders: string[], url = '/v1/runs', httpVersion = '1.1') => parserRefusal({ url, httpVersion, rawHeaders });
  it('a request target past 8190 bytes, shown as a bytearray of its first 100 bytes', () => {
    assert.equal(head(['Host', 'x'], '/' + 'a'.repeat(8189)), null);
    assert.equal(head(['Host', 'x'], '/' + 'a'.repeat(8190)), `Got more than 8190 bytes when reading: bytearray(b'/${'a'.repeat(99)}...').`);
  });
  it('a value past 8190 bytes (the first header counts its name too); a name counted with the one before it', () => {
    assert.equal(head(['Host', 'x', 'X-A', 'v'.repeat(8190)]), null);
    assert.match(head(['Host', 'x', 'X-A', 'v'.repeat(8191)])!, /^Got more than 8190 bytes when reading: b'v{100}\.\.\.'\.$/);
    assert.equal(head(['X-A', 'v'.repeat(8187), 'Host', 'x']), null);
    assert.notEqual(head(['X-A', 'v'.repeat(8188), 'Host', 'x']), null);
    assert.equal(head(['Host', 'x', 'N'.repeat(8187), '1']), `Got more than 8190 bytes when reading: b'Host${'N'.repeat(96)}...'.`);
  });
  it('more than 128 headers; a second single-value header; HTTP/1.1 without Host', () => {
    const many = (n: number) => ['Host', 'x', ...Array.from({ length: n - 1 }, (_, i) => [`X-${i}`, '1']).flat()];
    assert.equal(head(many(128)), null);
    assert.equal(head(many(129)), 'Too many headers received');
    assert.equal(head(['Host', 'x', 'user-agent', 'a', 'User-Agent', 'b']), "Duplicate 'User-Agent' header found.");
    assert.equal(head(['Host', 'x', 'etag', 'a', 'ETAG', 'b']), "Duplicate 'ETag' header found.");
    assert.equal(head([]), "Missing 'Host' header in request.");
    assert.equal(head([], '/', '1.0'), null);
  });
  it("Python's bytes repr", () => {
    assert.equal(bytesRepr(Buffer.from("a'b")), `b"a'b"`);
    assert.equal(bytesRepr(Buffer.from('a\'"\\\t\x00\xff', 'latin1')), `b'a\\'"\\\\\\t\\x00\\xff'`);
  });
});

describe('node:http answers as aiohttp', () => {
  let server: ServerHandle;
  before(async () => {
    server = await startServer({ port: 0, apiKey: KEY, time: 1789169800, frozen: true });
  });
  after(() => server.close());

  it("the parser's refusals are its HTTP/1.0 400 page, and the connection closes", async () => {
    const long = await raw(server, `GET /v1/runs/x HTTP/1.1\r\nHost: x\r\nX-A: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.deepEqual(parse(long), page(`Got more than 8190 bytes when reading: b'${'a'.repeat(100)}...'.`));
    const many = Array.from({ length: 200 }, (_, i) => `X-${i}: 1\r\n`).join('');
    assert.deepEqual(parse(await raw(server, `GET /health HTTP/1.1\r\nHost: x\r\n${many}\r\n`)), page('Too many headers received'));
    assert.deepEqual(parse(await raw(server, 'GET /health HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n')), page("Duplicate 'Host' header found."));
    assert.deepEqual(parse(await raw(server, 'GET /health HTTP/1.1\r\n\r\n')), page("Missing 'Host' header in request."));
  });

  it("the longest head aiohttp reads to its end gets aiohttp's answer; a head longer than that, node's 431 (decision 0135)", async () => {
    // Target 8190 bytes; Host and its value 8190 together; then 128 headers of 8190-byte values whose names, two
    // neighbours together, come to 8190. aiohttp reads all of it and refuses the 129th header when the head ends.
    const headers = [`Host: ${'h'.repeat(8186)}`];
    for (let i = 2; i <= 129; i++) headers.push(`${i % 2 === 0 ? 'N'.repeat(8186) : `X-${String(i).padStart(2, '0').slice(-2)}`}: ${'v'.repeat(8190)}`);
    const head = (last: string) => `GET /${'a'.repeat(8189)} HTTP/1.1\r\n${[...headers.slice(0, -1), last].join('\r\n')}\r\n\r\n`;
    const longest = head(headers.at(-1)!);
    assert.equal(parse(await raw(server, longest)).body, 'Too many headers received');
    // One byte more anywhere passes one of aiohttp's limits, which aiohttp refuses before the head ends.
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(server.port, '127.0.0.1');
      let text = '';
      socket.on('data', (c) => (text += c.toString('latin1')));
      socket.on('error', () => {});
      socket.on('close', () => resolve(text));
      socket.write(head(`${headers.at(-1)!}v`));
    });
    assert.equal(answer.split('\r\n')[0], 'HTTP/1.1 431 Request Header Fields Too Large');
  });

  it('a repeated header is read as its first value: Idempotency-Key, X-Hermes-Session-Key, Origin', async () => {
    const body = '{"input":"x"}';
    const post = (headers: string) =>
      raw(server, `POST /v1/runs HTTP/1.1\r\nHost: x\r\n${AUTH}${headers}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    const keyed = parse(await post('Idempotency-Key: k-1\r\nIdempotency-Key: k 2\r\nX-Hermes-Session-Key: s1\r\nX-Hermes-Session-Key: s2\r\n'));
    assert.equal(keyed.status, 'HTTP/1.1 202 Accepted');
    assert.equal(keyed.headers[0], 'X-Hermes-Session-Key: s1');
    const replay = parse(await post('Idempotency-Key: k-1\r\nX-Hermes-Session-Key: s1\r\n'));
    assert.deepEqual(replay.headers.slice(0, 2), ['Idempotency-Replayed: true', 'X-Hermes-Session-Key: s1']);
    // Hermes sees the first Origin, empty: no CORS refusal.
    assert.equal(parse(await post('Origin: \r\nOrigin: http://evil.test\r\n')).status, 'HTTP/1.1 202 Accepted');
  });

  it("aiohttp's Connection header: none on a kept HTTP/1.1 connection, keep-alive to HTTP/1.0 asking for it, none to plain HTTP/1.0", async () => {
    const health = (version: string, extra = '') => raw(server, `GET /health HTTP/${version}\r\nHost: x\r\n${extra}\r\n`);
    const connection = (text: string) => parse(text).headers.filter((h) => /^(connection|keep-alive):/i.test(h));
    assert.deepEqual(connection(await health('1.1', 'Connection: close\r\n')), ['Connection: close']);
    assert.deepEqual(connection(await health('1.0')), []);
    // Kept alive: ask for a second answer on the same socket to end it.
    const kept = await raw(server, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.deepEqual(connection(kept.split('HTTP/1.1 200 OK')[1]!), []);
    const kept10 = await raw(server, 'GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /health HTTP/1.0\r\n\r\n');
    assert.deepEqual(connection(kept10.split('HTTP/1.1 200 OK')[1]!), ['Connection: keep-alive']);
  });
});
