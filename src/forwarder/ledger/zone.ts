// The usage ledger's clock faces: local days in one IANA time zone, UTC days, and the ledger's cells (a UTC hour cut
// at local midnight). Pure: Intl only, no clock; every zone offset in use is a multiple of 15 minutes, so a quarter
// of an hour (900 s) never straddles a local midnight.
import { HermeticError } from '../../shared/errors.js';

export const QUARTER = 900;
const HOUR = 3600;

/** A cell of the ledger: `at` its start (epoch seconds), `day` its local day, `dayUtc` its UTC day. */
export interface Cell {
  at: number;
  day: string;
  dayUtc: string;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

const days = new Map<number, string>();

/** `YYYY-MM-DD` of an epoch second in UTC (the strings of recent days are kept). */
export function utcDay(t: number): string {
  const n = Math.floor(t / 86400);
  let s = days.get(n);
  if (s === undefined) {
    const d = new Date(n * 86400_000);
    s = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
    if (days.size > 20_000) days.clear();
    days.set(n, s);
  }
  return s;
}

/** The machine's zone (`TZ` included), as Hermes's `session_daily_usage` uses it. */
export function systemTimeZone(): string {
  return new Intl.DateTimeFormat('en-US').resolvedOptions().timeZone || 'UTC';
}

/**
 * A zone named by the option, else by `HERMETIC_TZ`, checked; undefined when neither names one. Refused
 * (HERMETIC_OPTIONS_INVALID) when it names no zone Intl knows.
 * @example explicitTimeZone(undefined, { HERMETIC_TZ: 'Europe/Berlin' }) // 'Europe/Berlin'
 */
export function explicitTimeZone(option?: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const name = option ?? (env.HERMETIC_TZ || undefined);
  if (name === undefined) return undefined;
  try {
    const spelled = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    // As named: ICU would rename some (Asia/Kathmandu → Asia/Katmandu, a link to its target). Only the letter case is
    // Intl's (america/new_york → America/New_York): one spelling a zone, so a case variant is not another zone to
    // rebuild the ledger in, nor a lower-case title.
    return spelled.toLowerCase() === name.toLowerCase() ? spelled : name;
  } catch {
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', `"${name}"${option === undefined ? ' (HERMETIC_TZ)' : ''} is not a time zone; use an IANA name such as Europe/Berlin, or UTC.`);
  }
}

/**
 * The ledger's zone: the option, else `HERMETIC_TZ`, else the zone the ledger was built in (`stored`), else the
 * machine's. A dataset keeps its zone until one is named.
 */
export function ledgerTimeZone(option: string | undefined, stored: string | null, env: NodeJS.ProcessEnv = process.env): string {
  return explicitTimeZone(option, env) ?? stored ?? systemTimeZone();
}

/** Local days, midnights and cells in one zone; offsets are cached per quarter of an hour. */
export class Zone {
  readonly name: string;
  readonly #format: Intl.DateTimeFormat | null;
  readonly #offsets = new Map<number, number>();
  readonly #cells = new Map<number, Cell>();

  constructor(name: string) {
    this.name = name;
    this.#format = name === 'UTC' || name === 'Etc/UTC' ? null : new Intl.DateTimeFormat('en-US', {
      timeZone: name, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
  }

  /** Seconds to add to UTC to get local wall time at `t`. */
  offsetAt(t: number): number {
    if (this.#format === null) return 0;
    const q = Math.floor(t / QUARTER);
    const hit = this.#offsets.get(q);
    if (hit !== undefined) return hit;
    const at = q * QUARTER;
    const parts: Record<string, number> = {};
    for (const p of this.#format.formatToParts(new Date(at * 1000))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
    const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!) / 1000;
    const offset = wall - at;
    if (this.#offsets.size > 50_000) this.#offsets.clear();
    this.#offsets.set(q, offset);
    return offset;
  }

  /** The local day (`YYYY-MM-DD`) of an epoch second. */
  dayOf(t: number): string {
    return utcDay(t + this.offsetAt(t));
  }

  /**
   * The epoch second a local wall time (`YYYY-MM-DD`, hours and minutes) falls on: the earlier one when clocks went
   * back over it, the end of the gap when clocks skipped it.
   */
  timeOf(day: string, hour = 0, minute = 0): number {
    const [y, m, d] = day.split('-').map(Number) as [number, number, number];
    const wall = Date.UTC(y, m - 1, d, hour, minute) / 1000;
    // The offsets a day either side hold the two a change of clocks can give.
    const candidates = [wall - this.offsetAt(wall - 86400), wall - this.offsetAt(wall + 86400)];
    const valid = candidates.filter((t) => t + this.offsetAt(t) === wall);
    return valid.length > 0 ? Math.min(...valid) : Math.max(...candidates);
  }

  /** Local midnight starting `day`. */
  startOfDay(day: string): number {
    return this.timeOf(day);
  }

  /**
   * The cell holding quarter `q` (epoch seconds / 900): its UTC hour, cut at a local midnight inside it (zones 30 or
   * 45 minutes off the hour), starting where the hour and the local day first meet.
   */
  cellOf(q: number): Cell {
    const hit = this.#cells.get(q);
    if (hit) return hit;
    const t = q * QUARTER;
    const day = this.dayOf(t);
    let at = Math.floor(t / HOUR) * HOUR;
    while (at < t && this.dayOf(at) !== day) at += QUARTER;
    const cell = { at, day, dayUtc: utcDay(at) };
    if (this.#cells.size > 50_000) this.#cells.clear();
    this.#cells.set(q, cell);
    return cell;
  }

  /**
   * The zone's offsets over [lo, hi]: the offset at `lo`, then each change inside (the first quarter of an hour it
   * holds from), in order. Looked for a day apart, then narrowed to the quarter: zones change offsets on quarter hours,
   * and not twice in a day.
   * @example new Zone('Europe/Berlin').offsetsBetween(Date.parse('2026-03-01') / 1000, Date.parse('2026-04-01') / 1000)
   * // [{ from: 1772323200, offset: 3600 }, { from: 1774746000, offset: 7200 }]
   */
  offsetsBetween(lo: number, hi: number): { from: number; offset: number }[] {
    const out = [{ from: lo, offset: this.offsetAt(lo) }];
    if (this.#format === null) return out;
    for (let t = lo; t < hi; t += 86400) {
      const next = Math.min(t + 86400, hi);
      if (this.offsetAt(next) === out[out.length - 1]!.offset) continue;
      // The first quarter after t whose offset is the new one.
      let [a, b] = [Math.floor(t / QUARTER), Math.floor(next / QUARTER)];
      while (b - a > 1) {
        const m = Math.floor((a + b) / 2);
        if (this.offsetAt(m * QUARTER) === out[out.length - 1]!.offset) a = m;
        else b = m;
      }
      out.push({ from: b * QUARTER, offset: this.offsetAt(b * QUARTER) });
    }
    return out;
  }

  /** An ISO 8601 time with this zone's offset (`2026-07-14T00:00:00+02:00`). */
  iso(t: number): string {
    const off = this.offsetAt(t);
    const d = new Date((Math.floor(t) + off) * 1000);
    const sign = off < 0 ? '-' : '+';
    const a = Math.abs(off);
    const zone = off === 0 ? 'Z' : `${sign}${pad(Math.floor(a / 3600))}:${pad(Math.floor((a % 3600) / 60))}`;
    return `${d.toISOString().slice(0, 19)}${zone}`;
  }
}
