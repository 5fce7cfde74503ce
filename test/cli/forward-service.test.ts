// The services in examples/ that keep `hermetic forward` running (README, "Keeping forward running"), each run as its
// manager runs it — the user's HOME, no HERMES_HOME or HERMETIC_HOME, `/` as the working folder, SIGTERM to stop — and
// checked to forward the user's ~/.hermes store into ~/.hermetic and stop with exit 0:
// - the systemd user service, which systemd-analyze accepts where it is installed;
// - the launchd user agent (macOS), read by a real plist parser (Python's plistlib; plutil too where there is one),
//   its keys and their types the ones launchd knows, its ProgramArguments run with launchd's environment and its
//   log file as stdout and stderr. Nothing here runs launchd itself.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { generate } from '../../src/state-db/generate/index.js';
import { BIN, spawnBin } from '../support/process.js';
import { DEADLINE_MS, waitFor } from '../support/wait.js';

const UNIT = new URL('../../examples/systemd/hermetic-forward.service', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'hermetic-service-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The unit's settings by section, each key's values in order (comments and blank lines left out). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1]!, current);
      continue;
    }
    const eq = line.indexOf('=');
    assert.ok(current && eq > 0, `a setting inside a section: ${line}`);
    const key = line.slice(0, eq);
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1)]);
  }
  return sections;
}

const unitText = readFileSync(UNIT, 'utf8');
const unit = parseUnit(unitText);
const service = unit.get('Service')!;
const [exec, ...args] = service.get('ExecStart')![0]!.split(/\s+/);

test('the unit is a user service that runs hermetic forward, restarts it on failure and starts at login', () => {
  assert.deepEqual([...unit.keys()], ['Unit', 'Service', 'Install']);
  assert.equal(exec, '/usr/local/bin/hermetic', 'npm install -g\'s place with a system-wide Node');
  assert.deepEqual(args.slice(0, 1), ['forward']);
  assert.deepEqual([service.get('Type'), service.get('Restart'), service.get('Environment')], [['exec'], ['on-failure'], undefined]);
  // SIGTERM (systemd's default KillSignal) is how it stops cleanly.
  assert.equal(service.get('KillSignal'), undefined);
  assert.deepEqual(unit.get('Install')!.get('WantedBy'), ['default.target']);
});

test('systemd-analyze verify accepts it (with ExecStart pointing at this build)', { skip: spawnSync('systemd-analyze', ['--version']).error ? 'systemd-analyze is not installed' : false }, () => {
  const shim = join(dir, 'hermetic');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(shim, 0o755);
  const copy = join(dir, 'hermetic-forward.service');
  writeFileSync(copy, unitText.replace(`ExecStart=${exec} `, `ExecStart=${shim} `));
  const r = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
  assert.deepEqual([r.status, r.stderr], [0, ''], r.stderr);
});

/** A user's home with a generated Hermes store in ~/.hermes, as a service finds it. */
function userHome(name: string): { home: string; sessions: number } {
  const home = join(dir, name);
  mkdirSync(join(home, '.hermes'), { recursive: true });
  const made = generate({ out: join(home, '.hermes', 'state.db'), sessions: 4, messages: 30, seed: 'service', journal: 'wal' });
  return { home, sessions: made.sessions };
}

/** The first tick's line: every session of the store written. */
const TICK = /^forward: default: \d+ sessions? written.*$/m;

/** What a service's forward stopped by SIGTERM (with exit 0) leaves: every session in ~/.hermetic, nothing beside the store. */
function assertForwarded(home: string, sessions: number, output: string): void {
  assert.match(TICK.exec(output)![0], new RegExp(`^forward: default: ${sessions} sessions written \\(`));
  assert.match(output, /\nforward: stopped\n$/);
  const db = new Database(join(home, '.hermetic', 'hermetic.db'), { readonly: true });
  try {
    assert.equal(db.prepare('SELECT COUNT(*) FROM sessions').pluck().get(), sessions);
  } finally {
    db.close();
  }
  assert.ok(!existsSync(join(home, '.hermes', 'hermetic.db')), 'nothing written beside the store');
}

