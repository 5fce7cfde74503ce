// One namespace's gateway, the last step of its pipeline (front-door.ts → namespace → journal → faults → here): the
// control plane under /__admin/, the emulated Hermes surface for everything else, and the headers aiohttp puts on
// every answer (Content-Length, Date, Server).
import type { Clock } from '../shared/clock.js';
import { handleAdmin, type AdminDeps } from './admin/index.js';
import { handleApi, type ApiDeps } from './api/index.js';
import type { HttpRequest, HttpResponse } from './http.js';

export const SERVER_HEADER = 'Python/3.11 aiohttp/3.14.3';

export interface AppDeps {
  api: ApiDeps;
  admin: AdminDeps;
  clock: Clock;
}

let dateSecond = -1;
let dateText = '';
/** RFC 7231 date from the emulator's clock, formatted once per second. */
function httpDate(clock: Pick<Clock, 'now'>): string {
  const second = Math.floor(clock.now());
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(second * 1000).toUTCString();
  }
  return dateText;
}

/** One namespace's answer: the control plane under /__admin/, the emulated Hermes surface for everything else. */
export async function handle(req: HttpRequest, deps: AppDeps): Promise<HttpResponse> {
  const response = req.path === '/__admin' || req.path.startsWith('/__admin/') ? await handleAdmin(req, deps.admin) : await handleApi(req, deps.api);
  return finish(response, deps.clock);
}

/** The headers aiohttp puts on every answer (also on a fault rule's own answer). */
export function finish(response: HttpResponse, clock: Pick<Clock, 'now'>): HttpResponse {
  if (!response.stream) {
    const body = response.body;
    const length = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    response.headers.push(['Content-Length', String(length)]);
  }
  const type = response.defaultContentType;
  if (type && !response.headers.some(([k]) => k.toLowerCase() === 'content-type')) response.headers.push(['Content-Type', type]);
  response.headers.push(['Date', httpDate(clock)], ['Server', SERVER_HEADER]);
  // A closing answer's Connection header depends on the request's HTTP version (aiohttp's _prepare_headers: `close`
  // to HTTP/1.1 only): the transports write it (serve/node.ts, fetch.ts; decision 0070).
  return response;
}
