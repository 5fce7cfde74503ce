// Hermetic's own errors: one catalogue of stable HERMETIC_* codes, each with the HTTP status the control plane uses.
// docs/reference/errors.md lists every code; a test holds the two together.

export const ERROR_CODES = {
  HERMETIC_ADMIN_NOT_FOUND: { status: 404, summary: 'No control route matches this method and path.' },
  HERMETIC_ADMIN_BAD_JSON: { status: 400, summary: 'A control request body is not a JSON object.' },
  HERMETIC_ADMIN_BAD_FIELD: { status: 400, summary: 'A control request field is missing or has the wrong type.' },
  HERMETIC_UNSUPPORTED_ROUTE: { status: 501, summary: 'Hermes serves this route, but the emulator does not reproduce it.' },
  HERMETIC_RUN_UNKNOWN: { status: 404, summary: 'The control plane knows no live run with this id.' },
  HERMETIC_RUN_TERMINAL: { status: 409, summary: 'The run has already finished; the fake agent can no longer act on it.' },
  HERMETIC_RUN_NOT_STARTED: { status: 409, summary: 'The run is still queued; its fake agent has not started yet.' },
  HERMETIC_OPTIONS_UNKNOWN: { status: 400, summary: 'An option name is not known (a suggestion is given when one is close).' },
  HERMETIC_OPTIONS_INVALID: { status: 400, summary: 'An option value has the wrong type or is out of range.' },
  HERMETIC_STORE_OPEN: { status: 500, summary: 'The emulator store could not be opened at the given path.' },
  HERMETIC_CLI_USAGE: { status: 400, summary: 'A command-line argument is unknown, missing or malformed.' },
  HERMETIC_SERVE_LISTEN: { status: 500, summary: 'The server could not listen on the requested host and port.' },
  HERMETIC_STATEDB_PROFILE: { status: 400, summary: 'The state.db generator knows no profile with this name.' },
  HERMETIC_STATEDB_SCHEMA: { status: 400, summary: 'The requested state.db schema version is not one Hermetic knows.' },
  HERMETIC_STATEDB_OPEN: { status: 500, summary: 'A state.db could not be opened read-only for inspection.' },
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
