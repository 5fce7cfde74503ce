// The published types as a TypeScript consumer meets them: `npm pack` (which builds through `prepack`) of a copy of
// this package, unpacked as node_modules/hermetic of a throwaway project that links only @types/node and typescript
// from here — deliberately not @types/better-sqlite3 — and compiled with strict and skipLibCheck: false. One file
// must compile; another must fail with exactly the expected errors. No network: nothing is installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');

const GOOD = `
import {
  AdminClientError, ControlledClock, EPOCH_MAX, ERROR_CODES, HermeticError, createAdminClient, createEmulator, startServer,
  type AdminApprovalEvent, type AdminClient, type AdminRunInfo, type EmulatorOptions, type ErrorCode, type FetchFunction,
  type FetchLike, type RunStatus, type AdminJournalEntry, type AdminCheckpoint, type AdminRequestFilter, type FaultPresetName,
  type FaultRuleInput,
} from 'hermetic';

const options: EmulatorOptions = {
  apiKey: 'test-key-0123456789abcdef', time: 1789169800, frozen: true, seed: 'consumer',
  profiles: { work: { apiKey: null } }, agent: { startDelay: 1 },
};
const hermes = createEmulator(options);
const admin: AdminClient = hermes.admin;
const clock: { now: number; frozen: boolean } = await admin.clock({ advance: 5, freeze: true });
const max: number = EPOCH_MAX;
const moved: number = clock.now + max;
const info: AdminRunInfo = await admin.run('run_x').catch(() => ({} as AdminRunInfo));
const status: RunStatus | null = info.status;
const runs: string[] = (await admin.runs()).runs.map((r) => r.run_id + r.status);
const approval: AdminApprovalEvent = await admin.approvalRequest('run_x', { command: 'rm -rf build' }).catch(() => ({} as AdminApprovalEvent));
const choices: string[] = approval.choices;
const done: { run_id: string; status: RunStatus } = await admin.complete('run_x', { output: 'Done.', usage: { input_tokens: 1 } }).catch(() => ({ run_id: '', status: 'completed' as const }));
await admin.event('run_x', { event: 'tool.started', tool: 'terminal', preview: 'ls' }).catch(() => undefined);
await admin.steerPolicy('run_x', { accept: false }).catch(() => undefined);
await admin.sweep();
// The answers' and the inputs' own types, named by a client's helpers.
const filter: AdminRequestFilter = { operation: 'submit' };
const entries: AdminJournalEntry[] = (await admin.requests(filter)).requests;
const preset: FaultPresetName = 'hermes_throttled';
const rule: FaultRuleInput = { preset };
const saved: AdminCheckpoint = await admin.checkpoint();
void [entries, rule, saved.id];
const response: Response = await hermes.fetch(new Request('http://hermes.test/health'));

/** A client that takes a fetch, typed as fetch itself (as the OpenAI and Anthropic SDKs, ky, ofetch do). */
class MyClient {
  constructor(readonly options: { baseUrl: string; fetch?: typeof globalThis.fetch }) {}
  health(): Promise<Response> {
    return (this.options.fetch ?? globalThis.fetch)(this.options.baseUrl + '/health', { headers: { Accept: 'application/json' } });
  }
}
const client = new MyClient({ baseUrl: 'http://hermes.test', fetch: hermes.fetch });
const drop: typeof globalThis.fetch = hermes.fetch;
const wide: FetchFunction = hermes.fetch;
const narrow: FetchLike = hermes.fetch;
const viaString: Response = await hermes.fetch('/health', { method: 'GET' });
const viaUrl: Response = await hermes.fetch(new URL('http://hermes.test/health'));
void [client.health(), drop, wide, narrow, viaString, viaUrl];
const clock2 = new ControlledClock({ start: 0, frozen: true });
const timer = clock2.every(60, () => undefined);
timer.cancel();

const server = await startServer({ port: 0, emulator: hermes });
const remote = createAdminClient(globalThis.fetch, server.url);
try {
  await remote.clock({ set: 1796000000000 });
} catch (e) {
  if (e instanceof AdminClientError) {
    const code: ErrorCode = e.code;
    const httpStatus: number = e.httpStatus;
    const route: keyof AdminClient = e.route;
    void [code, httpStatus, route, ERROR_CODES[code].status];
  } else if (e instanceof HermeticError) {
    const message: string = e.message;
    void message;
  }
}
await server.close();
await hermes.close();
void [moved, status, runs, choices, done, response];
`;

