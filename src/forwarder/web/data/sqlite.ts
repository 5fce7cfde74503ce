// The dashboard's data from the embedded dataset (hermetic.db, opened read-only): usage through the report's plans
// (as `usageReport`, a window's totals kept for the snapshot), a session's transcript page by page, its lineage, model
// changes and background delegations, the slowest tool calls.
import { hasTable, type Db } from '../../../shared/sqlite.js';
import type { Statement } from 'better-sqlite3';
import { sqliteDialect, type Dialect } from '../../report/dialect.js';
import { ledgerZone, reportCondition, rowIssuesIn, unreadIn, usageReport, type ReportRequest, type UsageReport } from '../../report/index.js';
import { planReport, planTotals, planValues, runSqlite } from '../../report/query.js';
import { planUncosted } from '../../report/uncosted.js';
import { Zone } from '../../ledger/zone.js';
import { ATTRIBUTES_CAP, FIELD_CAP, cutText, descendantsSql, lineageOf, LIST_ROWS, PAGE_BYTES, TEXT_CAP, TITLE_CAP, callsSql, delegationRow, delegationsSql, linkColumnsSql, linkRow, messageColumns, message, noMessage, noSessionText, noText, PageBudget, sessionColumnsSql, sessionDetail, sessionTextSql, slowestKeptSql, slowestSql, textSql, transcriptPages, twoStores, unknownParent, type RawCall, type RawMessage } from './rows.js';
import type { MessageText, SessionRow, SessionView, SlowCall, TextField, TranscriptPage, UsageSource } from './source.js';

