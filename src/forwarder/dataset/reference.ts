// docs/reference/dataset.md, generated from columns.ts (npm run docs:dataset writes it; a test holds it equal).
import { DATASET_TABLES, DATASET_VERSION } from './columns.js';

const esc = (s: string) => s.replace(/\|/g, '\\|');

/** How to read usage: the ledger, the cost it shows, and worked SQL (decision 0031). */
const LEDGER_GUIDE = [
  '## Reading usage: the ledger',
  '',
  'For "what did my agent spend", read `usage_ledger` (or run `hermetic report`, which reads it). Each row is one',
  'slice of usage: a session\'s tokens and dollars in one cell of time (an hour, cut at local midnight) on one model,',
  'route and task. Every token and dollar Hermes recorded is in it exactly once, so any grouping adds up to the same',
  'total: SUM over `sessions` plus the auxiliary rows of `model_usage`, for each counter and both costs. The rules',
  '(which split wins, where the rest goes, which day is "local") are in',
  '[decision 0031](../decisions/0031-usage-ledger.md). `cost_usd` is the cost to show: the billed `actual_cost_usd`',
  'where Hermes recorded one, else `estimated_cost_usd`; both are kept.',
  '',
  '```sql',
  '-- Cost and tokens per model and day for the last 7 days (local days; use day_utc for UTC days)',
  'SELECT day, model, ROUND(SUM(cost_usd), 2) AS usd, SUM(input_tokens) AS input, SUM(output_tokens) AS output,',
  '       SUM(cache_read_tokens) AS cache_read, SUM(api_calls) AS calls',
  "FROM usage_ledger WHERE day >= date('now', 'localtime', '-6 days')",
  'GROUP BY day, model ORDER BY day, usd DESC;',
  '',
  '-- The same total whatever the grouping: by task (main loop, title_generation, compression, vision, ...)',
  'SELECT task, ROUND(SUM(cost_usd), 4) AS usd, SUM(api_calls) AS calls FROM usage_ledger GROUP BY task;',
  '',
  '-- Per project (git repository root, else working directory) and source, this month',
  "SELECT COALESCE(project, '(none)') AS project, source, ROUND(SUM(cost_usd), 2) AS usd",
  "FROM usage_ledger WHERE day >= strftime('%Y-%m-01', 'now', 'localtime') GROUP BY 1, 2 ORDER BY usd DESC;",
  '',
  '-- The ten most expensive sessions with their titles',
  'SELECT l.session_id, s.title, ROUND(SUM(l.cost_usd), 2) AS usd',
  'FROM usage_ledger l JOIN sessions s USING (store, session_id)',
  'GROUP BY l.store, l.session_id ORDER BY usd DESC LIMIT 10;',
  '',
  '-- The terminal command lines the agent ran most, whole (`hermetic report --by command` groups them by program)',
  "SELECT json_extract(tool_args, '$.command') AS command, COUNT(*) AS calls FROM parts",
  "WHERE part_type = 'tool_call' AND tool_name = 'terminal' GROUP BY 1 ORDER BY calls DESC LIMIT 20;",
  '',
  '-- Check: the ledger equals the session counters plus the auxiliary rows (both sides give the same numbers)',
  'SELECT (SELECT SUM(input_tokens) FROM usage_ledger) AS ledger,',
  "       (SELECT SUM(MAX(input_tokens, 0)) FROM sessions) + (SELECT TOTAL(MAX(input_tokens, 0)) FROM model_usage WHERE in_session_totals = 0) AS counters;",
  '```',
  '',
  '`day` is local to the zone in `dataset_meta` (`ledger_time_zone`), which SQLite\'s `localtime` may not be;',
  'windows by time compare `at` (epoch seconds) instead. The tables below say what every column means.',
  '',
];

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
    ...LEDGER_GUIDE,
  ];
  for (const t of DATASET_TABLES) {
    out.push(`## \`${t.name}\`${t.internal ? ' (forwarder state)' : ''}`, '', t.doc, '', `Primary key: ${t.primaryKey.map((k) => `\`${k}\``).join(', ')}${t.withoutRowid ? ' (a WITHOUT ROWID table)' : ''}.`, '');
    out.push('| column | type | meaning |', '| --- | --- | --- |');
    for (const c of t.columns) out.push(`| \`${c.name}\` | ${c.type}${c.notNull ? ' not null' : ''} | ${esc(c.doc)} |`);
    out.push('');
  }
  return out.join('\n');
}
