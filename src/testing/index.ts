// hermetic/testing: Hermetic in a test suite. One emulator per test file (a real server on port 0, an in-process
// emulator, or a `hermetic serve` you started), a fresh namespace for each test, reset after it. Works with node:test
// and vitest alike: the hooks are passed in, so nothing here depends on a test runner.
import {
  createAdminClient,
  type AdminClient,
  type FetchLike,
} from '../emulator/admin/client.js';
import { toRequest, type FetchFunction } from '../emulator/fetch.js';
import { createEmulator, IN_PROCESS_URL, type Emulator, type EmulatorOptions } from '../emulator/index.js';
import { NAMESPACE_HEADER } from '../emulator/namespaces/names.js';
import { startServer } from '../emulator/serve/node.js';
import { HermeticError } from '../shared/errors.js';
import { createIdSource } from '../shared/ids.js';
import { suggest } from '../shared/options.js';

export {
  createAdminClient,
  AdminClientError,
  type AdminClient,
  type AdminClientOptions,
  type AdminRoutes,
  type AdminRouteName,
  type FetchLike,
} from '../emulator/admin/client.js';
export type { Emulator, EmulatorOptions, FetchFunction } from '../emulator/index.js';

export interface StartOptions extends EmulatorOptions {
  /**
   * `http` (default): a real server on 127.0.0.1 and a free port, for clients that take a URL. `fetch`: in process,
   * no socket; hand the client `fetch` (and `url`, which any host name may stand in for).
   */
  transport?: 'http' | 'fetch';
}

export interface ConnectOptions {
  /** The server's admin key (--admin-key), if it has one. */
  adminKey?: string | null;
  /** What sends the requests (it is handed one Request each time); default globalThis.fetch. */
  fetch?: FetchLike;
}

/** One isolated gateway of the emulator: its own runs, clock, settings, scenarios, faults and journal. */
export interface HermeticNamespace {
  readonly name: string;
  /** The base URL to give a Hermes client: the server's URL and /ns/<name>. */
  readonly url: string;
  /** The header that selects this namespace instead of the /ns/<name> prefix (for a client you can give headers). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * A drop-in `fetch` that reaches the server (globalThis.fetch over HTTP, the emulator's own fetch in process), for a
   * client's `fetch` option. A bare path ('/v1/runs') is resolved against `url`, so it reaches this namespace.
   */
  readonly fetch: FetchFunction;
  /** This namespace's control plane: complete runs, move its clock, add faults and scenarios, read its journal. */
  readonly admin: AdminClient;
  /** Back to as new: runs and durable rows, clock, settings, faults, scenarios, journal (POST /__admin/reset). */
  reset(): Promise<void>;
}

export interface Hermetic {
  /** The server's URL (the default namespace); in process, a placeholder URL that emulator.fetch answers. */
  readonly url: string;
  /** A drop-in `fetch` that reaches the server; a bare path ('/v1/runs') is resolved against `url`. */
  readonly fetch: FetchFunction;
  /** The default namespace's control plane. */
  readonly admin: AdminClient;
  /** The emulator itself when it runs in this process (null when connected to a server elsewhere). */
  readonly emulator: Emulator | null;
  /** A namespace by name, or a fresh one with a name no other test (in this process or another) uses. */
  namespace(name?: string): HermeticNamespace;
  /** Stops what start() started; a connected server is left running. */
  close(): Promise<void>;
}

let counter = 0;
/** The pid, and random digits for processes of other machines or containers that share a server. */
const processTag = `${process.pid.toString(36)}${createIdSource().uuid4Hex().slice(0, 4)}`;

/** A namespace name unique to this call: `<prefix>-<process>-<n>` (valid: letters, digits, '-'). */
export function uniqueNamespace(prefix = 't'): string {
  counter += 1;
  return `${prefix}-${processTag}-${counter}`;
}

/** `send` as a drop-in fetch whose bare paths are resolved against `base`. */
function fetchUnder(base: string, send: FetchLike): FetchFunction {
  return (input, init) => send(toRequest(input, init, base));
}

