// A port another server holds: startServer says so in a sentence that names no flag (it is a library call), and
// portTaken tells that failure from the others so `hermetic serve` can add the --port hint (test/cli/serve-cli.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HermeticError } from '../../shared/errors.js';
import { portTaken, startServer } from './node.js';

test('a taken port is HERMETIC_SERVE_LISTEN in a flag-free sentence, and portTaken knows it from other failures', async () => {
  const first = await startServer({ port: 0, db: ':memory:' });
  try {
    const caught = await startServer({ port: first.port, db: ':memory:' }).then(() => null, (e: unknown) => e);
    assert.ok(caught instanceof HermeticError);
    assert.equal(caught.code, 'HERMETIC_SERVE_LISTEN');
    assert.equal(caught.message, `Cannot listen on 127.0.0.1:${first.port}: the port is already in use.`);
    assert.equal(portTaken(caught), true);
    assert.equal(portTaken(new HermeticError('HERMETIC_SERVE_LISTEN', 'Cannot listen on 10.9.9.9:80: listen EADDRNOTAVAIL.')), false);
    assert.equal(portTaken(new Error('Cannot listen on 127.0.0.1:1: the port is already in use.')), false);
  } finally {
    await first.close();
  }
});
