// `hermetic web`'s HTTP server (node:http): the page, its assets and the JSON endpoints of routes.ts, read-only over
// a UsageSource. Every answer carries a strict Content-Security-Policy (self only); errors are JSON with a HERMETIC_*
// code and a sentence, never a stack (heads node's parser refuses too). Loopback by default; a request naming a host it
// does not answer as is refused (DNS rebinding, hosts.ts), and so is one another site's page makes (fetch metadata),
// before anything is read.
import { randomBytes } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { HermeticError, isHermeticError } from '../../shared/errors.js';
import { damagedFile, isLockedOut } from '../../shared/sqlite-errors.js';
import { writableRoom } from '../../shared/writable-room.js';
import { assetTable, pageWithPreloads, readAsset } from './assets.js';
import type { UsageSource } from './data/source.js';
import { FileAnswer, HANDLERS, TextAnswer } from './handlers.js';
import { checkParams } from './request.js';
import { API_ROUTES, PAGE_PATHS } from './routes.js';
import { allowedHosts, hostCheck } from './hosts.js';

export const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const HEADERS = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** How often an open page asks whether the data changed, by default (decision 0119). */
export const DEFAULT_REFRESH_MS = 5000;

export interface WebServerOptions {
  source: UsageSource;
  host?: string;
  port?: number;
  /** Epoch milliseconds (injected by tests: every period ends "now"). */
  now?: () => number;
  /** Days, midnights and times in UTC instead of the ledger's zone (`hermetic web --utc`, as `report --utc`). */
  utc?: boolean;
  /**
   * More names the dashboard answers as (`hermetic web --allowed-host`): `dash.example`, `.example.com` for it and its
   * subdomains, `*` for any name (no Host check). Loopback names always, and bound to the network any IP address and
   * this machine's name (decision 0087).
   */
  allowedHosts?: readonly string[];
  /**
   * How often an open page asks whether the data changed and redraws itself when it did (`hermetic web --refresh`), in
   * milliseconds from 100 to an hour; null: the page does not follow the data. Default 5,000 (decision 0119).
   */
  refreshMs?: number | null;
  /** Called with each unexpected failure (a bug); the browser gets only its code and sentence. */
  onError?: (e: unknown) => void;
}

export interface WebServer {
  url: string;
  /** The names it answers as, as a phrase ("localhost, any IP address or this machine's name (box)"; "any name"). */
  answersAs: string;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, cache = 'no-store', etag?: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': cache, ...(etag ? { etag } : {}), ...extra });
  res.end(body);
}

function sendError(res: ServerResponse, e: HermeticError): void {
  send(res, e.status, 'application/json; charset=utf-8', JSON.stringify({ error: { code: e.code, message: e.message } }));
}

/**
 * A text answer, written as it is read: one chunk in memory at a time, the next read once the client took the last
 * (node stops taking when the socket's buffer is full). Its length was announced; a read that fails or a text that
 * changed meanwhile breaks the connection off, so the client sees a short answer, never a wrong one.
 */
async function sendText(req: IncomingMessage, res: ServerResponse, answer: TextAnswer): Promise<void> {
  res.writeHead(200, { ...HEADERS, 'content-type': 'text/plain; charset=utf-8', 'content-length': answer.bytes, 'cache-control': 'no-store' });
  if (req.method === 'HEAD') return void res.end();
  let sent = 0;
  try {
    for await (const chunk of answer.chunks()) {
      if (res.destroyed) return;
      sent += Buffer.byteLength(chunk);
      if (sent > answer.bytes) throw new Error('longer than announced');
      if (!res.write(chunk) && !(await writableRoom(res))) return;
    }
    if (sent !== answer.bytes) throw new Error('shorter than announced');
    res.end();
  } catch {
    res.destroy();
  }
}

/**
 * Fetch metadata, which every current browser sends: a request another site's page makes (an image, a fetch, a script;
 * Sec-Fetch-Site cross-site or same-site, as another port on this host is) is refused before anything is read. CORP and
 * the missing CORS headers already hide the answer, but the query would still run: any page the user opens could keep
 * the machine busy with whole-history reports, or time filters to learn which models and projects the dataset holds.
 * Following a link to one of the dashboard's pages is answered, and so is a request without the header (curl, scripts).
 */
