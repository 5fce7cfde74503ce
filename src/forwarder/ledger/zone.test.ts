// Local days, midnights and cells in a zone, whatever zone the process runs in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explicitTimeZone, ledgerTimeZone, utcDay, Zone } from './zone.js';

const at = (iso: string) => Date.parse(iso) / 1000;

test('local days and midnights follow the zone, across daylight saving changes', () => {
  const berlin = new Zone('Europe/Berlin');
  assert.equal(berlin.dayOf(at('2026-07-01T21:59:59Z')), '2026-07-01');
  assert.equal(berlin.dayOf(at('2026-07-01T22:00:00Z')), '2026-07-02');
  assert.equal(berlin.startOfDay('2026-03-29'), at('2026-03-28T23:00:00Z')); // the day clocks go forward
  assert.equal(berlin.startOfDay('2026-03-30'), at('2026-03-29T22:00:00Z'));
  assert.equal(berlin.timeOf('2026-03-29', 2, 30), at('2026-03-29T01:30:00Z')); // 02:30 never happened: 03:30 CEST
  assert.equal(berlin.timeOf('2026-10-25', 2, 30), at('2026-10-25T00:30:00Z')); // it happened twice: the first
  const la = new Zone('America/Los_Angeles');
  assert.equal(la.startOfDay('2026-07-01'), at('2026-07-01T07:00:00Z'));
  assert.equal(la.iso(at('2026-07-01T07:00:00Z')), '2026-07-01T00:00:00-07:00');
  assert.equal(new Zone('UTC').iso(at('2026-07-01T07:00:00Z')), '2026-07-01T07:00:00Z');
  assert.equal(utcDay(at('2026-07-01T23:59:59Z')), '2026-07-01');
});

test('a cell is a UTC hour, cut at a local midnight inside it (zones 30 or 45 minutes off the hour)', () => {
  const kathmandu = new Zone('Asia/Kathmandu'); // +05:45
  const q = (iso: string) => Math.floor(at(iso) / 900);
  assert.deepEqual(kathmandu.cellOf(q('2026-07-01T18:05:00Z')), { at: at('2026-07-01T18:00:00Z'), day: '2026-07-01', dayUtc: '2026-07-01' });
  assert.deepEqual(kathmandu.cellOf(q('2026-07-01T18:20:00Z')), { at: at('2026-07-01T18:15:00Z'), day: '2026-07-02', dayUtc: '2026-07-01' });
  assert.deepEqual(kathmandu.cellOf(q('2026-07-01T18:59:00Z')), { at: at('2026-07-01T18:15:00Z'), day: '2026-07-02', dayUtc: '2026-07-01' });
  assert.deepEqual(new Zone('UTC').cellOf(q('2026-07-01T18:59:00Z')), { at: at('2026-07-01T18:00:00Z'), day: '2026-07-01', dayUtc: '2026-07-01' });
});

test('the ledger\'s zone: the option, HERMETIC_TZ, the zone it was built in, the machine\'s; a wrong name is refused', () => {
  assert.equal(ledgerTimeZone('Asia/Tokyo', 'UTC', { HERMETIC_TZ: 'Europe/Berlin' }), 'Asia/Tokyo');
  assert.equal(ledgerTimeZone(undefined, 'UTC', { HERMETIC_TZ: 'Europe/Berlin' }), 'Europe/Berlin');
  assert.equal(ledgerTimeZone(undefined, 'Europe/Paris', {}), 'Europe/Paris');
  assert.equal(typeof ledgerTimeZone(undefined, null, {}), 'string');
  assert.equal(explicitTimeZone(undefined, {}), undefined);
  assert.throws(() => explicitTimeZone(undefined, { HERMETIC_TZ: 'Mars/Olympus' }), (e: { code: string; message: string }) => {
    assert.deepEqual([e.code, e.message], ['HERMETIC_OPTIONS_INVALID', '"Mars/Olympus" (HERMETIC_TZ) is not a time zone; use an IANA name such as Europe/Berlin, or UTC.']);
    return true;
  });
});

test('a zone typed in another letter case is the zone as Intl spells it; other names stay as typed', () => {
  // One spelling per zone: a case variant would be another `ledger_time_zone`, and rebuild the whole ledger for it.
  assert.equal(explicitTimeZone(undefined, { HERMETIC_TZ: 'america/new_york' }), 'America/New_York');
  assert.equal(explicitTimeZone('utc'), 'UTC');
  assert.equal(explicitTimeZone('EUROPE/BERLIN'), 'Europe/Berlin');
  // ICU would rename these (an older spelling, a link's target): they are kept as the user named them.
  assert.equal(explicitTimeZone('Asia/Kathmandu'), 'Asia/Kathmandu');
  assert.equal(explicitTimeZone('US/Eastern'), 'US/Eastern');
});
