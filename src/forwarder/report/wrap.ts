// Text as a terminal shows it: values made harmless (no control character reaches the terminal), their width in
// columns (wide CJK takes two, combining marks none), cut and padded by that width, and words wrapped in lines that
// fit. One place, so `hermetic query` and `hermetic report` show a value the same way; --json, --csv and --markdown
// take only the characters that could steer a terminal (shared/terminal-text.ts, which the CLI's error lines use too).

const ANSI_CODE = /\x1b\[[0-9;]*m/g;

/** East Asian Wide and Fullwidth code points (Unicode 15), as [first, last] pairs; emoji are found by property. */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f], [0x231a, 0x231b], [0x2329, 0x232a], [0x23e9, 0x23ec], [0x23f0, 0x23f0], [0x23f3, 0x23f3],
  [0x2e80, 0x303e], [0x3041, 0x3247], [0x3250, 0x4dbf], [0x4e00, 0xa4c6], [0xa960, 0xa97c], [0xac00, 0xd7a3],
  [0xf900, 0xfaff], [0xfe10, 0xfe19], [0xfe30, 0xfe6b], [0xff01, 0xff60], [0xffe0, 0xffe6], [0x16fe0, 0x16fe4],
  [0x17000, 0x18cd5], [0x18d00, 0x18d08], [0x1aff0, 0x1b2fb], [0x1f200, 0x1f251], [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff], [0x20000, 0x3fffd],
];
const EMOJI = /\p{Emoji_Presentation}/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const ZERO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}\u1160-\u11ff]/u;
/**
 * Format characters a terminal draws in a column all the same: the soft hyphen, and the Arabic and Kaithi number signs
 * (Prepended_Concatenation_Mark), as wcwidth counts them. Counted as none, a title of them ran past the width.
 */
const VISIBLE_FORMAT = /[\u00ad\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u{110bd}\u{110cd}]/u;

/** The columns one code point takes: 0 for combining marks, format characters (zero-width space, joiners) and controls. */
function codePointWidth(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (ZERO_WIDTH.test(ch) && !VISIBLE_FORMAT.test(ch))) return 0;
  if (cp < 0x1100) return 1;
  if (EMOJI.test(ch)) return 2;
  let lo = 0;
  let hi = WIDE.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [first, last] = WIDE[mid]!;
    if (cp < first) hi = mid - 1;
    else if (cp > last) lo = mid + 1;
    else return 2;
  }
  return 1;
}

/**
 * Text whose every code unit is a character of its own (no surrogate, combining mark, joiner, variation selector or
 * other format character) one column wide: printable ASCII, Latin-1 and the Latin extensions, spacing modifiers,
 * general punctuation (dashes, quotes, `…`, `‰`), arrows, mathematical operators (`≥`, `×` is Latin-1), box drawing,
 * blocks and geometric shapes short of the two drawn as emoji (U+25FD, U+25FE). A report's own lines are all such
 * text: its width is its length, with no segmenter made (ICU's costs ~20 ms to create, on every command).
 */
