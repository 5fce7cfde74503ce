// A report's filter from what people type: `model=claude-sonnet-4` (repeatable; several values of one column are
// alternatives, columns combine). `hermetic report --filter` and the dashboard's query string both read it here.
import { HermeticError } from '../../shared/errors.js';
import { suggest } from '../../shared/options.js';
import { FILTERS, type FilterName, type ReportFilter } from './query.js';

/**
 * `["model=a", "model=b", "source=cli"]` → `{ model: ['a', 'b'], source: ['cli'] }`; a refusal names the bad one.
 * @example parseFilters(['profile=work']) // { profile: ['work'] }
 */
export function parseFilters(pairs: readonly string[], flag = '--filter'): ReportFilter {
  const out: Partial<Record<FilterName, string[]>> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    if (eq < 0) throw new HermeticError('HERMETIC_REPORT_INVALID', `${flag} takes COLUMN=VALUE, such as model=gpt-5; got "${pair}".`);
    if (!(FILTERS as readonly string[]).includes(name)) {
      const hint = suggest(name, FILTERS);
      throw new HermeticError('HERMETIC_REPORT_INVALID', `${flag}: "${name}" is not a column a report can be filtered by${hint ? `; did you mean "${hint}"?` : `; use ${FILTERS.join(', ')}.`}`);
    }
    (out[name as FilterName] ??= []).push(pair.slice(eq + 1));
  }
  return out;
}
