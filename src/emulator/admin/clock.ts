// POST /__admin/clock {"set": epoch} | {"advance": seconds} | {"freeze": bool} → {"now", "frozen"}; GET reads it.
// Times stay within EPOCH_MIN … EPOCH_MAX (decision 0014); a refused body changes nothing, freeze included.
import { EPOCH_MAX, epochProblem } from '../../shared/clock.js';
import { HermeticError } from '../../shared/errors.js';
import type { PyDict } from '../../shared/python/index.js';
import { field, onlyKeys, type AdminContext } from './context.js';

/** A time field: integers past 2**53 arrive as bigint and are simply out of range. */
function timeField(body: PyDict, name: string): number | undefined {
  const raw = body.get(name);
  return typeof raw === 'bigint' ? Number(raw) : field.number(body, name);
}

export function clockHandler({ body, deps: { clock } }: AdminContext): { now: number; frozen: boolean } {
  onlyKeys(body, ['set', 'advance', 'freeze'], 'the clock');
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
