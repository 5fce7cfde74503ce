// Hermetic's own errors: one catalogue of stable HERMETIC_* codes, each with the HTTP status the control plane uses.
// docs/reference/errors.md lists every code; a test holds the two together.

export const ERROR_CODES = {
  HERMETIC_ADMIN_NOT_FOUND: { status: 404, summary: 'No control route matches this method and path.' },
  HERMETIC_ADMIN_BAD_JSON: { status: 400, summary: 'A control request body is not a JSON object.' },
  HERMETIC_ADMIN_BAD_FIELD: { status: 400, summary: 'A control request field is missing or has the wrong type.' },
  HERMETIC_NAMESPACE_INVALID: { status: 400, summary: 'A namespace name (x-hermetic-namespace header or /ns/<name> prefix) is not valid, or the two disagree.' },
  HERMETIC_NAMESPACE_LIMIT: { status: 503, summary: 'The server holds as many namespaces as --max-namespaces allows and every one of them but the default (which is never evicted) has a run, a stream or a request in progress, so none could be evicted for a new one; with --max-namespaces 1 (the default alone) every other namespace is refused.' },
  HERMETIC_ADMIN_UNAUTHORIZED: { status: 401, summary: 'The server has an admin key and this control request did not send it (x-hermetic-admin-key, or Authorization: Bearer on /__admin routes), or sent another; only GET /__admin/health and the console files (GET /__admin/ui/, which hold no data) are open.' },
  HERMETIC_CHECKPOINT_UNKNOWN: { status: 404, summary: 'No checkpoint with this id in this namespace (never taken, deleted, or let go to stay within the namespace\'s bounds).' },
  HERMETIC_CHECKPOINT_FOREIGN: { status: 409, summary: 'The checkpoint id names another namespace\'s checkpoint (cp_N is the default namespace\'s, cp_N@<name> namespace <name>\'s); a namespace is only restored from its own.' },
  HERMETIC_CHECKPOINT_LIMIT: { status: 409, summary: 'The namespace\'s state would not fit in the 64 MiB its checkpoints may hold beside its branch heads; nothing was taken (an automatic checkpoint is skipped and counted).' },
  HERMETIC_BRANCH_UNKNOWN: { status: 404, summary: 'No branch with this name in this namespace (GET /__admin/timeline lists them).' },
  HERMETIC_BRANCH_EXISTS: { status: 409, summary: 'The namespace already has a branch with this name; a checkout with {"checkpoint"} moves it.' },
  HERMETIC_BRANCH_LIMIT: { status: 409, summary: 'The namespace already has 20 branches; delete one first.' },
  HERMETIC_BRANCH_CURRENT: { status: 409, summary: 'The current branch cannot be deleted; check another out first.' },
  HERMETIC_FAULT_INVALID: { status: 400, summary: 'A fault rule is malformed: an unknown field, preset, operation or action (a suggestion is given when one is close), a wrong type, or a field or operation its action cannot take.' },
  HERMETIC_FAULT_UNKNOWN: { status: 404, summary: 'No fault rule with this id in this namespace, nor among the rules for every namespace.' },
  HERMETIC_FAULT_LIMIT: { status: 409, summary: 'The namespace (or the list of rules for every namespace) already holds 1000 fault rules; delete some first.' },
  HERMETIC_ADMIN_BAD_ANSWER: { status: 502, summary: 'The control plane answered something other than JSON with a known HERMETIC_* code (admin client).' },
  HERMETIC_CLOCK_RANGE: { status: 400, summary: 'A clock time is outside 0 to 253402300799 (the end of year 9999), or a clock step is negative or not finite (in process; the control plane refuses a negative advance as HERMETIC_ADMIN_BAD_FIELD).' },
  HERMETIC_UNSUPPORTED_ROUTE: { status: 501, summary: 'Hermes serves this route, but the emulator does not reproduce it.' },
  HERMETIC_RUN_UNKNOWN: { status: 404, summary: 'The control plane knows no live run with this id.' },
  HERMETIC_RUN_TERMINAL: { status: 409, summary: 'The run has already finished; the fake agent can no longer act on it.' },
  HERMETIC_RUN_NOT_STARTED: { status: 409, summary: 'The run is still queued; its fake agent has not started yet.' },
  HERMETIC_RUN_NO_APPROVAL: { status: 409, summary: 'The run is a session chat stream\'s turn: Hermes\'s stream registers no approval notifier, so a dangerous command is answered at once as pending approval and the run never waits for one.' },
  HERMETIC_SCENARIO_INVALID: { status: 400, summary: 'A scenario (POST /__admin/scenarios, a --scenarios file or a file the scenarios option names) is malformed: an unknown field, a wrong step kind or body, a bad regular expression, steps out of order; or the file cannot be read or parsed. The message says where.' },
  HERMETIC_SCENARIO_LIMIT: { status: 409, summary: 'The namespace would hold more than 1000 scenarios; delete some first.' },
  HERMETIC_SCENARIO_UNKNOWN: { status: 404, summary: 'No scenario with this name in this namespace (DELETE /__admin/scenarios?name=…).' },
  HERMETIC_OPTIONS_UNKNOWN: { status: 400, summary: 'An option name is not known (a suggestion is given when one is close).' },
  HERMETIC_OPTIONS_INVALID: { status: 400, summary: 'An option value has the wrong type or is out of range.' },
  HERMETIC_STORE_BUSY: { status: 503, summary: 'Another connection held the emulator store\'s write lock past the timeout; what was asked is not done (or, for a control action, done in memory but not yet saved: nothing depending on it is answered until it is).' },
  HERMETIC_STORE_FAILED: { status: 500, summary: 'A statement on the emulator store failed; what was asked is not saved, and nothing depending on it is answered until it is.' },
  HERMETIC_INTERNAL: { status: 500, summary: 'A bug in Hermetic (not an emulated Hermes error); it is logged with its stack. Please report it.' },
  HERMETIC_STORE_OPEN: { status: 500, summary: 'A store the emulator writes (--db, --state-db) could not be opened or created at the given path; its folder must already exist.' },
  HERMETIC_CLI_USAGE: { status: 400, summary: 'A command-line argument is unknown, missing or malformed.' },
  HERMETIC_CLI_OUTPUT: { status: 500, summary: 'A command\'s output could not be written (a full disk or a device error under a redirection such as `> report.csv`); what it printed is incomplete. A reader that went away (a pipe into `head`) is no error: the command ends quietly.' },
  HERMETIC_CLI_NOT_BUILT: { status: 500, summary: 'The hermetic command found no build (dist/) and cannot run the TypeScript sources (tsx is not installed): run `npm run build` in this copy first.' },
  HERMETIC_TESTING_URL: { status: 400, summary: 'useHermetic was given a url key that is undefined, empty or not an http(s) URL (an unset environment variable, say); give the running server\'s URL, or leave url out to start a server.' },
  HERMETIC_SERVE_INSECURE: { status: 400, summary: 'hermetic serve was asked to listen beyond loopback without an admin key, which would open the control plane to the network; give --admin-key (or HERMETIC_ADMIN_KEY), or --insecure-admin.' },
  HERMETIC_CONFIG_INVALID: { status: 400, summary: 'The --config file cannot be read, is not valid JSON or YAML, is not a mapping of option names, or names a key only code can give.' },
  HERMETIC_SERVE_LISTEN: { status: 500, summary: 'The server could not listen on the requested host and port.' },
  HERMETIC_STATEDB_PROFILE: { status: 400, summary: 'The state.db generator knows no profile with this name.' },
  HERMETIC_STATEDB_SCHEMA: { status: 400, summary: 'The requested state.db schema version is not one Hermetic knows.' },
  HERMETIC_STATEDB_OPEN: { status: 500, summary: 'A state.db could not be opened or read for inspection (missing, a folder, unreadable or damaged).' },
  HERMETIC_STATEDB_NOT_SQLITE: { status: 500, summary: 'The file is empty or is not a SQLite database.' },
  HERMETIC_STATEDB_EXISTS: { status: 409, summary: 'statedb generate would replace an existing file (the store, its -wal, -shm or -journal, or a config.yaml); --force allows it.' },
  HERMETIC_STATEDB_WRITE: { status: 500, summary: 'A state.db could not be written at the given path (a folder, a missing folder, no permission, a full disk).' },
  HERMETIC_READER_OPEN: { status: 500, summary: 'A Hermes state.db could not be opened or read (missing, a folder, not SQLite, unreadable, damaged).' },
  HERMETIC_READER_BUSY: { status: 503, summary: 'A Hermes state.db stayed locked by a writer through every retry; nothing was read from it this time.' },
  HERMETIC_READER_PATH: { status: 400, summary: 'A --state-db path names no Hermes store: it does not exist, or it is a folder with no state.db in it (a folder holding one stands for it). backfill refuses it before anything is read or created; forward says a store that is not there (yet) with it and, unless --once, waits for it.' },
  HERMETIC_READER_PG_CONFIG: { status: 400, summary: 'A Hermes profile selects the PostgreSQL backend but its connection cannot be worked out: no HERMES_DATABASE_URL (environment, the profile\'s .env, or database.url in config.yaml), a URL that is not postgres:// or postgresql://, or a database.schema that is not a PostgreSQL identifier. Nothing was read.' },
  HERMETIC_READER_PG_CONNECT: { status: 503, summary: 'The PostgreSQL server holding a Hermes profile\'s state could not be reached (refused, unknown host, timed out, no such database) or gave up a statement (a statement or lock timeout, a conflict with recovery on a standby, out of connections); nothing was read this time, the other stores were, and the next pass tries again.' },
  HERMETIC_READER_PG_AUTH: { status: 401, summary: 'The PostgreSQL server holding a Hermes profile\'s state refused the credentials of HERMES_DATABASE_URL (wrong password, unknown role, pg_hba rule), or asked for a password it gives none of (nor PGPASSWORD or ~/.pgpass); nothing was read. The password is never printed.' },
  HERMETIC_READER_PG_SCHEMA: { status: 500, summary: 'The PostgreSQL database holds no Hermes state in the profile\'s schema (Hermes has not created it, database.schema names another, or the role may not read it), or its tables are not Hermes\'s; nothing was read.' },
  HERMETIC_DATASET_OPEN: { status: 500, summary: 'The forwarder\'s dataset (hermetic.db under --home) could not be opened, created or migrated.' },
  HERMETIC_DATASET_VERSION: { status: 500, summary: 'The dataset was written by a newer Hermetic; this version will not read or change it.' },
  HERMETIC_DATASET_WRITE: { status: 500, summary: 'A write to the dataset failed (a full disk, no permission, a locked or damaged file); nothing of that batch was saved, and the next forward tick (or backfill run) tries again.' },
  HERMETIC_QUERY_INVALID: { status: 400, summary: 'hermetic query was given SQL that SQLite (or, with --from, PostgreSQL) cannot run (a syntax error, an unknown table or column, several statements at once on PostgreSQL).' },
  HERMETIC_QUERY_WRITE: { status: 400, summary: 'hermetic query only reads; the statement would change the dataset.' },
  HERMETIC_REPORT_INVALID: { status: 400, summary: 'hermetic report (or usageReport) was asked for something it cannot give: a window that starts after it ends, an unknown --by dimension or --filter column, tool calls or terminal commands by model, provider or task, by tool and command together, a --max-cost on rows by tool or command, or a top below 1 (in process: the CLI refuses --top 0 as HERMETIC_CLI_USAGE).' },
  HERMETIC_EXPORT_INVALID: { status: 400, summary: 'hermetic export was asked for something it cannot do: an unknown format, a window that starts after it ends, a window into a folder exported from another dataset version (export it whole once), an --out that is the root of the file system or the dataset\'s own home, or an --out holding another dataset\'s export. Nothing was written.' },
  HERMETIC_EXPORT_OUT: { status: 500, summary: 'hermetic export could not write to --out (a file in the way, no permission, a read-only or full disk); every file it had replaced is whole, the rest unchanged.' },
  HERMETIC_EXPORT_BUSY: { status: 503, summary: 'Another hermetic export is writing to the same --out folder; one at a time.' },
  HERMETIC_EXPORT_VALUE: { status: 500, summary: 'A dataset value does not fit its Parquet column (text where a number belongs, a NULL in a required column); the file it would have replaced is unchanged.' },
  HERMETIC_WEB_INVALID: { status: 400, summary: 'hermetic web was asked for something it cannot give: an unknown query parameter, period or page, a window it cannot read, or a session id two stores hold without naming the store.' },
  HERMETIC_WEB_NOT_FOUND: { status: 404, summary: 'hermetic web has no page, file, endpoint or session at this address, or does not answer as the host the request names (its Host check against DNS rebinding: loopback names; bound to the network, also IP addresses and the machine\'s name; and the names --allowed-host adds).' },
  HERMETIC_WEB_TOO_LARGE: { status: 431, summary: 'The request\'s head (its target and headers) is larger than the 16 KiB hermetic web reads; nothing was answered but this.' },
  HERMETIC_WEB_BUSY: { status: 503, summary: 'Another process held the dataset locked past the wait; hermetic web read nothing for this request. The dataset is WAL, where readers never wait for the forwarder, so this takes a writer that holds the whole file (a dataset in rollback mode, such as a restored copy before a forwarder opens it); try again.' },
  HERMETIC_WEB_CROSS_SITE: { status: 403, summary: 'hermetic web refused a request another site\'s page made (its Sec-Fetch-Site is cross-site or same-site): an image, a fetch or a script from elsewhere reads nothing; following a link to the dashboard\'s page is answered.' },
  HERMETIC_WEB_METHOD: { status: 405, summary: 'hermetic web only reads: it answers GET and HEAD, and says so in Allow.' },
  HERMETIC_POLICY_LIST: { status: 500, summary: 'The machine-local usage-policy list cannot be read or is malformed; forwarding stops rather than guess (fail closed).' },
  HERMETIC_POLICY_UNREAD: { status: 503, summary: 'A .hypignore could not be looked for because the process ran out of a resource for a moment (open files, memory); the session waits in quarantine and is judged again, never taken as ignored for it.' },
  HERMETIC_POLICY_PATH: { status: 400, summary: 'hermetic policy check was given a path that does not exist or is not a folder, or hermetic forget --scope a file (a folder that is gone can still be forgotten).' },
  HERMETIC_FORGET_NONE: { status: 400, summary: 'hermetic forget removed nothing: no forwarded session (with --store, no store of the dataset) matches, or none that matches is ignored by the usage policy now (only sessions a .hypignore or the machine-local list now says `ignore` for are forgotten).' },
  HERMETIC_FORGET_MIRROR: { status: 500, summary: 'hermetic forget --store could not delete the local mirror (a copy of its sessions under <home>/mirrors) of a PostgreSQL store, so none of the store\'s rows were removed; delete the file named, or make the folder writable, and run it again.' },
  HERMETIC_FORGET_READ: { status: 409, summary: 'hermetic forget --store was given a store that every backfill and forward on this machine reads on its own (in $HERMES_HOME or ~/.hermes): removed, it would be read again by the next pass, so nothing was removed.' },
  HERMETIC_SINK_OTLP_URL: { status: 400, summary: 'An OTLP sink URL is not otlp+http://, otlp+https://, otlp+http-json:// or otlp+https-json:// followed by a host (and an optional path), or it carries a query or fragment.' },
  HERMETIC_SINK_OTLP_HEADERS: { status: 400, summary: 'An OTLP header (--sink-header K=V, or OTEL_EXPORTER_OTLP_HEADERS as key=value pairs separated by commas) has no `=`, an empty or invalid name, or a value HTTP cannot carry; the value itself is never shown.' },
  HERMETIC_SINK_OTLP_UNAVAILABLE: { status: 503, summary: 'The OTLP receiver could not be reached (connection refused, a timeout) or answered 408, 429 or any 5xx; the batch is retried later (after Retry-After when the receiver sent one), nothing is lost.' },
  HERMETIC_SINK_OTLP_REJECTED: { status: 502, summary: 'The OTLP receiver refused the batch with a 4xx other than 408 and 429 (400 bad data, 401/403 credentials, 404 wrong path, 413 for one span or one series: a larger request is split and sent again in halves) or answered something that is not OTLP (a redirect, a web page); retrying the same batch cannot help, so the sink stops until its configuration is fixed.' },
  HERMETIC_SINK_OTLP_PARTIAL: { status: 502, summary: 'The OTLP receiver accepted a batch but said it refused some of its spans or data points (an OTLP partial success); they are not sent again (OTLP forbids it), and the batch counts as delivered.' },
  HERMETIC_SINK_URL: { status: 400, summary: 'A --sink URL (or a `sinks:` entry of the config file) is malformed or has a scheme no sink serves; the message lists the schemes there are.' },
  HERMETIC_SINK_NOT_BUILT: { status: 500, summary: 'The sink for this URL scheme is not part of this build of Hermetic (its module is missing).' },
  HERMETIC_SINK_UNAVAILABLE: { status: 503, summary: 'A remote sink could not be reached or was busy (connection refused, a timeout, a lock, a connection the server ended mid-batch, a PostgreSQL standby that takes no writes); its cursor stays, it is retried with backoff and catches up.' },
  HERMETIC_SINK_FAILED: { status: 500, summary: 'A remote sink refused a batch for a reason retrying cannot fix (credentials, schema, a bug); that sink stops for this run, the dataset and the other sinks go on.' },
  HERMETIC_SINK_DUPLICATE: { status: 400, summary: 'The same sink was given twice (by --sink or the config file\'s sinks:).' },
  HERMETIC_SINK_REMOVED: { status: 409, summary: 'A remote sink was removed (hermetic sinks remove) while a forwarder was shipping to it.' },
  HERMETIC_SINK_CURSOR_MOVED: { status: 409, summary: 'Another forwarder on the same home moved this sink\'s cursor while a batch was in flight; the batch is read again from the new cursor.' },
  HERMETIC_SINK_DIVERGED: { status: 409, summary: 'The sink holds changes for this machine that this dataset did not send: its home was restored from a backup, or copied to another machine (one machine-id, two datasets). The sink stops before anything is skipped; a restored home sends it a fresh copy (sinks remove, then add it again), a copy deletes its machine-id.' },
  HERMETIC_SINK_UNKNOWN: { status: 404, summary: 'hermetic sinks remove was given a sink the dataset does not feed (see hermetic status).' },
  HERMETIC_SINK_CONFLICT: { status: 503, summary: 'PostgreSQL gave up a batch to resolve a conflict with another writer (a serialization failure, a deadlock, or a lock held past lock_timeout); retriable: the batch is sent again.' },
  HERMETIC_SINK_STATEMENT_TIMEOUT: { status: 503, summary: 'PostgreSQL cancelled a statement of a batch at its statement_timeout even with one row per statement (the sink first sends a cancelled statement\'s rows in halves, and keeps the size that fits); raise it for the sink\'s role (ALTER ROLE name SET statement_timeout = \'5min\', or 0 for none). Retried with backoff; nothing of the batch was applied.' },
  HERMETIC_SINK_AUTH: { status: 500, summary: 'PostgreSQL refused the sink\'s user name or password (or its pg_hba.conf has no rule for this connection), or asked for a password none was given for (in the URL, PGPASSWORD or ~/.pgpass); fatal until the URL is fixed.' },
  HERMETIC_SINK_NO_DATABASE: { status: 500, summary: 'The database named in the PostgreSQL sink URL does not exist; fatal until it is created or the URL fixed.' },
  HERMETIC_SINK_SCHEMA: { status: 500, summary: 'PostgreSQL refused the sink\'s schema or statements (no permission to create it, tables changed by hand, or a schema migrated by a newer Hermetic), or the database\'s encoding cannot hold every text (not UTF8); fatal.' },
  HERMETIC_SINK_REJECTED: { status: 500, summary: 'PostgreSQL refused a row of a batch (a value its column cannot hold), or the batch named a table the sink does not hold; fatal, nothing of the batch was applied.' },
  HERMETIC_QUERY_READ_ONLY: { status: 400, summary: 'hermetic query --from postgres:// runs in a read-only transaction; PostgreSQL refused the statement because it would write.' },
  HERMETIC_QUERY_CANCELLED: { status: 500, summary: 'PostgreSQL cancelled the statement of hermetic query --from postgres:// (its statement_timeout or lock_timeout ran out, or pg_cancel_backend); rows printed before it are an incomplete result, and the message says so.' },
  HERMETIC_FLEET_UNAVAILABLE: { status: 503, summary: 'The fleet store that report, query or web read with --from postgres://… could not be reached or is not answering (connection refused, an unknown host, a timeout, the server starting, shutting down or out of connections); nothing was read: try again when it answers. hermetic web checks it once at start and does not start without it.' },
  HERMETIC_FLEET_AUTH: { status: 500, summary: 'PostgreSQL refused the user name or password in the --from postgres://… URL of report, query or web (or its pg_hba.conf has no rule for this connection), or asked for a password none was given for (in the URL, PGPASSWORD or ~/.pgpass); nothing was read: fix the URL.' },
  HERMETIC_FLEET_NO_DATABASE: { status: 500, summary: 'The database named in the --from postgres://… URL of report, query or web does not exist; nothing was read: fix the URL.' },
  HERMETIC_FLEET_SCHEMA: { status: 500, summary: 'The fleet store read with --from postgres://… has no Hermetic schema yet (no forwarder has shipped to it with --sink), or one too old for what was asked (--by command before fleet schema version 10), or PostgreSQL refused to let this user read it or one of its tables (the message names the table and the GRANT the schema\'s owner runs); nothing was read.' },
  HERMETIC_FLEET_FAILED: { status: 500, summary: 'Reading the fleet store given with --from postgres://… failed for another reason the message gives (the server\'s own words are quoted); nothing was read.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** An error a person can act on: a stable code and one plain sentence. */
export class HermeticError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'HermeticError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
  }

  toJSON(): { error: { code: ErrorCode; message: string } } {
    return { error: { code: this.code, message: this.message } };
  }
}

export function isHermeticError(e: unknown): e is HermeticError {
  return e instanceof HermeticError;
}