test('its ExecStart forwards ~/.hermes into ~/.hermetic and stops on SIGTERM with exit 0', async () => {
  const { home, sessions } = userHome('user');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  for (const name of ['HERMES_HOME', 'HERMETIC_HOME', 'HERMETIC_TZ']) delete env[name];
  const fwd = spawnBin(args, { cwd: '/', env });
  try {
    const seen = await Promise.race([fwd.until((out) => TICK.test(out)), new Promise<false>((r) => setTimeout(r, DEADLINE_MS, false).unref())]);
    assert.ok(seen, fwd.output());
    fwd.child.kill('SIGTERM');
    assert.equal(await fwd.exited, 0, fwd.output());
    assertForwarded(home, sessions, fwd.stderr());
  } finally {
    fwd.child.kill('SIGKILL');
  }
});

// The launchd user agent.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = join(ROOT, 'README.md');
const plistPath = join(ROOT, 'examples', 'launchd', 'hermetic.forward.plist');

/** A plist value with its type as plistlib read it (launchd cares: a `<string>30</string>` is not an integer). */
type Typed =
  | ['string', string] | ['integer', number] | ['real', number] | ['bool', boolean] | ['date', string] | ['data', string]
  | ['array', Typed[]] | ['dict', Record<string, Typed>];

// Python's plistlib (the XML format only: a binary or JSON file is refused), each value tagged with its type, a key
// given twice in one dict refused (plistlib itself keeps the last).
const READ_PLIST = `
import json, plistlib, sys
class Once(dict):
    def __setitem__(self, key, value):
        if key in self: raise ValueError('the key ' + key + ' is given twice')
        super().__setitem__(key, value)
def typed(v):
    if isinstance(v, bool): return ['bool', v]
    if isinstance(v, int): return ['integer', v]
    if isinstance(v, float): return ['real', v]
    if isinstance(v, str): return ['string', v]
    if isinstance(v, bytes): return ['data', v.hex()]
    if isinstance(v, list): return ['array', [typed(x) for x in v]]
    if isinstance(v, dict): return ['dict', {k: typed(x) for k, x in v.items()}]
    return ['date', v.isoformat()]
with open(sys.argv[1], 'rb') as f:
    print(json.dumps(typed(plistlib.load(f, fmt=plistlib.FMT_XML, dict_type=Once))))
`;

function readPlist(path: string): Typed {
  const r = spawnSync('python3', ['-c', READ_PLIST, path], { encoding: 'utf8' });
  assert.equal(r.status, 0, `python3's plistlib could not read ${path}: ${r.error?.message ?? r.stderr}`);
  return JSON.parse(r.stdout) as Typed;
}

/** The plist as plain values (types already checked). */
function plain(v: Typed): unknown {
  if (v[0] === 'array') return v[1].map(plain);
  if (v[0] === 'dict') return Object.fromEntries(Object.entries(v[1]).map(([k, x]) => [k, plain(x)]));
  return v[1];
}

