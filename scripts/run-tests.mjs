// Runs every *.test.ts under src/ and test/ with node's test runner (Node 20 has no --test globs), several processes
// at a time, and with --typecheck the type-check beside them (decision 0034).
// Usage: node scripts/run-tests.mjs [--typecheck] [--fast] [substring filter ...]
//   --typecheck  also `tsc -p tsconfig.json --noEmit` (incremental: .cache/tsc/), concurrently; its errors fail the run
//   --fast       the inner loop (npm run test:fast): leaves out the SLOW files below
// HERMETIC_TEST_CONCURRENCY=N  how many test processes run at once (default: the CPU count + 2)
// HERMETIC_TEST_ISOLATE=1      every file in a process of its own (default: the small suites share a few; see SHARED)
// HERMETIC_TEST_TIMES=FILE     also write each test process's time to FILE (scripts/test-times.mjs)
// HERMETIC_TEST_BUNDLE=0       run the TypeScript files through tsx instead of bundled (scripts/test-bundles.mjs)
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleTests } from './test-bundles.mjs';
import { findEsbuild } from './transpile.mjs';

/**
 * The soak and crash suites, and the package's pack-and-compile, which --fast leaves out: each runs a minute of load,
 * dozens of SIGKILLed processes or a whole build.
 */
const SLOW = [
  'test/cli/forwarder-crash.test.ts', // 24 SIGKILLs of backfill and forward (~35 s of CPU)
  'test/cli/forwarder-live.test.ts', // forward beside a writer at 200 messages/s for 30 s
  'test/package/consumer.test.ts', // npm pack (a tsc build) and a strict consumer's tsc
  'src/forwarder/pipeline/read-worker.test.ts', // 18 backfills of 2,600 messages, read three ways
  'test/cli/crash.test.ts', // a gateway SIGKILLed under concurrent keyed load, 4 rounds
  'src/forwarder/sinks/postgres/crash.test.ts', // 20 SIGKILLed forwarder processes shipping into PostgreSQL
];

/**
 * Files that run in a process of their own besides the CLI and package suites and the slow ones above, each for a
 * reason a shared process cannot give.
 */
const OWN = [
  // A PostgreSQL cluster each, forwarder processes, the server stopped and started.
  'src/forwarder/sinks/postgres/fleet.test.ts', 'src/forwarder/sinks/postgres/conformance.test.ts',
  'src/forwarder/sinks/postgres/hostile.test.ts',
  // Measures its own RSS over 40,000 namespaces: a process of its own, so no other suite's memory is counted.
  'src/emulator/namespaces/bounds.test.ts',
  // Measures its own heap after full collections: what parses allocate, what a waiting run keeps (decision 0135).
  'src/emulator/serve/body-memory.test.ts',
  // A Chromium each, driven through a dashboard (decision 0041).
  'src/forwarder/web/page.test.ts', 'src/forwarder/web/page-session.test.ts',
  // The fleet's dashboard: a PostgreSQL cluster and a Chromium.
  'src/forwarder/web/fleet.test.ts',
  // A dataset of 75 MB written, texts of 20 MB read whole (decision 0088): its memory and disk are no other suite's.
  'src/forwarder/web/big-texts.test.ts',
];

/**
 * Seconds each file takes alone (scripts/test-weights.json, measured on a 2-core machine; scripts/test-weights.mjs
 * updates it). The run starts its processes longest first, so that none of them begins near the end, and balances
 * the shared groups by them. A file not measured yet counts as a small one.
 */
const WEIGHTS = JSON.parse(readFileSync(new URL('./test-weights.json', import.meta.url), 'utf8')).seconds;
const UNMEASURED = 2;
/** What starting a test process costs (node, the bundled modules, the contract check): the part a shared file saves. */
const STARTUP = 0.3;
const weight = (f) => WEIGHTS[f] ?? UNMEASURED;

/**
 * Which files share a process: the in-process suites (unit, conformance, docs), whose own tests take less than the
 * start-up of a process of their own (node, the preloaded contract check and the module graph: about 0.3 s of CPU each
 * bundled, a second through tsx, for most of them more than their tests). They run one after another in a few processes,
 * as Node 22's --test-isolation=none would run them; a file's top-level before/after hooks then run once for its
 * process, which no shared file relies on otherwise (none has a top-level beforeEach/afterEach). The CLI suites, which
 * start processes, signal them and count handles, keep a process each, as do the slow and long files.
 */
