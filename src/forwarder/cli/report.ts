// `hermetic report`: what the agent spent, from the usage ledger — a summary and tables on a terminal, or the rows of
// one grouping as JSON, CSV or Markdown. Reads the dataset only (an older dataset is upgraded in place first).
import { parseFlags, usageError, wholeNumber } from '../../cli/args.js';
import { HermeticError } from '../../shared/errors.js';
import type { Db } from '../../shared/sqlite.js';
import { DATASET_VERSION } from '../dataset/columns.js';
import { hermeticHome } from '../home.js';
import { explicitTimeZone, Zone } from '../ledger/zone.js';
import { ledgerZone, parseFilters, renderCsv, renderMarkdown, renderSummary, resolveWindow, summaryTables, usageReport, type ReportRequest, type SummaryView } from '../report/index.js';
import { openDataset, openDatasetReadOnly } from '../sinks/sqlite/dataset.js';
import { COMMON_FLAGS } from './common.js';
import { REPORT_HELP } from './help.js';

const FLAGS = {
  home: COMMON_FLAGS.home, json: COMMON_FLAGS.json, help: COMMON_FLAGS.help,
  since: { type: 'string' }, until: { type: 'string' }, period: { type: 'string' }, by: { type: 'string', multiple: true },
  top: { type: 'string' }, filter: { type: 'string', multiple: true }, csv: { type: 'boolean' }, markdown: { type: 'boolean' }, utc: { type: 'boolean' },
} as const;

export interface ReportIo {
  /** Milliseconds since the epoch (injected by tests). */
  now?: () => number;
  /** Colour the terminal view (default: stdout is a terminal and NO_COLOR is unset). */
  color?: boolean;
}

/** The dataset, read-only; one written by an older Hermetic is migrated first (that builds its usage ledger). */
export function openForReport(home: string): Db {
  let db = openDatasetReadOnly(home);
  if ((db.pragma('user_version', { simple: true }) as number) < DATASET_VERSION) {
    db.close();
    console.error('hermetic: upgrading the dataset to this version (building its usage ledger) before the first report…');
    openDataset(home).close();
    db = openDatasetReadOnly(home);
  }
  return db;
}

export async function reportCommand(argv: string[], io: ReportIo = {}): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  if (values.help) return console.log(REPORT_HELP), 0;
  const formats = (['json', 'csv', 'markdown'] as const).filter((f) => values[f]);
  if (formats.length > 1) usageError(`Give one output format; got ${formats.map((f) => `--${f}`).join(' and ')}.`);
  const top = values.top === undefined ? undefined : wholeNumber('--top', values.top, 1, 1_000_000);
  const nowS = (io.now ?? Date.now)() / 1000;
  const db = openForReport(hermeticHome(values.home));
  try {
    // Days are the ledger's local days (or UTC ones with --utc); so are the windows' midnights.
    const built = ledgerZone(db);
    const zone = values.utc ? new Zone('UTC') : built;
    const asked = explicitTimeZone();
    if (asked !== undefined && asked !== built.name && !values.utc) {
      console.error(`hermetic: the ledger's days are in ${built.name}; HERMETIC_TZ=${asked} applies once the forwarder runs again (backfill or forward).`);
    }
    const window = resolveWindow({ period: values.period, since: values.since, until: values.until }, nowS, zone);
    if (window.since !== null && window.until !== null && window.since > window.until) {
      throw new HermeticError('HERMETIC_REPORT_INVALID', `--since ${values.since ?? ''} starts after --until ${values.until ?? 'now'} ends; swap them.`);
    }
    const filter = parseFilters(values.filter ?? []);
    const base: ReportRequest = { since: window.since, until: window.until, utc: values.utc === true, ...(Object.keys(filter).length > 0 ? { filter } : {}) };
    const by = values.by ?? [];
    const color = io.color ?? (process.stdout.isTTY === true && !process.env.NO_COLOR);
    const emptyDataset = () => db.prepare('SELECT 1 FROM usage_ledger LIMIT 1').get() === undefined;
    if (formats.length > 0 || by.length > 0) {
      const report = usageReport(db, { ...base, by, top });
      if (values.json) console.log(JSON.stringify(report, null, 2));
      else if (values.csv) console.log(renderCsv(report));
      else if (values.markdown) console.log(renderMarkdown(report));
      else console.log(renderSummary({ totals: report, tables: [{ title: `By ${by.join(' and ')}`, report }], zoneName: zone.name, emptyDataset: emptyDataset() }, color));
      return 0;
    }
    // The terminal view: a summary, then by day (by month over long windows), model, source, and the costliest sessions.
    const view: SummaryView = { ...summaryTables(db, base, nowS), zoneName: zone.name };
    console.log(renderSummary(view, color));
    return 0;
  } finally {
    db.close();
  }
}
