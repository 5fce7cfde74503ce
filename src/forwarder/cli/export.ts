// `hermetic export parquet`: the dataset's tables and usage ledger as Parquet files for DuckDB, pandas, Spark
// (decision 0037). Reads the dataset only (an older one is upgraded in place first, as for `report`).
import { looksLikePath, looksLikeWhen, parseFlags, usageError } from '../../cli/args.js';
import { HermeticError } from '../../shared/errors.js';
import { exportParquet, type ExportSummary } from '../export/parquet/index.js';
import { hermeticHome } from '../home.js';
import { ledgerZone } from '../report/query.js';
import { parsePoint, windowOrderProblem } from '../report/window.js';
import { terminalSafeJson } from '../../shared/terminal-text.js';
import { byteSize, COMMON_FLAGS, plural } from './common.js';
import { EXPORT_HELP } from './help.js';
import { openForReport } from './report.js';

/** The flags export parses (its help page documents each: help.test.ts). */
export const FLAGS = {
  home: COMMON_FLAGS.home, json: COMMON_FLAGS.json, help: COMMON_FLAGS.help,
  out: { type: 'string', lone: looksLikePath }, since: { type: 'string', lone: looksLikeWhen }, until: { type: 'string' }, 'include-local-only': { type: 'boolean' },
} as const;

export interface ExportIo {
  /** Milliseconds since the epoch (injected by tests). */
  now?: () => number;
}

/** The terminal's summary: a line per table, then the totals and where the manifest is. */
export function renderExportSummary(s: ExportSummary, seconds: number): string {
  const window = s.window.since === null && s.window.until === null
    ? 'the whole dataset'
    : `${s.window.since ?? 'the start'} to ${s.window.until ?? 'now'} (messages and parts: UTC days ${s.window.firstDay ?? 'from the first'} to ${s.window.lastDay ?? 'the last'}, each rewritten whole)`;
  const lines = [`Exported ${window} from dataset version ${s.datasetVersion} to ${s.out}:`];
  const width = Math.max(...s.tables.map((t) => t.table.length));
  for (const t of s.tables) {
    const days = t.days === undefined ? '' : `  ${plural(t.days.length, 'day')} written${t.removedDays?.length ? `, ${plural(t.removedDays.length, 'day')} removed (no rows left)` : ''}`;
    lines.push(`  ${t.table.padEnd(width)}  ${plural(t.rows, 'row').padStart(16)}  ${plural(t.files, 'file').padStart(10)}  ${byteSize(t.bytes).padStart(9)}${days}`);
  }
  if (s.localOnly.sessions > 0) {
    lines.push(s.localOnly.exported
      ? `The ${plural(s.localOnly.sessions, 'local-only session')} are in the files (--include-local-only): keep them on this machine.`
      : `${plural(s.localOnly.sessions, 'local-only session')} left out, in every table (--include-local-only exports them).`);
  }
  lines.push(`Wrote ${plural(s.totals.files, 'file')}, ${plural(s.totals.rows, 'row')}, ${byteSize(s.totals.bytes)} in ${seconds.toFixed(1)} s. Manifest: ${s.manifest}`);
  return lines.join('\n');
}

export async function exportCommand(argv: string[], io: ExportIo = {}): Promise<number> {
  const { values, positionals } = parseFlags(argv, FLAGS, 1);
  if (values.help) return console.log(EXPORT_HELP), 0;
  const [format] = positionals;
  if (format === undefined) usageError('Name the format: hermetic export parquet --out DIR.');
  if (format !== 'parquet') throw new HermeticError('HERMETIC_EXPORT_INVALID', `Unknown export format "${format}"; the format Hermetic exports is parquet.`);
  if (values.out === undefined) usageError('--out DIR is required: the folder the Parquet files go to.');
  const now = (io.now ?? Date.now)();
  const started = process.hrtime.bigint();
  const db = openForReport(hermeticHome(values.home));
  try {
    // --since/--until read as `hermetic report` reads them (7d, 4w, 12h, ISO dates at the ledger's local midnight).
    const zone = ledgerZone(db);
    const since = values.since === undefined ? null : parsePoint('since', values.since, now / 1000, zone, false, 'leave --since out for everything');
    const until = values.until === undefined ? null : parsePoint('until', values.until, now / 1000, zone, true, 'leave --until out for everything');
    // A start at the end of an --until day (--since 2026-03-30 --until 2026-03-29), two equal times, or a start after
    // now with no end, is an empty window that exportParquet would take: refused as report refuses it (a start after
    // the end, exportParquet says).
    const order = since !== null && (until === null ? since > now / 1000 : since === until) ? windowOrderProblem({ since, until: until ?? now / 1000 }, values) : null;
    if (order !== null) throw new HermeticError('HERMETIC_EXPORT_INVALID', order);
    const summary = exportParquet(db, { out: values.out, since, until, now, includeLocalOnly: values['include-local-only'] === true });
    if (values.json) console.log(terminalSafeJson(JSON.stringify(summary, null, 2)));
    else console.log(renderExportSummary(summary, Number(process.hrtime.bigint() - started) / 1e9));
    return 0;
  } finally {
    db.close();
  }
}
