// createEmulator: Hermes v2026.8.31's /v1/runs surface with a fake agent, as an in-process Fetch handler.
import type { ControlledClock } from '../shared/clock.js';
import { HermeticError } from '../shared/errors.js';
import { createAdminClient, type AdminClient } from './admin/client.js';
import { abortReason, fromFetchRequest, KeepAlive, toFetchResponse, toRequest, untilAborted, type FetchFunction } from './fetch.js';
import { createFrontDoor } from './front-door.js';
import type { GatewaySettings } from './gateway.js';
import type { HttpRequest, HttpResponse } from './http.js';
import { DEFAULT_NAMESPACE, Namespaces, namespaceProblem } from './namespaces/index.js';
import { limitedWarnings } from './namespaces/warnings.js';
import { parseEmulatorOptions, type EmulatorOptions } from './options.js';
import { realLockWait } from './store/busy.js';
import { openRunTable } from './store/db.js';
import { PRIVATE_STORE } from '../shared/sqlite.js';

export type { EmulatorOptions } from './options.js';
export type { FetchFunction } from './fetch.js';

/** The base URL a path given to an in-process emulator's fetch is resolved against (any host name would do). */
export const IN_PROCESS_URL = 'http://hermes.test';

export interface Emulator {
  /**
   * Answers a request exactly as Hermes would: a drop-in `fetch` (a Request, a URL, or a string with `init`), for any
   * client that takes one. A bare path ('/v1/runs') is resolved against http://hermes.test.
   */
  readonly fetch: FetchFunction;
  /** The transport-neutral handler (used by the node:http server). */
  handle(request: HttpRequest): Promise<HttpResponse>;
  /** The control plane of the default namespace, driven through this emulator's fetch. */
  readonly admin: AdminClient;
  /** The default namespace's clock and settings. */
  readonly clock: ControlledClock;
  readonly gateway: GatewaySettings;
  /** Another namespace (created on first use): its clock, settings and admin client (requests under /ns/<name>). */
  namespace(name: string): EmulatorNamespace;
  /** Emulates a gateway crash and restart of the default namespace on the same store. */
  restart(): void;
  close(): Promise<void>;
}

export interface EmulatorNamespace {
  readonly name: string;
  readonly clock: ControlledClock;
  readonly gateway: GatewaySettings;
  /** The control plane of this namespace only. */
  readonly admin: AdminClient;
}

/**
 * A check run on every answer of an in-process emulator's fetch, when one is registered: the test suite holds each to
 * the OpenAPI document (test/support/contract.ts, decision 0024). Nothing registers one otherwise.
 */
type FetchAnswerCheck = (answer: { method: string; url: string; status: number; headers: Headers; text: string }) => void;
const FETCH_ANSWER_CHECK = Symbol.for('hermetic.fetchAnswerCheck');

