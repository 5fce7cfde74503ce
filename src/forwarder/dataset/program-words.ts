// What a simple command's first words run (decisions 0149, 0154): its program, named by its last path part, after the
// wrappers and runners that run the rest of its words (`sudo -u app`, `timeout 30`, `uv run`, `npx -y`), into the
// command line a shell is given (`bash -lc '…'`, `su -c '…'`, a here-document fed to `sh`), `python -m MODULE`'s
// module; and whether it is a step that only prepares, tests, waits or prints (`cd`, `[`, `sleep`, `echo`).
// Pure; the words are read from a Reader, as far as the name needs and never back.
import { REDIRECTIONS, type HereDoc, type Reader, type Word } from './shell-tokens.js';

/**
 * What a command runs. `program`: its program. `step`: a command that prepares, tests, waits or prints — named only
 * when nothing else runs. `exit`: a step that ends the script (`exit`, `return`): what a fallback ends with.
 * `wraps`: the command's own words come next (a wrapper or runner was read; `packages` when they name a package:
 * `npx prettier@3` is `prettier`; `environment` when `NAME=value` sets a variable even quoted:
 * `env "PATH=$PATH" make`).
 */
export interface Ran {
  readonly name: string | null;
  readonly kind: 'program' | 'step' | 'exit';
  readonly wraps?: boolean;
  readonly packages?: boolean;
  readonly environment?: boolean;
}

/** A line's program as the naming gives it (null: none), for a shell's command string. */
export interface Named {
  readonly name: string;
  /** False when the line ran only steps (`cd x`, `[ -f y ]`): the name is a step's. */
  readonly program: boolean;
}

/** Names a command line a shell is given; undefined when the nesting is too deep to look into. */
export type Nest = (script: string) => Named | null | undefined;

/** How a wrapper's or runner's options read: what takes a value, what holds a command line, what comes first. */
interface Options {
  /** Short options that take a value (the rest of the word, or the next word). */
  readonly values?: string;
  /** Long options that take a value unless written `--name=value`. */
  readonly long?: readonly string[];
  /** An option whose value is a command line a shell runs (`npx -c 'eslint .'`, `su -c '…'`). */
  readonly script?: { readonly short: string; readonly long: string };
  /** Words before the command (`timeout`'s duration, `taskset`'s mask, `direnv exec`'s folder). */
  readonly operands?: number;
  /** The command is a package name, maybe with a version: `prettier@3`, `@biomejs/biome@1`. */
  readonly packages?: boolean;
  /** `NAME=value` words before the command set variables, quoted or not (`env`, `sudo` read them themselves). */
  readonly environment?: boolean;
}

const NPX: Options = { values: 'pw', long: ['package', 'workspace'], script: { short: 'c', long: 'call' }, packages: true };

