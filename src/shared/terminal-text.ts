// A text made harmless on a terminal: no control character, line separator or bidirectional override in it can move
// the cursor, colour the terminal or reorder the line. Shared by every line the CLI prints from data or input (its
// error lines, report and query tables: forwarder/report/wrap.ts) and by the JSON it prints (terminalSafeJson).

/** C0 controls, DEL and C1 controls (U+0080–U+009F). */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;
/**
 * The explicit bidirectional formatting characters (embeddings, overrides, isolates and their ends: "Trojan Source",
 * CVE-2021-42574). On a terminal that reorders text, one in a title turns the rest of its line, figures and all,
 * around. The marks (LRM, RLM, ALM) only lean neutral characters one way and stay as written.
 */
export const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;
/** Unicode's line and paragraph separators: line breaks to some terminals and most editors. */
const SEPARATORS = /[\u2028\u2029]/g;

/**
 * A control character as it is shown: its control picture for C0 (ESC is ␛) and DEL (␡), `\xNN` for a C1 control,
 * `\uNNNN` for a bidirectional formatting character (neither has a picture).
 */
export function controlPicture(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  if (code <= 0x9f) return `\\x${code.toString(16)}`;
  return `\\u${code.toString(16)}`;
}

/**
 * A value as a terminal table shows it: a line break is ⏎ (U+2028 and U+2029 too), a tab one space, any other C0
 * control or DEL its control picture (ESC is ␛, DEL ␡), a C1 control (which has no picture) `\xNN`, a bidirectional
 * override or isolate `\u202e`. Nothing in it can move the cursor, colour the terminal or reorder the line, and each
 * character is one line's worth.
 * @example terminalText('\x1b[31mRED\x1b[0m\tok\n') // '␛[31mRED␛[0m ok⏎'
 */
export function terminalText(value: string): string {
  return value.replace(/\r?\n/g, '⏎').replace(SEPARATORS, '⏎').replace(CONTROL, (c) => (c === '\t' ? ' ' : controlPicture(c)))
    .replace(BIDI_CONTROLS, controlPicture);
}

/** What JSON may hold raw that a terminal acts on: DEL, C1 controls, the separators and the bidi controls (C0 JSON escapes itself). */
const JSON_UNSAFE = /[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text safe to print on a terminal and the same JSON value: the characters JSON.stringify leaves raw that a
 * terminal acts on (C1 controls such as CSI U+009B, the line separators, bidi overrides) written as `\uNNNN` escapes.
 * They can only stand inside strings, so the text parses to exactly what it did.
 * @example terminalSafeJson(JSON.stringify({ t: '\u202egpj.exe' })) // '{"t":"\\u202egpj.exe"}'
 */
export function terminalSafeJson(json: string): string {
  return json.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
