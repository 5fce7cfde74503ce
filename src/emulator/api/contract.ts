// What each route of the Hermes table (routes.ts) takes and answers, as JSON Schema, for the OpenAPI document
// (scripts/openapi/, served at GET /__admin/openapi.json). One entry per route of the table, keyed "METHOD path";
// the routes Hermes has but the emulator does not share one entry. The schemas say the shapes of spec runs-api
// §2.1, §5–§11 and §14 (docs/reference/hermes-api.md); the bytes (key order, spacing) are wire/'s business.
// Nothing here runs when a request is answered.
import type { UnemulatedGuard } from './endpoints.js';
import type { Operation } from './routes.js';

export type SchemaObject = { readonly [keyword: string]: unknown };
export type Schema = boolean | SchemaObject;

/** One answer: JSON (a schema), an event stream, a text page, or no body at all. */
export interface HermesAnswer {
  readonly description: string;
  readonly json?: Schema;
  readonly eventStream?: true;
  /** A text/plain page (aiohttp's own, for an exception a handler raised). */
  readonly text?: true;
  /** The page is text/html instead when the client accepts it (aiohttp's 500 page only). */
  readonly html?: true;
  /** No body, sent as `application/octet-stream` by aiohttp (the CORS refusal, decision 0029). */
  readonly bare?: true;
  readonly headers?: readonly string[];
}

/** The document's groups of Hermes routes, in this order, each with its description. */
export const HERMES_TAGS = {
  'Hermes runs': "Hermes's peer-run API.",
  'Hermes sessions': "The API server's sessions, as `hermes peer run|dm` uses them.",
  'Hermes meta': 'What a peer client reads before it runs anything.',
  'Not emulated': "Routes Hermes serves that Hermetic does not: Hermes's own answers up to where it would serve the request, then 501.",
} as const;

export interface HermesOperation {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tag: keyof typeof HERMES_TAGS;
  /** Request headers of this route (names of HERMES_HEADERS). */
  readonly headers?: readonly string[];
  readonly body?: { readonly schema: Schema; readonly description: string };
  /** By status code; the front door's answers (COMMON_ANSWERS) are added to every route. */
  readonly answers: Readonly<Record<string, HermesAnswer | readonly HermesAnswer[]>>;
}

