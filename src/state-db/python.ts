// Python-compatible text for values Hermes writes: json.dumps defaults (", " / ": ", ensure_ascii) and repr() of
// str/float/None, which Hermes hashes into messages.display_identity.
import { createHash } from 'node:crypto';

export type PyJson = null | boolean | number | string | PyJson[] | { [key: string]: PyJson | undefined };

const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');

function jsonString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${hex(c.charCodeAt(0), 4)}`);
}

/** Python's float repr: shortest round-trip digits, scientific below 1e-4 or from 1e16. */
export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mant, expStr] = x.toExponential().split('e') as [string, string];
  const exp = Number(expStr);
  if (exp < -4 || exp >= 16) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  let out: string;
  if (exp >= 0) {
    const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    const frac = digits.slice(exp + 1);
    out = `${int}.${frac || '0'}`;
  } else {
    out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  }
  return neg ? `-${out}` : out;
}

/** json.dumps(value) with Python's default separators and ensure_ascii=True. Integers print as ints. */
export function pyJson(value: PyJson): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pyFloat(value);
  if (typeof value === 'string') return jsonString(value);
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value)) if (v !== undefined) parts.push(`${jsonString(k)}: ${pyJson(v)}`);
  return `{${parts.join(', ')}}`;
}

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python's repr() of a str (quote choice and escapes as CPython does). */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f || ch === ' ' || !NON_PRINTABLE.test(ch)) out += ch;
    else if (cp < 0x100) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + quote;
}

function reprItem(v: string | number | null): string {
  if (v === null) return 'None';
  return typeof v === 'number' ? pyFloat(v) : pyStrRepr(v);
}

/**
 * messages.display_identity: SHA-256 of repr((role, content, timestamp, tool_call_id, tool_calls, tool_name)),
 * verified against the rows of the real v30 fixtures (decision 0011).
 */
export function displayIdentity(row: {
  role: string; content: string | null; timestamp: number;
  tool_call_id: string | null; tool_calls: string | null; tool_name: string | null;
}): Buffer {
  const items = [row.role, row.content, row.timestamp, row.tool_call_id, row.tool_calls, row.tool_name];
  return createHash('sha256').update(`(${items.map(reprItem).join(', ')})`, 'utf8').digest();
}
