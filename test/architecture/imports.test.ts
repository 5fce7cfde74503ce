// Imports run one way (DESIGN.md): shared/ imports nothing of ours; the emulator and the forwarder never import each
// other; the runs domain never sees HTTP; wire/ encodes and imports no layer above it.
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

/** Every relative import of every source file, as paths relative to src/. */
function edges(): Array<{ from: string; to: string }> {
  const out: Array<{ from: string; to: string }> = [];
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g)) {
      const target = resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts'));
      out.push({ from: relative(SRC, file), to: relative(SRC, target) });
    }
  }
  return out;
}

const RULES: Array<{ from: RegExp; to: RegExp; why: string }> = [
  { from: /^shared\//, to: /^(emulator|forwarder|state-db|cli|testing)\//, why: 'shared/ is a leaf' },
  { from: /^emulator\//, to: /^forwarder\//, why: 'the emulator and the forwarder never import each other' },
  { from: /^forwarder\//, to: /^emulator\//, why: 'the emulator and the forwarder never import each other' },
  { from: /^state-db\//, to: /^(emulator|forwarder)\//, why: 'state-db/ serves both halves' },
  { from: /^emulator\/runs\//, to: /^emulator\/(api|admin|serve|http|fetch|app)/, why: 'runs/ never sees HTTP' },
  { from: /^emulator\/wire\//, to: /^emulator\/(api|admin|serve|store|app)/, why: 'wire/ only encodes' },
  { from: /^emulator\/store\//, to: /^emulator\/(api|admin|serve|app)/, why: 'store/ only remembers' },
];

test('imports run one way', () => {
  const all = edges();
  assert.ok(all.length > 50, 'the scan sees the source tree');
  const broken = all.flatMap(({ from, to }) =>
    RULES.filter((r) => r.from.test(from) && r.to.test(to)).map((r) => `${from} → ${to} (${r.why})`),
  );
  assert.deepEqual(broken, []);
});
