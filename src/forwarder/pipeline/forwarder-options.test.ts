// createForwarder's options are checked once, at the front door: a misspelt key or a wrong value is refused with a
// HERMETIC_* code before anything is read or written (a typo must never fall back to the user's real home).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createForwarder, type ForwarderOptions } from './forwarder.js';

const refused = (options: unknown, code: string, message: RegExp) =>
  assert.throws(() => createForwarder(options as ForwarderOptions), (e: Error & { code?: string }) => e.code === code && message.test(e.message), JSON.stringify(options));

test('a misspelt option is refused with a suggestion; a wrong value names the option and what it must be', () => {
  refused({ hom: '/tmp/x' }, 'HERMETIC_OPTIONS_UNKNOWN', /^Unknown forwarder option "hom"\. Did you mean "home"\?$/);
  refused({ statedbs: [] }, 'HERMETIC_OPTIONS_UNKNOWN', /Did you mean "stateDbs"\?/);
  refused({ redact: 'yes' }, 'HERMETIC_OPTIONS_INVALID', /^Option "redact" must be true or false; got "yes"\.$/);
  refused({ home: '' }, 'HERMETIC_OPTIONS_INVALID', /Option "home" must be a path/);
  refused({ stateDbs: '/tmp/state.db' }, 'HERMETIC_OPTIONS_INVALID', /^Option "stateDbs" must be an array of paths; got "\/tmp\/state.db"\.$/);
  // An empty path was read as the working folder's state.db.
  refused({ stateDbs: ['/tmp/a.db', ''] }, 'HERMETIC_OPTIONS_INVALID', /^Option "stateDbs\[1\]" must be a path \(a non-empty string\); got ""\.$/);
  refused({ readWorker: 'always' }, 'HERMETIC_OPTIONS_INVALID', /Option "readWorker" must be "auto", "off", "only"; got "always"/);
  refused({ buildAside: -1 }, 'HERMETIC_OPTIONS_INVALID', /Option "buildAside" must be a whole number of messages/);
  refused({ now: 5 }, 'HERMETIC_OPTIONS_INVALID', /Option "now" must be a function/);
  // A zone Intl does not know was taken, and every store of every pass then failed with it.
  refused({ timeZone: 'Mars/Olympus' }, 'HERMETIC_OPTIONS_INVALID', /^Option "timeZone" must be an IANA time zone such as Europe\/Berlin, or UTC; got "Mars\/Olympus"\.$/);
  refused({ sink: {} }, 'HERMETIC_OPTIONS_INVALID', /Option "sink" must be a Sink/);
  // A sink without the methods a pass calls was taken, and the pass failed with a TypeError at its first store.
  refused({ sink: { close() {} } }, 'HERMETIC_OPTIONS_INVALID', /^Option "sink" must be a Sink, with the methods write, cursors, dataVersion, close; it has no write, cursors, dataVersion\.$/);
  refused({ sink: { write() {}, cursors() {}, dataVersion: 1, close() {} } }, 'HERMETIC_OPTIONS_INVALID', /it has no dataVersion\.$/);
  refused('home', 'HERMETIC_OPTIONS_INVALID', /forwarder options must be an object/);
});

test('good options pass, and nothing is created by making a forwarder', () => {
  const home = join(mkdtempSync(join(tmpdir(), 'hermetic-fwd-options-')), 'home');
  const f = createForwarder({ home, stateDbs: [], redact: true, readWorker: 'off', timeZone: 'UTC', chunkRows: 100, buildAside: 0, hermesHome: undefined });
  assert.equal(f.home, home);
  f.close();
  assert.equal(existsSync(join(home, 'hermetic.db')), false);
});
