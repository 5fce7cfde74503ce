// How much of a session is read at once (decisions 0055, 0171). A file of its own, free of imports: step.ts, whose
// StepResult is public, names it, and a consumer of the package must not need better-sqlite3's types for that.

/** The most a chunk of a session holds: message rows, and characters of their values (decisions 0055, 0171). */
export interface ChunkSize {
  rows: number;
  chars: number;
}

/** Message rows read at once, unless the pass says otherwise: about 30 MB of rows and records in flight. */
export const CHUNK_ROWS = 10_000;

/**
 * Characters of values read at once, unless the pass says otherwise: fewer rows than CHUNK_ROWS when their texts are
 * long. A chunk's rows and records take several times that in memory at their peak (decision 0171).
 */
export const CHUNK_CHARS = 2 * 1024 * 1024;

export const CHUNK: ChunkSize = Object.freeze({ rows: CHUNK_ROWS, chars: CHUNK_CHARS });

/** The chunk the forwarder's options ask for (`chunkRows`, `chunkChars`), CHUNK's where they say nothing. */
export function chunkOf(o: { chunkRows?: number; chunkChars?: number }): ChunkSize {
  return { rows: o.chunkRows ?? CHUNK_ROWS, chars: o.chunkChars ?? CHUNK_CHARS };
}
