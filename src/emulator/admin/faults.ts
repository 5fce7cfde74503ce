// Fault controls for the namespace the request is for: add a rule or a named preset, list them with their counts,
// read or delete one, delete all, and list the presets (decision 0021).
import { ADMIN_FAULT_CODES, FAULT_PRESETS, parseFaultRule } from '../faults/index.js';
import type { FaultPresetName, FaultRuleInput, FaultRuleState } from '../faults/types.js';
import { HermeticError } from '../../shared/errors.js';
import { onlyKeys, type AdminContext } from './context.js';

/** POST /__admin/faults: one rule, or {"preset": name, …overrides}; answers it with its id. */
export function addFaultHandler({ body, deps }: AdminContext): FaultRuleState {
  return deps.namespace.faults.add(parseFaultRule(body, 'Fault rule', ADMIN_FAULT_CODES));
}

/**
 * POST /__admin/faults/presets/{preset}: the preset, with the body's fields overriding it (as {"preset": name, …} does
 * on POST /__admin/faults; the reference mock's spelling).
 */
export function addPresetHandler({ params, body, deps }: AdminContext): FaultRuleState {
  if (body.has('preset')) throw new HermeticError('HERMETIC_FAULT_INVALID', 'Fault rule: the preset is named by the path here, not by a "preset" field.');
  const rule = new Map([['preset', params.preset!], ...body]) as typeof body;
  return deps.namespace.faults.add(parseFaultRule(rule, 'Fault rule', ADMIN_FAULT_CODES));
}

/** GET /__admin/faults: every rule in the order they are tried, with counts. */
export function listFaultsHandler({ deps }: AdminContext): { faults: FaultRuleState[]; fired_total: number } {
  const { faults } = deps.namespace;
  return { faults: faults.list(), fired_total: faults.firedTotal() };
}

/** DELETE /__admin/faults: every rule of this namespace. */
export function clearFaultsHandler({ body, deps }: AdminContext): { deleted: number } {
  onlyKeys(body, [], 'deleting fault rules');
  return { deleted: deps.namespace.faults.clear().length };
}

/** GET /__admin/faults/{fault_id} */
export function getFaultHandler({ params, deps }: AdminContext): FaultRuleState {
  return deps.namespace.faults.get(params.fault_id!);
}

/** DELETE /__admin/faults/{fault_id}: the rule as it was, counts included. */
export function deleteFaultHandler({ params, body, deps }: AdminContext): FaultRuleState {
  onlyKeys(body, [], 'deleting a fault rule');
  return deps.namespace.faults.remove(params.fault_id!);
}

/** GET /__admin/faults/presets */
export function faultPresetsHandler(_: AdminContext): {
  presets: Array<{ name: FaultPresetName; description: string; rule: FaultRuleInput }>;
} {
  return { presets: FAULT_PRESETS.map((p) => ({ name: p.name, description: p.description, rule: { ...p.rule } })) };
}