/** hermetic/testing as a node:test (or vitest) suite uses it. */
const TESTING = `
import * as nodeTest from 'node:test';
import {
  AdminClientError, connect, createAdminClient, start, uniqueNamespace, useHermetic,
  type AdminClient, type FetchFunction, type Hermetic, type HermeticNamespace, type HermeticSuite, type TestHooks,
  type UseOptions,
} from 'hermetic/testing';

const hermes: HermeticSuite = useHermetic(nodeTest, { apiKey: 'test-key-0123456789abcdef', time: 1789169800, frozen: true });
nodeTest.test('a run', async () => {
  const url: string = hermes.url;
  const headers: Readonly<Record<string, string>> = hermes.headers;
  const res: Response = await hermes.fetch(new Request(url + '/v1/runs', { method: 'POST', headers, body: '{"input":"hi"}' }));
  const { run_id } = (await res.json()) as { run_id: string };
  const byPath: Response = await hermes.fetch('/v1/runs/' + run_id, { headers });
  const sdkFetch: typeof globalThis.fetch = hermes.fetch;
  const serverFetch: FetchFunction = hermes.server.fetch;
  void [byPath, sdkFetch, serverFetch];
  await hermes.admin.complete(run_id, { output: 'Done.' });
  const other: HermeticNamespace = hermes.another();
  await other.admin.clock({ advance: 60 });
  const server: Hermetic = hermes.server;
  void server.url;
});

const vitestLike: TestHooks = {
  beforeAll: (fn) => void fn(), afterAll: (fn) => void fn(), beforeEach: (fn) => void fn(), afterEach: (fn) => void fn(),
};
useHermetic(vitestLike, { url: 'http://127.0.0.1:8642', adminKey: 'admin', prefix: 'w' });
// What CI writes: compiles (string | undefined), and an unset variable is refused at run time (HERMETIC_TESTING_URL).
const fromEnv = (): UseOptions => ({ url: process.env.HERMES_URL, apiKey: 'k' });
void fromEnv;

const started: Hermetic = await start({ transport: 'fetch', adminKey: 'admin' });
const ns: HermeticNamespace = started.namespace(uniqueNamespace('worker'));
const admin: AdminClient = ns.admin;
try {
  await admin.clock({ set: 1 });
} catch (e) {
  if (e instanceof AdminClientError) void e.httpStatus;
}
await ns.reset();
const remote: Hermetic = connect(started.url, { adminKey: null, fetch: started.fetch });
void createAdminClient(remote.fetch, remote.url);
await started.close();
`;

/** Each line that must not compile, with the TypeScript error it must give. */
const BAD: Array<[string, string]> = [
  ["createEmulator({ apiKey: 42 });", 'TS2322'],
  ["createEmulator({ apiKy: 'k' });", 'TS2561'],
  ["createEmulator({ colour: 'red' });", 'TS2353'],
  ["createEmulator({ time: '1789169800' });", 'TS2322'],
  ["createEmulator({ agent: { startDelay: true } });", 'TS2322'],
  ["await hermes.admin.clock({ freeze: 'yes' });", 'TS2322'],
  ["await hermes.admin.getClock({});", 'TS2554'],
  ["await hermes.admin.complete({ output: 'Done.' });", 'TS2345'],
  ["const n: number = (await hermes.admin.run('r')).status;", 'TS2322'],
  ["useHermetic({ before: () => undefined, after: () => undefined, beforeEach: () => undefined });", 'TS2345'],
  ["await start({ transport: 'tcp' });", 'TS2322'],
];

