// A command line's tokens, read as a shell reads them (decisions 0149, 0154): words with their quoting removed, control
// and redirection operators, comments and line continuations dropped, here-documents' bodies kept aside for the
// command they feed. Lazy, so a name can be found without reading a 5 MB line to its end; pure.
//
// Linear time: every character is looked at a bounded number of times. A word's scanners (`closing`, the quotes) move
// forward only and stop at the end of the text when nothing closes; a here-document's body is scanned once, from where
// the previous one ended; the operator table is a constant. Nothing here backtracks or restarts from an earlier place.

/** A control or redirection operator; `<<` and `<<-` carry the here-document they open. */
export interface Op {
  readonly op: string;
  readonly heredoc?: HereDoc;
}

/** A word without its quotes: `quoted` when a quote or escape was in it, `plain` how many first characters were not. */
export interface Word {
  readonly word: string;
  readonly quoted: boolean;
  readonly plain: number;
}

export type Token = Op | Word;

/** A here-document: its delimiter (the next word), and its body once the end of the line that opened it is read. */
export interface HereDoc {
  delimiter: string | null;
  readonly tabs: boolean;
  body?: string;
}

/** Every operator (operatorAt finds the longest at a place). */
const OPERATORS = ['&&', '||', ';;&', ';;', ';&', '|&', '&>>', '&>', '<<<', '<<-', '<<', '<&', '<>', '>>', '>&', '>|', ';', '&', '|', '(', ')', '<', '>'];
/** Operators that take the next word as their target (a file, a descriptor, a here-document's delimiter, a string). */
export const REDIRECTIONS: ReadonlySet<string> = new Set(['&>>', '&>', '<<<', '<<-', '<<', '<&', '<>', '>>', '>&', '>|', '<', '>']);

/** Character classes of ASCII: what ends a word, what starts an operator, what a word reads specially. */
const BLANK = 1;
const OPERATOR = 2;
const SPECIAL = 4;
const NEWLINE = 8;
const CLASS = new Uint8Array(128);
for (const c of ' \t\r\f\v') CLASS[c.charCodeAt(0)] = BLANK;
for (const c of ';&|<>()') CLASS[c.charCodeAt(0)] = OPERATOR;
for (const c of '\\\'"$`') CLASS[c.charCodeAt(0)] = SPECIAL;
CLASS[10] = NEWLINE;
/** What ends a word: a blank, a new line, an operator's character. */
const ENDS = BLANK | OPERATOR | NEWLINE;
const classOf = (s: string, i: number): number => {
  const k = s.charCodeAt(i);
  return k < 128 ? CLASS[k]! : 0;
};

/** One token object for each operator that carries nothing else. */
const OP_TOKENS: ReadonlyMap<string, Op> = new Map([...OPERATORS, '\n'].map((op) => [op, Object.freeze({ op })]));

/**
 * The tokens of `s`, read as far as asked (`next()`, null at the end). `$(…)`, `${…}`, backquotes and process
 * substitutions (`<(…)`) stay inside their word as written; `((…))` at a word's start is one word (an arithmetic
 * command); `$'…'` is decoded.
 */
export class Lexer {
  readonly #s: string;
  #i = 0;
  /** Here-documents opened on the current line, their bodies read at its end. */
  readonly #open: HereDoc[] = [];
  /** Characters read so far to tell an arithmetic `((` from two subshells. */
  #looked = 0;

  constructor(s: string) {
    this.#s = s;
  }

  next(): Token | null {
    const s = this.#s;
    const n = s.length;
    let i = this.#i;
    while (i < n) {
      const c = s[i]!;
      const k = classOf(s, i);
      if (k === BLANK) { i++; continue; }
      if (c === '\\' && s[i + 1] === '\n') { i += 2; continue; }
      if (k === NEWLINE) {
        this.#i = readBodies(s, i + 1, this.#open);
        return OP_TOKENS.get('\n')!;
      }
      if (c === '#') {
        const eol = s.indexOf('\n', i);
        i = eol < 0 ? n : eol;
        continue;
      }
      if (c === '(' && s[i + 1] === '(') {
        // An arithmetic command, `((…))`, one word to its brackets, when the second bracket's match is followed at once
        // by a `)` (bash's rule); else two subshells, as bash reads `((cd x) && make)`. Nested `((` that are not
        // arithmetic would each look to their match: past a budget of a few times the text, `((` is taken as
        // arithmetic without looking, so the reading stays linear.
        const inner = this.#looked <= 4 * n ? closing(s, i + 1) : -1;
        if (inner >= 0) this.#looked += inner - i;
        if (inner < 0 || inner >= n || s[inner] === ')') {
          const end = inner < 0 ? closing(s, i) : Math.min(inner + 1, n);
          this.#i = end;
          return { word: s.slice(i, end), quoted: false, plain: end - i };
        }
      }
      // An operator; a redirection may name its descriptor first: 2>, 2>&1.
      const digits = c >= '0' && c <= '9' ? /^\d+(?=[<>])/.exec(s.slice(i, i + 12))?.[0].length ?? 0 : 0;
      const substitution = (c === '<' || c === '>') && s[i + 1] === '(';
      const op = (k === OPERATOR || digits > 0) && !substitution ? operatorAt(s, i + digits) : undefined;
      if (op !== undefined && (digits === 0 || REDIRECTIONS.has(op))) {
        this.#i = i + digits + op.length;
        if (op !== '<<' && op !== '<<-') return OP_TOKENS.get(op)!;
        const heredoc: HereDoc = { delimiter: null, tabs: op === '<<-' };
        this.#open.push(heredoc);
        return { op, heredoc };
      }
      const w = readWord(s, i);
      this.#i = w.end;
      const last = this.#open.at(-1);
      if (last !== undefined && last.delimiter === null) last.delimiter = w.word;
      return { word: w.word, quoted: w.quoted, plain: w.plain };
    }
    // A body still open at the end of the text runs to it (bash warns, and reads it so).
    this.#i = readBodies(s, n, this.#open);
    return null;
  }
}

