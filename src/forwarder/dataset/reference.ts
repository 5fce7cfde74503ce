// docs/reference/dataset.md, generated from columns.ts (npm run docs:dataset writes it; a test holds it equal).
import { DATASET_TABLES, DATASET_VERSION } from './columns.js';

const esc = (s: string) => s.replace(/\|/g, '\\|');

export function datasetReference(): string {
  const out = [
    '# The forwarder\'s dataset',
    '',
    '<!-- Generated from src/forwarder/dataset/columns.ts by `npm run docs:dataset`; do not edit by hand. -->',
    '',
    `What \`hermetic backfill\` and \`hermetic forward\` write into \`<home>/hermetic.db\` (SQLite, WAL mode; home is`,
    '`--home`, else `$HERMETIC_HOME`, else `~/.hermetic`). Query it with `hermetic query "SQL"` or any SQLite client.',
    `Dataset version ${DATASET_VERSION} (\`PRAGMA user_version\`). Times are epoch seconds (REAL), as Hermes stores them:`,
    '`datetime(started_at, \'unixepoch\')` reads one. JSON columns hold JSON text (`json_extract` works on them).',
    '',
    'Usage adds up: `sessions` carries Hermes\'s own counters for every session, open ones included, so a SUM over it',
    'is Hermes\'s total. `model_usage` splits the same usage by model, route and task; its main-loop rows',
    '(`in_session_totals = 1`) are already inside `sessions`, its auxiliary rows (`in_session_totals = 0`) are not.',
    '',
  ];
  for (const t of DATASET_TABLES) {
    out.push(`## \`${t.name}\`${t.internal ? ' (forwarder state)' : ''}`, '', t.doc, '', `Primary key: ${t.primaryKey.map((k) => `\`${k}\``).join(', ')}${t.withoutRowid ? ' (a WITHOUT ROWID table)' : ''}.`, '');
    out.push('| column | type | meaning |', '| --- | --- | --- |');
    for (const c of t.columns) out.push(`| \`${c.name}\` | ${c.type}${c.notNull ? ' not null' : ''} | ${esc(c.doc)} |`);
    out.push('');
  }
  return out.join('\n');
}
