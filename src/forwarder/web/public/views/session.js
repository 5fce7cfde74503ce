// A session: its facts and details (Hermes's other fields), lineage (parent and children, linked), its background
// delegations (when it dispatched any), usage by model and task, model changes, and its history as Hermes shows it, a
// page at a time (reasoning and tool results collapsed; bookkeeping and compacted rows marked; reactions, observed
// input and the platform's id beside each message). A text past the server's cap is shown cut, marked, with a link to
// the whole of it; a page of big messages stops at the server's budget, with a link to the rest (decision 0088).
import { get } from '../api.js';
import { h, table } from '../dom.js';
import { cost, count, sessionTitle, size, time } from '../format.js';
import { href } from '../state.js';
import { messageMarks, sessionDetails } from './attributes.js';
import { delegationsSection } from './delegations.js';
import { withheldNotes } from './withheld.js';

const pretty = (v) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

/** `/api/message-text`'s URL for one text of a message (where: the session's id, store and machine). */
function textHref(where, seq, field, call) {
  const q = new URLSearchParams({ id: where.id });
  if (where.store) q.set('store', where.store);
  if (where.machine) q.set('machine', where.machine);
  q.set('seq', String(seq));
  q.set('field', field);
  if (call !== undefined) q.set('call', String(call));
  return `/api/message-text?${q}`;
}

/** `/api/session-text`'s URL for one text of the session's own row (decision 0094). */
function sessionTextHref(where, field) {
  const q = new URLSearchParams({ id: where.id });
  if (where.store) q.set('store', where.store);
  if (where.machine) q.set('machine', where.machine);
  q.set('field', field);
  return `/api/session-text?${q}`;
}

/** The link that opens a whole text in a tab (as plain text). */
const showAll = (href, label) => h('a', { href, target: '_blank', rel: 'noopener', class: 'show-all' }, label);

/** The mark under a cut text: how much of it is shown, and a link that opens the whole of it (as plain text). */
function cutNote(where, m, field, whole, limit, call) {
  return h('p', { class: 'cut', dataset: { field } },
    `Cut: the first ${count(Math.min(limit, whole.characters))} of ${count(whole.characters)} characters are shown. `,
    showAll(textHref(where, m.seq, field, call), `Show all (${size(whole.bytes)})`));
}

/** The mark of a JSON text too long to send (attributes): its length, and a link to the whole of it. */
function notSentNote(href, field, what, whole) {
  return h('p', { class: 'cut', dataset: { field } },
    `Cut: ${what} are ${count(whole.characters)} characters, too long to show here. `, showAll(href, `Show all (${size(whole.bytes)})`));
}

function content(m) {
  if (m.content === null || m.content === '') return null;
  if (m.content_format === 'json' && !m.cut?.content) {
    try { return h('pre', { class: 'content' }, JSON.stringify(JSON.parse(m.content), null, 2)); } catch { /* shown as text */ }
  }
  return h('div', { class: 'content' }, m.content);
}

