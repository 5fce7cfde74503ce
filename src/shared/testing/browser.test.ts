// Which Chromium the tests drive and which the screenshots and the bench launch (decision 0121).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chromiumPath } from './browser.js';

const only = (...present: string[]) => (path: string) => present.includes(path);

describe('chromiumPath', () => {
  it('the tests take the headless shell where it is installed, else the desktop chromium', () => {
    assert.equal(chromiumPath({}, { shell: true, exists: only('/usr/bin/chromium', '/usr/bin/chromium-headless-shell') }), '/usr/bin/chromium-headless-shell');
    assert.equal(chromiumPath({}, { shell: true, exists: only('/usr/bin/chromium') }), '/usr/bin/chromium');
  });
  it('the screenshots and the bench take the desktop chromium even beside a shell', () => {
    assert.equal(chromiumPath({}, { exists: only('/usr/bin/chromium', '/usr/bin/chromium-headless-shell') }), '/usr/bin/chromium');
    assert.equal(chromiumPath({}, { exists: only('/usr/bin/chromium-browser') }), '/usr/bin/chromium-browser');
  });
  it('HERMETIC_CHROMIUM names the binary for both', () => {
    const env = { HERMETIC_CHROMIUM: '/opt/chrome/chrome' };
    const exists = only('/opt/chrome/chrome', '/usr/bin/chromium', '/usr/bin/chromium-headless-shell');
    assert.equal(chromiumPath(env, { shell: true, exists }), '/opt/chrome/chrome');
    assert.equal(chromiumPath(env, { exists }), '/opt/chrome/chrome');
  });
  it('none installed: a sentence that says what to install', () => {
    assert.throws(() => chromiumPath({}, { shell: true, exists: () => false }), /apt-get install chromium-headless-shell chromium/);
  });
});
