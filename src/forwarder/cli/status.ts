// `hermetic status`: what the forwarder sees and has done — stores (path, profile, schema, journal, backend),
// cursors, rows per table, last tick, last error, quarantined sessions — as text or JSON. What it says is gathered by
// status-report.ts.
import { resolve } from 'node:path';
import { parseFlags } from '../../cli/args.js';
import { hermeticHome } from '../home.js';
import type { SinkStatus } from '../sinks/remote/status.js';
import { byteSize, COMMON_FLAGS, plural, whereLooked } from './common.js';
import { STATUS_HELP } from './help.js';
import { stillWaiting } from '../pipeline/quarantine.js';
import { statusReport, type StoreStatus } from './status-report.js';
import { terminalSafeJson, terminalText } from '../../shared/terminal-text.js';
import { terminalWidth } from '../report/wrap.js';

/**
 * The dataset's size, and its free pages when they are a quarter of it or more (and at least 16 MB): what a VACUUM
 * would give back, said with how to run it safely.
 */
export function sizeLine(size: { bytes: number; free_bytes: number }): string {
  const free = size.free_bytes >= 16e6 && size.free_bytes * 4 >= size.bytes;
  return `size: ${byteSize(size.bytes)}${free ? `, of which ${byteSize(size.free_bytes)} free pages SQLite reuses for later writes (VACUUM it with any SQLite client, while no forwarder runs, to give them back)` : ''}`;
}

