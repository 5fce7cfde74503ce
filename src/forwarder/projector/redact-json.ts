// Hermes's redactor over JSON values (tool arguments, tool calls) without breaking them: the whole JSON text is
// redacted first, which keeps the key-aware passes ("api_key": "…"); when the masked text no longer parses (a pass
// masked through a closing quote), each string inside is redacted on its own instead, and a string that is itself
// JSON (OpenAI's `function.arguments`) is walked the same way. The result is always the same JSON shape.

type Redact = (text: string | null) => string | null;

function walk(value: unknown, redact: Redact): unknown {
  if (typeof value === 'string') {
    const masked = redact(value) ?? value;
    if (masked === value) return value;
    if (/^\s*[[{]/.test(value)) {
      try {
        return JSON.stringify(redactValue(JSON.parse(value) as unknown, redact));
      } catch { /* not JSON after all: the masked string */ }
    }
    return masked;
  }
  if (Array.isArray(value)) return value.map((v) => walk(v, redact));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, walk(v, redact)]));
  }
  return value;
}

/** The value with every secret masked, still the same JSON shape. */
export function redactValue(value: unknown, redact: Redact): unknown {
  const text = JSON.stringify(value);
  if (text === undefined) return value;
  const masked = redact(text);
  if (masked === text) return value;
  try {
    return JSON.parse(masked ?? 'null') as unknown;
  } catch {
    return walk(value, redact);
  }
}
