// Hermes's API-key check and ownership scope (spec runs-api §3.1–§3.2).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { GatewaySettings } from '../gateway.js';
import type { HttpRequest } from '../http.js';
import type { HermesError } from '../runs/hermes-errors.js';
import { hasLoneSurrogate, pyLen, pyStrip } from '../../shared/python/index.js';

export const DEFAULT_PROFILE = 'default';
const UNAUTHENTICATED = 'unauthenticated-test-listener';

/**
 * `has_usable_secret(key, min_length=16)`, what Hermes asks of a named profile's key: at least 16 characters stripped
 * (Python's `len`: code points), and not a placeholder (lowercased; of its placeholders only this one is that long).
 */
export const usableProfileKey = (key: string): boolean => {
  const cleaned = pyStrip(key);
  return pyLen(cleaned) >= 16 && cleaned.toLowerCase() !== 'your_api_key_here';
};

/**
 * The key a request must present: the listener's for unprefixed routes and /p/default/, else the profile's; a
 * profile's key Hermes cannot use is no key at all, and the profile fails closed.
 */
export function expectedKey(gateway: GatewaySettings, profile: string | null): string | null {
  if (profile === null || profile === DEFAULT_PROFILE) return gateway.apiKey;
  const key = gateway.profiles.get(profile)?.apiKey ?? null;
  return key !== null && usableProfileKey(key) ? key : null;
}

/**
 * 'raises': Hermes's `_check_auth` raised (UnicodeEncodeError from `token.encode()`: the token holds bytes that are
 * not UTF-8, read by aiohttp as lone surrogates), which aiohttp answers with its 500 page (decision 0070).
 */
export type AuthOutcome = 'ok' | 'denied' | 'room' | 'raises';

/**
 * Hermes's `_room_grant_token`: the header split at its first space, the scheme `HermesRoom` in any case, the rest
 * stripped; '' when there is none (no space, another scheme, or nothing after it), and the request is then checked
 * for the key as any other.
 */
export function roomGrantToken(header: string | undefined): string {
  if (header === undefined) return '';
  const space = header.indexOf(' ');
  return space >= 0 && header.slice(0, space).toLowerCase() === 'hermesroom' ? pyStrip(header.slice(space + 1)) : '';
}

/**
 * `_room_grant_error_response` for a grant that cannot be verified (or none): the emulator has no room authority, so
 * every grant is invalid (spec runs-api §15).
 */
export const roomGrantInvalid = (): HermesError => ({
  status: 401,
  message: 'Room authorization is invalid or expired.',
  type: 'gateway_auth_error',
  code: 'invalid_room_grant',
});

/**
 * Bearer check: the exact prefix `Bearer `, the rest stripped and compared in constant time. On routes that take room
 * grants (`grants`: Hermes's `_check_run_auth`), a room grant token is reported as 'room' so they answer with the
 * grant error; elsewhere (`_check_auth`, which knows no grants) it is only a header that is not a Bearer key, so a
 * listener with no key configured lets it through like any other.
 */
export function authenticate(req: HttpRequest, gateway: GatewaySettings, profile: string | null, grants: boolean): AuthOutcome {
  const header = req.header('authorization');
  if (grants && roomGrantToken(header) !== '') return 'room';
  const key = expectedKey(gateway, profile);
  if (key === null) {
    // Hermes's test-only listener: no key configured at all lets unprefixed requests through; a named profile
    // without its own key fails closed.
    return profile === null || profile === DEFAULT_PROFILE ? (gateway.apiKey === null ? 'ok' : 'denied') : 'denied';
  }
  if (header === undefined || !header.startsWith('Bearer ')) return 'denied';
  const token = pyStrip(header.slice(7));
  if (hasLoneSurrogate(token)) return 'raises';
  const presented = Buffer.from(token, 'utf8');
  const expected = keyBytes(key);
  return presented.length === expected.length && timingSafeEqual(presented, expected) ? 'ok' : 'denied';
}

let lastKey: string | null = null;
let lastKeyBytes = Buffer.alloc(0);
/** UTF-8 bytes of the expected key, kept for the key last asked (keys change only through the control plane). */
function keyBytes(key: string): Buffer {
  if (key !== lastKey) {
    lastKey = key;
    lastKeyBytes = Buffer.from(key, 'utf8');
  }
  return lastKeyBytes;
}

const scopeCache = new Map<string, string>();
let last = { profile: '', key: '', scope: '' };

/** sha256(profile + "\0" + expected key or the unauthenticated marker), lowercase hex. */
export function ownershipScope(gateway: GatewaySettings, profile: string | null): string {
  const name = profile ?? DEFAULT_PROFILE;
  const key = expectedKey(gateway, profile) ?? UNAUTHENTICATED;
  // Nearly every request asks for the same scope as the one before: answer it without building the input string.
  if (name === last.profile && key === last.key && last.scope !== '') return last.scope;
  const input = `${name}\0${key}`;
  let scope = scopeCache.get(input);
  if (scope === undefined) {
    scope = createHash('sha256').update(input, 'utf8').digest('hex');
    if (scopeCache.size > 1024) scopeCache.clear();
    scopeCache.set(input, scope);
  }
  last = { profile: name, key, scope };
  return scope;
}