function open(root: string, fetchImpl: FetchLike, adminKey: string | null, emulator: Emulator | null, stop: () => Promise<void>): Hermetic {
  const base = root.replace(/\/+$/, '');
  return {
    url: base,
    fetch: fetchUnder(base, fetchImpl),
    admin: createAdminClient(fetchImpl, base, { adminKey }),
    emulator,
    namespace(name = uniqueNamespace()) {
      const url = `${base}/ns/${encodeURIComponent(name)}`;
      const admin = createAdminClient(fetchImpl, url, { adminKey });
      return {
        name,
        url,
        headers: { [NAMESPACE_HEADER]: name },
        fetch: fetchUnder(url, fetchImpl),
        admin,
        reset: async () => {
          await admin.reset();
        },
      };
    },
    close: stop,
  };
}

const TRANSPORTS: readonly string[] = ['http', 'fetch'] satisfies NonNullable<StartOptions['transport']>[];

/**
 * Starts an emulator for a test file: a real server on a free port (or in process with `transport: 'fetch'`).
 * @example
 *   const hermes = await start({ apiKey: 'test-key-0123456789abcdef' });
 *   const ns = hermes.namespace();             // a fresh, isolated gateway
 *   const client = new MyHermesClient(ns.url);  // e.g. http://127.0.0.1:39321/ns/t-1a2b3c-1
 *   await ns.admin.complete(runId, { output: 'Done.' });
 *   await hermes.close();
 */
export async function start(options: StartOptions = {}): Promise<Hermetic> {
  const { transport = 'http', ...emulatorOptions } = options;
  // Checked as the emulator's own options are (a JavaScript caller has no type to catch 'fech').
  if (!TRANSPORTS.includes(transport)) {
    const hint = suggest(String(transport), TRANSPORTS);
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "transport" must be ${TRANSPORTS.map((t) => `"${t}"`).join(' or ')}; got ${JSON.stringify(transport)}.${hint ? ` Did you mean "${hint}"?` : ''}`);
  }
  const adminKey = emulatorOptions.adminKey ?? null;
  if (transport === 'fetch') {
    const emulator = createEmulator(emulatorOptions);
    return open(IN_PROCESS_URL, emulator.fetch, adminKey, emulator, () => emulator.close());
  }
  const server = await startServer({ ...emulatorOptions, port: 0, host: '127.0.0.1' });
  return open(server.url, (request) => globalThis.fetch(request), adminKey, server.emulator, () => server.close());
}

/**
 * A server that is already running (`hermetic serve`, say in CI): nothing is started or stopped.
 * @example const hermes = connect(process.env.HERMETIC_URL ?? 'http://127.0.0.1:8642', { adminKey: process.env.HERMETIC_ADMIN_KEY });
 */
export function connect(url: string, options: ConnectOptions = {}): Hermetic {
  const fetchImpl = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  return open(url, fetchImpl, options.adminKey ?? null, null, async () => {});
}

/**
 * A `url` given to useHermetic, checked when it is given: an unset environment variable must not silently start a
 * server of its own (the tests would pass against it, not against the server CI meant).
 */
function serverUrl(url: unknown): string {
  if (url === undefined || url === null || url === '') {
    throw new HermeticError(
      'HERMETIC_TESTING_URL',
      `useHermetic was given url: ${url === '' ? "''" : String(url)} (an unset environment variable?); give the running server's URL, or leave url out to start a server for this file.`,
    );
  }
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url) || !URL.canParse(url)) {
    throw new HermeticError('HERMETIC_TESTING_URL', `useHermetic was given url: ${JSON.stringify(url)}, which is not an http(s) URL; give the running server's URL, e.g. http://127.0.0.1:8642.`);
  }
  return url;
}

/** A hook: its function is given the test's context by node:test and vitest (`beforeEach((t) => …)`). */
type Hook = (fn: (context?: unknown) => Promise<void>) => unknown;

/** The hooks of node:test (before, after) or vitest (beforeAll, afterAll): pass the module, or pick them. */
export interface TestHooks {
  before?: Hook;
  beforeAll?: Hook;
  after?: Hook;
  afterAll?: Hook;
  beforeEach: Hook;
  afterEach: Hook;
}

export interface UseOptions extends StartOptions {
  /**
   * Use this running server instead of starting one (e.g. `process.env.HERMETIC_URL`). Leave the key out to start
   * one; present, it must be an http(s) URL — `undefined` or '' (an unset variable) is refused (HERMETIC_TESTING_URL).
   */
  url?: string;
  /** Prefix of the fresh namespaces' names (default "t"). */
  prefix?: string;
}

