// Deterministic trace and span ids (decision 0039): the same session read on the same machine from the same store
// always gives the same ids, so a replayed batch carries the spans a receiver already has.
import { createHash } from 'node:crypto';

const hex = (parts: readonly (string | number)[], bytes: number): string => {
  const h = createHash('sha256');
  for (const p of parts) h.update(`${String(p).length}:${p}|`);
  const out = h.digest('hex').slice(0, bytes * 2);
  // An all-zero id is invalid in OTLP; a SHA-256 prefix of zeros is vanishingly rare, but never send one.
  return /^0+$/.test(out) ? `${out.slice(0, -1)}1` : out;
};

export interface SessionKey {
  machineId: string;
  store: string;
  sessionId: string;
}

/** 16 bytes (32 hex digits) from the machine, the store path and the session id. */
export function traceIdOf(k: SessionKey): string {
  return hex(['hermetic-trace', k.machineId, k.store, k.sessionId], 16);
}

/**
 * 8 bytes (16 hex digits) for one span of a session's trace: `session`, `turn:<logical id>`, `chat:<logical id>`,
 * `tool:<logical id>#<index of the call in its message>` (logical ids stay the same across compaction).
 * @example spanIdOf(key, 'chat:42')
 */
export function spanIdOf(k: SessionKey, what: string): string {
  return hex(['hermetic-span', k.machineId, k.store, k.sessionId, what], 8);
}
