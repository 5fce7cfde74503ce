// The program a terminal command line runs, as `hermetic report --by command` names it (decision 0149): the first word
// of the line that is a program, read with the shell's quoting, after what only prepares the run — `VAR=value`
// assignments, wrappers that run the rest of the line (`sudo`, `env`, `time`, `nohup`, …) with their options, and
// setup steps chained before it (`cd DIR &&`, `source venv/bin/activate;`, `set -e;`) — named by its last path part.
// Pure: no I/O. The writer stores each terminal call's program on its part (`parts.program`, decision 0152); a
// change to any rule here changes stored names, so it comes with PROGRAM_RULES + 1, and every store names again.

/**
 * The version of the naming rules in this file (decision 0152). Bump it with any change that names a line otherwise:
 * a dataset opened by this Hermetic names its terminal calls again when its `dataset_meta.program_rules` differs, and
 * the fleet store names again the rows of each machine whose `progress.program_rules` is older.
 */
export const PROGRAM_RULES = 1;

/** The tool whose calls run command lines: Hermes's terminal tool, which takes the line in its `command` argument. */
export const TERMINAL_TOOL = 'terminal';

/** A call whose arguments hold no command text: none, not a JSON object, or a `command` that is not a string. */
export const NO_COMMAND = '(no command)';
/** A command with no program in it: blank, a comment, only assignments or operators. */
export const EMPTY_COMMAND = '(empty)';
/** A failed result whose call is not in the dataset (no call part of its session carries its id). */
export const NO_CALL = '(no call)';

/**
 * Words that run the rest of the line as a command: the letters of their short options that take a value, and the
 * long options that do (`--user root`; `--user=root` and `-uroot` are one word either way); `timeout` also takes its
 * duration before the command.
 */
const WRAPPERS: Readonly<Record<string, { short: string; long: readonly string[]; operands?: number }>> = {
  sudo: { short: 'CDgprRtTuU', long: ['chdir', 'chroot', 'close-from', 'command-timeout', 'group', 'host', 'other-user', 'prompt', 'role', 'type', 'user'] },
  doas: { short: 'Cu', long: [] },
  env: { short: 'CSu', long: ['chdir', 'split-string', 'unset'] },
  time: { short: 'fo', long: ['format', 'output'] },
  nohup: { short: '', long: [] },
  nice: { short: 'n', long: ['adjustment'] },
  timeout: { short: 'ks', long: ['kill-after', 'signal'], operands: 1 },
  exec: { short: 'a', long: [] },
};

/** Steps that prepare the shell for the command after them: skipped when `&&`, `;` or a new line follows them. */
const SETUP: ReadonlySet<string> = new Set(['cd', 'pushd', 'source', '.', 'export', 'set', 'unset']);

/** Operators after which a new command starts; any other operator ends the one it follows. */
const SEPARATORS: ReadonlySet<string> = new Set(['&&', ';', '\n']);

type Token = { op: string } | { word: string; quoted: boolean; plain: number };

const OPERATORS = ['&&', '||', ';;', '|&', '&>>', '&>', '<<<', '<<-', '<<', '<&', '<>', '>>', '>&', '>|', ';', '&', '|', '(', ')', '<', '>'];
/** Operators that take the next word as their target (a file, a descriptor, a here-document's delimiter). */
const REDIRECTIONS: ReadonlySet<string> = new Set(['&>>', '&>', '<<<', '<<-', '<<', '<&', '<>', '>>', '>&', '>|', '<', '>']);
const BLANK = /[ \t\r\f\v]/;
const WORD_END = /[ \t\r\f\v\n;&|<>()]/;

/**
 * The line's tokens, read as far as asked: words with their quoting removed (`quoted` when any quote or escape was in
 * one, `plain` how many of its first characters were unquoted), and operators; comments, line continuations and the
 * bodies of here-documents left out. `$(…)`, `${…}` and backquotes stay inside their word as written.
 */
