// Properties of `commandProgram` over generated lines (decision 0154), seeded so every run draws the same ones: it
// never throws and always names something (a program, a step, or `(empty)`); no name reads as a placeholder, none is
// longer than 200 characters; a line given to a shell (`bash -c '…'`, `sudo bash -lc "…"`, `sh <<< '…'`) is named as
// the line itself; what only prepares, wraps, tests or opens a compound command before a program leaves it the name;
// lines of only assignments, operators, redirections and reserved words are `(empty)`. Hostile shapes a megabyte long
// and nestings thousands deep are named too: the reading is linear (program.ts, shell-tokens.ts say why), so these
// finish in a blink — no time is asserted, a quadratic reading would show as a hung test.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seeded } from '../../../test/support/random.js';
import { commandProgram, EMPTY_COMMAND, NO_CALL, NO_COMMAND, programOfCommand } from './program.js';

type Random = () => number;
const pick = <T>(rnd: Random, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

/** Pieces of command lines: words, wrappers, shells, runners, reserved words, quotes, operators, hostile characters. */
const PIECES = [
  'ls', 'make', 'npm', 'test', 'cd', 'x', '/usr/bin/git', './run.sh', '-c', '-lc', '-euo', 'pipefail', '--', '-u', 'root', 'bash', 'sh', 'zsh',
  'sudo', 'env', 'timeout', '30', 'npx', 'uv', 'run', 'python', '-m', 'pytest', 'su', 'exec', 'time', 'xargs', 'conda', 'activate', 'echo',
  'sleep', '[', ']', '[[', ']]', 'true', 'exit', 'FOO=1', 'A+=2', 'if', 'then', 'elif', 'else', 'fi', 'for', 'in', 'do', 'done', 'while', 'until',
  'case', 'esac', 'select', 'function', '{', '}', '!', 'constructor', '__proto__', '(empty)', '(no command)', '"', "'", '\\', '`', '$(', '${', '$((',
  '))', '((', "$'", '$"', '<(', '>(', '#', '\\\n', ';', '&&', '||', '|', '|&', '&', ';;', ';&', ';;&', '(', ')', '<', '>', '>>', '2>&1', '<<',
  '<<-', '<<<', 'EOF', '\n', '\r\n', '\0', '\u00a0', '\u2028', '\ufeff', '\ud800', '\udc00', '😀', '\x1b[31m', 'é', '\\x41', '=', '@3', '/',
];
const JOINS = ['', ' ', ' ', ' ', '\t', '\n'];

/** A line of up to `most` pieces, joined by blanks, new lines or nothing. */
function hostileLine(rnd: Random, most: number): string {
  let line = '';
  const count = Math.floor(rnd() * (most + 1));
  for (let k = 0; k < count; k++) line += pick(rnd, JOINS) + pick(rnd, PIECES);
  return line;
}

const singleQuoted = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const doubleQuoted = (s: string) => `"${s.replace(/["\\$`]/g, '\\$&')}"`;

/** What one call of `commandProgram` must always answer. */
function wellFormed(line: string): string {
  const name = commandProgram(line);
  assert.equal(typeof name, 'string');
  assert.ok(name.length > 0, JSON.stringify(line));
  assert.ok(name.length <= 200, JSON.stringify(line));
  assert.ok(name !== NO_COMMAND && name !== NO_CALL, JSON.stringify(line));
  if (name.startsWith('(') && name.endsWith(')')) assert.equal(name, EMPTY_COMMAND, JSON.stringify(line));
  return name;
}

