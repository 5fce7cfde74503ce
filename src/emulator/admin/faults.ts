// Fault controls for the namespace the request is for: add a rule or a named preset (for this namespace, or with
// "namespace": "*" for every namespace), list them with their counts, read or delete one, delete all, and list the
// presets (decisions 0021, 0066).
import { ADMIN_FAULT_CODES, EVERY_NAMESPACE, FAULT_PRESETS, parseFaultRule, type ParsedFaultRule } from '../faults/index.js';
import type { FaultPresetName, FaultRuleInput, FaultRuleState } from '../faults/types.js';
import { HermeticError } from '../../shared/errors.js';
import { field, onlyKeys, type AdminContext } from './context.js';

/**
 * A rule for the namespace the request is for: its own name is the same as none; another namespace's is refused
 * (a change acts only on the namespace the request names, as `?namespace=` is refused: decision 0064).
 */
function forThisNamespace(rule: ParsedFaultRule, deps: AdminContext['deps']): ParsedFaultRule {
  const { namespace } = rule;
  if (namespace === null || namespace === EVERY_NAMESPACE) return rule;
  if (namespace === deps.namespace.name) return { ...rule, namespace: null };
  const path = namespace === 'default' ? '/__admin/faults' : `/ns/${namespace}/__admin/faults`;
  throw new HermeticError(
    'HERMETIC_FAULT_INVALID',
    `Fault rule: field "namespace" is "${namespace}", but this request is for namespace "${deps.namespace.name}"; add it through ${path}, or give "*" for every namespace.`,
  );
}

/** POST /__admin/faults: one rule, or {"preset": name, …overrides}; answers it with its id. */
export function addFaultHandler({ body, deps }: AdminContext): FaultRuleState {
  return deps.namespace.faults.add(forThisNamespace(parseFaultRule(body, 'Fault rule', ADMIN_FAULT_CODES), deps));
}

/**
 * POST /__admin/faults/presets/{preset}: the preset, with the body's fields overriding it (as {"preset": name, …} does
 * on POST /__admin/faults; the reference mock's spelling).
 */
export function addPresetHandler({ params, body, deps }: AdminContext): FaultRuleState {
  if (body.has('preset')) throw new HermeticError('HERMETIC_FAULT_INVALID', 'Fault rule: the preset is named by the path here, not by a "preset" field.');
  const rule = new Map([['preset', params.preset!], ...body]) as typeof body;
  return deps.namespace.faults.add(forThisNamespace(parseFaultRule(rule, 'Fault rule', ADMIN_FAULT_CODES), deps));
}

/** GET /__admin/faults: every rule in the order they are tried (this namespace's, then those for every namespace), with counts. */
export function listFaultsHandler({ deps }: AdminContext): { faults: FaultRuleState[]; fired_total: number } {
  const { faults } = deps.namespace;
  return { faults: faults.list(), fired_total: faults.firedTotal() };
}

/** DELETE /__admin/faults: every rule of this namespace; {"namespace": "*"}: every rule for every namespace instead. */
export function clearFaultsHandler({ body, deps }: AdminContext): { deleted: number } {
  onlyKeys(body, ['namespace'], 'deleting fault rules');
  const namespace = field.nullableString(body, 'namespace', null);
  if (namespace === EVERY_NAMESPACE) return { deleted: deps.namespace.faults.clearEverywhere().length };
  if (namespace !== null && namespace !== deps.namespace.name) {
    throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', `Field "namespace" is "${namespace}": give "*" (the rules for every namespace), or leave it out (this namespace's own rules).`);
  }
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
