// The program a terminal command line runs (decisions 0149, 0154): the first program it runs after assignments,
// wrappers, runners and steps, read with the shell's quoting and grammar (into `bash -c`, loops, conditionals and
// groups) and named by its last path part; placeholders for lines that run none and for calls without a command.
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
      ['CI=true  NODE_ENV=test npx vitest', 'vitest'], ['"FOO=1" x', 'FOO=1'], ['1FOO=1 x', '1FOO=1'],
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
      ['"$(dirname "$0")/run.sh"', 'run.sh'], ['x=$(( 1 + 2 )) y', 'y'], ['$(npm bin)/jest --ci', 'jest'],
    ]);
  });

  it('a here-document\'s body is its command\'s input, not commands: the line after its delimiter runs next', () => {
    named([
      ["source /dev/stdin <<'EOF'\nexport A=1\nEOF\nnpm test", 'npm'], ['cd /srv <<EOF\nrm -rf build\nEOF\nmake', 'make'],
      ['cd x <<-END\n\tbody\n\tEND\nls', 'ls'], ['cd x <<A <<"B"\na1\nA\nb1\nB\nls', 'ls'], ['cd x <<EOF; make\nbody\nEOF', 'make'],
      ['set -e <<< "x"\nls', 'ls'], ['cd x <<EOF\nEOFnot\n EOF\nEOF\nls', 'ls'], ['cd x <<EOF\nnever ended', 'cd'],
      ['cd x <<EOF\r\nbody\r\nEOF\r\nmake\r\n', 'make'],
    ]);
  });

  it('a line that runs no program: blank, a comment, only assignments or operators, an empty quoted word', () => {
    named([['', EMPTY_COMMAND], ['   \n\t', EMPTY_COMMAND], ['# nothing', EMPTY_COMMAND], ['FOO=1', EMPTY_COMMAND], ['A=1 B=2;', EMPTY_COMMAND],
      [';;', EMPTY_COMMAND], ['&& ||', EMPTY_COMMAND], ['"" x', EMPTY_COMMAND], ['( )', EMPTY_COMMAND]]);
  });

  it('unterminated quotes and brackets end at the end of the line', () => {
    named([['"unterminated', 'unterminated'], ["'open x", 'open x'], ['$(never closed', '$(never closed'], ['`tick', '`tick']]);
  });

  it('a long line is named, its here-document read once (the reading stops at the program)', () => {
    assert.equal(commandProgram(`cat <<'EOF' > big.txt\n${'x'.repeat(5_000_000)}\nEOF`), 'cat');
    assert.equal(commandProgram(`cat <<'EOF' > big.txt\n${'x\n'.repeat(1_000_000)}EOF\nmake`), 'make');
    assert.equal(commandProgram(`git commit -m "${'x'.repeat(5_000_000)}`), 'git');
  });
});

describe('commandProgram: what a shell is given is named (decision 0154)', () => {
  it('a -c string: its program, with the shell\'s options before it, through wrappers', () => {
    named([
      ['bash -c "npm test"', 'npm'], ["sh -c 'cd x && make'", 'make'], ['bash -lc "pytest -q"', 'pytest'], ['zsh -c "ls -la"', 'ls'],
      ['dash -c "git status"', 'git'], ['ksh -c make', 'make'], ["/bin/bash -euo pipefail -c 'cd web && npm ci'", 'npm'],
      ['bash -o pipefail -c "npm test | tee log"', 'npm'], ['bash +O extglob -ce "rm -rf build"', 'rm'], ['bash --norc --noprofile -c "go test ./..."', 'go'],
      ['bash --rcfile x.rc -c cargo', 'cargo'], ['bash -c -x "make all"', 'make'], ['sh -c "$CMD"', '$CMD'], ['bash -c \'FOO=1 node x.js\' sh a b', 'node'],
      ['sudo -u app bash -lc "cd /srv && npm ci"', 'npm'], ['timeout 60 bash -c "pytest"', 'pytest'], ['cd x && bash -c make', 'make'],
      ['bash -c "echo \\"hi\\" && make"', 'make'], ["bash -c $'cd x\\nmake'", 'make'], ['bash -c "cd x" && make', 'make'],
    ]);
  });

  it('nested shells are named to 8 deep; a -c string with no program, or none at all, is the shell', () => {
    named([
      ["bash -c \"sh -c 'zsh -c make'\"", 'make'], ['bash -c ""', 'bash'], ['bash -c "# nothing"', 'bash'], ['bash -c', 'bash'], ['sh -c "A=1"', 'sh'],
      ["bash -c 'cd x'", 'cd'], ["bash -c 'cd x || exit 1'", 'cd'],
    ]);
    const heredocs = (depth: number) => {
      let line = 'make';
      for (let k = depth; k > 0; k--) line = `bash <<E${k}\n${line}\nE${k}`;
      return line;
    };
    assert.equal(commandProgram(heredocs(8)), 'make');
    assert.equal(commandProgram(heredocs(9)), 'bash');
    assert.equal(commandProgram(heredocs(20_000)), 'bash');
  });

  it('commands on standard input: a here-document or here-string; a script, a file or nothing is the shell', () => {
    named([
      ["bash <<'EOF'\nset -e\nnpm test\nEOF", 'npm'], ['bash -s <<EOF\ncd x\nmake\nEOF\nls', 'make'], ['sh <<-EOF\n\tcargo build\n\tEOF', 'cargo'],
      ['bash <<< "cargo build"', 'cargo'], ['bash -s -- a b <<< pytest', 'pytest'], ['bash <<EOF | tee log\nmake\nEOF', 'make'], ['bash <<EOF\nnever ended', 'never'],
      ['bash script.sh', 'bash'], ['bash -x ./deploy.sh prod', 'bash'], ['bash -- run.sh', 'bash'], ['sh < script.sh', 'sh'], ['bash', 'bash'],
      ['bash -i', 'bash'], ['bash <<EOF\nEOF\nmake', 'make'],
    ]);
  });

  it('su and runuser: their -c string', () => {
    named([
      ["su - postgres -c 'psql -c \"select 1\"'", 'psql'], ['su -c "systemctl restart app" root', 'systemctl'], ['su app --command=make', 'make'],
      ['sudo su -s /bin/bash app -c "npm ci"', 'npm'], ['runuser -u app -- -c x', 'runuser'], ['runuser app -c "make"', 'make'], ['su app', 'su'], ['su', 'su'],
    ]);
  });
});

