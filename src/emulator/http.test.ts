// The status line's reason phrase is aiohttp's (Python's HTTPStatus): the same over HTTP and through the in-process
// fetch, for every status a fault may answer; a status HTTPStatus does not name has none.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { reasonPhrase } from './http.js';
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