const SHARED = (f) => !f.startsWith('test/cli/') && !f.startsWith('test/package/') && !SLOW.includes(f) && !OWN.includes(f);

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const args = process.argv.slice(2);
const typecheck = args.includes('--typecheck');
const fast = args.includes('--fast');
const filters = args.filter((a) => !a.startsWith('--'));
const isolate = process.env.HERMETIC_TEST_ISOLATE === '1';
const files = ['src', 'test'].flatMap((d) => walk(d, [])).sort()
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .filter((f) => !fast || !SLOW.includes(f));
if (files.length === 0) {
  console.error('run-tests: no test files matched');
  process.exit(1);
}

// The CPUs are the limit: a few more processes than cores keep them busy while some wait on children or timers.
const concurrency = Number(process.env.HERMETIC_TEST_CONCURRENCY) || availableParallelism() + 2;

/** Whether the process with this id has ended (the folders a run killed before it cleaned up are named by its pid). */
function gone(pid) {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return e.code === 'ESRCH';
  }
}
for (const dir of [join('.cache', 'test-groups'), join('.cache', 'test-bundles')]) {
  for (const name of existsSync(dir) ? readdirSync(dir) : []) if (/^\d+$/.test(name) && gone(Number(name))) rmSync(join(dir, name), { recursive: true, force: true });
}

// The test files as plain JavaScript (scripts/test-bundles.mjs), built in one go into a folder of this run; without
// esbuild (or with HERMETIC_TEST_BUNDLE=0) every process runs the TypeScript through tsx instead.
const PRELOAD = 'test/support/contract-check.ts';
/** The Hermes-like writer the live and crash suites start (test/support/forwarder-harness.ts), bundled with them. */
const WRITER = 'test/support/forwarder-writer.ts';
const esbuild = process.env.HERMETIC_TEST_BUNDLE === '0' ? null : findEsbuild();
const BUNDLES = join('.cache', 'test-bundles', String(process.pid));
let bundles = null;
if (esbuild) {
  try {
    bundles = await bundleTests(esbuild, process.cwd(), [...files, PRELOAD, WRITER], BUNDLES);
  } catch (e) {
    rmSync(BUNDLES, { recursive: true, force: true });
    console.error(`run-tests: the test files could not be bundled: ${e.message}`);
    process.exit(1);
  }
}
/** What a process runs for a test file: its bundle, or the file itself. */
const runnable = (f) => bundles?.get(f) ?? f;

// The shared files, in twice as many groups as process slots: small enough that the slots free up evenly towards the
// end of the run, few enough that start-ups stay few. Each file, longest first, joins the lightest group.
const shared = isolate ? [] : files.filter(SHARED);
const groups = Array.from({ length: Math.min(2 * concurrency, shared.length) }, () => ({ files: [], weight: STARTUP }));
for (const f of [...shared].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b))) {
  const lightest = groups.reduce((a, b) => (b.weight < a.weight ? b : a));
  lightest.files.push(f);
  lightest.weight += Math.max(0.1, weight(f) - STARTUP);
}
const GROUPS = join('.cache', 'test-groups', String(process.pid));
if (groups.length > 0) mkdirSync(GROUPS, { recursive: true });
const units = groups.map((group, i) => {
  const entry = join(GROUPS, `shared-${i + 1}-of-${groups.length}.test.mjs`);
  const imports = group.files.sort().map((f) => `import ${JSON.stringify(pathToFileURL(resolve(runnable(f))).href)};\n`);
  writeFileSync(entry, `// ${group.files.length} test files sharing one process (scripts/run-tests.mjs)\n${imports.join('')}`);
  return { file: entry, weight: group.weight };
});
// Every process, longest first (ties in path order).
const queue = [...units, ...files.filter((f) => !shared.includes(f)).map((f) => ({ file: runnable(f), weight: weight(f) }))]
  .sort((a, b) => b.weight - a.weight || a.file.localeCompare(b.file))
  .map((u) => u.file);

