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
    sinks: [{ url: 'postgres://h@db/fleet' }, { url: 'sqlite:///tmp/x.db', redact: false, options: {} }],
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
  assert.deepEqual(loadForwarderConfig('config.json', dir, dir).sinks, [{ url: 'sqlite:///tmp/y.db' }]);
});

test('a mistyped key is refused with the file, the key path and a suggestion', (t) => {
  const dir = home({ 'config.yaml': 'sinks:\n  - { url: "sqlite:///tmp/x.db", rdact: false }\n' });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.throws(() => loadForwarderConfig(undefined, dir), /In .*config\.yaml, sinks\.0\.rdact: Unknown sink option "rdact"\. Did you mean "redact"\?/);
});
