// The Python example (examples/python/): a client of Hermes's /v1/runs tested with the standard library against a real
// `hermetic serve` it starts itself, one namespace per test, the fake agent played through the control routes. Run
// as a reader would run it (python3 -m unittest), with HERMETIC_BIN naming the bin the other CLI tests run.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { BIN } from '../support/process.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/python/', import.meta.url));

it('examples/python: its five tests pass against the hermetic serve it starts', async () => {
  const child = spawn('python3', ['-B', '-m', 'unittest', '-v', 'test_hermes_client'], {
    cwd: EXAMPLE,
    env: { ...process.env, HERMETIC_BIN: `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`, PYTHONDONTWRITEBYTECODE: '1', PYTHONDEVMODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  const hang = setTimeout(() => child.kill('SIGKILL'), 120_000); // only a hang; a slow machine is not a failure
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(hang);
  assert.equal(code, 0, output);
  assert.match(output, /\nRan 5 tests in [\d.]+s\n\nOK\n/, output);
  // Python's development mode shows what a test run leaves unclosed (the server's pipe was, until decision 0120).
  assert.doesNotMatch(output, /ResourceWarning/, output);
  for (const name of ['returns_the_agents_answer', 'a_lost_answer_is_retried', 'answers_an_approval', 'refusals_are_hermess_own', 'namespaces_keep_tests_apart']) {
    assert.match(output, new RegExp(`test_${name}\\w* \\(.*\\) \\.\\.\\. ok`), name);
  }
});
