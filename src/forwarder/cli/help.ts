// The forwarder commands' help text (shown by each command's --help).
export const FORWARDER_HELP = `Forwarder commands: read Hermes's state.db stores (strictly read-only) into a dataset you can query.

  hermetic backfill [--since 7d|ISO] [--until 7d|ISO] [--state-db PATH ...] [--home DIR] [--redact] [--json]
                   [--sink URL ...] [--no-redact] [--config FILE]
      read every session active in the window (all by default) once; a second run writes nothing; Ctrl-C stops
      after the batch it is writing (exit 130): run it again to finish; then ship to each --sink; exit 1 when a
      store could not be read or a session could not be written (hermetic status says why)
  hermetic forward [--interval 10s] [--once] [--state-db PATH ...] [--home DIR] [--redact] [--json] [--quiet]
                  [--sink URL ...] [--no-redact] [--config FILE]
      keep reading what changes, every interval, until Ctrl-C (SIGINT) or SIGTERM; each tick ships to each --sink
  hermetic status [--state-db PATH ...] [--home DIR] [--json]
      stores found, cursors, rows per table, last tick, last error, quarantined sessions; each remote sink's
      cursor, lag (rows and seconds), last error and next retry
  hermetic sinks remove URL [--home DIR]
      stop feeding a remote sink: its cursor goes, and with the last one the change log and its triggers
  hermetic report [--period today|week|7d|month|30d|all] [--since 7d|ISO] [--until ISO] [--by DIM]… [--top N]
                  [--filter COLUMN=VALUE]… [--json | --csv | --markdown] [--utc] [--home DIR | --from postgres://…]
      what the agent spent: cost, tokens, cache hits, sessions and calls, by day, model, source, session, …
      (hermetic report --help)
  hermetic export parquet --out DIR [--since 7d|ISO] [--until ISO] [--include-local-only] [--home DIR] [--json]
      the dataset's tables and usage ledger as Parquet files (messages and parts by day) and a manifest.json;
      a window rewrites only the days it touches; local-only sessions are left out (hermetic export --help)
  hermetic query "SQL" [--home DIR | --from postgres://…] [--json]
      read-only SQL on the dataset (or, with --from, on the fleet store in a read-only transaction): a table, or
      a JSON array of row objects with --json
  hermetic policy check PATH [--home DIR]
      which usage-policy class (ignore, local-only, full) governs a folder, and why
  hermetic forget (--session ID ... | --scope DIR) [--state-db PATH ...] [--home DIR] [--json]
      remove what was forwarded before its folder became ignore (only sessions the usage policy ignores now)

Stores: $HERMES_HOME/state.db, ~/.hermes/state.db and every profiles/<name>/state.db under them, unless --state-db
is given (repeatable; a folder stands for the state.db in it). A profile whose config.yaml selects database.backend:
postgres is read from PostgreSQL (HERMES_DATABASE_URL from the environment, its .env or database.url), read-only,
through a local mirror in <home>/mirrors; status shows its connection with the password redacted.
The dataset is <home>/hermetic.db; home is --home, else $HERMETIC_HOME, else ~/.hermetic.
--redact stores text through Hermes's own secret redactor (the dataset remembers it: later runs redact too).
Tables: docs/reference/dataset.md. The usage ledger's local days are in HERMETIC_TZ (an IANA zone), else the zone it
was built in, else the machine's.

Remote sinks (--sink URL, repeatable, added to the config file's sinks:): postgres:// or postgresql:// (a PostgreSQL
fleet store), otlp+http:// or otlp+http-json:// (an OpenTelemetry collector), sqlite:///PATH (a copy in another
SQLite file). Each is fed from the dataset on its own cursor: a new sink first gets a copy of the whole dataset, then
every change; a sink that is down keeps its cursor, is retried with backoff and catches up. Local-only sessions never
reach a sink. Redaction is ON by default for every sink that leaves the machine (postgres, otlp): text and JSON go
through Hermes's secret redactor on the way out; --no-redact turns that off (the dataset itself is unchanged).
For otlp+… sinks given by --sink: --sink-header K=V (repeatable; also OTEL_EXPORTER_OTLP_HEADERS) adds a header,
--otlp-content also sends message text, reasoning and tool arguments and results (off by default).
The config file is --config FILE, else config.yaml (or .yml, .json) in the home:
    sinks:
      - postgres://hermetic@db.internal/fleet
      - { url: "sqlite:///mnt/backup/hermetic-copy.db" }
`;

