// `hermetic report` through the real bin: the JSON a script reads, a refusal as one line with its code and exit 2,
// --help, and its synopsis in the forwarder commands' help. Everything else about the report runs in process (src/forwarder/report/report.test.ts).
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { copyFixture, tempDir } from '../../src/state-db/testing/fixtures.js';
import { usageReport, type UsageReport } from '../../src/forwarder/report/index.js';
import { forwarderRig } from '../../src/forwarder/testing/index.js';
import { runBinAsync } from '../support/process.js';

let dir: string;
let home: string;
let cleanup: () => void;

before(() => {
  ({ dir, cleanup } = tempDir('hermetic-report-cli-'));
  const rig = forwarderRig(['basic', 'channels', 'usage'].map((f) => copyFixture(f, dir)), { dir, timeZone: 'UTC' });
  rig.forwarder.backfill();
  rig.forwarder.close();
  home = rig.home;
});
after(() => cleanup());

it('report --json, a refused window and --help, each through the bin', async () => {
  const [json, refused, future, help, backfillHelp] = await Promise.all([
    runBinAsync(['report', '--home', home, '--period', 'all', '--by', 'model', '--by', 'task', '--json']),
    runBinAsync(['report', '--home', home, '--since', '2026-06-10', '--until', '2026-06-01']),
    runBinAsync(['report', '--home', home, '--since', '9999-12-31']),
    runBinAsync(['report', '--help']),
    runBinAsync(['backfill', '--help']),
  ]);
  assert.deepEqual([json.status, json.stderr], [0, '']);
  const db = new Database(join(home, 'hermetic.db'), { readonly: true });
  try {
    assert.deepEqual(JSON.parse(json.stdout) as UsageReport, usageReport(db, { by: ['model', 'task'] }));
  } finally {
    db.close();
  }
  assert.deepEqual(refused, {
    status: 2, stdout: '',
    stderr: 'hermetic: --since 2026-06-10 starts after --until 2026-06-01 ends; swap them. [HERMETIC_REPORT_INVALID]\nRun "hermetic report --help" for the options.\n',
  });
  assert.deepEqual(future, {
    status: 2, stdout: '',
    stderr: 'hermetic: --since 9999-12-31 is after now: nothing can have been recorded yet. [HERMETIC_REPORT_INVALID]\nRun "hermetic report --help" for the options.\n',
  });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^Usage: hermetic report \[options\]/);
  assert.match(help.stdout, /^  --filter COLUMN=VALUE$/m);
  // Each command has its own page (src/forwarder/cli/help.test.ts holds each to the flags its command parses).
  assert.equal(backfillHelp.status, 0);
  assert.match(backfillHelp.stdout, /^Usage: hermetic backfill \[options\]/);
  assert.doesNotMatch(backfillHelp.stdout, /--period/);
});
