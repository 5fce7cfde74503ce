// The forwarder's config file: found in the home or named, checked, and never one of two read silently.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadForwarderConfig } from './config.js';

function home(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-config-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

test('the config in the home is read: sinks as URLs or mappings', (t) => {
  const dir = home({ 'config.yml': 'sinks:\n  - postgres://h@db/fleet\n  - { url: "sqlite:///tmp/x.db", redact: false }\n' });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.deepEqual(loadForwarderConfig(undefined, dir), {
    path: join(dir, 'config.yml'),
    sinks: [{ url: 'postgres://h@db/fleet', where: `In ${join(dir, 'config.yml')}, sinks.0` }, { url: 'sqlite:///tmp/x.db', redact: false, options: {}, where: `In ${join(dir, 'config.yml')}, sinks.1` }],
  });
  assert.deepEqual(loadForwarderConfig(undefined, join(dir, 'nothing-here')), { path: null, sinks: [] });
});

test('two config files in the home are refused, naming both; --config says which one is meant', (t) => {
  const dir = home({ 'config.yaml': 'sinks: []\n', 'config.json': '{"sinks": ["sqlite:///tmp/y.db"]}' });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.throws(() => loadForwarderConfig(undefined, dir), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'HERMETIC_CONFIG_INVALID');
    assert.match(e.message, /holds config\.yaml and config\.json; keep one \(or name it with --config FILE\)/);
    return true;
  });
  assert.deepEqual(loadForwarderConfig('config.json', dir, dir).sinks, [{ url: 'sqlite:///tmp/y.db', where: 'In config.json, sinks.0' }]);
});

test('a mistyped key is refused with the file, the key path and a suggestion', (t) => {
  const dir = home({ 'config.yaml': 'sinks:\n  - { url: "sqlite:///tmp/x.db", rdact: false }\n' });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.throws(() => loadForwarderConfig(undefined, dir), /In .*config\.yaml, sinks\.0\.rdact: Unknown sink option "rdact"\. Did you mean "redact"\?/);
});

test('a config entry whose sink refuses its settings is named by the file and the entry', async (t) => {
  const dir = home({ 'config.yaml': 'sinks:\n  - url: postgres://h@db/fleet\n    options:\n      stratgy: copy\n' });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { makeSinks } = await import('./sinks/remote/index.js');
  await assert.rejects(makeSinks(loadForwarderConfig(undefined, dir).sinks, dir), (e: Error & { code?: string }) => {
    assert.equal(e.message, `In ${join(dir, 'config.yaml')}, sinks.0: Unknown PostgreSQL sink option "stratgy". Did you mean "strategy"?`);
    return true;
  });
});
