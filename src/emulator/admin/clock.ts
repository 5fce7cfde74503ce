// POST /__admin/clock {"set": epoch | ISO time} | {"advance": seconds | "90s"} | {"freeze": bool} | {"reset": true}
// → {"now", "frozen"}; GET reads it. Times stay within EPOCH_MIN … EPOCH_MAX (decision 0014); a refused body changes
// nothing, freeze included.
import { EPOCH_MAX, epochProblem } from '../../shared/clock.js';
import { durationSeconds } from '../../shared/duration.js';
import { readIsoTime, utcSeconds } from '../../shared/iso-time.js';
import { HermeticError } from '../../shared/errors.js';
import type { PyDict } from '../../shared/python/index.js';
import { field, onlyKeys, type AdminContext } from './context.js';

/** An ISO date (midnight UTC) or date-time with its zone (Z or ±hh:mm) that exists, as epoch seconds; null otherwise. */
function isoTime(text: string): number | null {
  const t = readIsoTime(text.trim());
  return t === null || 'problem' in t || (t.time !== null && t.offsetMinutes === null) ? null : utcSeconds(t);
}

/**
 * A time field: a number (integers past 2**53 arrive as bigint and are simply out of range), or text: a duration for
 * "advance", an ISO time for "set".
 */
function timeField(body: PyDict, name: 'set' | 'advance'): number | undefined {
  const raw = body.get(name);
  if (typeof raw === 'bigint') return Number(raw);
  if (typeof raw === 'string') {
    const v = name === 'advance' ? durationSeconds(raw) : isoTime(raw);
    if (v === null) {
      throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', name === 'advance'
        ? `Field "advance" is "${raw}": give seconds (a number) or a duration such as "90s", "5m", "1h30m", "500ms".`
        : `Field "set" is "${raw}": give epoch seconds (a number) or an ISO time with its zone, such as "2026-09-12T00:00:00Z" (a date alone is midnight UTC).`);
    }
    return v;
  }
  return field.number(body, name);
}

export function clockHandler({ body, deps: { clock, namespace } }: AdminContext): { now: number; frozen: boolean } {
  onlyKeys(body, ['set', 'advance', 'freeze', 'reset'], 'the clock');
  if (body.has('reset')) {
    if (body.size > 1) throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', 'Give "reset" alone: it puts the clock back to how the options start it.');
    if (field.boolean(body, 'reset') !== true) throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', 'Field "reset" can only be true.');
    if (!namespace.resetClock()) throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', 'This namespace runs on a clock the caller gave (createEmulator({ clock })): it is the caller\'s to reset.');
    return { now: clock.now(), frozen: clock.frozen };
  }
  const set = timeField(body, 'set');
  const advance = timeField(body, 'advance');
  const freeze = body.has('freeze') ? field.boolean(body, 'freeze') : undefined;
  if (set !== undefined && advance !== undefined) {
    throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', 'Give "set" or "advance", not both.');
  }
  if (advance !== undefined && advance < 0) {
    throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', 'Field "advance" must not be negative; use "set" to move the clock back.');
  }
  if (set !== undefined) {
    const problem = epochProblem(set);
    if (problem) throw new HermeticError('HERMETIC_CLOCK_RANGE', `Field "set" is ${set}, which ${problem}.`);
  }
  if (advance !== undefined && clock.now() + advance > EPOCH_MAX) {
    throw new HermeticError(
      'HERMETIC_CLOCK_RANGE',
      `Field "advance" is ${advance}, which would move the clock past ${EPOCH_MAX} (the end of year 9999).`,
    );
  }
  if (freeze !== undefined) clock.freeze(freeze);
  if (set !== undefined) clock.set(set);
  if (advance !== undefined) clock.advance(advance);
  return { now: clock.now(), frozen: clock.frozen };
}
