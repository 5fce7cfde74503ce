// The forwarder commands' help pages, one per command (each command's --help prints its own), at most 80 columns wide
// (help.test.ts holds every page to that and to the flags its command parses). Paragraphs that apply to several
// commands are written once below and composed into their pages.

/** Where the dataset is: every command that reads or writes it. */
const DATASET = `The dataset is <home>/hermetic.db; home is --home, else $HERMETIC_HOME, else
~/.hermetic. Its tables: docs/reference/dataset.md.`;

/** Which Hermes stores are read: the commands that look for them. */
const STORES = `Stores: $HERMES_HOME/state.db, ~/.hermes/state.db and every
profiles/<name>/state.db under them (a folder Hermes takes for no profile, such
as work.bak, is said and not read), unless --state-db is given (repeatable; a
folder stands for the state.db in it). A profile whose config.yaml selects
database.backend: postgres is read from PostgreSQL (HERMES_DATABASE_URL from the
environment, its .env or database.url), read-only, through a local mirror in
<home>/mirrors; status shows its connection with the password redacted.`;

/** The usage ledger's days: the commands that build it. */
const LEDGER_ZONE = `The usage ledger's local days are in HERMETIC_TZ (an IANA zone), else the zone
it was built in, else the machine's. Hermes writes its per-day usage in the zone
its own machine runs in: set HERMETIC_TZ to that zone (or leave it unset on that
machine), or a day's usage may land on a neighbouring day.`;

/** Remote sinks and the config file: backfill and forward. */
const SINKS = `Remote sinks (--sink URL, repeatable, added to the config file's sinks:):
postgres:// or postgresql:// (a PostgreSQL fleet store), otlp+http:// or
otlp+http-json:// (an OpenTelemetry collector), sqlite:///PATH (a copy in
another SQLite file). Each is fed from the dataset on its own cursor: a new sink
first gets a copy of the whole dataset, then every change; a sink that is down
keeps its cursor, is retried with backoff and catches up (hermetic status shows
its lag). Local-only sessions never reach a sink.
Redaction is ON by default for every sink that leaves the machine
(postgres, otlp): text and JSON go through Hermes's secret redactor on the way
out; --no-redact turns that off (the dataset itself is unchanged).
Its config file: --config FILE, else config.yaml (or .yml, .json) in the home
(two of them are refused):
    sinks:
      - postgres://hermetic@db.internal/fleet
      - { url: "sqlite:///mnt/backup/hermetic-copy.db" }
Decision: docs/decisions/0035-remote-sinks-hub.md.`;

/** The options backfill and forward share, after their own. */
const READ_OPTIONS = `  --state-db PATH     read this store instead of looking for them (repeatable;
                      a folder stands for the state.db in it)
  --home DIR          the dataset's folder (default $HERMETIC_HOME, else
                      ~/.hermetic)
  --redact            store text through Hermes's own secret redactor (the
                      dataset remembers it: later runs redact too)`;

const SINK_OPTIONS = `  --sink URL          also ship the dataset to this remote sink (repeatable;
                      added to the config file's sinks:)
  --no-redact         ship text and JSON to sinks that leave the machine as the
                      dataset holds them (redacted on the way out by default)
  --config FILE       the forwarder's config file (default: config.yaml, .yml
                      or .json in the home)
  --sink-header K=V   a header for the otlp+… sinks given by --sink
                      (repeatable; also OTEL_EXPORTER_OTLP_HEADERS)
  --otlp-content      the otlp+… sinks given by --sink also get message text,
                      reasoning and tool arguments and results (off by default)`;

const HELP_OPTION = `  -h, --help          show this help`;

