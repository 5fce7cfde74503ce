// A request's query string as aiohttp's request.query reads it: yarl's parse_qsl with keep_blank_values — pairs
// split on '&', '+' as a space, %XX decoded as UTF-8 (bad bytes become U+FFFD), a name without '=' has the value ''.
// `.get(name)` is the first value of that name. Settles spec sessions-api §12 question 4 (decision 0026).

/** urllib.parse.unquote(s, errors='replace') after '+' → ' '. */
function unquotePlus(s: string): string {
  const text = s.replace(/\+/g, ' ');
  if (!text.includes('%')) return text;
  // Runs of %XX escapes are decoded together (a multi-byte character spans several); a malformed escape stays as it is.
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    const bytes = new Uint8Array(run.length / 3);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
    // ignoreBOM: a U+FEFF the escapes spell is a character of the value, as unquote keeps it (not a byte-order mark).
    return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
  });
}

/** request.query.get: the first value of each name. */
export function parseQuery(raw: string): (name: string) => string | undefined {
  const first = new Map<string, string>();
  if (raw !== '') {
    for (const part of raw.split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const name = unquotePlus(eq < 0 ? part : part.slice(0, eq));
      const value = eq < 0 ? '' : unquotePlus(part.slice(eq + 1));
      if (!first.has(name)) first.set(name, value);
    }
  }
  return (name) => first.get(name);
}
