// Why a filtered report came out empty: which `--filter` matched nothing in the window (and the values that column
// has there, when they are few), or that the filters match only apart, or only outside the window. One plan, so it
// runs on the dataset and on the fleet store alike; read only when the filtered window has no usage.
import type { Dialect } from './dialect.js';
import { ID_FILTERS, planTotals, planTreeOf, planValues, type FilterName, type Plan, type ReportRequest, type ValueFilter } from './query.js';
import { wrapWords } from './wrap.js';
import { terminalText } from '../../shared/terminal-text.js';

/** Up to this many of a column's values are named; more, and `--by COLUMN` is suggested instead. */
export const FEW_VALUES = 8;

export interface FilterMiss {
  /** Each filter column, with what was asked and whether it alone matches usage in the window. */
  columns: {
    name: FilterName; asked: readonly string[]; matched: boolean; present: (string | null)[]; more: boolean;
    /** For `tree`: the asked sessions that are part of another tree, with that tree's name. */
    within?: { session: string; tree: string }[];
  }[];
  /** The whole filter matches usage outside the window. */
  elsewhere: boolean;
}

/**
 * What the window holds for each filter column; null when the window has no usage at all (the filter is not why).
 * @example planFilterMiss({ since, until, filter: { model: ['nonexistent'] } }, dialect)
 */
export function* planFilterMiss(request: Pick<ReportRequest, 'since' | 'until' | 'utc' | 'filter'>, dialect: Dialect): Plan<FilterMiss | null> {
  const window = { since: request.since ?? null, until: request.until ?? null, utc: request.utc === true };
  const entries = Object.entries(request.filter ?? {}).filter((e): e is [FilterName, readonly string[]] => e[1] !== undefined);
  if (entries.length === 0 || (yield* planTotals(window, dialect)).sessions === 0) return null;
  const columns: FilterMiss['columns'] = [];
  for (const [name, asked] of entries) {
    const matched = ((yield* planTotals({ ...window, filter: { [name]: asked } }, dialect)).sessions ?? 0) > 0;
    // Session ids are not worth listing; the others are named when they are few.
    const ids = ID_FILTERS.includes(name);
    const values = matched || ids ? [] : yield* planValues(window, name as ValueFilter, FEW_VALUES + 1, dialect);
    const column: FilterMiss['columns'][number] = { name, asked, matched, present: values.slice(0, FEW_VALUES), more: values.length > FEW_VALUES || ids };
    if (!matched && name === 'tree') {
      // A tree is named by its first session: a session inside one names none (a few looked up; a typed list is short).
      const within: { session: string; tree: string }[] = [];
      for (const session of [...new Set(asked)].slice(0, FEW_VALUES)) {
        const tree = yield* planTreeOf(session, dialect);
        if (tree !== null) within.push({ session, tree });
      }
      column.within = within;
    }
    columns.push(column);
  }
  const open = window.since === null && window.until === null;
  const elsewhere = !open && ((yield* planTotals({ filter: request.filter ?? {} }, dialect)).sessions ?? 0) > 0;
  return { columns, elsewhere };
}

const PLURAL: Record<FilterName, string> = { model: 'models', provider: 'providers', profile: 'profiles', source: 'sources', project: 'projects', task: 'tasks', session: 'sessions', tree: 'trees' };

/** `--filter model=a --filter model=b`: the filter as it was typed. */
const typed = (name: string, asked: readonly string[]) => asked.map((v) => `--filter ${name}=${terminalText(v)}`).join(' ');

/** Words wrapped to `width`, every line after the first indented by `indent`. */
function wrap(text: string, width: number, indent = '  '): string {
  return wrapWords(text, width, width - indent.length).map((l, i) => (i === 0 ? l : indent + l)).join('\n');
}

/**
 * The lines a terminal report shows in place of its tables.
 * @example describeFilterMiss(miss, 80) // '--filter model=nonexistent matches no usage in this window.\nThe models in this window: gpt-5.'
 */
export function describeFilterMiss(miss: FilterMiss, width: number): string {
  const out: string[] = [];
  const unmatched = miss.columns.filter((c) => !c.matched);
  for (const c of unmatched) {
    out.push(wrap(`${typed(c.name, c.asked)} ${c.asked.length === 1 ? 'matches' : 'match'} no usage in this window.`, width));
    // The values come from the data (a model or project name): shown harmless, as every table shows them.
    const shown = c.present.map((v) => (v === null || v === '' ? (c.name === 'project' ? '(none: project=)' : '(unknown)') : terminalText(v)));
    for (const w of c.within ?? []) {
      out.push(wrap(`Session ${terminalText(w.session)} is part of the tree of ${terminalText(w.tree)}, which started it: --filter tree=${terminalText(w.tree)}.`, width));
    }
    if (ID_FILTERS.includes(c.name)) out.push(`"hermetic report --by ${c.name}" lists the window's ${PLURAL[c.name]}.`);
    else if (c.more) out.push(wrap(`The costliest ${PLURAL[c.name]} in this window: ${shown.join(', ')} and more ("hermetic report --by ${c.name}" lists them).`, width));
    else out.push(wrap(`The ${shown.length === 1 ? PLURAL[c.name].slice(0, -1) : PLURAL[c.name]} in this window: ${shown.join(', ')}.`, width));
  }
  if (unmatched.length === 0) {
    out.push(wrap(`No usage in this window matches ${miss.columns.map((c) => typed(c.name, c.asked)).join(' and ')} together (each matches some on its own).`, width));
  }
  if (miss.elsewhere) out.push('The filter matches usage outside this window: try --period all.');
  return out.join('\n');
}
