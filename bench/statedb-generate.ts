// Benchmark: synthetic state.db generation (2,000 sessions / 100,000 messages) against raw batched INSERTs of the
// very rows it generated, into a fresh store of the same schema, measured in the same run. The store's triggers
// (full-text indexes, display order) run for both, so the ratio is the generator's own overhead (goal >= 0.5x).
// Run alone: npm run build && npx tsx bench/statedb-generate.ts
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

// The compiled package (`npm run bench` builds it first), as `hermetic statedb generate` runs it. Loaded by URL, so
// type-checking the repository needs no build (`npm install` no longer builds); the types are the sources'.
const { generate } = (await import(new URL('../dist/state-db/generate/index.js', import.meta.url).href)) as typeof import('../src/state-db/generate/index.js');
const { createStore } = (await import(new URL('../dist/state-db/schema/index.js', import.meta.url).href)) as typeof import('../src/state-db/schema/index.js');

const SESSIONS = 2000;
const MESSAGES = 100_000;
const BATCH = 1000;

/** Every row of the generated store's own tables (not the trigger-maintained full-text tables), in table order. */
function readRows(path: string): Array<{ table: string; columns: string[]; rows: unknown[][] }> {
  const db = new Database(path, { readonly: true });
  const virtual = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'").pluck().all() as string[]);
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid").pluck().all() as string[])
    .filter((t) => !virtual.some((v) => t === v || t.startsWith(`${v}_`)));
  const out = tables.map((table) => {
    const stmt = db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).raw();
    return { table, columns: stmt.columns().map((c) => c.name), rows: stmt.all() as unknown[][] };
  });
  db.close();
  return out;
}

/** Inserts those rows into a fresh store in transactions of BATCH rows; returns the milliseconds spent inserting. */
function rawInserts(path: string, level: number, data: ReturnType<typeof readRows>): number {
  const db = createStore({ path, level, journal: 'wal' });
  db.pragma('synchronous = OFF');
  const t0 = performance.now();
  for (const { table, columns, rows } of data) {
    // Rows the fresh store already holds (its schema_version and state_meta) are replaced, not duplicated.
    const insert = db.prepare(`INSERT OR REPLACE INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    for (let k = 0; k < rows.length; k += BATCH) {
      db.transaction(() => {
        for (const row of rows.slice(k, k + BATCH)) insert.run(row);
      })();
    }
  }
  const ms = performance.now() - t0;
  db.close();
  return ms;
}

const dir = mkdtempSync(join(tmpdir(), 'hermetic-bench-statedb-'));
try {
  const g0 = performance.now();
  const result = generate({ out: join(dir, 'generated.db'), sessions: SESSIONS, messages: MESSAGES, seed: 'bench' });
  const genMs = performance.now() - g0;
  const rawMs = rawInserts(join(dir, 'raw.db'), result.level, readRows(join(dir, 'generated.db')));
  const ratio = rawMs / genMs;
  console.log(`statedb generate: ${result.sessions} sessions / ${result.messages} messages in ${genMs.toFixed(0)} ms ` +
    `(${(result.messages / (genMs / 1000)).toFixed(0)} msg/s)`);
  console.log(`raw batched INSERTs of the same rows, same schema: ${rawMs.toFixed(0)} ms (${(result.messages / (rawMs / 1000)).toFixed(0)} msg/s)`);
  console.log(`ratio (generate speed / raw speed): ${ratio.toFixed(2)}x (goal >= 0.5x)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