/** Runs a command; resolves with its exit status and (when `capture`) its output. */
function run(command, argv, { capture = false, env = process.env } = {}) {
  const child = spawn(command, argv, { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit', env });
  let output = '';
  if (capture) {
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
  }
  return new Promise((resolve) => child.on('close', (status, signal) => resolve({ status: status ?? (signal ? 1 : 0), output })));
}

/**
 * The temporary folder of this run (TMPDIR of every test process and of every process a test starts), removed when
 * the run ends: a run leaves nothing in the system's temporary folder but the cache of generated stores that the next
 * run reuses (src/state-db/testing/generated.ts). As open as the system's own (1777): a test's PostgreSQL runs as
 * another user. Folders of runs whose process is gone (killed before it could remove its own) go first.
 */
const systemTmp = tmpdir();
/** The generated stores' cache, one per user: another user's could not be written, and should not be trusted. */
const storesFolder = `hermetic-test-stores-${process.getuid?.() ?? 'user'}`;
for (const name of readdirSync(systemTmp)) {
  const m = /^hermetic-test-run-(\d+)-/.exec(name);
  if (!m || !gone(Number(m[1]))) continue;
  try {
    rmSync(join(systemTmp, name), { recursive: true, force: true });
  } catch { /* another user's, which this one may not remove */ }
}
const scratch = mkdtempSync(join(systemTmp, `hermetic-test-run-${process.pid}-`));
chmodSync(scratch, 0o1777);
// Ctrl-C reaches the test processes too; this one waits for them to stop, then removes the folder.
process.on('SIGINT', () => {});

const started = performance.now();
// The type-check runs beside the tests (they need nothing it makes), incrementally: a second run re-checks what changed.
let checked = Promise.resolve(null);
if (typecheck) {
  mkdirSync(join('.cache', 'tsc'), { recursive: true });
  const tsc = join('node_modules', 'typescript', 'bin', 'tsc');
  checked = run(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit', '--incremental', '--tsBuildInfoFile', join('.cache', 'tsc', 'tsconfig.tsbuildinfo'), '--pretty', 'false'], { capture: true });
}

/**
 * What the test processes inherit: this environment less the user's own settings of Hermetic and Hermes (a home, a
 * zone, an API or admin key, a server URL, a read-worker mode, a terminal width), which would change what the tests
 * check, or make a refusal a test waits for never come. The runner's knobs stay: HERMETIC_TEST_*, and where the
 * PostgreSQL and Chromium programs are (HERMETIC_PG_BIN, HERMETIC_CHROMIUM), and the soaks' lengths
 * (HERMETIC_CRASH_KILLS, HERMETIC_LIVE_SECONDS).
 * A test that wants one of the others sets it itself (decision 0123).
 */
const RUNNER_KNOBS = /^HERMETIC_(TEST_|PG_BIN$|CHROMIUM$|CRASH_KILLS$|LIVE_SECONDS$)/;
const USER_SETTING = /^(HERMETIC_|HERMES_|API_SERVER_)|^COLUMNS$/;
const testEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => RUNNER_KNOBS.test(k) || !USER_SETTING.test(k)));
const dropped = Object.keys(process.env).filter((k) => !(k in testEnv));
if (dropped.length > 0) console.log(`run-tests: the tests run without ${dropped.sort().join(', ')} (settings of yours that would change what they check)`);

// Every test process holds the admin answers it receives to the OpenAPI document (test/support/contract-check.ts).
// Bundled, the processes run without source maps (a tenth of the in-process tests' CPU); a failure's stack names the
// TypeScript lines all the same, mapped where the report is printed (scripts/test-locations.mjs, decision 0127).
const flags = bundles ? ['--import', `./${runnable(PRELOAD)}`] : ['--import', 'tsx', '--import', `./${PRELOAD}`];
const tests = await run(process.execPath, [
  ...flags, join('scripts', 'test-processes.mjs'), String(concurrency),
  ...(process.env.HERMETIC_TEST_TIMES ? ['--times', process.env.HERMETIC_TEST_TIMES] : []),
  ...queue,
], { env: { ...testEnv, HERMETIC_TEST: '1', TMPDIR: scratch, HERMETIC_TEST_STORES: join(systemTmp, storesFolder), ...(bundles ? { HERMETIC_TEST_WRITER: resolve(runnable(WRITER)) } : {}) } });

rmSync(GROUPS, { recursive: true, force: true });
rmSync(BUNDLES, { recursive: true, force: true });
try {
  rmSync(scratch, { recursive: true, force: true });
} catch (e) {
  // A small disk a killed test left mounted in it (src/shared/testing/small-disks.ts): the tests' result stands.
  console.error(`run-tests: could not remove ${scratch} (${e.code ?? e.message}); remove it by hand (umount what is mounted in it first)`);
}
const types = await checked;
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (types && types.status !== 0) {
  process.stdout.write(`\n${types.output}`);
  console.error('run-tests: the type-check failed (tsc -p tsconfig.json --noEmit)');
}
const n = (count, what) => `${count} ${what}${count === 1 ? '' : what.endsWith('s') ? 'es' : 's'}`;
const how = `${n(files.length, 'file')} in ${n(queue.length, 'process')}, ${concurrency} at a time${fast ? ' (--fast: without the slow suites)' : ''}`;
console.log(`run-tests: ${how}${types ? `; type-check ${types.status === 0 ? 'passed' : 'FAILED'}` : ''}; ${seconds} s`);
process.exit(tests.status || (types?.status ?? 0));
