// The sessions domain behind /api/sessions (spec sessions-api §3–§6): list, create, get, update, delete and the
// messages of a session, per profile, on the namespace's clock. No HTTP and no SQL here: handlers parse and render
// (api/sessions.ts), the store remembers (store/session-table.ts). Every answer is read from, or written to, the
// store first, so nothing a client is told can be lost by a crash.
import type { Clock } from '../../shared/clock.js';
import type { IdSource } from '../../shared/ids.js';
import { compareCodePoints, isDict, pyInt, PyJsonError, pyStr, pyStrip, pyTruthy, sqliteBindable, SQLITE_INT_MAX, type PyDict, type PyValue } from '../../shared/python/index.js';
import type { GatewaySettings } from '../gateway.js';
import { fail, ok, UnhandledHermesException, type Result } from '../runs/hermes-errors.js';
import { lockBackoff, StoreUnavailable, type LockWait } from '../runs/run-table.js';
import { playChat, type ChatDeps, type ChatOutcome, type ChatTurn } from './chat.js';
import { streamChat, type StreamedChat } from './chat-stream.js';
import { ContentError, hasVisiblePayload, normalizeContent } from './content.js';
import { sessionErrors } from './errors.js';
import { BRANCHED, forkedMessages, forkId, lineageBase, lineagePattern, mintForkId, nextTitleInLineage, UNTITLED_BASE } from './fork.js';
import { messageObject, sessionObject, shapePreview } from './object.js';
import type { SessionRecorder } from './recorder.js';
import { BROWSER_MODEL_LOCK, mergeModelConfig } from './model-config.js';
import { effectiveRuntime, lockAcceptedRuntime, lockConfig, lockEntry, lockError, runtimeFromBody, type RuntimeRequest } from './runtime.js';
import { mintSessionId, normalizeSource, parseQueryInt, queryBool, sanitizeTitle, sessionIdProblem, TitleTooLong } from './rules.js';
import type { SessionOps, SessionRow, SessionTable } from './table.js';

/** The canonical peer chat (tools.bot_mode_probe.BOT_CHAT_TITLE): the only title the list resurrects. */
export const BOT_CHAT_TITLE = 'Bot Chat';
/** End reasons that mark an accidental archive (SessionDB.RECOVERABLE_END_REASONS). */
const RECOVERABLE_END_REASONS = new Set(['ws_orphan_reap', 'agent_close']);
const PATCHABLE = new Set(['title', 'end_reason', 'pinned', 'archived', 'hidden', 'unread']);
const PATCH_FLAGS = ['pinned', 'archived', 'hidden', 'unread'] as const;

/** Where API-created sessions are also written (the --state-db or --state-home recording), by profile, or null. */
export interface SessionMirror {
  sessionCreated(profile: string, row: { id: string; source: string; model: string | null; model_config: string | null; system_prompt: string | null; started_at: number; title: string | null }): void;
  sessionUpdated(profile: string, id: string, fields: Record<string, unknown>): void;
  /**
   * end_session (PATCH's end_reason). `wasOpen`: the emulated row was open, so Hermes's end took effect (its first
   * reason); false: the row kept the end it had (decision 0147).
   */
  sessionEnded(profile: string, id: string, reason: string, at: number, wasOpen: boolean): void;
  /** update_session_runtime_lock: the lock merged into the row's own model_config (decision 0147). */
  sessionLocked(profile: string, id: string, lock: ModelLockRecord): void;
  sessionDeleted(profile: string, id: string): void;
  /** POST /api/sessions/{id}/fork: the source ended `branched`, the fork made and its messages copied, then its title (null: none set). */
  sessionForked(profile: string, fork: ForkRecord): void;
}

/** What a fork wrote, for the recording to write as SessionDB would (decision 0141). */
export interface ForkRecord {
  sourceId: string;
  id: string;
  model: string | null;
  system_prompt: string | null;
  at: number;
  title: string | null;
  /** The emulated source was open, so end_session ended it `branched` (decision 0147). */
  sourceWasOpen: boolean;
}

