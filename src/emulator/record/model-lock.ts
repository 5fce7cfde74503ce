// A model lock recorded into a state.db as SessionDB.update_session_runtime_lock writes it (decision 0147): the lock
// merged into the file's own row's model_config (the keys Hermes or an earlier lock left there kept, in order),
// `model = COALESCE(?, model)`, the prompt columns cleared, then the prompts no row references deleted. A row the file
// does not have is left alone, as the merge finds no row; a model_config json.loads raises on fails the write.
import type { StateDbWriter } from '../../state-db/writer/index.js';
import { BROWSER_MODEL_LOCK, mergeModelConfig } from '../sessions/model-config.js';
import type { ModelLockRecord } from '../sessions/service.js';

export function recordModelLock(w: StateDbWriter, id: string, lock: ModelLockRecord): void {
  w.tx(() => {
    const row = w.stmt('SELECT model_config FROM sessions WHERE id = ?').get(id) as { model_config: unknown } | undefined;
    if (!row) return;
    const merged = mergeModelConfig(row.model_config, new Map([[BROWSER_MODEL_LOCK, lock.entry]]));
    const hashed = w.has('sessions', 'system_prompt_hash');
    w.stmt(`UPDATE sessions SET model_config = ?, model = COALESCE(?, model), system_prompt = NULL${hashed ? ', system_prompt_hash = NULL' : ''}
      WHERE id = ?`).run(merged, lock.model, id);
    // _delete_unreferenced_system_prompts (stores from v25 keep prompts content-addressed).
    if (w.has('system_prompts')) {
      w.stmt('DELETE FROM system_prompts WHERE NOT EXISTS (SELECT 1 FROM sessions WHERE sessions.system_prompt_hash = system_prompts.hash)').run();
    }
  });
}
