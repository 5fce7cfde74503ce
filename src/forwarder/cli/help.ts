// The forwarder commands' help text (shown by each command's --help).
export const FORWARDER_HELP = `Forwarder commands: read Hermes's state.db stores (strictly read-only) into a dataset you can query.

  hermetic backfill [--since 7d|ISO] [--until 7d|ISO] [--state-db PATH ...] [--home DIR] [--redact] [--json]
                   [--sink URL ...] [--no-redact] [--config FILE]
      read every session active in the window (all by default) once; a second run writes nothing; Ctrl-C stops
      after the batch it is writing (exit 130): run it again to finish; then ship to each --sink
  hermetic forward [--interval 10s] [--once] [--state-db PATH ...] [--home DIR] [--redact] [--json] [--quiet]
                  [--sink URL ...] [--no-redact] [--config FILE]
      keep reading what changes, every interval, until Ctrl-C (SIGINT) or SIGTERM; each tick ships to each --sink
  hermetic status [--state-db PATH ...] [--home DIR] [--json]
      stores found, cursors, rows per table, last tick, last error, quarantined sessions; each remote sink's
      cursor, lag (rows and seconds), last error and next retry
  hermetic sinks remove URL [--home DIR]
      stop feeding a remote sink: its cursor goes, and with the last one the change log and its triggers
  hermetic report [--period today|week|month|30d|all] [--since 7d|ISO] [--until ISO] [--by DIM]… [--top N]
                  [--json | --csv | --markdown] [--utc] [--home DIR | --from postgres://…]
      what the agent spent: cost, tokens, cache hits, sessions and calls, by day, model, source, session, …
      (hermetic report --help)
  hermetic query "SQL" [--home DIR | --from postgres://…] [--json]
      read-only SQL on the dataset (or, with --from, on the fleet store in a read-only transaction): a table, or
      a JSON array of row objects with --json
  hermetic policy check PATH [--home DIR]
      which usage-policy class (ignore, local-only, full) governs a folder, and why
  hermetic forget (--session ID ... | --scope DIR) [--state-db PATH ...] [--home DIR] [--json]
      remove what was forwarded before its folder became ignore (only sessions the usage policy ignores now)

Stores: $HERMES_HOME/state.db, ~/.hermes/state.db and every profiles/<name>/state.db under them, unless --state-db
is given (repeatable; a folder stands for the state.db in it). The dataset is <home>/hermetic.db; home is --home, else $HERMETIC_HOME, else ~/.hermetic.
--redact stores text through Hermes's own secret redactor. Tables: docs/reference/dataset.md. The usage ledger's
local days are in HERMETIC_TZ (an IANA zone), else the zone it was built in, else the machine's.

Remote sinks (--sink URL, repeatable, added to the config file's sinks:): postgres:// or postgresql:// (a PostgreSQL
fleet store), otlp+http:// or otlp+http-json:// (an OpenTelemetry collector), sqlite:///PATH (a copy in another
SQLite file). Each is fed from the dataset on its own cursor: a new sink first gets a copy of the whole dataset, then
every change; a sink that is down keeps its cursor, is retried with backoff and catches up. Local-only sessions never
reach a sink. Redaction is ON by default for every sink that leaves the machine (postgres, otlp): text and JSON go
through Hermes's secret redactor on the way out; --no-redact turns that off (the dataset itself is unchanged).
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
  --period today|week|month|30d|all   today; this week (from Monday); this month; the last 30 days; everything
  --since 7d|4w|12h|ISO               from then: 7d is today and the 6 days before it; 2026-07-01 is its midnight
  --until ISO                         up to then: a date includes that whole day; an ISO time ends there
Grouping (repeatable: --by day --by model gives one row per day and model):
  --by day|week|month|model|provider|profile|source|project|task|session|tool|machine
      a week is named by its Monday; project is the git repository root (else the working directory); task is
      main or an auxiliary task (title_generation, compression, vision, …); session rows carry session_id and
      title; tool counts tool calls and the results that say they failed (it groups by tool, time, profile,
      source, project, session or machine only); machine rows carry the host name and machine id
  --top N          keep the N costliest rows (most called, for tools); the rest are summed into one row
Output (one of; default a table):
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