describe('commandProgram over generated lines', () => {
  it('always answers a name, at most 200 characters, never a placeholder but (empty), the same each time', () => {
    const rnd = seeded(154);
    for (let k = 0; k < 4000; k++) {
      const line = hostileLine(rnd, 40);
      assert.equal(wellFormed(line), commandProgram(line));
    }
  });

  it('a line given to a shell is named as the line is (the shell when the line runs nothing)', () => {
    const rnd = seeded(1540);
    for (let k = 0; k < 3000; k++) {
      const line = hostileLine(rnd, 24);
      const own = wellFormed(line);
      const expect = (shell: string) => (own === EMPTY_COMMAND ? shell : own);
      // `--` before the string, as a shell needs when the line starts with - or + (else it reads the line as options).
      assert.equal(wellFormed(`bash -c -- ${singleQuoted(line)}`), expect('bash'), JSON.stringify(line));
      assert.equal(wellFormed(`sudo -u app bash -lc -- ${doubleQuoted(line)} 2>&1`), expect('bash'), JSON.stringify(line));
      if (!/^[-+]/.test(line)) assert.equal(wellFormed(`sh -c ${singleQuoted(line)}`), expect('sh'), JSON.stringify(line));
      assert.equal(wellFormed(`sh <<< ${singleQuoted(line)}`), expect('sh'), JSON.stringify(line));
    }
  });

  it('what prepares, wraps, tests or opens a compound command leaves the program the name, 6 deep in shells', () => {
    const programs: readonly (readonly [string, string])[] = [
      ['npm test', 'npm'], ['/usr/bin/git status', 'git'], ['pytest -q', 'pytest'], ['python -m pytest', 'pytest'], ['./scripts/build.sh', 'build.sh'],
      ['make -j4', 'make'], ['cargo test', 'cargo'], ['"my tool" x', 'my tool'], ['node x.js', 'node'], ['bash -c "npm ci"', 'npm'], ['rg -n foo', 'rg'],
    ];
    const prefixes = [
      'FOO=1 ', 'A="x y" ', 'sudo ', 'sudo -u app ', 'env -i ', 'timeout 30 ', 'nohup ', 'nice -n 5 ', 'time ', 'time -p ', 'exec ', '2>/dev/null ',
      'cd dir && ', 'cd "a b"; ', 'cd x || exit 1; ', 'cd x || { echo no; exit 1; }; ', 'source .venv/bin/activate && ', 'set -e\n', 'export A=1; ',
      '[ -f x ] && ', '[[ -n "$x" || -z $y ]] && ', 'test -d y && ', 'command -v jq >/dev/null && ', 'sleep 1; ', 'echo "start"; ', 'true && ',
      '[ -d x ] || exit 1\n', '! ', '{ ', '( ', 'if [ -f x ]; then ', 'for f in a b; do ', 'for ((i=0; i<3; i++)); do ', 'while read l; do ',
      'until false; do ', 'case x in a) ', 'case $y in\n (b|c) ', 'uv run ', 'npx ', 'poetry run ', 'conda activate e && ', '# note\n', 'SHELL', 'HEREDOC',
    ];
    const rnd = seeded(15400);
    for (let k = 0; k < 3000; k++) {
      const [body, name] = pick(rnd, programs);
      let line = body;
      let shells = 0;
      for (let depth = Math.floor(rnd() * 8); depth > 0; depth--) {
        const prefix = pick(rnd, prefixes);
        if ((prefix === 'SHELL' || prefix === 'HEREDOC') && shells === 6) continue;
        if (prefix === 'SHELL') line = `${pick(rnd, ['bash -c ', 'sh -c ', 'bash -lc ', 'zsh -c '])}${pick(rnd, [singleQuoted, doubleQuoted])(line)}`;
        else if (prefix === 'HEREDOC') line = `bash <<'END${shells}'\n${line}\nEND${shells}`;
        else line = prefix + line;
        if (prefix === 'SHELL' || prefix === 'HEREDOC') shells++;
      }
      assert.equal(wellFormed(line), name, JSON.stringify(line));
    }
  });

  it('lines of only assignments, operators, redirections, comments and reserved words are (empty)', () => {
    const pieces = [';', '&&', '||', '|', '&', '(', ')', '{', '}', '!', 'A=1', 'B="x y"', "C='('", '# c\n', '2>/dev/null', '>out', '<in', 'then', 'do',
      'fi', 'done', 'esac', 'else', '\n', 'X=$(ls)'];
    const rnd = seeded(15401);
    for (let k = 0; k < 3000; k++) {
      const line = Array.from({ length: Math.floor(rnd() * 30) }, () => pick(rnd, pieces)).join(pick(rnd, [' ', '\n', '\t']));
      assert.equal(wellFormed(line), EMPTY_COMMAND, JSON.stringify(line));
    }
  });

  it('a call\'s argument that is not text is (no command); text never is, nor (no call)', () => {
    for (const v of [null, undefined, 0, false, [], {}, ['bash -c x']]) assert.equal(programOfCommand(v), NO_COMMAND);
    const rnd = seeded(15402);
    for (let k = 0; k < 500; k++) {
      const name = programOfCommand(hostileLine(rnd, 12));
      assert.ok(name !== NO_COMMAND && name !== NO_CALL);
    }
  });
});

describe('commandProgram on hostile shapes, a megabyte long or thousands deep', () => {
  it('names each (every reading is linear: none of these takes more than a blink)', () => {
    const MB = 1 << 20;
    const shapes = [
      '"', "'", '\\', '`', '$(', '${', '(', ')', '((', '{ ', '} ', 'if ', 'fi ', 'for x in a; do ', 'done ', 'case x in a) cd y;; ', ';; x) ', '[[ ',
      '<(', "$'", "$'\\x41", '$"', '"$(', 'cd x; ', 'cd x || exit; ', '[ -f x ] || ', 'A=1 ', 'sudo -E ', 'nohup ', 'timeout 1 ', 'npx ', 'uv run ',
      '2>/dev/null ', '< ', '<<E\n', 'cd x <<E\n', 'bash <<E;', 'bash <<< ', 'bash -c ', "sh -c 'cd x'; ", 'su -c ', 'echo x; ', 'sleep 1 && ',
      '\n', 'x\\\n', '#', 'python -u ', 'bash -c "', '\u2028', '\0', '\ud800', '((a)', '((a) ', '((cd x) && ',
    ];
    for (const shape of shapes) wellFormed(shape.repeat(Math.ceil(MB / shape.length)));
    // Deep: brackets, groups, substitutions, loops and shells, nested many times (a depth counter, no recursion).
    const deep = 100_000;
    const nestings: readonly (readonly [string, string, string])[] = [
      ['( ', ')', 'make'], ['{ ', '; }', 'make'], ['if true; then ', '; fi', 'make'], ['for x in a; do ', '; done', 'make'], ['! ', '', 'make'],
      ['bash <<E\n', '\nE', 'bash'], ['[[ ', ' ]]', '[['], ['$(', ')', `${'$('.repeat(99)}$…`], ['"$(', ')"', `${'$("'.repeat(66)}$…`],
    ];
    for (const [open, close, name] of nestings) assert.equal(wellFormed(`${open.repeat(deep)}make${close.repeat(deep)}`), name, open);
    // `((` that are subshells, each of whose second bracket closes before another word: each would look to its match.
    for (const [open, close] of [['(', ')x'], ['((', ') x)'], ['(', ') ']]) wellFormed(`${open.repeat(deep)}make${close.repeat(deep)}`);
    let shells = 'make';
    for (let k = 0; k < 12; k++) shells = `bash -c ${singleQuoted(shells)}`;
    assert.equal(wellFormed(shells), 'bash');
  });
});