/** Reads the answer (not an event stream, which is checked by its head), checks it, and hands on the same bytes. */
async function checked(request: Request, response: Response, check: FetchAnswerCheck): Promise<Response> {
  const { status, statusText, headers } = response;
  const info = { method: request.method, url: request.url, status, headers };
  if (headers.get('content-type')?.startsWith('text/event-stream')) {
    check({ ...info, text: '' });
    return response;
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  check({ ...info, text: new TextDecoder().decode(bytes) });
  return new Response(response.body === null ? null : bytes, { status, statusText, headers });
}

/** Opens a streamed answer nobody receives, as a server writes to a socket whose client hung up before the head. */
function hangUp(answer: HttpResponse): void {
  answer.stream?.({ write: () => false, end() {} });
}

/**
 * @example
 *   const hermes = createEmulator({ apiKey: 'test-key-0123456789abcdef' });
 *   const res = await hermes.fetch('http://hermes.test/v1/runs', {
 *     method: 'POST', headers: { Authorization: 'Bearer test-key-0123456789abcdef' }, body: '{"input":"hi"}' });
 */
export function createEmulator(input?: EmulatorOptions): Emulator {
  const options = parseEmulatorOptions(input);
  const lock = realLockWait(options.lockTimeout * 1000);
  // What the emulator could not do, on stderr: each kind at most once every 10 s (a locked store can fail a background
  // commit every few ms, or every request under load).
  const warn = limitedWarnings();
  const onBackgroundError = (e: Error): void =>
    warn('held-writes', `${e.message}; held status writes are retried, and nothing that shows them is answered until they are saved`);
  // The default namespace's rows live in options.db; every other namespace's in a store private to it (decision 0019).
  // A private store (db: null) is an in-memory database kept across the namespace's emulated restarts.
  const openStore = (name: string) =>
    openRunTable(name === DEFAULT_NAMESPACE ? (options.db ?? PRIVATE_STORE) : PRIVATE_STORE, { kind: options.runTable, lock, onBackgroundError });
  /** Our own bugs are never dressed up as Hermes's answers without a trace: they are reported with their stack. */
  const onInternalError =
    options.onInternalError ??
    ((error: unknown): void => {
      console.error(`hermetic: internal error (a bug in Hermetic, not an emulated Hermes error; please report it):\n${(error as Error)?.stack ?? String(error)}`);
    });
  const namespaces = new Namespaces({ options, lock, openStore, onInternalError, warn });
  const main = namespaces.default;
  const handleRequest = createFrontDoor(namespaces, options);
  // An in-process request holds the process open until it is answered (a streamed answer: until its body ends or is
  // let go), as its socket would; and it honours its AbortSignal as Node's fetch does.
  const keepAlive = new KeepAlive();
  const fetch: FetchFunction = async (input, init) => {
    const request = toRequest(input, init, IN_PROCESS_URL);
    // The caller's own signal, not the copy the Request follows: that copy stops following once the Request is
    // collected (undici holds it weakly), and the Request is gone long before a stream is let go.
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    // Aborted before it was sent: nothing reaches the emulator, as nothing reaches a server.
    if (signal?.aborted) throw abortReason(signal);
    const release = keepAlive.hold();
    let streaming = false;
    try {
      const handled = handleRequest(fromFetchRequest(request));
      const answer = await (signal ? untilAborted(handled, signal) : handled).catch((e: unknown) => {
        // Aborted before the answer: an event stream the server still opens finds its client gone on its first write.
        if (signal?.aborted) void handled.then(hangUp, () => {});
        throw e;
      });
      const response = toFetchResponse(answer, request.method.toUpperCase() === 'HEAD', { signal, settled: release });
      streaming = answer.stream !== undefined;
      const check = (globalThis as { [FETCH_ANSWER_CHECK]?: FetchAnswerCheck })[FETCH_ANSWER_CHECK];
      // A fault rule's answer is what the test asked for, not the emulated API's: not checked.
      return check && answer.faultId === undefined ? await checked(request, response, check) : response;
    } finally {
      if (!streaming) release();
    }
  };
  let closed = false;

  return {
    fetch,
    handle: handleRequest,
    admin: createAdminClient(fetch, 'http://hermes.invalid', { adminKey: options.adminKey }),
    clock: main.publicClock,
    gateway: main.gateway,
    namespace(name: string) {
      const problem = namespaceProblem(name);
      if (problem) throw new HermeticError('HERMETIC_NAMESPACE_INVALID', `${problem}.`);
      namespaces.get(name);
      // Looked up at each use: after a reset of every namespace, the same handle reaches the namespace made anew.
      return {
        name,
        get clock() {
          return namespaces.get(name).publicClock;
        },
        get gateway() {
          return namespaces.get(name).gateway;
        },
        admin: createAdminClient(fetch, `http://hermes.invalid/ns/${name}`, { adminKey: options.adminKey }),
      };
    },
    restart: () => main.restart(),
    async close() {
      if (closed) return;
      closed = true;
      namespaces.close();
    },
  };
}
