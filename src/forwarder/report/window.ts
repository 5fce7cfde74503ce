// A report's window from what people type (`--period week`, `--since 7d`, `--until 2026-07-01`), in the ledger's
// time zone: days start at local midnight there, whatever zone the reading process runs in.
import { usageError } from '../../cli/args.js';
import { UNIT_SECONDS } from '../../shared/duration.js';
import { readIsoTime, utcSeconds } from '../../shared/iso-time.js';
import { utcDay, type Zone } from '../ledger/zone.js';

export const PERIODS = ['today', 'week', '7d', 'month', '30d', 'all'] as const;
export type Period = (typeof PERIODS)[number];

/** Epoch seconds; null for an open end. */
export interface Window {
  since: number | null;
  until: number | null;
}

const DAY = 86400;
/** The furthest a duration reaches back: 100 years. */
export const MAX_BACK = 36525 * DAY;

/** `YYYY-MM-DD` plus n days. */
export function addDays(day: string, n: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return utcDay(Date.UTC(y, m - 1, d + n) / 1000);
}

/**
 * A point in time from `7d` (whole days and weeks count back from today's local midnight: `1d` is today's start,
 * `7d` the start of the day six days ago), `12h`/`30m` (that long before now), `YYYY-MM-DD` (its local midnight, or,
 * as an end, the next day's: the day is included), or an ISO date-time (a zone offset, else local wall time). A date
 * or time that does not exist (2026-02-30, 2026-02-29, 25:00, 24:00, 10:60) is refused. `everything`: how a command
 * that reaches back past 1970 gets all of it instead (report's --period all; leaving the flag out elsewhere).
 */
export function parsePoint(flag: string, text: string, now: number, zone: Zone, end = false, everything = 'use --period all for everything'): number {
  const t = text.trim();
  const ago = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$/.exec(t);
  if (ago) {
    const n = Number(ago[1]);
    // Hermes has no usage from before 1970: a longer look back is a typo, and past this dates stop being dates.
    if (n * UNIT_SECONDS[ago[2]!]! > MAX_BACK) usageError(`--${flag} ${t} reaches back more than 100 years; ${everything}.`);
    if (ago[2] === 'd' || ago[2] === 'w') {
      const days = ago[2] === 'w' ? n * 7 : n;
      if (!Number.isInteger(days)) usageError(`--${flag} counts whole days: ${t} is not a whole number of days.`);
      return zone.startOfDay(addDays(zone.dayOf(now), 1 - days));
    }
    return now - n * UNIT_SECONDS[ago[2]!]!;
  }
  // Read strictly (shared/iso-time): 2026-02-30 or 25:00 is refused, never rolled over into the next month or day.
  const iso = readIsoTime(t);
  if (iso !== null) {
    if ('problem' in iso) usageError(`--${flag} ${iso.problem}.`);
    // As a look back of more than 100 years: before 1970 there is no usage, and dates stop being read as dates.
    if (Number(iso.day.slice(0, 4)) < 1970) usageError(`--${flag} ${t} is before 1970, when no usage can have been recorded; ${everything}.`);
    const t0 = iso.time === null ? zone.startOfDay(end ? addDays(iso.day, 1) : iso.day)
      : iso.offsetMinutes === null ? zone.timeOf(iso.day, iso.time.hour, iso.time.minute) + iso.time.second : utcSeconds(iso);
    // The end of 9999-12-31 is in the year 10000, which no window (nor its ISO times, in --json) can name.
    if (!/^\d{4}-/.test(zone.iso(t0))) usageError(`--${flag} ${t} reaches past the year 9999; leave --${flag} out for an open window.`);
    return t0;
  }
  return usageError(`--${flag} must be a duration such as 7d, 4w or 12h, or an ISO date such as 2026-07-01 (or 2026-07-01T09:00); got "${text}".`);
}

/**
 * The window of `--period`, or of `--since`/`--until` (default: the last 30 days). An explicit `--since` or a period
 * ends now; `--period all` and `--until` alone have no start.
 * @example resolveWindow({ period: 'today' }, now, zone) // { since: <local midnight>, until: now }
 */