/** A lag as a person reads it: 42 s, 3 min, 5 h 10 min, 2 d 4 h. */
export function lagText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h${s % 3600 >= 60 ? ` ${Math.floor((s % 3600) / 60)} min` : ''}`;
  return `${Math.floor(s / 86400)} d${s % 86400 >= 3600 ? ` ${Math.floor((s % 86400) / 3600)} h` : ''}`;
}

export async function statusCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, COMMON_FLAGS);
  if (values.help) return console.log(STATUS_HELP), 0;
  const { report, redacted } = await statusReport(resolve(hermeticHome(values.home)), values['state-db'] ?? []);
  const { dataset: datasetPath, dataset_exists: exists, dataset_building: building, dataset_size: size, usage_policy_error: policyError, stores, rows, sinks } = report;
  if (values.json) {
    console.log(terminalSafeJson(JSON.stringify(report, null, 2)));
    return 0;
  }
  const missing = building ? ` (not created yet: the first pass of a backfill or forward, process ${building.pid}, is writing it, ${byteSize(building.bytes)} so far; it appears when that pass ends)` : ' (not created yet; run hermetic backfill)';
  console.log(`dataset: ${datasetPath}${exists ? (redacted ? ' (text stored through the secret redactor)' : '') : missing}`);
  if (size) console.log(sizeLine(size));
  for (const line of listLines('rows: ', Object.entries(rows).map(([k, v]) => `${k} ${v}`), terminalWidth())) console.log(line);
  if (policyError) console.log(`usage policy: ${policyError}; nothing is forwarded until it is fixed`);
  if (stores.length === 0) console.log(`stores: none found (looked for ${whereLooked()})`);
  for (const s of stores) {
    console.log(`store ${s.path} (profile ${s.profile}, ${s.backend} backend)`);
    if (s.connection) console.log(`  connection: ${s.connection}`);
    if (s.backend === 'postgres' && s.read_error) console.log(`  cannot read: ${s.read_error}`);
    else if (s.backend === 'postgres') console.log(`  schema v${s.schema_version ?? '?'}, read through a local mirror`);
    else if (!s.exists) console.log(`  missing: ${s.read_error}`);
    else {
      if (s.schema_version !== null || s.journal_mode !== null) console.log(`  schema v${s.schema_version ?? '?'}, ${s.journal_mode ?? '?'} journal`);
      // The reader's own sentence ("Cannot read …: why. [CODE]"), on a line of its own.
      const prefix = `Cannot read ${s.path}: `;
      if (s.read_error) console.log(`  cannot read it: ${s.read_error.startsWith(prefix) ? s.read_error.slice(prefix.length) : s.read_error}`);
    }
    if (s.identity) console.log(`  identity: ${s.identity}${s.replaced ? ' (replaced since it was last read: the next pass reads it whole)' : ''}`);
    if (s.warning && s.warning !== s.read_error) console.log(`  warning: ${s.warning}`);
    console.log(`  cursor: message id ${s.cursor_max_message_id ?? '-'}, ${s.sessions_tracked} sessions tracked, last tick ${s.last_tick_at ?? 'never'}`);
    if (s.pending) console.log(`  ${pendingText(s.pending)}`);
    // Status reads the dataset and files only: what PostgreSQL holds beyond the mirror is the next pass's to find.
    else if (s.backend === 'postgres' && !s.read_error) console.log('  pending: not counted (status does not query PostgreSQL; the next backfill or forward reads what changed)');
    if (s.last_error) console.log(`  last error: ${terminalText(s.last_error)}`);
    if (s.row_issues.entries > 0) console.log(`  ${rowIssuesText(s.row_issues)}`);
    // The id and the error come from the store: shown harmless (terminalText), as report shows them.
    for (const q of s.quarantined) console.log(`  ${quarantineText(q, Date.now() / 1000)}`);
    const { sessions: kept, why } = s.ignored_in_dataset;
    if (kept > 0) {
      console.log(`  ignored now: ${kept} ${kept === 1 ? 'session' : 'sessions'} forwarded before the usage policy ignored ${kept === 1 ? 'its' : 'their'} folder${why ? ` (${why})` : ''}; ${kept === 1 ? 'it stays' : 'they stay'} until hermetic forget --scope DIR removes ${kept === 1 ? 'it' : 'them'}`);
    }
  }
  for (const k of sinks) {
    console.log(`sink ${k.display}`);
    const lag = k.lag_rows === 0 && !k.snapshot ? 'up to date' : sinkLagText(k);
    console.log(`  acked seq ${k.acked_seq}, ${lag}; ${plural(k.shipped_rows, 'row')} sent; last ack ${k.acked_at ?? 'never'}`);
    // A retry time passed is not a retry under way: only a backfill or forward that feeds the sink tries again.
    // On a line of its own: the error ends in its code, which a retry clause would split from its sentence.
    const retry = k.retry_at === null ? null : Date.parse(k.retry_at) > Date.now() ? `next retry after ${k.retry_at}` : 'tried again by the next backfill or forward that feeds it (--sink URL, or sinks: in the config file)';
    if (k.last_error) console.log(`  last error (${plural(k.failures, 'failure')}): ${k.last_error}${retry ? `\n  ${retry}` : ''}`);
    else if (k.lag_rows > 0 || k.snapshot_pending) console.log('  fed by a backfill or forward that names it (--sink URL, or sinks: in the config file); hermetic sinks remove URL stops it');
  }
  return 0;
}

/**
 * Items joined by commas after `label`, in lines of at most `width` columns (the later ones indented under the first
 * item); an item is never split.
 * @example listLines('rows: ', ['sessions 3', 'messages 41'], 20) // ['rows: sessions 3,', '      messages 41']
 */
export function listLines(label: string, items: readonly string[], width: number): string[] {
  const indent = ' '.repeat(label.length);
  const lines: string[] = [];
  let line = '';
  items.forEach((item, i) => {
    const text = i < items.length - 1 ? `${item},` : item;
    const head = lines.length === 0 ? label : indent;
    if (line !== '' && head.length + line.length + 1 + text.length > width) {
      lines.push(head + line);
      line = text;
    } else line = line === '' ? text : `${line} ${text}`;
  });
  return [...lines, (lines.length === 0 ? label : indent) + line];
}

/**
 * How far a sink is behind: its first copy (not sent yet, or the table it is at), then the changes made since, and
 * for how long it has not held everything.
 */
export function sinkLagText(k: SinkStatus): string {
  const since = k.lag_seconds > 0 ? `, ${Math.round(k.lag_seconds)} s` : '';
  if (!k.snapshot) return `${plural(k.lag_rows, 'change')} behind${since}`;
  const copy = k.snapshot.started ? `first copy under way (at ${k.snapshot.table}, ${k.snapshot.tables_done} of ${k.snapshot.tables} tables sent)` : 'first copy not sent yet (the whole dataset)';
  return `${copy}${k.lag_rows > 0 ? `, then ${plural(k.lag_rows, 'change')} made since` : ''}${since}`;
}

/**
 * A quarantined session's line: its failures, when it is tried again, and why it failed. A retry time further ahead than
 * any backoff was set before the clock was set back: the next pass retries it (quarantine.ts `stillWaiting`), and says so.
 */
export function quarantineText(q: StoreStatus['quarantined'][number], now: number): string {
  const at = Date.parse(q.retry_at) / 1000;
  const when = at > now && !stillWaiting(at, now) ? 'retried by the next pass; the clock went back since its retry was set' : `retry after ${q.retry_at}`;
  return `quarantined: ${terminalText(q.session_id)} (${plural(q.failures, 'failure')}, ${when}): ${terminalText(q.last_error)}`;
}

/** The store's row-issues line: the values changed or left out, and the messages and sessions they touch. */
export function rowIssuesText(issues: StoreStatus['row_issues']): string {
  return `row issues: ${plural(issues.entries, 'value')} changed or left out, in ${plural(issues.messages, 'message')} of ${plural(issues.sessions, 'session')} (hermetic query "SELECT * FROM row_issues")`;
}

/** The store's pending line: what the next pass would read, and how long the oldest change has waited. */
function pendingText(p: NonNullable<StoreStatus['pending']>): string {
  const parts: string[] = [];
  if (p.sessions > 0) {
    // No time: every one changed in place (a field, a settled cost, a new dataset version), with no new activity.
    const lag = p.lag_seconds === null ? '' : `, the oldest change ${lagText(p.lag_seconds)} ago (${p.oldest_at})`;
    parts.push(`${plural(p.sessions, 'session')} to read (${plural(p.messages, 'new message')}${p.lag_seconds === null ? '; changed in place, no new activity' : ''})${lag}`);
  }
  if (p.removed > 0) parts.push(`${plural(p.removed, 'session')} Hermes has deleted`);
  if (p.waiting > 0) parts.push(`${plural(p.waiting, 'session')} waiting in quarantine`);
  if (p.delegations > 0) parts.push(`${plural(p.delegations, 'background delegation')} to write`);
  const aside = [
    p.undecodable > 0 ? `${plural(p.undecodable, 'session')} cannot be read (${p.undecodable === 1 ? 'its id is' : 'their ids are'} not valid UTF-8 text)` : '',
    p.orphan_messages > 0 ? `${plural(p.orphan_messages, 'message')} of ${plural(p.orphan_sessions, 'session')} with no row in the store's sessions table (not read until Hermes writes ${p.orphan_sessions === 1 ? 'it' : 'them'})` : '',
  ].filter(Boolean).map((t) => `; ${t}`).join('');
  if (parts.length === 0) return `pending: nothing${aside ? '' : ', the dataset holds everything the store has'}${aside}`;
  return `pending: ${parts.join('; ')}${aside}`;
}