export const BACKFILL_HELP = `Usage: hermetic backfill [options]

Reads every session active in the window (all of them by default) from Hermes's
state.db stores, strictly read-only, into the dataset, once: a second run writes
nothing it already has. Then ships the dataset to each remote sink. Ctrl-C stops
it after the batch it is writing: what it wrote stays, and the next run goes on
from there.

Options:
  --since 7d|ISO      only the sessions active from then: that long ago (7d,
                      12h, 30m) or an ISO date (its midnight in HERMETIC_TZ,
                      else the machine's zone, as report reads it) or time
                      (default: all of them)
  --until 7d|ISO      ... and up to then: a date includes that whole day
                      (default: now)
${READ_OPTIONS}
  --json              the summary as one JSON line (its event:
                      hermes.backfill.scan_complete): each store, the
                      sessions, messages and parts written, what was skipped
                      and why, the sessions the usage policy moved
                      (moved_to_local_only, moved_to_full), each sink
${SINK_OPTIONS}
${HELP_OPTION}

Exit codes: 0 done; 1 a store could not be read, a session could not be written
(it is quarantined and retried later; hermetic status says why) or a sink
failed; 2 the command line was refused; 130 interrupted by Ctrl-C (run it again
to finish).

${STORES}
${DATASET}
${LEDGER_ZONE}

${SINKS}
`;

export const FORWARD_HELP = `Usage: hermetic forward [options]

Keeps the dataset up to date as Hermes writes: every interval it reads what
changed in Hermes's state.db stores (strictly read-only) since the last tick and
writes only that; each tick then ships to each remote sink. It runs until Ctrl-C
(SIGINT) or SIGTERM, which stop it cleanly (a tick under way stops after the
batch it is writing, or at once while it waits for a writer's lock) with exit 0.
A store it read that goes away (a profile folder removed) is said once, and
read again when it is back.

Options:
  --interval 10s      how often to look: 50ms to 24h, such as 10s, 5m or 1h
                      (default 10s)
  --once              one tick (and one shipment to each sink), then exit
${READ_OPTIONS}
  --json              JSON lines on stdout, each led by its event: per store
                      each tick hermes.poll_tick (read) or hermes.poll_failed
                      (with error_kind); hermes.source_idle once for a store
                      not there (removed: true when it was read before),
                      hermes.source_activated when it is read;
                      plugin.hermes.usage_policy_drop per ignored session;
                      hermetic.policy_moves for a store not read whose
                      sessions the usage policy moved;
                      hermetic.sink_ship per sink with --once, and in the
                      loop per sink pass that sent or failed (all in
                      docs/reference/errors.md)
  --quiet             say nothing on stderr (ticks, errors, "stopped")
${SINK_OPTIONS}
${HELP_OPTION}

Exit codes: 0 stopped by Ctrl-C or SIGTERM, or --once done; 1 with --once, a
store could not be read or a sink did not catch up; 2 the command line was
refused.

${STORES}
${DATASET}
${LEDGER_ZONE}

${SINKS}
`;

export const STATUS_HELP = `Usage: hermetic status [options]

What the forwarder sees and has done: the stores found (path, profile, schema,
journal mode, backend; why one cannot be read), what is not read yet and since
when, cursors, rows per table, the last tick and last error, the values changed
or left out on the way in, and quarantined sessions; for each remote sink, its
cursor, lag (rows and seconds), last error and next retry. It only reads.

Options:
  --state-db PATH     look at this store instead of looking for them
                      (repeatable; a folder stands for the state.db in it)
  --home DIR          the dataset's folder (default $HERMETIC_HOME, else
                      ~/.hermetic)
  --json              the same as JSON: {"dataset", "dataset_exists",
                      "dataset_building" (a first pass writing it:
                      {"pid", "bytes"}, else null), "dataset_size"
                      ({"bytes", "free_bytes"}, null without a dataset),
                      "usage_policy_error",
                      "stores", "rows", "sinks"}
${HELP_OPTION}

Exit codes: 0 done (also when a store cannot be read: that is what it reports);
2 a refused command line.

${STORES}
${DATASET}
`;

