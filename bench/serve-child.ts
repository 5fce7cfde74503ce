// A benchmark target in its own process, so the server under test has a core to itself and the load generator
// another: `bare` (a plain node:http server shaped like the emulator's answers, with a raw SSE writer at /sse) or
// `emulator` (startServer on a durable store). Prints the URL on its first line; answers each `cpu` line on stdin
// with its CPU time used so far (microseconds, user + system), and each `emit <run_id> <n>` line (emulator) by
// playing n progress events into that run through the control plane, in process; exits when its stdin closes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Emulator } from '../src/emulator/index.js';
import { BENCH_KEY, startBare } from './http-runs.js';
import { SSE_BATCH } from './sse-frames.js';

// The compiled package (`npm run bench` builds it first): what `hermetic serve` and `import 'hermetic'` run. Loaded by
// URL, so type-checking the repository needs no build (`npm install` no longer builds); the types are the sources'.
const { startServer } = (await import(new URL('../dist/emulator/serve/node.js', import.meta.url).href)) as typeof import('../src/emulator/serve/node.js');

/** n tool.started events through the control plane's in-process handler, SSE_BATCH per event-loop turn. */
function emit(emulator: Emulator, runId: string, n: number): void {
  const body = new TextEncoder().encode('{"event":"tool.started","tool":"terminal","preview":"ls -la /workspace"}');
  const request = {
    method: 'POST',
    path: `/__admin/runs/${runId}/event`,
    query: '',
    header: (name: string) => (name === 'content-type' ? 'application/json' : undefined),
    readBody: async () => body,
  };
  let left = n;
  const turn = () => {
    for (let i = 0; i < SSE_BATCH && left > 0; i++, left--) void emulator.handle(request);
    if (left > 0) setImmediate(turn);
  };
  turn();
}

async function main(kind: string): Promise<void> {
  let close: () => Promise<void>;
  let url: string;
  let emulator: Emulator | null = null;
  if (kind === 'bare') {
    const bare = await startBare();
    ({ url } = bare);
    close = bare.close;
  } else {
    const db = join(mkdtempSync(join(tmpdir(), 'hermetic-bench-')), 'runs_idempotency.db');
    const server = await startServer({ port: 0, host: '127.0.0.1', apiKey: BENCH_KEY, maxConcurrentRuns: 0, db });
    ({ url, emulator } = server);
    close = server.close;
  }
  console.log(url);
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (line === 'cpu') {
        const { user, system } = process.cpuUsage();
        console.log(user + system);
      } else if (line.startsWith('emit ') && emulator) {
        const [, runId, n] = line.split(' ');
        emit(emulator, runId!, Number(n));
      }
    }
  });
  process.stdin.on('end', () => void close().then(() => process.exit(0)));
}

void main(process.argv[2] ?? 'bare');
