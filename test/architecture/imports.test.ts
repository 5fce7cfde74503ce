// Imports run one way (DESIGN.md): shared/ imports nothing of ours; the emulator and the forwarder never import each
// other; the runs domain never sees HTTP; wire/ encodes and imports no layer above it; the pure stages (Python
// semantics, the redactor, the forwarder's normalizer and projector) import no I/O: no node:* module, no SQLite.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const SRC = resolve('src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * Every import of every source file: relative ones as paths relative to src/, bare ones (`node:fs`, `better-sqlite3`)
 * as written. Type-only imports count too: a pure stage should not even name an I/O type.
 */
function edges(): Array<{ from: string; to: string }> {
  const out: Array<{ from: string; to: string }> = [];
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8');
    const specifiers = [
      ...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'";]*?from\s+['"]([^'"]+)['"]/g),
      ...text.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g),
      ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    ].map((m) => m[1]!);
    for (const spec of specifiers) {
      const to = spec.startsWith('.') ? relative(SRC, resolve(dirname(file), spec.replace(/\.js$/, '.ts'))) : spec;
      out.push({ from: relative(SRC, file), to });
    }
  }
  return out;
}

const IO = /^(node:|fs$|path$|os$|child_process$|net$|http$|better-sqlite3$|pg$)/;

const RULES: Array<{ from: RegExp; to: RegExp; why: string }> = [
  { from: /^shared\//, to: /^(emulator|forwarder|state-db|cli|testing)\//, why: 'shared/ is a leaf' },
  { from: /^emulator\//, to: /^forwarder\//, why: 'the emulator and the forwarder never import each other' },
  { from: /^forwarder\//, to: /^emulator\//, why: 'the emulator and the forwarder never import each other' },
  { from: /^state-db\//, to: /^(emulator|forwarder)\//, why: 'state-db/ serves both halves' },
  { from: /^emulator\/runs\//, to: /^emulator\/(api|admin|serve|http|fetch|app)/, why: 'runs/ never sees HTTP' },
  { from: /^emulator\/sessions\//, to: /^emulator\/(api|admin|serve|http|fetch|app|store)/, why: 'sessions/ never sees HTTP or SQL' },
  { from: /^emulator\/wire\//, to: /^emulator\/(api|admin|serve|store|app)/, why: 'wire/ only encodes' },
  { from: /^emulator\/store\//, to: /^emulator\/(api|admin|serve|app)/, why: 'store/ only remembers' },
  { from: /^shared\/(python|redact)\//, to: IO, why: 'Python semantics and the redactor are pure' },
  { from: /^forwarder\/(normalize|projector)\//, to: IO, why: 'the normalizer and the projector do no I/O' },
  { from: /^forwarder\/(normalize|projector)\//, to: /^(shared\/(clock|sqlite|log)|forwarder\/(reader|sinks|checkpoint|pipeline))/, why: 'pure stages take no clock, database or sink' },
  { from: /^forwarder\/sinks\//, to: /^forwarder\/reader\//, why: 'sinks never see the reader' },
];

test('imports run one way', () => {
  const all = edges();
  assert.ok(all.length > 50, 'the scan sees the source tree');
  assert.ok(all.some((e) => e.to === 'better-sqlite3'), 'the scan sees bare specifiers');
  const broken = all.flatMap(({ from, to }) =>
    RULES.filter((r) => r.from.test(from) && r.to.test(to)).map((r) => `${from} → ${to} (${r.why})`),
  );
  assert.deepEqual(broken, []);
});

test('the rules catch what they name', () => {
  const hits = (from: string, to: string) => RULES.some((r) => r.from.test(from) && r.to.test(to));
  assert.ok(hits('forwarder/projector/session.ts', 'node:fs'));
  assert.ok(hits('forwarder/normalize/rows.ts', 'better-sqlite3'));
  assert.ok(hits('shared/python/dump.ts', 'node:crypto'));
  assert.ok(hits('shared/errors.ts', 'emulator/app.ts'));
  assert.ok(!hits('forwarder/reader/open.ts', 'better-sqlite3'));
});