/** Said to a test that starts while another of its file runs. */
const OVERLAP = 'useHermetic: this test started while another test of the file was running (concurrent tests), and one useHermetic is one test\'s namespace at a time, so it did not start. Run the file\'s tests one at a time (the default of node:test and vitest), or give each concurrent test a namespace of its own: const ns = hermes.server.namespace(); … await ns.reset().';

/** The current test's namespace, plus the server they all share. */
export interface HermeticSuite extends HermeticNamespace {
  /** The shared server (after the file's `before` hook ran). */
  readonly server: Hermetic;
  /** Another fresh namespace for this test (for a test that runs two gateways); reset after the test too. */
  another(): HermeticNamespace;
}

/**
 * Wires a Hermetic into a test file: one server for the file, a fresh namespace per test, reset after each. The file's
 * tests run one at a time (the default of node:test and vitest): a test that starts while another runs is refused;
 * concurrent tests take `hermes.server.namespace()` each.
 * @example
 *   import * as nodeTest from 'node:test';            // or: import * as vitest from 'vitest';
 *   const hermes = useHermetic(nodeTest, { apiKey: 'test-key-0123456789abcdef' });
 *   nodeTest.test('completes a run', async () => {
 *     const client = new MyHermesClient({ baseUrl: hermes.url, apiKey: 'test-key-0123456789abcdef' });
 *     const runId = await client.submit('hello');
 *     await hermes.admin.complete(runId, { output: 'Done.' });
 *     assert.equal((await client.wait(runId)).status, 'completed');
 *   });
 */
export function useHermetic(hooks: TestHooks, options: UseOptions = {}): HermeticSuite {
  const before = hooks.before ?? hooks.beforeAll;
  const after = hooks.after ?? hooks.afterAll;
  if (!before || !after || !hooks.beforeEach || !hooks.afterEach) {
    throw new TypeError('useHermetic needs before/beforeAll, after/afterAll, beforeEach and afterEach (pass node:test or vitest, or pick them).');
  }
  const { url, prefix, ...startOptions } = options;
  if ('url' in options) serverUrl(url);
  let server: Hermetic | null = null;
  let current: HermeticNamespace | null = null;
  /** The context its beforeEach was given (node:test's `t`, vitest's): only that test's afterEach ends its namespace. */
  let owner: unknown = undefined;
  let extra: HermeticNamespace[] = [];

  before(async () => {
    server = 'url' in options ? connect(serverUrl(url), { adminKey: startOptions.adminKey ?? null }) : await start(startOptions);
  });
  after(async () => {
    await server?.close();
    server = null;
  });
  hooks.beforeEach(async (context) => {
    // Tests of the file that overlap (describe.concurrent, { concurrency: true }) would share one namespace and reset
    // it under each other: the later one does not start, and says why (decision 0024).
    if (current !== null) throw new Error(OVERLAP);
    current = running().namespace(uniqueNamespace(prefix));
    owner = context;
    extra = [];
  });
  hooks.afterEach(async (context) => {
    if (context !== owner) return; // a test refused above: the namespace is the running test's
    const used = [current, ...extra];
    current = null;
    owner = undefined;
    extra = [];
    await Promise.all(used.map((ns) => ns?.reset()));
  });

  function running(): Hermetic {
    if (!server) throw new Error('useHermetic: the server starts in the before/beforeAll hook; use it inside a test or a later hook.');
    return server;
  }
  function now(): HermeticNamespace {
    if (!current) throw new Error('useHermetic: the namespace of a test exists from its beforeEach to its afterEach; use it inside a test.');
    return current;
  }
  return {
    get server() {
      return running();
    },
    get name() {
      return now().name;
    },
    get url() {
      return now().url;
    },
    get headers() {
      return now().headers;
    },
    get fetch() {
      return now().fetch;
    },
    get admin() {
      return now().admin;
    },
    reset: () => now().reset(),
    another() {
      now();
      const ns = running().namespace(uniqueNamespace(prefix));
      extra.push(ns);
      return ns;
    },
  };
}
