// The program a terminal command line runs, as `hermetic report --by command` names it (decisions 0149, 0154): the
// first program the line runs, read with the shell's grammar — through wrappers and runners (`sudo`, `timeout 30`,
// `uv run`), into the command line a shell is given (`bash -lc "…"`), into the bodies of loops, conditionals and groups
// — past the steps that only prepare, test, wait or print (`cd DIR &&`, `[ -f x ] &&`, `sleep 2;`, `echo hi;`), which
// name the line only when nothing else runs. One name a line, so each call lands in one row. Pure: no I/O. The writer
// stores each terminal call's program on its part (`parts.program`, decision 0152): a change to any rule here (or in
// program-words.ts, shell-tokens.ts) changes stored names, so it comes with PROGRAM_RULES + 1, and stores name again.
//
// Linear time: the tokens are read once, front to back, and the reading stops at the name (shell-tokens.ts); a shell's
// command line is named again at most MAX_NESTING deep, each a part of the text around it, so a line of n characters
// costs at most (MAX_NESTING + 1) · n steps whatever its shape. Nothing recurses on the line's own nesting of brackets,
// loops or groups (a depth counter does), so deep nesting cannot overflow the stack.
import { isAssignment, resolve, type Named, type Nest, type Ran } from './program-words.js';
import { REDIRECTIONS, Reader } from './shell-tokens.js';

/**
 * The version of the naming rules (this file, program-words.ts and shell-tokens.ts; decision 0152). Bump it with any
 * change that names a line otherwise: a dataset opened by this Hermetic names its terminal calls again when its
 * `dataset_meta.program_rules` differs, and the fleet store names again the rows of each machine whose
 * `progress.program_rules` is older.
 */
export const PROGRAM_RULES = 2;

/** The tool whose calls run command lines: Hermes's terminal tool, which takes the line in its `command` argument. */
export const TERMINAL_TOOL = 'terminal';

/** A call whose arguments hold no command text: none, not a JSON object, or a `command` that is not a string. */
export const NO_COMMAND = '(no command)';
/** A command with no program in it: blank, a comment, only assignments or operators. */
export const EMPTY_COMMAND = '(empty)';
/** A failed result whose call is not in the dataset (no call part of its session carries its id). */
export const NO_CALL = '(no call)';

/** How many shells deep a command line is looked into (`bash -c "sh -c 'make'"` is two); deeper, the shell is named. */
const MAX_NESTING = 8;
/** The longest name given; a longer word (a whole `$(…)`, a quoted paragraph) is cut, ending in `…`. */
const MAX_NAME = 200;

/** Operators after which the next command runs in turn, so a step before them is passed. */
const SEPARATORS: ReadonlySet<string> = new Set(['&&', ';', '\n', ';;', ';&', ';;&']);
/** Operators that end a `case` branch: a pattern comes next. */
const CASE_ENDS: ReadonlySet<string> = new Set([';;', ';&', ';;&']);
/** Reserved words that open a compound command (closed by CLOSERS); their bodies are read as commands. */
const OPENERS: ReadonlySet<string> = new Set(['{', 'if', 'while', 'until', 'for', 'select', 'case']);
const CLOSERS: ReadonlySet<string> = new Set(['}', 'fi', 'done', 'esac']);
/** Reserved words read past: what follows them is a command. */
const PREFIXES: ReadonlySet<string> = new Set(['then', 'do', 'else', 'elif', '!', 'function']);

/** What the grammar finds, in order: each command's `Ran`, and each control operator with the nesting it is at. */
type Event = { readonly ran: Ran } | { readonly op: string; readonly depth: number };

/**
 * The program a command line runs first (decisions 0149, 0154), or `EMPTY_COMMAND` when it runs none.
 * @example commandProgram('cd web && FOO=1 sudo -u app /usr/bin/npm test') // 'npm'
 * @example commandProgram(`bash -lc 'for f in *.py; do pytest "$f"; done'`) // 'pytest'
 */
export function commandProgram(line: string): string {
  const named = nameLine(line, 0);
  return named === null ? EMPTY_COMMAND : shown(named.name);
}

/**
 * Lines named before, by their text: an agent runs the same `git status` and `npm test` again and again, and a backfill
 * names every call it writes. Short lines only, and a bounded count (cleared when full): at most ~2 MB.
 */
const NAMED = new Map<string, string>();
const NAMED_MAX = 4096;
const NAMED_LINE_MAX = 256;

/**
 * The program of a terminal call from its `command` argument (null when the call has no command text): the argument's
 * program, `EMPTY_COMMAND` when it runs none, `NO_COMMAND` without one. What SQLite's report function answers.
 * @example programOfCommand('ls -la') // 'ls'
 */
