// GET /__admin/ui/…: the console's files, answered at the front door before a namespace is chosen (the console is
// the server's, not a namespace's: opening it creates, journals and counts nothing). The files hold no data, so they
// need no admin key; the page sends the key on every control call it makes (decision 0042).
import { HermeticError } from '../../shared/errors.js';
import { ADMIN_PREFIX, CONSOLE_PREFIX, CONSOLE_ROUTES } from '../admin/routes.js';
import type { HttpRequest, HttpResponse } from '../http.js';
import { consoleAssets } from './assets.js';

/**
 * Self only: scripts, styles, images and fetches from this origin; no inline code, no frames, no form posts, no
 * <base>. The page has no inline script or style, so nothing needs a nonce.
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Headers on every console answer. `no-cache`: the browser may keep a copy but asks (If-None-Match) before using it. */
const COMMON: ReadonlyArray<[string, string]> = [
  ['Content-Security-Policy', CONSOLE_CSP],
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Frame-Options', 'DENY'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Cache-Control', 'no-cache'],
];

/** Whether a request path (the raw target, before any /ns/ prefix is read) is the console's. */
export function isConsolePath(path: string): boolean {
  return path === CONSOLE_PREFIX || path.startsWith(`${CONSOLE_PREFIX}/`);
}

function errorAnswer(e: HermeticError): HttpResponse {
  return { status: e.status, headers: [...COMMON, ['Content-Type', 'application/json; charset=utf-8']], body: JSON.stringify(e.toJSON()) };
}

/** Which console route and file a path names: the table's rows (admin/routes.ts) matched in order. */
function route(path: string): { name: (typeof CONSOLE_ROUTES)[number]['name']; asset: string | null } | null {
  for (const r of CONSOLE_ROUTES) {
    const full = ADMIN_PREFIX + r.path;
    if (!full.includes('{')) {
      if (path === full) return { name: r.name, asset: null };
      continue;
    }
    const head = full.slice(0, full.indexOf('{'));
    const rest = path.slice(head.length);
    if (path.startsWith(head) && rest !== '' && !rest.includes('/')) return { name: r.name, asset: rest };
  }
  return null;
}

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * The answer to a console request: a file (200, or 304 when the browser's copy is current), the redirect from
 * /__admin/ui to /__admin/ui/, or a 404/405 as HERMETIC_ADMIN_NOT_FOUND.
 * @example await handleConsole({ method: 'GET', path: '/__admin/ui/', … }) // 200 text/html, the page
 */
export function handleConsole(req: HttpRequest): HttpResponse {
  const hit = route(req.path);
  if (hit && req.method !== 'GET') {
    return errorAnswer(new HermeticError('HERMETIC_ADMIN_NOT_FOUND', `${req.method} is not allowed on ${req.path}; the console's pages are read with GET.`));
  }
  if (hit?.name === 'consoleRedirect') {
    return { status: 308, headers: [...COMMON, ['Location', `${CONSOLE_PREFIX}/`]], body: null };
  }
  const assets = consoleAssets();
  const name = hit === null ? null : hit.asset === null ? 'index.html' : decode(hit.asset);
  const asset = name === null ? undefined : assets.get(name);
  if (!asset) {
    if (assets.size === 0) {
      return errorAnswer(new HermeticError('HERMETIC_ADMIN_NOT_FOUND', "The console's files are not installed beside this build (emulator/console/assets/ was not copied): build with `npm run build`, which copies them."));
    }
    const shown = req.path.length > 120 ? `${req.path.slice(0, 120)}…` : req.path;
    return errorAnswer(new HermeticError('HERMETIC_ADMIN_NOT_FOUND', `The console has no file at ${shown}; open ${CONSOLE_PREFIX}/ (its files: ${[...assets.keys()].sort().join(', ')}).`));
  }
  const headers: Array<[string, string]> = [...COMMON, ['ETag', asset.etag]];
  const given = req.header('if-none-match');
  if (given !== undefined && given.split(',').some((tag) => tag.trim().replace(/^W\//, '') === asset.etag)) {
    return { status: 304, headers, body: null };
  }
  headers.push(['Content-Type', asset.type]);
  return { status: 200, headers, body: asset.body };
}
