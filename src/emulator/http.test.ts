// The status line's reason phrase is aiohttp's (Python's HTTPStatus): the same over HTTP and through the in-process
// fetch, for every status a fault may answer; a status HTTPStatus does not name has none.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeSurrogateEscape } from '../shared/python/index.js';
import { headerFromWire, headerWireText, reasonPhrase } from './http.js';
import { createEmulator } from './index.js';
import { startServer, type ServerHandle } from './serve/node.js';

describe('reason phrases', () => {
  it('are Python\'s HTTPStatus phrases; an unnamed status has none', () => {
    assert.deepEqual([201, 204, 301, 418, 422, 502, 504].map(reasonPhrase),
      ['Created', 'No Content', 'Moved Permanently', "I'm a Teapot", 'Unprocessable Entity', 'Bad Gateway', 'Gateway Timeout']);
    assert.equal(reasonPhrase(599), '');
  });

  let server: ServerHandle;
  before(async () => {
    server = await startServer({ port: 0 });
  });
  after(() => server.close());

  for (const [status, phrase] of [[418, "I'm a Teapot"], [502, 'Bad Gateway'], [599, '']] as const) {
    it(`a fault answering ${status} says "${phrase}" over HTTP and in process`, async () => {
      const inProcess = createEmulator();
      try {
        for (const [fetcher, base] of [[globalThis.fetch, server.url], [inProcess.fetch, 'http://127.0.0.1:8642']] as const) {
          await fetcher(`${base}/__admin/reset`, { method: 'POST' });
          await fetcher(`${base}/__admin/faults`, { method: 'POST', body: JSON.stringify({ operation: 'health', action: 'respond', status }) });
          const res = await fetcher(`${base}/health`);
          await res.arrayBuffer();
          assert.deepEqual([res.status, res.statusText], [status, phrase], base);
        }
      } finally {
        inProcess.close();
      }
    });
  }
});

describe('header bytes as aiohttp reads and writes them (decision 0070)', () => {
  it("are read as UTF-8 with Python's surrogateescape: a lone surrogate per byte that is not part of a character", () => {
    // Python: bytes.fromhex(h).decode('utf-8', 'surrogateescape')
    const cases: Array<[string, string]> = [
      ['6162', 'ab'], ['c3a9', '\u00e9'], ['ff', '\udcff'], ['e282', '\udce2\udc82'], ['e28241', '\udce2\udc82A'],
      ['e282ac', '\u20ac'], ['e2e282ac', '\udce2\u20ac'], ['c0af', '\udcc0\udcaf'], ['e08080', '\udce0\udc80\udc80'],
      ['eda080', '\udced\udca0\udc80'], ['f09f9880', '\ud83d\ude00'], ['f4908080', '\udcf4\udc90\udc80\udc80'], ['80', '\udc80'],
    ];
    for (const [hex, text] of cases) assert.equal(decodeSurrogateEscape(Buffer.from(hex, 'hex')), text, hex);
    // Node hands header values over as latin-1 text, one character a byte.
    assert.equal(headerFromWire('chan-\xff'), 'chan-\udcff');
    assert.equal(headerFromWire('\xc3\xa9'), '\u00e9');
    assert.equal(headerFromWire('plain'), 'plain');
  });

  it('are written as UTF-8 without lone surrogates (aiohttp\'s C writer skips them); pairs stay', () => {
    assert.equal(headerWireText('chan-\udcff1'), 'chan-1');
    assert.equal(headerWireText('\u00e9\ud83d\ude00'), Buffer.from('\u00e9\ud83d\ude00', 'utf8').toString('latin1'));
    assert.equal(headerWireText('ascii'), 'ascii');
  });
});
