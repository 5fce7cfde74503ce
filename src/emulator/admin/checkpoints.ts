// Checkpoints and the timeline of the namespace the request is for: take one, list them, restore one, delete one; the
// graph with its branches and head, automatic checkpoints on or off; make, check out and delete a branch
// (namespaces/checkpoints.ts holds what a checkpoint keeps; decision 0065).
import { field, onlyKeys, type AdminContext } from './context.js';

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

/** GET /__admin/timeline: the checkpoints as a graph, the branches, the head, whether automatic checkpoints are on. */
export function timelineHandler({ deps }: AdminContext) {
  return deps.namespace.timeline();
}

/** POST /__admin/timeline {"auto": bool}: automatic checkpoints on or off for this namespace (a reset: as the options say). */
export function setTimelineHandler({ body, deps }: AdminContext) {
  onlyKeys(body, ['auto'], 'the timeline');
  if (body.has('auto')) deps.namespace.autoCheckpoints = field.boolean(body, 'auto');
  return deps.namespace.timeline();
}

/** The body's "checkpoint", if given. */
function checkpointField(body: AdminContext['body'], what: string): string | undefined {
  onlyKeys(body, ['checkpoint'], what);
  return body.has('checkpoint') ? field.string(body, 'checkpoint') : undefined;
}

/** POST /__admin/branches/{branch} {"checkpoint"?}: a new branch at that checkpoint (default: the head). */
export function createBranchHandler({ params, body, deps }: AdminContext) {
  return deps.namespace.checkpoints.createBranch(params.branch!, checkpointField(body, 'a new branch'));
}

/** POST /__admin/branches/{branch}/checkout {"checkpoint"?}: the branch becomes current, the state its head's. */
export function checkoutHandler({ params, body, deps }: AdminContext) {
  return deps.namespace.checkout(params.branch!, checkpointField(body, 'a checkout'));
}

/** DELETE /__admin/branches/{branch}: forgets it (its checkpoints stay). */
export function deleteBranchHandler({ params, deps }: AdminContext) {
  return deps.namespace.checkpoints.deleteBranch(params.branch!);
}
