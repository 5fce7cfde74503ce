// Runs the real `hermetic` bin as a person does: bin/hermetic.js, which imports ../dist/bundle/main.js, copied beside the
// sources transpiled to JavaScript (test/support/cli-build.ts: named by a hash of the sources, so never stale), and
// started by plain node, without tsx. `spawnServe` starts `hermetic serve` and waits for the address it prints.
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { main } from '../../src/cli/main.js';
import { cliBuild } from './cli-build.js';

const BUILD = cliBuild();
/** The bin the tests run: the build's copy of bin/hermetic.js. */
export const BIN = join(BUILD, 'bin', 'hermetic.js');
/** Node's arguments that run the bin. */
export const BIN_ARGS: readonly string[] = [BIN];

// With HERMETIC_TEST_LOAD_GATE=DIR, the bin's import of the CLI (dist/bundle/main.js, or dist/cli/main.js without the
// bundle, after its first line held the stop signals) writes DIR/loading and waits for DIR/go: a test can act at the
// moment the modules are about to load.
const GATE_HOOKS = `import { existsSync, writeFileSync } from 'node:fs';
const MAIN = ${JSON.stringify(['bundle', 'cli'].map((d) => pathToFileURL(join(BUILD, 'dist', d, 'main.js')).href))}, GATE = process.env.HERMETIC_TEST_LOAD_GATE;
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (GATE && MAIN.includes(resolved.url)) {
    writeFileSync(GATE + '/loading', '');
    while (!existsSync(GATE + '/go')) await new Promise((r) => setTimeout(r, 10));
  }
  return resolved;
}`;
const GATE_ARGS = ['--import', `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(GATE_HOOKS)}`)});`)}`];

/** The arguments for node that run `hermetic ...args` (with the load gate's hook when the environment asks for it). */
function argsFor(args: string[], env: NodeJS.ProcessEnv | undefined): string[] {
  return [...(env?.HERMETIC_TEST_LOAD_GATE ? GATE_ARGS : []), ...BIN_ARGS, ...args];
}

/**
 * Runs `hermetic ...args` to completion in `cwd` (default: the repository) and returns its exit status and output.
 * @example const r = runBin(['statedb', 'inspect', 'x.db']); assert.equal(r.status, 1);
 */
export function runBin(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, argsFor(args, options.env), {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

export interface BinResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `runBin` without blocking, so independent command lines can run side by side. */
export function runBinAsync(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<BinResult> {
  const child = spawn(process.execPath, argsFor(args, options.env), { cwd: options.cwd, env: { ...process.env, ...options.env } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export interface BinProcess {
  child: ChildProcess;
  /** stdout and stderr as they arrived, interleaved. */
  output(): string;
  stdout(): string;
  stderr(): string;
  /** Resolves once the output satisfies `match` (false when the process ended first). */
  until(match: (output: string) => boolean): Promise<boolean>;
  /** Resolves with the exit code (or signal name) once the process has ended and its output is all read. */
  exited: Promise<number | string>;
}

/**
 * Starts `hermetic ...args` as its own process, output piped.
 * @example const p = spawnBin(['forward', '--home', dir]); await p.until((o) => o.length > 0); p.child.kill('SIGTERM');
 */
export function spawnBin(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): BinProcess {
  const child = spawn(process.execPath, argsFor(args, options.env), {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  let stderr = '';
  let ended = false;
  const waiters = new Set<() => void>();
  const poke = () => { for (const w of [...waiters]) w(); };
  child.stdout!.setEncoding('utf8').on('data', (s: string) => { stdout += s; output += s; poke(); });
  child.stderr!.setEncoding('utf8').on('data', (s: string) => { stderr += s; output += s; poke(); });
  // 'close', not 'exit': by then every byte the process wrote has been read.
  const exited = new Promise<number | string>((resolve) => child.on('close', (code, signal) => {
    ended = true;
    poke();
    resolve(code ?? signal ?? -1);
  }));
  return {
    child, exited,
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
    until: (match) => new Promise((resolve) => {
      const w = () => {
        const hit = match(output);
        if (hit || ended) {
          waiters.delete(w);
          resolve(hit);
        }
      };
      waiters.add(w);
      w();
    }),
  };
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Resolves with the exit code (or signal name) once the process ends and its output is all read. */
  exited: Promise<number | string>;
}

/** Starts `hermetic serve ...args` and resolves once its banner is printed (its last line is the curl example). */
export async function spawnServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const p = spawnBin(['serve', ...args], { env });
  // A deadline only for a server that hangs: a slow start on a busy machine is not a failure.
  const deadline = setTimeout(() => p.child.kill('SIGKILL'), 60_000);
  const listening = await p.until((o) => /listening on http:\/\/\S+[\s\S]*try: .*\n/.test(o));
  clearTimeout(deadline);
  if (!listening) throw new Error(`hermetic serve exited (${await p.exited}) before listening: ${p.output()}`);
  const url = /listening on (http:\/\/\S+)/.exec(p.output())![1]!;
  return { child: p.child, url, output: p.output, exited: p.exited };
}

let mainQueue: Promise<unknown> = Promise.resolve();

/**
 * `hermetic ...args` as main() in this process, its console captured as the bin's stdout and stderr would be (the
 * bin only calls main and sets the exit code): quicker than a process for long lists of refusals. One at a time,
 * since the console is shared.
 */
export function runMain(args: string[]): Promise<BinResult> {
  const run = mainQueue.then(async () => {
    const out: string[] = [];
    const err: string[] = [];
    const [log, error] = [console.log, console.error];
    console.log = (...a: unknown[]) => void out.push(`${a.join(' ')}\n`);
    console.error = (...a: unknown[]) => void err.push(`${a.join(' ')}\n`);
    try {
      return { status: await main(args), stdout: out.join(''), stderr: err.join('') };
    } finally {
      [console.log, console.error] = [log, error];
    }
  });
  mainQueue = run.catch(() => {});
  return run;
}

