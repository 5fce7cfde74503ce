// A client for the fault suites that sees what a real client sees: over node:http a raw socket-level client (a dropped
// connection is an error, never a status), in process the emulator's fetch (a drop rejects with a TypeError).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createAdminClient, type AdminClient } from '../../src/emulator/admin/client.js';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { startServer, type ServerHandle } from '../../src/emulator/serve/node.js';
import { DEFAULTS, K } from './harness.js';
import { DEADLINE_MS } from './wait.js';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** How a request ended for the client: an answer, or the connection dropped (`error` says how the client saw it). */
export type Outcome = { kind: 'answer'; answer: Answer } | { kind: 'dropped'; error: Error };

/** An event stream as the client reads it. */
export interface Watch {
  status: number;
  text(): string;
  /** Resolves when the text satisfies `pred` (rejects after `ms` real milliseconds). */
  until(pred: (text: string) => boolean, ms?: number): Promise<string>;
  /** How the body ended: the server ended it, or the connection dropped mid-body. */
  readonly settled: Promise<'ended' | 'dropped'>;
  /** Whether it has settled yet. */
  readonly done: boolean;
  close(): void;
}

export interface FaultClient {
  readonly transport: 'fetch' | 'http';
  readonly emulator: Emulator;
  /** The control plane (of the namespace, when given). */
  admin(namespace?: string): AdminClient;
  /** A base URL for globalThis.fetch (http only). */
  readonly url: string | null;
  send(method: string, path: string, options?: { body?: string; headers?: Record<string, string>; auth?: boolean }): Promise<Outcome>;
  watch(path: string, headers?: Record<string, string>): Promise<Watch>;
  close(): Promise<void>;
}

function headersOf(res: IncomingMessage | Response): Record<string, string> {
  const out: Record<string, string> = {};
  if (res instanceof Response) res.headers.forEach((v, k) => (out[k] = v));
  else for (const [k, v] of Object.entries(res.headers)) out[k] = Array.isArray(v) ? v.join(', ') : String(v);
  return out;
}

function makeWatch(status: number, close: () => void): { watch: Watch; push(s: string): void; settle(how: 'ended' | 'dropped'): void } {
  let text = '';
  let done = false;
  let waiters: Array<() => void> = [];
  let resolve!: (how: 'ended' | 'dropped') => void;
  const settled = new Promise<'ended' | 'dropped'>((r) => (resolve = r));
  const notify = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  const watch: Watch = {
    status,
    text: () => text,
    settled,
    get done() {
      return done;
    },
    close,
    until(pred, ms = DEADLINE_MS) {
      return new Promise((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`stream never matched; got ${JSON.stringify(text)}`)), ms);
        const check = () => {
          if (pred(text)) {
            clearTimeout(timer);
            ok(text);
          } else if (done) {
            clearTimeout(timer);
            fail(new Error(`stream settled without matching; got ${JSON.stringify(text)}`));
          } else waiters.push(check);
        };
        check();
      });
    },
  };
  return {
    watch,
    push(s) {
      text += s;
      notify();
    },
    settle(how) {
      if (done) return;
      done = true;
      resolve(how);
      notify();
    },
  };
}

export async function openFaultClient(transport: 'fetch' | 'http', options: EmulatorOptions = {}): Promise<FaultClient> {
  const merged: EmulatorOptions = { ...DEFAULTS, ...options };
  const withAuth = (headers: Record<string, string> = {}, auth = true) => (auth ? { Authorization: `Bearer ${K}`, ...headers } : headers);
  if (transport === 'fetch') {
    const emulator = createEmulator(merged);
    const base = 'http://hermes.test';
    return {
      transport,
      emulator,
      url: null,
      admin: (ns) => createAdminClient(emulator.fetch, ns ? `${base}/ns/${ns}` : base),
      async send(method, path, o = {}) {
        let res: Response;
        try {
          res = await emulator.fetch(new Request(base + path, { method, body: o.body, headers: withAuth(o.headers, o.auth ?? true) }));
        } catch (error) {
          return { kind: 'dropped', error: error as Error };
        }
        return { kind: 'answer', answer: { status: res.status, headers: headersOf(res), text: await res.text() } };
      },
      async watch(path, headers) {
        const res = await emulator.fetch(new Request(base + path, { headers: withAuth(headers) }));
        const reader = res.body!.getReader();
        const w = makeWatch(res.status, () => void reader.cancel().catch(() => {}));
        const decoder = new TextDecoder();
        void (async () => {
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              w.push(decoder.decode(value, { stream: true }));
            }
            w.settle('ended');
          } catch {
            w.settle('dropped');
          }
        })();
        return w.watch;
      },
      close: () => emulator.close(),
    };
  }
  const server: ServerHandle = await startServer({ ...merged, port: 0 });
  const url = new URL(server.url);
  const open = (method: string, path: string, headers: Record<string, string>) =>
    httpRequest({ host: url.hostname, port: url.port, method, path, headers, agent: false });
  return {
    transport,
    emulator: server.emulator,
    url: server.url,
    admin: (ns) => createAdminClient(globalThis.fetch, ns ? `${server.url}/ns/${ns}` : server.url),
    send(method, path, o = {}) {
      return new Promise((resolve) => {
        const req = open(method, path, withAuth(o.headers, o.auth ?? true));
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            resolve({ kind: 'answer', answer: { status: res.statusCode!, headers: headersOf(res), text: Buffer.concat(chunks).toString('utf8') } });
            req.destroy();
          });
          res.on('error', (error) => resolve({ kind: 'dropped', error }));
        });
        req.on('error', (error) => resolve({ kind: 'dropped', error }));
        req.end(o.body);
      });
    },
    watch(path, headers) {
      return new Promise((resolve, reject) => {
        const req = open('GET', path, withAuth(headers));
        req.on('response', (res) => {
          const w = makeWatch(res.statusCode!, () => req.destroy());
          res.setEncoding('utf8');
          let ended = false;
          res.on('data', (c: string) => w.push(c));
          res.on('end', () => {
            ended = true;
            w.settle('ended');
          });
          res.on('error', () => w.settle('dropped'));
          res.on('aborted', () => w.settle('dropped'));
          res.on('close', () => w.settle(ended ? 'ended' : 'dropped'));
          resolve(w.watch);
        });
        req.on('error', reject);
        req.end();
      });
    },
    close: () => server.close(),
  };
}
