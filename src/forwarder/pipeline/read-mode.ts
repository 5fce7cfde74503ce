// Whether a pass reads through the read worker (HERMETIC_READ_WORKER): in a module of its own, importing nothing, so
// the public types that name it (ForwarderOptions, StepOptions) reach no reader or SQLite declaration
// (test/package/consumer.test.ts compiles a consumer without better-sqlite3's types).
/**
 * `auto`: a worker joins passes with at least READ_WORKER_MIN_SESSIONS sessions to read, while this thread also reads
 * whenever the worker has nothing ready (so a worker that is slow to start costs nothing); `off`: never; `only`: the
 * worker reads every session of every pass that has any (tests; a worker that cannot start is then an error).
 */
export type ReadWorkerMode = 'auto' | 'off' | 'only';
export const READ_WORKER_MODES: readonly ReadWorkerMode[] = ['auto', 'off', 'only'];