// Every key launchd.plist(5) documents for a job, with the types it takes (one of them). Keys of the KeepAlive dict
// likewise. A key not here is one launchd ignores (a typo), a value of another type one it refuses or misreads.
const LAUNCHD_KEYS: Record<string, readonly string[]> = {
  Label: ['string'], Disabled: ['bool'], UserName: ['string'], GroupName: ['string'], inetdCompatibility: ['dict'],
  LimitLoadToHosts: ['array'], LimitLoadFromHosts: ['array'], LimitLoadToSessionType: ['string', 'array'],
  LimitLoadToHardware: ['dict'], LimitLoadFromHardware: ['dict'], Program: ['string'], ProgramArguments: ['array'],
  EnableGlobbing: ['bool'], EnableTransactions: ['bool'], EnablePressuredExit: ['bool'], OnDemand: ['bool'],
  ServiceIPC: ['bool'], KeepAlive: ['bool', 'dict'], RunAtLoad: ['bool'], RootDirectory: ['string'],
  WorkingDirectory: ['string'], EnvironmentVariables: ['dict'], Umask: ['integer', 'string'], TimeOut: ['integer'],
  ExitTimeOut: ['integer'], ThrottleInterval: ['integer'], InitGroups: ['bool'], WatchPaths: ['array'],
  QueueDirectories: ['array'], StartOnMount: ['bool'], StartInterval: ['integer'], StartCalendarInterval: ['dict', 'array'],
  StandardInPath: ['string'], StandardOutPath: ['string'], StandardErrorPath: ['string'], Debug: ['bool'],
  WaitForDebugger: ['bool'], SoftResourceLimits: ['dict'], HardResourceLimits: ['dict'], Nice: ['integer'],
  ProcessType: ['string'], AbandonProcessGroup: ['bool'], LowPriorityIO: ['bool'], LowPriorityBackgroundIO: ['bool'],
  MaterializeDatalessFiles: ['bool'], LaunchOnlyOnce: ['bool'], MachServices: ['dict'], Sockets: ['dict'],
  LaunchEvents: ['dict'], SessionCreate: ['bool'], LegacyTimers: ['bool'], AssociatedBundleIdentifiers: ['string', 'array'],
};
const KEEP_ALIVE_KEYS: Record<string, readonly string[]> = {
  SuccessfulExit: ['bool'], NetworkState: ['bool'], PathState: ['dict'], OtherJobEnabled: ['dict'], Crashed: ['bool'],
};
const PROCESS_TYPES = ['Background', 'Standard', 'Adaptive', 'Interactive'];
/** The PATH launchd gives a job that sets none (user agents included): no Homebrew, no nvm. */
const LAUNCHD_PATH = '/usr/bin:/bin:/usr/sbin:/sbin';
/** The placeholders the README's sed line fills in (`command -v node`, `command -v hermetic`, $HOME). */
const NODE = '/opt/homebrew/bin/node';
const HERMETIC = '/opt/homebrew/bin/hermetic';
const HOME = '/Users/YOU';

function assertKeys(dict: Record<string, Typed>, known: Record<string, readonly string[]>, where: string): void {
  for (const [key, [type]] of Object.entries(dict)) {
    assert.ok(Object.hasOwn(known, key), `${where}: launchd knows no key ${key}`);
    assert.ok(known[key]!.includes(type), `${where}: ${key} is a ${type}; launchd takes ${known[key]!.join(' or ')}`);
  }
}

interface Job {
  Label: string; ProgramArguments: string[]; EnvironmentVariables?: Record<string, string>; KeepAlive: unknown;
  StandardOutPath: string; StandardErrorPath: string; [key: string]: unknown;
}

/** The example agent, read once (in the first test that needs it: a file plistlib refuses fails those tests only). */
let example: { typed: Record<string, Typed>; job: Job } | undefined;
function agent(): { typed: Record<string, Typed>; job: Job } {
  if (example) return example;
  const typed = readPlist(plistPath);
  assert.equal(typed[0], 'dict', 'the plist is a dict');
  return (example = { typed: typed[1] as Record<string, Typed>, job: plain(typed) as Job });
}

test('the agent is a valid plist of keys launchd knows, with the types it takes', () => {
  const { typed: top, job } = agent();
  assertKeys(top, LAUNCHD_KEYS, 'the job');
  if (top.KeepAlive?.[0] === 'dict') assertKeys(top.KeepAlive[1], KEEP_ALIVE_KEYS, 'KeepAlive');
  for (const [name, v] of Object.entries(top)) {
    if (name === 'ProgramArguments' || name === 'WatchPaths' || name === 'QueueDirectories') {
      assert.ok((v[1] as Typed[]).every(([t]) => t === 'string'), `${name}: an array of strings`);
    }
    if (name === 'EnvironmentVariables') assert.ok(Object.values(v[1] as Record<string, Typed>).every(([t]) => t === 'string'), `${name}: a dict of strings`);
  }
  if (job.ProcessType !== undefined) assert.ok(PROCESS_TYPES.includes(job.ProcessType as string), `ProcessType ${String(job.ProcessType)}`);
  // launchd's convention: the file is named after its Label.
  assert.equal(`${job.Label}.plist`, basename(plistPath));
});