export const REPORT_HELP = `Usage: hermetic report [options]

What your Hermes agent spent, from the dataset's usage ledger (run "hermetic backfill" or "hermetic forward" first).
On a terminal: a summary (cost, tokens by kind, cache-hit rate, sessions, API and tool calls), then tables by day
(by month over long windows), model and source, and the five most expensive sessions.

Window (usage counts where it happened, whatever session it belongs to; default: the last 30 days):
  --period today|week|7d|month|30d|all
                                      today; this week (from Monday); today and the 6 days before (as the
                                      dashboard's 7 d); this month; the last 30 days; everything
  --since 7d|4w|12h|ISO               from then: 7d is today and the 6 days before it; 2026-07-01 is its midnight
  --until ISO                         up to then: a date includes that whole day; an ISO time ends there
Grouping (repeatable: --by day --by model gives one row per day and model):
  --by day|week|month|model|provider|profile|source|project|task|session|tool|machine
      a week is named by its Monday; project is the git repository root (else the working directory); task is
      main or an auxiliary task (title_generation, compression, vision, …); session rows carry session_id and
      title; tool counts tool calls and the results that say they failed (it groups by tool, time, profile,
      source, project, session or machine only); machine rows carry the host name and machine id
  --top N          keep the N costliest rows (most called, for tools); the rest are summed into one row
Filter (repeatable; values of one column are alternatives, columns combine):
  --filter COLUMN=VALUE   model, provider, profile, source, project, task or session; project= is no project;
      tool calls filtered by model, provider or task are those of the sessions with such usage
Output (one of; default tables as wide as the terminal, or $COLUMNS, or 80 when piped):
  --json           {"period": {"since", "until"}, "by": [...], "totals": {...}, "rows": [...]}
  --csv            the rows as CSV        --markdown   the rows as a Markdown table
Other:
  --utc            days, weeks and months in UTC instead of the ledger's time zone
  --home DIR       the dataset's folder (default $HERMETIC_HOME, else ~/.hermetic)
  --from postgres://USER@HOST/DB[?schema=NAME&sslmode=…]
                   the fleet store every machine's forwarder ships to (--sink): the same report over all
                   machines (read-only; days are each machine's local days, --utc for one calendar)

Cost: the billed cost (actual_cost_usd) where Hermes recorded one, else its estimate; both are in --json.
Rows of any grouping add up to the totals (sessions is a count of distinct sessions, so a session active on two
days counts on both). Days are local to the ledger's time zone, set when the forwarder runs: HERMETIC_TZ, else the
machine's. The ledger's rules: docs/decisions/0031-usage-ledger.md; its table: docs/reference/dataset.md.
`;

export const EXPORT_HELP = `Usage: hermetic export parquet --out DIR [options]

Writes the dataset's tables (sessions, messages, parts, model_usage, usage_events, daily_usage, row_issues) and the
usage ledger (usage_ledger, tool_usage) as Parquet files for DuckDB, pandas, Spark and the rest, with typed columns:
times as TIMESTAMP (UTC, microseconds), days as DATE, tokens and counters as INT64, costs as DOUBLE, text and JSON as
UTF-8 strings, NULL only where the dataset allows it. The dataset is only read (run "hermetic backfill" first).

  DIR/<table>/data.parquet                  every table but messages and parts, whole, rewritten by every export
  DIR/messages/day=YYYY-MM-DD/data.parquet  one file per UTC day of created_at (Hive style); so for parts
  DIR/manifest.json                         tables, files, rows, the window that wrote each file, schemas

Options:
  --out DIR        the folder (created when missing); only the files above are written or removed in it
  --since 7d|4w|12h|ISO   rewrite only the messages and parts of the UTC days from then (as "hermetic report" reads
                   it: 7d is today and the 6 days before it; 2026-07-01 is its midnight in the ledger's zone)
  --until ISO      ... up to then (a date includes that whole day); without either, every day is rewritten
  --include-local-only   also export the sessions whose usage policy is local-only (left out by default, from
                   every table: an export is made to be copied elsewhere, and local-only data stays on this machine)
  --home DIR       the dataset's folder (default $HERMETIC_HOME, else ~/.hermetic)
  --json           the summary as JSON: {"out", "manifest", "window", "datasetVersion", "localOnly", "tables", "totals"}

Exporting a window again replaces its days, never duplicates them: each day's file is written under a temporary
name and renamed over the old one, and a day that has no rows any more loses its file. A day outside the window is
rewritten too when its rows no longer match the dataset (a row moved to another day or removed: a fingerprint in
each file tells), so no row is ever in two files; an export without --since/--until refreshes everything. Read it:
  SELECT day, count(*) FROM read_parquet('DIR/messages/**/*.parquet', hive_partitioning = true) GROUP BY day;
Decision: docs/decisions/0037-parquet-export.md.
`;

export const WEB_HELP = `Usage: hermetic web [options]

The usage dashboard: a local web page over the dataset (run "hermetic backfill" or "hermetic forward" first), or
over the fleet store many forwarders ship to (--from), with cost and tokens for a period, spend per day by model,
breakdowns by model, provider, profile, source, project, task and (in the fleet) machine, the most expensive
sessions, each session's transcript and lineage, and tool calls. Every figure is the one "hermetic report --json"
gives for the same window and filter. It only reads; Ctrl-C stops it.

Options:
  --port N      port to listen on (default 8650; 0 picks a free one)
  --host HOST   address to listen on (default 127.0.0.1, this machine only; the dashboard has no login)
  --home DIR    the dataset's folder (default $HERMETIC_HOME, else ~/.hermetic)
  --from URL    the fleet store instead: postgres://user:password@host:5432/db[?schema=NAME] (read-only
                transactions; days are each machine's own, periods are read in $HERMETIC_TZ or this machine's zone)
  --open        open the dashboard in the desktop's browser

Its URL keeps the page's state: /?period=7d&model=gpt-5 is what "hermetic report --since 7d --filter model=gpt-5"
reports; /session?id=ID is a session; /tools is the tool view. The JSON endpoints are under /api/ (decision 0041).
`;