function* tokens(s: string): Generator<Token> {
  let i = 0;
  const n = s.length;
  /** Here-documents opened on the current line (`<<` or `<<-` and the delimiter word after it), their bodies next. */
  const heredocs: { delimiter: string | null; tabs: boolean }[] = [];
  while (i < n) {
    const c = s[i]!;
    if (BLANK.test(c)) { i++; continue; }
    if (c === '\\' && s[i + 1] === '\n') { i += 2; continue; }
    if (c === '\n') {
      i = skipBodies(s, i + 1, heredocs);
      yield { op: '\n' };
      continue;
    }
    if (c === '#') {
      while (i < n && s[i] !== '\n') i++;
      continue;
    }
    // A redirection may name its descriptor first: 2>, 2>&1.
    const digits = /^\d+(?=[<>])/.exec(s.slice(i, i + 12))?.[0].length ?? 0;
    const op = OPERATORS.find((o) => s.startsWith(o, i + digits));
    if (op && (digits === 0 || REDIRECTIONS.has(op))) {
      i += digits + op.length;
      if (op === '<<' || op === '<<-') heredocs.push({ delimiter: null, tabs: op === '<<-' });
      yield { op };
      continue;
    }
    let word = '';
    let quoted = false;
    let plain = -1;
    const quote = () => {
      if (!quoted) plain = word.length;
      quoted = true;
    };
    while (i < n && !WORD_END.test(s[i]!)) {
      const ch = s[i]!;
      if (ch === '\\') {
        quote();
        if (s[i + 1] !== '\n') word += s[i + 1] ?? '';
        i += 2;
      } else if (ch === "'") {
        quote();
        const end = s.indexOf("'", i + 1);
        word += s.slice(i + 1, end < 0 ? n : end);
        i = end < 0 ? n : end + 1;
      } else if (ch === '"') {
        quote();
        i++;
        while (i < n && s[i] !== '"') {
          if (s[i] === '\\' && i + 1 < n && '"\\$`\n'.includes(s[i + 1]!)) {
            if (s[i + 1] !== '\n') word += s[i + 1];
            i += 2;
          } else word += s[i++];
        }
        i++;
      } else if (ch === '$' && (s[i + 1] === '(' || s[i + 1] === '{')) {
        const end = closing(s, i + 1);
        word += s.slice(i, end);
        i = end;
      } else if (ch === '`') {
        let j = i + 1;
        while (j < n && s[j] !== '`') j += s[j] === '\\' ? 2 : 1;
        word += s.slice(i, Math.min(j + 1, n));
        i = j + 1;
      } else word += s[i++];
    }
    const open = heredocs.at(-1);
    if (open !== undefined && open.delimiter === null) open.delimiter = word;
    yield { word, quoted, plain: plain < 0 ? word.length : plain };
  }
}

/**
 * Past the bodies of the here-documents a line opened (`from` is the start of the line after it): each body's lines up
 * to the one that is its delimiter (leading tabs dropped for `<<-`), or the end of the text; the list left empty.
 */
function skipBodies(s: string, from: number, heredocs: { delimiter: string | null; tabs: boolean }[]): number {
  let i = from;
  for (const { delimiter, tabs } of heredocs) {
    if (delimiter === null) continue;
    while (i < s.length) {
      const eol = s.indexOf('\n', i);
      const line = s.slice(i, eol < 0 ? s.length : eol);
      i = eol < 0 ? s.length : eol + 1;
      if ((tabs ? line.replace(/^\t+/, '') : line) === delimiter) break;
    }
  }
  heredocs.length = 0;
  return i;
}

/** The index just past the bracket that closes the one at `open` (`(` or `{`), quotes inside skipped; the end if none. */
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

/** `NAME=value` (or `NAME+=value`) with the name unquoted: the shell sets a variable, it runs nothing. */
const isAssignment = (t: { word: string; plain: number }): boolean => {
  const m = /^[A-Za-z_][A-Za-z0-9_]*\+?=/.exec(t.word);
  return m !== null && m[0].length <= t.plain;
};

/** A path's last part: `/usr/bin/git` and `git` are one program; `./scripts/build.sh` is `build.sh`. */
function lastPart(word: string): string {
  const trimmed = word.replace(/\/+$/, '');
  const at = trimmed.lastIndexOf('/');
  return at < 0 ? trimmed : trimmed.slice(at + 1) || word;
}

/** The tokens of a line, one at a time, with room to give one back. */
class Reader {
  readonly #it: Iterator<Token>;
  readonly #back: Token[] = [];
  constructor(it: Iterator<Token>) {
    this.#it = it;
  }

