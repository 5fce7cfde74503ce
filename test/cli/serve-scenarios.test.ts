// `hermetic serve` with scenarios and the agent's defaults: --scenarios, --clock real|virtual, --start-delay, --on-stop,
// --steer; refusals are one line with a code and exit 2; a real server plays examples/scenarios.yaml on its clock.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { EMULATOR_OPTION_NAMES, parseEmulatorOptions } from '../../src/emulator/options.js';
import { ScenarioSet } from '../../src/emulator/scenarios/index.js';
import { serveOptions, type ServeSettings } from '../../src/emulator/serve/cli.js';
import { HermeticError } from '../../src/shared/errors.js';
import { runBinAsync, spawnServe } from '../support/process.js';

const REPO = new URL('../../', import.meta.url).pathname;
let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hermetic-serve-scenarios-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const settings = (args: string[]) => serveOptions(args, {}, REPO) as ServeSettings;

it('--clock virtual (or --frozen) freezes the clock, --clock real lets it run; the agent flags become options.agent', () => {
  assert.equal(settings([]).frozen, false);
  assert.equal(settings(['--clock', 'virtual']).frozen, true);
  assert.equal(settings(['--frozen']).frozen, true);
  assert.equal(settings(['--frozen', '--clock', 'virtual']).frozen, true);
  assert.equal(settings(['--clock', 'real']).frozen, false);
  assert.equal(settings([]).agent, undefined, 'no flag: the emulator defaults (start at once, stop honoured, steer accepted)');
  assert.deepEqual(settings(['--start-delay', '1.5', '--on-stop', 'hold', '--steer', 'decline']).agent, { startDelay: 1.5, acknowledgeStop: false, acceptSteer: false });
  assert.deepEqual(settings(['--on-stop', 'cancel', '--steer', 'accept']).agent, { acknowledgeStop: true, acceptSteer: true });
  const scripted = settings(['--scenarios', 'examples/scenarios.yaml']).scenarios;
  assert.ok(scripted instanceof ScenarioSet);
  assert.equal(scripted.scenarios.length, 7);
});

it("a config file's scenarios (a path beside it, or written inline) and agent defaults; flags win over the file", () => {
  mkdirSync(join(dir, 'conf'), { recursive: true });
  writeFileSync(join(dir, 'conf', 's.yaml'), 'scenarios:\n  - name: from-file\n    steps: []\n');
  writeFileSync(join(dir, 'conf', 'path.yaml'), 'scenarios: s.yaml\nagent: { startDelay: 3, acceptSteer: true }\n');
  writeFileSync(join(dir, 'conf', 'inline.yaml'), 'scenarios:\n  default: { complete_after: 1 }\n  scenarios:\n    - { name: inline, steps: [] }\n');
  const names = (args: string[]) => {
    const settings = serveOptions(args, {}, dir) as ServeSettings;
    const options = Object.fromEntries(Object.entries(settings).filter(([k]) => (EMULATOR_OPTION_NAMES as readonly string[]).includes(k)));
    return { scenarios: parseEmulatorOptions(options).scenarios!.scenarios.map((x) => x.name), agent: settings.agent };
  };
  assert.deepEqual(names(['--config', 'conf/path.yaml', '--steer', 'decline']), { scenarios: ['from-file'], agent: { startDelay: 3, acceptSteer: false } });
  assert.deepEqual(names(['--config', 'conf/inline.yaml']).scenarios, ['inline']);
  assert.deepEqual(names(['--config', 'conf/inline.yaml', '--scenarios', 'conf/s.yaml']).scenarios, ['from-file'], 'the flag wins');
});

it('a wrong clock or agent flag is refused with HERMETIC_CLI_USAGE and one sentence', () => {
  for (const [args, message] of [
    [['--clock', 'later'], '--clock must be real or virtual; got "later".'],
    [['--frozen', '--clock', 'real'], '--frozen and --clock real disagree (--frozen is --clock virtual).'],
    [['--start-delay', '-1'], '--start-delay must be a number of seconds, 0 or more; got "-1".'],
    [['--start-delay', 'soon'], '--start-delay must be a number of seconds, 0 or more; got "soon".'],
    [['--on-stop', 'ignore'], '--on-stop must be cancel or hold; got "ignore".'],
    [['--steer', 'yes'], '--steer must be accept or decline; got "yes".'],
    [['--scenario', 'x.yaml'], 'Unknown option "--scenario"; did you mean "--scenarios"?'],
  ] as const) {
    assert.throws(() => serveOptions([...args], {}, REPO), (e: HermeticError) => {
      assert.deepEqual([e.code, e.message], ['HERMETIC_CLI_USAGE', message], args.join(' '));
      return true;
    });
  }
});

it('a scenarios file that is missing or malformed stops serve with one line and exit 2', async () => {
  writeFileSync(join(dir, 'bad.yaml'), 'scenarios:\n  - name: s\n    match: { input: { regex: "(" } }\n    steps: []\n');
  writeFileSync(join(dir, 'typo.json'), '{"scenarios": [{"steps": [{"at": 1, "fial": {}}]}]}');
  const help = 'Run "hermetic serve --help" for the options.\n';
  const cases: Array<[string, string]> = [
    ['missing.yaml', 'The scenarios file missing.yaml does not exist.'],
    ['bad.yaml', 'bad.yaml, scenario "s".match.input.regex: "(" is not a valid regular expression (Invalid regular expression: /(/: Unterminated group).'],
    ['typo.json', 'typo.json, scenarios[0].steps[0]: Unknown field "fial" for a step. Did you mean "fail"?'],
  ];
  await Promise.all(cases.map(async ([file, line]) => {
    const r = await runBinAsync(['serve', '--port', '0', '--scenarios', file], { cwd: dir });
    assert.deepEqual({ status: r.status, stdout: r.stdout, stderr: r.stderr }, { status: 2, stdout: '', stderr: `hermetic: ${line} [HERMETIC_SCENARIO_INVALID]\n${help}` }, file);
  }));
});

it('a real server plays examples/scenarios.yaml on its virtual clock, moved by POST /__admin/clock', async () => {
  const server = await spawnServe(['--port', '0', '--scenarios', join(REPO, 'examples/scenarios.yaml'), '--clock', 'virtual', '--time', '1789169800', '--seed', 'cli']);
  try {
    assert.match(server.output(), /clock: virtual: stands at 2026-09-11T23:36:40\.000Z until POST \/__admin\/clock moves it/);
    assert.match(server.output(), /agent: 7 scenarios; runs nothing matches: the default scenario/);
    const post = (path: string, body: string) => fetch(server.url + path, { method: 'POST', body }).then((r) => r.json() as Promise<any>);
    const runId = (await post('/v1/runs', '{"input": "ls -la please"}')).run_id;
    assert.equal((await post('/__admin/clock', '{"advance": 1}')).now, 1789169801);
    const status = () => fetch(`${server.url}/v1/runs/${runId}`).then((r) => r.json() as Promise<any>);
    assert.deepEqual([(await status()).status, (await status()).last_event], ['running', 'tool.started']);
    await post('/__admin/clock', '{"advance": 1.5}');
    assert.deepEqual([(await status()).status, (await status()).output], ['completed', 'Three files: a, b and c.']);
  } finally {
    server.child.kill('SIGINT');
    await server.exited;
  }
});