const ONE_COLUMN_EACH = /^[\x20-\x7e\u00a0-\u00ac\u00ae-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u22ff\u2500-\u25fc]*$/;
/** Made on first use: ICU's segmenter costs ~15 ms to create, which a command printing only such text never pays. */
let segmenter: Intl.Segmenter | null = null;
const graphemes = (): Intl.Segmenter => (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' }));

/** Code units segmented at once: Node 20's segmenter takes time quadratic in the length of the text it is given. */
const WINDOW = 128;

/**
 * The user-perceived characters of `text`, in order, as one segmentation of the whole gives them, in time linear in its
 * length: segmented a window at a time, each window's last grapheme read again at the start of the next (it may go on
 * past the window's end; every earlier boundary needs only the code point after it, which the window holds). A grapheme
 * longer than a window (a letter under thousands of combining marks) widens the window until it fits.
 */
function* graphemesOf(text: string): Generator<string> {
  let start = 0;
  let size = WINDOW;
  while (start < text.length) {
    if (start + size >= text.length) {
      for (const { segment } of graphemes().segment(start === 0 ? text : text.slice(start))) yield segment;
      return;
    }
    // A window ends after a whole code point: the boundary before its last one depends on what that one is.
    const end = start + size + (/[\ud800-\udbff]/.test(text[start + size - 1]!) ? 1 : 0);
    const segments = [...graphemes().segment(text.slice(start, end))];
    if (segments.length < 2) {
      size *= 2;
      continue;
    }
    for (let i = 0; i < segments.length - 1; i++) yield segments[i]!.segment;
    start += segments.at(-1)!.index;
    size = WINDOW;
  }
}

/** The columns one user-perceived character takes: its widest code point (an emoji asked for with U+FE0F is two). */
function graphemeWidth(g: string): number {
  if (g.length === 1) return codePointWidth(g);
  if (g.includes('\ufe0f') && PICTOGRAPH.test(g)) return 2;
  let w = 0;
  for (const ch of g) w = Math.max(w, codePointWidth(ch));
  return w;
}

/**
 * The columns `text` takes on a terminal (give it text without colour codes).
 * @example displayWidth('日本語 ok') // 9
 */
export function displayWidth(text: string): number {
  return widthUpTo(text, Infinity);
}

/**
 * displayWidth, counted no further than past `limit` (the result is then more than `limit`, not the width): a table
 * that cannot show more than its width need not read a long message to its end.
 * @example widthUpTo('日本語'.repeat(1e5), 80) // 82
 */
export function widthUpTo(text: string, limit: number): number {
  if (ONE_COLUMN_EACH.test(text)) return text.length;
  let w = 0;
  for (const segment of graphemesOf(text)) {
    w += graphemeWidth(segment);
    if (w > limit) break;
  }
  return w;
}

/** Characters that divide a path or an id into parts (`/home/me/app`, `openrouter/anthropic/claude`, `bedrock:claude`). */
const SEPARATOR = /[/\\:]/g;

/**
 * `text` in at most `width` columns, for a path or an id whose last parts tell it apart (a project's folder, a model's
 * name after its provider): as many whole parts from the end as fit after `…` (`…/acme/backend-service`,
 * `…/claude-sonnet-4.6`, `…claude-sonnet-4.6` a column narrower); when not even the last part fits, that part cut at
 * its end as fitText cuts (`gemini-2.5-flash-…`); a value with no separator is cut at its end.
 * @example fitParts('/home/alice/code/acme/backend-service', 20) // '…/backend-service'
 */
export function fitParts(text: string, width: number): string {
  if (widthUpTo(text, width) <= width) return text;
  // Only the end can show, a few code units a column: the start of a long value is not read (every part tried is then
  // at most this long, so a value of a million parts costs what one of a few hundred does).
  const bound = 4 * Math.max(0, width) + 64;
  const end = text.length > bound ? text.slice(text.length - bound) : text;
  // Where each part begins, ignoring separators at the very end (`/srv/app/`).
  const body = end.replace(/[/\\:]+$/, '');
  const starts = [...body.matchAll(SEPARATOR)].map((m) => m.index!).filter((i) => i > 0);
  if (starts.length === 0) return fitText(text, width);
  for (const i of starts) if (widthUpTo(end.slice(i), width - 1) <= width - 1) return `…${end.slice(i)}`;
  const last = body.slice(starts.at(-1)! + 1);
  return widthUpTo(last, width - 1) <= width - 1 ? `…${last}` : fitText(last, width);
}

/**
 * `text` in at most `width` columns: whole when it fits, else the characters that fit before a closing `…` (never
 * half a character, a surrogate pair or a character without its combining marks); `trim` drops spaces before the `…`.
 * @example fitText('日本語テキスト', 6) // '日本…'
 */
export function fitText(text: string, width: number, trim = false): string {
  if (ONE_COLUMN_EACH.test(text)) {
    if (text.length <= width) return text;
    if (width <= 0) return '';
    const kept = text.slice(0, width - 1);
    return `${trim ? kept.trimEnd() : kept}…`;
  }
  if (widthUpTo(text, width) <= width) return text;
  if (width <= 0) return '';
  let kept = '';
  let used = 0;
  for (const segment of graphemesOf(text)) {
    const w = graphemeWidth(segment);
    if (used + w > width - 1) break;
    kept += segment;
    used += w;
  }
  return `${trim ? kept.trimEnd() : kept}…`;
}

/**
 * `text` padded with spaces to `width` columns, on the right (`left`, the default) or on the left (`right`).
 * @example padText('日本', 6, 'right') // '  日本'
 */
export function padText(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const pad = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'right' ? pad + text : text + pad;
}

/**
 * Words in lines of at most `room` columns (colour codes take none), the lines after the first at most `nextRoom`
 * (room left beside an indent); a word longer than that is a line of its own.
 * @example wrapWords('a bb ccc', 4) // ['a bb', 'ccc']
 */
export function wrapWords(text: string, room: number, nextRoom = room): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (line !== '' && displayWidth(candidate.replace(ANSI_CODE, '')) > (lines.length === 0 ? room : nextRoom)) {
      lines.push(line);
      line = word;
    } else line = candidate;
  }
  return [...lines, line];
}

/** The width a table fits in when nothing else is known (piped output). */
export const DEFAULT_WIDTH = 80;

/** $COLUMNS when it is set, else the terminal's width, else (piped) 80. */
export function terminalWidth(env: NodeJS.ProcessEnv = process.env, stdout: { isTTY?: boolean; columns?: number } = process.stdout): number {
  const columns = Number(env.COLUMNS);
  if (Number.isInteger(columns) && columns > 0) return columns;
  if (stdout.isTTY === true && stdout.columns !== undefined && stdout.columns > 0) return stdout.columns;
  return DEFAULT_WIDTH;
}
