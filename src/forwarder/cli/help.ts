// The forwarder commands' help text (shown by each command's --help).
export const FORWARDER_HELP = `Forwarder commands: read Hermes's state.db stores (strictly read-only) into a dataset you can query.

  hermetic backfill [--since 7d|ISO] [--until 7d|ISO] [--state-db PATH ...] [--home DIR] [--redact] [--json]
      read every session active in the window (all by default) once; a second run writes nothing; Ctrl-C stops
      after the batch it is writing (exit 130): run it again to finish
  hermetic forward [--interval 10s] [--once] [--state-db PATH ...] [--home DIR] [--redact] [--json] [--quiet]
      keep reading what changes, every interval, until Ctrl-C (SIGINT) or SIGTERM
  hermetic status [--state-db PATH ...] [--home DIR] [--json]
      stores found, cursors, rows per table, last tick, last error, quarantined sessions
  hermetic query "SQL" [--home DIR] [--json]
      read-only SQL on the dataset: a table, or a JSON array of row objects with --json
  hermetic policy check PATH [--home DIR]
      which usage-policy class (ignore, local-only, full) governs a folder, and why
  hermetic forget (--session ID ... | --scope DIR) [--state-db PATH ...] [--home DIR] [--json]
      remove what was forwarded before its folder became ignore (only sessions the usage policy ignores now)

Stores: $HERMES_HOME/state.db, ~/.hermes/state.db and every profiles/<name>/state.db under them, unless --state-db
is given (repeatable; a folder stands for the state.db in it). The dataset is <home>/hermetic.db; home is --home, else $HERMETIC_HOME, else ~/.hermetic.
--redact stores text through Hermes's own secret redactor. Tables: docs/reference/dataset.md.
`;