function messageNode(m, where, limit) {
  const role = m.role === 'tool' ? `result of ${m.tool_name ?? 'a tool'}` : m.role;
  const marks = messageMarks(m);
  const head = h('div', { class: 'msg-head' },
    h('span', { class: `role role-${m.role}` }, role),
    m.bookkeeping ? h('span', { class: 'badge', title: 'A row Hermes keeps for bookkeeping, not conversation' }, `bookkeeping: ${m.kind}`) : null,
    m.compacted ? h('span', { class: 'badge', title: 'Summarized away by a compaction: shown in the history, no longer sent to the model' }, 'compacted') : null,
    marks.before,
    m.model ? h('span', { class: 'muted' }, m.model) : null,
    h('span', { class: 'muted seq' }, `#${m.seq} · ${time(m.created_at)}`),
    marks.after);
  const body = [];
  const cut = m.cut ?? {};
  if (cut.attributes) body.push(notSentNote(textHref(where, m.seq, 'attributes'), 'attributes', 'this message\'s other fields (reactions, ids)', cut.attributes));
  if (m.reasoning) {
    body.push(h('details', { class: 'reasoning' }, h('summary', {}, 'Reasoning'), h('div', { class: 'content' }, m.reasoning),
      cut.reasoning ? cutNote(where, m, 'reasoning', cut.reasoning, limit) : null));
  }
  const contentCut = cut.content ? cutNote(where, m, 'content', cut.content, limit) : null;
  if (m.role === 'tool') body.push(h('details', { class: 'result' }, h('summary', {}, `Result${m.tool_call_id ? ` (${m.tool_call_id})` : ''}`), content(m), contentCut));
  else body.push(content(m), contentCut);
  m.tool_calls.forEach((c, i) => {
    body.push(h('div', { class: 'tool-call' },
      h('div', {}, h('span', { class: 'badge call' }, 'tool call'), ' ', h('code', {}, c.name ?? '(unnamed)'), c.id ? h('span', { class: 'muted' }, ` ${c.id}`) : null),
      c.arguments === null ? null : h('pre', { class: 'args' }, pretty(c.arguments)),
      c.cut ? cutNote(where, m, 'arguments', c.cut, limit, i) : null));
  });
  if (cut.tool_calls && cut.tool_calls.calls > cut.tool_calls.shown) {
    body.push(h('p', { class: 'cut', dataset: { field: 'tool_calls' } },
      `Cut: ${count(cut.tool_calls.calls - cut.tool_calls.shown)} more ${cut.tool_calls.calls - cut.tool_calls.shown === 1 ? 'tool call is' : 'tool calls are'} not listed. `,
      h('a', { href: textHref(where, m.seq, 'tool_calls'), target: '_blank', rel: 'noopener', class: 'show-all' }, `Show all the calls' JSON (${size(cut.tool_calls.bytes)})`)));
  }
  return h('li', { class: `msg${m.bookkeeping ? ' bookkeeping' : ''}${m.compacted ? ' compacted' : ''}`, dataset: { seq: String(m.seq), role: m.role, kind: m.kind } }, head, body);
}

/** A link to a session of the same lineage: in the same store (and machine), as two stores may hold one id. */
function sessionLink(state, s, label) {
  return h('a', { href: href({ ...state, view: 'session', id: s.session_id, store: s.store ?? state.store ?? null, page: 1, pageSize: null, from: null }), dataset: { nav: '' } }, label ?? sessionTitle(s));
}

/**
 * The transcript shows the live messages and those compacted away (marked): one count of each, the same in the facts
 * and the pager, so the page never gives two unexplained message counts.
 */
function compactedAway(s, t) {
  return Math.max(0, t.total - (s.live_messages ?? t.total));
}

/**
 * What the session cost with its descendants (subagents, continuations, branches and theirs, not a reset's new
 * conversation; decision 0110): the receipt of a delegation tree, beside what the session cost alone. Nothing for a
 * session without any.
 */
function lineageUsage(l, own) {
  if (!l) return null;
  const n = `${count(l.descendants)}${l.more ? '+' : ''} ${l.descendants === 1 && !l.more ? 'descendant' : 'descendants'}`;
  return h('p', { class: 'lineage-usage', dataset: { figure: 'lineage_cost_usd', value: String(l.totals.cost_usd) } },
    `With its ${n}: ${cost(l.totals.cost_usd)}, ${count(l.totals.api_calls)} ${l.totals.api_calls === 1 ? 'API call' : 'API calls'}, ${count(l.totals.input_tokens)} input and ${count(l.totals.output_tokens)} output ${l.totals.output_tokens === 1 ? 'token' : 'tokens'}; this session alone ${cost(own.cost_usd)}.`
    + (l.more ? ` Only the first ${count(l.descendants)} descendants are counted.` : ''));
}

