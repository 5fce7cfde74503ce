// Node's process warnings said as Hermetic says everything: one line each, once, led by "hermetic:", instead of Node's
// block (the PostgreSQL driver's nine-line note on sslmode=require came on every run of a sink with it). The driver's
// notice that it will stop reading ~/.pgpass in its next major version is for programs that use it, not for a person
// whose password file Hermetic reads: it is not said.

const said = new Set<string>();
let installed = false;

/** A warning in one line; the driver's sslmode note in words a person can act on; null: not said. */
export function warningText(w: Error): string | null {
  if (/^pgpass support is deprecated/.test(w.message)) return null;
  if (/^SECURITY WARNING: The SSL modes/.test(w.message)) {
    return "note: the PostgreSQL driver reads sslmode=require (and prefer, verify-ca) as verify-full, so the server's certificate must be valid; add uselibpqcompat=true to the URL for libpq's meaning of require.";
  }
  return `warning: ${w.message.split('\n')[0]!.trim()}${w.name && w.name !== 'Warning' ? ` (${w.name})` : ''}`;
}

/** Replaces Node's printing of process warnings with warningText, each once per process. */
export function oneLineWarnings(): void {
  if (installed) return;
  installed = true;
  process.removeAllListeners('warning');
  process.on('warning', (w) => {
    const text = warningText(w);
    if (text === null || said.has(text)) return;
    said.add(text);
    console.error(`hermetic: ${text}`);
  });
}
