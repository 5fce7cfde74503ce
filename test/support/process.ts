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

const HOOKS = `const DIST = ${JSON.stringify(DIST)}, SRC = ${JSON.stringify(SRC)};
export async function resolve(specifier, context, next) {
  if (context.parentURL && /^(\\.|file:)/.test(specifier)) {
    const url = new URL(specifier, context.parentURL).href;
    if (url.startsWith(DIST) && url.endsWith('.js')) return next(SRC + url.slice(DIST.length, -3) + '.ts', context);
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

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Resolves with the exit code (or signal name) once the process ends. */
  exited: Promise<number | string>;
}

export function spawnServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...BIN_ARGS, 'serve', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hermetic serve did not start: ${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      // The banner's last line is the curl example.
      if (match && /try: /.test(output)) {
        clearTimeout(timer);
        resolve({ child, url: match[1]!, output: () => output, exited });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`hermetic serve exited before listening: ${output}`));
    });
  });
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

