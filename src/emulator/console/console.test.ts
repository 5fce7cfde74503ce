// The console's routes over both transports: its files with their content types, the strict CSP and the caching
// validators; the redirect to the slash; 404s for unknown files and every traversal spelling; open without the admin
// key while every call the page makes still needs it; opening it creates, journals and counts nothing; and every
// route the page calls (assets/api.js) is a documented route of the OpenAPI document.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { describeTransports } from '../../../test/support/harness.js';
import { OPENAPI_DOCUMENT } from '../admin/openapi.generated.js';
import { ASSETS_DIR } from './assets.js';
import { CONSOLE_CSP } from './serve.js';

const KEY = 'admin-key-0123456789abcdef';
const FILES = readdirSync(ASSETS_DIR).sort();
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  svg: 'image/svg+xml',
};
const notFound = (path: string) => ({
  error: {
    code: 'HERMETIC_ADMIN_NOT_FOUND',
    message: `The console has no file at ${path}; open /__admin/ui/ (its files: ${FILES.join(', ')}).`,
  },
});

describeTransports('the console', (open, transport) => {
  test('GET /__admin/ui/ is the page: HTML, the strict CSP, no sniffing, revalidated by its ETag', async () => {
    const h = await open();
    const page = await h.request('GET', '/__admin/ui/', { auth: false });
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(page.headers['content-security-policy'], CONSOLE_CSP);
    assert.match(CONSOLE_CSP, /^default-src 'none'; script-src 'self'; style-src 'self'; /);
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.equal(page.headers['cache-control'], 'no-cache');
    assert.match(page.headers.etag!, /^"[0-9a-f]{16}"$/);
    assert.equal(page.text, readFileSync(new URL('index.html', ASSETS_DIR), 'utf8'));
    // Nothing inline the CSP would block: scripts and styles come from files.
    assert.doesNotMatch(page.text, /<script(?![^>]*\bsrc=)[^>]*>/);
    assert.doesNotMatch(page.text, /\sstyle=|<style/);
    assert.equal((await h.request('GET', '/__admin/ui/index.html', { auth: false })).text, page.text);

    const again = await h.request('GET', '/__admin/ui/', { auth: false, headers: { 'If-None-Match': page.headers.etag! } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    assert.equal(again.headers.etag, page.headers.etag);
    assert.equal(again.headers['content-length'], undefined);
    const changed = await h.request('GET', '/__admin/ui/', { auth: false, headers: { 'If-None-Match': '"0000000000000000"' } });
    assert.equal(changed.status, 200);
  });

  test('every file is served with its content type and the same headers; /__admin/ui redirects to the slash', async () => {
    const h = await open();
    for (const file of FILES) {
      const answer = await h.request('GET', `/__admin/ui/${file}`, { auth: false });
      assert.equal(answer.status, 200, file);
      assert.equal(answer.headers['content-type'], TYPES[file.split('.').pop()!], file);
      assert.equal(answer.headers['content-security-policy'], CONSOLE_CSP, file);
      assert.equal(answer.text, readFileSync(new URL(file, ASSETS_DIR), 'utf8'), file);
    }
    const bare = await h.request('GET', '/__admin/ui', { auth: false });
    assert.equal(bare.status, 308);
    assert.equal(bare.headers.location, '/__admin/ui/');
  });

  test('an unknown file is a 404 naming the files; no spelling of a path reaches outside them', async () => {
    const h = await open();
    const tries = [
      '/__admin/ui/nope.js',
      '/__admin/ui/assets.ts',
      '/__admin/ui/serve.ts',
      '/__admin/ui/..%2Fserve.ts',
      '/__admin/ui/..%2F..%2F..%2F..%2Fpackage.json',
      '/__admin/ui/%2e%2e%2f%2e%2e%2fadmin%2froutes.ts',
      '/__admin/ui/..%5cserve.ts',
      '/__admin/ui/%E0%A4%A',
      '/__admin/ui/sub/app.js',
      '/__admin/ui//app.js',
    ];
    // Only the raw HTTP client sends dot segments as they are (fetch's URL parser removes them first).
    if (transport === 'http') tries.push('/__admin/ui/../../../package.json', '/__admin/ui/./app.js');
    for (const path of tries) {
      const answer = await h.request('GET', path, { auth: false });
      assert.equal(answer.status, 404, path);
      assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8', path);
      assert.deepEqual(answer.json(), notFound(path), path);
    }
    const post = await h.request('POST', '/__admin/ui/', { auth: false, body: '{}' });
    assert.equal(post.status, 404);
    assert.deepEqual(post.json(), { error: { code: 'HERMETIC_ADMIN_NOT_FOUND', message: "POST is not allowed on /__admin/ui/; the console's pages are read with GET." } });
  });

  test('with an admin key the files are open (they hold no data) and every control call the page makes needs the key', async () => {
    const h = await open({ adminKey: KEY });
    for (const file of ['', ...FILES]) assert.equal((await h.request('GET', `/__admin/ui/${file}`, { auth: false })).status, 200, file);
    const refused = await h.request('GET', '/__admin/runs', { auth: false, headers: { 'x-hermetic-namespace': 'default' } });
    assert.equal(refused.status, 401);
    assert.equal(refused.json().error.code, 'HERMETIC_ADMIN_UNAUTHORIZED');
    assert.match(refused.json().error.message, /Only GET \/__admin\/health and the console's files \(GET \/__admin\/ui\/\) are open\.$/);
    // The page's own call: the key in x-hermetic-admin-key, the namespace in x-hermetic-namespace.
    const allowed = await h.request('GET', '/__admin/runs', { auth: false, headers: { 'x-hermetic-admin-key': KEY, 'x-hermetic-namespace': 'default' } });
    assert.equal(allowed.status, 200);
    // Under a namespace prefix the console is not served: /ns/<name>/__admin/ui/ is a control path like any other.
    assert.equal((await h.request('GET', '/ns/other/__admin/ui/', { auth: false })).status, 401);
  });

  test('opening the console creates no namespace, journals nothing and runs nothing', async () => {
    const h = await open();
    for (const file of ['', ...FILES, 'missing.js']) await h.request('GET', `/__admin/ui/${file}`, { auth: false });
    assert.deepEqual((await h.admin.namespaces()).namespaces.map((n) => n.name), ['default']);
    assert.deepEqual((await h.admin.requests()).requests, []);
    assert.deepEqual((await h.admin.runs()).runs, []);
  });
});

test('every route the console calls (assets/api.js) is a documented operation of the OpenAPI document', async () => {
  const { ROUTES } = (await import(new URL('api.js', ASSETS_DIR).href)) as { ROUTES: Record<string, [string, string]> };
  const paths = OPENAPI_DOCUMENT.paths as Record<string, Record<string, unknown>>;
  assert.ok(Object.keys(ROUTES).length >= 30);
  for (const [name, [method, path]] of Object.entries(ROUTES)) {
    assert.ok(paths[path]?.[method.toLowerCase()], `${name}: ${method} ${path} is not in the OpenAPI document`);
  }
});

test('the console loads nothing from another origin: every import is a sibling file, no URL names a host', () => {
  for (const file of FILES) {
    const text = readFileSync(new URL(file, ASSETS_DIR), 'utf8');
    if (file === 'favicon.svg') continue;
    assert.doesNotMatch(text, /(?:src|href)\s*=\s*"(?:https?:)?\/\//, file);
    assert.doesNotMatch(text, /\bfetch\(\s*['"`]https?:/, file);
    for (const [, target] of text.matchAll(/\bfrom\s+'([^']+)'/g)) {
      assert.match(target!, /^\.\/[a-z-]+\.js$/, `${file} imports ${target}`);
      assert.ok(FILES.includes(target!.slice(2)), `${file} imports ${target}, which is not a console file`);
    }
  }
});
