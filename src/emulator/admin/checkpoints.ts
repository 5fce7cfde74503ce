// Checkpoints of the namespace the request is for: take one, list them, restore one, delete one
// (namespaces/checkpoints.ts holds what a checkpoint keeps).
import { onlyKeys, type AdminContext } from './context.js';

/** POST /__admin/checkpoints: saves the namespace's state now → its id. */
export function takeCheckpointHandler({ body, deps }: AdminContext) {
  onlyKeys(body, [], 'a checkpoint');
  return deps.namespace.checkpoint();
}

/** GET /__admin/checkpoints: every checkpoint of this namespace, oldest first. */
export function listCheckpointsHandler({ deps }: AdminContext) {
  return { checkpoints: deps.namespace.checkpoints.list() };
}

/** POST /__admin/checkpoints/{checkpoint_id}/restore: the namespace as it was when the checkpoint was taken. */
export function restoreCheckpointHandler({ params, body, deps }: AdminContext) {
  onlyKeys(body, [], 'a checkpoint restore');
  return deps.namespace.restoreCheckpoint(params.checkpoint_id!);
}

/** DELETE /__admin/checkpoints/{checkpoint_id}. */
export function deleteCheckpointHandler({ params, deps }: AdminContext) {
  return deps.namespace.checkpoints.delete(params.checkpoint_id!);
}
