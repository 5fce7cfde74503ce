// Hermes's `async_delegations` once per pass (decision 0054): a stamp of the whole table, compared with the one the
// store's row kept (`delegation_marks`); only when it moved, a digest per row finds the rows that changed, only those
// are read whole and projected, each judged by the usage policy of its delegating session's scopes, and the ids Hermes
// no longer has are said removed. The changes and the new marks go in the pass's last batch, so they commit with the
// store's cursor (a crash loses or repeats nothing: the next pass compares with the marks committed).
import { createHash } from 'node:crypto';
import type { RecordOf } from '../dataset/columns.js';
import type { PolicyResolver } from '../policy/index.js';
import { projectDelegation } from '../projector/delegation.js';
import { scopesOf } from '../projector/index.js';
import type { StoreRef } from '../reader/discover.js';
import type { Row, StoreReader } from '../reader/index.js';
import type { DelegationChanges } from '../sinks/sink.js';
import { redactSensitiveText } from '../../shared/redact/index.js';
import { judgeScopes } from './project.js';

/** What `stores.delegation_marks` keeps: the table's stamp and a digest per row, for this projection and redaction. */
export interface DelegationMarks {
  /** The projection's version: a new one reads every row again. */
  v: number;
  redact: boolean;
  /** reader/store.ts delegationStamp (`-` without the table; `` when a row is owed another look). */
  stamp: string;
  rows: Record<string, string>;
}

export const MARKS_VERSION = 1;

export interface DelegationContext {
  ref: Pick<StoreRef, 'path' | 'hermesHome'>;
  redact: boolean;
  origin: 'backfill' | 'forward';
  policy: PolicyResolver;
}

/** The marks a store's row holds (null: none yet, or not readable as marks). */
export function marksOf(row: RecordOf | null): DelegationMarks | null {
  const text = row?.delegation_marks;
  if (typeof text !== 'string') return null;
  try {
    const m = JSON.parse(text) as DelegationMarks;
    return m && typeof m.stamp === 'string' && m.rows && typeof m.rows === 'object' ? m : null;
  } catch {
    return null;
  }
}

const digest = (values: string) => createHash('sha256').update(values).digest('base64url').slice(0, 12);

/**
 * Which delegations differ from `prior` (changed or new; gone), with the table's stamp and each row's digest; null
 * when the stamp is the one kept. Call inside a read transaction of the store.
 */
function delegationDiff(reader: StoreReader, prior: DelegationMarks | null, redact: boolean): { stamp: string; digests: Map<string, string>; changed: string[]; removed: string[] } | null {
  const same = prior !== null && prior.v === MARKS_VERSION && prior.redact === redact;
  const stamp = reader.delegationStamp() ?? '-';
  if (same && prior.stamp === stamp) return null;
  const digests = new Map([...reader.delegationValues()].map(([id, values]) => [id, digest(values)]));
  const changed = [...digests].filter(([id, d]) => !same || prior.rows[id] !== d).map(([id]) => id);
  const removed = prior ? Object.keys(prior.rows).filter((id) => !digests.has(id)) : [];
  return { stamp, digests, changed, removed };
}

/**
 * How many delegations the next pass would write or mark removed (`hermetic status`), judged against the marks the
 * store's row keeps, with the redaction they were made under.
 */
export function pendingDelegations(reader: StoreReader, prior: DelegationMarks | null): number {
  const diff = reader.snapshot(() => delegationDiff(reader, prior, prior?.redact ?? false));
  return diff === null ? 0 : diff.changed.length + diff.removed.length;
}

/**
 * The delegations that changed since `prior` and the marks to keep, or null when nothing did (the stamp is the one
 * kept: one aggregate query). Reads in one read transaction of the store.
 * @example const found = delegationChanges(reader, marksOf(cursors.row), { ref, redact: false, origin: 'forward', policy });
 */
export function delegationChanges(reader: StoreReader, prior: DelegationMarks | null, ctx: DelegationContext): { changes: DelegationChanges; marks: DelegationMarks } | null {
  const read = reader.snapshot(() => {
    const diff = delegationDiff(reader, prior, ctx.redact);
    if (diff === null) return null;
    // Each delegating session's ancestry as the store has it now (the scopes that govern the delegation's text).
    const rows = reader.delegations(diff.changed);
    const ancestry = new Map<string, Row[]>();
    for (const r of rows) {
      const parent = typeof r.parent_session_id === 'string' ? r.parent_session_id : null;
      if (parent && !ancestry.has(parent)) ancestry.set(parent, reader.parents({ id: '', parent_session_id: parent }));
    }
    return { ...diff, rows, ancestry };
  });
  if (read === null) return null;
  const text = ctx.redact ? (t: string | null) => redactSensitiveText(t) : (t: string | null) => t;
  const changes: DelegationChanges = { rows: [], issues: [], dropped: [], removed: [] };
  const marks: DelegationMarks = { v: MARKS_VERSION, redact: ctx.redact, stamp: read.stamp, rows: Object.fromEntries(read.digests) };
  for (const row of read.rows) {
    const { record, issues } = projectDelegation({ store: ctx.ref.path, row, text, origin: ctx.origin });
    const id = record.delegation_id as string;
    // Judged as its delegating session is, by every scope of that session; a parent the store does not have (none
    // recorded, or deleted) leaves nobody to judge by: kept on this machine (local-only), never sent.
    const chain = typeof record.parent_session_id === 'string' ? read.ancestry.get(record.parent_session_id) ?? [] : [];
    const verdict = chain.length === 0 ? { cls: 'local-only' as const, why: '' } : judgeScopes(scopesOf(chain[0]!, chain.slice(1), ctx.ref.hermesHome), ctx.policy);
    if ('error' in verdict) {
      // A scope that cannot be judged now: not written, looked at again on the next pass.
      delete marks.rows[id];
      marks.stamp = '';
      continue;
    }
    if (verdict.cls === 'ignore') {
      changes.dropped.push(id);
      continue;
    }
    changes.rows.push({ ...record, policy: verdict.cls });
    changes.issues.push(...issues);
  }
  changes.removed.push(...read.removed);
  return { changes, marks };
}
