// `hermetic report`: what the agent spent, from the usage ledger — a summary and tables on a terminal, or the rows of
// one grouping as JSON, CSV or Markdown. Reads the dataset (an older one is upgraded in place first), or with --from a
// PostgreSQL fleet store, read-only.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { looksLikeWhen, parseFlags, usageError, wholeNumber } from '../../cli/args.js';
import { HermeticError } from '../../shared/errors.js';
import { folderNotWritable, type Db } from '../../shared/sqlite.js';
import { columnsVersion, DATASET_VERSION } from '../dataset/columns.js';
import { hermeticHome } from '../home.js';
import { explicitTimeZone, systemTimeZone, Zone } from '../ledger/zone.js';
import { PERIODS, fleetUnread, fleetUnreadUnknown, type UnreadUnknown, unreadUnknownText, ledgerZone, MAX_TOP, parseFilters, planFilterMiss, type FilterMiss, fleetRowIssues, rowIssuesIn, type RowIssueCount, planUncosted, uncostedIn, unreadDays, unreadIn, unreadText, type UnreadSpan, renderCsv, renderMarkdown, renderSummary, resolveWindow, windowOrderProblem, course, previousWindow, windowDays, summaryTables, usageReport, type ReportRequest, type SummaryTables, type SummaryView, type UsageReport } from '../report/index.js';
import { checkBudgetGrouping, describeOverBudget, OVER_BUDGET_EXIT, overBudget, parseMaxCost } from '../report/budget.js';
import { sqliteDialect } from '../report/dialect.js';
import { planSummary, type SummaryRequest } from '../report/summary.js';
import { planReport, runSqlite } from '../report/query.js';
import { fleetOtherRules, otherRulesText, type OtherRules } from '../report/commands.js';
import { terminalWidth } from '../report/wrap.js';
import { terminalSafeJson } from '../../shared/terminal-text.js';
import { DATASET_FILE, openDataset, openDatasetReadOnly } from '../sinks/sqlite/dataset.js';
import { COMMON_FLAGS, fleetFrom } from './common.js';
import { REPORT_HELP } from './help.js';

/** The flags report parses (its help page documents each: help.test.ts). */
export const FLAGS = {
  home: COMMON_FLAGS.home, json: COMMON_FLAGS.json, help: COMMON_FLAGS.help,
  since: { type: 'string', lone: looksLikeWhen }, until: { type: 'string' }, period: { type: 'string', lone: (w: string) => (PERIODS as readonly string[]).includes(w) },
  by: { type: 'string', multiple: true },
  top: { type: 'string' }, filter: { type: 'string', multiple: true }, csv: { type: 'boolean' }, markdown: { type: 'boolean' }, utc: { type: 'boolean' },
  from: { type: 'string' }, 'max-cost': { type: 'string' },
} as const;

/** Where a report reads: the embedded dataset (sync), or the fleet store in PostgreSQL (`--from postgres://…`). */
interface ReportSource {
  /** The zone the ledger's days are in. */
  zone: Zone;
  report(request: ReportRequest, zone: Zone): Promise<UsageReport>;
  summary(request: SummaryRequest, now: number, zone: Zone): Promise<SummaryTables>;
  emptyDataset(): Promise<boolean>;
  /** Values the forwarder changed or left out in the window's sessions; null where the source does not keep them. */
  rowIssues(request: ReportRequest): Promise<RowIssueCount | null>;
  /** The command that lists those values where they are (the fleet store's own; the summary's default otherwise). */
  issuesQuery?: string;
  /** Sessions in the window with no cost recorded at all; null where the source does not tell. */
  uncosted(request: ReportRequest): Promise<number | null>;
  /** Sessions a windowed backfill left unread that reach into the window; null where the source does not tell. */
  unread(request: ReportRequest): Promise<UnreadSpan | null>;
  /** The fleet store: how many of its machines do not say what windowed backfills left unread (decision 0105). */
  unreadUnknown?(): Promise<UnreadUnknown | null>;
  /** Why a filtered window shows no usage (null: the window has none, filter or not). */
  filterMiss(request: ReportRequest): Promise<FilterMiss | null>;
  /** The fleet store: its machines whose terminal programs other rules named (decision 0152). */
  otherRules?(): Promise<OtherRules | null>;
  /** What the report left out because this role may not read a table, with the GRANT to run (the fleet store only). */
  unreadable?(): string[];
  close(): void | Promise<void>;
}

