// A session's background delegations (`delegations`, decision 0054): each dispatch with its state, the delivery of its
// result to the chat (and the attempts), when it was dispatched and how long it ran, the goal, and what came back (the
// summary, or the error); a row Hermes has pruned from its store is marked. Long text is cut to a line, the whole of it
// on hover and when opened. Everything is text through h().
import { h } from '../dom.js';
import { plural, seconds, time } from '../format.js';

/** Text longer than this (or of more than one line) is cut, its whole shown when opened. */
const SHORT = 140;

/** `text` in a `cls` block: as it is when short; else its first line cut, the whole in the title and inside. */
function longText(cls, label, text) {
  if (text === null || text === undefined || text === '') return null;
  const first = text.split('\n', 1)[0];
  const lead = label ? h('span', { class: 'muted' }, `${label}: `) : null;
  if (text.length <= SHORT && first === text) return h('div', { class: `content ${cls}` }, lead, text);
  const cut = first.length > SHORT ? `${first.slice(0, SHORT).trimEnd()}…` : `${first}…`;
  return h('details', { class: cls }, h('summary', { title: text }, lead, cut), h('div', { class: 'content' }, text));
}


/** A text the server cut (decision 0094), with an ellipsis. */
const cutText = (d, field) => (d.cut?.[field] && d[field] !== null ? `${d[field]}…` : d[field]);

function delegationNode(d) {
  const delivery = d.delivery_state === null ? null
    : `delivery: ${d.delivery_state}${typeof d.delivery_attempts === 'number' && d.delivery_attempts > 0 ? ` (${plural(d.delivery_attempts, 'attempt')})` : ''}`;
  const pruned = d.removed_from_store === 1;
  const when = [d.dispatched_at === null ? null : `dispatched ${time(d.dispatched_at)}`, d.duration_seconds === null ? null : `ran ${seconds(d.duration_seconds)}`].filter(Boolean).join(' · ');
  return h('li', { class: `delegation${pruned ? ' pruned' : ''}`, dataset: { delegation: d.delegation_id, state: d.state ?? '', delivery: d.delivery_state ?? '' } },
    h('div', { class: 'msg-head' },
      h('span', { class: 'delegation-state', title: 'Hermes\'s state of the background subagent' }, d.state ?? 'no state'),
      delivery ? h('span', { class: 'badge delivery', title: 'Whether the result reached this session\'s chat (Hermes drops it after 8 attempts)' }, delivery) : null,
      pruned ? h('span', { class: 'badge pruned-mark', title: 'Hermes has deleted this row from its store (it prunes finished delegations); the dataset keeps it' }, 'pruned by Hermes') : null,
      h('span', { class: 'muted seq', title: d.delegation_id }, when || d.delegation_id)),
    longText('goal', null, cutText(d, 'goal')),
    longText('summary', 'Summary', cutText(d, 'summary')),
    longText('delegation-error', 'Error', cutText(d, 'error')));
}

/** The section of the session's delegations, by dispatch time (`more`: the line saying others are not listed); null when it dispatched none. */
export function delegationsSection(list, more = null) {
  if (!Array.isArray(list) || list.length === 0) return null;
  return h('section', { class: 'delegations', 'aria-labelledby': 'delegations' },
    h('h2', { id: 'delegations' }, `Background delegations (${list.length}${more ? '+' : ''})`),
    h('ol', { class: 'delegation-list' }, list.map(delegationNode)), more ? h('ul', {}, more) : null);
}