  next(): Token | null {
    if (this.#back.length > 0) return this.#back.pop()!;
    const t = this.#it.next();
    return t.done ? null : t.value;
  }

  unread(t: Token): void {
    this.#back.push(t);
  }
}

/**
 * The program a command line runs first (decision 0149), or `EMPTY_COMMAND` when it runs none. A pipeline or a chain
 * is named by its first program (`cat log | grep x` is `cat`, `make && make test` is `make`); what a shell keyword
 * (`for`, `if`, `while`) or `bash -c` runs is not looked into: the keyword or the shell is the program.
 * @example commandProgram('cd web && FOO=1 sudo -u app /usr/bin/npm test') // 'npm'
 */
export function commandProgram(line: string): string {
  const r = new Reader(tokens(line));
  /** A wrapper or setup step already read: the program when nothing follows it. */
  let pending: string | null = null;
  for (let tok = r.next(); tok !== null; tok = r.next()) {
    if ('op' in tok) {
      if (REDIRECTIONS.has(tok.op)) r.next();
      else if (pending !== null && !SEPARATORS.has(tok.op) && tok.op !== '(') return pending;
      continue;
    }
    if (!tok.quoted && (tok.word === '{' || tok.word === '!')) continue;
    if (isAssignment(tok)) continue;
    const name = lastPart(tok.word);
    if (name === '') return EMPTY_COMMAND;
    if (SETUP.has(name)) {
      // Its arguments, up to the operator after them: a separator goes on to the next command, anything else ends here.
      let next = r.next();
      while (next !== null && !('op' in next && !REDIRECTIONS.has(next.op))) next = r.next();
      // `cd x || exit 1; make`: what runs when the step fails is skipped too (a group in braces or brackets whole).
      if (next !== null && 'op' in next && next.op === '||') next = pastFallback(r);
      if (next === null || !('op' in next) || !SEPARATORS.has(next.op)) return name;
      pending = name;
      continue;
    }
    const wrapper = WRAPPERS[name];
    if (wrapper === undefined) return name;
    // The token after its options starts the command it runs (an assignment, another wrapper, the program).
    pending = name;
    const after = skipOptions(r, wrapper);
    if (after !== null) r.unread(after);
  }
  return pending ?? EMPTY_COMMAND;
}

/**
 * After a setup step's `||`: the tokens of what runs when it fails, up to the separator after them (outside any
 * `{ … }` or `( … )` they open), which is returned; null at the end of the line.
 */
function pastFallback(r: Reader): Token | null {
  let depth = 0;
  for (let tok = r.next(); tok !== null; tok = r.next()) {
    if ('op' in tok) {
      if (tok.op === '(') depth++;
      else if (tok.op === ')') depth = Math.max(0, depth - 1);
      else if (REDIRECTIONS.has(tok.op)) r.next();
      else if (depth === 0 && SEPARATORS.has(tok.op)) return tok;
    } else if (!tok.quoted && tok.word === '{') depth++;
    else if (!tok.quoted && tok.word === '}') depth = Math.max(0, depth - 1);
  }
  return null;
}

/**
 * After a wrapper: its options skipped (and their values, and `timeout`'s duration); the first token past them, or null
 * at the end of the line.
 */
function skipOptions(r: Reader, w: { short: string; long: readonly string[]; operands?: number }): Token | null {
  let operands = w.operands ?? 0;
  let options = true;
  for (let tok = r.next(); tok !== null; tok = r.next()) {
    if ('op' in tok) return tok;
    const word = tok.word;
    if (options && !tok.quoted && word === '--') {
      options = false;
      continue;
    }
    if (options && !tok.quoted && word.startsWith('--')) {
      if (!word.includes('=') && w.long.includes(word.slice(2))) r.next();
      continue;
    }
    if (options && !tok.quoted && word.length > 1 && word.startsWith('-')) {
      // A cluster of letters: the first that takes a value takes the rest of the word, or the next word.
      for (let k = 1; k < word.length; k++) {
        if (w.short.includes(word[k]!)) {
          if (k === word.length - 1) r.next();
          break;
        }
      }
      continue;
    }
    if (operands > 0) {
      operands--;
      options = false;
      continue;
    }
    return tok;
  }
  return null;
}

/**
 * The program of a terminal call from its `command` argument (null when the call has no command text): the argument's
 * program, `EMPTY_COMMAND` when it runs none, `NO_COMMAND` without one. What SQLite's report function answers.
 * @example programOfCommand('ls -la') // 'ls'
 */
export function programOfCommand(command: unknown): string {
  return typeof command === 'string' ? commandProgram(command) : NO_COMMAND;
}

/**
 * The program of a terminal call from its arguments as the dataset stores them (`parts.tool_args`, JSON text): the
 * `command` of a JSON object when it is text, `NO_COMMAND` for anything else (none, text that is not JSON, a list, a
 * number). What the writer stores in `parts.program`, and what naming again reads (decision 0152).
 * @example programOfArgs('{"command":"cd web && npm test"}') // 'npm'
 */
export function programOfArgs(args: unknown): string {
  if (typeof args !== 'string') return NO_COMMAND;
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    return NO_COMMAND;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? programOfCommand((value as { command?: unknown }).command) : NO_COMMAND;
}