/** A word for a POSIX shell, in single quotes unless it needs none. */
const shellQuoted = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** What a note left out for a table the role may not read is (decision 0102). */
const LEFT_OUT: Readonly<Record<string, string>> = {
  row_issues: 'the values the forwarders repaired are not counted',
  backfill_unread: 'the sessions windowed backfills left unread are not said',
  progress: 'how many machines do not say what windowed backfills left unread, or whose commands other rules named, is not said',
};

/** This machine as `--by machine` shows it on its own dataset: its host name and, once a sink made one, its id. */
export function localMachine(home: string): { hostname: string; machineId: string | null } {
  let id: string | null = null;
  try {
    id = readFileSync(join(home, 'machine-id'), 'utf8').trim() || null;
  } catch { /* no remote sink yet: no id */ }
  return { hostname: hostname(), machineId: id };
}

function datasetSource(home: string): ReportSource {
  const db = openForReport(home);
  const dialect = sqliteDialect(localMachine(home));
  return {
    zone: ledgerZone(db),
    report: async (request) => usageReport(db, request, dialect),
    summary: async (request, now) => summaryTables(db, request, now, dialect),
    emptyDataset: async () => db.prepare('SELECT 1 FROM usage_ledger LIMIT 1').get() === undefined,
    rowIssues: async (request) => rowIssuesIn(db, request, dialect),
    uncosted: async (request) => uncostedIn(db, request),
    unread: async (request) => unreadIn(db, request),
    filterMiss: async (request) => db.transaction(() => runSqlite(db, planFilterMiss(request, dialect), dialect)).deferred(),
    close: () => { db.close(); },
  };
}

/**
 * The fleet store: each read of the report is one read-only transaction; days are each machine's, windows this one's.
 * One connection for the whole run (decision 0098): the default view reads four times (the summary, the repaired
 * values, the uncosted sessions, whether the store is empty), and a connection made afresh for each cost more than the
 * statements over a fleet of a year.
 */
async function fleetSource(url: string): Promise<ReportSource> {
  const [{ openFleet }, { runPostgres, fleetUsageReport }] = await Promise.all([import('../sinks/postgres/read.js'), import('../report/postgres.js')]);
  const fleet = openFleet(url);
  // Tables a later fleet version added that this role may not read: their notes are left out, and said why once.
  const denied = new Map<string, string>();
  const onDenied = (table: string, grant: string) => denied.set(table, grant);
  return {
    zone: new Zone(explicitTimeZone() ?? systemTimeZone()),
    report: (request, zone) => fleetUsageReport(fleet, request, zone),
    summary: (request, now, zone) => fleet.read((c, d) => runPostgres(c, planSummary(request, now, zone, d), d)),
    emptyDataset: () => fleet.read(async (c) => (await c.query('SELECT 1 FROM usage_ledger LIMIT 1')).rows.length === 0),
    // The values each machine's forwarder repaired: the dataset's plan, each session keyed by its machine too (decision 0092).
    rowIssues: (request) => fleet.read((c, d) => fleetRowIssues(c, request, d, onDenied)),
    // Each machine's repaired values are on the fleet store, read there (the URL as status shows it, password hidden).
    issuesQuery: `hermetic query --from ${shellQuoted(fleet.target.display)} "SELECT hostname, * FROM row_issues"`,
    // Sessions with no cost at all: the same rule as the dataset's, each session keyed by its machine too.
    uncosted: (request) => fleet.read((c, d) => runPostgres(c, planUncosted(request, d), d)),
    // What each machine's windowed backfills left unread, as each one's dataset says it, added up (decision 0102).
    unread: (request) => fleet.read((c, d) => fleetUnread(c, request, d, onDenied)),
    // How many machines that count cannot speak for: those whose forwarder sends no row (decision 0105).
    unreadUnknown: () => fleet.read((c, d) => fleetUnreadUnknown(c, d, onDenied)),
    filterMiss: (request) => fleet.read((c, d) => runPostgres(c, planFilterMiss(request, d), d)),
    otherRules: () => fleet.read((c, d) => fleetOtherRules(c, d, onDenied)),
    unreadable: () => [...denied].map(([table, grant]) => `hermetic: this role may not read the fleet's ${table} table, so ${LEFT_OUT[table] ?? 'its figures are left out'} here; have the schema's owner run: ${grant};`),
    close: () => fleet.close(),
  };
}