/** A page that stopped at the server's budget: where it stopped, and a link to the rest of it. */
function pageRest(state, t) {
  if (t.next_from === null || t.next_from === undefined) return null;
  return h('p', { class: 'page-rest' },
    `This page stops at #${t.next_from - 1}: its messages reached the ${size(t.limits.page_bytes)} a page carries. `,
    h('a', { href: href({ ...state, from: t.next_from }), dataset: { nav: '' } }, `Show the rest of page ${t.page}, from #${t.next_from} →`));
}

function pager(state, t) {
  if (t.pages <= 1) return null;
  const to = (p) => href({ ...state, page: p, from: null });
  return h('nav', { class: 'pager', 'aria-label': 'Transcript pages' },
    t.page > 1 ? h('a', { href: to(t.page - 1), dataset: { nav: '' }, rel: 'prev' }, '← Earlier') : h('span', { class: 'muted' }, '← Earlier'),
    h('span', { 'aria-current': 'page' }, `Page ${t.page} of ${t.pages} (${count(t.total)} messages${t.compacted > 0 ? `, ${count(t.compacted)} of them compacted away` : ''})`),
    t.page < t.pages ? h('a', { href: to(t.page + 1), dataset: { nav: '' }, rel: 'next' }, 'Later →') : h('span', { class: 'muted' }, 'Later →'));
}

