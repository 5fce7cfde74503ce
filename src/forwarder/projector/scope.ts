// The directory whose usage policy governs a session (spec forwarding §2.7, §4, §6.1 item 9): interactive surfaces
// use the recorded `cwd`; messaging surfaces `<hermes home>/channels/<source>`; automation surfaces
// `<hermes home>/sources/<source>`; delegates inherit every scope of their parent chain; a handed-off session is
// also governed by the channel it was handed to. Paths are joined with `/` (pure code, no node:path).

export const INTERACTIVE = new Set(['cli', 'oneshot', 'tui', 'desktop', 'acp']);
export const AUTOMATION = new Set(['cron', 'kanban', 'batch', 'tool', 'api_server', 'api-server', 'relay', 'unknown', '_health_probe']);

const join = (dir: string, ...parts: string[]) => [dir.replace(/\/+$/, ''), ...parts].join('/');
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The session's own scope, not counting its parents. */
export function ownScope(row: Readonly<Record<string, unknown>>, hermesHome: string): string | null {
  const source = str(row.source) ?? 'unknown';
  if (INTERACTIVE.has(source)) return str(row.cwd);
  if (source === 'subagent') return null;
  if (AUTOMATION.has(source)) return join(hermesHome, 'sources', source);
  return join(hermesHome, 'channels', source);
}

/**
 * Every scope that governs the session, the primary one first: its own, the channel of a handoff, and for a
 * delegate (or a session with no scope of its own) the scopes of its parents. The policy is the most restrictive.
 */
export function scopesOf(row: Readonly<Record<string, unknown>>, parents: readonly Readonly<Record<string, unknown>>[], hermesHome: string): string[] {
  const out: string[] = [];
  const add = (s: string | null) => { if (s && !out.includes(s)) out.push(s); };
  add(ownScope(row, hermesHome));
  const handoff = str(row.handoff_platform);
  if (handoff) add(join(hermesHome, 'channels', handoff));
  const delegate = row.source === 'subagent' || /"_delegate_from"/.test(String(row.model_config ?? ''));
  if (delegate || out.length === 0) {
    for (const p of parents) {
      add(ownScope(p, hermesHome));
      const h = str(p.handoff_platform);
      if (h) add(join(hermesHome, 'channels', h));
    }
  }
  if (row.source === 'subagent' && out.length === 0) add(join(hermesHome, 'sources', 'subagent'));
  return out;
}
