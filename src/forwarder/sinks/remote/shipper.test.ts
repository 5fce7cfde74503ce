// The shipper over a real second SQLite file (the sqlite:// sink): snapshot then log, cursors and pruning, local-only
// sessions, redaction for sinks that leave the machine, retriable and fatal failures, one sink never holding another.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { logHead, pendingEntries, sinkRow, triggersOn } from './changelog.js';
import { readSqliteSinkFile } from './sqlite-file.js';
import { createWorld, expectedRows, heldRows } from './testing/world.js';

test('a new sink gets a snapshot of the dataset, then the log; the log is pruned once it acknowledged', async () => {
  const world = createWorld();
  try {
    const path = join(world.dir, 'copy.db');
    const url = `sqlite://${path}`;
    assert.equal(triggersOn(world.dataset), false, 'no sink yet: no triggers');
    const first = await world.ship(url, { limits: { rows: 7 } });
    assert.equal(first.state, 'caught-up');
    assert.ok(first.batches > 3, `several bounded batches (${first.batches})`);
    assert.deepEqual(heldRows(readSqliteSinkFile(path, world.origin.machineId)), expectedRows(world.dataset, false));
    assert.equal(triggersOn(world.dataset), true);
    const row = sinkRow(world.dataset, url)!;
    assert.equal(row.snapshot, null);
    world.w.appendMessages(world.sessions.second, [{ role: 'user', content: 'one more' }]);
    world.tick();
    assert.ok(pendingEntries(world.dataset, row.acked_seq) > 0, 'the tick logged its changes');
    const second = await world.ship(url);
    assert.equal(second.state, 'caught-up');
    assert.deepEqual(heldRows(readSqliteSinkFile(path, world.origin.machineId)), expectedRows(world.dataset, false));
    assert.equal(sinkRow(world.dataset, url)!.acked_seq, logHead(world.dataset));
    assert.equal(pendingEntries(world.dataset, 0), 0, 'every entry acknowledged is pruned');
  } finally {
    await world.cleanup();
  }
});
