// The window of report, export and the dashboard: a date or time that does not exist is refused with the flag, the
// value and why (HERMETIC_CLI_USAGE), never rolled over into the next month, day or hour; a leap day is a day.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Zone } from '../ledger/zone.js';
import { course, parsePoint, previousWindow, resolveWindow, windowOrderProblem } from './window.js';

const NOW = Date.UTC(2026, 6, 15, 10, 30) / 1000;
const zone = new Zone('Europe/Berlin');
const refused = (run: () => unknown, message: string) => assert.throws(run, (e: { code: string; message: string }) => {
  assert.deepEqual([e.code, e.message], ['HERMETIC_CLI_USAGE', message]);
  return true;
});

describe('impossible dates and times in a window', () => {
  it('--since and --until refuse a day past the month\'s end, February 29 outside a leap year, a month 13', () => {
    refused(() => resolveWindow({ since: '2026-02-30' }, NOW, zone), '--since "2026-02-30" is not a real date: days of February 2026 run from 01 to 28.');
    refused(() => resolveWindow({ since: '2026-04-31' }, NOW, zone), '--since "2026-04-31" is not a real date: days of April 2026 run from 01 to 30.');
    refused(() => resolveWindow({ since: '2026-02-29' }, NOW, zone), '--since "2026-02-29" is not a real date: days of February 2026 run from 01 to 28.');
    refused(() => resolveWindow({ until: '2026-06-31' }, NOW, zone), '--until "2026-06-31" is not a real date: days of June 2026 run from 01 to 30.');
    refused(() => resolveWindow({ until: '2026-13-45' }, NOW, zone), '--until "2026-13-45" is not a real date: months run from 01 to 12.');
  });

  it('and a time past 23:59:59, 24:00 included, with or without a zone offset', () => {
    refused(() => resolveWindow({ since: '2026-02-30T25:00' }, NOW, zone), '--since "2026-02-30T25:00" is not a real date: days of February 2026 run from 01 to 28.');
    refused(() => resolveWindow({ since: '2026-03-01T25:00' }, NOW, zone), '--since "2026-03-01T25:00" is not a real time: hours run from 00 to 23.');
    refused(() => resolveWindow({ since: '2026-03-01T24:00' }, NOW, zone), '--since "2026-03-01T24:00" is not a real time: hours run from 00 to 23 (the end of a day is the next day\'s 00:00).');
    refused(() => resolveWindow({ until: '2026-03-01T10:60Z' }, NOW, zone), '--until "2026-03-01T10:60Z" is not a real time: minutes run from 00 to 59.');
    refused(() => resolveWindow({ until: '2026-03-01 10:00:60+02:00' }, NOW, zone), '--until "2026-03-01 10:00:60+02:00" is not a real time: seconds run from 00 to 59.');
  });

  it('2028-02-29 is a day: from its local midnight, to the next one as an end', () => {
    assert.equal(zone.iso(parsePoint('since', '2028-02-29', NOW, zone)), '2028-02-29T00:00:00+01:00');
    assert.equal(zone.iso(parsePoint('until', '2028-02-29', NOW, zone, true)), '2028-03-01T00:00:00+01:00');
    assert.equal(zone.iso(parsePoint('since', '2028-02-29T23:59:59', NOW, zone)), '2028-02-29T23:59:59+01:00');
    assert.equal(parsePoint('since', '2028-02-29T12:00Z', NOW, zone), Date.UTC(2028, 1, 29, 12) / 1000);
  });
});

describe('how far back a duration reaches', () => {
  it('up to 100 years, and a look further back is refused (it was a 500, or a window that started in 1959 for 1,000,000 days)', () => {
    assert.equal(resolveWindow({ since: '36000d' }, NOW, zone).since, zone.startOfDay('1927-12-23'));
    for (const since of ['1000000d', '2000000d', '99999999999h', '1000000000000000000000d', '5300w']) {
      refused(() => resolveWindow({ since }, NOW, zone), `--since ${since} reaches back more than 100 years; use --period all for everything.`);
    }
    // A date before 1970 too (year 0000 was read as 1900).
    for (const since of ['0000-01-01', '1969-12-31']) {
      refused(() => resolveWindow({ since }, NOW, zone), `--since ${since} is before 1970, when no usage can have been recorded; use --period all for everything.`);
    }
    assert.equal(resolveWindow({ since: '1970-01-01', until: '1970-01-02' }, NOW, zone).since, zone.startOfDay('1970-01-01'));
  });
});


