// SIGKILL under load: clients admit keyed runs and complete them through the control plane, recording every answer
// they got; the server is killed at a random moment, restarted on the same store, and every recorded answer is
// checked against what the restarted gateway says. Used by test/cli/crash.test.ts and bench/crash.ts.
import { spawnServe, type ServeProcess } from './process.js';

export const CRASH_KEY = 'test-key-0123456789abcdef';
const auth = { Authorization: `Bearer ${CRASH_KEY}`, 'Content-Type': 'application/json' };

export interface CrashRound {
  /** Admissions answered 202 (new run) before the kill. */
  acknowledged: number;
  /** Completions a client saw (control answer or GET) before the kill. */
  visibleCompletions: number;
  /** Acknowledged runs the restarted gateway does not know, or whose key no longer replays them. */
  lostAdmissions: string[];
  /** Completions a client saw that the restarted gateway reports otherwise. */
  lostCompletions: string[];
}

interface Seen {
  key: string;
  runId: string;
  completed: boolean;
}

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { ...auth, ...headers }, body });
  return { status: res.status, text: await res.text() };
}

/** One client: admit, complete, read back, again and again until the server goes away. */
async function client(url: string, id: number, seen: Seen[], stop: { dead: boolean }): Promise<void> {
  for (let i = 0; !stop.dead; i++) {
    const key = `c${id}-${i}`;
    try {
      const admitted = await post(`${url}/v1/runs`, JSON.stringify({ input: `work ${key}` }), { 'Idempotency-Key': key });
      if (admitted.status !== 202) continue;
      const { run_id: runId, replayed } = JSON.parse(admitted.text) as { run_id: string; replayed: boolean };
      if (replayed) continue;
      const entry: Seen = { key, runId, completed: false };
      seen.push(entry);
      const done = await post(`${url}/__admin/runs/${runId}/complete`, JSON.stringify({ output: `done ${key}` }));
      if (done.status === 200 && (JSON.parse(done.text) as { status: string }).status === 'completed') entry.completed = true;
    } catch {
      return; // the server died under us
    }
  }
}

export interface CrashOptions {
  args: string[];
  clients: number;
  /**
   * The kill comes this many ms after the load starts (drawn by the caller), and not before the server acknowledged an
   * admission: on a busy machine the clients may get their first answer later than that.
   */
  killAfterMs: number;
}

/** Runs one round: load, kill, restart, verify. */
export async function crashRound(options: CrashOptions): Promise<CrashRound> {
  const first = await spawnServe(options.args);
  const seen: Seen[] = [];
  const stop = { dead: false };
  const clients = Array.from({ length: options.clients }, (_, i) => client(first.url, i, seen, stop));
  await new Promise((r) => setTimeout(r, options.killAfterMs));
  // A deadline only for a server that never answers (the caller's assertion then says so).
  for (const start = Date.now(); seen.length === 0 && Date.now() - start < 60_000;) await new Promise((r) => setTimeout(r, 10));
  // Snapshot what clients had been told at the moment of the kill: answers arriving later do not count.
  first.child.kill('SIGKILL');
  const told = seen.map((s) => ({ ...s }));
  stop.dead = true;
  await first.exited;
  await Promise.allSettled(clients);
  let second: ServeProcess | null = null;
  try {
    second = await spawnServe(options.args);
    const lostAdmissions: string[] = [];
    const lostCompletions: string[] = [];
    for (const s of told) {
      const res = await fetch(`${second.url}/v1/runs/${s.runId}`, { headers: auth });
      const text = await res.text();
      if (res.status !== 200) {
        lostAdmissions.push(`${s.runId}: GET ${res.status}`);
        continue;
      }
      const replay = await post(`${second.url}/v1/runs`, JSON.stringify({ input: `work ${s.key}` }), { 'Idempotency-Key': s.key });
      if (replay.status !== 202 || (JSON.parse(replay.text) as { run_id: string }).run_id !== s.runId) {
        lostAdmissions.push(`${s.runId}: replay ${replay.status} ${replay.text}`);
      }
      const status = (JSON.parse(text) as { status: string }).status;
      if (s.completed && status !== 'completed') lostCompletions.push(`${s.runId}: ${status}`);
    }
    return {
      acknowledged: told.length,
      visibleCompletions: told.filter((s) => s.completed).length,
      lostAdmissions,
      lostCompletions,
    };
  } finally {
    second?.child.kill('SIGTERM');
    if (second) await second.exited;
  }
}
