// A spending limit a scheduled job can check (decision 0115): which rows of a report cost more than `--max-cost` —
// each hour, session, tree, day × model… of its grouping, or the whole window without one. `hermetic report` prints
// its report as always, says on stderr what went over, and exits 3, so cron (or CI) can tell "over budget" apart
// from a failure (1) and a refused command line (2).
import { HermeticError } from '../../shared/errors.js';
import type { Dimension, ReportRow, UsageReport } from './query.js';
import { formatCost, keyText } from './render.js';
import { displayWidth, fitParts, fitText, padText } from './wrap.js';

/** The exit code of a report with rows over its `--max-cost`. */
export const OVER_BUDGET_EXIT = 3;

/** Rows named in the message; the rest are counted. */
export const OVER_BUDGET_NAMED = 10;

export interface OverBudget {
  limit: number;
  /** The grouping the rows are of (none: the window's own total). */
  by: readonly Dimension[];
  /** The rows above the limit, the costliest first. */
  over: ReportRow[];
  /** How many rows were judged. */
  of: number;
}

/**
 * `--max-cost`'s value in US dollars: `5`, `0.50`, `$12`, `.5`, `1.`; a refusal (exit 2) says what it takes.
 * @example parseMaxCost('$2.50') // 2.5
 */
export function parseMaxCost(text: string): number {
  const t = text.trim().replace(/^\$/, '');
  const v = /^\d+(\.\d*)?$|^\.\d+$/.test(t) ? Number(t) : NaN;
  if (!Number.isFinite(v)) throw new HermeticError('HERMETIC_CLI_USAGE', `--max-cost takes an amount in US dollars, such as 5 or 0.50; got "${text}".`);
  return v;
}

/** Refuses a grouping whose rows have no cost (tool calls, terminal commands): a limit on it could never be passed. */
export function checkBudgetGrouping(by: readonly string[]): void {
  if (by.includes('tool')) throw new HermeticError('HERMETIC_REPORT_INVALID', '--max-cost judges cost, and rows by tool count tool calls, which carry none; drop --by tool.');
  if (by.includes('command')) throw new HermeticError('HERMETIC_REPORT_INVALID', '--max-cost judges cost, and rows by command count terminal calls, which carry none; drop --by command.');
}

/**
 * The rows of an unbounded `report` (every row of its grouping, no `--top` rest) whose shown cost is above `limit`;
 * null when none is. A row with no cost known is not over.
 */
export function overBudget(report: UsageReport, limit: number): OverBudget | null {
  const over = report.rows.filter((r) => typeof r.cost_usd === 'number' && r.cost_usd > limit).sort((a, b) => (b.cost_usd as number) - (a.cost_usd as number));
  return over.length === 0 ? null : { limit, by: report.by, over, of: report.rows.length };
}

const NOUN: Readonly<Record<Dimension, [one: string, many: string]>> = {
  hour: ['hour', 'hours'], day: ['day', 'days'], week: ['week', 'weeks'], month: ['month', 'months'], weekday: ['weekday', 'weekdays'],
  hour_of_day: ['hour of the day', 'hours of the day'], model: ['model', 'models'],
  provider: ['provider', 'providers'], profile: ['profile', 'profiles'], source: ['source', 'sources'], project: ['project', 'projects'],
  task: ['task', 'tasks'], session: ['session', 'sessions'], tree: ['tree', 'trees'], tool: ['tool', 'tools'], command: ['command', 'commands'], machine: ['machine', 'machines'],
};

/** The columns a title or other key keeps in the message (a session id is kept whole: it is what a user copies). */
export const OVER_BUDGET_KEY_COLUMNS = 60;

/** Keys told apart by their last parts (a project's folder, a model after its provider), cut keeping the end as tables do. */
const KEEP_END: readonly string[] = ['project', 'model', 'provider'];

/**
 * A row as the message names it: its keys as the table shows them (keyText), a session or tree with its title; a title
 * or key past OVER_BUDGET_KEY_COLUMNS cut with `…` (a title of 300,000 characters made one line of cron's mail that
 * long: decision 0117).
 */
function rowName(row: ReportRow, by: readonly Dimension[]): string {
  const cut = (text: string, name: string) => (KEEP_END.includes(name) ? fitParts(text, OVER_BUDGET_KEY_COLUMNS) : fitText(text, OVER_BUDGET_KEY_COLUMNS));
  const titled = (id: unknown, title: unknown) => `${keyText(id as string | null, 'session_id')} (${title === null || title === undefined || title === '' ? 'untitled' : cut(keyText(title as string, 'title'), 'title')})`;
  return by.map((d) => (d === 'session' ? titled(row.session_id, row.title) : d === 'tree' ? titled(row.tree, row.tree_title) : cut(keyText(row[d] as string | number | null, d), d))).join(' · ');
}

/** An amount with every digit it has (up to a cost's 1e-10), at least cents: `$0.004999`, `$1,234.50`. */
const exactCost = (v: number, digits: number): string => `$${v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: digits })}`;

/** The dollars a cost as formatCost shows it reads as (NaN for `<$0.0001`). */
const shownAs = (text: string): number => Number(text.replace(/^\$/, '').replace(/,/g, ''));

/**
 * The limit as the table would show it when that is the limit itself (`$5.00`, `$1,000`), else with its digits: a
 * limit of 0.004999 is not "more than $0.0050", nor 0.00001 "more than <$0.0001" (decision 0117).
 */
function limitText(limit: number): string {
  const short = formatCost(limit);
  return shownAs(short) === limit ? short : exactCost(limit, 20);
}

/** A row's cost as the table shows it, or with the digits that tell it from the limit when that would read as its equal or less. */
function overText(cost: number, limit: number): string {
  const short = formatCost(cost);
  return shownAs(short) > limit ? short : exactCost(cost, 10);
}

/**
 * What went over, as the lines stderr gets (the first starts `over budget:`; the CLI adds `hermetic: `).
 * @example describeOverBudget({ limit: 5, by: ['hour'], over: [{ hour: '2026-12-05 03:00', cost_usd: 7.12 }], of: 24 })
 * // ['over budget: 1 of 24 hours cost more than $5.00 (--max-cost):', '  2026-12-05 03:00  $7.12']
 */
export function describeOverBudget(o: OverBudget): string[] {
  const limit = limitText(o.limit);
  if (o.by.length === 0) return [`over budget: this window cost ${overText(o.over[0]!.cost_usd as number, o.limit)}, more than ${limit} (--max-cost).`];
  const [one, many] = o.by.length === 1 ? NOUN[o.by[0]!] : ['row', `rows by ${o.by.join(' and ')}`];
  const what = o.of === 1 ? `the only ${one}` : `${o.over.length.toLocaleString('en-US')} of ${o.of.toLocaleString('en-US')} ${many}`;
  // The costs in one column, after the widest name (each name is cut to OVER_BUDGET_KEY_COLUMNS a key).
  const rows = o.over.slice(0, OVER_BUDGET_NAMED);
  const names = rows.map((r) => rowName(r, o.by));
  const width = Math.max(...names.map(displayWidth));
  const named = rows.map((r, i) => `  ${padText(names[i]!, width)}  ${overText(r.cost_usd as number, o.limit)}`);
  const rest = o.over.length - named.length;
  return [`over budget: ${what} cost more than ${limit} (--max-cost):`, ...named, ...(rest > 0 ? [`  and ${rest.toLocaleString('en-US')} more`] : [])];
}
