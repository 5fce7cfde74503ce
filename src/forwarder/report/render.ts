// How a report reads: the terminal view (a summary, then tables fitted to the terminal's width, 80 columns when piped;
// colour only on a terminal), and the same rows as CSV or Markdown. Pure text from `usageReport` results; no SQL here.
import { COMMAND_FIGURES, MEASURES, type Dimension, type ReportRow, type UsageReport } from './query.js';
import { EMPTY_COMMAND, NO_CALL, NO_COMMAND } from '../dataset/program.js';
import { describeFilterMiss, type FilterMiss } from './filter-miss.js';
import type { RowIssueCount } from './row-issues.js';
import { cacheHitRate, type SummaryTables } from './summary.js';
import { DEFAULT_WIDTH, displayWidth, fitParts, fitText, padText, widthUpTo, wrapWords } from './wrap.js';

export { DEFAULT_WIDTH };
import { BIDI_CONTROLS, controlPicture, terminalText } from '../../shared/terminal-text.js';

/** `$1,234`, `$12.34`, `$0.0042`, `$0.00`. */
export function formatCost(v: number | null): string {
  if (v === null) return '-';
  const a = Math.abs(v);
  if (a >= 100) return `$${Math.round(v).toLocaleString('en-US')}`;
  if (a >= 0.01 || a === 0) return `$${v.toFixed(2)}`;
  if (a < 0.00005) return '<$0.0001';
  return `$${v.toFixed(4)}`;
}

/**
 * `999`, `12.3k`, `123k`, `1.23M`, `4.50B`, `7.20T`, `9.01e+15`: at most five characters below 10^15 (`9,999,999` is
 * `10.0M`, not `10.00M`), and a number in exponent form past that.
 */
export function formatTokens(v: number | null): string {
  if (v === null) return '-';
  // Three significant digits, the precision chosen after rounding (9.996 is 10.0, 99.96 is 100), and the unit too
  // (999,600 is 1.00M, not 1000k).
  const scaled = (x: number, unit: string) => {
    const two = x.toFixed(2);
    const one = x.toFixed(1);
    return `${Number(two) < 10 ? two : Number(one) < 100 ? one : String(Math.round(x))}${unit}`;
  };
  if (v < 1000) return String(v);
  if (v < 999_500) return scaled(v / 1e3, 'k');
  if (v < 999_500_000) return scaled(v / 1e6, 'M');
  if (v < 999_500_000_000) return scaled(v / 1e9, 'B');
  if (v < 999_500_000_000_000) return scaled(v / 1e12, 'T');
  return v.toExponential(2);
}

/**
 * A time in seconds as people read it: `0.42s`, `8.1s`, `42s`, `3m 05s`, `2h 07m`, `3d 04h`; `-` when not known.
 * @example formatSeconds(185) // '3m 05s'
 */
