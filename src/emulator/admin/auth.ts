// The admin key (--admin-key, HERMETIC_ADMIN_KEY, the adminKey option): every /__admin route but GET /__admin/health
// needs it, in every namespace. Compared in constant time over SHA-256 digests, so neither the bytes nor the length of
// the expected key leak through timing (decision 0025).
import crypto from 'node:crypto';
import { HermeticError } from '../../shared/errors.js';
import type { HttpRequest } from '../http.js';
import { ADMIN_PREFIX, CONSOLE_PREFIX } from './routes.js';

/** The header a control request carries the admin key in (Authorization: Bearer is Hermes's API key elsewhere). */
export const ADMIN_KEY_HEADER = 'x-hermetic-admin-key';

/** The one control route open without the key: what a probe reads to know it reached Hermetic. */
export const OPEN_ADMIN_ROUTE = { method: 'GET', path: `${ADMIN_PREFIX}/health` } as const;

const digest = (text: string): Buffer => crypto.createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether `given` is `expected`, in time that depends on neither: both are hashed to 32 bytes first, and the digests
 * are compared with crypto.timingSafeEqual (called through the module object, so a test can watch it).
 * @example adminKeyMatches('k3y', 'k3y') // true
 */
export function adminKeyMatches(given: string, expected: string): boolean {
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

/** The key a request presents: x-hermetic-admin-key, else an Authorization: Bearer token; null when neither. */
function presented(req: HttpRequest): { key: string; where: string } | null {
  const header = req.header(ADMIN_KEY_HEADER);
  if (header !== undefined) return { key: header, where: `the ${ADMIN_KEY_HEADER} header` };
  const auth = req.header('authorization');
  const bearer = auth === undefined ? null : /^Bearer[ \t]+(.*)$/i.exec(auth.trim());
  if (bearer) return { key: bearer[1]!.trim(), where: 'the Authorization: Bearer header' };
  return null;
}

/** Whether the request presents the admin key (wherever it is asked for, open routes aside). */
export function presentsAdminKey(req: HttpRequest, expected: string): boolean {
  const given = presented(req);
  return given !== null && adminKeyMatches(given.key, expected);
}

/**
 * Throws 401 HERMETIC_ADMIN_UNAUTHORIZED unless the request may use the control plane: no key configured, the open
 * health route, or the right key. `path` is the request's path without its /ns/<name> prefix or query.
 */
export function checkAdminKey(req: HttpRequest, path: string, expected: string | null): void {
  if (expected === null) return;
  if (req.method === OPEN_ADMIN_ROUTE.method && path === OPEN_ADMIN_ROUTE.path) return;
  const given = presented(req);
  if (given === null) {
    throw new HermeticError(
      'HERMETIC_ADMIN_UNAUTHORIZED',
      `This server's control plane needs its admin key: send it as "${ADMIN_KEY_HEADER}: <key>" (or "Authorization: Bearer <key>"). Only GET ${OPEN_ADMIN_ROUTE.path} and the console's files (GET ${CONSOLE_PREFIX}/) are open.`,
    );
  }
  if (!adminKeyMatches(given.key, expected)) {
    throw new HermeticError('HERMETIC_ADMIN_UNAUTHORIZED', `The admin key in ${given.where} is not this server's admin key.`);
  }
}
