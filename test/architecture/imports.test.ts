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

/**
 * The imports a module runs (type-only ones left out: `import type …`, or braces naming only `type` members), as
 * paths relative to src/ for relative imports and as written for bare ones.
 */
function runtimeGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8');
    const out = new Set<string>();
    const add = (spec: string) => out.add(spec.startsWith('.') ? relative(SRC, resolve(dirname(file), spec.replace(/\.js$/, '.ts'))) : spec);
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s+([^'";]*?)\s*from\s+['"]([^'"]+)['"]/g)) {
      const clause = m[1]!.trim();
      if (/^type\s/.test(clause)) continue;
      const braces = /^\{([\s\S]*)\}$/.exec(clause);
      const members = braces ? braces[1]!.split(',').map((x) => x.trim()).filter(Boolean) : [];
      if (braces && members.length > 0 && members.every((x) => x.startsWith('type '))) continue;
      add(m[2]!);
    }
    for (const m of text.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)) add(m[1]!);
    graph.set(relative(SRC, file), out);
  }
  return graph;
}

/** The strongly connected components of more than one module (Tarjan): each is an import cycle. */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.has(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Every module `from` loads, itself included (relative ones as paths under src/, packages as their names). */
function closure(graph: Map<string, Set<string>>, from: string): Set<string> {
  const seen = new Set<string>();
  const queue = [from];
  while (queue.length) {
    const v = queue.pop()!;
    if (seen.has(v)) continue;
    seen.add(v);
    for (const w of graph.get(v) ?? []) queue.push(w);
  }
  return seen;
}

const IO = /^(node:|fs$|path$|os$|child_process$|net$|http$|better-sqlite3$|pg$)/;

const RULES: Array<{ from: RegExp; to: RegExp; why: string }> = [
  { from: /^shared\//, to: /^(emulator|forwarder|state-db|cli|testing)\//, why: 'shared/ is a leaf' },
  { from: /^emulator\//, to: /^forwarder\//, why: 'the emulator and the forwarder never import each other' },
  { from: /^forwarder\//, to: /^emulator\//, why: 'the emulator and the forwarder never import each other' },
  { from: /^state-db\//, to: /^(emulator|forwarder)\//, why: 'state-db/ serves both halves' },
  { from: /^emulator\/runs\//, to: /^emulator\/(api|admin|serve|http|fetch|app)/, why: 'runs/ never sees HTTP' },
  { from: /^emulator\/runs\//, to: /^(emulator\/store\/|better-sqlite3$)/, why: 'runs/ has no SQL: store/ implements its ports' },
  { from: /^emulator\/sessions\//, to: /^emulator\/(api|admin|serve|http|fetch|app|store)/, why: 'sessions/ never sees HTTP or SQL' },
  { from: /^emulator\/wire\//, to: /^emulator\/(api|admin|serve|store|app)/, why: 'wire/ only encodes' },
  { from: /^emulator\/store\//, to: /^emulator\/(api|admin|serve|app)/, why: 'store/ only remembers' },
  { from: /^shared\/(python|redact)\//, to: IO, why: 'Python semantics and the redactor are pure' },
  { from: /^forwarder\/(normalize|projector|ledger)\//, to: IO, why: 'the normalizer, the projector and the ledger\'s rules do no I/O' },
  { from: /^forwarder\/(normalize|projector|ledger)\//, to: /^(shared\/(clock|sqlite|log)|forwarder\/(reader|sinks|checkpoint|pipeline|report))/, why: 'pure stages take no clock, database or sink' },
  { from: /^forwarder\/report\//, to: /^forwarder\/(reader|pipeline|sinks)\//, why: 'reports read the dataset through SQL, never the reader, the pipeline or a sink' },
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
  assert.ok(hits('forwarder/ledger/allocate.ts', 'node:fs'));
  assert.ok(hits('shared/python/dump.ts', 'node:crypto'));
  assert.ok(hits('shared/errors.ts', 'emulator/app.ts'));
  assert.ok(!hits('forwarder/reader/open.ts', 'better-sqlite3'));
});

test('no import cycle in src/ (type-only imports aside)', () => {
  const graph = runtimeGraph();
  assert.ok(graph.size > 50, 'the scan sees the source tree');
  assert.deepEqual(cycles(graph), []);
});

test('the cycle finder finds a cycle', () => {
  const graph = new Map([
    ['a.ts', new Set(['b.ts'])],
    ['b.ts', new Set(['c.ts'])],
    ['c.ts', new Set(['a.ts', 'd.ts'])],
    ['d.ts', new Set<string>()],
  ]);
  assert.deepEqual(cycles(graph), [['a.ts', 'b.ts', 'c.ts']]);
});

test('the admin client loads its route table, not the server: no handler, no prom-client, yaml or SQLite', () => {
  const loaded = closure(runtimeGraph(), 'emulator/admin/client.ts');
  const packages = [...loaded].filter((m) => !m.endsWith('.ts') && !m.startsWith('node:'));
  assert.deepEqual(packages, []);
  assert.ok(loaded.has('emulator/admin/routes.ts'));
  assert.ok(loaded.size <= 8, `the admin client loads ${loaded.size} modules: ${[...loaded].join(', ')}`);
});