export async function session(state) {
  const q = new URLSearchParams({ id: state.id ?? '' });
  if (state.store) q.set('store', state.store);
  if (state.machine) q.set('machine', state.machine);
  if (state.page > 1) q.set('page', String(state.page));
  if (state.pageSize) q.set('page_size', state.pageSize);
  if (state.from !== null && state.from !== undefined) q.set('from', String(state.from));
  const v = await get('/api/session', q);
  const where = { id: v.session.session_id, store: v.session.store, machine: state.machine };
  const s = v.session;
  const cut = s.cut ?? {};
  const compacted = compactedAway(s, v.transcript);
  /** A row's text with an ellipsis when the server cut it (decision 0094). */
  const shown = (field) => (s[field] === null || s[field] === undefined ? null : cut[field] ? `${s[field]}…` : s[field]);
  const prompt = s.system_prompt_length;
  const t = v.usage.totals;
  const facts = [
    ['Model', s.model], ['Provider', s.provider], ['Profile', s.profile], ['Source', s.source],
    ['Started', time(s.started_at)], ['Ended', s.ended_at === null ? 'open' : `${time(s.ended_at)}${s.end_reason ? ` (${s.end_reason})` : ''}`],
    ['Project', s.git_repo_root !== null && s.git_repo_root !== undefined ? shown('git_repo_root') : shown('cwd')], ['Messages', `${count(s.live_messages)}${compacted > 0 ? ` live, and ${count(compacted)} compacted away (kept in the transcript, marked)` : ''}`],
    // What the session alone cost, all time (the usage table below splits it by model and task).
    ['Cost', `${cost(t.cost_usd)}: ${count(t.api_calls)} ${t.api_calls === 1 ? 'API call' : 'API calls'}, ${count(t.input_tokens)} input and ${count(t.output_tokens)} output ${t.output_tokens === 1 ? 'token' : 'tokens'}`],
  ];
  // The system prompt is not sent with the session: its length, and a link to it whole.
  if (prompt) facts.push(['System prompt', h('span', { class: 'system-prompt' }, `${count(prompt.characters)} characters `, showAll(sessionTextHref(where, 'system_prompt'), `Show (${size(prompt.bytes)})`))]);
  const details = cut.attributes
    ? [h('dt', {}, 'Details'), h('dd', { class: 'details' }, notSentNote(sessionTextHref(where, 'attributes'), 'attributes', 'the session\'s other fields', cut.attributes))]
    : sessionDetails(s);
  const more = v.more ?? {};
  const listed = (what) => h('li', { class: 'muted more' }, `More ${what} are not listed: the first ${count(v.limits.list_rows)} are.`);
  const usageRows = v.usage.rows;
  return [
    h('p', {}, h('a', { href: href({ ...state, view: 'overview', id: null, page: 1 }), dataset: { nav: '' } }, '← Overview')),
    h('h1', {}, sessionTitle(s)),
    cut.title ? h('p', { class: 'cut', dataset: { field: 'title' } }, `Cut: the first ${count(v.limits.title_characters)} of the title's ${count(cut.title.characters)} characters are shown. `,
      showAll(sessionTextHref(where, 'title'), `Show all (${size(cut.title.bytes)})`)) : null,
    // The id under the title; an untitled session's heading is its id already.
    s.title ? h('p', { class: 'muted' }, h('code', {}, s.session_id)) : h('p', { class: 'muted' }, 'Untitled session'),
    h('dl', { class: 'facts' }, facts.map(([k, val]) => [h('dt', {}, k), h('dd', {}, val ?? '–')]), details),
    h('section', { class: 'lineage', 'aria-labelledby': 'lineage' }, h('h2', { id: 'lineage' }, 'Lineage'),
      h('ul', {},
        v.parent ? h('li', {}, `Parent${s.lineage_kind ? ` (this session is its ${s.lineage_kind})` : ''}: `, sessionLink(state, v.parent)) : h('li', { class: 'muted' }, 'No parent: a root session.'),
        v.children.length ? v.children.map((c) => h('li', {}, `Child (${c.lineage_kind ?? 'child'}): `, sessionLink(state, c))) : h('li', { class: 'muted' }, 'No children.'),
        more.children ? listed('children') : null),
      lineageUsage(v.lineage_usage, v.usage.totals)),
    delegationsSection(v.delegations, more.delegations ? listed('delegations') : null),
    // The fleet store, a role that may not read its delegations: the rest of the page, and which GRANT shows them (0105).
    ...withheldNotes(v.withheld),
    h('section', { 'aria-labelledby': 'usage' }, h('h2', { id: 'usage' }, 'Usage'),
      table('The session\'s usage by model and task', [
        { label: 'Model', value: (r) => (r.other_rows !== undefined ? 'other' : r.model || '(none)') },
        { label: 'Task', value: (r) => r.task ?? '' },
        { label: 'Cost', num: true, key: 'cost_usd', raw: (r) => r.cost_usd, value: (r) => cost(r.cost_usd) },
        { label: 'Input', num: true, key: 'input_tokens', raw: (r) => r.input_tokens, value: (r) => count(r.input_tokens) },
        { label: 'Output', num: true, key: 'output_tokens', raw: (r) => r.output_tokens, value: (r) => count(r.output_tokens) },
        { label: 'Cache read', num: true, key: 'cache_read_tokens', raw: (r) => r.cache_read_tokens, value: (r) => count(r.cache_read_tokens) },
        { label: 'API calls', num: true, key: 'api_calls', raw: (r) => r.api_calls, value: (r) => count(r.api_calls) },
      ], usageRows, { id: 'session-usage' })),
    v.model_changes.length ? h('section', { 'aria-labelledby': 'models' }, h('h2', { id: 'models' }, 'Model changes'),
      h('ul', {}, v.model_changes.map((c) => h('li', {}, `#${c.seq} ${time(c.created_at)}: ${c.from} → ${c.to}`)), more.model_changes ? listed('model changes') : null)) : null,
    h('section', { 'aria-labelledby': 'transcript' }, h('h2', { id: 'transcript' }, 'Transcript'),
      pager(state, { ...v.transcript, compacted }),
      h('ol', { class: 'transcript', start: String(v.transcript.messages[0]?.seq ?? 0) }, v.transcript.messages.map((m) => messageNode(m, where, v.transcript.limits.text_characters))),
      pageRest(state, v.transcript),
      pager(state, { ...v.transcript, compacted })),
  ];
}
