// Generated stores for tests, made once and shared: generate() writes into a cache folder named by a hash of the
// options and of every source file the generator may run (src/state-db/, src/shared/, their tests and test helpers
// aside: a change to a browser or PostgreSQL helper makes no store again), and each test gets a copy where
// it asked for one. Test processes of one run share a store, and the next run reuses it until the generator changes
// (decision 0034). A copy is what that generator run wrote, byte for byte: nothing in a store depends on its path.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, type GenerateOptions, type GenerateResult } from '../generate/index.js';
import { createDirs } from '../../shared/dirs.js';

const SRC = fileURLToPath(new URL('../../', import.meta.url));
/** The files of a generated store that generate() may leave beside `out`. */
const BESIDE = ['-wal'];

/** The files under `dir` the generator may run: not tests, and not the test helpers' `testing/` folders. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'testing' ? [] : sources(path);
    return e.name.endsWith('.test.ts') ? [] : [path];
  });
}

let generatorHash: string | null = null;

/** A hash of what the generator runs: change any of it and every cached store is made again. */
function generator(): string {
  if (generatorHash) return generatorHash;
  const hash = createHash('sha256');
  for (const file of [...sources(join(SRC, 'state-db')), ...sources(join(SRC, 'shared'))].sort()) {
    hash.update(relative(SRC, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return (generatorHash = hash.digest('hex'));
}

/** Stores of another generator, unused for a day, are removed. */
function prune(cache: string): void {
  const current = generator().slice(0, 16);
  for (const name of existsSync(cache) ? readdirSync(cache) : []) {
    try {
      if (name !== current && Date.now() - statSync(join(cache, name)).mtimeMs > 24 * 3600_000) rmSync(join(cache, name), { recursive: true, force: true });
    } catch { /* removed by another process */ }
  }
}

/**
 * Like generate(options), from a store generated once for these options (a Postgres profile's config.yaml is not
 * cached: give those to generate()).
 * @example const { path } = generatedStore({ out: join(dir, 'state.db'), sessions: 1000, messages: 15_000, seed: 's' });
 */
export function generatedStore(options: GenerateOptions): GenerateResult {
  const { out, replace: _replace, ...shape } = options;
  const key = createHash('sha256').update(JSON.stringify(shape, Object.keys(shape).sort())).digest('hex').slice(0, 24);
  // The test runner names the cache (scripts/run-tests.mjs gives each run a temporary folder of its own); one per user.
  const cache = process.env.HERMETIC_TEST_STORES || join(tmpdir(), `hermetic-test-stores-${process.getuid?.() ?? 'user'}`);
  const master = join(cache, generator().slice(0, 16), key);
  if (!existsSync(join(master, 'result.json'))) {
    prune(cache);
    const temp = `${master}.${process.pid}.tmp`;
    rmSync(temp, { recursive: true, force: true });
    createDirs(temp);
    const made = generate({ ...shape, out: join(temp, 'state.db') });
    writeFileSync(join(temp, 'result.json'), JSON.stringify(made));
    try {
      renameSync(temp, master);
    } catch {
      // Another test process made the same store first.
      rmSync(temp, { recursive: true, force: true });
    }
  }
  if (!options.replace && existsSync(out)) throw new Error(`generatedStore: ${out} already exists`);
  createDirs(dirname(out));
  for (const suffix of ['-wal', '-shm', '-journal']) rmSync(out + suffix, { force: true });
  copyFileSync(join(master, 'state.db'), out);
  for (const suffix of BESIDE) if (existsSync(join(master, `state.db${suffix}`))) copyFileSync(join(master, `state.db${suffix}`), out + suffix);
  const made = JSON.parse(readFileSync(join(master, 'result.json'), 'utf8')) as GenerateResult;
  return { ...made, path: out };
}