/** The longest operator at `i`, if one starts there (OPERATORS, read a character at a time). */
function operatorAt(s: string, i: number): string | undefined {
  const d = s[i + 1];
  const e = s[i + 2];
  switch (s[i]) {
    case '&': return d === '&' ? '&&' : d === '>' ? (e === '>' ? '&>>' : '&>') : '&';
    case '|': return d === '|' ? '||' : d === '&' ? '|&' : '|';
    case ';': return d === ';' ? (e === '&' ? ';;&' : ';;') : d === '&' ? ';&' : ';';
    case '<': return d === '<' ? (e === '<' ? '<<<' : e === '-' ? '<<-' : '<<') : d === '&' ? '<&' : d === '>' ? '<>' : '<';
    case '>': return d === '>' ? '>>' : d === '&' ? '>&' : d === '|' ? '>|' : '>';
    case '(': return '(';
    case ')': return ')';
    default: return undefined;
  }
}

/** One word from `i`: its text with quotes removed, whether it had any, and the index after it. */
function readWord(s: string, i: number): { word: string; quoted: boolean; plain: number; end: number } {
  const n = s.length;
  let word = '';
  /** How many of the word's first characters were unquoted; -1 while all are. */
  let plain = -1;
  if ((s[i] === '<' || s[i] === '>') && s[i + 1] === '(') {
    const end = closing(s, i + 1);
    word = s.slice(i, end);
    i = end;
  }
  while (i < n) {
    // A run of plain characters at once.
    let j = i;
    let k = 0;
    while (j < n && (k = classOf(s, j)) === 0) j++;
    if (j > i) word += s.slice(i, j);
    i = j;
    if (i >= n || (k & ENDS) !== 0) break;
    const ch = s[i]!;
    const next = s[i + 1];
    if (ch === '$' && next !== "'" && next !== '"') {
      if (next === '(' || next === '{') {
        const end = closing(s, i + 1);
        word += s.slice(i, end);
        i = end;
      } else {
        word += ch;
        i++;
      }
      continue;
    }
    if (ch === '`') {
      const end = backquoted(s, i);
      word += s.slice(i, end);
      i = end;
      continue;
    }
    if (plain < 0) plain = word.length;
    if (ch === '\\') {
      if (next !== '\n') word += next ?? '';
      i += 2;
    } else if (ch === "'") {
      const end = s.indexOf("'", i + 1);
      word += s.slice(i + 1, end < 0 ? n : end);
      i = end < 0 ? n : end + 1;
    } else if (ch === '$' && next === "'") {
      const ansi = ansiC(s, i + 2);
      word += ansi.text;
      i = ansi.end;
    } else {
      // "…", or $"…" (a translatable string: a double-quoted one here).
      i += ch === '$' ? 2 : 1;
      while (i < n && s[i] !== '"') {
        const d = s[i]!;
        if (d === '\\' && i + 1 < n && '"\\$`\n'.includes(s[i + 1]!)) {
          if (s[i + 1] !== '\n') word += s[i + 1];
          i += 2;
        } else if (d === '$' && (s[i + 1] === '(' || s[i + 1] === '{')) {
          const end = closing(s, i + 1);
          word += s.slice(i, end);
          i = end;
        } else if (d === '`') {
          const end = backquoted(s, i);
          word += s.slice(i, end);
          i = end;
        } else word += s[i++];
      }
      i++;
    }
  }
  return { word, quoted: plain >= 0, plain: plain < 0 ? word.length : plain, end: Math.min(i, n) };
}

