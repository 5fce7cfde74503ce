// ISO 8601 dates and times as people type them in a flag (`2026-07-01`, `2026-07-01T09:00`, `2026-07-01 09:00:30Z`,
// `2026-07-01T09:00+02:00`), read strictly and once for every command: a day past its month's end (February 29
// outside a leap year too), hour 24 or more, minute or second 60 or more is refused, never rolled over into the next
// month, day or hour as Date.parse and Date.UTC do. 24:00 is refused as well: the end of a day is the next day's 00:00.

/** A date, or a date and wall-clock time, that exists on the calendar. */
export interface IsoTime {
  /** `YYYY-MM-DD` as given. */
  day: string;
  year: number;
  /** 1–12. */
  month: number;
  /** 1 to the month's length. */
  date: number;
  /** The wall-clock time; null for a date alone. `second` may have a fraction. */
  time: { hour: number; minute: number; second: number } | null;
  /** The zone offset given, in minutes east of UTC (`Z` is 0); null when none was. */
  offsetMinutes: number | null;
}

/** Why text shaped like an ISO date or time names none: a clause such as `"2026-02-30" is not a real date: …`. */
export interface IsoProblem {
  problem: string;
}

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?(Z|[+-]\d{2}:?\d{2})?)?$/;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

export const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

/** The days in `month` (1–12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Reads `YYYY-MM-DD`, optionally followed by `T` or a space and `HH:MM[:SS[.fff]]`, optionally followed by `Z` or
 * `±HH[:]MM`. Null when the text does not have that shape (the caller says what it accepts); an IsoProblem when it
 * has it but names no real date or time.
 * @example readIsoTime('2028-02-29T09:30') // { day: '2028-02-29', …, time: { hour: 9, minute: 30, second: 0 }, offsetMinutes: null }
 * @example readIsoTime('2026-02-29') // { problem: '"2026-02-29" is not a real date: days of February 2026 run from 01 to 28' }
 */
export function readIsoTime(text: string): IsoTime | IsoProblem | null {
  const m = SHAPE.exec(text);
  if (!m) return null;
  const [year, month, date] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const notDate = (why: string): IsoProblem => ({ problem: `"${text}" is not a real date: ${why}` });
  const notTime = (why: string): IsoProblem => ({ problem: `"${text}" is not a real time: ${why}` });
  if (month < 1 || month > 12) return notDate('months run from 01 to 12');
  const length = daysInMonth(year, month);
  if (date < 1 || date > length) return notDate(`days of ${MONTHS[month - 1]} ${m[1]} run from 01 to ${length}`);
  const iso = { day: `${m[1]}-${m[2]}-${m[3]}`, year, month, date, time: null, offsetMinutes: null };
  if (m[4] === undefined) return iso;
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  if (hour > 23) return notTime(`hours run from 00 to 23${hour === 24 ? ' (the end of a day is the next day\'s 00:00)' : ''}`);
  if (minute > 59) return notTime('minutes run from 00 to 59');
  if (second >= 60) return notTime('seconds run from 00 to 59');
  let offsetMinutes: number | null = null;
  if (m[7] === 'Z') offsetMinutes = 0;
  else if (m[7] !== undefined) {
    const digits = m[7].replace(':', '');
    const [hours, minutes] = [Number(digits.slice(1, 3)), Number(digits.slice(3, 5))];
    if (hours > 23 || minutes > 59) return notTime('zone offsets run from -23:59 to +23:59');
    offsetMinutes = (digits[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  return { ...iso, time: { hour, minute, second }, offsetMinutes };
}

/** Epoch seconds of a date (its midnight) or date-time at its offset; without one, at `offsetMinutes` (UTC by default). */
export function utcSeconds(t: IsoTime, offsetMinutes = t.offsetMinutes ?? 0): number {
  // setUTCFullYear, not Date.UTC: that one reads years 0–99 as 1900–1999.
  const d = new Date(0);
  d.setUTCFullYear(t.year, t.month - 1, t.date);
  d.setUTCHours(t.time?.hour ?? 0, t.time?.minute ?? 0, 0, 0);
  return d.getTime() / 1000 + (t.time?.second ?? 0) - offsetMinutes * 60;
}

/** Epoch seconds of a date (its midnight) or date-time in this machine's zone, unless it gives an offset of its own. */
export function machineSeconds(t: IsoTime): number {
  if (t.offsetMinutes !== null) return utcSeconds(t);
  const d = new Date(0);
  d.setFullYear(t.year, t.month - 1, t.date);
  d.setHours(t.time?.hour ?? 0, t.time?.minute ?? 0, 0, 0);
  return d.getTime() / 1000 + (t.time?.second ?? 0);
}
