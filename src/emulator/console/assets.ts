// The console's files (assets/): read once from beside this module, each with its content type and an ETag. The
// set is fixed when first read: a request names a file by one path segment and only these names answer, so no
// request path ever reaches the filesystem (decision 0042).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

export interface ConsoleAsset {
  readonly name: string;
  readonly type: string;
  readonly body: Buffer;
  /** A strong validator: the first 16 hex digits of the file's SHA-256, quoted. */
  readonly etag: string;
}

/** The content types the console's files come in; a file of another kind beside them is not served. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The folder the files are read from: assets/ beside this module (the build copies it into dist/). */
export const ASSETS_DIR = new URL('./assets/', import.meta.url);

let loaded: ReadonlyMap<string, ConsoleAsset> | null = null;

/** Every console file by name (index.html, console.css, …), read on first use. */
export function consoleAssets(): ReadonlyMap<string, ConsoleAsset> {
  if (loaded) return loaded;
  const assets = new Map<string, ConsoleAsset>();
  let entries;
  try {
    entries = readdirSync(ASSETS_DIR, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    // A build made by tsc alone (not `npm run build`, which copies the files): every console path answers 404 saying so.
    return new Map();
  }
  for (const entry of entries) {
    const type = entry.isFile() ? CONTENT_TYPES[entry.name.slice(entry.name.lastIndexOf('.'))] : undefined;
    if (!type) continue;
    const body = readFileSync(new URL(entry.name, ASSETS_DIR));
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    assets.set(entry.name, { name: entry.name, type, body, etag });
  }
  return (loaded = assets);
}