function crossSite(req: IncomingMessage, path: string): void {
  const site = req.headers['sec-fetch-site'];
  if (site === undefined || site === 'same-origin' || site === 'none') return;
  if (req.headers['sec-fetch-mode'] === 'navigate' && req.headers['sec-fetch-dest'] === 'document' && (PAGE_PATHS as readonly string[]).includes(path)) return;
  throw new HermeticError('HERMETIC_WEB_CROSS_SITE', `This dashboard answers its own page, not a request another site's page makes (Sec-Fetch-Site: ${site}); open the dashboard itself.`);
}

/** A dataset another process held locked past the wait: this request's failure (503, try again), not a bug. */
function lockedDataset(e: unknown): HermeticError | null {
  if (!isLockedOut(e)) return null;
  return new HermeticError('HERMETIC_WEB_BUSY', `Another process held the dataset locked past the wait (SQLite: ${(e as Error).message}); nothing was read: try again.`);
}

/**
 * A head node's parser refuses (past its 16 KiB, or not HTTP) never reaches a handler; it is answered as every other
 * refusal is (JSON with its code, the security headers) instead of node's bare status line, and the connection closed.
 * Anything else (a head that never finished in time, a connection already answered on) is closed as node closes it.
 */
function refuseHead(error: NodeJS.ErrnoException, socket: Duplex & { bytesWritten?: number }): void {
  const code = error.code ?? '';
  if (socket.writable && socket.bytesWritten === 0 && code.startsWith('HPE_')) {
    const e = code === 'HPE_HEADER_OVERFLOW'
      ? new HermeticError('HERMETIC_WEB_TOO_LARGE', 'The request\'s head (its target and headers) is larger than the dashboard reads (16 KiB).')
      : new HermeticError('HERMETIC_WEB_INVALID', 'The request could not be read as HTTP/1.1.');
    const body = JSON.stringify({ error: { code: e.code, message: e.message } });
    const headers = { ...HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)), 'cache-control': 'no-store', connection: 'close' };
    socket.end(`HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`);
    return;
  }
  // A head that took longer than node waits (slowloris): node's own 408, to a client that is rarely still reading.
  if (socket.writable && socket.bytesWritten === 0 && code === 'ERR_HTTP_REQUEST_TIMEOUT') socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
  else socket.destroy();
}

/**
 * The request's target as a URL: origin-form (`/path?query`) is a path on this server, so `//evil/x` is the path
 * `//evil/x`, not the host evil; absolute-form (`http://host/path`, what a proxy is sent) names its host. A target
 * that is no URL is the client's mistake (400), not a bug.
 */
function requestTarget(target: string): { url: URL; absolute: boolean } {
  const absolute = /^[a-z][a-z0-9+.-]*:/i.test(target);
  try {
    return { url: new URL(absolute ? target : `http://dashboard.invalid${target.startsWith('/') ? '' : '/'}${target}`), absolute };
  } catch {
    throw new HermeticError('HERMETIC_WEB_INVALID', 'The request\'s target is not a URL the dashboard can read.');
  }
}

