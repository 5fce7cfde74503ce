// A session's `attributes`: Hermes's session fields the dataset has no column for (normalize/extras.ts), by name. Free
// texts go through the redactor when the dataset redacts; `model_config` never carries a credential or a whole URL
// (spec forwarding §6.1 item 12: a base URL may hold a key): keys that name a secret are masked, URLs kept as their
// host, as `billing_host` is. Decision 0050.
import { parsed, SESSION_EXTRA_COLUMNS, type Row } from '../normalize/index.js';
import { hostOf } from './provider.js';

/** Extras that hold JSON text: kept parsed when they parse, as the text otherwise. */
const JSON_EXTRAS: ReadonlySet<string> = new Set(['model_config', 'tool_names']);

/** Texts kept as they are: Hermes's own vocabularies and names, no free text. */
const PLAIN: ReadonlySet<string> = new Set(['created_source', 'chat_type', 'title_source', 'profile_name', 'transport_profile', 'pricing_version', 'handoff_state', 'handoff_platform', 'tool_names']);

/** A key whose value is a credential. */
const SECRET_KEY = /(^|[_-])(api[_-]?key|key|token|secret|password|passwd|auth|authorization|credentials?|cookie)$/i;

/** A string that is a URL (scheme://…). */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

export interface AttributeText {
  /** A free text through the redactor when the dataset redacts (else itself). */
  text: (t: string | null) => string | null;
  /** A JSON value with its strings through the redactor when the dataset redacts (else itself). */
  value: (v: unknown) => unknown;
}

/**
 * The session's extras as one JSON text (columns NULL or 0 left out), or null when it has none. The row's BLOBs were
 * decoded before (projector/notes.ts), so every value is text or a number.
 */
export function sessionAttributes(row: Row, redact: AttributeText): string | null {
  let out: Record<string, unknown> | null = null;
  for (const c of SESSION_EXTRA_COLUMNS) {
    const v = row[c];
    // Unset: NULL, and 0 for the flags and counters (Hermes's default for each of them).
    if (v === null || v === undefined || v === 0) continue;
    // A REAL column can hold an infinity, which JSON has no number for: kept as its name.
    let kept: unknown = typeof v === 'number' && !Number.isFinite(v) ? String(v) : v;
    if (typeof v === 'string') {
      const value = JSON_EXTRAS.has(c) ? parsed(v) : v;
      kept = c === 'model_config' ? redact.value(withoutCredentials(value)) : PLAIN.has(c) ? value : redact.text(v);
    }
    (out ??= {})[c] = kept;
  }
  return out === null ? null : JSON.stringify(out);
}

/** A configuration value with every credential masked and every URL reduced to its host. */
export function withoutCredentials(value: unknown): unknown {
  if (typeof value === 'string') return URL_LIKE.test(value) ? (hostOf(value) ?? '***') : value;
  if (Array.isArray(value)) return value.map(withoutCredentials);
  if (value !== null && typeof value === 'object') {
    // No prototype: a key named __proto__ stays a key.
    const out = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = SECRET_KEY.test(k) && v !== null && v !== '' ? '***' : withoutCredentials(v);
    return out;
  }
  return value;
}