export function programOfCommand(command: unknown): string {
  if (typeof command !== 'string') return NO_COMMAND;
  if (command.length > NAMED_LINE_MAX) return commandProgram(command);
  let name = NAMED.get(command);
  if (name === undefined) {
    if (NAMED.size >= NAMED_MAX) NAMED.clear();
    NAMED.set(command, (name = commandProgram(command)));
  }
  return name;
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

/** A line's name at a shell nesting `level` (0: the call's own line); null when it runs nothing. */
function nameLine(text: string, level: number): Named | null {
  const nest: Nest = (script) => (level < MAX_NESTING ? nameLine(script, level + 1) : undefined);
  return choose(commands(new Reader(text), nest));
}

/**
 * A name as the report shows it: never one of the placeholders (a program written `"(empty)"` is `'(empty)'`), never
 * longer than MAX_NAME characters.
 */
function shown(name: string): string {
  const safe = name.startsWith('(') && name.endsWith(')') ? `'${name}'` : name;
  if (safe.length <= MAX_NAME) return safe;
  const cut = safe.slice(0, MAX_NAME - 1);
  // Not half of a surrogate pair.
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

/**
 * The choice: the first program. A step (`cd x`, `[ -f y ]`, `sleep 1`, a wrapper with nothing after it) is passed when
 * a separator follows it; before a pipe or `&` it is what the line runs. A step's fallback (`cd x || exit 1`,
 * `[ -d node_modules ] || npm ci`) is passed with it, up to the separator that ends it; its program, when it runs one
 * before any `exit`, names the line if nothing else runs. With only steps, the last one names the line.
 */
function choose(events: Iterator<Event>): Named | null {
  const next = (): Event | null => {
    const e = events.next();
    return e.done === true ? null : e.value;
  };
  let step: string | null = null;
  let fallback: string | null = null;
  let e = next();
  while (e !== null) {
    if ('op' in e) {
      e = next();
      continue;
    }
    const { name, kind } = e.ran;
    if (kind === 'program') return name === null ? null : { name, program: true };
    step = name;
    const after = next();
    if (after === null || 'ran' in after) e = after;
    else if (SEPARATORS.has(after.op)) e = next();
    else if (after.op === '||') {
      const f = pastFallback(next, after.depth);
      fallback ??= f.program;
      e = f.after;
    } else return { name: name!, program: true };
  }
  if (fallback !== null) return { name: fallback, program: true };
  return step === null ? null : { name: step, program: false };
}

/**
 * Past a step's fallback, whose `||` is at nesting `depth`: up to the separator that ends it at that nesting (a
 * `{ … }` or `( … )` it opens read whole). Its program: the first it runs, unless a step such as `exit` comes first.
 */
function pastFallback(next: () => Event | null, depth: number): { program: string | null; after: Event | null } {
  let program: string | null = null;
  let decided = false;
  for (let e = next(); e !== null; e = next()) {
    if ('op' in e) {
      if (SEPARATORS.has(e.op) && e.depth <= depth) return { program, after: next() };
    } else if (!decided && e.ran.kind !== 'step') {
      program = e.ran.kind === 'program' ? e.ran.name : null;
      decided = true;
    }
  }
  return { program, after: null };
}

/**
 * The grammar, as far as naming needs it: each simple command resolved (program-words.ts) and the rest of its words
 * passed; redirections with their targets, assignments, `(`, `{`, `!` and the reserved words of loops and
 * conditionals passed, their nesting counted; a loop's head (`for f in …;`), a `case`'s word and patterns, `[[ … ]]`
 * and `(( … ))` read whole. Lazy: the caller stops reading at the name.
 */
function* commands(r: Reader, nest: Nest): Generator<Event> {
  let depth = 0;
  /** What the wrapper just read says of the words after it (program-words.ts `Ran`). */
  let packages = false;
  let environment = false;
  for (let t = r.next(); t !== null; t = r.next()) {
    if ('op' in t) {
      if (REDIRECTIONS.has(t.op)) r.word();
      else if (t.op === '(') depth++;
      else if (t.op === ')') depth = Math.max(0, depth - 1);
      else {
        yield { op: t.op, depth };
        if (CASE_ENDS.has(t.op)) skipPattern(r);
      }
      continue;
    }
    if (!t.quoted) {
      const w = t.word;
      if (OPENERS.has(w)) {
        depth++;
        if (w === 'for' || w === 'select') skipLoopHead(r);
        else if (w === 'case') {
          r.word();
          if (peeksWord(r, 'in')) r.next();
          skipPattern(r);
        }
        continue;
      }
      if (CLOSERS.has(w)) {
        depth = Math.max(0, depth - 1);
        continue;
      }
      if (PREFIXES.has(w)) continue;
      if (w === '[[' || w.startsWith('((')) {
        // A test or arithmetic: a step. `[[ … ]]` holds `&&`, `||`, `<` and brackets of its own, read to its `]]`.
        if (w === '[[') for (let u = r.next(); u !== null && !('word' in u && !u.quoted && u.word === ']]'); u = r.next());
        yield { ran: { name: w === '[[' ? '[[' : '((', kind: 'step' } };
        skipArgs(r);
        continue;
      }
    }
    if (isAssignment(t, environment)) continue;
    const ran = resolve(r, t, nest, packages);
    packages = ran.packages === true;
    environment = ran.environment === true;
    yield { ran };
    if (ran.wraps !== true) skipArgs(r);
  }
}

/** Whether the next token is the unquoted word `word`. */
function peeksWord(r: Reader, word: string): boolean {
  const t = r.peek();
  return t !== null && 'word' in t && !t.quoted && t.word === word;
}

/** Past a command's remaining words and redirections, up to the operator after it (left unread). */
function skipArgs(r: Reader): void {
  for (let t = r.peek(); t !== null; t = r.peek()) {
    if ('op' in t && !REDIRECTIONS.has(t.op)) return;
    r.next();
    if ('op' in t) r.word();
  }
}

/** Past a `for` or `select` head: its name, `in` and the words, and the `;` or new line before `do`. */
function skipLoopHead(r: Reader): void {
  r.word();
  if (peeksWord(r, 'in')) while (r.word() !== null);
  const t = r.peek();
  if (t !== null && 'op' in t && (t.op === ';' || t.op === '\n')) r.next();
}

/** Past a `case` pattern (`a|b)`, `(x)`, `*)`), after `in` or a branch's `;;`, unless `esac` comes. */
function skipPattern(r: Reader): void {
  for (let t = r.peek(); t !== null && 'op' in t && (t.op === '\n' || t.op === ';'); t = r.peek()) r.next();
  if (peeksWord(r, 'esac')) return;
  for (let t = r.next(); t !== null && !('op' in t && t.op === ')'); t = r.next());
}
