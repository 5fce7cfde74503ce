// The window of report, export and the dashboard: a date or time that does not exist is refused with the flag, the
// value and why (HERMETIC_CLI_USAGE), never rolled over into the next month, day or hour; a leap day is a day.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Zone } from '../ledger/zone.js';
import { parsePoint, resolveWindow } from './window.js';

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
  });
});

