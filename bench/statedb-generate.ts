// Benchmark: synthetic state.db generation (2,000 sessions / 100,000 messages) against raw batched INSERTs of the
// same row counts into the same schema, measured in the same run. Prints the speed ratio (goal >= 0.5x).
// Run alone: npx tsx bench/statedb-generate.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { generate } from '../src/state-db/generate/index.js';
import { createStore } from '../src/state-db/schema/index.js';

const SESSIONS = 2000;
const MESSAGES = 100_000;
const BATCH = 1000;

function rawInserts(path: string, sessions: number, messages: number): number {
  const db = createStore({ path, level: 31, journal: 'wal' });
  db.pragma('synchronous = OFF');
  const t0 = performance.now();
  const s = db.prepare('INSERT INTO sessions (id, source, model, started_at, message_count) VALUES (?, ?, ?, ?, ?)');
  const m = db.prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)');
  const perSession = Math.ceil(messages / sessions);
  const rows: [string, number][] = [];
  for (let i = 0; i < sessions; i++) {
    const id = `20260714_${String(100000 + i)}_${i.toString(16).padStart(6, '0')}`;
    for (let j = 0; j < perSession && rows.length < messages; j++) rows.push([id, j]);
  }
  db.transaction(() => {
    for (let i = 0; i < sessions; i++) s.run(`20260714_${String(100000 + i)}_${i.toString(16).padStart(6, '0')}`, 'cli', 'gpt-5', 1784024103 + i, perSession);
  })();
  for (let k = 0; k < rows.length; k += BATCH) {
    db.transaction(() => {
      for (const [id, j] of rows.slice(k, k + BATCH)) m.run(id, j % 2 ? 'assistant' : 'user', `Please check item ${j} in the repo.`, 1784024103 + j);
    })();
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
  const rawMs = rawInserts(join(dir, 'raw.db'), result.sessions, result.messages);
  const ratio = rawMs / genMs;
  console.log(`statedb generate: ${result.sessions} sessions / ${result.messages} messages in ${genMs.toFixed(0)} ms ` +
    `(${(result.messages / (genMs / 1000)).toFixed(0)} msg/s)`);
  console.log(`raw batched INSERTs (same rows, same schema): ${rawMs.toFixed(0)} ms (${(result.messages / (rawMs / 1000)).toFixed(0)} msg/s)`);
  console.log(`ratio (generate speed / raw speed): ${ratio.toFixed(2)}x (goal >= 0.5x)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