let dir = '';
let packed: { files: Array<{ path: string }> } | null = null;
let diagnostics: Array<{ file: string; line: number; code: string; text: string }> = [];

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hermetic-package-'));
  // Pack a copy, so the build of `prepack` never writes into the working tree's dist/ (`prepare` then does nothing).
  const copy = join(dir, 'source');
  mkdirSync(copy);
  for (const name of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'bin', 'src', 'examples', 'scripts']) {
    cpSync(join(REPO, name), join(copy, name), { recursive: true, filter: (from) => !from.endsWith('.test.ts') });
  }
  symlinkSync(join(REPO, 'node_modules'), join(copy, 'node_modules'), 'dir');
  const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: copy,
    encoding: 'utf8',
    // The suite type-checks the sources (npm test --typecheck): the pack's build only emits (scripts/build.mjs).
    env: { ...process.env, HERMETIC_BUILD_NO_CHECK: '1', npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
  });
  assert.equal(pack.status, 0, `npm pack failed:\n${pack.stdout}\n${pack.stderr}`);
  const [result] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  packed = result!;

  const consumer = join(dir, 'consumer');
  const modules = join(consumer, 'node_modules');
  mkdirSync(join(modules, '@types'), { recursive: true });
  const untar = spawnSync('tar', ['-xzf', join(dir, result!.filename), '-C', modules], { encoding: 'utf8' });
  assert.equal(untar.status, 0, untar.stderr);
  renameSync(join(modules, 'package'), join(modules, 'hermetic'));
  symlinkSync(join(REPO, 'node_modules', '@types', 'node'), join(modules, '@types', 'node'), 'dir');
  symlinkSync(join(REPO, 'node_modules', 'undici-types'), join(modules, 'undici-types'), 'dir');
  symlinkSync(join(REPO, 'node_modules', 'typescript'), join(modules, 'typescript'), 'dir');
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(join(consumer, 'good.ts'), GOOD);
  writeFileSync(join(consumer, 'testing.ts'), TESTING);
  writeFileSync(
    join(consumer, 'bad.ts'),
    [
      `import { createEmulator } from 'hermetic'; import { start, useHermetic } from 'hermetic/testing';`,
      `const hermes = createEmulator();`,
      ...BAD.map(([line]) => line),
      'export {};',
    ].join('\n'),
  );
  const compilerOptions = {
    strict: true, skipLibCheck: false, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'],
  };
  writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['good.ts', 'testing.ts', 'bad.ts'] }));
  // One compiler run for every file (checking @types/node without skipLibCheck is most of its time).
  diagnostics = tsc(consumer);
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function tsc(cwd: string): Array<{ file: string; line: number; code: string; text: string }> {
  const r = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json', '--pretty', 'false'], { cwd, encoding: 'utf8' });
  const errors = [...r.stdout.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/gm)].map((m) => ({
    file: m[1]!, line: Number(m[2]), code: m[3]!, text: m[4]!,
  }));
  // Every line of output is a diagnostic we parsed (a config or resolution failure would not be).
  assert.equal(errors.length, r.stdout.split('\n').filter((l) => /error TS\d+/.test(l)).length, r.stdout);
  assert.ok(r.status === 0 || errors.length > 0, `tsc failed without diagnostics:\n${r.stdout}\n${r.stderr}`);
  return errors;
}

