// POST /__admin/clock {"set": epoch} | {"advance": seconds} | {"freeze": bool} → {"now", "frozen"}; GET reads it.
import { HermeticError } from '../../shared/errors.js';
import { field, onlyKeys, type AdminContext } from './context.js';

export function clockHandler({ body, deps: { clock } }: AdminContext): { now: number; frozen: boolean } {
  onlyKeys(body, ['set', 'advance', 'freeze'], 'the clock');
  const set = field.number(body, 'set');
  const advance = field.number(body, 'advance');
  if (set !== undefined && advance !== undefined) {
    throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', 'Give "set" or "advance", not both.');
  }
  if (advance !== undefined && advance < 0) {
    throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', 'Field "advance" must not be negative; use "set" to move the clock back.');
  }
  if (body.has('freeze')) clock.freeze(field.boolean(body, 'freeze'));
  if (set !== undefined) clock.set(set);
  if (advance !== undefined) clock.advance(advance);
  return { now: clock.now(), frozen: clock.frozen };
}
