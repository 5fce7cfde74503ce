// The files the page is made of: our plain modules and styles (public/), and Chart.js from node_modules, served by
// our own server so the dashboard works offline and asks no other origin for anything.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * public/ beside this module's source (src/forwarder/web/public); from a build (dist/, whose assets tsc does not copy)
 * the nearest folder above that holds src/forwarder/web/public: the package's, which `files` in package.json ships.
 */
function publicDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = join(here, 'public');
  if (existsSync(beside)) return beside;
  for (let dir = here; dirname(dir) !== dir; dir = dirname(dir)) {
    const candidate = join(dir, 'src', 'forwarder', 'web', 'public');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  throw new Error(`The dashboard's page (src/forwarder/web/public) is missing from this installation, looked for from ${here}.`);
}

/** Chart.js's UMD build (one classic script that defines `Chart`), found through Node's resolution. */
function chartJs(): string {
  const main = createRequire(import.meta.url).resolve('chart.js'); // …/chart.js/dist/chart.cjs
  return join(dirname(main), 'chart.umd.min.js');
}

export interface Asset {
  file: string;
  type: string;
}

/** URL path → file: `/app/<file>` for public/, `/vendor/chart.umd.js` for the charting library. */
export function assetTable(): Map<string, Asset> {
  const table = new Map<string, Asset>();
  const dir = publicDir();
  const walk = (sub: string) => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(rel);
      else if (TYPES[extname(entry.name)]) table.set(`/app/${rel}`, { file: join(dir, rel), type: TYPES[extname(entry.name)]! });
    }
  };
  walk('');
  table.set('/vendor/chart.umd.js', { file: chartJs(), type: TYPES['.js']! });
  return table;
}

/**
 * The page with a `<link rel="modulepreload">` for each of our modules, so the browser fetches them all at once
 * instead of level by level as it finds their imports (three round trips before the first API call, ~90 ms).
 */
export function pageWithPreloads(assets: Map<string, Asset>): Buffer {
  const html = readFileSync(assets.get('/app/index.html')!.file, 'utf8');
  const modules = [...assets.keys()].filter((path) => path.startsWith('/app/') && path.endsWith('.js')).sort();
  const links = modules.map((path) => `<link rel="modulepreload" href="${path}">`).join('\n  ');
  const at = html.indexOf('<script type="module"');
  if (at < 0) throw new Error('The dashboard\'s index.html has no module script to preload for.');
  return Buffer.from(`${html.slice(0, at)}${links}\n  ${html.slice(at)}`);
}

/** An asset's bytes and a strong validator for them (the file is read each time: an edited file is served fresh). */
export function readAsset(asset: Asset): { body: Buffer; etag: string } {
  const body = readFileSync(asset.file);
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url').slice(0, 22)}"` };
}
