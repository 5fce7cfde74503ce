// The timeline's bookkeeping alone (parts that hold a value): parents, branch heads, the head, eviction that never
// lets a branch head go, deletion that re-parents, and the byte budget that refuses what cannot fit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HermeticError } from '../../shared/errors.js';
import { Checkpoints, MAX_BRANCHES, MAX_CHECKPOINTS } from './checkpoints.js';
import { estimateBytes } from './size.js';

/** One part holding `value`; `size` is what its next snapshot holds. */
function world() {
  const part = { value: 0, size: 0, snapshot: () => ({ value: part.value, pad: 'x'.repeat(part.size) }), restore: (s: unknown) => void (part.value = (s as { value: number }).value) };
  return { part, parts: [['p', part]] as const };
}

const summarize = () => ({ taken_at: 0, runs: 0, durable_rows: 0, clock: 'namespace' as const });

function refused(fn: () => unknown, code: string, message?: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof HermeticError && e.code === code && (!message || message.test(e.message)));
}

test('checkpoints chain on the current branch; a restore moves the branch and the head, and the next one forks there', () => {
  const { part, parts } = world();
  const cps = new Checkpoints('default');
  part.value = 1;
  assert.equal(cps.take(parts, summarize).id, 'cp_1');
  part.value = 2;
  const second = cps.take(parts, summarize, 'POST /v1/runs');
  assert.deepEqual([second.id, second.parent, second.branch, second.request], ['cp_2', 'cp_1', 'main', 'POST /v1/runs']);
  assert.equal(cps.restore('cp_1', parts).id, 'cp_1');
  assert.equal(part.value, 1);
  const fork = cps.take(parts, summarize);
  assert.deepEqual([fork.id, fork.parent], ['cp_3', 'cp_1']);
  const t = cps.timeline(false);
  assert.deepEqual([t.branch, t.head, t.branches], ['main', 'cp_3', { main: 'cp_3' }]);
  assert.deepEqual(t.checkpoints.map((c) => [c.id, c.parent]), [['cp_1', null], ['cp_2', 'cp_1'], ['cp_3', 'cp_1']]);
});

test('ids carry their namespace: another namespace\'s is refused as foreign, an unknown one as unknown', () => {
  const { parts } = world();
  const cps = new Checkpoints('w3');
  assert.equal(cps.take(parts, summarize).id, 'cp_1@w3');
  refused(() => cps.restore('cp_1', parts), 'HERMETIC_CHECKPOINT_FOREIGN', /namespace "default"/);
  refused(() => cps.restore('cp_1@w4', parts), 'HERMETIC_CHECKPOINT_FOREIGN', /namespace "w4".*\/ns\/w4\/__admin/);
  refused(() => cps.restore('cp_2@w3', parts), 'HERMETIC_CHECKPOINT_UNKNOWN', /it has cp_1@w3/);
  refused(() => cps.restore('nonsense', parts), 'HERMETIC_CHECKPOINT_UNKNOWN');
});

test('branches: made at a checkpoint, checked out (state and head), moved by a checkout, deleted; bounded', () => {
  const { part, parts } = world();
  const cps = new Checkpoints('default');
  refused(() => cps.createBranch('exp'), 'HERMETIC_CHECKPOINT_UNKNOWN', /no checkpoint to start the branch at/);
  part.value = 1;
  cps.take(parts, summarize);
  part.value = 2;
  cps.take(parts, summarize);
  assert.deepEqual(cps.createBranch('exp', 'cp_1'), { branch: 'exp', head: 'cp_1' });
  refused(() => cps.createBranch('exp'), 'HERMETIC_BRANCH_EXISTS');
  refused(() => cps.createBranch('-bad'), 'HERMETIC_ADMIN_BAD_FIELD');
  refused(() => cps.checkout('nope', undefined, parts), 'HERMETIC_BRANCH_UNKNOWN', /it has "main", "exp"/);
  part.value = 99;
  assert.deepEqual(cps.checkout('exp', undefined, parts).checkpoint?.id, 'cp_1');
  assert.equal(part.value, 1);
  part.value = 3;
  const onExp = cps.take(parts, summarize);
  assert.deepEqual([onExp.id, onExp.branch, onExp.parent], ['cp_3', 'exp', 'cp_1']);
  refused(() => cps.deleteBranch('exp'), 'HERMETIC_BRANCH_CURRENT');
  assert.equal(cps.checkout('main', undefined, parts).checkpoint?.id, 'cp_2');
  assert.equal(part.value, 2);
  // A checkout naming a checkpoint moves that branch's head there.
  assert.equal(cps.checkout('exp', 'cp_2', parts).checkpoint?.id, 'cp_2');
  assert.deepEqual(cps.timeline(false).branches, { main: 'cp_2', exp: 'cp_2' });
  cps.checkout('main', undefined, parts);
  assert.deepEqual(cps.deleteBranch('exp'), { branch: 'exp', head: 'cp_2' });
  for (let i = 1; i < MAX_BRANCHES; i++) cps.createBranch(`b${i}`);
  refused(() => cps.createBranch('one-more'), 'HERMETIC_BRANCH_LIMIT');
});