/** The index after the backquote that closes the one at `open` (escapes skipped); the end if none. */
function backquoted(s: string, open: number): number {
  let j = open + 1;
  while (j < s.length && s[j] !== '`') j += s[j] === '\\' ? 2 : 1;
  return Math.min(j + 1, s.length);
}

const ANSI: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/** The text of `$'…'` from just inside its quote (bash's escapes: `\n`, `\xHH`, `\NNN`, `\uHHHH`, …); the end. */
function ansiC(s: string, from: number): { text: string; end: number } {
  let text = '';
  let i = from;
  while (i < s.length && s[i] !== "'") {
    if (s[i] !== '\\' || i + 1 >= s.length) { text += s[i++]; continue; }
    const e = s[i + 1]!;
    const hex = e === 'x' ? /^[0-9a-fA-F]{1,2}/ : e === 'u' ? /^[0-9a-fA-F]{1,4}/ : e === 'U' ? /^[0-9a-fA-F]{1,8}/ : null;
    const digits = hex?.exec(s.slice(i + 2, i + 10))?.[0] ?? (/[0-7]/.test(e) ? /^[0-7]{1,3}/.exec(s.slice(i + 1, i + 4))![0] : null);
    if (digits !== null) {
      const code = parseInt(digits, hex ? 16 : 8);
      text += code <= 0x10ffff ? String.fromCodePoint(code) : '';
      i += (hex ? 2 : 1) + digits.length;
    } else {
      text += ANSI[e] ?? `\\${e}`;
      i += 2;
    }
  }
  return { text, end: Math.min(i + 1, s.length) };
}

/**
 * Past the bodies of the here-documents a line opened (`from` is the start of the line after it): each body's lines up
 * to the one that is its delimiter, or the end of the text, kept on its record; the list left empty.
 */
function readBodies(s: string, from: number, open: HereDoc[]): number {
  let i = from;
  for (const heredoc of open) {
    if (heredoc.delimiter === null) continue;
    const start = i;
    let end = s.length;
    while (i < s.length) {
      const eol = s.indexOf('\n', i);
      // The delimiter's line, its tabs dropped for `<<-`, a carriage return left by CRLF text too.
      const line = s.slice(i, eol < 0 ? s.length : eol).replace(/\r$/, '');
      if ((heredoc.tabs ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) {
        end = i;
        i = eol < 0 ? s.length : eol + 1;
        break;
      }
      i = eol < 0 ? s.length : eol + 1;
    }
    heredoc.body = s.slice(start, Math.min(end, i));
  }
  open.length = 0;
  return i;
}

/** The index just past the bracket closing the one at `open` (`(` or `{`), quotes inside skipped; the end if none. */
function closing(s: string, open: number): number {
  const [up, down] = s[open] === '(' ? ['(', ')'] : ['{', '}'];
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\') i++;
    else if (c === "'" || c === '"') {
      const end = s.indexOf(c, i + 1);
      if (end < 0) return s.length;
      i = end;
    } else if (c === up) depth++;
    else if (c === down && --depth === 0) return i + 1;
  }
  return s.length;
}

/**
 * The tokens of a text, one at a time, with a look ahead. Tokens read ahead wait in a queue; `toLineEnd` reads ahead to
 * the end of the current line (whose here-documents then have their bodies) and remembers it has, so asking again
 * costs nothing: no token is read ahead twice.
 */
export class Reader {
  readonly #lexer: Lexer;
  #ahead: Token[] = [];
  #head = 0;
  /** How many `\n` operators wait in the queue. */
  #newlines = 0;
  #done = false;

  constructor(text: string) {
    this.#lexer = new Lexer(text);
  }

  next(): Token | null {
    if (this.#head < this.#ahead.length) {
      const t = this.#ahead[this.#head++]!;
      if (this.#head === this.#ahead.length) {
        this.#ahead = [];
        this.#head = 0;
      }
      if ('op' in t && t.op === '\n') this.#newlines--;
      return t;
    }
    return this.#pull();
  }

  peek(): Token | null {
    if (this.#head < this.#ahead.length) return this.#ahead[this.#head]!;
    const t = this.#pull();
    if (t !== null) this.#queue(t);
    return t;
  }

  /** The next token when it is a word (taken), else null (left). */
  word(): Word | null {
    const t = this.peek();
    if (t === null || 'op' in t) return null;
    this.next();
    return t;
  }

  /** Reads ahead past the end of the current line, or to the end of the text. */
  toLineEnd(): void {
    while (this.#newlines === 0 && !this.#done) {
      const t = this.#pull();
      if (t !== null) this.#queue(t);
    }
  }

  #queue(t: Token): void {
    this.#ahead.push(t);
    if ('op' in t && t.op === '\n') this.#newlines++;
  }

  #pull(): Token | null {
    if (this.#done) return null;
    const t = this.#lexer.next();
    if (t === null) this.#done = true;
    return t;
  }
}
