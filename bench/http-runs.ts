// Benchmark helpers: a bare node:http baseline shaped like the emulator's answers, and autocannon runs against
// loopback servers with a warm-up that is measured and thrown away.
import autocannon, { type Options, type Result } from 'autocannon';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SECURITY_HEADERS } from '../src/emulator/wire/responses.js';
import { rawFrame, SSE_BATCH } from './sse-frames.js';

export const BENCH_KEY = 'bench-key-0123456789abcdef';

/** A ~200-byte JSON body like GET /v1/runs/{id}'s, with the same number of headers (12) as the emulator sends. */
const BARE_BODY = JSON.stringify({
  object: 'hermes.run',
  run_id: 'run_3e7ae759900c4b35b9bdfb835dc33b49',
  status: 'running',
  updated_at: 1789169800.5245838,
  created_at: 1789169800.461099,
  session_id: 'run_3e7ae759900c4b35b9bdfb835dc33b49',
  model: 'hermes-agent',
}).replace(/,"/g, ', "').replace(/":/g, '": ');

const BARE_HEADERS: Array<[string, string]> = [
  ['Content-Type', 'application/json; charset=utf-8'],
  ...SECURITY_HEADERS,
  ['Content-Length', String(Buffer.byteLength(BARE_BODY))],
  ['Server', 'Python/3.11 aiohttp/3.14.3'],
];

/** A raw node:http SSE writer: n frames, SSE_BATCH per event-loop turn, each built and written as it is produced. */
function rawSse(res: import('node:http').ServerResponse, n: number): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
  const runId = 'run_3e7ae759900c4b35b9bdfb835dc33b49';
  let i = 0;
  const turn = () => {
    for (let b = 0; b < SSE_BATCH && i < n; b++, i++) res.write(rawFrame(runId, i));
    if (i < n) setImmediate(turn);
    else res.end(': stream closed\n\n');
  };
  turn();
}

export interface Bare {
  url: string;
  close(): Promise<void>;
}

export async function startBare(): Promise<Bare> {
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/sse?n=')) return rawSse(res, Number(req.url.slice('/sse?n='.length)));
    req.resume();
    req.on('end', () => {
      res.writeHead(200, 'OK', [...BARE_HEADERS, ['Date', new Date().toUTCString()]].flat());
      res.end(BARE_BODY);
    });
  });
  server.keepAliveTimeout = 75_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Load {
  connections: number;
  /** Measured seconds. */
  duration: number;
  /** Discarded seconds before each measurement. */
  warmup: number;
}

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
  /** Seconds autocannon actually ran. */
  seconds: number;
}

/** One warm-up run (discarded), then the measured run; requests/s is autocannon's per-second average. */
export async function measure(options: Omit<Options, 'connections' | 'duration'>, load: Load): Promise<Measured> {
  if (load.warmup > 0) await autocannon({ ...options, connections: load.connections, duration: load.warmup });
  const r: Result = await autocannon({ ...options, connections: load.connections, duration: load.duration });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts, total: r.requests.total, seconds: r.duration };
}
