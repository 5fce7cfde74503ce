// `npm run bench:crash`: SIGKILL a real `hermetic serve` under concurrent keyed load (admissions, then completions
// through the control plane) at a random moment, 20 times; restart on the same store and count what clients had
// been answered and what the restarted gateway lost. The promise: nothing (decision 0016).
//   CRASH_ROUNDS=20 CRASH_CLIENTS=32 CRASH_RUN_TABLE=fast npm run bench:crash
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CRASH_KEY, crashRound } from '../test/support/crash-load.js';

const rounds = Number(process.env.CRASH_ROUNDS ?? 20);
const clients = Number(process.env.CRASH_CLIENTS ?? 64);
const table = process.env.CRASH_RUN_TABLE;

async function main(): Promise<void> {
  console.log(`hermetic crash bench: ${rounds} rounds, ${clients} concurrent clients, SIGKILL 300–3300 ms into the load${table ? `, --run-table ${table}` : ''}`);
  let acknowledged = 0;
  let completions = 0;
  let lost = 0;
  for (let round = 1; round <= rounds; round++) {
    const db = join(mkdtempSync(join(tmpdir(), 'hermetic-crash-bench-')), 'runs_idempotency.db');
    const killAfterMs = 300 + Math.floor(Math.random() * 3000);
    const args = ['--port', '0', '--db', db, '--api-key', CRASH_KEY, ...(table ? ['--run-table', table] : [])];
    const r = await crashRound({ args, clients, killAfterMs });
    acknowledged += r.acknowledged;
    completions += r.visibleCompletions;
    lost += r.lostAdmissions.length + r.lostCompletions.length;
    console.log(
      `round ${String(round).padStart(2)}: kill at ${String(killAfterMs).padStart(4)} ms; ${String(r.acknowledged).padStart(5)} admissions acknowledged, ` +
        `${String(r.visibleCompletions).padStart(5)} completions seen; lost ${r.lostAdmissions.length} admissions, ${r.lostCompletions.length} completions`,
    );
    for (const line of [...r.lostAdmissions, ...r.lostCompletions].slice(0, 5)) console.log(`  lost: ${line}`);
  }
  console.log(`\ntotal: ${acknowledged} acknowledged admissions, ${completions} visible completions; ${lost} lost`);
  if (lost > 0) process.exitCode = 1;
}

void main();