describe('commandProgram: the bodies of loops, conditionals and groups (decision 0154)', () => {
  it('a loop\'s body, past its head', () => {
    named([
      ['for f in *.py; do pytest "$f"; done', 'pytest'], ['for f in *; do wc $f; done', 'wc'], ['for f in do done; do make; done', 'make'],
      ['for x\ndo\n  ls\ndone', 'ls'], ['for ((i=0; i<3; i++)); do ./run.sh $i; done', 'run.sh'], ['select x in a b; do make $x; done', 'make'],
      ['for f in $(git ls-files); do black "$f"; done', 'black'], ['for f in a; do done', EMPTY_COMMAND],
    ]);
  });

  it('a condition that tests is passed; one that runs a program names the line', () => {
    named([
      ['if [ -f x ]; then make; fi', 'make'], ['if [[ -d node_modules ]]; then npm test; else npm ci; fi', 'npm'], ['if test -n "$CI"\nthen\n  make\nfi', 'make'],
      ['if ! command -v jq >/dev/null; then apt-get install -y jq; fi', 'apt-get'], ['if (( $# > 0 )); then ./go.sh; fi', 'go.sh'],
      ['if grep -q foo f; then echo yes; fi', 'grep'], ['while read l; do echo "$l"; wc -l "$l"; done < list', 'wc'],
      ['while true; do curl -s localhost; sleep 5; done', 'curl'], ['until pg_isready; do sleep 1; done', 'pg_isready'],
      ['while ! curl -sf localhost:3000; do sleep 1; done', 'curl'], ['if [ -f x ]; then cd y; fi && make', 'make'], ['if [ -f x ]; then exit 1; fi', 'exit'],
    ]);
  });

  it('case: its branches in order, past the word and the patterns', () => {
    named([
      ['case "$1" in start) npm start;; stop) pkill node;; esac', 'npm'], ['case x in\n  a|b) cd y;;\n  (c) make;;\nesac', 'make'],
      ['case $x in *) ;; esac; ls', 'ls'], ['case $x in a) cd a;& b) tar xf b;;& esac', 'tar'],
    ]);
  });

  it('groups, subshells, time, negation and functions', () => {
    named([
      ['{ cd x; make; }', 'make'], ['{ cd x; } && make', 'make'], ['( cd x && make )', 'make'], ['(cd x) && make', 'make'], ['time { make; }', 'make'],
      ['time (sleep 1; ls)', 'ls'], ['! grep x f', 'grep'], ['f() { make; }; f', 'f'], ['function deploy { make; }; deploy', 'deploy'],
      // `((` is arithmetic only where its second bracket's match is followed by `)`, as bash reads it; else two subshells.
      ['((cd x) && make)', 'make'], ['((cd web; npm ci) && npm test)', 'npm'], ['((a)+(b))', 'a'], ['(( (a) + (b) ))', '(('], ['((x))', '(('],
      ['(( x++ )) && make', 'make'], ['((cd x) )', 'cd'],
    ]);
  });
});