describe('the window a trend compares with, and where a period to date is heading', () => {
  // Wednesday 2026-07-15, 12:30 in Berlin.
  const at = (iso: string) => Date.parse(iso) / 1000;
  const before = (period: string) => previousWindow(period, resolveWindow({ period }, NOW, zone), NOW, zone);

  it('moves the window back by its period: yesterday and last week up to this time, the same days of last month, the 30 days before', () => {
    assert.deepEqual(before('today'), { since: at('2026-07-14T00:00:00+02:00'), until: at('2026-07-14T12:30:00+02:00') });
    assert.deepEqual(before('week'), { since: at('2026-07-06T00:00:00+02:00'), until: at('2026-07-08T12:30:00+02:00') });
    assert.deepEqual(before('month'), { since: at('2026-06-01T00:00:00+02:00'), until: at('2026-06-15T12:30:00+02:00') });
    assert.deepEqual(before('30d'), { since: at('2026-05-17T00:00:00+02:00'), until: at('2026-06-15T12:30:00+02:00') });
    assert.deepEqual(before('7d'), { since: at('2026-07-02T00:00:00+02:00'), until: at('2026-07-08T12:30:00+02:00') });
    assert.equal(before('all'), null);
    // A start that is not a midnight moves by whole days of 24 hours.
    assert.deepEqual(previousWindow(undefined, { since: at('2026-07-01T09:00:00+02:00'), until: NOW }, NOW, zone), { since: at('2026-06-16T09:00:00+02:00'), until: at('2026-06-30T12:30:00+02:00') });
  });

  it('never reaches into the window it is compared with, and counts a 23-hour day as a day', () => {
    // March 31 against February: February is shorter, so the window before ends where this one starts.
    const march = Date.UTC(2026, 2, 31, 10) / 1000;
    assert.deepEqual(previousWindow('month', resolveWindow({ period: 'month' }, march, zone), march, zone), { since: at('2026-02-01T00:00:00+01:00'), until: at('2026-03-01T00:00:00+01:00') });
    // The 30 days to April 10 hold the clocks going forward (March 29): still 30 calendar days back.
    const april = Date.UTC(2026, 3, 10, 10) / 1000;
    assert.equal(previousWindow('30d', resolveWindow({ period: '30d' }, april, zone), april, zone)!.since, at('2026-02-10T00:00:00+01:00'));
  });

  it('moves by wall-clock time across a change of daylight saving, and compares a window ending in the future for what has gone by', () => {
    // Monday 2026-03-30, 12:30 in Berlin: the clocks went forward on Sunday; yesterday up to 12:30 its time, not 13:30.
    const monday = at('2026-03-30T12:30:00+02:00');
    assert.deepEqual(previousWindow('today', resolveWindow({ period: 'today' }, monday, zone), monday, zone), { since: at('2026-03-29T00:00:00+01:00'), until: at('2026-03-29T12:30:00+02:00') });
    // Twelve hours back: the same twelve hours of yesterday.
    assert.deepEqual(previousWindow(undefined, resolveWindow({ since: '12h' }, NOW, zone), NOW, zone), { since: at('2026-07-14T00:30:00+02:00'), until: at('2026-07-14T12:30:00+02:00') });
    // --since 2026-07-13 --until 2026-07-31 on July 15: the two and a half days gone by, against the three days before.
    const future = resolveWindow({ since: '2026-07-13', until: '2026-07-31' }, NOW, zone);
    assert.deepEqual(previousWindow(undefined, future, NOW, zone), { since: at('2026-07-10T00:00:00+02:00'), until: at('2026-07-12T12:30:00+02:00') });
  });

  it('a period to date heads for its cost so far scaled to the whole period, once a seventh of it has gone', () => {
    const window = (period: string, now = NOW) => resolveWindow({ period }, now, zone);
    const month = course('month', window('month'), NOW, zone, 100)!;
    assert.equal(month.end, 'July');
    assert.ok(Math.abs(month.cost - (100 * 31) / (14 + 12.5 / 24)) < 1e-9, String(month.cost));
    assert.deepEqual(course('today', window('today'), NOW, zone, 10), { cost: (10 * 24) / 12.5, end: 'the day' });
    assert.ok(Math.abs(course('week', window('week'), NOW, zone, 10)!.cost - (10 * 7) / (2 + 12.5 / 24)) < 1e-9);
    // July 3: not a seventh of the month yet. Other windows, and nothing spent, head nowhere.
    const third = Date.UTC(2026, 6, 3, 10) / 1000;
    assert.equal(course('month', window('month', third), third, zone, 100), null);
    assert.equal(course('30d', window('30d'), NOW, zone, 100), null);
    assert.equal(course('month', window('month'), NOW, zone, 0), null);
  });
});

describe('days at the edges of a zone (decision 0075)', () => {
  it('a day whose midnight does not exist starts at its first instant; a day the zone skipped leaves no time, and says so', () => {
    const santiago = new Zone('America/Santiago');
    const w = resolveWindow({ since: '2026-09-06', until: '2026-09-06' }, NOW + 200 * 86400, santiago);
    assert.deepEqual([santiago.iso(w.since!), santiago.iso(w.until!)], ['2026-09-06T01:00:00-03:00', '2026-09-07T00:00:00-03:00']);
    const apia = new Zone('Pacific/Apia');
    const skipped = resolveWindow({ since: '2011-12-30', until: '2011-12-30' }, NOW, apia);
    assert.equal(windowOrderProblem(skipped, { since: '2011-12-30', until: '2011-12-30' }), '--since 2011-12-30 and --until 2011-12-30 leave no time between them: the window is empty.');
    assert.equal(windowOrderProblem(resolveWindow({ since: '2026-03-29', until: '2026-03-29' }, NOW, zone), { since: '2026-03-29', until: '2026-03-29' }), null);
  });
});
