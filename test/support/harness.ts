// Runs a behaviour suite over both transports (DESIGN habit 12): in process through emulator.fetch, and over a real
// node:http server on port 0 driven by a raw node:http client (so tests control every header and byte).
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { afterEach, describe } from 'node:test';
import { createAdminClient, type AdminClient } from '../../src/emulator/admin/client.js';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { startServer, type ServerHandle } from '../../src/emulator/serve/node.js';
import { checkAnswer, installContractCheck } from './contract.js';
import { DEADLINE_MS } from './wait.js';

// Every answer a harness receives, Hermes's and the control plane's, is held to the OpenAPI document.
installContractCheck();

export const K = 'test-key-0123456789abcdef';
export const T0 = 1789169800;

export interface Reply {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  text: string;
  json(): any;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Add `Authorization: Bearer K` (default true). */
  auth?: boolean;
  /** events(): the client reads nothing of the body until `stream.resume()` (a client that stops reading). */
  stalled?: boolean;
  /** events(): the request's method (GET unless given; a session chat stream is a POST with a body). */
  method?: string;
}

/** A live event stream: text accumulates as it arrives. */
export interface Stream {
  status: number;
  headers: Record<string, string>;
  /** Everything received so far. */
  text(): string;
  /** Resolves once the received text satisfies `pred` (or rejects after `ms` real milliseconds: a minute unless given). */
  until(pred: (text: string) => boolean, ms?: number): Promise<string>;
  /** Resolves with all text once the server ends the stream. */
  ended: Promise<string>;
  /** Once ended: whether the body was cut (the connection closed before the body's end), not ended by the server. */
  cut(): boolean;
  /** The client goes away. */
  close(): void;
  /** A stalled stream (RequestOptions.stalled) starts reading; otherwise nothing. */
  resume(): void;
  /** For a 404 answer instead of a stream. */
  body?: string;
}

export interface Harness {
  readonly transport: 'fetch' | 'http';
  /** Bugs of Hermetic's own met while answering (onInternalError); a suite fails when any is left. */
  readonly bugs: unknown[];
  readonly emulator: Emulator;
  readonly admin: AdminClient;
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  events(path: string, options?: RequestOptions): Promise<Stream>;
  /** Sends GET `path` and goes away before the answer's head arrives (fetch: aborts its signal; HTTP: closes the socket). */
  abandon(path: string, options?: RequestOptions): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULTS: EmulatorOptions = { apiKey: K, time: T0, frozen: true, seed: 'conformance' };

function headersFor(options: RequestOptions): Record<string, string> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.auth !== false && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) {
    headers.Authorization = `Bearer ${K}`;
  }
  return headers;
}

function makeStream(status: number, headers: Record<string, string>, close: () => void, resume: () => void = () => {}): {
  stream: Stream;
  push(chunk: string): void;
  end(cut?: boolean): void;
} {
  let text = '';
  let waiters: Array<() => void> = [];
  let endResolve!: (s: string) => void;
  const ended = new Promise<string>((r) => (endResolve = r));
  let isEnded = false;
  let wasCut = false;
  const notify = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  const stream: Stream = {
    status,
    headers,
    text: () => text,
    ended,
    cut: () => wasCut,
    close,
    resume,
    until(pred, ms = DEADLINE_MS) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`stream did not reach the expected state; got ${JSON.stringify(text)}`)), ms);
        const check = () => {
          if (pred(text)) {
            clearTimeout(timer);
            resolve(text);
          } else if (isEnded) {
            clearTimeout(timer);
            reject(new Error(`stream ended without reaching the expected state; got ${JSON.stringify(text)}`));
          } else waiters.push(check);
        };
        check();
      });
    },
  };
  return {
    stream,
    push(chunk) {
      text += chunk;
      notify();
    },
    end(cut = false) {
      if (isEnded) return;
      isEnded = true;
      wasCut = cut;
      endResolve(text);
      notify();
    },
  };
}

