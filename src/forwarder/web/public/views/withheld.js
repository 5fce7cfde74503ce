// What the page leaves out because this role may not read a table of the fleet store (decisions 0102, 0105): which
// table, what is not shown for it, and the GRANT the schema's owner runs. The overview's notes and the session page's
// delegations share it. Everything is text through h().
import { h } from '../dom.js';

/** What each table the role may not read leaves out of the page. */
const LEFT_OUT = {
  row_issues: 'the values the forwarders repaired are not counted',
  backfill_unread: 'the sessions windowed backfills left unread are not said',
  progress: 'how many machines do not say what windowed backfills left unread is not said',
  delegations: 'whether this session dispatched background delegations, and which, is not shown',
};

/** One notice per table the server withheld (`withheld: [{table, grant}]`), each with the GRANT that gives it. */
export function withheldNotes(list) {
  return (list ?? []).map((w) => h('p', { class: 'notice withheld', dataset: { figure: 'withheld', value: w.table } },
    `This role may not read the fleet's ${w.table} table, so ${LEFT_OUT[w.table] ?? 'what it holds is left out'} here. Have the schema's owner run: ${w.grant};`));
}
