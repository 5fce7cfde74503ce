// The systemd user service in examples/ (README, "Keeping forward running"): systemd accepts it where systemd is
// installed, and its ExecStart run as systemd runs it — the user's HOME, no HERMES_HOME or HERMETIC_HOME, SIGTERM to
// stop — forwards the user's ~/.hermes store into ~/.hermetic and stops with exit 0.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { generate } from '../../src/state-db/generate/index.js';
import { BIN, spawnBin } from '../support/process.js';
import { DEADLINE_MS } from '../support/wait.js';

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

test('its ExecStart forwards ~/.hermes into ~/.hermetic and stops on SIGTERM with exit 0', async () => {
  const home = join(dir, 'user');
  mkdirSync(join(home, '.hermes'), { recursive: true });
  const made = generate({ out: join(home, '.hermes', 'state.db'), sessions: 4, messages: 30, seed: 'service', journal: 'wal' });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  for (const name of ['HERMES_HOME', 'HERMETIC_HOME', 'HERMETIC_TZ']) delete env[name];
  const fwd = spawnBin(args, { cwd: '/', env });
  try {
    const tick = /^forward: default: \d+ sessions? written.*$/m;
    const seen = await Promise.race([fwd.until((out) => tick.test(out)), new Promise<false>((r) => setTimeout(r, DEADLINE_MS, false).unref())]);
    assert.ok(seen, fwd.output());
    assert.match(tick.exec(fwd.stderr())![0], new RegExp(`^forward: default: ${made.sessions} sessions written \\(`));
    fwd.child.kill('SIGTERM');
    assert.equal(await fwd.exited, 0, fwd.output());
    assert.match(fwd.stderr(), /\nforward: stopped\n$/);
    const db = new Database(join(home, '.hermetic', 'hermetic.db'), { readonly: true });
    try {
      assert.equal(db.prepare('SELECT COUNT(*) FROM sessions').pluck().get(), made.sessions);
    } finally {
      db.close();
    }
    assert.ok(!existsSync(join(home, '.hermes', 'hermetic.db')), 'nothing written beside the store');
  } finally {
    fwd.child.kill('SIGKILL');
  }
});