async function fetchHarness(options: EmulatorOptions, bugs: unknown[]): Promise<Harness> {
  const emulator = createEmulator(options);
  const base = 'http://hermes.test';
  const toRequest = (method: string, path: string, o: RequestOptions) =>
    new Request(base + path, { method, headers: headersFor(o), body: o.body as BodyInit | undefined });
  return {
    transport: 'fetch',
    bugs,
    emulator,
    admin: createAdminClient(emulator.fetch, base),
    async request(method, path, o = {}) {
      const res = await emulator.fetch(toRequest(method, path, o));
      const text = await res.text();
      checkAnswer({ method, url: path, status: res.status, contentType: res.headers.get('content-type'), text });
      return { status: res.status, headers: Object.fromEntries(res.headers), text, json: () => JSON.parse(text) };
    },
    async events(path, o = {}) {
      const method = o.method ?? 'GET';
      const res = await emulator.fetch(toRequest(method, path, o));
      const headers = Object.fromEntries(res.headers);
      if (res.status !== 200 || !res.body) {
        const s = makeStream(res.status, headers, () => {});
        s.stream.body = await res.text();
        checkAnswer({ method, url: path, status: res.status, contentType: res.headers.get('content-type'), text: s.stream.body });
        s.end();
        return s.stream;
      }
      const reader = res.body.getReader();
      let reading = false;
      const read = () => {
        if (reading) return;
        reading = true;
        void readAll();
      };
      const s = makeStream(res.status, headers, () => void reader.cancel(), read);
      const decoder = new TextDecoder();
      const readAll = async () => {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            s.push(decoder.decode(value, { stream: true }));
          }
        } catch {
          // Cut by the server (TypeError: terminated), or cancelled by the test itself.
          s.end(true);
        }
        s.end();
      };
      if (!o.stalled) read();
      return s.stream;
    },
    async abandon(path, o = {}) {
      const ac = new AbortController();
      const answer = emulator.fetch(toRequest('GET', path, o), { signal: ac.signal });
      ac.abort();
      await answer.then(() => assert.fail('an aborted fetch resolved'), () => {});
    },
    close: () => emulator.close(),
  };
}

async function httpHarness(options: EmulatorOptions, bugs: unknown[]): Promise<Harness> {
  const server: ServerHandle = await startServer({ ...options, port: 0 });
  const url = new URL(server.url);
  const send = (method: string, path: string, o: RequestOptions) =>
    httpRequest({ host: url.hostname, port: url.port, method, path, headers: headersFor(o), agent: false });
  return {
    transport: 'http',
    bugs,
    emulator: server.emulator,
    admin: createAdminClient(globalThis.fetch, server.url),
    request(method, path, o = {}) {
      return new Promise((resolve, reject) => {
        const req = send(method, path, o);
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
            try {
              checkAnswer({ method, url: path, status: res.statusCode!, contentType: headers['content-type'] ?? null, text });
            } catch (e) {
              req.destroy();
              reject(e);
              return;
            }
            resolve({ status: res.statusCode!, headers, text, json: () => JSON.parse(text) });
            req.destroy();
          });
        });
        req.on('error', (e) => reject(e));
        if (o.body !== undefined) req.end(o.body);
        else if (o.headers && Object.keys(o.headers).some((h) => h.toLowerCase() === 'content-length')) req.flushHeaders();
        else req.end();
      });
    },
    events(path, o = {}) {
      const method = o.method ?? 'GET';
      return new Promise((resolve, reject) => {
        const req = send(method, path, o);
        req.on('response', (res) => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
          // A stalled client attaches no reader: node stops reading the socket and the kernel's buffers fill.
          let reading = false;
          const read = () => {
            if (reading) return;
            reading = true;
            res.on('data', (c: string) => s.push(c));
          };
          const s = makeStream(res.statusCode!, headers, () => req.destroy(), read);
          res.setEncoding('utf8');
          if (res.statusCode !== 200) {
            let body = '';
            res.on('data', (c: string) => (body += c));
            res.on('end', () => {
              s.stream.body = body;
              s.end();
              try {
                checkAnswer({ method, url: path, status: res.statusCode!, contentType: headers['content-type'] ?? null, text: body });
              } catch (e) {
                reject(e);
                return;
              }
              resolve(s.stream);
            });
            return;
          }
          res.on('end', () => s.end());
          // Closed before the body's end (no last chunk): a cut connection.
          res.on('close', () => s.end(!res.complete));
          if (!o.stalled) read();
          resolve(s.stream);
        });
        req.on('error', reject);
        req.end(o.body);
      });
    },
    abandon(path, o = {}) {
      return new Promise((resolve) => {
        const req = send('GET', path, o);
        req.on('error', () => {});
        // Once the request is on the wire, the client hangs up without waiting for an answer.
        req.on('finish', () => {
          req.destroy();
          resolve();
        });
        req.end();
      });
    },
    close: () => server.close(),
  };
}

