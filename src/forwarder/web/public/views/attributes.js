// Hermes's other fields (`attributes`, decision 0050) as a reader wants them: a session's as short labelled lines
// (flags as words, the handoff and compression health each in one line, model_config folded away, a field this page
// does not know yet as `name: value`), a message's as marks beside it (reactions, observed, the platform's id).
// Everything is text through h(); each line's title names the Hermes fields it shows.
import { h } from '../dom.js';
import { plural, time } from '../format.js';

const TITLE_SOURCES = { llm: 'by the model', user: 'by the user', derived: 'from the conversation', branch: 'from the session it branched from', branch_fallback: 'from the session it branched from (fallback)' };
const FLAGS = { pinned: 'Pinned', archived: 'Archived', hidden: 'Hidden' };

/** A value as one line of text: strings as they are, lists joined, anything else as JSON. */
const text = (v) => (typeof v === 'string' ? v : Array.isArray(v) && v.every((x) => typeof x !== 'object' || x === null) ? v.join(', ') : JSON.stringify(v));
/** An epoch-seconds field as a time; anything else as text. */
const when = (v) => (typeof v === 'number' ? time(v) : text(v));

/**
 * The lines of a session's details, each `{ fields, label, value?, node? }` (fields: the Hermes names it shows), in
 * reading order: what the session is (title, chat, flags), what it did, its health, the rest.
 */
function lines(a, session) {
  const out = [];
  const used = new Set();
  const add = (fields, label, value, node) => {
    const set = fields.filter((f) => a[f] !== undefined && a[f] !== null);
    if (set.length === 0) return;
    set.forEach((f) => used.add(f));
    out.push({ fields: set, label, value, node });
  };
  if (typeof a.title_source === 'string' && Object.hasOwn(TITLE_SOURCES, a.title_source)) add(['title_source'], 'Title', `${TITLE_SOURCES[a.title_source]} (${a.title_source})`);
  else add(['title_source'], 'Title source', text(a.title_source));
  add(['chat_type'], 'Chat', text(a.chat_type));
  for (const [f, word] of Object.entries(FLAGS)) if (a[f]) add([f], word);
  add(['created_source'], 'Created from', text(a.created_source));
  // The dataset's profile is usually Hermes's profile name: said only when they differ.
  if (a.profile_name !== undefined && a.profile_name !== session.profile) add(['profile_name'], 'Hermes profile', text(a.profile_name));
  else if (a.profile_name !== undefined) used.add('profile_name');
  add(['transport_profile'], 'Transport profile', text(a.transport_profile));
  // Hermes's update_session_tool_names stores the tools offered to the model (the resolved tools[] in order), not
  // the ones it called: the calls are in the transcript.
  if (Array.isArray(a.tool_names) ? a.tool_names.length > 0 : a.tool_names) add(['tool_names'], 'Tools offered', text(a.tool_names));
  else used.add('tool_names');
  if (a.last_activity_description !== undefined || a.last_activity_provenance !== undefined) {
    const what = [a.last_activity_description === undefined ? null : text(a.last_activity_description),
      a.last_activity_provenance === undefined ? null : `reported by ${text(a.last_activity_provenance)}`].filter(Boolean).join(', ');
    const at = session.last_activity_at === null || session.last_activity_at === undefined ? '' : ` (${time(session.last_activity_at)})`;
    add(['last_activity_description', 'last_activity_provenance'], 'Last activity', `${what}${at}`);
  }
  add(['last_read_at'], 'Last read', when(a.last_read_at));
  if (a.handoff_state !== undefined || a.handoff_platform !== undefined || a.handoff_error !== undefined) {
    const label = a.handoff_platform === undefined ? 'Handoff' : `Handed off to ${text(a.handoff_platform)}`;
    const value = [a.handoff_state === undefined ? null : text(a.handoff_state), a.handoff_error === undefined ? null : `error: ${text(a.handoff_error)}`].filter(Boolean).join(', ');
    add(['handoff_state', 'handoff_platform', 'handoff_error'], label, value || undefined);
  }
  // A counter that is not a number (SQLite keeps what it is given) is said by its name rather than dropped.
  const counter = (f, say) => (a[f] === undefined ? null : typeof a[f] === 'number' ? say(a[f]) : `${f} ${text(a[f])}`);
  const compression = [
    counter('compression_fallback_streak', (n) => `${plural(n, 'failure')} in a row`),
    counter('compression_overload_streak', (n) => `${plural(n, 'overload')} in a row`),
    counter('compression_ineffective_count', (n) => `${n} ineffective`),
    a.compression_failure_error === undefined ? null : `last error: ${text(a.compression_failure_error)}`,
    a.compression_failure_cooldown_until === undefined ? null : `paused until ${when(a.compression_failure_cooldown_until)}`,
    a.compression_recovery_deadline === undefined ? null : `recovery by ${when(a.compression_recovery_deadline)}`,
  ].filter(Boolean);
  if (compression.length) add(['compression_fallback_streak', 'compression_overload_streak', 'compression_ineffective_count', 'compression_failure_error', 'compression_failure_cooldown_until', 'compression_recovery_deadline'], 'Compression', compression.join(', '));
  add(['pricing_version'], `Pricing table ${text(a.pricing_version)}`);
  if (a.expiry_finalized) add(['expiry_finalized'], 'Gateway expiry finalized');
  add(['git_metadata_generation'], 'Git details refreshed', typeof a.git_metadata_generation === 'number' ? plural(a.git_metadata_generation, 'time') : text(a.git_metadata_generation));
  // Fields a newer Hermetic keeps that this page has no words for yet: by their own names.
  for (const [f, v] of Object.entries(a)) if (!used.has(f) && f !== 'model_config') add([f], f, text(v));
  if (a.model_config !== undefined) {
    add(['model_config'], 'Model config', undefined, h('details', { class: 'model-config' }, h('summary', {}, 'Model config'),
      h('pre', { class: 'args' }, JSON.stringify(a.model_config, null, 2))));
  }
  return out;
}