test('plutil accepts it', { skip: spawnSync('plutil', ['-help']).error ? 'plutil is not installed (macOS has it)' : false }, () => {
  const r = spawnSync('plutil', ['-lint', plistPath], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('the agent runs hermetic forward by absolute paths, starts at login, restarts only on failure, runs in the background', () => {
  const { job } = agent();
  // Node first: launchd's PATH has no Homebrew or nvm node for the bin's `#!/usr/bin/env node` to find.
  assert.deepEqual(job.ProgramArguments, [NODE, HERMETIC, 'forward', '--interval', '10s']);
  assert.deepEqual([job.RunAtLoad, job.KeepAlive, job.ProcessType], [true, { SuccessfulExit: false }, 'Background']);
  assert.ok((job.ThrottleInterval as number) >= 10, 'restarts no more often than launchd\'s own 10 s');
  // launchd expands no ~ and no $VAR: every path is written out, the home as the placeholder the README fills in.
  const strings = JSON.stringify(job);
  assert.ok(!/[~$]/.test(strings), 'no ~ or $ in any value');
  for (const p of [job.StandardOutPath, job.StandardErrorPath]) assert.ok(p.startsWith(`${HOME}/Library/Logs/`), p);
  // The stop is SIGTERM, launchd's own (SIGKILL after ExitTimeOut, 20 s by default): the next test times nothing, but
  // forward stops after its batch; no HERMES_HOME or HERMETIC_HOME set (only as a comment).
  assert.deepEqual([job.ExitTimeOut, job.EnvironmentVariables], [undefined, undefined]);
});

test('installed by the README\'s sed line, its ProgramArguments run as launchd runs them forward ~/.hermes into ~/.hermetic, log to the file and stop on SIGTERM with exit 0', async () => {
  const { home, sessions } = userHome('mac-user');
  for (const folder of ['Logs', 'LaunchAgents']) mkdirSync(join(home, 'Library', folder), { recursive: true });
  // The README's line, run as written (from the repository's root) in a shell whose `node` is this node and whose
  // `hermetic` is this build's bin: what it fills in are the only paths that differ from the example.
  const bin = join(dir, 'mac-bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync(BIN, join(bin, 'hermetic'));
  const line = /^sed -e [^\n]*(?:\\\n[^\n]*)*> ~\/Library\/LaunchAgents\/hermetic\.forward\.plist$/m.exec(readFileSync(README, 'utf8'));
  assert.ok(line, 'the README says how to fill in the paths');
  const sed = spawnSync('sh', ['-c', line[0]], { cwd: ROOT, env: { HOME: home, PATH: `${bin}:${LAUNCHD_PATH}` }, encoding: 'utf8' });
  assert.deepEqual([sed.status, sed.stderr], [0, '']);
  const installedPath = join(home, 'Library', 'LaunchAgents', basename(plistPath));
  const installed = plain(readPlist(installedPath)) as Job;
  const { job } = agent();
  const fill = (v: string) => v.replace(NODE, join(bin, 'node')).replace(HERMETIC, join(bin, 'hermetic')).replaceAll(HOME, home);
  assert.deepEqual(installed, JSON.parse(fill(JSON.stringify(job))));

  // launchd's environment for a user agent: HOME, its PATH, a TMPDIR of the user's own (here the test run's), and the
  // plist's EnvironmentVariables; nothing else of ours. Its working folder is /, stdin /dev/null, and the log files it
  // opens itself (appending, created when missing) are stdout and stderr.
  const [program, ...argv] = installed.ProgramArguments;
  const env: NodeJS.ProcessEnv = { HOME: home, PATH: LAUNCHD_PATH, TMPDIR: tmpdir(), ...installed.EnvironmentVariables };
  const out = openSync(installed.StandardOutPath, 'a');
  const err = installed.StandardErrorPath === installed.StandardOutPath ? out : openSync(installed.StandardErrorPath, 'a');
  const child = spawn(program!, argv, { cwd: '/', env, stdio: ['ignore', out, err] });
  closeSync(out);
  if (err !== out) closeSync(err);
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const log = () => readFileSync(installed.StandardErrorPath, 'utf8');
  try {
    await waitFor(() => TICK.test(log()) || child.exitCode !== null, 'the first tick in the log', { everyMs: 25 });
    assert.ok(TICK.test(log()), log());
    child.kill('SIGTERM');
    assert.equal(await exited, 0, log());
    assertForwarded(home, sessions, log());
  } finally {
    child.kill('SIGKILL');
  }
});
