// The mask function M: what every head/tail-preserving pass puts in place of a secret.

/** Display controls M deletes before measuring (spec redaction §1.2). */
const DISPLAY_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064]/gu;

/** Below this many code points a value is masked to `***` instead of head/tail. */
const HEAD_TAIL_FLOOR = 18;
const HEAD = 6;
const TAIL = 4;

/**
 * M(token), spec redaction §1.2: empty → `***`; display controls removed (nothing left → empty
 * string); fewer than 18 code points → `***`; else the first 6 + `...` + the last 4 code points.
 * Lengths are Python code points, so an astral character counts once.
 */
export function maskToken(token: string): string {
  if (token === '') return '***';
  const visible = token.replace(DISPLAY_CONTROLS, '');
  if (visible === '') return '';
  const points = Array.from(visible);
  if (points.length < HEAD_TAIL_FLOOR) return '***';
  return `${points.slice(0, HEAD).join('')}...${points.slice(-TAIL).join('')}`;
}