const ref = (name: string): SchemaObject => ({ $ref: `#/components/schemas/${name}` });
const string: Schema = { type: 'string' };
const number: Schema = { type: 'number' };
const integer: Schema = { type: 'integer' };
const boolean: Schema = { type: 'boolean' };
const nullableString: Schema = { type: ['string', 'null'] };
const nullableNumber: Schema = { type: ['number', 'null'] };
const closed = (properties: Record<string, Schema>, required: string[] = Object.keys(properties)): SchemaObject => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** Schemas the entries below refer to (components/schemas; RunStatus comes from the admin contract's type). */
export const HERMES_SCHEMAS: Readonly<Record<string, Schema>> = {
  HermesError: {
    description: "Hermes's standard error envelope (spec runs-api §2.1): four keys, `param` always null, the message redacted.",
    ...closed({
      error: closed({ message: string, type: string, param: { type: 'null' }, code: { type: ['string', 'null'] } }),
    }),
  },
  HermesAuthError: {
    description: 'The 401 for a missing or wrong API key: three keys, no `param`.',
    ...closed({
      error: closed({ message: { const: 'Invalid gateway API key (API_SERVER_KEY)' }, type: { const: 'gateway_auth_error' }, code: { const: 'gateway_auth_failed' } }),
    }),
  },
  HermesSessionKeyError: {
    description: 'The two X-Hermes-Session-Key 400s: `message` and `type` only.',
    ...closed({ error: closed({ message: { enum: ['Invalid session key', 'Session key too long'] }, type: { const: 'invalid_request_error' } }) }),
  },
  HermesProfileNotFound: {
    description: 'An unknown /p/{profile}/ prefix: `error` is a string here.',
    ...closed({ error: { const: 'Unknown or unconfigured profile' } }),
  },
  HermesFireTokenRefused: {
    description: "POST /api/cron/fire's refusal: `error` is a string here.",
    ...closed({ error: { const: 'invalid fire token' } }),
  },
  HermeticError: {
    description: "Hermetic's own errors (docs/reference/errors.md): a stable HERMETIC_* code and a sentence.",
    ...closed({ error: closed({ code: { type: 'string', pattern: '^HERMETIC_[A-Z0-9_]+$' }, message: string }) }),
  },
  HermesUsage: closed({ input_tokens: number, output_tokens: number, total_tokens: number }),
  HermesRunEvent: {
    description: 'One event of a run (spec runs-api §8.3): `event`, `run_id`, `timestamp`, then the fields of its kind.',
    type: 'object',
    properties: { event: string, run_id: string, timestamp: number },
    required: ['event', 'run_id', 'timestamp'],
  },
  HermesRun: {
    description:
      'The `hermes.run` status object (spec runs-api §6). A new run has object … model in this order; later changes append keys; a run read back from the store has its keys in alphabetical order.',
    ...closed(
      {
        object: { const: 'hermes.run' },
        run_id: string,
        status: ref('RunStatus'),
        updated_at: number,
        created_at: number,
        session_id: { description: 'As the client sent it (any JSON value); default the run id.' },
        model: { description: 'As the client sent it (even null); default the advertised model name.' },
        last_event: string,
        approval: { description: 'While waiting_for_approval: the whole approval.request event.', ...ref('HermesRunEvent') },
        output: { type: ['string', 'null'] },
        usage: {
          description: "The run's usage; a session chat stream's turn (decision 0145) adds the runtime it ran with.",
          type: 'object',
          properties: { input_tokens: number, output_tokens: number, total_tokens: number, runtime: ref('HermesSessionRuntime') },
          required: ['input_tokens', 'output_tokens', 'total_tokens'],
          additionalProperties: false,
        },
        pending_steer: string,
        error: string,
      },
      ['object', 'run_id', 'status', 'updated_at', 'created_at'],
    ),
  },
  HermesSubmitAccepted: closed({
    run_id: { type: 'string', pattern: '^run_[0-9a-f]{32}$' },
    status: { description: '"started" for a new run; a replay gives the run\'s current status.', anyOf: [{ const: 'started' }, ref('RunStatus')] },
    replayed: { type: 'boolean' },
  }),
  HermesSubmitRequest: {
    type: 'object',
    description: 'Unknown fields are ignored, but count in the idempotency fingerprint.',
    properties: {
      input: {
        description: 'A string, or a list of message objects whose last item\'s `content` is the user turn.',
        anyOf: [string, { type: 'array', items: { type: 'object' } }],
      },
      session_id: { description: 'Any truthy value, recorded as given; default the run id.' },
      instructions: {},
      conversation_history: { type: 'array', items: { type: 'object', properties: { role: string, content: {} }, required: ['role', 'content'] } },
      previous_response_id: {},
      model: {},
      provider: {},
      model_options: {},
    },
    required: ['input'],
  },
  HermesApprovalRequest: {
    type: 'object',
    properties: {
      choice: { description: 'once, session, always or deny (approve, approved and allow mean once); stripped, lower-cased.', type: 'string' },
      request_id: { type: ['string', 'null'], maxLength: 256 },
      all: { type: ['boolean', 'number', 'string'] },
      resolve_all: { type: ['boolean', 'number', 'string'] },
    },
    required: ['choice'],
  },
  HermesApprovalResponse: closed(
    { object: { const: 'hermes.run.approval_response' }, run_id: string, choice: string, request_id: string, resolved: { type: 'integer' } },
    ['object', 'run_id', 'choice', 'resolved'],
  ),
  HermesSteerRequest: {
    type: 'object',
    description: "The text is the first truthy of `input`, `message`, `text`: a string, or a list of strings and text parts.",
    properties: { input: {}, message: {}, text: {} },
  },
  HermesSteerAccepted: closed({ object: { const: 'hermes.run.steer' }, run_id: string, accepted: { type: 'boolean' } }),
  HermesStopAccepted: closed({ run_id: string, status: { const: 'stopping' } }),
  HermesHealth: closed({ status: { const: 'ok' }, platform: { const: 'hermes-agent' }, version: string }),
  HermesSession: {
    description:
      'A session (spec sessions-api §5): keys in this order, only those the row has — create, get and update answers have neither `last_active` nor `preview`; list rows have both.',
    ...closed(
      {
        id: string,
        source: string,
        user_id: nullableString,
        model: nullableString,
        title: nullableString,
        started_at: number,
        ended_at: nullableNumber,
        end_reason: nullableString,
        message_count: integer,
        tool_call_count: integer,
        input_tokens: integer,
        output_tokens: integer,
        cache_read_tokens: integer,
        cache_write_tokens: integer,
        reasoning_tokens: integer,
        estimated_cost_usd: nullableNumber,
        actual_cost_usd: nullableNumber,
        api_call_count: integer,
        parent_session_id: nullableString,
        last_active: number,
        preview: {
          type: 'string',
          description: 'The first user message: newlines as spaces, stripped, an expanded /skill turn as typed ("/work — fix it"), '
            + 'else the text before any \\x1e; 60 characters and "..." when longer.',
        },
        _lineage_root_id: string,
        pinned: boolean,
        archived: boolean,
        hidden: boolean,
        has_system_prompt: boolean,
        has_model_config: boolean,
      },
      [
        'id', 'source', 'user_id', 'model', 'title', 'started_at', 'ended_at', 'end_reason', 'message_count', 'tool_call_count',
        'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd',
        'actual_cost_usd', 'api_call_count', 'parent_session_id', 'pinned', 'archived', 'hidden', 'has_system_prompt', 'has_model_config',
      ],
    ),
  },
  HermesSessionAnswer: closed({ object: { const: 'hermes.session' }, session: ref('HermesSession') }),
  HermesContentError: {
    description: 'A bad content part of the session chat\'s message: the four-key envelope with `param` naming the field.',
    ...closed({ error: closed({ message: string, type: { const: 'invalid_request_error' }, param: { const: 'message' }, code: string }) }),
  },
  HermesSessionList: closed({
    object: { const: 'list' },
    data: { type: 'array', items: ref('HermesSession') },
    limit: integer,
    offset: integer,
    has_more: { type: 'boolean', description: 'Rows in `data` that are not pinned ≥ limit (pinned rows back-filled past the window do not count).' },
  }),
  HermesSessionDeleted: closed({ object: { const: 'hermes.session.deleted' }, id: string, deleted: boolean }),
  HermesSessionMessage: closed({
    id: integer,
    session_id: string,
    role: string,
    content: { description: 'Text, or the structured content (text and image parts) as stored.' },
    tool_call_id: nullableString,
    tool_calls: { description: 'OpenAI-style tool calls (`call_…`, function name and JSON arguments), or null.' },
    tool_name: nullableString,
    timestamp: number,
    token_count: { type: ['integer', 'null'] },
    finish_reason: nullableString,
    reasoning: nullableString,
    reasoning_content: nullableString,
    display_kind: nullableString,
  }),
  HermesSessionMessages: closed({
    object: { const: 'list' },
    session_id: string,
    data: { type: 'array', items: ref('HermesSessionMessage') },
    pagination: closed({ limit: integer, offset: integer, order: { enum: ['oldest', 'latest'] }, returned: integer }),
  }),
  HermesSessionCreateRequest: {
    type: 'object',
    description: 'Every field is optional; other fields are ignored.',
    properties: {
      id: { description: 'Or `session_id`. A truthy value is str()-ed and stripped; else `api_<epoch>_<8 hex>` is minted.' },
      session_id: {},
      title: { description: 'str()-ed and sanitized; unique among the profile\'s sessions.' },
      source: { description: 'api_server, hermes_browser, browser (→ hermes_browser), cli, telegram, discord, slack, desktop or dashboard; anything else is api_server.' },
      system_prompt: { type: ['string', 'null'] },
      model: {}, model_id: {}, provider: {}, provider_id: {}, model_options: {}, require_model_lock: {},
    },
  },
  HermesSessionForkRequest: {
    type: 'object',
    description: 'Every field is optional; other fields are ignored.',
    properties: {
      id: { description: 'Or `session_id`. A truthy value is str()-ed and stripped (no length or path check); else `api_<epoch>_<8 hex>` is minted.' },
      session_id: {},
      title: { description: 'str()-ed and sanitized; absent or null: the next title in the source\'s lineage (`<title> #N`, `fork`).' },
    },
  },
  HermesSessionUpdateRequest: {
    type: 'object',
    description: 'Only these fields; the flags must be JSON booleans.',
    properties: {
      title: { type: ['string', 'number', 'boolean', 'null'] },
      end_reason: {},
      pinned: boolean,
      archived: boolean,
      hidden: boolean,
      unread: boolean,
    },
    additionalProperties: false,
  },
  HermesSessionChatRequest: {
    type: 'object',
    properties: {
      message: { description: 'The user turn (or `input`): text, or a list of text and image_url parts.' },
      input: {},
      system_message: { type: ['string', 'null'], description: 'Or `instructions`.' },
      instructions: {},
      model: {}, provider: {}, model_options: {}, require_model_lock: {},
    },
  },
  HermesSessionRuntime: {
    type: 'object',
    properties: {
      provider: string,
      model: string,
      route_source: string,
      requested: closed({ provider: string, model: string }),
      model_lock: string,
    },
    required: ['provider', 'model', 'route_source'],
    additionalProperties: false,
  },
  HermesSessionModelLockRequest: {
    type: 'object',
    description: 'A model (or `model_id`; `provider::model` names the provider too) is required; other fields are ignored. `require_model_lock` is always on here.',
    properties: {
      model: {}, model_id: {}, provider: {}, provider_id: {}, model_options: {},
    },
  },
  HermesSessionModelLock: closed({
    object: { const: 'hermes.session.model_lock' },
    session_id: string,
    runtime: ref('HermesSessionRuntime'),
  }),
  HermesSessionChat: closed({
    object: { const: 'hermes.session.chat.completion' },
    session_id: string,
    message: closed({ role: { const: 'assistant' }, content: { description: "The agent's final answer (null when its loop failed)." } }),
    usage: {
      type: 'object',
      properties: { input_tokens: number, output_tokens: number, total_tokens: number, runtime: ref('HermesSessionRuntime') },
      required: ['input_tokens', 'output_tokens', 'total_tokens'],
      additionalProperties: false,
    },
    runtime: ref('HermesSessionRuntime'),
  }),
  HermesCapabilities: {
    type: 'object',
    properties: {
      object: { const: 'hermes.api_server.capabilities' },
      platform: { const: 'hermes-agent' },
      model: string,
      auth: closed({ type: { const: 'bearer' }, required: { type: 'boolean' } }),
      runtime: { type: 'object' },
      features: { type: 'object', properties: { runs_idempotency: closed({ supported: { type: 'boolean' }, durable: { type: 'boolean' }, retention_seconds: number }) } },
      endpoints: { type: 'object', additionalProperties: closed({ method: string, path: string }) },
    },
    required: ['object', 'platform', 'model', 'auth', 'runtime', 'features', 'endpoints'],
    additionalProperties: false,
  },
};

/** Request and answer headers the entries name (components/parameters and components/headers). */
export const HERMES_HEADERS: Readonly<Record<string, { readonly description: string; readonly schema: Schema }>> = {
  'Idempotency-Key': {
    description: '1–255 visible ASCII characters after stripping; empty means no key. Same key and same request: the first run is answered again.',
    schema: string,
  },
  'X-Hermes-Session-Key': { description: 'Stripped; at most 256 characters, no CR, LF or NUL. Echoed on 202 answers.', schema: string },
  'Idempotency-Replayed': { description: '`true` on a replayed submission.', schema: { const: 'true' } },
  'Retry-After': { description: '`1` on capacity (429) and draining (503) answers.', schema: string },
  'X-Hermes-Session-Id': { description: 'The session a session chat answered in.', schema: string },
};

const err = (description: string): HermesAnswer => ({ description, json: ref('HermesError') });
const runNotFound = err('Unknown run, another key\'s or profile\'s run (`run_not_found`).');
const unauthorized: readonly HermesAnswer[] = [
  { description: 'Missing or wrong API key.', json: ref('HermesAuthError') },
  err('A room grant, which the emulator never honours (`invalid_room_grant`).'),
];
/** A route that reads no room grant: only the key can be wrong. */
const noRoomGrant: HermesAnswer = { description: 'Missing or wrong API key (this route takes no room grant).', json: ref('HermesAuthError') };
const bodyTooLarge = err('Content-Length above 10 000 000 (`body_too_large`).');

/** What the front door can answer on any route before the route's handler runs (spec runs-api §1.2, §2.5). */
export const COMMON_ANSWERS: Readonly<Record<string, HermesAnswer | readonly HermesAnswer[]>> = {
  '400': { description: 'A bad namespace name or two different namespace selectors (HERMETIC_NAMESPACE_INVALID).', json: ref('HermeticError') },
  '403': { description: 'An `Origin` that is not allowed (no CORS origins configured: any `Origin`): a bare 403, no body.', bare: true },
  '404': { description: 'An unknown /p/{profile}/ prefix.', json: ref('HermesProfileNotFound') },
  '417': { description: "aiohttp's page for an HTTP/1.1 `Expect` header other than `100-continue` (`Unknown Expect: …`), before any middleware.", text: true },
  '500': { description: "aiohttp's page for an exception in a handler (a store failure, a Bearer token that is not UTF-8, or a bug of Hermetic's).", text: true, html: true },
  '503': { description: 'The first request of a namespace past --max-namespaces, with no idle namespace to evict (HERMETIC_NAMESPACE_LIMIT).', json: ref('HermeticError') },
};

const RUNS = 'Hermes runs';
const SESSIONS = 'Hermes sessions';
const sessionNotFound = err('Unknown session id in this profile (`session_not_found`).');
const sessionsUnavailable = err('The session store is locked past the lock timeout or failed (`session_db_unavailable`).');
const keyOnly = { description: 'Missing or wrong API key (these routes take no room grant).', json: ref('HermesAuthError') } as const;
const draining: HermesAnswer = { description: 'The gateway is draining (`gateway_draining`).', json: ref('HermesError'), headers: ['Retry-After'] };
const bodyErrors = 'Invalid JSON in the body, a body that is not an object, a non-integer Content-Length';
/** What the sync chat and its stream refuse, in the same order (decision 0145: one set of checks for both). */
const chatRefusals: Record<string, HermesAnswer | HermesAnswer[]> = {
  '400': [
    err(`${bodyErrors}; no message (\`missing_message\`), a system_message that is not a string, \`missing_model\`.`),
    { description: 'A bad X-Hermes-Session-Key.', json: ref('HermesSessionKeyError') },
    { description: 'A content part that is not text or an image, or a bad image part (`unsupported_content_type`, `invalid_image_url`, `invalid_content_part`).', json: ref('HermesContentError') },
  ],
  '401': keyOnly,
  '403': [err('X-Hermes-Session-Key while the listener has no API key configured (decision 0096).'), COMMON_ANSWERS['403'] as HermesAnswer],
  '404': sessionNotFound,
  '409': err('A model lock that cannot be routed (`model_lock_unavailable`).'),
  '413': bodyTooLarge,
  '500': [err('A model lock that could not be saved (`model_lock_persistence_failed`).'), COMMON_ANSWERS['500'] as HermesAnswer],
  '503': [sessionsUnavailable, draining],
};

const health: HermesOperation = {
  operationId: 'hermes.health',
  summary: 'Liveness',
  tag: 'Hermes meta',
  answers: { '200': { description: 'Always this body.', json: ref('HermesHealth') } },
};

/** Every route of ROUTES by "METHOD path", except the not-emulated ones (UNEMULATED). */
export const HERMES_OPERATIONS: Readonly<Record<string, HermesOperation>> = {
  'POST /v1/runs': {
    operationId: 'hermes.submit',
    summary: 'Submit a run',
    description:
      'Checks in order: profile, Origin, body size, API key, draining (503), session-key header, JSON body, Idempotency-Key, input, history, then (with a key) replay or conflict, then capacity (429).',
    tag: RUNS,
    headers: ['Idempotency-Key', 'X-Hermes-Session-Key'],
    body: { schema: ref('HermesSubmitRequest'), description: 'Read as aiohttp\'s request.json().' },
    answers: {
      '202': { description: 'Admitted, or a replay of the same key and request.', json: ref('HermesSubmitAccepted'), headers: ['Idempotency-Replayed', 'X-Hermes-Session-Key'] },
      '400': [
        err('Invalid JSON, a missing or empty input, a bad history, a bad Idempotency-Key, a non-integer Content-Length.'),
        { description: 'A bad X-Hermes-Session-Key.', json: ref('HermesSessionKeyError') },
      ],
      '401': unauthorized,
      '403': [err('X-Hermes-Session-Key while the listener has no API key configured (decision 0096).'), COMMON_ANSWERS['403'] as HermesAnswer],
      '409': err('The Idempotency-Key was used with a different request (`idempotency_key_conflict`).'),
      '413': bodyTooLarge,
      '429': { description: 'At capacity (`rate_limit_exceeded`).', json: ref('HermesError'), headers: ['Retry-After'] },
      '503': { description: 'The gateway is draining (`gateway_draining`).', json: ref('HermesError'), headers: ['Retry-After'] },
    },
  },
  'GET /v1/runs/{run_id}': {
    operationId: 'hermes.get',
    summary: "A run's status object",
    tag: RUNS,
    answers: { '200': { description: 'The status object.', json: ref('HermesRun') }, '401': unauthorized, '404': runNotFound },
  },
  'GET /v1/runs/{run_id}/events': {
    operationId: 'hermes.events',
    summary: "A run's events as server-sent events",
    description:
      'Each event is `data: <JSON>` and a blank line (HermesRunEvent); `: keepalive` after 30 s of silence; `: stream closed` after the final event. No id:, event: or retry: lines; two subscribers share one queue.',
    tag: RUNS,
    answers: {
      '200': { description: 'The stream (no security headers).', eventStream: true },
      '401': noRoomGrant,
      '404': err('Unknown run, or its event buffer is gone (`run_not_found`).'),
    },
  },
  'POST /v1/runs/{run_id}/approval': {
    operationId: 'hermes.approval',
    summary: 'Answer a pending approval',
    tag: RUNS,
    body: { schema: ref('HermesApprovalRequest'), description: 'Read as aiohttp\'s request.json().' },
    answers: {
      '200': { description: 'Answered; the run goes back to running.', json: ref('HermesApprovalResponse') },
      '400': err('Invalid JSON, an invalid request_id or choice, a non-integer Content-Length.'),
      '401': unauthorized,
      '404': runNotFound,
      '409': err('The run has finished (`approval_not_active`) or nothing matched (`approval_not_pending`).'),
      '413': bodyTooLarge,
    },
  },
  'POST /v1/runs/{run_id}/steer': {
    operationId: 'hermes.steer',
    summary: 'Add guidance to a running run',
    tag: RUNS,
    body: { schema: ref('HermesSteerRequest'), description: 'A JSON object, read strictly.' },
    answers: {
      '200': { description: 'Accepted.', json: ref('HermesSteerAccepted') },
      '400': err('Invalid JSON, not an object, no steer text (`invalid_steer_input`), a non-integer Content-Length.'),
      '401': noRoomGrant,
      '404': runNotFound,
      '409': err('The run is not running (`run_not_accepting_steer`) or the agent declined (`steer_not_accepted`).'),
      '413': bodyTooLarge,
      '500': [err('agent.steer() raised (`steer_failed`).'), COMMON_ANSWERS['500'] as HermesAnswer],
    },
  },
  'POST /v1/runs/{run_id}/stop': {
    operationId: 'hermes.stop',
    summary: 'Interrupt a run',
    description: 'The body is never read.',
    tag: RUNS,
    answers: {
      '200': [
        { description: 'A live run: exactly two keys.', json: ref('HermesStopAccepted') },
        { description: 'A finished run: its status object, unchanged.', json: ref('HermesRun') },
      ],
      '400': err('A non-integer Content-Length.'),
      '401': unauthorized,
      '404': runNotFound,
      '409': err('Another live gateway process owns the run (`run_not_active`).'),
      '413': bodyTooLarge,
    },
  },
  'GET /api/sessions': {
    operationId: 'hermes.sessions',
    summary: "List a profile's sessions",
    description:
      'Query: limit (default 50, at most 200), offset (at most 1000000) — Python int(), a bad or negative value is the default; source; include_children; title (exact, after strip); include_hidden (only with a title). Never a 400. Ordered by last activity, newest first; pinned sessions outside the window are appended.',
    tag: SESSIONS,
    answers: { '200': { description: 'A page of sessions.', json: ref('HermesSessionList') }, '401': keyOnly, '503': sessionsUnavailable },
  },
  'POST /api/sessions': {
    operationId: 'hermes.session_create',
    summary: 'Create a session',
    tag: SESSIONS,
    body: { schema: ref('HermesSessionCreateRequest'), description: "Read as aiohttp's request.json(); must be an object." },
    answers: {
      '201': { description: 'Created.', json: ref('HermesSessionAnswer') },
      '400': err(`${bodyErrors}; an invalid or too long id (\`invalid_session_id\`), a system_prompt that is not a string, a title another session holds (\`invalid_title\`), \`missing_model\`.`),
      '401': keyOnly,
      '409': err('The id exists (`session_exists`), or a model lock that cannot be routed (`model_lock_unavailable`).'),
      '413': bodyTooLarge,
      '503': sessionsUnavailable,
    },
  },
  'GET /api/sessions/{session_id}': {
    operationId: 'hermes.session',
    summary: 'A session',
    tag: SESSIONS,
    answers: { '200': { description: 'The session.', json: ref('HermesSessionAnswer') }, '401': keyOnly, '404': sessionNotFound, '503': sessionsUnavailable },
  },
  'PATCH /api/sessions/{session_id}': {
    operationId: 'hermes.session_update',
    summary: 'Rename, pin, archive, hide or end a session',
    description: 'The session is looked up before the body is read (404 first).',
    tag: SESSIONS,
    body: { schema: ref('HermesSessionUpdateRequest'), description: "Read as aiohttp's request.json(); must be an object." },
    answers: {
      '200': { description: 'The session after the change.', json: ref('HermesSessionAnswer') },
      '400': err(`${bodyErrors}; unknown fields (\`unsupported_session_field\`), a flag that is not a boolean (\`invalid_session_field\`), a title too long or held by another session (\`invalid_title\`).`),
      '401': keyOnly,
      '404': sessionNotFound,
      '413': bodyTooLarge,
      '503': sessionsUnavailable,
    },
  },
  'DELETE /api/sessions/{session_id}': {
    operationId: 'hermes.session_delete',
    summary: 'Delete a session and its messages',
    tag: SESSIONS,
    answers: { '200': { description: 'Deleted.', json: ref('HermesSessionDeleted') }, '401': keyOnly, '404': sessionNotFound, '503': sessionsUnavailable },
  },
  'GET /api/sessions/{session_id}/messages': {
    operationId: 'hermes.session_messages',
    summary: "A session's messages",
    description: 'Query: limit (at most 500; absent: the latest 500), offset, order (oldest or latest).',
    tag: SESSIONS,
    answers: {
      '200': { description: 'A page of messages, oldest first.', json: ref('HermesSessionMessages') },
      '400': err('A bad order, limit or offset (`invalid_pagination`).'),
      '401': keyOnly,
      '404': sessionNotFound,
      '503': sessionsUnavailable,
    },
  },
  'POST /api/sessions/{session_id}/fork': {
    operationId: 'hermes.session_fork',
    summary: 'Branch a session: a child holding a copy of its messages',
    description:
      'The source is looked up before the body is read (404 first). The source ends `branched` (a first end reason stays), the child is created under it (`parent_session_id`) with its model and system prompt and a copy of its messages (new ids), then titled; a title refused after that leaves the child created (decision 0141).',
    tag: SESSIONS,
    body: { schema: ref('HermesSessionForkRequest'), description: "Read as aiohttp's request.json(); must be an object." },
    answers: {
      '201': { description: 'The child session.', json: ref('HermesSessionAnswer') },
      '400': err(`${bodyErrors}; an empty id or one with CR, LF or NUL (\`invalid_session_id\`), a title too long or held by another session (\`invalid_title\`).`),
      '401': keyOnly,
      '404': sessionNotFound,
      '409': err('The id exists (`session_exists`).'),
      '413': bodyTooLarge,
      '503': sessionsUnavailable,
    },
  },
  'POST /api/sessions/{session_id}/chat': {
    operationId: 'hermes.session_chat',
    summary: 'One synchronous agent turn in a session',
    description:
      "Answered when the fake agent returns (the control plane or a scenario ends the turn; the turn is listed by GET /__admin/runs). Checks in order: profile, Origin, body size, API key, draining (503), session-key header, the session (404), JSON body, the message, the system message, the model lock.",
    tag: SESSIONS,
    headers: ['X-Hermes-Session-Key'],
    body: { schema: ref('HermesSessionChatRequest'), description: "Read as aiohttp's request.json(); must be an object." },
    answers: {
      '200': { description: "The agent's reply.", json: ref('HermesSessionChat'), headers: ['X-Hermes-Session-Id', 'X-Hermes-Session-Key'] },
      ...chatRefusals,
    },
  },
  'POST /api/sessions/{session_id}/chat/stream': {
    operationId: 'hermes.session_chat_stream',
    summary: 'One agent turn in a session, told as server-sent events',
    description:
      "The sync chat's checks in its order, then 200 at once (decision 0145). Each frame is `event: <name>` and `data: <JSON>` (non-ASCII raw) and a blank line: `run.started`, `message.started`, `assistant.delta`, `tool.started`, `tool.completed`, `tool.progress` (reasoning), `assistant.completed` and `run.completed` (its messages, usage, runtime, pending_steer), or `error`; then `done`, and the body ends. Every payload carries `session_id`, `run_id`, `seq` and `ts`; `: keepalive` after 30 s of silence. The turn's run is the client's: GET /v1/runs/{run_id} shows it.",
    tag: SESSIONS,
    headers: ['X-Hermes-Session-Key'],
    body: { schema: ref('HermesSessionChatRequest'), description: "Read as aiohttp's request.json(); must be an object." },
    answers: {
      '200': { description: 'The stream (no security headers).', eventStream: true, headers: ['X-Hermes-Session-Id', 'X-Hermes-Session-Key'] },
      ...chatRefusals,
    },
  },
  'POST /api/sessions/{session_id}/model': {
    operationId: 'hermes.session_model_lock',
    summary: 'Lock a session to a model (the Browser model lock)',
    description:
      "The session is looked up before the body is read (404 first). The lock is saved on the row as a chat's `require_model_lock` saves it: `model_config.browser_model_lock` confirmed, the row's model set to it, the stored system prompt cleared; later chats without a model run under it (decision 0142). No agent turn, no draining check.",
    tag: SESSIONS,
    body: { schema: ref('HermesSessionModelLockRequest'), description: "Read as aiohttp's request.json(); must be an object." },
    answers: {
      '200': { description: 'The lock, accepted.', json: ref('HermesSessionModelLock') },
      '400': err(`${bodyErrors}; no model or provider (\`missing_model\`).`),
      '401': keyOnly,
      '404': sessionNotFound,
      '409': err('A provider without a model: the lock cannot be routed (`model_lock_unavailable`).'),
      '413': bodyTooLarge,
      '500': [err('The lock could not be saved (`model_lock_persistence_failed`): a model sqlite3 cannot bind, or the store failed the write.'), COMMON_ANSWERS['500'] as HermesAnswer],
      '503': sessionsUnavailable,
    },
  },
  'GET /health': health,
  'GET /v1/health': { ...health, operationId: 'hermes.health.v1' },
  'GET /v1/capabilities': {
    operationId: 'hermes.capabilities',
    summary: 'What the gateway offers',
    tag: 'Hermes meta',
    answers: { '200': { description: 'Features, endpoints, auth.', json: ref('HermesCapabilities') }, '401': unauthorized },
  },
};

/**
 * The routes Hermes serves that the emulator does not reproduce (operation `unsupported`): a clear 501 once the request
 * is one Hermes would serve. Each guard below adds what Hermes answers first.
 */
export const UNEMULATED: HermesOperation = {
  operationId: 'hermes.unsupported',
  summary: 'Served by Hermes, not emulated',
  description: 'A clear 501 rather than a 404 that looks like Hermes\'s own (docs/reference/coverage.md).',
  tag: 'Not emulated',
  answers: { '501': { description: 'HERMETIC_UNSUPPORTED_ROUTE.', json: ref('HermeticError') } },
};

/** POST /v1/browser-control/register and /v1/artifacts/upload: the feature flag first, off at Hermes's defaults. */
const UNEMULATED_FEATURE: HermesOperation = {
  ...UNEMULATED,
  description: 'Hermes checks its browser-control flag before the API key; it is off at Hermes\'s defaults (as /v1/capabilities says), so every request is Hermes\'s JSON 404 and the 501 never comes (decision 0049).',
  answers: { '404': err('The browser-control feature is off (`browser_control_disabled`): every request.') },
};

/** GET /v1/browser-control/ws and /v1/artifacts/download/{id}: the same flag, but the handler raises aiohttp's 404. */
const UNEMULATED_FEATURE_PAGE: HermesOperation = {
  ...UNEMULATED,
  description: 'Hermes checks its browser-control flag before the API key or ticket; it is off at Hermes\'s defaults (as /v1/capabilities says), so every request is aiohttp\'s 404 page (`raise web.HTTPNotFound()`) and the 501 never comes (decision 0049).',
  answers: { '404': { description: "The browser-control feature is off: aiohttp's text/plain page `404: Not Found`, every request.", text: true } },
};

/** The not-emulated routes whose Hermes handler checks the API key first (`_check_auth`). */
export const UNEMULATED_WITH_KEY: HermesOperation = {
  ...UNEMULATED,
  description: 'Hermes\'s 401 for a missing or wrong API key, as its handler checks the key before anything else (decision 0049); then a clear 501 rather than a 404 that looks like Hermes\'s own (docs/reference/coverage.md).',
  answers: { ...UNEMULATED.answers, '401': keyOnly },
};

/** The not-emulated agent turns (`@_admit_api_agent_request`): the key check, then the draining 503. */
export const UNEMULATED_ADMITTED: HermesOperation = {
  ...UNEMULATED,
  description: 'Hermes\'s 401 for a missing or wrong API key, then its 503 while the gateway drains, as it admits an agent turn (decision 0049); then a clear 501 rather than a 404 that looks like Hermes\'s own (docs/reference/coverage.md).',
  answers: { ...UNEMULATED.answers, '401': keyOnly, '503': draining },
};

/** The jobs run trigger: `_check_auth`, then `_draining_response()`, in its own body. */
const UNEMULATED_DRAINING: HermesOperation = {
  ...UNEMULATED_ADMITTED,
  description: 'Hermes\'s 401 for a missing or wrong API key, then its 503 while the gateway drains, as its handler checks both first (decision 0049); then a clear 501 rather than a 404 that looks like Hermes\'s own (docs/reference/coverage.md).',
};

const roomGrantInvalid = err('No HermesRoom grant, or one the emulator cannot verify (it has no room authority): every request (`invalid_room_grant`).');

/** GET /v1/room-members/capabilities: the grant check first, never the API key; no grant ever passes here. */
const UNEMULATED_ROOM: HermesOperation = {
  ...UNEMULATED,
  description: 'Hermes checks a HermesRoom grant first, never the API key; the emulator has no room authority, so every request is Hermes\'s 401 and the 501 never comes (decision 0049).',
  answers: { '401': roomGrantInvalid },
};

/** The room grant refresh and revoke: the body (`_read_json_body`, then the route's field rule), then the grant. */
const UNEMULATED_ROOM_BODY: HermesOperation = {
  ...UNEMULATED_ROOM,
  description: 'Hermes reads the body first (a JSON object; refresh: only `ttl_seconds`; revoke: no field), then checks a HermesRoom grant, never the API key; the emulator has no room authority, so the 501 never comes (decision 0049).',
  body: { schema: { type: 'object' }, description: "Read as aiohttp's request.json(); must be an object." },
  answers: {
    '400': err(`${bodyErrors}; refresh: a field other than ttl_seconds (\`invalid_room_grant_refresh\`); revoke: any field (\`invalid_room_grant_revoke\`).`),
    '401': roomGrantInvalid,
  },
};

/** POST /api/cron/fire: Chronos's NAS-signed token, never the API key; refused without the `cron.chronos` settings. */
const UNEMULATED_FIRE: HermesOperation = {
  ...UNEMULATED,
  description: 'Hermes verifies a Chronos fire token, never the API key; without `cron.chronos` settings (Hermes\'s defaults, and the emulator\'s) every token is refused, so the 501 never comes (decision 0049).',
  answers: { '401': { description: 'Every request: no fire token can be verified.', json: ref('HermesFireTokenRefused') } },
};

/** POST /api/platforms/{platform}/events: the platform name, then its adapter, never the API key. */
const UNEMULATED_PLATFORM: HermesOperation = {
  ...UNEMULATED,
  description: 'Hermes checks the platform name, then looks for that platform\'s adapter, never the API key; the emulator connects none, so the 501 never comes (decision 0049).',
  answers: {
    '400': err('A platform name that is not `[a-z0-9_]+` once stripped, lower-cased and `-` made `_` (`invalid_platform`).'),
    '503': err('No such platform adapter connected (`platform_unavailable`); `api_server`, the API server itself, takes no platform events (`platform_http_events_unsupported`).'),
  },
};

const BY_GUARD: Readonly<Record<UnemulatedGuard, HermesOperation>> = {
  key: UNEMULATED_WITH_KEY,
  admitted: UNEMULATED_ADMITTED,
  draining: UNEMULATED_DRAINING,
  feature: UNEMULATED_FEATURE,
  'feature-page': UNEMULATED_FEATURE_PAGE,
  room: UNEMULATED_ROOM,
  'room-refresh': UNEMULATED_ROOM_BODY,
  'room-revoke': UNEMULATED_ROOM_BODY,
  'fire-token': UNEMULATED_FIRE,
  platform: UNEMULATED_PLATFORM,
};

/** Hermes's body-limit middleware, before any handler of a POST, PUT or PATCH: on the not-emulated ones too. */
const BODY_LIMIT = {
  '400': err('A non-integer Content-Length (`invalid_content_length`).'),
  '413': bodyTooLarge,
};

/** The entry of a route of the table, by its method, path, operation and guard. */
export function hermesOperation(route: { readonly method: string; readonly path: string; readonly operation: Operation; readonly guard?: UnemulatedGuard }): HermesOperation | undefined {
  if (route.operation !== 'unsupported') return HERMES_OPERATIONS[`${route.method} ${route.path}`];
  const op = route.guard === undefined ? UNEMULATED : BY_GUARD[route.guard];
  if (route.method !== 'POST' && route.method !== 'PUT' && route.method !== 'PATCH') return op;
  // The body limit's 400 joins a route's own 400s.
  const own = op.answers['400'];
  const badRequest = own === undefined ? BODY_LIMIT['400'] : [...(Array.isArray(own) ? own : [own]), BODY_LIMIT['400']];
  return { ...op, answers: { ...op.answers, ...BODY_LIMIT, '400': badRequest } };
}