export const QUERY_HELP = `Usage: hermetic query "SQL" [options]

Runs one read-only SQL statement on the dataset and prints its rows: a table
(fitted to a terminal's width, values cut to fit marked …, BLOBs in hex), or a
JSON array of row objects with --json. A statement that would write is refused.
Rows are printed as they are read (from the fleet store, 1,000 at a time), so a
result of any size fits in memory: a table of more than 10,000 rows runs the
statement twice in one snapshot (once to measure its columns), and --json starts
a new line every 1,000 rows. When the output stops being read (| head), so does
the statement.

Options:
  --home DIR          the dataset's folder (default $HERMETIC_HOME, else
                      ~/.hermetic)
  --from postgres://USER@HOST/DB[?schema=NAME&sslmode=…]
                      the fleet store every machine's forwarder ships to
                      (--sink) instead: one statement, in a read-only
                      transaction, with the fleet schema first on the search
                      path; the password is never printed
  --json              a JSON array of row objects, values whole
${HELP_OPTION}

Exit codes: 0 done (or the output's reader went away); 2 SQL that cannot run or
would write (HERMETIC_QUERY_*) or a refused command line; 1 the dataset or the
fleet store could not be read, or PostgreSQL cancelled the statement
(HERMETIC_QUERY_CANCELLED). A failure after rows were printed says the output is
incomplete.

${DATASET} For example:
  hermetic query "SELECT source, SUM(input_tokens) FROM sessions GROUP BY 1"
`;

export const POLICY_HELP = `Usage: hermetic policy check PATH [options]

Says which usage-policy class governs a folder, and why: ignore (never
forwarded), local-only (kept in this machine's dataset only) or full. The class
is the strictest of the nearest .hypignore in the folder or above it and the
machine-local list <home>/usage-policy/local-only.json. The rules: README.md,
"Usage policy".

Options:
  --home DIR          the Hermetic home, whose machine-local list counts
                      (default $HERMETIC_HOME, else ~/.hermetic)
  --json              the verdict as JSON: {"class", "scope", "governingFile",
                      "declared", "listEntry", "clamped", "reason"}
${HELP_OPTION}

Exit codes: 0 done; 2 PATH does not exist or is a file (HERMETIC_POLICY_PATH),
or a refused command line; 1 the machine-local list exists but cannot be read
(HERMETIC_POLICY_LIST).
`;

export const FORGET_HELP = `Usage: hermetic forget (--session ID ... | --scope DIR) [options]
       hermetic forget --store PATH ... [options]

Removes from the dataset what was forwarded before its folder became ignore:
every row of the matching sessions (messages, parts, usage, issues), in one
transaction per store, at once rather than when each session next changes. Only
sessions the usage policy ignores now are removed; any other that matches is
named on stderr and kept (put "ignore" in a .hypignore above it first).

With --store, removes every row read from a store that no pass reads any more
(a demo store given to backfill once, a copy): its sessions with all they hold,
its cursors and its row of stores, whatever the usage policy says; for a
PostgreSQL profile, its local mirror in <home>/mirrors too. A store that
backfill and forward read on their own ($HERMES_HOME, ~/.hermes and their
profiles) is refused: the next pass would read it again.

Options:
  --session ID        this session (repeatable)
  --scope DIR         every session whose scope (its working directory, or its
                      channel's or source's folder) is DIR or under it; DIR may
                      be gone already
  --store PATH        every row read from this store (repeatable; as hermetic
                      status names it, or its path: a folder stands for the
                      state.db in it; it may be gone already)
  --state-db PATH     with --session or --scope: only the sessions read from
                      this store (repeatable)
  --home DIR          the dataset's folder (default $HERMETIC_HOME, else
                      ~/.hermetic)
  --json              {"forgotten", "kept", "messages_removed", "parts_removed"}
                      (with --store: {"stores": [{"store", "sessions",
                      "messages_removed", "parts_removed", "mirror_removed"}]};
                      mirror_removed: the mirror's path, or null)
${HELP_OPTION}

Exit codes: 0 done; 2 nothing was removed (HERMETIC_FORGET_NONE: no forwarded
session or store matches, or no session that matches is ignored now;
HERMETIC_FORGET_READ: the store is read by every pass) or a refused command
line; 1 there is no dataset yet, or a store's local mirror could not be
deleted (HERMETIC_FORGET_MIRROR: none of its rows were removed).

${DATASET}
`;