describe('commandProgram: steps that only test, wait, print or prepare (decisions 0149, 0154)', () => {
  it('are passed before &&, ; and a new line; alone, or before a pipe or &, the last one is the program', () => {
    named([
      ['[[ -f x ]] && make', 'make'], ['test -f x && make', 'make'], ['[ -f .env ] && source .env; npm start', 'npm'], ['sleep 5 && curl localhost:3000', 'curl'],
      ['echo "== tests" && npm test', 'npm'], ['printf "%s\\n" a; ls', 'ls'], ['which node && node -v', 'node'], ['true && make', 'make'],
      ['conda activate x && python y.py', 'python'], ['nvm use 18 && npm test', 'npm'], ['eval "$(conda shell.bash hook)" && conda activate x && pytest', 'pytest'],
      ['trap cleanup EXIT; make', 'make'], ['shopt -s globstar; popd; ls', 'ls'], ['exec >log 2>&1; make', 'make'], ['[ -f x ] && exit 0; make', 'make'],
      ['[ -f x ]', '['], ['[[ -n $x ]]', '[['], ['(( i++ ))', '(('], ['sleep 5', 'sleep'], ['echo hi', 'echo'], ['echo "a|b" | wc', 'echo'], ['exit 1', 'exit'],
      ['true', 'true'], ['sleep 1 & wait', 'sleep'], ['command -v jq', 'command'], ['conda activate x', 'conda'], ['cd x; echo done', 'echo'],
      ['pwd && ls -la', 'ls'], ['mkdir -p build && cd build && cmake ..', 'cmake'], ['chmod +x run.sh && ./run.sh', 'run.sh'], ['touch .env; npm start', 'npm'],
      ['mkdir -p x', 'mkdir'],
    ]);
  });

  it('cat printing a here-document or here-string, no file named, is a step as echo is', () => {
    named([
      ["cat > x.py <<'EOF'\nprint(1)\nEOF\npython x.py", 'python'], ['cat <<EOF > cfg.json && node app.js\n{}\nEOF', 'node'], ['cat -n - <<< x; make', 'make'],
      ["cat <<'EOF'\nhello\nEOF", 'cat'], ['cat <<EOF | bash\nmake\nEOF', 'cat'], ['cat file && make', 'cat'], ['cat x <<EOF\ny\nEOF\nmake', 'cat'],
      ['cat <<EOF < file\nx\nEOF\nmake', 'cat'],
    ]);
  });

  it('a step\'s fallback (|| …) is passed with it; alone, its program names the line unless it only exits', () => {
    named([
      ['[ -f x ] || exit 1; make', 'make'], ['[ -d build ] || mkdir build && cd build && cmake ..', 'cmake'],
      ['[ -d node_modules ] || npm ci', 'npm'], ['test -f .env || cp .env.example .env', 'cp'], ['command -v jq >/dev/null || sudo apt-get install -y jq', 'apt-get'],
      ['which node || (curl -fsSL x | bash)', 'curl'], ['[ -f x ] || { echo building; make; }', 'make'], ['cd x || mkdir x', 'cd'], ['cd x || git clone u x', 'git'],
      ['[[ -f a || -f b ]] && make', 'make'], ['[ -f x ] || [ -f y ] || exit 1', '['], ['[ -d x ] || git clone u x; cd x', 'git'],
      ['[ -f x ] || { echo no; exit 1; }', '['], ['false || true', 'false'],
    ]);
  });
});

