// Hermes's redactor over a shipped row, for sinks that leave the machine (decision 0035): every text and JSON column
// but the key (a masked key would no longer match its delete), JSON kept the same shape (projector/redact-json.ts).
import { redactSensitiveText } from '../../../shared/redact/index.js';
import type { DatasetTable, RecordOf } from '../../dataset/columns.js';
import { redactValue } from '../../projector/redact-json.js';

const redact = (text: string | null) => redactSensitiveText(text);

/** The columns a row's redaction looks at, per table (computed once). */
const TARGETS = new WeakMap<DatasetTable, { name: string; json: boolean }[]>();

function targets(t: DatasetTable): { name: string; json: boolean }[] {
  let out = TARGETS.get(t);
  if (!out) {
    const key = new Set(t.primaryKey);
    out = t.columns.filter((c) => !key.has(c.name) && (c.type === 'TEXT' || c.type === 'JSON')).map((c) => ({ name: c.name, json: c.type === 'JSON' }));
    TARGETS.set(t, out);
  }
  return out;
}

/**
 * The row with secrets masked (a new object when anything changed, else the same one).
 * @example redactRow(PARTS, { …, content_text: 'OPENAI_API_KEY=sk-…' }).content_text // 'OPENAI_API_KEY=***'
 */
export function redactRow(t: DatasetTable, row: RecordOf): RecordOf {
  let out: RecordOf | null = null;
  for (const c of targets(t)) {
    const v = row[c.name];
    if (typeof v !== 'string' || v === '') continue;
    let masked: string;
    if (c.json) {
      try {
        const value = JSON.parse(v) as unknown;
        const clean = redactValue(value, redact);
        masked = clean === value ? v : JSON.stringify(clean);
      } catch {
        masked = redact(v) ?? v;
      }
    } else {
      masked = redact(v) ?? v;
    }
    if (masked !== v) (out ??= { ...row })[c.name] = masked;
  }
  return out ?? row;
}