export const SINKS_HELP = `Usage: hermetic sinks remove URL [options]

Stops feeding a remote sink: its cursor goes, and with the last sink the
dataset's change log and its triggers go too, so the forwarder pays nothing for
sinks again. The sink keeps what it already received. URL is the sink's URL as
given (with or without its password), as hermetic status shows it, or its id.
Sinks are added by --sink URL on backfill and forward or by the config file's
sinks: (a sink still listed there is fed again, from a new copy, by the next
backfill or forward that reads the file); hermetic backfill --help has the URLs.

Options:
  --home DIR          the dataset's folder (default $HERMETIC_HOME, else
                      ~/.hermetic)
${HELP_OPTION}

Exit codes: 0 done; 2 the dataset feeds no such sink (HERMETIC_SINK_UNKNOWN; it
names the ones it feeds) or a refused command line.

${DATASET}
`;

export const REPORT_HELP = `Usage: hermetic report [options]

What your Hermes agent spent, from the dataset's usage ledger (run "hermetic
backfill" or "hermetic forward" first). On a terminal: a summary (cost, its
average a day, a session and an API call, tokens by kind, cache-hit rate,
sessions, API and tool calls, and the trend against the window before: the same
days of last month for --period month, last week for week, yesterday up to this
time for today, else as many days just before; this month, week or day to date
also says where its cost is heading), then tables by day (by month over long
windows), model and source, and the five most expensive sessions.

Window (usage counts where it happened, whatever session it belongs to;
default: the last 30 days):
  --period today|week|7d|month|30d|all
                   today; this week (from Monday); today and the 6 days
                   before (as the dashboard's 7 d); this month; the last 30
                   days; everything
  --since 7d|4w|12h|ISO
                   from then: 7d is today and the 6 days before it;
                   2026-07-01 is its midnight
  --until ISO      up to then: a date includes that whole day; an ISO time
                   ends there
Grouping (repeatable: --by day --by model gives one row per day and model):
  --by hour|day|week|month|weekday|hour_of_day|model|provider|profile|
       source|project|task|session|tree|tool|command|machine
                   an hour is named by its local time (2026-12-05 14:00; an
                   hour the clocks repeat carries its offset): --since 12h
                   --by hour shows what ran overnight; a week is named by its
                   Monday; weekday (Monday … Sunday) and hour_of_day (00:00 …
                   23:00) put every Monday, or every 02:00, of the window
                   together: when the agent spends, cron jobs included;
                   project is the git repository root (else the working
                   directory); task is main or an auxiliary task
                   (title_generation, compression, vision, …); session rows
                   carry session_id and title; a tree is a session with all it
                   started (subagents, continuations after compression,
                   branches, and theirs; a /reset starts a new tree), its rows
                   carry the first session's id and title and how many
                   sessions it holds; tool counts tool calls and the
                   results that say they failed (it groups by tool, time,
                   profile, source, project, session, tree or machine only);
                   command does the same for the terminal tool's calls, one
                   row per program their command lines run first (cd DIR &&,
                   VAR=value, sudo, env, timeout, [ -f x ] &&, sleep, echo …
                   skipped; npx jest is jest, uv run pytest is pytest,
                   bash -c "make" is make, for/if/while bodies looked into; a
                   pipe under its first program), with the time from call to
                   result added up and a typical call's (median); it groups as
                   tool does, not with it, on the fleet store (--from) too;
                   machine rows carry the host name and machine id
  --top N          keep the N costliest rows (most called, for tools and
                   commands); the rest are summed into one row (without --by:
                   each table of the summary but the days)
Filter (repeatable; values of one column are alternatives, columns combine):
  --filter COLUMN=VALUE
                   model, provider, profile, source, project, task, session
                   or tree; project= is no project; tree=ID is the tree --by
                   tree names ID (that session with all it started); tool
                   calls and commands filtered by model, provider or task are
                   those of the sessions with such usage
Output (one of; default tables as wide as the terminal, or $COLUMNS, or 80 when
piped):
  --json           {"period": {"since", "until"}, "by": [...], "totals": {...},
                   "rows": [...]}; every value exactly as the dataset has it
                   (--by command adds totals.commands, what its rows add up
                   to)
  --csv            the rows as CSV; text a spreadsheet would run as a formula
                   (=, +, -, @) is led by ', control characters shown
  --markdown       the rows as a Markdown table, text escaped to read as written
Budget (for cron or CI; the report prints as always):
  --max-cost USD   exit 3 when a row costs more than USD, and say on stderr
                   which: each row of the grouping (--since 24h --by hour
                   catches a runaway hour, --period today --by session a
                   runaway session; every row, whatever --top keeps), else
                   the whole window
Other:
  --utc            days, weeks and months in UTC instead of the ledger's time
                   zone
  --home DIR       the dataset's folder (default $HERMETIC_HOME, else
                   ~/.hermetic)
  --from postgres://USER@HOST/DB[?schema=NAME&sslmode=…]
                   the fleet store every machine's forwarder ships to
                   (--sink): the same report over all machines (read-only;
                   days are each machine's local days, --utc for one calendar)
  -h, --help       show this help

Exit codes: 0 done; 3 a row over --max-cost; 2 a window, grouping or filter
it cannot give (HERMETIC_REPORT_INVALID) or a refused command line; 1 the
dataset or the fleet store could not be read.

Cost: the billed cost (actual_cost_usd) where Hermes recorded one, else its
estimate; both are in --json. Rows of any grouping add up to the totals
(sessions is a count of distinct sessions, so a session active on two days
counts on both). Days are local to the ledger's time zone, set when the
forwarder runs: HERMETIC_TZ, else the machine's. The ledger's rules:
docs/decisions/0031-usage-ledger.md; its table: docs/reference/dataset.md.
`;