/** The embedded dataset as the dashboard's source; `dialect` names this machine for the breakdown by machine. */
export function sqliteSource(db: Db, dialect: Dialect = sqliteDialect()): UsageSource {
  const has = (table: string, column: string) => db.prepare(`SELECT 1 FROM pragma_table_info('${table}') WHERE name = ?`).get(column) !== undefined;
  // A dataset older than version 7 (read as it is) has no `attributes`: nothing is known beyond the columns.
  const sessionAttributes = has('sessions', 'attributes') ? 's.attributes' : 'NULL';
  // Each text of the row cut in SQL (decision 0094): a title of megabytes never reaches JS whole.
  const sessionColumns = sessionColumnsSql(sessionAttributes);
  const byStoreId = db.prepare(`SELECT ${sessionColumns} FROM sessions s WHERE s.store = ? AND s.session_id = ?`);
  const storesOf = db.prepare('SELECT store FROM sessions WHERE session_id = ? ORDER BY store LIMIT 2').pluck();
  const storeHas = db.prepare('SELECT store FROM sessions WHERE store = ? AND session_id = ?').pluck();
  const link = db.prepare(`SELECT ${linkColumnsSql()} FROM sessions s WHERE s.store = ? AND s.session_id = ?`);
  const children = db.prepare(`SELECT ${linkColumnsSql()} FROM sessions s WHERE s.store = ? AND s.parent_session_id = ? ORDER BY s.started_at, s.session_id LIMIT ${LIST_ROWS + 1}`);
  const descendants = db.prepare(descendantsSql(false)).pluck();
  const count = db.prepare('SELECT COUNT(*) FROM messages WHERE store = ? AND session_id = ?').pluck();
  // A dataset older than version 6 (read as it is) has no `compacted`: all its messages are live.
  const extra = has('messages', 'compacted') ? 'compacted' : '0 AS compacted';
  // Each text cut in SQL (decisions 0088, 0094); rows are read one at a time and no more once the page's budget is reached.
  const page = db.prepare(`SELECT ${messageColumns(has('messages', 'attributes') ? 'attributes' : 'NULL')}, ${extra} FROM messages WHERE store = ? AND session_id = ? AND seq >= ? ORDER BY seq LIMIT ?`);
  const calls = db.prepare(callsSql(false));
  const hasMessage = db.prepare('SELECT 1 FROM messages WHERE store = ? AND session_id = ? AND seq = ?').pluck();
  const models = db.prepare(`SELECT seq, created_at, ${cutText('prev', FIELD_CAP)} AS "from", ${cutText('model', FIELD_CAP)} AS "to" FROM (
      SELECT seq, created_at, model, LAG(model) OVER (ORDER BY seq) AS prev FROM messages WHERE store = ? AND session_id = ? AND role = 'assistant' AND model IS NOT NULL)
    WHERE prev IS NOT NULL AND prev <> model ORDER BY seq LIMIT ${LIST_ROWS + 1}`);
  // A dataset older than version 8 (read as it is, never migrated here) has no `delegations`: the session has none.
  const hasDelegations = hasTable(db, 'delegations');
  const delegations = hasDelegations ? db.prepare(delegationsSql()) : null;
  // A dataset older than version 11 (read as it is) keeps no tool_calls: the slowest calls are grouped from its parts.
  const keptCalls = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'tool_calls_stale'").get() !== undefined;
  const stale = keptCalls ? db.prepare('SELECT 1 FROM tool_calls WHERE stale = 1 LIMIT 1') : null;
  /**
   * Where a session is (its store): by store and id, or by id when one store holds it (two are refused, naming both).
   * Read without its row's texts: a whole text needs nothing else of the row.
   */
  const whereIs = (id: string, store: string | null): string | undefined => {
    const stores = (store === null ? storesOf.all(id) : storeHas.all(store, id)) as string[];
    if (stores.length > 1) throw twoStores(id, stores);
    return stores[0];
  };
  /** The session's row, its texts cut (decision 0094). */
  const find = (id: string, store: string | null): SessionRow | undefined => {
    const at = whereIs(id, store);
    return at === undefined ? undefined : (byStoreId.get(at, id) as SessionRow);
  };
  const session = ({ id, store }: { id: string; store: string | null }, asked: TranscriptPage) => db.transaction((): SessionView | null => {
    const found = find(id, store);
    if (!found) return null;
    const key = String(found.store);
    const total = count.get(key, id) as number;
    const { pages, from, wanted } = transcriptPages(id, total, asked);
    const budget = new PageBudget(wanted);
    for (const r of page.iterate(key, id, from, wanted) as IterableIterator<RawMessage>) {
      const cutCalls = r.tool_calls_characters === null || r.tool_calls_characters <= TEXT_CAP ? [] : calls.all({ store: key, session: id, seq: r.seq }) as RawCall[];
      if (!budget.add(message(r, cutCalls))) break;
    }
    const linked = found.parent_session_id === null ? undefined : link.get(key, found.parent_session_id) as Record<string, unknown> | undefined;
    const parent = found.parent_session_id === null ? null : linked ? linkRow(linked) : unknownParent(found.parent_session_id, key);
    const kids = children.all(key, id) as Record<string, unknown>[];
    const changes = models.all(key, id) as SessionView['model_changes'];
    const dispatched = (delegations?.all({ store: key, session: id }) ?? []) as Record<string, unknown>[];
    const lineage = lineageOf(id, kids.length === 0 ? [] : descendants.all({ store: key, session: id }) as string[]);
    return {
      session: sessionDetail(found),
      parent,
      children: kids.slice(0, LIST_ROWS).map(linkRow),
      model_changes: changes.slice(0, LIST_ROWS),
      delegations: dispatched.slice(0, LIST_ROWS).map(delegationRow),
      more: { children: kids.length > LIST_ROWS, delegations: dispatched.length > LIST_ROWS, model_changes: changes.length > LIST_ROWS },
      limits: { title_characters: TITLE_CAP, field_characters: FIELD_CAP, attributes_characters: ATTRIBUTES_CAP, list_rows: LIST_ROWS },
      usage: usageReport(db, { filter: { session: [id] }, place: { store: key }, by: ['model', 'task'] }, dialect),
      lineage_usage: lineage && { descendants: lineage.descendants, more: lineage.more, totals: usageReport(db, { filter: { session: lineage.sessions }, place: { store: key } }, dialect).totals },
      transcript: { page: asked.page, page_size: asked.size, pages, total, from, next_from: budget.next_from, limits: { text_characters: TEXT_CAP, page_bytes: PAGE_BYTES }, messages: budget.messages },
    };
  }).deferred();
  // A whole text, a chunk (one substr) per read, each its own read of the latest commit: a chunk is read only while
  // the text still has the byte length the answer announced (its Content-Length).
  const texts = new Map<TextField['name'], { length: Statement; chunk: Statement }>();
  const textStatements = (name: TextField['name']) => {
    let known = texts.get(name);
    if (!known) texts.set(name, (known = { length: db.prepare(textSql(false, name, 'length')), chunk: db.prepare(textSql(false, name, 'chunk')).pluck() }));
    return known;
  };
  const messageText = ({ id, store }: { id: string; store: string | null }, seq: number, field: TextField): MessageText | null => {
    const { length, chunk } = textStatements(field.name);
    const where = db.transaction(() => {
      const found = whereIs(id, store);
      if (found === undefined) return null;
      const at = { store: found, session: id, seq, call: field.name === 'arguments' ? field.call : null };
      if (hasMessage.get(at.store, id, seq) === undefined) throw noMessage(id, seq);
      const size = length.get(at) as { characters: number | null; bytes: number | null };
      if (size.characters === null) throw noText(id, seq, field);
      return { at, characters: size.characters, bytes: size.bytes ?? 0 };
    }).deferred();
    return where && chunked(chunk, where);
  };
  /** A whole text found at `found.at`, read by `chunk` a piece at a time. */
  const chunked = (chunk: Statement, found: { at: Record<string, unknown>; characters: number; bytes: number }): MessageText => ({
    characters: found.characters,
    bytes: found.bytes,
    chunk: async (from) => (chunk.get({ ...found.at, from, bytes: found.bytes }) as string | undefined) ?? null,
  });
  // A session's own text whole (decision 0094): the same reading, over its row.
  const sessionTexts = new Map<string, { length: Statement; chunk: Statement }>();
  const sessionText = ({ id, store }: { id: string; store: string | null }, field: string): MessageText | null => {
    let known = sessionTexts.get(field);
    if (!known) {
      // A dataset older than version 7 has no `attributes`: the session has none.
      const column = field === 'attributes' && !has('sessions', 'attributes') ? 'NULL' : field;
      sessionTexts.set(field, (known = { length: db.prepare(sessionTextSql(false, column, 'length')), chunk: db.prepare(sessionTextSql(false, column, 'chunk')).pluck() }));
    }
    const { length, chunk } = known;
    const found = db.transaction(() => {
      const at = whereIs(id, store);
      if (at === undefined) return null;
      const size = length.get({ store: at, session: id }) as { characters: number | null; bytes: number | null };
      if (size.characters === null) throw noSessionText(id, field);
      return { at: { store: at, session: id }, characters: size.characters, bytes: size.bytes ?? 0 };
    }).deferred();
    return found && chunked(chunk, found);
  };
  // A page asks for a dozen groupings of one window: its totals are computed once per snapshot of the dataset
  // (PRAGMA data_version changes when another connection, a running forwarder, commits).
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const begin = db.prepare('SELECT 1 FROM sessions LIMIT 1');
  const totals = new Map<string, UsageReport['totals']>();
  let seen: unknown = null;
  const report = (request: ReportRequest) => db.transaction((): UsageReport => {
    begin.get(); // the read transaction's snapshot starts here; data_version is the snapshot's
    const version = dataVersion.get();
    if (version !== seen || totals.size >= 64) {
      totals.clear();
      seen = version;
    }
    const key = JSON.stringify([request.since ?? null, request.until ?? null, request.filter ?? null]);
    let known = totals.get(key);
    if (!known) totals.set(key, (known = runSqlite(db, planTotals(request, dialect), dialect)));
    return runSqlite(db, planReport(request, request.utc ? new Zone('UTC') : ledgerZone(db), dialect, known), dialect);
  }).deferred();
  return {
    fleet: false,
    zone: () => ledgerZone(db),
    report: async (request) => report(request),
    // Outside a transaction: the latest commit of any other connection moves it.
    version: async () => String(dataVersion.get()),
    values: async (request, column, limit) => db.transaction(() => runSqlite(db, planValues(request, column, limit, dialect), dialect)).deferred(),
    session: async (key, asked) => session(key, asked),
    messageText: async (key, seq, field) => messageText(key, seq, field),
    sessionText: async (key, field) => sessionText(key, field),
    async slowestCalls(request: ReportRequest, limit: number): Promise<SlowCall[]> {
      const { tools, params } = reportCondition(request, dialect);
      // The calls the writer keeps (decision 0069), unless the dataset predates them or a hand edit left some stale.
      if (!keptCalls) return db.prepare(slowestSql(request, tools, limit)).all(params) as SlowCall[];
      return db.transaction(() => db.prepare(stale!.get() === undefined ? slowestKeptSql(request, tools, limit) : slowestSql(request, tools, limit)).all(params) as SlowCall[])();
    },
    rowIssues: async (request) => rowIssuesIn(db, request),
    uncosted: async (request) => runSqlite(db, planUncosted(request, dialect), dialect),
    unread: async (request) => unreadIn(db, request),
    close: async () => { db.close(); },
  };
}