export interface ReportIo {
  /** Milliseconds since the epoch (injected by tests). */
  now?: () => number;
  /** Colour the terminal view (default: stdout is a terminal and NO_COLOR is unset). */
  color?: boolean;
  /** The width the tables fit in (default: terminalWidth()). */
  width?: number;
}

/**
 * The dataset, read-only; one written by an older Hermetic whose columns differ is migrated first (before version 3
 * that builds its usage ledger). One that differs only in how its tables are stored (version 15, decision 0172) is read
 * as it is, also in a folder this user may not write: the forwarder stores it again when it next writes.
 */
export function openForReport(home: string): Db {
  let db = openDatasetReadOnly(home);
  const version = db.pragma('user_version', { simple: true }) as number;
  if (columnsVersion(version) < columnsVersion(DATASET_VERSION)) {
    db.close();
    const why = folderNotWritable(home);
    if (why !== null) {
      const path = join(home, DATASET_FILE);
      throw new HermeticError('HERMETIC_DATASET_OPEN', `The dataset at ${path} was written by an older Hermetic (dataset version ${version}) and is upgraded before this one reads it, but ${why}; run hermetic report once as a user who may write there, or copy the folder to one you may write and give --home the copy.`);
    }
    // Before version 3 the upgrade builds the usage ledger from every session (it can take a while); later ones add columns.
    console.error(`hermetic: upgrading the dataset from version ${version} to ${DATASET_VERSION}${version < 3 ? ' (building its usage ledger)' : ''} before the first report…`);
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
  const top = values.top === undefined ? undefined : wholeNumber('--top', values.top, 1, MAX_TOP);
  const maxCost = values['max-cost'] === undefined ? undefined : parseMaxCost(values['max-cost']);
  const nowS = (io.now ?? Date.now)() / 1000;
  fleetFrom(values.from);
  if (values.from !== undefined && values.home !== undefined) usageError('--from and --home name two different datasets; give one.');
  const source = values.from !== undefined ? await fleetSource(values.from) : datasetSource(hermeticHome(values.home));
  try {
    // Days are the ledger's local days (or UTC ones with --utc); so are the windows' midnights.
    const built = source.zone;
    const zone = values.utc ? new Zone('UTC') : built;
    const asked = explicitTimeZone();
    if (values.from === undefined && asked !== undefined && asked !== built.name && !values.utc) {
      console.error(`hermetic: the ledger's days are in ${built.name}; HERMETIC_TZ=${asked} applies once the forwarder runs again (backfill or forward).`);
    }
    const window = resolveWindow({ period: values.period, since: values.since, until: values.until }, nowS, zone);
    // Without --until the window ends now: a start after it is in the future, and there is nothing to swap.
    const order = values.period === undefined ? windowOrderProblem(window, values) : null;
    if (order !== null) throw new HermeticError('HERMETIC_REPORT_INVALID', order);
    const filter = parseFilters(values.filter ?? []);
    const base: ReportRequest = { since: window.since, until: window.until, utc: values.utc === true, ...(Object.keys(filter).length > 0 ? { filter } : {}) };
    const by = values.by ?? [];
    if (maxCost !== undefined) checkBudgetGrouping(by);
    const color = io.color ?? (process.stdout.isTTY === true && !process.env.NO_COLOR);
    const width = io.width ?? terminalWidth();
    // A filter that leaves the window empty is said to be why (and what the window does have).
    const filterMiss = async (totals: UsageReport['totals']) => (totals.sessions === 0 && base.filter !== undefined ? (await source.filterMiss(base)) ?? undefined : undefined);
    // Sessions a windowed backfill left unread that reach into this window, with the days they span.
    const unreadSpan = await source.unread(base);
    const unread = unreadSpan ? unreadDays(unreadSpan, zone) : undefined;
    // On the fleet store, the machines that do not say (their forwarder is older): a count of the others is not the fleet's.
    const silent = (await source.unreadUnknown?.()) ?? null;
    const unreadUnknown = silent !== null && silent.machines > 0 ? silent : undefined;
    // What a terminal summary says beside its figures, with --by or without: the same lines either way.
    const notes = async (totals: UsageReport['totals']) => ({
      zoneName: zone.name, rowIssues: (await source.rowIssues(base)) ?? undefined, issuesQuery: source.issuesQuery, uncosted: (await source.uncosted(base)) ?? undefined,
      filterMiss: await filterMiss(totals), course: course(values.period, window, nowS, zone, totals.cost_usd), unread, unreadUnknown,
    });
    const before = previousWindow(values.period, window, nowS, zone);
    /**
     * After the report is printed: 0, or with --max-cost and rows over it, what went over on stderr and exit 3. Each
     * row of the grouping is judged, not the rest a --top sums into one (read again without it).
     */
    const budget = async (report: UsageReport): Promise<number> => {
      if (maxCost === undefined) return 0;
      const cut = report.rows.some((r) => r.other_rows !== undefined);
      const judged = cut ? await source.report({ ...base, by }, zone) : report;
      const over = overBudget(judged, maxCost);
      if (over === null) return 0;
      for (const line of describeOverBudget(over)) console.error(line.startsWith('over budget') ? `hermetic: ${line}` : line);
      return OVER_BUDGET_EXIT;
    };
    if (formats.length > 0 || by.length > 0) {
      const report = await source.report({ ...base, by, top }, zone);
      // By command on the fleet store: machines whose programs another Hermetic's rules named are said (decision 0152).
      const other = report.by.includes('command') ? await source.otherRules?.() : null;
      if (other && other.machines > 0) console.error(`hermetic: ${otherRulesText(other)}`);
      // The documents' shapes are fixed: what they lack is said beside them.
      if (unread && formats.length > 0) console.error(`hermetic: ${unreadText(unread)}`);
      if (unreadUnknown && formats.length > 0) console.error(`hermetic: ${unreadUnknownText(unreadUnknown, unread !== undefined)}`);
      if (values.json) console.log(terminalSafeJson(JSON.stringify(report, null, 2)));
      else if (values.csv) console.log(renderCsv(report));
      else if (values.markdown) console.log(renderMarkdown(report));
      else {
        // The summary above the table is the one without --by: its averages, trend and course included.
        const previous = before && (await source.report({ ...base, since: before.since, until: before.until, by: [] }, zone));
        const view: SummaryView = {
          totals: report, tables: [{ title: `By ${report.by.map((d) => d.replace(/_/g, " ")).join(" and ")}`, report }], emptyDataset: await source.emptyDataset(),
          previous: previous && { period: previous.period, totals: previous.totals }, days: windowDays(window, nowS), ...(await notes(report.totals)),
        };
        console.log(renderSummary(view, color, width));
      }
      return await budget(report);
    }
    // The terminal view: a summary, then by day (by month over long windows), model, source, and the costliest sessions.
    const summary = await source.summary({ ...base, ...(top !== undefined ? { top } : {}), before }, nowS, zone);
    const view: SummaryView = { ...summary, ...(await notes(summary.totals.totals)) };
    console.log(renderSummary(view, color, width));
    return await budget(summary.totals);
  } finally {
    for (const line of source.unreadable?.() ?? []) console.error(line);
    await source.close();
  }
}
