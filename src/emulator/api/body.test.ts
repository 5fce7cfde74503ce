// request.json() over a Content-Encoding (decision 0046): what aiohttp decodes, refuses in the handler, or refuses at
// its parser.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateSync, gzipSync } from 'node:zlib';
import type { HttpRequest } from '../http.js';
import { ParserRefusal } from '../wire/responses.js';
import { readJson } from './body.js';
import { codingOf } from './content-encoding.js';

function request(body: Uint8Array, encodings: string[]): HttpRequest {
  return {
    method: 'POST',
    path: '/v1/runs',
    query: '',
    header: (name) => (name === 'content-encoding' ? encodings[0] : undefined),
    headerValues: (name) => (name === 'content-encoding' ? encodings : []),
    readBody: async () => body,
  };
}

describe('readJson with a Content-Encoding', () => {
  const json = Buffer.from('{"input": "hi"}');
  it('which values aiohttp decodes, and with what', () => {
    assert.deepEqual(['gzip', 'deflate', 'br', 'zstd', 'GZIP', 'Br', 'x-gzip', 'gzip, br', 'identity', undefined].map(codingOf),
      ['gzip', 'deflate', 'br', 'zstd', 'zlib', 'zlib', null, null, null, null]);
  });
  it('the last Content-Encoding counts (the C parser keeps overwriting it)', async () => {
    assert.ok(await readJson(request(gzipSync(json), ['identity', 'gzip'])));
    assert.equal(await readJson(request(gzipSync(json), ['gzip', 'identity'])), undefined);
  });
  it('a gzip member cut before its trailer still decodes; bytes after it that are no member fail', async () => {
    const gz = gzipSync(json);
    assert.ok(await readJson(request(gz.subarray(0, gz.length - 6), ['gzip'])));
    assert.equal(await readJson(request(Buffer.concat([gz, Buffer.from('junk')]), ['gzip'])), undefined);
    assert.ok(await readJson(request(Buffer.concat([gz, gzipSync(Buffer.from(' '))]), ['gzip'])));
  });
  it('a deflate stream cut short is the parser\'s 400 page "deflate"', async () => {
    await assert.rejects(readJson(request(deflateSync(json).subarray(0, 10), ['deflate'])), (e: unknown) => {
      assert.ok(e instanceof ParserRefusal);
      assert.equal(e.response.status, 400);
      assert.equal(e.response.body, 'deflate');
      assert.equal(e.response.parserPage, true);
      return true;
    });
  });
});

describe('readJson when the body cannot be read', () => {
  it('is the caller\'s bad body, as Hermes catches the exception aiohttp raises, and no bug of ours', async () => {
    const failing: HttpRequest = { method: 'POST', path: '/v1/runs', query: '', header: () => undefined, readBody: () => Promise.reject(new TypeError('terminated')) };
    assert.equal(await readJson(failing), undefined);
  });
});