export const EXPORT_HELP = `Usage: hermetic export parquet --out DIR [options]

Writes the dataset's tables (sessions, messages, parts, model_usage,
usage_events, daily_usage, row_issues, delegations) and the usage ledger
(usage_ledger, tool_usage) as Parquet files for DuckDB, pandas, Spark and the
rest, with typed columns: times as TIMESTAMP (UTC, microseconds), days as DATE,
tokens and counters as INT64, costs as DOUBLE, text and JSON as UTF-8 strings,
NULL only where the dataset allows it. The dataset is only read (run "hermetic
backfill" first).

  DIR/<table>/data.parquet
      every table but messages and parts, whole, rewritten by every export
  DIR/messages/day=YYYY-MM-DD/data.parquet
      one file per UTC day of created_at (Hive style); so for parts
  DIR/manifest.json
      tables, files, rows, the window that wrote each file, schemas

Options:
  --out DIR        the folder (created when missing); only the files above are
                   written or removed in it
  --since 7d|4w|12h|ISO
                   rewrite only the messages and parts of the UTC days from
                   then (as "hermetic report" reads it: 7d is today and the 6
                   days before it; 2026-07-01 is its midnight in the ledger's
                   zone)
  --until ISO      ... up to then (a date includes that whole day); without
                   either, every day is rewritten
  --include-local-only
                   also export the sessions whose usage policy is local-only
                   (left out by default, from every table: an export is made
                   to be copied elsewhere, and local-only data stays on this
                   machine)
  --home DIR       the dataset's folder (default $HERMETIC_HOME, else
                   ~/.hermetic)
  --json           the summary as JSON: {"out", "manifest", "window",
                   "datasetVersion", "localOnly", "tables", "totals"}
  -h, --help       show this help

Exporting a window again replaces its days, never duplicates them: each day's
file is written under a temporary name and renamed over the old one, and a day
that has no rows any more loses its file. A day outside the window is rewritten
too when its rows no longer match the dataset (a row moved to another day or
removed: a fingerprint in each file tells), so no row is ever in two files; an
export without --since/--until refreshes everything. Read it:
  SELECT day, count(*) FROM read_parquet('DIR/messages/**/*.parquet',
    hive_partitioning = true) GROUP BY day;

Exit codes: 0 done; 2 a refused command line, an --out it must not write to (the
root, the dataset's home, another dataset's export) or a window it cannot give
(HERMETIC_EXPORT_INVALID); 1 another export writing there
(HERMETIC_EXPORT_BUSY), the dataset could not be read, --out could not be
written (HERMETIC_EXPORT_OUT), or a value does not fit its column
(HERMETIC_EXPORT_VALUE).
Decision: docs/decisions/0037-parquet-export.md.
`;

