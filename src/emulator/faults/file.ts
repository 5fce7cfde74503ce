// `hermetic serve --faults FILE.json`: a JSON list of fault rules or presets, checked as POST /__admin/faults checks
// them, so a mistake is refused at startup with the item and field named.
import { readFileSync } from 'node:fs';
import { HermeticError } from '../../shared/errors.js';
import { parseFaultRules } from './rules.js';
import type { FaultRuleInput } from './types.js';

/**
 * The rules in `path` as written (createEmulator checks them again as its `faults` option); `name` is how the user
 * named the file.
 * @example createEmulator({ faults: loadFaultFile('faults.json') })
 */
export function loadFaultFile(path: string, name: string = path): FaultRuleInput[] {
  const where = `The fault file ${name}`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a folder, not a file' : `cannot be read (${code ?? (e as Error).message})`;
    throw new HermeticError('HERMETIC_FAULT_INVALID', `${where} ${why}.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new HermeticError('HERMETIC_FAULT_INVALID', `${where} is not valid JSON (${(e as Error).message}).`);
  }
  parseFaultRules(value, where, { unknown: 'HERMETIC_FAULT_INVALID', invalid: 'HERMETIC_FAULT_INVALID' });
  return value as FaultRuleInput[];
}