test('eviction lets the oldest go but never a branch head; what pointed at a checkpoint let go points at its parent', () => {
  const { parts } = world();
  const cps = new Checkpoints('default');
  cps.take(parts, summarize);
  cps.take(parts, summarize);
  cps.createBranch('keep', 'cp_1');
  for (let i = 0; i < MAX_CHECKPOINTS; i++) cps.take(parts, summarize);
  const t = cps.timeline(false);
  assert.equal(t.checkpoints.length, MAX_CHECKPOINTS);
  assert.equal(t.evicted, 2);
  assert.deepEqual(t.checkpoints.slice(0, 2).map((c) => [c.id, c.parent]), [['cp_1', null], ['cp_4', 'cp_1']]);
  assert.equal(cps.restore('cp_1', parts).id, 'cp_1');
  refused(() => cps.restore('cp_2', parts), 'HERMETIC_CHECKPOINT_UNKNOWN', /has let 2 older ones go/);
});

test('deleting a checkpoint re-parents its children and moves the heads that named it to its parent', () => {
  const { parts } = world();
  const cps = new Checkpoints('default');
  cps.take(parts, summarize);
  cps.take(parts, summarize);
  cps.take(parts, summarize);
  cps.createBranch('side', 'cp_2');
  cps.delete('cp_2');
  cps.delete('cp_3');
  const t = cps.timeline(false);
  assert.deepEqual([t.head, t.branches], ['cp_1', { main: 'cp_1', side: 'cp_1' }]);
  cps.detach();
  assert.equal(cps.take(parts, summarize).parent, null, 'after a reset the state descends from no checkpoint');
});

test('the byte budget: old checkpoints go to make room; a state that cannot fit beside the branch heads is refused, nothing changed', () => {
  const { part, parts } = world();
  part.size = 1000;
  const one = estimateBytes([['p', part.snapshot()]]);
  const cps = new Checkpoints('default', one * 3);
  for (let i = 0; i < 5; i++) cps.take(parts, summarize);
  let t = cps.timeline(false);
  assert.deepEqual([t.checkpoints.map((c) => c.id), t.bytes <= t.max_bytes], [['cp_3', 'cp_4', 'cp_5'], true]);
  cps.createBranch('a', 'cp_3');
  cps.createBranch('b', 'cp_4');
  part.size = 1500;
  refused(() => cps.take(parts, summarize), 'HERMETIC_CHECKPOINT_LIMIT', /beside the 2 other branch heads.*Delete a branch/);
  t = cps.timeline(false);
  assert.deepEqual([t.head, t.checkpoints.length], ['cp_5', 3], 'a refusal changes nothing');
  cps.deleteBranch('a');
  cps.deleteBranch('b');
  const big = cps.take(parts, summarize);
  assert.deepEqual(cps.timeline(false).checkpoints.map((c) => c.id), ['cp_5', big.id], 'the oldest went to make room');
  part.size = 4000;
  refused(() => cps.take(parts, summarize), 'HERMETIC_CHECKPOINT_LIMIT', /^The namespace's state is about 8\.\d KiB: it does not fit in the 6\.\d KiB its checkpoints may hold\.$/);
});

test('estimateBytes counts strings, numbers, Maps, arrays and each shared object once', () => {
  const shared = { text: 'x'.repeat(1000) };
  const once = estimateBytes([shared]);
  assert.ok(once > 2000);
  assert.ok(estimateBytes([shared, shared]) < once + 16, 'a shared object is counted once');
  assert.ok(estimateBytes(new Map([['k', 'y'.repeat(500)]])) > 1000);
  const cyclic: { self?: unknown } = {};
  cyclic.self = cyclic;
  assert.ok(estimateBytes(cyclic) > 0);
});