test('the tarball carries the build and its declarations, and the example files, and no tests', () => {
  const paths = packed!.files.map((f) => f.path);
  for (const path of [
    'package.json', 'bin/hermetic.js', 'dist/index.js', 'dist/index.d.ts', 'dist/emulator/admin/client.d.ts', 'dist/testing/index.js',
    'dist/testing/index.d.ts', 'examples/scenarios.yaml', 'examples/hermetic.yaml',
  ]) {
    assert.ok(paths.includes(path), `${path} is packed`);
  }
  assert.deepEqual(paths.filter((p) => p.includes('.test.')), []);
  assert.ok(!existsSync(join(dir, 'consumer', 'node_modules', '@types', 'better-sqlite3')));
  // Its source maps carry their sources: src/ is not packed, and a stack trace or a debugger mapped through them
  // would otherwise name files that are not there.
  const map = JSON.parse(readFileSync(join(dir, 'consumer', 'node_modules', 'hermetic', 'dist', 'testing', 'index.js.map'), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
  assert.deepEqual([map.sources, map.sourcesContent?.[0]?.includes('export function useHermetic')], [['../../src/testing/index.ts'], true]);
});

test('the packed bin runs its bundled CLI (dist/bundle/, made by prepack after tsc)', () => {
  const paths = packed!.files.map((f) => f.path);
  assert.ok(['main', 'stop-signals', 'read-worker'].every((f) => paths.includes(`dist/bundle/${f}.js`)), 'the bundle is packed, the read worker\'s entry too');
  const bin = join(dir, 'consumer', 'node_modules', 'hermetic', 'bin', 'hermetic.js');
  const r = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
  assert.deepEqual([r.status, r.stdout, r.stderr], [0, `${(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version}\n`, '']);
});

/**
 * A run played end to end through the packed package's public entry points, as a test suite's file does; `load` is
 * how the file gets them (`await import` in ESM, `require` in CommonJS, Jest's default). Prints what it saw as JSON.
 */
const RUNTIME = (load: (name: string) => string) => `
(async () => {
  const { createEmulator } = ${load('hermetic')};
  const { start } = ${load('hermetic/testing')};
  const hermes = createEmulator();
  const health = await (await hermes.fetch('http://hermes/health')).json();
  await hermes.close();
  const started = await start({ transport: 'fetch' });
  const submitted = await (await started.fetch('/v1/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"input":"hi"}' })).json();
  await started.admin.complete(submitted.run_id, { output: 'Done.' });
  const run = await (await started.fetch('/v1/runs/' + submitted.run_id)).json();
  await started.close();
  console.log(JSON.stringify({ health: health.status, status: run.status, output: run.output }));
})().catch((e) => { console.error(e); process.exitCode = 1; });
`;

test('the packed library runs: imported from an ES module, and required from CommonJS (Jest\'s default) on Node 20.19+', () => {
  const consumer = join(dir, 'consumer');
  // npm would install the package's dependencies beside it; the repository's serve here.
  const deps = join(consumer, 'node_modules', 'hermetic', 'node_modules');
  if (!existsSync(deps)) symlinkSync(join(REPO, 'node_modules'), deps, 'dir');
  writeFileSync(join(consumer, 'run.mjs'), RUNTIME((name) => `await import('${name}')`));
  writeFileSync(join(consumer, 'run.cjs'), RUNTIME((name) => `require('${name}')`));
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  const kinds = major > 20 || minor >= 19 ? ['run.mjs', 'run.cjs'] : ['run.mjs'];
  for (const file of kinds) {
    const r = spawnSync(process.execPath, [file], { cwd: consumer, encoding: 'utf8' });
    assert.equal(r.status, 0, `${file}: ${r.stderr}`);
    assert.deepEqual(JSON.parse(r.stdout), { health: 'ok', status: 'completed', output: 'Done.' }, file);
    // No ExperimentalWarning or other noise on the consumer's stderr.
    assert.equal(r.stderr, '', file);
  }
});

test('a strict consumer without @types/better-sqlite3 compiles against the public types, hermetic/testing included', () => {
  const errors = diagnostics.filter((e) => e.file !== 'bad.ts');
  assert.deepEqual(errors, []);
});

test('wrong option types, unknown options and wrong control bodies do not compile', () => {
  const errors = diagnostics.filter((e) => e.file === 'bad.ts');
  // Line 1 is the import and line 2 the emulator; BAD[i] is on line i + 3.
  assert.deepEqual(
    errors.map((e) => [e.file, e.line, e.code]),
    BAD.map(([, code], i) => ['bad.ts', i + 3, code]),
    errors.map((e) => `${e.line}: ${e.code} ${e.text}`).join('\n'),
  );
});