describe('commandProgram: runners run the program after them (decision 0154)', () => {
  it('npx, pnpm exec and dlx, yarn dlx, bunx, npm exec: the package\'s program, its version left out', () => {
    named([
      ['npx jest', 'jest'], ['npx -y prettier@3 --write .', 'prettier'], ['npx @biomejs/biome@1.9 check', 'biome'], ['npx -p typescript tsc', 'tsc'],
      ['npx --package=typescript -- tsc -p .', 'tsc'], ["npx -c 'eslint . && tsc'", 'eslint'], ['pnpm exec vitest run', 'vitest'], ['pnpm dlx create-vite app', 'create-vite'],
      ['yarn dlx -p typescript tsc', 'tsc'], ['bunx cowsay hi', 'cowsay'], ['bun x cowsay', 'cowsay'], ['npm exec -- eslint .', 'eslint'],
      ['yarn exec jest', 'jest'], ['pnpx degit x', 'degit'], ['npx', 'npx'],
    ]);
  });

  it('uv run, uvx, poetry run, pipenv run, bundle exec, conda run, direnv exec, xargs', () => {
    named([
      ['uv run pytest -q', 'pytest'], ['uv run --with rich --python 3.12 python x.py', 'python'], ['uv run -m pytest', 'pytest'], ['uv run -- ruff check', 'ruff'],
      ['uvx ruff check', 'ruff'], ['uvx --from black black .', 'black'], ['uvx ruff@0.5 check', 'ruff'], ['poetry run pytest', 'pytest'],
      ['pipenv run python manage.py test', 'python'], ['bundle exec rspec', 'rspec'], ['conda run -n env --no-capture-output python x.py', 'python'],
      ['micromamba run -p ./env pytest', 'pytest'], ['direnv exec . make', 'make'], ['xargs -n1 -I{} rm {} < files', 'rm'], ['xargs -a list -P 4 curl -O', 'curl'],
      ['uv run', 'uv'], ['poetry run', 'poetry'],
    ]);
  });

  it('task runners and the runners\' other subcommands are programs', () => {
    named([
      ['npm test', 'npm'], ['npm run build', 'npm'], ['yarn test', 'yarn'], ['pnpm test', 'pnpm'], ['uv sync', 'uv'], ['uv pip install x', 'uv'],
      ['poetry install', 'poetry'], ['bundle install', 'bundle'], ['conda install x', 'conda'], ['bun run dev', 'bun'], ['find . -name x | xargs rm', 'find'],
    ]);
  });

  it('python -m MODULE is the module; a script, -c code or nothing is python', () => {
    named([
      ['python -m pytest', 'pytest'], ['python3 -m pip install -r r.txt', 'pip'], ['python3.12 -u -m http.server 8000', 'http.server'],
      ['python -Wignore -m unittest', 'unittest'], ['python -W ignore -X dev -mvenv .venv', 'venv'], ['pypy3 -m pytest', 'pytest'],
      ['python x.py', 'python'], ['python -c "print(1)"', 'python'], ['python -', 'python'], ['python', 'python'], ['python -m', 'python'], ['python -- -m x', 'python'],
    ]);
  });

  it('more wrappers: command, builtin, stdbuf, setsid, ionice, taskset, xvfb-run, cross-env, busybox', () => {
    named([
      ['command -p ls', 'ls'], ['builtin cd x && make', 'make'], ['stdbuf -oL python x.py', 'python'], ['setsid -f ./server', 'server'],
      ['ionice -c3 -n 7 make', 'make'], ['taskset -c 0-3 make -j4', 'make'], ['xvfb-run -a -s "-screen 0 1x1x24" npm test', 'npm'],
      ['cross-env NODE_ENV=test jest', 'jest'], ['busybox sh -c "ls"', 'ls'], ['caffeinate -i make', 'make'], ['chronic unbuffer make', 'make'],
    ]);
  });

  it('env, sudo and cross-env read NAME=value themselves, quoted or not; elsewhere a quoted one is a word', () => {
    named([['sudo env "PATH=$PATH" make', 'make'], ["env 'A=1' B=\"2\" node x", 'node'], ['sudo "FOO=1" make', 'make'], ['nohup "A=1" x', 'A=1']]);
  });
});

describe('commandProgram: the reading of words (decision 0154)', () => {
  it('$\'…\' is decoded, $"…" is quoted, process substitutions and arithmetic are one word', () => {
    named([
      ["$'\\x6c\\x73' -la", 'ls'], ["$'\\155ake'", 'make'], ["$'\\u006eode' x", 'node'], ['$"make" all', 'make'], ["$'a\\'b'", "a'b"],
      ['diff <(ls a) <(ls b)', 'diff'], ['cat < <(ls)', 'cat'], ['(( x = 1 << 2 ))\nls', 'ls'], ['"$(echo ")")"/run.sh', 'run.sh'],
    ]);
  });

  it('a name never reads as a placeholder and is at most 200 characters', () => {
    named([['"(empty)" x', "'(empty)'"], ["'(no command)'", "'(no command)'"], ['"(no call)"', "'(no call)'"], ['"(x"', '(x'], ['/', '/']]);
    assert.equal(commandProgram(`"${'x'.repeat(300)}"`), `${'x'.repeat(199)}…`);
    assert.equal(commandProgram(`"${'x'.repeat(198)}😀y"`), `${'x'.repeat(198)}…`);
    assert.equal(commandProgram(`"${'x'.repeat(200)}"`), 'x'.repeat(200));
  });

  it('a table\'s own names only: constructor, toString and __proto__ are programs', () => {
    named([['constructor x', 'constructor'], ['toString', 'toString'], ['__proto__ x', '__proto__'], ['conda constructor', 'conda'], ['uv __proto__ x', 'uv']]);
  });
});

describe('programOfCommand', () => {
  it('a command that is not text is NO_COMMAND; text is its program', () => {
    for (const v of [null, undefined, 42, true, ['ls'], { a: 1 }]) assert.equal(programOfCommand(v), NO_COMMAND, String(v));
    assert.equal(programOfCommand('ls -la'), 'ls');
    assert.equal(programOfCommand(''), EMPTY_COMMAND);
  });
});