export const WEB_HELP = `Usage: hermetic web [options]

The usage dashboard: a local web page over the dataset (run "hermetic backfill"
or "hermetic forward" first), or over the fleet store many forwarders ship to
(--from), with cost and tokens for a period, spend per day by model, spend by
hour of the day and by weekday, breakdowns by model, provider, profile, source,
project, task and (in the fleet) machine, the most expensive sessions, each
session's transcript and lineage, tool calls, and a report view of any grouping
one or two deep. Every figure is the one "hermetic report --json" gives for the
same window and filter. An open page follows the data: while "hermetic forward"
writes, it redraws itself (the Live button pauses it). It only reads;
Ctrl-C (SIGINT) or SIGTERM stops it cleanly.

Options:
  --port N         port to listen on (default 8650; 0 picks a free one)
  --host HOST      address to listen on (default 127.0.0.1, this machine only;
                   the dashboard has no login)
  --allowed-host NAME
                   another name the dashboard answers as (repeatable):
                   dash.example, or .example.com for it and its subdomains;
                   '*' for any name turns the Host check off (a page on
                   another site can then read it: DNS rebinding)
  --home DIR       the dataset's folder (default $HERMETIC_HOME, else
                   ~/.hermetic)
  --from URL       the fleet store instead:
                   postgres://user:password@host:5432/db[?schema=NAME]
                   (checked once at start; read-only transactions; days are
                   each machine's own, periods are read in $HERMETIC_TZ or
                   this machine's zone)
  --utc            days, midnights and times in UTC, not the ledger's zone (as
                   "hermetic report --utc")
  --refresh DURATION
                   how often an open page asks whether the data changed and
                   redraws itself when it did (default 5s; 1s to 1h; off: it
                   shows what it read until reloaded)
  --open           open the dashboard in the desktop's browser
  -h, --help       show this help

Against DNS rebinding it answers only a request whose Host is one of its
names, and refuses others (404 HERMETIC_WEB_NOT_FOUND): localhost and loopback
addresses; bound to the network (--host 0.0.0.0), also any IP address and this
machine's name (its hostname, full and short, and a name --host gave); and the
--allowed-host names (any case, any port). Bound to the network, the start-up
line says which.

Exit codes: 0 stopped by Ctrl-C or SIGTERM; 1 the dataset or the fleet store
could not be read at start (HERMETIC_FLEET_UNAVAILABLE: nobody answers at the
--from URL), or the port is taken; 2 a refused command line.

Its URL keeps the page's state: /?period=7d&model=gpt-5 is what "hermetic
report --since 7d --filter model=gpt-5" reports; /session?id=ID is a session;
/tools is the tool view. The JSON endpoints are under /api/ (decision 0041).
`;
