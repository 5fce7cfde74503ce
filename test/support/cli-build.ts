// The `hermetic` bin as the processes the tests start run it: src/ transpiled to JavaScript and the CLI bundled as a
// clone's `npm install` does it (scripts/transpile.mjs: esbuild, found through tsx) into
// .cache/test-build/<hash>/dist/, beside copies of bin/hermetic.js and package.json. A spawned command then starts in
// about 0.2 s of CPU instead of 1.4 s through tsx's loader, and a few hundred spawns make that minutes (decisions 0034,
// 0085). The folder is named by a hash of every file it is made from (and of this file), so what runs is always the
// working tree as it is: no stale build is tested. Test processes that start at once share one build; the first to
// finish renames its copy into place.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findEsbuild, sourceFiles, transpile } from '../../scripts/transpile.mjs';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CACHE = join(REPO, '.cache', 'test-build');
/** Builds older than this, of sources since changed, are removed when a new one is made. */
const KEEP_MS = 60 * 60 * 1000;

let built: string | null = null;

/**
 * The folder of the current build (its bin/hermetic.js runs the CLI), made first if it does not exist yet.
 * @example spawn(process.execPath, [join(cliBuild(), 'bin', 'hermetic.js'), '--version'])
 */
export function cliBuild(): string {
  if (built) return built;
  const sources = sourceFiles(join(REPO, 'src'));
  const inputs = [
    ...sources, join(REPO, 'bin', 'hermetic.js'), join(REPO, 'package.json'), join(REPO, 'tsconfig.json'), fileURLToPath(import.meta.url),
    join(REPO, 'scripts', 'transpile.mjs'), join(REPO, 'scripts', 'bundle-cli.mjs'),
  ];
  const hash = createHash('sha256');
  for (const file of inputs) hash.update(relative(REPO, file)).update('\0').update(readFileSync(file)).update('\0');
  const es = findEsbuild();
  if (es === null) throw new Error('The tests run the bin from a build made with tsx\'s esbuild, and tsx is not installed (npm install).');
  hash.update(es.version);
  const root = join(CACHE, hash.digest('hex').slice(0, 16));
  if (existsSync(join(root, 'bin', 'hermetic.js'))) return (built = root);

  mkdirSync(CACHE, { recursive: true });
  const temp = `${root}.${process.pid}.tmp`;
  rmSync(temp, { recursive: true, force: true });
  transpile(es, REPO, join(temp, 'dist'), sources);
  // The CLI bundled as a clone's install bundles it (esbuild's bundling with plugins is asynchronous: a process of its own).
  const bundled = spawnSync(process.execPath, [join(REPO, 'scripts', 'bundle-cli.mjs'), join(temp, 'dist')], { encoding: 'utf8' });
  if (bundled.status !== 0) throw new Error(`Bundling the CLI failed: ${bundled.stderr}`);
  mkdirSync(join(temp, 'bin'));
  cpSync(join(REPO, 'bin', 'hermetic.js'), join(temp, 'bin', 'hermetic.js'));
  cpSync(join(REPO, 'package.json'), join(temp, 'package.json'));
  try {
    renameSync(temp, root);
  } catch (e) {
    // Another test process made the same build first: use that one.
    rmSync(temp, { recursive: true, force: true });
    if (!existsSync(join(root, 'bin', 'hermetic.js'))) throw e;
    return (built = root);
  }
  for (const name of readdirSync(CACHE)) {
    const path = join(CACHE, name);
    try {
      if (path !== root && Date.now() - statSync(path).mtimeMs > KEEP_MS) rmSync(path, { recursive: true, force: true });
    } catch { /* removed by another process */ }
  }
  return (built = root);
}

/**
 * The JavaScript of a source module (`src/…/x.ts`, a path or a file: URL) in the current build, for a child process
 * that runs one module of ours with plain node: about 0.2 s of CPU to start instead of 0.8–1.1 s through tsx's loader
 * (decision 0095). The build is the working tree as it is, so the child runs the same code.
 * @example spawn(process.execPath, [builtModule(new URL('./ship-child.ts', import.meta.url))])
 */
export function builtModule(source: string | URL): string {
  const path = typeof source === 'string' && !source.startsWith('file:') ? source : fileURLToPath(source);
  const inSrc = relative(join(REPO, 'src'), path);
  if (inSrc.startsWith('..') || isAbsolute(inSrc) || !inSrc.endsWith('.ts')) throw new Error(`${path} is not a TypeScript module under src/`);
  return join(cliBuild(), 'dist', inSrc.replace(/\.ts$/, '.js'));
}