/**
 * Starts the dashboard's server and resolves once it listens.
 * @example const web = await startWebServer({ source: sqliteSource(db), port: 0 }); console.log(web.url);
 */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? Date.now;
  const assets = assetTable();
  const index = pageWithPreloads(assets);
  const routes = new Map<string, (typeof API_ROUTES)[number]>(API_ROUTES.map((r) => [r.path, r]));
  const refreshMs = options.refreshMs === undefined ? DEFAULT_REFRESH_MS : options.refreshMs;
  // Only told apart from another server's, never read for meaning: random, not the injected clock (tests fix it).
  const instance = randomBytes(6).toString('hex');
  if (refreshMs !== null && !(Number.isInteger(refreshMs) && refreshMs >= 100 && refreshMs <= 3_600_000)) {
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', 'Option "refreshMs" must be a whole number of milliseconds from 100 to 3,600,000, or null.');
  }
  if (options.allowedHosts !== undefined && !Array.isArray(options.allowedHosts)) throw new HermeticError('HERMETIC_OPTIONS_INVALID', 'Option "allowedHosts" must be a list of host names.');
  const hosts = hostCheck(host, allowedHosts(options.allowedHosts ?? [], (rest) => {
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "allowedHosts" ${rest}`);
  }));

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const { url, absolute } = requestTarget(req.url ?? '/');
      if (!hosts.any) {
        // The name the request was sent to: its Host, and an absolute-form target's own authority, which a proxy may
        // have been given instead (both must be names it answers as; DNS rebinding sends another name).
        const names = [(req.headers.host ?? '').replace(/:\d+$/, '')];
        if (absolute) names.push(url.hostname);
        const other = names.find((n) => !hosts.answers(n));
        if (other !== undefined) throw new HermeticError('HERMETIC_WEB_NOT_FOUND', `This dashboard answers only as ${hosts.described}, not as "${other}"; to answer as another name, start it with --allowed-host NAME.`);
      }
      crossSite(req, url.pathname);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('allow', 'GET, HEAD');
        throw new HermeticError('HERMETIC_WEB_METHOD', `The dashboard only reads: ${req.method} ${url.pathname} is not something it answers.`);
      }
      const route = routes.get(url.pathname);
      if (route) {
        checkParams(url.searchParams, route.params);
        const body = await HANDLERS[route.name](url.searchParams, { source: options.source, now: () => now() / 1000, utc: options.utc === true, refreshMs, instance });
        if (body instanceof TextAnswer) return await sendText(req, res, body);
        // A file's name is ours (letters, digits, dashes): quoted as it is.
        if (body instanceof FileAnswer) return send(res, 200, body.type, body.body, 'no-store', undefined, { 'content-disposition': `attachment; filename="${body.name}"` });
        return send(res, 200, 'application/json; charset=utf-8', JSON.stringify(body));
      }
      if ((PAGE_PATHS as readonly string[]).includes(url.pathname)) return send(res, 200, 'text/html; charset=utf-8', index);
      const asset = assets.get(url.pathname);
      if (asset) {
        // Revalidated on every load (no-cache) and answered 304 when unchanged: the browser keeps its copy, and the
        // compiled code of it (Chart.js is 210 KB).
        const { body, etag } = readAsset(asset);
        if (req.headers['if-none-match'] === etag) {
          res.writeHead(304, { ...HEADERS, 'cache-control': 'no-cache', etag });
          return res.end();
        }
        return send(res, 200, asset.type, body, 'no-cache', etag);
      }
      throw new HermeticError('HERMETIC_WEB_NOT_FOUND', url.pathname.startsWith('/api/')
        ? `There is no endpoint ${url.pathname}; the endpoints are ${API_ROUTES.map((r) => r.path).join(', ')}.`
        : `There is no page or file at ${url.pathname}.`);
    } catch (caught) {
      // A damaged dataset, or one another process holds locked, is the file's state, not a bug of the dashboard.
      const e = damagedFile(caught, 'dataset') ?? lockedDataset(caught) ?? caught;
      if (isHermeticError(e) && e.code !== 'HERMETIC_INTERNAL') return sendError(res, e);
      options.onError?.(e);
      return sendError(res, new HermeticError('HERMETIC_INTERNAL', 'The dashboard failed to answer this request (a bug: the server\'s console has the details).'));
    }
  };

  // A head without Host reaches the handler (node would answer a bare 400): the Host check refuses it in JSON (and
  // with --allowed-host '*', which turns the check off, it is answered as any other).
  const server = createServer({ requireHostHeader: false }, (req, res) => void handle(req, res));
  server.on('clientError', refuseHead);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new HermeticError('HERMETIC_SERVE_LISTEN', e.code === 'EADDRINUSE'
      ? `Port ${options.port ?? 8650} on ${host} is already in use; choose another with --port.`
      : `The dashboard could not listen on ${host}:${options.port ?? 8650} (${e.code ?? e.message}).`)));
    server.listen(options.port ?? 8650, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/`,
    answersAs: hosts.described,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