export function resolveWindow(flags: { period?: string | undefined; since?: string | undefined; until?: string | undefined }, now: number, zone: Zone): Window {
  if (flags.period !== undefined && (flags.since !== undefined || flags.until !== undefined)) {
    usageError('--period sets the window; give it, or --since/--until, not both.');
  }
  if (flags.since === undefined && flags.until === undefined) {
    const period = flags.period ?? '30d';
    if (!(PERIODS as readonly string[]).includes(period)) usageError(`--period must be one of ${PERIODS.join(', ')}; got "${period}".`);
    const today = zone.dayOf(now);
    switch (period as Period) {
      case 'all':
        return { since: null, until: null };
      case 'today':
        return { since: zone.startOfDay(today), until: now };
      case 'week': {
        // ISO weeks start on Monday.
        const weekday = (new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7;
        return { since: zone.startOfDay(addDays(today, -weekday)), until: now };
      }
      case '7d':
        // As `--since 7d` and the dashboard's 7 d: today and the 6 days before it.
        return { since: zone.startOfDay(addDays(today, -6)), until: now };
      case 'month':
        return { since: zone.startOfDay(`${today.slice(0, 8)}01`), until: now };
      default:
        return { since: zone.startOfDay(addDays(today, -29)), until: now };
    }
  }
  return {
    since: flags.since === undefined ? null : parsePoint('since', flags.since, now, zone),
    until: flags.until === undefined ? (flags.since === undefined ? null : now) : parsePoint('until', flags.until, now, zone, true),
  };
}

/**
 * What is wrong with the order of a window people typed (`--since`, `--until`), in a sentence naming those flags; null
 * when it is a window. A start after the end, or at it when `--until` is a day (`--since 2026-03-30 --until 2026-03-29`:
 * the day after starts where that day ends) is to be swapped; two equal times leave no time; a start after now, with
 * no end, can have nothing recorded yet.
 */
export function windowOrderProblem(window: Window, flags: { since?: string | undefined; until?: string | undefined }): string | null {
  const { since, until } = window;
  if (since === null || until === null || since < until || (since === until && flags.until === undefined)) return null;
  if (flags.until === undefined) return `--since ${flags.since ?? ''} is after now: nothing can have been recorded yet.`;
  if (since > until || (!/T/i.test(flags.until) && flags.since !== flags.until)) return `--since ${flags.since ?? ''} starts after --until ${flags.until} ends; swap them.`;
  // Two equal times, or a day the zone skipped (Pacific/Apia's 2011-12-30).
  return `--since ${flags.since ?? ''} and --until ${flags.until} leave no time between them: the window is empty.`;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The window's length in days up to now (null without a start): what the summary's "a day" averages over. */
export const windowDays = (window: { since?: number | null; until?: number | null }, now: number): number | null =>
  window.since == null ? null : (Math.min(window.until ?? now, now) - window.since) / 86400;

/**
 * Where a calendar period to date (`today`, `week`, `month`) is heading: its cost so far scaled to the whole period,
 * once a seventh of it has gone by (earlier, a morning's spend says little about the month); null for other windows.
 * @example course('month', { since: <Dec 1>, until: now }, now, zone, 120) // { cost: 930, end: 'December' }
 */
export function course(period: string | undefined, window: Window, now: number, zone: Zone, cost: number | null): { cost: number; end: string } | null {
  if (window.since === null || cost === null || cost <= 0) return null;
  const today = zone.dayOf(now);
  let end: number;
  let name: string;
  if (period === 'today') {
    end = zone.startOfDay(addDays(today, 1));
    name = 'the day';
  } else if (period === 'week') {
    end = zone.startOfDay(addDays(today, 7 - ((new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7)));
    name = 'the week';
  } else if (period === 'month') {
    const [y, m] = today.split('-').map(Number) as [number, number];
    end = zone.startOfDay(utcDay(Date.UTC(y, m, 1) / 1000));
    name = MONTHS[m - 1]!;
  } else return null;
  const elapsed = now - window.since;
  const whole = end - window.since;
  if (elapsed <= 0 || elapsed < whole / 7) return null;
  return { cost: (cost * whole) / elapsed, end: name };
}

/**
 * The window a trend compares with: this one moved back by its period — a month for `--period month` (the same days
 * of the month before), a week for `week`, else as many whole days as it spans (yesterday up to this time for
 * `today`, the 30 days before for `30d`) — and never reaching into this one. Null for a window without a start.
 * @example previousWindow('today', { since: <today 00:00>, until: now }, now, zone) // yesterday 00:00 to this time
 */
export function previousWindow(period: string | undefined, window: Window, now: number, zone: Zone): Window | null {
  if (window.since === null) return null;
  // A window that ends in the future is compared for the part that has gone by.
  const end = Math.min(window.until ?? now, now);
  const startDay = zone.dayOf(window.since);
  let days: number;
  if (period === 'month') {
    const [y, m] = startDay.split('-').map(Number) as [number, number];
    days = Math.round((Date.parse(`${startDay}T00:00:00Z`) - Date.UTC(y, m - 2, 1)) / (DAY * 1000));
  } else {
    // A week to date against the week before; else whole days, counted as calendar days where the window starts at a
    // midnight (23- and 25-hour days included).
    days = period === 'week' ? 7 : Math.max(1, Math.ceil((end - window.since) / DAY - 1 / 24));
  }
  // Moved by local days: the same wall-clock times, whatever daylight saving did in between.
  const back = (t: number) => {
    const [, hh, mm, ss] = /T(\d\d):(\d\d):(\d\d(?:\.\d+)?)/.exec(zone.iso(t))!;
    return zone.timeOf(addDays(zone.dayOf(t), -days), Number(hh), Number(mm)) + Number(ss) + (t - Math.floor(t));
  };
  return { since: back(window.since), until: Math.min(back(end), window.since) };
}
