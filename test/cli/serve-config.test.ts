// `hermetic serve` security and written-down configuration: the admin key on a real server, the refusal to open the
// control plane beyond loopback, --profile, and --config files (JSON and YAML, the option schema's did-you-mean
// errors with the file and key path, precedence flags > env > file > defaults, paths relative to the file).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, it } from 'node:test';
import { parse } from 'yaml';
import { CODE_ONLY_OPTIONS, loadConfig, SERVER_SCHEMA } from '../../src/emulator/serve/config.js';
import { serveOptions, type ServeSettings } from '../../src/emulator/serve/cli.js';
import { isLoopbackHost } from '../../src/shared/loopback.js';
import { EMULATOR_OPTION_NAMES, parseEmulatorOptions } from '../../src/emulator/options.js';
import { HermeticError } from '../../src/shared/errors.js';
import { runBinAsync, spawnServe } from '../support/process.js';

const KEY = 'admin-key-0123456789abcdef';
const HELP_LINE = 'Run "hermetic serve --help" for the options.\n';
const INSECURE = (host: string) =>
  `Refusing to listen on ${host} without an admin key: anyone who can reach it could drive runs and change the gateway through /__admin. Give --admin-key K (or HERMETIC_ADMIN_KEY), or --insecure-admin to serve the control plane open.`;

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hermetic-serve-config-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const path = join(dir, name);
  mkdirSync(resolve(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

function options(argv: string[], env: NodeJS.ProcessEnv = {}): ServeSettings {
  const o = serveOptions(argv, env, dir);
  assert.ok(o !== 'help');
  return o;
}

function refused(argv: string[], code: string, message: string, env: NodeJS.ProcessEnv = {}): void {
  assert.throws(() => serveOptions(argv, env, dir), (e: HermeticError) => {
    assert.deepEqual([e.code, e.message], [code, message], argv.join(' '));
    return true;
  });
}

async function expectLines(args: string[], line: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const r = await runBinAsync(args, { cwd: dir, env });
  assert.deepEqual({ status: r.status, stdout: r.stdout, stderr: r.stderr }, { status: 2, stdout: '', stderr: `hermetic: ${line}\n${HELP_LINE}` }, args.join(' '));
}

it('a real server with --admin-key (or HERMETIC_ADMIN_KEY) refuses control requests without it, in every namespace; health stays open; the banner never shows the key', async () => {
  const [byFlag, byEnv] = await Promise.all([
    spawnServe(['--port', '0', '--admin-key', KEY]),
    spawnServe(['--port', '0'], { HERMETIC_ADMIN_KEY: KEY }),
  ]);
  try {
    for (const server of [byFlag, byEnv]) {
      assert.match(server.output(), /admin: admin key required on \/__admin/);
      assert.doesNotMatch(server.output(), new RegExp(KEY));
      for (const path of ['/__admin/clock', '/ns/w1/__admin/clock', '/__admin/runs', '/ns/w1/__admin/namespaces']) {
        const denied = await fetch(server.url + path);
        assert.equal(denied.status, 401, path);
        assert.equal(((await denied.json()) as { error: { code: string } }).error.code, 'HERMETIC_ADMIN_UNAUTHORIZED');
        assert.equal((await fetch(server.url + path, { headers: { 'x-hermetic-admin-key': KEY } })).status, 200, path);
        assert.equal((await fetch(server.url + path, { headers: { authorization: `Bearer ${KEY}` } })).status, 200, path);
      }
      const health = await fetch(`${server.url}/ns/w2/__admin/health`);
      assert.equal(health.status, 200);
      assert.deepEqual(
        [((await health.json()) as { namespace: string; admin_key_required: boolean }).namespace],
        ['w2'],
      );
      // Hermes's own routes do not ask for the admin key.
      assert.equal((await fetch(`${server.url}/v1/runs`, { method: 'POST', body: '{"input":"hi"}' })).status, 202);
    }
  } finally {
    byFlag.child.kill('SIGTERM');
    byEnv.child.kill('SIGTERM');
    assert.deepEqual([await byFlag.exited, await byEnv.exited], [0, 0]);
  }
});

it('beyond loopback without an admin key is refused (exit 2, one line) unless --insecure-admin; loopback never is', async () => {
  assert.deepEqual(
    ['127.0.0.1', '127.3.2.1', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1', '0.0.0.0', '::', '192.168.1.20', 'fe80::1', 'hermes.example', '127.1'].map(isLoopbackHost),
    [true, true, true, true, true, true, false, false, false, false, false, false],
  );
  refused(['--host', '0.0.0.0'], 'HERMETIC_SERVE_INSECURE', INSECURE('0.0.0.0'));
  refused([], 'HERMETIC_SERVE_INSECURE', INSECURE('::'), { API_SERVER_HOST: '::' });
  const config = write('open.yaml', 'host: 10.1.2.3\n');
  refused(['--config', config], 'HERMETIC_SERVE_INSECURE', INSECURE('10.1.2.3'));
  // Any of these makes it a deliberate choice.
  assert.equal(options(['--host', '0.0.0.0', '--admin-key', KEY]).adminKey, KEY);
  assert.equal(options(['--host', '0.0.0.0'], { HERMETIC_ADMIN_KEY: KEY }).adminKey, KEY);
  assert.equal(options(['--host', '0.0.0.0', '--insecure-admin']).insecureAdmin, true);
  assert.equal(options(['--config', write('open-ok.yaml', 'host: 0.0.0.0\ninsecureAdmin: true\n')]).insecureAdmin, true);
  assert.equal(options(['--config', write('keyed.yaml', `host: 0.0.0.0\nadminKey: ${KEY}\n`)]).adminKey, KEY);
  assert.equal(options(['--host', 'localhost']).host, 'localhost');

  await expectLines(['serve', '--port', '0', '--host', '0.0.0.0'], `${INSECURE('0.0.0.0')} [HERMETIC_SERVE_INSECURE]`);
  const open = await spawnServe(['--port', '0', '--host', '0.0.0.0', '--insecure-admin']);
  try {
    assert.match(open.output(), /admin: OPEN to anyone who can reach 0\.0\.0\.0 \(--insecure-admin\)/);
  } finally {
    open.child.kill('SIGTERM');
    assert.equal(await open.exited, 0);
  }
});

it('--profile NAME=KEY and --profile NAME (key from HERMETIC_PROFILE_<NAME>_KEY) serve Hermes profiles; mistakes are refused', async () => {
  const o = options(['--profile', 'alice=alice-key-0123456789', '--profile', 'bob', '--profile', 'carol'], { HERMETIC_PROFILE_BOB_KEY: 'bob-key-0123456789' });
  assert.deepEqual(o.profiles, { alice: { apiKey: 'alice-key-0123456789' }, bob: { apiKey: 'bob-key-0123456789' }, carol: { apiKey: null } });
  assert.equal(options(['--profile', 'my.team-1'], { HERMETIC_PROFILE_MY_TEAM_1_KEY: 'k' }).profiles?.['my.team-1']?.apiKey, 'k');
  assert.equal(options([]).profiles, undefined);
  for (const [argv, message] of [
    [['--profile', 'a/b=k'], '--profile needs NAME or NAME=KEY, NAME one path segment (no "/" or spaces); got "a/b=k".'],
    [['--profile', '=k'], '--profile needs NAME or NAME=KEY, NAME one path segment (no "/" or spaces); got "=k".'],
    [['--profile', 'alice='], '--profile alice= has an empty key; give --profile alice=KEY, or --profile alice to take it from HERMETIC_PROFILE_ALICE_KEY.'],
    [['--profile', 'alice=1', '--profile', 'alice=2'], '--profile alice is given more than once.'],
  ] as const) refused([...argv], 'HERMETIC_CLI_USAGE', message);

  const server = await spawnServe(['--port', '0', '--profile', 'alice=alice-key-0123456789', '--profile', 'carol']);
  try {
    assert.match(server.output(), /profiles: \/p\/alice\/ \(own API key\), \/p\/carol\/ \(no key: every request is 401\)/);
    assert.doesNotMatch(server.output(), /alice-key/);
    const submit = (path: string, key?: string) =>
      fetch(server.url + path, { method: 'POST', body: '{"input":"hi"}', headers: key ? { authorization: `Bearer ${key}` } : {} }).then((r) => r.status);
    assert.deepEqual(
      await Promise.all([submit('/p/alice/v1/runs', 'alice-key-0123456789'), submit('/p/alice/v1/runs'), submit('/p/carol/v1/runs', 'x'), submit('/v1/runs')]),
      [202, 401, 401, 202],
    );
  } finally {
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  }
});

const CONFIG = {
  port: 0,
  apiKey: 'file-api-key-0123456789',
  maxConcurrentRuns: 3,
  modelName: 'from-file',
  corsOrigins: ['http://a.test'],
  frozen: true,
  time: 1796000000,
  seed: 'file-seed',
  draining: true,
  runTable: 'plain',
  lockTimeout: 2,
  db: 'stores/runs.db',
  stateDb: 'stores/state.db',
  agent: { startDelay: 1.5, acknowledgeStop: false },
  profiles: { alice: { apiKey: 'alice-file-key' }, bob: {} },
};

it('a JSON and a YAML config file give the same options, checked by the option schema; relative paths are relative to the file', () => {
  const json = write('conf/json/hermetic.json', JSON.stringify(CONFIG));
  const yaml = write('conf/yaml/hermetic.yml', [
    '# the same settings, as YAML',
    'port: 0',
    'apiKey: file-api-key-0123456789',
    'maxConcurrentRuns: 3',
    'modelName: from-file',
    'corsOrigins: [http://a.test]',
    'frozen: true',
    'time: 1796000000',
    'seed: file-seed',
    'draining: true',
    'runTable: plain',
    'lockTimeout: 2',
    'db: stores/runs.db',
    'stateDb: stores/state.db',
    'agent: {startDelay: 1.5, acknowledgeStop: false}',
    'profiles:',
    '  alice: {apiKey: alice-file-key}',
    '  bob: {}',
    '',
  ].join('\n'));
  const fromJson = options(['--config', 'conf/json/hermetic.json']);
  const fromYaml = options(['--config', yaml]);
  const strip = ({ configPath: _c, storeLabels: _s, db: _d, stateDb: _t, ...rest }: ServeSettings) => rest;
  assert.deepEqual(strip(fromJson), strip(fromYaml));
  const { db: _db, stateDb: _stateDb, ...rest } = CONFIG;
  assert.deepEqual(strip(fromJson), {
    ...rest,
    host: '127.0.0.1',
    adminKey: null,
    profiles: { alice: { apiKey: 'alice-file-key' }, bob: { apiKey: null } },
    stateHome: null,
    insecureAdmin: false,
    quiet: false,
  } as unknown as ReturnType<typeof strip>);
  assert.deepEqual([fromJson.db, fromJson.stateDb, fromJson.configPath], [join(dir, 'conf/json/stores/runs.db'), join(dir, 'conf/json/stores/state.db'), json]);
  assert.deepEqual([fromYaml.db, fromYaml.stateDb], [join(dir, 'conf/yaml/stores/runs.db'), join(dir, 'conf/yaml/stores/state.db')]);
  // Absolute paths and :memory: are kept as written; flags stay relative to where the command runs.
  const abs = write('conf/abs.yaml', `db: ":memory:"\nstateDb: ${join(dir, 'x.db')}\n`);
  assert.deepEqual([options(['--config', abs]).db, options(['--config', abs]).stateDb], [':memory:', join(dir, 'x.db')]);
  assert.equal(options(['--config', json, '--db', 'here.db']).db, 'here.db');
  assert.equal(options(['--config', write('conf/home/h.yaml', 'stateHome: hermes\n')]).stateHome, join(dir, 'conf/home/hermes'));
  // An empty file (comments only) is no configuration.
  assert.equal(options(['--config', write('empty.yaml', '# nothing yet\n')]).port, 8642);
});

it('a scenarios file and a faults file named in a config file are read relative to it; their mistakes name the config key', () => {
  write('withfiles/agents/scenarios.yaml', 'default:\n  complete_after: 1\n  output: Done.\n');
  write('withfiles/faults.json', '[{"preset": "hermes_throttled"}]');
  const config = write('withfiles/hermetic.yaml', 'scenarios: agents/scenarios.yaml\nfaults: faults.json\n');
  const o = options(['--config', config]);
  assert.equal(o.scenarios, join(dir, 'withfiles/agents/scenarios.yaml'));
  assert.deepEqual(o.faults, [{ preset: 'hermes_throttled' }]);
  write('withfiles/missing-faults.yaml', 'faults: nowhere.json\n');
  refused(['--config', 'withfiles/missing-faults.yaml'], 'HERMETIC_FAULT_INVALID', 'In withfiles/missing-faults.yaml, faults: The fault file nowhere.json does not exist.');
  write('withfiles/missing-scenarios.yaml', 'scenarios: nowhere.yaml\n');
  assert.throws(() => serveOptions(['--config', 'withfiles/missing-scenarios.yaml'], {}, dir), (e: HermeticError) =>
    e.message.startsWith('In withfiles/missing-scenarios.yaml, scenarios: ') && e.message.includes(join(dir, 'withfiles/nowhere.yaml')));
});

it('precedence: flags, then environment variables, then the config file, then defaults', () => {
  const file = write('precedence.yaml', [
    'port: 1111', 'host: 127.0.0.5', 'apiKey: file-key', 'adminKey: file-admin', 'modelName: file-model',
    'corsOrigins: [http://file.test]', 'maxConcurrentRuns: 4', 'seed: file-seed',
    'profiles: {alice: {apiKey: file-alice}, bob: {apiKey: file-bob}}', '',
  ].join('\n'));
  const env = {
    API_SERVER_PORT: '2222', API_SERVER_HOST: '127.0.0.6', API_SERVER_KEY: 'env-key', HERMETIC_ADMIN_KEY: 'env-admin',
    API_SERVER_MODEL_NAME: 'env-model', API_SERVER_CORS_ORIGINS: 'http://env.test', HERMETIC_PROFILE_ALICE_KEY: 'env-alice',
  };
  const flags = ['--port', '3333', '--host', '127.0.0.7', '--api-key', 'flag-key', '--admin-key', 'flag-admin', '--model', 'flag-model',
    '--cors-origins', 'http://flag.test', '--max-concurrent-runs', '5', '--seed', 'flag-seed', '--profile', 'alice=flag-alice'];
  const pick = (o: ServeSettings) => [o.port, o.host, o.apiKey, o.adminKey, o.modelName, o.corsOrigins, o.maxConcurrentRuns, o.seed, o.profiles];
  assert.deepEqual(pick(options(['--config', file, ...flags], env)),
    [3333, '127.0.0.7', 'flag-key', 'flag-admin', 'flag-model', ['http://flag.test'], 5, 'flag-seed', { alice: { apiKey: 'flag-alice' }, bob: { apiKey: 'file-bob' } }]);
  assert.deepEqual(pick(options(['--config', file], env)),
    [2222, '127.0.0.6', 'env-key', 'env-admin', 'env-model', ['http://env.test'], 4, 'file-seed', { alice: { apiKey: 'env-alice' }, bob: { apiKey: 'file-bob' } }]);
  assert.deepEqual(pick(options(['--config', file])),
    [1111, '127.0.0.5', 'file-key', 'file-admin', 'file-model', ['http://file.test'], 4, 'file-seed', { alice: { apiKey: 'file-alice' }, bob: { apiKey: 'file-bob' } }]);
  assert.deepEqual(pick(options([])), [8642, '127.0.0.1', null, null, 'hermes-agent', [], 10, null, undefined]);
  // An empty variable is no value, as Hermes reads API_SERVER_KEY: the file's key stands.
  assert.equal(options(['--config', file], { API_SERVER_KEY: '', HERMETIC_ADMIN_KEY: '' }).adminKey, 'file-admin');
});

it('a typo in a config file gets the option schema\'s did-you-mean, with the file and the key path; bad values too', () => {
  const cases: Array<[string, string, string, string]> = [
    ['typo.yaml', 'maxConcurentRuns: 3\n', 'HERMETIC_OPTIONS_UNKNOWN', 'In typo.yaml, maxConcurentRuns: Unknown option "maxConcurentRuns". Did you mean "maxConcurrentRuns"?'],
    ['server-typo.yaml', 'prot: 8000\n', 'HERMETIC_OPTIONS_UNKNOWN', 'In server-typo.yaml, prot: Unknown option "prot". Did you mean "port"?'],
    ['nested.json', '{"agent": {"startDelya": 1}}', 'HERMETIC_OPTIONS_UNKNOWN', 'In nested.json, agent.startDelya: Unknown agent option "startDelya". Did you mean "startDelay"?'],
    ['value.yaml', 'maxConcurrentRuns: lots\n', 'HERMETIC_OPTIONS_INVALID', 'In value.yaml, maxConcurrentRuns: Option "maxConcurrentRuns" must be an integer; got "lots".'],
    ['profile.yaml', 'profiles:\n  alice:\n    apiKey: 5\n', 'HERMETIC_OPTIONS_INVALID', 'In profile.yaml, profiles.alice.apiKey: Option "apiKey" must be a string; got 5.'],
    ['profile-typo.yaml', 'profiles:\n  alice:\n    apikey: k\n', 'HERMETIC_OPTIONS_UNKNOWN', 'In profile-typo.yaml, profiles.alice.apikey: Unknown profile "alice" option "apikey". Did you mean "apiKey"?'],
    ['port.yaml', 'port: 70000\n', 'HERMETIC_OPTIONS_INVALID', 'In port.yaml, port: Option "port" must be a port number from 0 to 65535; got 70000.'],
    ['time.yaml', 'time: 1796000000000\n', 'HERMETIC_OPTIONS_INVALID', 'In time.yaml, time: Option "time" is 1796000000000, which looks like milliseconds since the epoch; Hermes times are seconds (divide by 1000).'],
    ['admin.yaml', 'adminKey: ""\n', 'HERMETIC_OPTIONS_INVALID', 'In admin.yaml: Option "adminKey" must not be empty; use null for an open control plane.'],
  ];
  for (const [name, text, code, message] of cases) {
    write(name, text);
    refused(['--config', name], code, message);
  }
});

it('a config file that cannot be read or is not a JSON/YAML mapping is HERMETIC_CONFIG_INVALID naming the file; through the bin, exit 2 and one line', async () => {
  mkdirSync(join(dir, 'a-folder.yaml'));
  const cases: Array<[string, string | null, string]> = [
    ['missing.yaml', null, `Config file missing.yaml does not exist (looked for ${join(dir, 'missing.yaml')}).`],
    ['a-folder.yaml', null, 'Config file a-folder.yaml is a folder, not a file.'],
    ['hermetic.toml', 'port = 1\n', 'Config file hermetic.toml must end in .json, .yaml or .yml (got ".toml").'],
    ['broken.yaml', 'port: 1\nport: 2\n', 'Config file broken.yaml is not valid YAML: Map keys must be unique at line 2, column 1.'],
    ['list.yaml', '- port: 1\n', 'Config file list.yaml must be a mapping of option names to values (like {"port": 8642}); its top level is a list.'],
    ['scalar.json', '8642', 'Config file scalar.json must be a mapping of option names to values (like {"port": 8642}); its top level is a number.'],
    ['cycle.yaml', 'faults:\n  - &r {operation: get, action: respond, status: 503, body: {x: *r}}\n', 'Config file cycle.yaml is not valid YAML: the alias *r names a node that holds it (a value cannot contain itself) at line 2, column 65.'],
    ['code.yaml', 'onInternalError: null\n', 'Config file code.yaml sets "onInternalError", which is a function: only code can give it (createEmulator({ onInternalError })).'],
  ];
  for (const [name, text, message] of cases) {
    if (text !== null) write(name, text);
    refused(['--config', name], 'HERMETIC_CONFIG_INVALID', message);
  }
  // V8 words JSON.parse's reason; the position is turned into a line and column.
  write('broken.json', '{\n  "port": 1,\n}\n');
  assert.throws(() => serveOptions(['--config', 'broken.json'], {}, dir), (e: HermeticError) =>
    e.code === 'HERMETIC_CONFIG_INVALID' && /^Config file broken\.json is not valid JSON: [^\n]+ at line 3, column 1\.$/.test(e.message));
  await Promise.all([
    expectLines(['serve', '--config', 'missing.yaml'], `Config file missing.yaml does not exist (looked for ${join(dir, 'missing.yaml')}). [HERMETIC_CONFIG_INVALID]`),
    expectLines(['serve', '--config', 'typo.yaml'], 'In typo.yaml, maxConcurentRuns: Unknown option "maxConcurentRuns". Did you mean "maxConcurrentRuns"? [HERMETIC_OPTIONS_UNKNOWN]'),
  ]);
});

it('a server started from a config file uses it: port, keys, profiles, frozen time; stores relative to the file', async () => {
  write('served/stores/.keep', '');
  const config = write('served/hermetic.yaml', [
    'port: 0', `adminKey: ${KEY}`, 'frozen: true', 'time: 1796000000', 'db: stores/runs.db',
    'profiles: {alice: {apiKey: alice-key-0123456789}}', 'maxConcurrentRuns: 1', '',
  ].join('\n'));
  const server = await spawnServe(['--config', config]);
  try {
    assert.match(server.output(), new RegExp(`store: ${join(dir, 'served/stores/runs.db').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(server.output(), /config: .*served\/hermetic\.yaml/);
    const clock = await fetch(`${server.url}/__admin/clock`, { headers: { 'x-hermetic-admin-key': KEY } });
    assert.deepEqual(await clock.json(), { now: 1796000000, frozen: true });
    assert.equal((await fetch(`${server.url}/__admin/clock`)).status, 401);
    const gateway = await fetch(`${server.url}/__admin/gateway`, { headers: { 'x-hermetic-admin-key': KEY } });
    assert.equal(((await gateway.json()) as { max_concurrent_runs: number }).max_concurrent_runs, 1);
    const submit = await fetch(`${server.url}/p/alice/v1/runs`, { method: 'POST', body: '{"input":"hi"}', headers: { authorization: 'Bearer alice-key-0123456789' } });
    assert.equal(submit.status, 202);
  } finally {
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  }
  assert.ok(readFileSync(join(dir, 'served/stores/runs.db')).length > 0);
  // A store path from the file is named as the file's key when it cannot be opened.
  const bad = write('served/bad.yaml', 'db: nowhere/runs.db\n');
  const r = await runBinAsync(['serve', '--config', bad, '--port', '0'], { cwd: dir });
  assert.equal(r.status, 1);
  assert.equal(
    r.stderr,
    `hermetic: Cannot open the db (from ${bad}) store at ${join(dir, 'served/nowhere/runs.db')}: the folder ${join(dir, 'served/nowhere')} does not exist. [HERMETIC_STORE_OPEN]\n`,
  );
});

it('examples/hermetic.yaml loads and shows every key a config file can hold', () => {
  const example = resolve('examples/hermetic.yaml');
  const config = loadConfig(example);
  const written = Object.keys(parse(readFileSync(example, 'utf8')) as object).sort();
  const every = [...Object.keys(SERVER_SCHEMA), ...EMULATOR_OPTION_NAMES.filter((k) => !(k in CODE_ONLY_OPTIONS))].sort();
  assert.deepEqual(written, every, 'add the new option to examples/hermetic.yaml (or, if only code can give it, to CODE_ONLY_OPTIONS)');
  assert.deepEqual(config.server, { port: 8642, host: '127.0.0.1', insecureAdmin: false, quiet: false });
  // Every value it shows is the default: the example documents, it does not change (its profile is a comment).
  assert.deepEqual(parseEmulatorOptions(config.emulator), parseEmulatorOptions({}));
});
