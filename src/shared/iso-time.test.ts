// The one strict reader of ISO dates and times in flags: real dates and times read to their parts and epoch seconds;
// impossible ones (a day past the month's end, February 29 outside a leap year, 24:00, minute or second 60) are said
// as a problem, never rolled over; text of another shape is left to the caller (null).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { daysInMonth, readIsoTime, utcSeconds, type IsoTime } from './iso-time.js';

const read = (text: string): IsoTime => {
  const r = readIsoTime(text);
  assert.ok(r !== null && !('problem' in r), `${text}: ${JSON.stringify(r)}`);
  return r;
};
const problem = (text: string) => {
  const r = readIsoTime(text);
  assert.ok(r !== null && 'problem' in r, `${text} read as ${JSON.stringify(r)}`);
  return r.problem;
};

test('real dates and times read to their parts; leap days only in leap years', () => {
  assert.deepEqual(read('2028-02-29'), { day: '2028-02-29', year: 2028, month: 2, date: 29, time: null, offsetMinutes: null });
  assert.deepEqual(read('2026-12-31T23:59:59.5Z'), { day: '2026-12-31', year: 2026, month: 12, date: 31, time: { hour: 23, minute: 59, second: 59.5 }, offsetMinutes: 0 });
  assert.deepEqual(read('2026-07-01 09:00-0230').offsetMinutes, -150);
  assert.deepEqual(read('2026-07-01T00:00+02:00').time, { hour: 0, minute: 0, second: 0 });
  assert.equal(read('2000-02-29').date, 29);
  assert.deepEqual([2026, 2028, 1900, 2000].map((y) => daysInMonth(y, 2)), [28, 29, 28, 29]);
  assert.deepEqual([1, 4, 6, 9, 11, 12].map((m) => daysInMonth(2026, m)), [31, 30, 30, 30, 30, 31]);
});

test('epoch seconds at the offset given, UTC without one; years below 100 are not read as 19xx', () => {
  assert.equal(utcSeconds(read('2028-02-29')), Date.UTC(2028, 1, 29) / 1000);
  assert.equal(utcSeconds(read('2026-07-01T09:30:15+02:00')), Date.UTC(2026, 6, 1, 7, 30, 15) / 1000);
  assert.equal(utcSeconds(read('2026-07-01T09:30'), 60), Date.UTC(2026, 6, 1, 8, 30) / 1000);
  assert.equal(new Date(utcSeconds(read('0050-03-01')) * 1000).toISOString(), '0050-03-01T00:00:00.000Z');
});

test('impossible dates and times are a problem naming the text and why, never the next day or month', () => {
  assert.equal(problem('2026-02-30'), '"2026-02-30" is not a real date: days of February 2026 run from 01 to 28');
  assert.equal(problem('2026-02-29'), '"2026-02-29" is not a real date: days of February 2026 run from 01 to 28');
  assert.equal(problem('1900-02-29'), '"1900-02-29" is not a real date: days of February 1900 run from 01 to 28');
  assert.equal(problem('2026-04-31'), '"2026-04-31" is not a real date: days of April 2026 run from 01 to 30');
  assert.equal(problem('2026-05-00'), '"2026-05-00" is not a real date: days of May 2026 run from 01 to 31');
  assert.equal(problem('2026-13-45'), '"2026-13-45" is not a real date: months run from 01 to 12');
  assert.equal(problem('2026-00-10'), '"2026-00-10" is not a real date: months run from 01 to 12');
  // The date is judged first: 2026-02-30T25:00 is wrong twice, and its date is said.
  assert.equal(problem('2026-02-30T25:00'), '"2026-02-30T25:00" is not a real date: days of February 2026 run from 01 to 28');
  assert.equal(problem('2026-03-01T25:00'), '"2026-03-01T25:00" is not a real time: hours run from 00 to 23');
  assert.equal(problem('2026-03-01T24:00'), '"2026-03-01T24:00" is not a real time: hours run from 00 to 23 (the end of a day is the next day\'s 00:00)');
  assert.equal(problem('2026-03-01 10:60'), '"2026-03-01 10:60" is not a real time: minutes run from 00 to 59');
  assert.equal(problem('2026-03-01T10:00:60Z'), '"2026-03-01T10:00:60Z" is not a real time: seconds run from 00 to 59');
  assert.equal(problem('2026-03-01T10:00+24:00'), '"2026-03-01T10:00+24:00" is not a real time: zone offsets run from -23:59 to +23:59');
});

test('text of another shape is the caller\'s to refuse', () => {
  for (const text of ['yesterday', '7d', '2026-7-1', '2026-07-01T9:00', '2026-07-01Z', '2026-07-01T10', ' 2026-07-01', '20260701']) assert.equal(readIsoTime(text), null, text);
});
