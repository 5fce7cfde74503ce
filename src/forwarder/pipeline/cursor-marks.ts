// The two fingerprints a session's cursor can hold besides the store's own: a long session half-written (PARTIAL:
// read again), and a session the usage policy ignored (IGNORED: the scopes that ignored it, so a pass can tell when
// the policy no longer does and read it then, without reading it every pass until then).
/** The fingerprint a long session's cursor holds until its last chunk is written: the next pass reads it again. */
export const PARTIAL = 'partial:';

/** An ignored session's cursor: `ignored:<scopes as JSON>\n<the store's fingerprint>`. */
export const IGNORED = 'ignored:';

/**
 * The cursor fingerprint of a session the policy ignored, read with `fingerprint` (a half-read long session's PARTIAL
 * dropped: nothing more of it is written while it is ignored).
 */
export function ignoredFingerprint(scopes: readonly string[], fingerprint: string): string {
  const own = fingerprint.startsWith(PARTIAL) ? fingerprint.slice(PARTIAL.length) : fingerprint;
  return `${IGNORED}${JSON.stringify(scopes)}\n${own}`;
}

/**
 * The store fingerprint a cursor's stands for now: itself, or for an ignored session the store's fingerprint it was
 * read with while `ignored(scopes)` still says so, else null (the policy changed: read it again). Without a judge,
 * an ignored session stays as it was.
 */
export function standingFingerprint(fingerprint: string, ignored?: (scopes: string[]) => boolean): string | null {
  if (!fingerprint.startsWith(IGNORED)) return fingerprint;
  const cut = fingerprint.indexOf('\n');
  if (cut < 0) return null;
  if (ignored) {
    let scopes: unknown;
    try {
      scopes = JSON.parse(fingerprint.slice(IGNORED.length, cut));
    } catch {
      return null;
    }
    if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string') || !ignored(scopes)) return null;
  }
  return fingerprint.slice(cut + 1);
}