/**
 * The session's details as one more row of its facts (`[dt, dd]`): the lines as a wrapping list, model_config folded
 * under them; null when the session has no attributes.
 */
export function sessionDetails(session) {
  const a = session.attributes;
  if (!a || typeof a !== 'object') return null;
  const items = lines(a, session);
  if (items.length === 0) return null;
  const config = items.find((l) => l.node);
  return [h('dt', {}, 'Details'), h('dd', { class: 'details' },
    h('ul', { class: 'details-list' }, items.filter((l) => !l.node).map((l) => h('li', { title: l.fields.join(', '), dataset: { attribute: l.fields.join(' ') } },
      l.value === undefined ? l.label : [h('span', { class: 'muted' }, `${l.label}: `), l.value]))),
    config ? config.node : null)];
}

/** A reaction's title: who and when, one line per reaction. */
const reactionTitle = (emoji, rs) => rs.map((r) => [`${emoji}${r.author ? ` by ${r.author}` : ''}`, typeof r.at === 'number' ? time(r.at) : null, r.seen === true ? 'seen' : r.seen === false ? 'not seen' : null].filter(Boolean).join(', ')).join('\n');

/** A message's reactions beside it: each emoji once, with a count when repeated; null when it has none. */
function reactions(list) {
  if (!Array.isArray(list) || list.length === 0) return null;
  const byEmoji = new Map();
  for (const r of list) {
    if (!r || typeof r.emoji !== 'string') continue;
    if (!byEmoji.has(r.emoji)) byEmoji.set(r.emoji, []);
    byEmoji.get(r.emoji).push(r);
  }
  if (byEmoji.size === 0) return null;
  const all = [...byEmoji].map(([emoji, rs]) => `${emoji}${rs.length > 1 ? ` ×${rs.length}` : ''}`).join(' ');
  return h('span', { class: 'reactions', role: 'group', 'aria-label': `Reactions: ${all}` },
    [...byEmoji].map(([emoji, rs]) => h('span', { class: 'reaction', title: reactionTitle(emoji, rs), dataset: { emoji } },
      emoji, rs.length > 1 ? h('span', { class: 'count' }, String(rs.length)) : null)));
}

/**
 * The marks a message's attributes put in its head: `before` its model (observed, the effect, fields this page has no
 * words for), `after` its number and time (the platform's id, the reactions).
 */
export function messageMarks(m) {
  const a = m.attributes;
  if (!a || typeof a !== 'object') return { before: [], after: [] };
  const known = new Set(['platform_message_id', 'effect_disposition', 'observed', 'reactions']);
  return {
    before: [
      a.observed ? h('span', { class: 'badge observed', title: 'Observed input (such as chat traffic around the agent), not a turn addressed to it' }, 'observed') : null,
      a.effect_disposition === undefined ? null : h('span', { class: 'badge', title: 'effect_disposition: tool side-effect bookkeeping' }, `effect: ${text(a.effect_disposition)}`),
      Object.entries(a).filter(([k]) => !known.has(k)).map(([k, v]) => h('span', { class: 'muted', title: k }, `${k}: ${text(v)}`)),
    ],
    after: [
      a.platform_message_id === undefined ? null : h('span', { class: 'muted platform-id', title: 'The messaging platform\'s id of this message (replies and quotes refer to it)' }, `id ${text(a.platform_message_id)}`),
      reactions(a.reactions),
    ],
  };
}