/** Words that run the rest of the line as a command (0149), and exec-style runners (0154). */
const WRAPPERS: ReadonlyMap<string, Options> = new Map(Object.entries({
  sudo: { values: 'CDgprRtTuU', long: ['chdir', 'chroot', 'close-from', 'command-timeout', 'group', 'host', 'other-user', 'prompt', 'role', 'type', 'user'], environment: true },
  doas: { values: 'Cu' },
  env: { values: 'CSu', long: ['chdir', 'split-string', 'unset'], environment: true },
  time: { values: 'fo', long: ['format', 'output'] },
  nohup: {},
  nice: { values: 'n', long: ['adjustment'] },
  timeout: { values: 'ks', long: ['kill-after', 'signal'], operands: 1 },
  exec: { values: 'a' },
  command: {},
  builtin: {},
  busybox: {},
  'cross-env': { environment: true },
  stdbuf: { values: 'ioe', long: ['input', 'output', 'error'] },
  setsid: {},
  ionice: { values: 'cn', long: ['class', 'classdata'] },
  taskset: { operands: 1 },
  chronic: {},
  unbuffer: {},
  caffeinate: { values: 'tw' },
  'xvfb-run': { values: 'efnpsw', long: ['error-file', 'auth-file', 'server-num', 'xauth-protocol', 'server-args', 'wait'] },
  xargs: { values: 'aEdILnPs', long: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'] },
  npx: NPX,
  pnpx: { packages: true },
  bunx: { packages: true },
  uvx: { values: 'p', long: ['from', 'with', 'with-editable', 'with-requirements', 'python', 'index', 'default-index', 'index-url', 'extra-index-url'], packages: true },
}));

const UV_RUN: Options = {
  values: 'p',
  long: ['python', 'with', 'with-editable', 'with-requirements', 'package', 'directory', 'project', 'extra', 'group', 'only-group', 'no-group',
    'env-file', 'index', 'default-index', 'index-url', 'extra-index-url', 'find-links', 'config-file', 'cache-dir', 'color', 'exclude-newer',
    'prerelease', 'resolution'],
};
const CONDA_RUN: Options = { values: 'np', long: ['name', 'prefix', 'cwd'] };

/** Runners whose subcommand runs a program (`uv run pytest` is `pytest`); other subcommands are the runner's own. */
const RUNNERS: ReadonlyMap<string, ReadonlyMap<string, Options>> = new Map(Object.entries({
  uv: { run: UV_RUN },
  poetry: { run: {} },
  pipenv: { run: {} },
  bundle: { exec: {} },
  npm: { exec: NPX },
  pnpm: { exec: {}, dlx: { packages: true } },
  yarn: { exec: {}, dlx: { values: 'p', long: ['package'], packages: true } },
  bun: { x: { packages: true } },
  conda: { run: CONDA_RUN },
  mamba: { run: CONDA_RUN },
  micromamba: { run: CONDA_RUN },
  direnv: { exec: { operands: 1 } },
}).map(([name, subcommands]) => [name, new Map(Object.entries(subcommands))]));

/** Steps that prepare the shell, or the files, for what follows (0149, 0154). */
const SETUP = ['cd', 'pushd', 'popd', 'source', '.', 'export', 'set', 'unset', 'shopt', 'ulimit', 'umask', 'alias', 'unalias', 'trap',
  'declare', 'typeset', 'local', 'readonly', 'eval', 'deactivate', 'mkdir', 'chmod', 'touch'];
/** Steps that test, wait or print: the condition before the command, the pause before it, the line it says (0154). */
const CHECKS = ['[', 'test', 'true', 'false', ':', 'read', 'let', 'which', 'type', 'hash', 'sleep', 'wait', 'echo', 'printf', 'pwd'];
const STEPS: ReadonlySet<string> = new Set([...SETUP, ...CHECKS]);
/** Steps that leave the script or loop: a fallback that ends in one only reports the failure. */
const EXITS: ReadonlySet<string> = new Set(['exit', 'return', 'break', 'continue']);
/** Two-word setup: switching environments (`conda activate x && python …` is `python`). */
const SETUP_SUBCOMMANDS: ReadonlyMap<string, readonly string[]> = new Map(Object.entries({
  conda: ['activate', 'deactivate'], mamba: ['activate', 'deactivate'], micromamba: ['activate', 'deactivate'],
  nvm: ['use'], pyenv: ['shell', 'activate', 'deactivate'],
}));
/** Shells whose `-c` string, here-document or here-string is a command line named in turn. */
const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash']);
const SU: Options = { values: 'sgGw', long: ['shell', 'group', 'supp-group', 'whitelist-environment'], script: { short: 'c', long: 'command' } };
const PYTHON = /^(python|pypy)[0-9.]*$/;

/** A path's last part: `/usr/bin/git` and `git` are one program; `./scripts/build.sh` is `build.sh`. */
export function lastPart(word: string): string {
  if (!word.includes('/')) return word;
  const trimmed = word.replace(/\/+$/, '');
  const at = trimmed.lastIndexOf('/');
  return at < 0 ? trimmed || word : trimmed.slice(at + 1) || word;
}

/** `NAME=value` (or `NAME+=value`) with the name unquoted: the shell sets a variable, it runs nothing. */
export const isAssignment = (t: Word, quotedToo = false): boolean => {
  const m = /^[A-Za-z_][A-Za-z0-9_]*\+?=/.exec(t.word);
  return m !== null && (quotedToo || m[0].length <= t.plain);
};

/**
 * What the command whose first word is `first` runs. Reads the words the name needs (a wrapper's options, a shell's
 * options and string, a runner's subcommand); the rest of the command's words are left to the caller.
 * @example resolve(reader of 'run --fast', word 'uv', …) // { name: 'uv', kind: 'step', wraps: true }; 'run' read
 */
export function resolve(r: Reader, first: Word, nest: Nest, packages = false): Ran {
  let name = lastPart(first.word);
  if (packages) name = name.replace(/(?<=.)@.*$/s, '');
  if (name === '') return { name: null, kind: 'program' };
  if (name === 'command' && /^-[a-zA-Z]*[vV]/.test(peekWord(r) ?? '')) return { name, kind: 'step' };
  const wrapper = WRAPPERS.get(name);
  if (wrapper !== undefined) return wrapped(r, name, wrapper, nest);
  const subcommands = RUNNERS.get(name);
  const setups = SETUP_SUBCOMMANDS.get(name);
  const sub = subcommands !== undefined || setups !== undefined ? peekWord(r) : null;
  const runner = sub === null ? undefined : subcommands?.get(sub);
  if (runner !== undefined) {
    r.next();
    return wrapped(r, name, runner, nest);
  }
  if (sub !== null && setups?.includes(sub) === true) return { name, kind: 'step' };
  if (SHELLS.has(name)) return shell(r, name, nest);
  if (name === 'su' || name === 'runuser') {
    const script = readOptions(r, SU, true);
    return script === null ? { name, kind: 'program' } : nested(nest(script), name);
  }
  if (PYTHON.test(name)) return { name: pythonModule(r) ?? name, kind: 'program' };
  if (name === 'cat') return { name, kind: catsText(r) ? 'step' : 'program' };
  if (EXITS.has(name)) return { name, kind: 'exit' };
  return { name, kind: STEPS.has(name) ? 'step' : 'program' };
}

/** A wrapper or runner: its options read; the command line its script option holds, else its command next. */
function wrapped(r: Reader, name: string, options: Options, nest: Nest): Ran {
  const script = readOptions(r, options, false);
  if (script !== null) return nested(nest(script), name);
  return { name, kind: 'step', wraps: true, packages: options.packages === true, environment: options.environment === true };
}

/** A shell's command line named: its program; a step's name when it ran only steps; the shell when none or too deep. */
function nested(named: Named | null | undefined, shell: string): Ran {
  if (named === undefined) return { name: shell, kind: 'program' };
  if (named === null) return { name: shell, kind: 'step' };
  return { name: named.name, kind: named.program ? 'program' : 'step' };
}

/** The next token's text when it is a word. */
function peekWord(r: Reader): string | null {
  const t = r.peek();
  return t === null || 'op' in t ? null : t.word;
}

/**
 * Reads a wrapper's options (and their values, and the operands before its command), stopping at its command's first
 * word (left unread). Returns the value of its script option when it has one. With `anywhere`, options may follow
 * operands (`su app -c '…'`) and every word of the command is read.
 */
function readOptions(r: Reader, o: Options, anywhere: boolean): string | null {
  let operands = o.operands ?? 0;
  let options = true;
  for (let t = r.peek(); t !== null; t = r.peek()) {
    if ('op' in t) {
      if (!anywhere || !REDIRECTIONS.has(t.op)) break;
      r.next();
      r.word();
      continue;
    }
    const w = t.word;
    if (options && w.length > 1 && w.startsWith('-')) {
      r.next();
      if (w === '--') {
        options = false;
        continue;
      }
      if (w.startsWith('--')) {
        const eq = w.indexOf('=');
        const key = w.slice(2, eq < 0 ? undefined : eq);
        const takes = key === o.script?.long || (o.long?.includes(key) ?? false);
        const value = eq >= 0 ? w.slice(eq + 1) : takes ? r.word()?.word ?? null : null;
        if (key === o.script?.long && value !== null) return value;
        continue;
      }
      // A cluster of letters: the first that takes a value takes the rest of the word, or the next word.
      for (let k = 1; k < w.length; k++) {
        const letter = w[k]!;
        if (letter !== o.script?.short && !(o.values?.includes(letter) ?? false)) continue;
        const value = k < w.length - 1 ? w.slice(k + 1) : r.word()?.word ?? null;
        if (letter === o.script?.short && value !== null) return value;
        break;
      }
      continue;
    }
    if (operands > 0 || anywhere) {
      r.next();
      operands = Math.max(0, operands - 1);
      if (!anywhere) options = false;
      continue;
    }
    break;
  }
  return null;
}

/**
 * A shell's command: the program of its `-c` string; of its here-document or here-string when it reads its commands
 * from standard input (no script named, or `-s`); else the shell (`bash script.sh` is `bash`, as `python x.py` is
 * `python`).
 */
function shell(r: Reader, name: string, nest: Nest): Ran {
  let command = false;
  let stdin = false;
  let options = true;
  let input: HereDoc | string | null = null;
  for (let t = r.peek(); t !== null; t = r.peek()) {
    if ('op' in t) {
      if (!REDIRECTIONS.has(t.op)) break;
      r.next();
      const target = r.word();
      if (t.op === '<<<') input = target?.word ?? null;
      else if (t.op === '<<' || t.op === '<<-') input = t.heredoc ?? null;
      else if (t.op === '<' || t.op === '<>') input = null;
      continue;
    }
    r.next();
    const w = t.word;
    if (options && w.length > 0 && (w[0] === '-' || w[0] === '+')) {
      if (w === '-' || w === '--') options = false;
      else if (w === '--rcfile' || w === '--init-file') r.word();
      else if (!w.startsWith('--')) {
        for (const letter of w.slice(1)) {
          if (letter === 'c') command = true;
          else if (letter === 's') stdin = true;
          else if (letter === 'o' || letter === 'O') r.word();
        }
      }
      continue;
    }
    if (command) return nested(nest(w), name);
    if (!stdin) return { name, kind: 'program' };
    options = false; // `sh -s arg…`: arguments, the commands still on standard input
  }
  if (command || input === null) return { name, kind: 'program' };
  if (typeof input === 'string') return nested(nest(input), name);
  if (input.body === undefined) r.toLineEnd();
  return input.body === undefined ? { name, kind: 'program' } : nested(nest(input.body), name);
}

/**
 * Whether `cat` prints text the line holds — its input a here-document or here-string, no file named — as `echo` does:
 * then it is a step (`cat > x.py <<'EOF'` … `EOF` then `python x.py` is `python`). Reads its words as far as it knows.
 */
function catsText(r: Reader): boolean {
  let text = false;
  for (let t = r.peek(); t !== null; t = r.peek()) {
    if ('op' in t) {
      if (!REDIRECTIONS.has(t.op)) break;
      r.next();
      r.word();
      if (t.op === '<<' || t.op === '<<-' || t.op === '<<<') text = true;
      else if (t.op === '<' || t.op === '<>') text = false;
      continue;
    }
    if (!t.word.startsWith('-')) return false;
    r.next();
  }
  return text;
}

/** `python -m MODULE`'s module (`python3 -m pytest` is `pytest`); null when it runs a script, `-c` code or nothing. */
function pythonModule(r: Reader): string | null {
  for (let t = r.peek(); t !== null && !('op' in t); t = r.peek()) {
    const w = t.word;
    if (w.length < 2 || !w.startsWith('-')) return null;
    r.next();
    if (w === '--') return null;
    if (w.startsWith('--')) {
      if (w === '--check-hash-based-pycs') r.word();
      continue;
    }
    for (let k = 1; k < w.length; k++) {
      const letter = w[k]!;
      if (!'mcWXQ'.includes(letter)) continue;
      const value = k < w.length - 1 ? w.slice(k + 1) : r.word()?.word ?? null;
      if (letter === 'm') return value || null;
      if (letter === 'c') return null;
      break;
    }
  }
  return null;
}
