// Scenario controls: GET lists the namespace's scenarios (in matching order, with the runs each has played), POST adds
// a document's scenarios and default, DELETE removes one by name or all. Runs already playing are not affected.
import { readScenarios } from '../scenarios/index.js';
import { field, onlyKeys, type AdminContext } from './context.js';

/** GET /__admin/scenarios */
export function listScenariosHandler({ deps }: AdminContext) {
  return deps.namespace.scenarios.describe();
}

/** POST /__admin/scenarios {"scenarios": [...], "default": ...}: a name already listed is replaced in place. */
export function addScenariosHandler({ body, deps }: AdminContext) {
  const book = deps.namespace.scenarios;
  book.add(readScenarios(body, 'POST /__admin/scenarios', book.nameFor));
  return book.describe();
}

/** DELETE /__admin/scenarios (?name=… or {"name"}): one scenario, or every one and the default back to manual. */
export function deleteScenariosHandler({ req, body, deps }: AdminContext) {
  onlyKeys(body, ['name'], 'removing scenarios');
  const book = deps.namespace.scenarios;
  const name = new URLSearchParams(req.query).get('name') ?? field.nullableString(body, 'name', null);
  if (name === null) book.clear();
  else book.remove(name);
  return book.describe();
}
