// Hermes's redact_sensitive_text(text, force=True) at v2026.8.31: every pass, in order, behind its gate.

import {
  hasConfigKeyword,
  maskConfigAssignments,
  maskLowerEnvAssignments,
  maskUpperEnvAssignments,
} from './assignments.js';
import { hasAuthorizationHeader, maskApiKeyHeaders, maskAuthorizationHeaders } from './headers.js';
import { maskJwts, maskPhoneNumbers, maskPrivateKeyBlocks, maskTelegramTokens, mayHavePrivateKey } from './shapes.js';
import { maskJsonFields, maskYamlValues } from './structured.js';
import { maskFormBody, maskUrlCredentials } from './urls.js';
import { hasVendorPrefix, maskControlSplitTokens, maskVendorTokens } from './vendor-prefixes.js';

export { maskToken } from './mask.js';

export interface RedactOptions {
  /** Hermes's `force`: redact even when the switch is off. Every runs-API call site forces. Default true. */
  force?: boolean;
  /** The HERMES_REDACT_SECRETS switch (`security.redact_secrets`), read by the caller. Default true. */
  enabled?: boolean;
}

/**
 * The passes of spec redaction §1.3. Each gate is checked on the text as the previous passes
 * left it, exactly like Hermes; the gates also keep plain text (most 404 messages) cheap.
 */
function redactPasses(input: string): string {
  let text = input;
  if (hasVendorPrefix(text)) {
    text = maskControlSplitTokens(text); // P1a
    text = maskVendorTokens(text); // P1
  }
  if (text.includes('=')) {
    text = maskUpperEnvAssignments(text); // P2
    if (!text.includes('://')) text = maskLowerEnvAssignments(text); // P3
    if (!text.includes('://') && hasConfigKeyword(text)) text = maskConfigAssignments(text); // P4
  }
  if (text.includes(':') && text.includes('"')) text = maskJsonFields(text); // P5
  // P6 (Python mapping repr) is not at the pin; see structured.ts.
  if (text.includes(':') && !text.includes('://')) text = maskYamlValues(text); // P7
  if (hasAuthorizationHeader(text)) text = maskAuthorizationHeaders(text); // P8
  if (text.includes(':')) {
    text = maskApiKeyHeaders(text); // P9
    text = maskTelegramTokens(text); // P10
  }
  if (mayHavePrivateKey(text)) text = maskPrivateKeyBlocks(text); // P11
  if (text.includes('://')) text = maskUrlCredentials(text); // P12
  if (text.includes('eyJ')) text = maskJwts(text); // P13
  if (text.includes('&') && text.includes('=')) text = maskFormBody(text); // P14
  if (text.includes('+')) text = maskPhoneNumbers(text); // P15
  return text;
}

/**
 * `redact_sensitive_text(text, force=...)` as Hermes v2026.8.31 runs it on /v1/runs paths
 * (spec redaction §1): null → null, "" → "", otherwise the masked text. Non-string values must
 * be converted by the caller with Python `str()` semantics (`pyStr` in src/shared/python), never
 * JS String(): Hermes sees `True`, `None`, `{'a': 1}` where JS would print true, null, [object Object].
 * With `force: false` and `enabled: false` the text comes back untouched.
 */
export function redactSensitiveText(text: string | null, options: RedactOptions = {}): string | null {
  if (text === null) return null;
  if (typeof text !== 'string') {
    throw new TypeError('redactSensitiveText takes a string or null; convert other values with Python str() first');
  }
  if (text === '') return text;
  const force = options.force ?? true;
  const enabled = options.enabled ?? true;
  if (!force && !enabled) return text;
  return redactPasses(text);
}

/**
 * The HERMES_REDACT_SECRETS switch as Hermes reads it, once, at import: `os.getenv(name, "true").lower()` is one of
 * 1, true, yes, on. Unset is on; set to anything else (the empty string included) is off.
 * @example redactSwitch(undefined) // true
 * @example redactSwitch('False') // false
 */
export const redactSwitch = (value: string | undefined): boolean => ['1', 'true', 'yes', 'on'].includes((value ?? 'true').toLowerCase());

/**
 * `redact_sensitive_text(text)` unforced, as Hermes's agent and approval subsystem call it: `enabled` is the
 * HERMES_REDACT_SECRETS switch (the emulator's `redactSecrets` option). Off, the text comes back untouched.
 */
export const redactUnforced = (text: string, enabled: boolean): string => redactSensitiveText(text, { force: false, enabled })!;
