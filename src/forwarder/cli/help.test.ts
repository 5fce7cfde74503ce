// Every help page fits 80 columns; each forwarder command's --help prints its own page and exits 0; a page documents
// every long flag its command parses and none it does not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FlagSpec } from '../../cli/args.js';
import { runMain } from '../../../test/support/process.js';
import { FLAGS as BACKFILL_FLAGS } from './backfill.js';
import { COMMON_FLAGS } from './common.js';
import { FLAGS as EXPORT_FLAGS } from './export.js';
import { FLAGS as FORGET_FLAGS } from './forget.js';
import { FLAGS as FORWARD_FLAGS } from './forward.js';
import * as pages from './help.js';
import { FLAGS as POLICY_FLAGS } from './policy.js';
import { FLAGS as QUERY_FLAGS } from './query.js';
import { FLAGS as REPORT_FLAGS } from './report.js';
import { FLAGS as SINKS_FLAGS } from './sinks-command.js';
import { FLAGS as WEB_FLAGS } from './web.js';

/** `hermetic ...args` in this process (test/support/process.ts): its exit code and what it printed. */
async function hermetic(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const r = await runMain(args);
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const wide = (text: string) => text.split('\n').filter((l) => l.length > 80);

// status.ts parses COMMON_FLAGS as they are.
const COMMANDS: { command: string; page: string; flags: Record<string, FlagSpec> }[] = [
  { command: 'backfill', page: pages.BACKFILL_HELP, flags: BACKFILL_FLAGS },
  { command: 'forward', page: pages.FORWARD_HELP, flags: FORWARD_FLAGS },
  { command: 'status', page: pages.STATUS_HELP, flags: COMMON_FLAGS },
  { command: 'report', page: pages.REPORT_HELP, flags: REPORT_FLAGS },
  { command: 'export', page: pages.EXPORT_HELP, flags: EXPORT_FLAGS },
  { command: 'web', page: pages.WEB_HELP, flags: WEB_FLAGS },
  { command: 'query', page: pages.QUERY_HELP, flags: QUERY_FLAGS },
  { command: 'policy', page: pages.POLICY_HELP, flags: POLICY_FLAGS },
  { command: 'forget', page: pages.FORGET_HELP, flags: FORGET_FLAGS },
  { command: 'sinks', page: pages.SINKS_HELP, flags: SINKS_FLAGS },
];

describe('help pages', () => {
  it('every page of help.ts fits 80 columns', () => {
    for (const [name, text] of Object.entries(pages)) assert.deepEqual(wide(text), [], name);
  });

  it('the top-level, serve and statedb help fit 80 columns too', async () => {
    for (const args of [['--help'], ['serve', '--help'], ['statedb', '--help'], ['statedb', 'generate', '--help']]) {
      const r = await hermetic(...args);
      assert.equal(r.code, 0, args.join(' '));
      assert.match(r.out, /^Usage: hermetic /);
      assert.deepEqual(wide(r.out), [], args.join(' '));
    }
  });

  for (const { command, page, flags } of COMMANDS) {
    it(`${command} --help and -h print its own page and exit 0`, async () => {
      assert.match(page, new RegExp(`^Usage: hermetic ${command} `));
      for (const flag of ['--help', '-h']) assert.deepEqual(await hermetic(command, flag), { code: 0, out: `${page}\n`, err: '' }, `${command} ${flag}`);
    });

    it(`${command}'s page documents every flag it parses, and only those`, () => {
      // An option line: two spaces, then the flag (after its short form), then its value or its description.
      const documented = [...page.matchAll(/^ {2}(?:-[a-z], )?--([a-z][a-z-]*)(?=[ \n=]|$)/gm)].map((m) => m[1]!);
      assert.deepEqual([...new Set(documented)].sort(), Object.keys(flags).sort(), command);
      for (const [name, spec] of Object.entries(flags)) {
        if (spec.short) assert.match(page, new RegExp(`^ {2}-${spec.short}, --${name}\\b`, 'm'), `-${spec.short} on ${command}'s page`);
      }
    });
  }

  it('policy help is its page too', async () => {
    assert.deepEqual(await hermetic('policy', 'help'), { code: 0, out: `${pages.POLICY_HELP}\n`, err: '' });
  });
});
