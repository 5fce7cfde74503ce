// Lineage kind of a child session (spec state-db §8, forwarding §6.4 item 26): compression continuation, branch,
// delegate subagent, reset child, from the markers in `model_config` and the parent's end reason.

export type LineageKind = 'compression' | 'branch' | 'delegate' | 'reset' | 'child';

function markers(modelConfig: unknown): Record<string, unknown> {
  if (typeof modelConfig !== 'string') return {};
  try {
    const v = JSON.parse(modelConfig) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function lineageKind(row: Readonly<Record<string, unknown>>, parent: Readonly<Record<string, unknown>> | undefined): LineageKind | null {
  if (typeof row.parent_session_id !== 'string' || row.parent_session_id === '') return null;
  const m = markers(row.model_config);
  if (m._delegate_from !== undefined || row.source === 'subagent') return 'delegate';
  if (m._branched_from !== undefined) return 'branch';
  if (m._reset_from !== undefined) return 'reset';
  if (parent?.end_reason === 'compression') return 'compression';
  if (parent?.end_reason === 'branched') return 'branch';
  return 'child';
}
