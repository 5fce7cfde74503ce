// Runs the real `hermetic` bin (bin/hermetic.js) as a person does, against the TypeScript sources: the bin imports
// ../dist/cli/main.js, and a resolve hook points every dist/**.js at src/**.ts (tsx compiles them), so no build is
// needed and no stale build is tested. `spawnServe` starts `hermetic serve` and waits for the address it prints.
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { main } from '../../src/cli/main.js';

export const BIN = fileURLToPath(new URL('../../bin/hermetic.js', import.meta.url));
const DIST = pathToFileURL(fileURLToPath(new URL('../../dist/', import.meta.url))).href;
const SRC = pathToFileURL(fileURLToPath(new URL('../../src/', import.meta.url))).href;
const TSX = pathToFileURL(fileURLToPath(import.meta.resolve('tsx'))).href;

// With HERMETIC_TEST_LOAD_GATE=DIR, the bin's import of the CLI (dist/cli/main.js, after its first line held the stop
// signals) writes DIR/loading and waits for DIR/go: a test can act at the moment the modules are about to load.
const HOOKS = `import { existsSync, writeFileSync } from 'node:fs';
const DIST = ${JSON.stringify(DIST)}, SRC = ${JSON.stringify(SRC)}, GATE = process.env.HERMETIC_TEST_LOAD_GATE;
async function gate() {
  writeFileSync(GATE + '/loading', '');
  while (!existsSync(GATE + '/go')) await new Promise((r) => setTimeout(r, 10));
}
export async function resolve(specifier, context, next) {
  if (context.parentURL && /^(\\.|file:)/.test(specifier)) {
    const url = new URL(specifier, context.parentURL).href;
    if (url.startsWith(DIST) && url.endsWith('.js')) {
      if (GATE && url === DIST + 'cli/main.js') await gate();
      return next(SRC + url.slice(DIST.length, -3) + '.ts', context);
    }
  }
  return next(specifier, context);
}`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

/** Node's arguments that run the bin from source (tsx first, so the dist → src hook resolves before it). */
export const BIN_ARGS = ['--import', TSX, '--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, BIN];

/**
 * Runs `hermetic ...args` to completion in `cwd` (default: the repository) and returns its exit status and output.
 * @example const r = runBin(['statedb', 'inspect', 'x.db']); assert.equal(r.status, 1);
 */
export function runBin(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [...BIN_ARGS, ...args], {
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
  const child = spawn(process.execPath, [...BIN_ARGS, ...args], { cwd: options.cwd, env: { ...process.env, ...options.env } });
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
  const child = spawn(process.execPath, [...BIN_ARGS, ...args], {
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