export function formatSeconds(v: number | null): string {
  if (v === null || !Number.isFinite(v)) return '-';
  const two = (x: number) => String(x).padStart(2, '0');
  if (v < 9.95) return `${v.toFixed(v < 0.995 ? 2 : 1)}s`;
  const s = Math.round(v);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${two(s % 60)}s`;
  const m = Math.round(v / 60);
  if (m < 24 * 60) return `${Math.floor(m / 60)}h ${two(m % 60)}m`;
  const h = Math.round(v / 3600);
  return `${Math.floor(h / 24).toLocaleString('en-US')}d ${two(h % 24)}h`;
}

const count = (v: number | null) => (v === null ? '-' : v.toLocaleString('en-US'));
/** Whole numbers up to 9,999 as they are, larger ones short. */
const calls = (v: number | null) => (v === null ? '-' : v < 10_000 ? count(v) : formatTokens(v));
/** A count as `calls` writes it and its noun, singular for one: `1 session`, `12.3k API calls`. */
const counted = (v: number | null, noun: string) => `${calls(v)} ${v === 1 ? noun : `${noun}s`}`;

/** Which of the window's sessions have no cost, in words: "this session", "any of these 3", "2 of these 5". */
function uncostedWords(n: number, sessions: number | null): string {
  if (n === sessions) return `Hermes recorded no cost for ${n === 1 ? 'this session' : `any of these ${calls(n)} sessions`}`;
  return `Hermes recorded no cost for ${calls(n)} of these ${counted(sessions, 'session')}`;
}

interface Style { bold(s: string): string; dim(s: string): string; cost(s: string): string }
const PLAIN: Style = { bold: (s) => s, dim: (s) => s, cost: (s) => s };
const ANSI: Style = { bold: (s) => `\x1b[1m${s}\x1b[22m`, dim: (s) => `\x1b[2m${s}\x1b[22m`, cost: (s) => `\x1b[32m${s}\x1b[39m` };

const KEY_LABEL: Record<string, string> = { hour_of_day: 'hour of day', session_id: 'session', title: 'title', tree_title: 'title', tool: 'tool', command: 'command', machine_id: 'machine id' };
/** Keys holding a session id (a session's, or a tree's first session's): kept whole as long as anything can give way. */
const SESSION_IDS: readonly string[] = ['session_id', 'tree'];
/** Keys holding a title: the first to give way. */
const TITLES: readonly string[] = ['title', 'tree_title'];
/** A key's value as the table shows it: harmless on a terminal (terminalText), a missing one named. */
export const keyText = (v: string | number | null | undefined, name: string): string => {
  if (v === null || v === undefined) return name === 'project' ? '(none)' : TITLES.includes(name) ? '(untitled)' : '(unknown)';
  if (v === '') return name === 'task' ? 'main' : '(unknown)';
  return terminalText(String(v));
};

/** The key columns of a report's rows, in order (`store` is never shown; sessions and trees carry their title). */
function keyColumns(by: readonly Dimension[]): string[] {
  return by.flatMap((d) => (d === 'session' ? ['session_id', 'title'] : d === 'tree' ? ['tree', 'tree_title'] : d === 'machine' ? ['machine', 'machine_id'] : [d]));
}

interface Column {
  label: string; align: 'left' | 'right'; text(r: ReportRow): string; flex?: boolean; style?: keyof Style;
  /** Cut keeping the value's last parts (fitParts: a path's last folders, a model's name after its provider). */
  keepEnd?: boolean;
}

/** Keys told apart by their last parts: a project's last folders, a model's name after its provider (`openrouter/…`). */
const KEEP_END: readonly string[] = ['project', 'model', 'provider'];

/** Whether a row's cost is all billed (Hermes recorded an actual cost for every part of it). */
const allBilled = (r: ReportRow): boolean => {
  const cost = r.cost_usd as number | null;
  const actual = r.actual_cost_usd as number | null;
  return actual !== null && cost !== null && Math.abs(cost - actual) <= 1e-9 * Math.max(1, Math.abs(cost));
};

/** The mark of a row whose cost counts an estimate (some of it was not billed); a free row counts none. */
const ESTIMATE_MARK = '~';
const countsEstimate = (r: ReportRow): boolean => !allBilled(r) && ((r.cost_usd as number | null) ?? 0) > 0;

/**
 * Whether the cost column marks the rows that count an estimate: only when the table mixes them with rows all billed
 * (all estimated, or all billed, the summary's cost line says which).
 */
function marksEstimates(rows: readonly ReportRow[]): boolean {
  return rows.some(allBilled) && rows.some(countsEstimate);
}

/** The figures of a usage table; a table of sessions leaves out what a title needs the room for. */
function usageColumns(bySession: boolean, marks: boolean): Column[] {
  const all: Column[] = [
    {
      label: 'cost', align: 'right', style: 'cost',
      text: (r) => `${marks && countsEstimate(r) ? ESTIMATE_MARK : ''}${formatCost(r.cost_usd as number | null)}`,
    },
    { label: 'sessions', align: 'right', text: (r) => count(r.sessions as number) },
    { label: 'calls', align: 'right', text: (r) => calls(r.api_calls as number) },
    { label: 'input', align: 'right', text: (r) => formatTokens(r.input_tokens as number) },
    { label: 'output', align: 'right', text: (r) => formatTokens(r.output_tokens as number) },
    { label: 'cache rd', align: 'right', text: (r) => formatTokens(r.cache_read_tokens as number) },
    { label: 'cache wr', align: 'right', text: (r) => formatTokens(r.cache_write_tokens as number) },
  ];
  return bySession ? all.filter((c) => !['sessions', 'cache wr'].includes(c.label)) : all;
}

/**
 * What the rows by command that name no program hold, said under the table when one is shown. The dashboard's report
 * view (plain JS, public/views/report.js `NAMELESS`) says the same; page.test.ts holds the two equal.
 */
export const COMMAND_LABELS: readonly [string, string][] = [
  [NO_COMMAND, 'holds calls whose arguments have no command text'],
  [EMPTY_COMMAND, 'holds command lines that run no program (blank, a comment, only assignments)'],
  [NO_CALL, 'holds failed results whose call is not in the dataset'],
];

/** The figures of a table by command: calls, failed results, the time they took all told, a typical call's, sessions. */
function commandColumns(): Column[] {
  return [
    { label: 'calls', align: 'right', text: (r) => calls(r.tool_calls as number) },
    { label: 'failed', align: 'right', text: (r) => calls(r.tool_errors as number) },
    { label: 'time', align: 'right', text: (r) => formatSeconds(r.timed_calls ? r.seconds as number : null) },
    { label: 'median', align: 'right', text: (r) => formatSeconds(r.median_seconds as number | null) },
    { label: 'sessions', align: 'right', text: (r) => count(r.sessions as number) },
  ];
}

function toolColumns(): Column[] {
  return [
    { label: 'calls', align: 'right', text: (r) => calls(r.tool_calls as number) },
    { label: 'errors', align: 'right', text: (r) => calls(r.tool_errors as number) },
    { label: 'sessions', align: 'right', text: (r) => count(r.sessions as number) },
  ];
}

/** Key columns of a fixed, short width (an hour, a date, a week's Monday, a month): never cut. */
const FIXED_KEYS: readonly string[] = ['hour', 'day', 'week', 'month', 'weekday', 'hour_of_day'];
/** A key that has to give way keeps at least this many columns of its text (or its label, or all of it if shorter). */
const KEY_FLOOR = 12;
/** When the keys cannot keep that much, figures are left out, in this order (cost, input and output stay here). */
const DROP_ORDER = ['cache wr', 'sessions', 'cache rd', 'calls', 'errors'];
/** By command, the calls stay; what a typical call took goes before the time all told. */
const COMMAND_DROP_ORDER = ['sessions', 'median', 'failed', 'time'];
/** By tree, how many sessions a tree holds is what the grouping is for: it goes last of these. */
const TREE_DROP_ORDER = ['cache wr', 'cache rd', 'calls', 'errors', 'sessions'];
/** On a narrow terminal, when the keys cannot keep even their labels, these go too (cost always stays). */
const LAST_DROPS = ['output', 'input'];
/** A session id that cannot be shown whole keeps at least this much (its date and time). */
const SESSION_FLOOR = 16;

/**
 * A table that fits in `width` terminal columns (default 80). Figures are never cut; nor are day, week and month. The
 * other key columns share what is left: a session's title gives way first, then the widest, none below 12 columns;
 * a session id stays whole. If that is still too wide, the least needed figures are left out (a line under the table,
 * wrapped to the width, names them) and the keys get the room; on a narrow terminal the keys then go down to their
 * labels, output and input are left out, and only then is a session id cut (to its date and time) and the keys to a
 * character and `…`. A project, model or provider cut keeps its last parts (`…/backend-service`, `…claude-sonnet-4.6`:
 * fitParts), any other key its start. Values are shown harmless and measured in columns (terminalText, displayWidth).
 * @example renderTable(usageReport(db, { by: ['day', 'model'] }), false, { width: process.stdout.columns })
 */
export function renderTable(report: UsageReport, color = false, options: { omitOther?: boolean; width?: number } = {}): string {
  const style = color ? ANSI : PLAIN;
  const width = options.width ?? DEFAULT_WIDTH;
  const keys = keyColumns(report.by);
  const tools = report.by.includes('tool');
  const commands = report.by.includes('command');
  const rows = options.omitOther ? report.rows.filter((r) => r.other_rows === undefined) : report.rows;
  const marks = !tools && !commands && marksEstimates(rows);
  const allFigures = commands ? commandColumns() : tools ? toolColumns() : usageColumns(report.by.includes('session'), marks);
  const keyCols: Column[] = keys.map((k, i) => ({
    label: KEY_LABEL[k] ?? k, align: 'left', flex: !FIXED_KEYS.includes(k), keepEnd: KEEP_END.includes(k),
    text: (r: ReportRow) => (r.other_rows !== undefined ? (i === 0 ? `(${r.other_rows} more)` : '') : keyText(r[k] as string | number | null, k)),
  }));
  // Measured up to one past the width: a column is never shown wider, so a longer value's whole width changes nothing.
  const natural = (c: Column) => Math.max(displayWidth(c.label), ...rows.map((r) => widthUpTo(c.text(r), width + 1)));
  const keyNatural = keyCols.map(natural);
  const figureWidth = new Map(allFigures.map((c) => [c, natural(c)]));
  /** Each key's floor at a stage: fixed keys whole; a session id whole or at `session`; the others at `other`. */
  const floorsAt = (other: (label: number) => number, session: number | null) => keyCols.map((c, i) => {
    if (!c.flex) return keyNatural[i]!;
    if (SESSION_IDS.includes(keys[i]!)) return session === null ? keyNatural[i]! : Math.min(keyNatural[i]!, session);
    return Math.min(keyNatural[i]!, other(displayWidth(c.label)));
  });
  const lineWidth = (keyWidths: number[], figures: Column[]) =>
    keyWidths.reduce((a, b) => a + b, 0) + figures.reduce((a, c) => a + figureWidth.get(c)!, 0) + 2 * (keyWidths.length + figures.length - 1);
  let figures = allFigures;
  const keyWidths = [...keyNatural];
  /** Leave figures out, in order, only while the keys at `floors` do not fit. */
  const drop = (labels: readonly string[], floors: number[]) => {
    for (const label of labels) {
      if (lineWidth(floors, figures) <= width) break;
      figures = figures.filter((c) => c.label !== label);
    }
  };
  /** The flexible keys give way: a title first, then the widest, one column at a time, down to `floors`. */
  const shrink = (floors: number[]) => {
    while (lineWidth(keyWidths, figures) > width) {
      const can = keyCols.map((_, i) => i).filter((i) => keyWidths[i]! > floors[i]!);
      if (can.length === 0) break;
      const title = can.find((i) => TITLES.includes(keys[i]!));
      const widest = title ?? can.reduce((a, b) => (keyWidths[b]! > keyWidths[a]! ? b : a));
      keyWidths[widest]!--;
    }
  };
  const floors = floorsAt((label) => Math.max(KEY_FLOOR, label), null);
  drop(commands ? COMMAND_DROP_ORDER : report.by.includes('tree') ? TREE_DROP_ORDER : DROP_ORDER, floors);
  shrink(floors);
  const labelFloors = floorsAt((label) => Math.max(4, label), null);
  drop(LAST_DROPS, labelFloors);
  shrink(labelFloors);
  shrink(floorsAt((label) => Math.max(4, label), Math.max(SESSION_FLOOR, displayWidth(KEY_LABEL.session_id!))));
  shrink(floorsAt(() => 2, 2));
  const left = allFigures.filter((c) => !figures.includes(c));
  const cols = [...keyCols, ...figures];
  const widths = [...keyWidths, ...figures.map((c) => figureWidth.get(c)!)];
  const cells = rows.map((r) => cols.map((c) => c.text(r)));
  const line = (vals: string[], head = false) => vals.map((v, i) => {
    const c = cols[i]!;
    const padded = padText(c.keepEnd ? fitParts(v, widths[i]!) : fitText(v, widths[i]!), widths[i]!, c.align);
    return head ? style.bold(padded) : c.style ? style[c.style](padded) : padded;
  }).join('  ').trimEnd();
  const out = [line(cols.map((c) => c.label), true), style.dim(widths.map((w) => '─'.repeat(w)).join('  ')), ...cells.map((r) => line(r))];
  if (left.length > 0) {
    const hint = `(${left.map((c) => c.label).join(', ')} left out to fit ${width} columns: --csv or --json has them)`;
    out.push(...wrapWords(hint, width).map((l) => style.dim(l)));
  }
  if (marks) out.push(...wrapWords(`(${ESTIMATE_MARK}: counts Hermes's estimate where no billed cost was recorded)`, width).map((l) => style.dim(l)));
  if (commands && rows.length > 0) {
    // The rows that name no program say what they are, when shown.
    const shown = new Set(rows.map((r) => r.command));
    const odd = COMMAND_LABELS.filter(([label]) => shown.has(label)).map(([label, what]) => `; ${label} ${what}`).join('');
    out.push(...wrapWords(`(each call under the first program its command line runs; failed: its result says so (an exit code other than 0, an error); time: from call to result, added up; median: a typical call's${odd})`, width).map((l) => style.dim(l)));
  }
  return out.join('\n');
}

/** The window as people read it: `2026-07-08 … 2026-07-14 (Europe/Berlin)`, `all time`. */
export function describePeriod(report: UsageReport, zoneName: string): string {
  const { since, until } = report.period;
  if (since === null && until === null) return `all time (days in ${zoneName})`;
  const from = since === null ? 'the beginning' : since.slice(0, 10);
  // The window's end is exclusive: the last day shown is the day of the second before it.
  const to = until === null ? 'now' : lastDay(until);
  return `${from} … ${to} (days in ${zoneName})`;
}

function lastDay(iso: string): string {
  if (/T00:00:00/.test(iso)) {
    const t = Date.parse(`${iso.slice(0, 10)}T00:00:00Z`) / 1000 - 86400;
    return new Date(t * 1000).toISOString().slice(0, 10);
  }
  return iso.slice(0, 10);
}

export interface SummaryView extends SummaryTables {
  zoneName: string;
  /** Values the forwarder changed or left out in the window's sessions (the embedded dataset; none: not known). */
  rowIssues?: RowIssueCount;
  /** The command that lists them (default: `hermetic query "SELECT * FROM row_issues"`; on the fleet store its own). */
  issuesQuery?: string | undefined;
  /** A filter is why the window shows no usage: which part matched nothing (read only then). */
  filterMiss?: FilterMiss;
  /** Sessions of the window Hermes recorded no cost for at all (the embedded dataset; none: not known). */
  uncosted?: number;
  /** Sessions a windowed backfill left unread that reach into the window, with the days they span (report/unread.ts). */
  unread?: UnreadDays;
  /** The fleet store: how many of its machines do not say what windowed backfills left unread (report/unread.ts). */
  unreadUnknown?: UnreadUnknown;
  /** A calendar period to date (`--period today|week|month`): what its cost comes to if the rest goes as it has. */
  course?: { cost: number; end: string } | null;
}

/** Sessions left unread, with the local days from the earliest start to the latest activity among them. */
export interface UnreadDays {
  sessions: number;
  from: string;
  to: string;
}

/** Of the machines the fleet knows, how many do not say what their windowed backfills left unread (decision 0105). */
export interface UnreadUnknown {
  /** Machines with no `backfill_unread` row: their forwarder is older than dataset version 13 (or the fleet store is). */
  machines: number;
  /** The machines the fleet knows: those with a `progress` row (every batch writes one), and any that sent the row. */
  of: number;
  /**
   * The host names of the first of them (by name, at most `UNREAD_UNKNOWN_NAMES`, each cut to 64 characters): the
   * machines whose forwarder to update. Empty when the fleet store does not know them.
   */
  names: string[];
}

/** How many silent machines `unreadUnknownText` names before it says how many more. */
export const UNREAD_UNKNOWN_NAMES = 3;

/** `laptop-a`, `a and b`, `a, b and c`, `a, b, c and 2 more`: the names given, and how many of `all` they leave out. */
function namesText(names: readonly string[], all: number): string {
  const shown = names.slice(0, UNREAD_UNKNOWN_NAMES).map((n) => terminalText(n));
  const more = all - shown.length;
  if (more > 0) return `${shown.join(', ')} and ${calls(more)} more`;
  return shown.length <= 1 ? shown.join('') : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

/**
 * What the fleet's unread note cannot speak for (decision 0105), in one sentence: how many machines do not say, and
 * whether the count said (`counted`) is of the others, or the others left none unread in the window.
 */
export function unreadUnknownText(u: UnreadUnknown, counted: boolean): string {
  const rest = u.of - u.machines;
  const who = rest === 0
    ? (u.of === 1 ? 'The fleet\'s one machine does not say' : `None of the fleet's ${calls(u.of)} machines says`)
    : `${calls(u.machines)} of the fleet's ${calls(u.of)} machines${u.names.length ? ` (${namesText(u.names, u.machines)})` : ''} ${u.machines === 1 ? 'does' : 'do'} not say`;
  const others = rest === 1 ? 'the other machine' : `the other ${calls(rest)}`;
  const tail = rest === 0 ? '' : counted ? `; the count is of ${others}` : `; ${others} left none unread in this window`;
  return `${who} which sessions windowed backfills left unread (a forwarder older than dataset version 13 does not send it)${tail}.`;
}

/** What a report over history a windowed backfill left unread says about it, in one sentence. */
export function unreadText(u: UnreadDays): string {
  const one = u.sessions === 1;
  const days = u.from === u.to ? `on ${u.from}` : `between ${u.from} and ${u.to}`;
  return `${calls(u.sessions)} ${one ? 'session' : 'sessions'} active ${days} ${one ? 'is' : 'are'} not counted: a backfill's window (--since/--until) left ${one ? 'it' : 'them'} unread (hermetic forward, or a backfill without a window, reads ${one ? 'it' : 'them'}).`;
}

/** A change in percent as people read it: `+12%`, `-3%`, `±0%` under half a percent; null when there was nothing before. */
export function changeText(now: number | null, before: number | null): string | null {
  if (now === null || before === null || before <= 0) return null;
  const pct = ((now - before) / before) * 100;
  if (Math.abs(pct) < 0.5) return '±0%';
  // Ten times as much and more reads better as a multiple than as thousands of percent.
  if (now >= before * 10) return `×${Math.round(now / before).toLocaleString('en-US')}`;
  return `${pct > 0 ? '+' : '-'}${Math.abs(pct) >= 10 ? Math.round(Math.abs(pct)).toLocaleString('en-US') : Math.abs(pct).toFixed(1).replace(/\.0$/, '')}%`;
}

/** What one session, one API call and (over two days or more) one day cost on average, from the window's totals. */
function averages(t: UsageReport['totals'], days: number | null | undefined): string | null {
  const cost = t.cost_usd ?? 0;
  if (cost <= 0 || !t.sessions) return null;
  const parts = [
    ...(days != null && days >= 2 ? [`${formatCost(cost / days)} a day`] : []),
    `${formatCost(cost / t.sessions)} a session`,
    ...(t.api_calls ? [`${formatCost(cost / t.api_calls)} an API call`] : []),
  ];
  return `on average ${parts.join(' · ')}`;
}

/** The window against the window before it (window.ts previousWindow): how cost, sessions and API calls changed, then from what. */
function trend(view: SummaryView): string[] | null {
  const p = view.previous;
  if (!p) return null;
  const since = p.period.since ?? '';
  const until = p.period.until ?? '';
  const midnight = (iso: string) => /T00:00:00/.test(iso);
  const from = since.slice(0, 10);
  const to = lastDay(until);
  // Whole days by their dates; one day up to a time (`today` against yesterday) said so; days up to a time (a rolling
  // `7d` or `30d` against the same hours before it) with that time; other spans by their times.
  const when = !midnight(since) ? `${from} ${since.slice(11, 16)} … ${until.slice(0, 10) === from ? '' : `${until.slice(0, 10)} `}${until.slice(11, 16)}`
    : from === to ? `${from}${midnight(until) ? '' : ' up to the same time'}` : `${from} … ${to}${midnight(until) ? '' : ` ${until.slice(11, 16)}`}`;
  if (!p.totals.sessions) return [`nothing recorded in ${when}, the window before`];
  const t = view.totals.totals;
  const change = (now: number | null, before: number | null) => changeText(now, before) ?? 'new';
  return [
    `cost ${change(t.cost_usd, p.totals.cost_usd)} · sessions ${change(t.sessions, p.totals.sessions)} · API calls ${change(t.api_calls, p.totals.api_calls)}`,
    `from ${formatCost(p.totals.cost_usd)}, ${calls(p.totals.sessions)} ${p.totals.sessions === 1 ? 'session' : 'sessions'}, ${calls(p.totals.api_calls)} ${p.totals.api_calls === 1 ? 'call' : 'calls'} in ${when}`,
  ];
}

/** The label column of the summary: its figures start here, and so do their continuation lines. */
const LABEL_WIDTH = 11;

/**
 * The terminal report: a summary of the window, then each table under its title. The summary's lines fit `width`
 * (80 when piped) at any magnitude up to $99,999 and 10^10 tokens (counts past 9,999 are shown short); past that, or on
 * a narrower terminal, a line goes on under its figures rather than past the edge.
 */
export function renderSummary(view: SummaryView, color: boolean, width = DEFAULT_WIDTH): string {
  const style = color ? ANSI : PLAIN;
  const t = view.totals.totals;
  const out = [...wrapWords(`Hermes usage, ${describePeriod(view.totals, view.zoneName)}`, width).map((l) => style.bold(l)), ''];
  if (t.sessions === 0) {
    if (view.emptyDataset) out.push(...wrapWords('The dataset holds no usage yet: run "hermetic backfill" or "hermetic forward".', width));
    else if (view.filterMiss) out.push(describeFilterMiss(view.filterMiss, width));
    else out.push(...wrapWords('No usage was recorded in this window (try --period all).', width));
    if (view.unread) out.push(...wrapWords(unreadText(view.unread), width));
    if (view.unreadUnknown?.machines) out.push(...wrapWords(unreadUnknownText(view.unreadUnknown, view.unread !== undefined), width));
    return out.join('\n');
  }
  const average = averages(t, view.days);
  const rate = cacheHitRate(t);
  const hit = rate !== null ? `${(rate * 100).toFixed(1)}% of prompt tokens from the cache` : 'no prompt tokens';
  /** A labelled line: the label, then the text wrapped in the room after it. */
  const line = (name: string, text: string) => {
    const [first, ...rest] = wrapWords(text, Math.max(width - LABEL_WIDTH, 20));
    return [`${style.dim(name.padEnd(LABEL_WIDTH))}${first}`, ...rest.map((l) => `${' '.repeat(LABEL_WIDTH)}${l}`)];
  };
  out.push(
    ...line('cost', `${style.cost(formatCost(t.cost_usd))} (the billed cost where Hermes has one, else the estimate)`),
    ...line('', `estimated ${formatCost(t.estimated_cost_usd)} · ${t.actual_cost_usd === null ? 'no billed cost recorded' : `billed ${formatCost(t.actual_cost_usd)}`}`),
    ...(view.uncosted ? line('', `${uncostedWords(view.uncosted, t.sessions)}: ${view.uncosted === 1 ? 'its' : 'their'} $0.00 is not a measured cost`) : []),
    ...(average ? line('', average) : []),
    ...(view.course ? line('', `on course for ${formatCost(view.course.cost)} by the end of ${view.course.end}, if the rest of it goes as it has so far`) : []),
    ...line('tokens', `${formatTokens(t.input_tokens)} input · ${formatTokens(t.output_tokens)} output · ${formatTokens(t.reasoning_tokens)} reasoning`),
    ...line('cache', `${formatTokens(t.cache_read_tokens)} read · ${formatTokens(t.cache_write_tokens)} written: ${hit}`),
    ...line('activity', `${counted(t.sessions, 'session')} · ${counted(t.api_calls, 'API call')} · ${counted(t.tool_calls, 'tool call')}${t.tool_errors ? ` (${calls(t.tool_errors)} failed)` : ''}`),
    ...(trend(view) ?? []).flatMap((text, i) => line(i === 0 ? 'trend' : '', text)),
  );
  if (view.unread) out.push(...line('unread', unreadText(view.unread)));
  if (view.unreadUnknown?.machines) out.push(...line(view.unread ? '' : 'unread', unreadUnknownText(view.unreadUnknown, view.unread !== undefined)));
  const issues = view.rowIssues;
  if (issues && issues.entries > 0) {
    out.push(...line('repaired', `${calls(issues.entries)} ${issues.entries === 1 ? 'value' : 'values'} changed or left out while forwarding, in ${calls(issues.sessions)} ${issues.sessions === 1 ? 'session' : 'sessions'}`),
      ...line('', `(${view.issuesQuery ?? 'hermetic query "SELECT * FROM row_issues"'} lists them)`));
  }
  for (const table of view.tables) {
    if (table.report.rows.length === 0) continue;
    out.push('', ...wrapWords(table.title, width).map((l) => style.bold(l)), renderTable(table.report, color, { omitOther: table.omitOther, width }));
  }
  return out.join('\n');
}

/** Every column of a report's rows, keys first (as in the JSON). */
export function rowColumns(report: UsageReport): string[] {
  const keys = keyColumns(report.by);
  const measures: string[] = [...MEASURES, ...(report.by.includes('tool') ? ['tool_calls', 'tool_errors'] : report.by.includes('command') ? COMMAND_FIGURES : [])];
  const extra = report.rows.some((r) => r.other_rows !== undefined) ? ['other_rows'] : [];
  return [...keys, ...measures, ...extra];
}

/** Controls a CSV cell never needs (its TAB, CR and LF are quoted), and the bidi overrides: shown, not obeyed. */
const CSV_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;
/** What a spreadsheet reads as a formula at the start of a cell (OWASP's list for CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A text value as a CSV cell: controls and bidi overrides shown as a terminal shows them (a spreadsheet or a terminal
 * reading the file obeys neither), a value a spreadsheet would run as a formula (`=…`, `+…`, `-…`, `@…`, a leading
 * TAB or CR) led by `'`, as OWASP advises, and a CR (alone or before LF) a line break as LF: printed on a terminal a
 * CR sends the cursor back over what the cell showed. Numbers are never changed. --json gives every value exactly.
 */
export function csvText(value: string): string {
  const shown = value.replace(CSV_CONTROL, controlPicture).replace(BIDI_CONTROLS, controlPicture);
  return (FORMULA_START.test(shown) ? `'${shown}` : shown).replace(/\r\n?/g, '\n');
}

/** The rows as CSV (RFC 4180): a header, then one line per row; empty for NULL; text through csvText. */
export function renderCsv(report: UsageReport): string {
  const cols = rowColumns(report);
  const cell = (v: unknown) => {
    if (v === null || v === undefined) return '';
    const s = typeof v === 'number' ? String(v) : csvText(String(v));
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [cols.join(','), ...report.rows.map((r) => cols.map((c) => cell(r[c])).join(','))].join('\n');
}

/**
 * Characters Markdown gives a meaning inside a table cell: the cell's end, escapes, HTML, links, code, emphasis,
 * entities. An `_` between letters or digits is plain text to CommonMark (no emphasis inside a word): left as it is,
 * so ids and model names read as they are written.
 */
const MARKDOWN_ACTIVE = /[\\|<>[\]`*~&]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;

/**
 * A text value as one Markdown table cell that reads as written: one line (controls and line breaks shown as on a
 * terminal, terminalText), and every character Markdown would act on escaped with a backslash, so a title can neither
 * end its cell (`|`, `\|`), nor become HTML, a link, an image or code.
 * @example markdownText('a|b <img src=x>') // 'a\\|b \\<img src=x\\>'
 */
export function markdownText(value: string): string {
  return terminalText(value).replace(MARKDOWN_ACTIVE, (c) => `\\${c}`);
}

/**
 * The rows as a Markdown table (costs in dollars, counts with separators, times as formatSeconds writes them); a
 * --top's rest is labelled `(N more)` in its first key, as on a terminal (CSV leaves its keys empty: `other_rows`
 * tells it apart there).
 */
export function renderMarkdown(report: UsageReport): string {
  const cols = rowColumns(report);
  const first = keyColumns(report.by)[0];
  const cell = (c: string, v: unknown) => {
    if (v === null || v === undefined) return '';
    if (c.endsWith('_usd')) return formatCost(v as number);
    if (c === 'seconds' || c === 'median_seconds') return formatSeconds(v as number);
    if (typeof v === 'number') return v.toLocaleString('en-US');
    return markdownText(String(v));
  };
  const right = (c: string) => !keyColumns(report.by).includes(c);
  return [
    `| ${cols.join(' | ')} |`,
    `| ${cols.map((c) => (right(c) ? '---:' : '---')).join(' | ')} |`,
    ...report.rows.map((r) => `| ${cols.map((c) => (r.other_rows !== undefined && c === first ? `(${r.other_rows} more)` : cell(c, r[c]))).join(' | ')} |`),
  ].join('\n');
}