export function openHarness(transport: 'fetch' | 'http', options: EmulatorOptions = {}): Promise<Harness> {
  const bugs: unknown[] = [];
  const merged = { ...DEFAULTS, onInternalError: (e: unknown) => void bugs.push(e), ...options };
  return transport === 'fetch' ? fetchHarness(merged, bugs) : httpHarness(merged, bugs);
}

/**
 * Declares the same suite once per transport. Harnesses opened through `open` are closed after each test, pass or
 * fail (closing twice is harmless).
 */
export function describeTransports(name: string, suite: (open: (options?: EmulatorOptions) => Promise<Harness>, transport: 'fetch' | 'http') => void): void {
  for (const transport of ['fetch', 'http'] as const) {
    describe(`${name} [${transport}]`, () => {
      const opened: Harness[] = [];
      afterEach(async () => {
        const harnesses = opened.splice(0);
        await Promise.all(harnesses.map((h) => h.close()));
        // A bug of ours answered as Hermes's 500 page (or HERMETIC_INTERNAL) fails the test that met it.
        const bugs = harnesses.flatMap((h) => h.bugs);
        if (bugs.length > 0) throw new Error(`Hermetic met ${bugs.length} internal error(s):\n${bugs.map((b) => (b as Error)?.stack ?? String(b)).join('\n')}`);
      });
      suite(async (options) => {
        const h = await openHarness(transport, options);
        opened.push(h);
        return h;
      }, transport);
    });
  }
}

/** Std(msg, code): Hermes's standard error envelope, exact bytes. */
export const std = (message: string, code: string | null = null, type = 'invalid_request_error'): string =>
  `{"error": {"message": ${JSON.stringify(message)}, "type": "${type}", "param": null, "code": ${code === null ? 'null' : `"${code}"`}}}`;

/**
 * An in-process request whose body the test holds: `reached` resolves when the handler starts reading it (its checks
 * before the body done), and `send` gives it and returns the answer. Only in process can a test know the handler got
 * there without a clock; over HTTP the same code runs.
 */
export function heldRequest(h: Harness, method: string, path: string): { reached: Promise<void>; send(text: string): Promise<Response> } {
  let reading!: () => void;
  const reached = new Promise<void>((resolve) => (reading = resolve));
  let deliver!: (text: string) => void;
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) => new Promise<void>((resolve) => {
      reading();
      deliver = (text) => {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
        resolve();
      };
    }),
  }, { highWaterMark: 0 });
  const answer = h.emulator.fetch(new Request(`http://emulator.test${path}`, {
    method, body, duplex: 'half', headers: { Authorization: `Bearer ${K}`, 'Content-Type': 'application/json' },
  } as RequestInit));
  return { reached, send: (text) => (deliver(text), answer) };
}

export const RUN_ID = /^run_[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/;

/** Lets queued microtasks (the fake agent's start) run. */
export const tick = () => new Promise<void>((r) => setImmediate(r));