/** What a model lock wrote, for the recording to merge into its own row as SessionDB would (decision 0147). */
export interface ModelLockRecord {
  /** The `browser_model_lock` dict, `updated_at` included: the same bytes in the store and the recording. */
  entry: PyDict;
  /** `model = COALESCE(?, model)`: the locked model, or null (a provider alone keeps the row's). */
  model: string | null;
}

export interface SessionServiceDeps {
  readonly table: SessionTable;
  /** The agent and run memory a chat turn is played on. */
  readonly chat: ChatDeps;
  readonly recorder: SessionRecorder;
  readonly clock: Clock;
  readonly ids: () => IdSource;
  readonly gateway: GatewaySettings;
  readonly lock: LockWait;
  readonly mirror: SessionMirror | null;
  /** A mirror write that failed (the request is answered all the same). */
  readonly onMirrorError: (error: unknown) => void;
}

/** A query string's parameters as aiohttp's request.query.get gives them (the first value of a name). */
export type Query = (name: string) => string | undefined;

export class SessionService {
  constructor(private readonly deps: SessionServiceDeps) {}

  /**
   * Runs a store call once the agent's waiting writes (if any) are committed, so a reader never reads around them.
   * A store that stays unavailable fails the request with Hermes's 503.
   */
  async #store<T>(kind: 'read' | 'write', what: string, fn: (ops: SessionOps) => T): Promise<Result<T>> {
    try {
      await this.settled();
      return ok(await this.deps.table[kind](what, fn));
    } catch (e) {
      if (e instanceof StoreUnavailable) return fail(sessionErrors.unavailable());
      throw e;
    }
  }

  /** The agent's waiting writes, committed (or the lock timeout passed: StoreUnavailable). */
  async settled(): Promise<void> {
    const waiting = this.deps.recorder.settled();
    if (!waiting) return;
    const { lock } = this.deps;
    let done = false;
    void waiting.then(() => (done = true), () => (done = true));
    // Short sleeps up to the timeout, never one sleep of all of it: that timer, left running once the writes commit,
    // kept the process alive for the whole lock timeout (30 s after `hermetic serve` said it stopped).
    const deadline = lock.now() + lock.timeoutMs;
    for (let attempt = 0; !done && lock.now() < deadline; attempt++) {
      await Promise.race([waiting, lock.sleep(Math.min(lockBackoff(attempt), Math.max(0, deadline - lock.now())))]);
    }
    if (!done && this.deps.recorder.settled()) throw new StoreUnavailable('busy', 'The session store stayed locked.');
  }

  #mirror(write: (m: SessionMirror) => void): void {
    if (!this.deps.mirror) return;
    try {
      write(this.deps.mirror);
    } catch (e) {
      this.deps.onMirrorError(e);
    }
  }

  /** GET /api/sessions (spec §3): the parameters parsed as Hermes parses them; never a 400. */
  async list(profile: string, query: Query): Promise<Result<PyDict>> {
    const limit = parseQueryInt(query('limit'), 50, 200);
    const offset = parseQueryInt(query('offset'), 0, 1_000_000);
    const source = query('source') || null;
    const includeChildren = queryBool(query('include_children'), false);
    const title = pyStrip(query('title') ?? '') || null;
    const includeHidden = title !== null && queryBool(query('include_hidden'), false);
    const q = { profile, source, limit, offset, includeChildren, includeHidden, search: title };
    const exact = (rows: ReturnType<SessionOps['list']>) => (title === null ? rows : rows.filter((r) => pyStrip(r.title ?? '') === title));
    const listed = await this.#store('read', 'listing sessions', (ops) => exact(ops.list(q)));
    if (!listed.ok) return listed;
    let rows = listed.value;
    if (rows.length === 0 && title === BOT_CHAT_TITLE) {
      // Recoverable-archive resurrection (#92687): a Bot Chat archived by an accident is un-archived, then listed again.
      const again = await this.#store('write', 'resurrecting the Bot Chat', (ops) => {
        const stale = ops.byTitle(profile, title);
        if (!stale || !stale.archived || !RECOVERABLE_END_REASONS.has(stale.end_reason ?? '')) return null;
        ops.update(profile, stale.id, { archived: 0, ended_at: null, end_reason: null });
        return { id: stale.id, rows: exact(ops.list(q)) };
      });
      if (!again.ok) return again;
      if (again.value) {
        const { id } = again.value;
        this.#mirror((m) => m.sessionUpdated(profile, id, { archived: 0, ended_at: null, end_reason: null }));
        rows = again.value.rows;
      }
    }
    // Back-filled pins arrive past the window: only rows that are not pinned count towards another page.
    const windowed = rows.filter((r) => !r.pinned).length;
    return ok(new Map<string, PyValue>([
      ['object', 'list'],
      ['data', rows.map((r) => sessionObject({ ...r, preview: shapePreview(r.preview_raw) }))],
      ['limit', limit],
      ['offset', offset],
      ['has_more', windowed >= limit],
    ]));
  }

  /** POST /api/sessions after the body parsed as an object (spec §4.1 steps 3–9). */
  async create(profile: string, body: PyDict): Promise<Result<PyDict>> {
    const { clock, gateway } = this.deps;
    const now = clock.now();
    const rawId = pyTruthy(body.get('id')) ? body.get('id')! : body.get('session_id');
    const id = pyTruthy(rawId) ? pyStrip(pyStr(rawId!)) : mintSessionId(now, this.deps.ids().uuid4Hex());
    const idProblem = sessionIdProblem(id);
    if (idProblem) return fail(sessionErrors.sessionId(idProblem));
    const systemPrompt = body.get('system_prompt') ?? null;
    if (systemPrompt !== null && typeof systemPrompt !== 'string') return fail(sessionErrors.systemPrompt());
    const source = normalizeSource(pyStr(pyTruthy(body.get('source')) ? body.get('source')! : 'api_server'));
    const runtime = runtimeFromBody(body, gateway.modelName);
    const refused = lockError(runtime);
    if (refused) return fail(refused);
    const rawTitle = body.get('title');
    // sanitize_title runs inside Hermes's create transaction: too long raises there (after the exists check).
    let title: string | null = null;
    let tooLong = false;
    if (rawTitle !== undefined && rawTitle !== null) {
      try {
        title = sanitizeTitle(pyStr(rawTitle));
      } catch (e) {
        if (!(e instanceof TitleTooLong)) throw e;
        tooLong = true;
      }
    }
    const row = {
      profile,
      id,
      source,
      model: runtime.model || null,
      model_config: lockConfig(runtime, now),
      system_prompt: systemPrompt,
      started_at: now,
    };
    // Hermes's transaction binds the id first (the exists check), then the row's columns: Python's sqlite3 cannot
    // encode a str holding a lone surrogate (UnicodeEncodeError), and nothing catches it: the 500 page, nothing written.
    if (!sqliteBindable(id)) throw new UnhandledHermesException('sqlite3 could not bind the session id (UnicodeEncodeError)');
    const columnsBind = sqliteBindable(row.model) && sqliteBindable(row.system_prompt);
    const ids = this.deps.ids();
    const created = await this.#store('write', 'creating a session', (ops) => {
      // A seeded id stream starts over in a new process: a minted id skips the ids the store already holds (Hermes's
      // uuid4 never repeats), as run ids do.
      if (!pyTruthy(rawId) && ids.seeded) while (ops.get(profile, row.id)) row.id = mintSessionId(now, ids.uuid4Hex());
      if (ops.get(profile, row.id)) return { kind: 'exists' as const };
      if (!columnsBind) return { kind: 'unbindable' as const };
      if (tooLong) return { kind: 'too-long' as const };
      return ops.create(row, title);
    });
    if (!created.ok) return created;
    const outcome = created.value;
    if (outcome.kind === 'exists') return fail(sessionErrors.exists(id));
    if (outcome.kind === 'unbindable') throw new UnhandledHermesException('sqlite3 could not bind the INSERT (UnicodeEncodeError)');
    if (outcome.kind === 'too-long') throw new UnhandledHermesException('sanitize_title raised ValueError inside the create transaction');
    if (outcome.kind === 'title-taken') return fail(sessionErrors.titleTaken(outcome.holder));
    this.#mirror((m) => m.sessionCreated(profile, { ...row, title }));
    return ok(wrap(outcome.row));
  }

  /** GET /api/sessions/{id}. */
  async get(profile: string, id: string): Promise<Result<PyDict>> {
    const found = await this.find(profile, id);
    return found.ok ? ok(wrap(found.value)) : found;
  }

  /** _get_existing_session_or_404: the row, 404, or 503. */
  async find(profile: string, id: string): Promise<Result<SessionRow>> {
    const row = await this.#store('read', 'reading a session', (ops) => ops.get(profile, id));
    if (!row.ok) return row;
    return row.value ? ok(row.value) : fail(sessionErrors.notFound(id));
  }

  /** PATCH /api/sessions/{id} after the 404 check and the body parsed as an object (spec §6). */
  async patch(profile: string, id: string, body: PyDict, before: SessionRow): Promise<Result<PyDict>> {
    const unknown = [...body.keys()].filter((k) => !PATCHABLE.has(k)).sort(compareCodePoints);
    if (unknown.length > 0) return fail(sessionErrors.unsupportedFields(unknown));
    for (const flag of PATCH_FLAGS) {
      if (body.has(flag) && typeof body.get(flag) !== 'boolean') return fail(sessionErrors.notBoolean(flag));
    }
    const now = this.deps.clock.now();
    let title: string | null | undefined;
    if (body.has('title')) {
      const raw = body.get('title')!;
      try {
        title = sanitizeTitle(raw === null ? '' : pyStr(raw));
      } catch (e) {
        if (e instanceof TitleTooLong) return fail(sessionErrors.title(e.message));
        throw e;
      }
    }
    const changes: Record<string, unknown> = {};
    if (title !== undefined) changes.title = title;
    // set_session_pinned, set_session_archived, set_session_hidden, set_session_read, in this order.
    if (body.has('pinned')) changes.pinned = body.get('pinned') ? 1 : 0;
    if (body.has('archived')) changes.archived = body.get('archived') ? 1 : 0;
    if (body.has('hidden')) changes.hidden = body.get('hidden') ? 1 : 0;
    if (body.has('unread')) changes.last_read_at = body.get('unread') ? 0 : now;
    const endReason = pyTruthy(body.get('end_reason')) ? pyStr(body.get('end_reason')!) : null;
    // end_session is Hermes's last write, after the title and flags are committed: an end_reason sqlite3 cannot bind
    // (a lone surrogate) raises there, uncaught — the 500 page, the title and flags kept.
    const endBinds = endReason === null || sqliteBindable(endReason);
    const updated = await this.#store('write', 'updating a session', (ops) => {
      if (title) {
        const holder = ops.titleHolder(profile, title, id);
        if (holder !== undefined) return { conflict: holder };
      }
      ops.update(profile, id, changes as Partial<SessionRow>);
      const ended = endReason !== null && endBinds && ops.end(profile, id, endReason, now);
      return { row: ops.get(profile, id), ended };
    });
    if (!updated.ok) return updated;
    const { conflict, row, ended } = updated.value as { conflict?: string; row?: SessionRow; ended?: boolean };
    if (conflict !== undefined) return fail(sessionErrors.title(`Title '${title}' is already in use by session ${conflict}`));
    this.#mirror((m) => {
      m.sessionUpdated(profile, id, changes);
      if (endReason !== null && endBinds) m.sessionEnded(profile, id, endReason, now, ended === true);
    });
    if (!endBinds) throw new UnhandledHermesException('sqlite3 could not bind end_session\'s end_reason (UnicodeEncodeError)');
    // `db.get_session(id) or session`: a row deleted since the 404 check answers as it was first read (decision 0078).
    return ok(wrap(row ?? before));
  }

  /** DELETE /api/sessions/{id} after the 404 check. */
  async delete(profile: string, id: string): Promise<Result<PyDict>> {
    const deleted = await this.#store('write', 'deleting a session', (ops) => ops.delete(profile, id));
    if (!deleted.ok) return deleted;
    if (deleted.value) this.#mirror((m) => m.sessionDeleted(profile, id));
    return ok(new Map<string, PyValue>([['object', 'hermes.session.deleted'], ['id', id], ['deleted', deleted.value]]));
  }

  /**
   * POST /api/sessions/{id}/fork after the 404 check and the body parsed as an object (decision 0141): the id, 409 when
   * it exists, then SessionDB's steps — the source ended `branched`, the fork created under it, the source's live
   * messages copied, the title (the body's, else the next in the source's lineage) — in one transaction. A title
   * SessionDB refuses is Hermes's 400 with the fork kept, as Hermes's separate writes leave it.
   */
  async fork(profile: string, source: SessionRow, body: PyDict): Promise<Result<PyDict>> {
    const now = this.deps.clock.now();
    const ids = this.deps.ids();
    const chosen = forkId(body, () => mintForkId(now, ids.uuid4Hex()));
    if (!chosen) return fail(sessionErrors.sessionId('Invalid session ID'));
    // db.get_session(fork_id) binds the id first: a lone surrogate is sqlite3's UnicodeEncodeError, uncaught (0118).
    if (!sqliteBindable(chosen.id)) throw new UnhandledHermesException('sqlite3 could not bind the fork id (UnicodeEncodeError)');
    const rawTitle = body.get('title');
    const given = rawTitle === undefined || rawTitle === null ? null : pyStr(rawTitle);
    let id = chosen.id;
    let sourceWasOpen = false;
    const forked = await this.#store('write', 'forking a session', (ops) => {
      // A seeded id stream starts over in a new process: a minted id skips the ids the store holds, as create's does.
      if (chosen.minted && ids.seeded) while (ops.get(profile, id)) id = mintForkId(now, ids.uuid4Hex());
      if (ops.get(profile, id)) return { kind: 'exists' as const };
      // The source was read before the body; deleted since, end_session changes nothing and create_session's INSERT
      // names a parent that is gone, which SessionDB's connection (foreign keys on) refuses: raised, nothing written.
      if (!ops.get(profile, source.id)) return { kind: 'orphan' as const };
      sourceWasOpen = ops.end(profile, source.id, BRANCHED, now);
      ops.ensure({ profile, id, source: 'api_server', model: source.model, model_config: null, system_prompt: source.system_prompt, started_at: now, parent_session_id: source.id });
      const copied = forkedMessages(ops.messages(profile, source.id, { limit: -1, offset: 0, latest: false }), now);
      ops.replaceMessages(profile, id, copied.messages, copied.toolCalls);
      let wanted = given;
      if (wanted === null) {
        const base = lineageBase(source.title || UNTITLED_BASE);
        wanted = nextTitleInLineage(base, ops.lineageTitles(profile, base, lineagePattern(base)));
      }
      // set_session_title: sanitize_title (too long raises), then another row holding it raises; "" clears it.
      let title: string | null;
      try {
        title = sanitizeTitle(wanted);
      } catch (e) {
        if (!(e instanceof TitleTooLong)) throw e;
        return { kind: 'title' as const, message: e.message };
      }
      const holder = title ? ops.titleHolder(profile, title, id) : undefined;
      if (holder !== undefined) return { kind: 'title' as const, message: `Title '${title}' is already in use by session ${holder}` };
      ops.update(profile, id, { title });
      return { kind: 'forked' as const, title, row: ops.get(profile, id)! };
    });
    if (!forked.ok) return forked;
    const outcome = forked.value;
    if (outcome.kind === 'exists') return fail(sessionErrors.exists(id));
    if (outcome.kind === 'orphan') throw new UnhandledHermesException('create_session: FOREIGN KEY constraint failed (the source was deleted)');
    const title = outcome.kind === 'forked' ? outcome.title : null;
    this.#mirror((m) => m.sessionForked(profile, { sourceId: source.id, id, model: source.model, system_prompt: source.system_prompt, at: now, title, sourceWasOpen }));
    if (outcome.kind === 'title') return fail(sessionErrors.title(outcome.message));
    return ok(wrap(outcome.row));
  }

  /**
   * The checks both chat routes make after the 404 check and the body parsed as an object (spec §6): the user turn, the
   * system message, the model lock (a newly confirmed one saved before any turn), then the turn to play.
   */
  async #chatTurn(session: SessionRow, body: PyDict, header: (name: string) => string | undefined, sessionKey: string | null): Promise<Result<ChatTurn>> {
    const raw = pyOr(body, 'message', 'input');
    if (!hasVisiblePayload(raw)) return fail(sessionErrors.missingMessage());
    let userMessage: PyValue;
    try {
      userMessage = normalizeContent(raw);
    } catch (e) {
      if (e instanceof ContentError) return fail(sessionErrors.content(e.code, e.message));
      throw e;
    }
    const system = pyOr(body, 'system_message', 'instructions');
    if (system !== undefined && system !== null && typeof system !== 'string') return fail(sessionErrors.systemMessage());
    const runtime = effectiveRuntime(body, session.model_config, this.deps.gateway.modelName);
    const refused = lockError(runtime);
    if (refused) return fail(refused);
    if (runtime.requireLock && !runtime.persisted) {
      const saved = await this.#persistLock(session, runtime);
      if (!saved.ok) return saved;
    }
    return ok({
      profile: session.profile,
      sessionId: session.id,
      userMessage,
      instructions: system ?? undefined,
      runtime,
      storedModel: session.model,
      header,
      sessionKey,
    });
  }

  /**
   * POST /api/sessions/{id}/chat after the 404 check and the body parsed as an object (spec §6): the chat's checks,
   * then one agent turn. Resolves when the agent's task has ended.
   */
  /** `sessionKey`: the validated X-Hermes-Session-Key (null: none), the chat agent's gateway_session_key. */
  async chat(session: SessionRow, body: PyDict, header: (name: string) => string | undefined, sessionKey: string | null = null): Promise<Result<ChatOutcome>> {
    const turn = await this.#chatTurn(session, body, header, sessionKey);
    if (!turn.ok) return turn;
    const outcome = await playChat(this.deps.chat, turn.value);
    // The turn's messages are in the session before the reply leaves (they wait only if the store was locked).
    try {
      await this.settled();
    } catch (e) {
      if (e instanceof StoreUnavailable) return fail(sessionErrors.unavailable());
      throw e;
    }
    return ok(outcome);
  }

  /**
   * POST /api/sessions/{id}/chat/stream after the 404 check and the body parsed as an object (decision 0145): the
   * sync chat's checks, then the turn admitted as a run `scope` owns, its events queued for the stream as they happen.
   */
  async chatStream(session: SessionRow, body: PyDict, header: (name: string) => string | undefined, sessionKey: string | null, scope: string): Promise<Result<StreamedChat>> {
    const turn = await this.#chatTurn(session, body, header, sessionKey);
    if (!turn.ok) return turn;
    // body.get("model", self._model_name): a `model` key's value as sent (null included), else the advertised name.
    const statusModel = body.has('model') ? body.get('model')! : this.deps.gateway.modelName;
    const messageId = `msg_${this.deps.ids().uuid4Hex()}`;
    return ok(streamChat(this.deps.chat, this.deps.recorder, { ...turn.value, scope, statusModel, messageId }));
  }

  /**
   * POST /api/sessions/{id}/model after the 404 check and the body parsed as an object (`_handle_session_model_lock`,
   * decision 0142): the body's model asked for with `require_model_lock` forced on, `_runtime_lock_error`'s refusals,
   * the lock written as the chat writes a newly confirmed one (every time: this route never reuses a stored lock),
   * then the runtime it was accepted for. No agent turn.
   */
  async lockModel(session: SessionRow, body: PyDict): Promise<Result<PyDict>> {
    const runtime: RuntimeRequest = { ...runtimeFromBody(body, this.deps.gateway.modelName), requireLock: true };
    const refused = lockError(runtime);
    if (refused) return fail(refused);
    const saved = await this.#persistLock(session, runtime);
    if (!saved.ok) return saved;
    return ok(new Map<string, PyValue>([
      ['object', 'hermes.session.model_lock'],
      ['session_id', session.id],
      ['runtime', lockAcceptedRuntime(runtime)],
    ]));
  }

  /**
   * _persist_session_runtime_lock → SessionDB.update_session_runtime_lock: a newly confirmed lock is merged into the
   * row's model_config under `browser_model_lock` (its other keys kept: decision 0147), its model becomes the row's
   * (`COALESCE(?, model)`), and the stored system prompt is cleared (decision 0118). A row gone since the 404 check is
   * left alone, as the merge finds no row. A model sqlite3 cannot bind (a lone surrogate), a model_config json.loads
   * raises on, or a store that fails the write is the handler's own JSON 500. The lock is committed before the
   * caller answers; the recording merges it into its own row.
   */
  async #persistLock(session: SessionRow, runtime: RuntimeRequest): Promise<Result<void>> {
    const lock: ModelLockRecord = { entry: lockEntry(runtime, this.deps.clock.now()), model: runtime.model || null };
    const patch = new Map<string, PyValue>([[BROWSER_MODEL_LOCK, lock.entry]]);
    const { profile, id } = session;
    const saved = sqliteBindable(runtime.model)
      ? await this.#store('write', 'saving a model lock', (ops) => {
          const row = ops.get(profile, id);
          if (!row) return 'missing' as const;
          let merged: string | null;
          try {
            merged = mergeModelConfig(row.model_config, patch);
          } catch (e) {
            if (e instanceof PyJsonError) return 'raised' as const;
            throw e;
          }
          ops.update(profile, id, { model_config: merged, system_prompt: null, ...(lock.model ? { model: lock.model } : {}) });
          return 'written' as const;
        })
      : null;
    if (!saved?.ok || saved.value === 'raised') return fail(sessionErrors.lockNotPersisted());
    if (saved.value === 'written') this.#mirror((m) => m.sessionLocked(profile, id, lock));
    return ok(undefined);
  }

  /** GET /api/sessions/{id}/messages after the 404 check (spec §6): a page, latest 500 by default. */
  async messages(profile: string, id: string, query: Query): Promise<Result<PyDict>> {
    const order = query('order');
    if (order !== undefined && order !== 'oldest' && order !== 'latest') return fail(sessionErrors.order());
    const rawLimit = query('limit');
    const offset = pyInt(query('offset') ?? '0');
    const requested = rawLimit === undefined ? null : pyInt(rawLimit);
    if (offset === null || offset < 0n || (rawLimit !== undefined && (requested === null || requested < 0n))) return fail(sessionErrors.page());
    const defaultPage = requested === null;
    const latest = order === 'latest' || (order === undefined && defaultPage);
    const limit = defaultPage || requested > 500n ? 500 : Number(requested);
    // get_messages binds the offset as it is: sqlite3 cannot bind an int past 2**63 - 1 (OverflowError), and no
    // handler catches it (decision 0078).
    if (offset > SQLITE_INT_MAX) throw new UnhandledHermesException('sqlite3 OverflowError: Python int too large to convert to SQLite INTEGER');
    // resolve_resume_session_id: no compression continuations exist here, so the session itself holds its messages.
    const rows = await this.#store('read', 'reading messages', (ops) => ops.messages(profile, id, { limit, offset, latest }));
    if (!rows.ok) return rows;
    return ok(new Map<string, PyValue>([
      ['object', 'list'],
      ['session_id', id],
      ['data', rows.value.map(messageObject)],
      ['pagination', new Map<string, PyValue>([
        ['limit', limit],
        ['offset', offset <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(offset) : offset],
        ['order', order ?? (defaultPage ? 'latest' : 'oldest')],
        ['returned', rows.value.length],
      ])],
    ]));
  }
}

/** Python's `a or b` over a dict's keys: the first truthy value, else the last one looked up. */
function pyOr(body: PyDict, ...keys: string[]): PyValue | undefined {
  let value: PyValue | undefined;
  for (const key of keys) {
    value = body.get(key);
    if (pyTruthy(value)) return value;
  }
  return value;
}

/** {"object": "hermes.session", "session": …} */
const wrap = (row: SessionRow): PyDict => new Map<string, PyValue>([['object', 'hermes.session'], ['session', sessionObject(row)]]);

/** Reads a body value the route requires to be a JSON object (`_read_json_body`); undefined → Invalid JSON. */
export function bodyObject(parsed: { value: PyValue } | undefined): Result<PyDict> {
  if (!parsed) return fail(sessionErrors.invalidJson());
  return isDict(parsed.value) ? ok(parsed.value) : fail(sessionErrors.notObject());
}
