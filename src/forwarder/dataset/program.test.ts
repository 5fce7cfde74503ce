// The program a terminal command line runs (decision 0149): the first program word after assignments, wrappers and
// setup steps, read with the shell's quoting and named by its last path part; placeholders for lines that run none and
// for calls without a command.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commandProgram, EMPTY_COMMAND, NO_COMMAND, programOfCommand } from './program.js';

const named = (cases: readonly (readonly [line: string, program: string])[]) => {
  for (const [line, program] of cases) assert.equal(commandProgram(line), program, JSON.stringify(line));
};

describe('commandProgram', () => {
  it('the first word, named by its last path part', () => {
    named([
      ['ls -la', 'ls'], ['git\tstatus', 'git'], ['  npm test  ', 'npm'], ['/usr/bin/git log', 'git'], ['./scripts/build.sh --fast', 'build.sh'],
      ['~/bin/deploy', 'deploy'], ['node_modules/.bin/tsc -p .', 'tsc'], ['python3\n', 'python3'], ['make\r\n', 'make'],
    ]);
  });

  it('VAR=value assignments before it are skipped; one whose name is quoted is a word', () => {
    named([
      ['FOO=1 npm test', 'npm'], ['A=1 B="two words" C=$(date) ./run.sh', 'run.sh'], ['PATH+=:/opt/bin make', 'make'],
      ['CI=true  NODE_ENV=test npx vitest', 'npx'], ['"FOO=1" x', 'FOO=1'], ['1FOO=1 x', '1FOO=1'],
    ]);
  });

  it('wrappers and their options are skipped: sudo, doas, env, time, nohup, nice, timeout, exec', () => {
    named([
      ['sudo apt-get install -y jq', 'apt-get'], ['sudo -E -u root -- apt-get update', 'apt-get'], ['sudo -uroot ls', 'ls'],
      ['sudo --user=root ls', 'ls'], ['sudo --user root ls', 'ls'], ['sudo -S -p "" systemctl restart x', 'systemctl'],
      ['doas -u www cat /etc/x', 'cat'], ['env -i PATH=/bin FOO=1 python3 x.py', 'python3'], ['env -u HOME node x', 'node'],
      ['/usr/bin/env python3 x', 'python3'], ['time -p make', 'make'], ['time make -j4', 'make'], ['nohup ./server.sh &', 'server.sh'],
      ['nice -n 10 make', 'make'], ['nice -10 make', 'make'], ['timeout 30 npm test', 'npm'], ['timeout -k 5 -s KILL 30s pytest', 'pytest'],
      ['timeout --signal=TERM 1m cargo test', 'cargo'], ['exec -a name ./bin', 'bin'], ['sudo env FOO=1 nohup time -p nice make', 'make'],
    ]);
  });

  it('a wrapper with nothing after it is the program', () => {
    named([['sudo', 'sudo'], ['env', 'env'], ['time', 'time'], ['sudo -i', 'sudo'], ['exec 2>&1', 'exec'], ['env FOO=1', 'env'], ['nohup | cat', 'nohup']]);
  });

  it('setup chained before it is skipped: cd DIR &&, source and . ;, export, set, unset; alone, or before ||, it is the program', () => {
    named([
      ['cd web && npm test', 'npm'], ['cd "my dir" 2>/dev/null && make', 'make'], ['cd /repo; git pull', 'git'], ['cd a && cd b && ls', 'ls'],
      ['source .venv/bin/activate && pytest -q', 'pytest'], ['. venv/bin/activate; python x.py', 'python'], ['set -euo pipefail\nnpm ci', 'npm'],
      ['export A=1 && node x', 'node'], ['unset X; env', 'env'], ['pushd /tmp && tar xf a.tgz', 'tar'],
      ['cd x', 'cd'], ['cd x &&', 'cd'], ['cd x || exit 1', 'cd'], ['cd x | cat', 'cd'], ['set -e', 'set'],
    ]);
  });

  it('a setup step\'s fallback (|| …) is skipped with it, a group in braces or brackets whole', () => {
    named([
      ['cd x || exit 1; make', 'make'], ['cd x || exit 1 && make', 'make'], ['cd /repo || exit\nnpm test', 'npm'],
      ['cd x || { echo "no x"; exit 1; }; make -j4', 'make'], ['cd x || (echo no; exit 1) && pytest', 'pytest'],
      ['source env.sh 2>/dev/null || true; node app.js', 'node'], ['cd x || echo no > /dev/stderr; ls', 'ls'],
      ['cd x || exit 1', 'cd'], ['cd x || { exit 1', 'cd'], ['cd x || exit 1 | cat', 'cd'],
    ]);
  });

  it('pipes, chains and lists are named by their first program', () => {
    named([
      ['cat log | grep ERROR | wc -l', 'cat'], ['make && make test', 'make'], ['false || true', 'false'], ['sleep 1 & wait', 'sleep'],
      ['echo "a|b" | wc', 'echo'], ["awk '{print $1}' f | sort", 'awk'], ['grep -c x f; echo done', 'grep'],
    ]);
  });

  it('quotes, escapes, subshells, groups, negation, redirections and comments', () => {
    named([
      ['"my prog" x', 'my prog'], ["'python3' -c 'print(1)'", 'python3'], ['\\ls', 'ls'], ['a\\ b c', 'a b'], ['"/opt/my app/run" x', 'run'],
      ['(cd a && make)', 'make'], ['{ ls; }', 'ls'], ['! grep -q x f', 'grep'], ['2>/dev/null git status', 'git'], ['> out echo hi', 'echo'],
      ['<<EOF cat\nhi\nEOF', 'cat'], ['# build it\nmake', 'make'], ['make # the default target', 'make'], ['ls \\\n  -la', 'ls'],
      ['$(which python) x', '$(which python)'], ['`which node` x', '`which node`'], ['${PYTHON:-python3} x', '${PYTHON:-python3}'],
      ['"$(dirname "$0")/run.sh"', 'run.sh'], ['x=$(( 1 + 2 )) y', 'y'], ['for f in *; do wc $f; done', 'for'], ['bash -c "make"', 'bash'],
    ]);
  });

  it('a here-document\'s body is its command\'s input, not commands: the line after its delimiter runs next', () => {
    named([
      ["source /dev/stdin <<'EOF'\nexport A=1\nEOF\nnpm test", 'npm'], ['cd /srv <<EOF\nrm -rf build\nEOF\nmake', 'make'],
      ['cd x <<-END\n\tbody\n\tEND\nls', 'ls'], ['cd x <<A <<"B"\na1\nA\nb1\nB\nls', 'ls'], ['cd x <<EOF; make\nbody\nEOF', 'make'],
      ['set -e <<< "x"\nls', 'ls'], ['cd x <<EOF\nEOFnot\n EOF\nEOF\nls', 'ls'], ['cd x <<EOF\nnever ended', 'cd'],
    ]);
  });

  it('a line that runs no program: blank, a comment, only assignments or operators, an empty quoted word', () => {
    named([['', EMPTY_COMMAND], ['   \n\t', EMPTY_COMMAND], ['# nothing', EMPTY_COMMAND], ['FOO=1', EMPTY_COMMAND], ['A=1 B=2;', EMPTY_COMMAND],
      [';;', EMPTY_COMMAND], ['&& ||', EMPTY_COMMAND], ['"" x', EMPTY_COMMAND], ['( )', EMPTY_COMMAND]]);
  });

  it('unterminated quotes and brackets end at the end of the line', () => {
    named([['"unterminated', 'unterminated'], ["'open x", 'open x'], ['$(never closed', '$(never closed'], ['`tick', '`tick']]);
  });

  it('a long line is named by its first words (the reading stops at the program)', () => {
    assert.equal(commandProgram(`cat <<'EOF' > big.txt\n${'x'.repeat(5_000_000)}\nEOF`), 'cat');
  });
});

describe('programOfCommand', () => {
  it('a command that is not text is NO_COMMAND; text is its program', () => {
    for (const v of [null, undefined, 42, true, ['ls'], { a: 1 }]) assert.equal(programOfCommand(v), NO_COMMAND, String(v));
    assert.equal(programOfCommand('ls -la'), 'ls');
    assert.equal(programOfCommand(''), EMPTY_COMMAND);
  });
});
