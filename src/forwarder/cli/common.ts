// What the forwarder commands share: their flags, durations and times as people write them, and the summary line.
import { usageError, type FlagSpec } from '../../cli/args.js';
import { hidePassword } from '../../shared/url-password.js';
import type { PolicyDrop, StepResult } from '../pipeline/step.js';

export const COMMON_FLAGS = {
  'state-db': { type: 'string', multiple: true },
  home: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Record<string, FlagSpec>;

/** A `--from` flag: the fleet store's URL as given (postgres:// or postgresql://), else a usage error (password hidden). */
export function fleetFrom(from: string | undefined): string | undefined {
  if (from !== undefined && !/^postgres(ql)?:\/\//i.test(from)) usageError(`--from takes the fleet store's URL (postgres://… or postgresql://…); got "${hidePassword(from)}".`);
  return from;
}

const UNITS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** Seconds in `10s`, `5m`, `2h`, `7d`, `500ms`, `1w`; null when it is not a duration. */
export function durationSeconds(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/.exec(text);
  return m ? Number(m[1]) * UNITS[m[2]!]! : null;
}

/** An epoch-seconds time from `7d` (that long ago) or an ISO date/time; refused with a plain sentence otherwise. */
export function parseTime(flag: string, text: string, nowSeconds: number): number {
  const ago = durationSeconds(text);
  if (ago !== null) return nowSeconds - ago;
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())) {
    const ms = Date.parse(text.trim().length === 10 ? `${text.trim()}T00:00:00Z` : text.trim());
    if (Number.isFinite(ms)) return ms / 1000;
  }
  return usageError(`--${flag} must be a duration such as 7d, 12h or 30m, or an ISO date such as 2026-11-01; got "${text}".`);
}

export const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

const COUNTED = ['sessionsSeen', 'sessionsWritten', 'sessionsUnchanged', 'sessionsOutsideWindow', 'sessionsIgnored', 'sessionsRemoved', 'sessionsQuarantined', 'sessionsWaiting', 'messages', 'parts', 'messagesRemoved', 'partsRemoved', 'rowIssues'] as const;

/** A pass's counts over every store. */
export type Totals = { stores: number } & Pick<StepResult, (typeof COUNTED)[number]>;

export function totals(results: readonly StepResult[]): Totals {
  const t = { stores: results.length, ...Object.fromEntries(COUNTED.map((k) => [k, 0])) } as Totals;
  for (const r of results) for (const k of COUNTED) t[k] += r[k];
  return t;
}

/** Progress on a terminal: one line rewritten in place on stderr; nothing when piped. */
export function progressBar(stream: NodeJS.WriteStream, label: () => string): { update(done: number, total: number): void; end(): void } | null {
  if (!stream.isTTY) return null;
  let last = 0;
  let shown = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (done < total && now - last < 100) return;
      last = now;
      const width = 30;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      stream.write(`\r${label()} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} sessions`);
      shown = true;
    },
    end() { if (shown) stream.write('\n'); shown = false; },
  };
}

/** How many ignored sessions are named one per line; past that, one line sums them up. */
export const POLICY_DROPS_NAMED = 3;

/**
 * What the usage policy kept out of a pass, for stderr: a line per session when there are a few, else one line with
 * the count, the first ids, why (when one reason covers them all) and where to look.
 * @example policyDropLines(drops) // ['hermetic: 120 sessions not recorded, ignored by the usage policy: a, b, c and 117 more (…)']
 */
export function policyDropLines(drops: readonly PolicyDrop[]): string[] {
  if (drops.length <= POLICY_DROPS_NAMED) return drops.map((d) => `hermetic: session ${d.sessionId} not recorded: ${d.reason}`);
  const first = drops.slice(0, POLICY_DROPS_NAMED).map((d) => d.sessionId).join(', ');
  const reasons = new Set(drops.map((d) => d.reason));
  const where = reasons.size === 1 ? `all because ${[...reasons][0]!}` : `under ${plural(new Set(drops.map((d) => d.scope)).size, 'folder')}`;
  const more = (drops.length - POLICY_DROPS_NAMED).toLocaleString('en-US');
  return [`hermetic: ${plural(drops.length, 'session')} not recorded, ignored by the usage policy: ${first} and ${more} more (${where}; "hermetic policy check DIR" explains a folder)`];
}

/** ", 3 messages rewritten" when a pass removed messages (a rewrite: /retry, a rewind, compaction), else "". */
export function rewritten(t: Pick<StepResult, 'messagesRemoved'>): string {
  return t.messagesRemoved > 0 ? `; ${plural(t.messagesRemoved, 'message')} removed or rewritten` : '';
}

/**
 * Ctrl-C (SIGINT) for a command whose pass lets the event loop run between batches: the first stops the pass after
 * the batch it is writing (keepGoing turns false); a second one ends the process at once.
 */
export function interruption(): { readonly interrupted: boolean; keepGoing: () => boolean; release(): void } {
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) {
      console.error('hermetic: interrupted — run again to finish');
      process.exit(130);
    }
    interrupted = true;
  };
  process.on('SIGINT', onSignal);
  return {
    get interrupted() { return interrupted; },
    keepGoing: () => !interrupted,
    release: () => {
      process.off('SIGINT', onSignal);
    },
  };
}
