// What one write of a session does to the rows a sink already holds for it (decision 0032): rows added, rows
// replaced, and ranges removed — never "the whole session again" unless it is the session's first write or its rows
// cannot be compared. A sink applies it inside the batch's transaction, with the session's cursor.

export interface SessionDelta {
  /**
   * `replace`: every row of the session goes first (its first write, or one that cannot be compared with the last);
   * `rewrite`: messages from `fromSeq` on (and their parts) go first; `append`: nothing of the transcript goes.
   */
  kind: 'replace' | 'rewrite' | 'append';
  /** Messages with seq >= fromSeq, and every part of those messages, are removed before the new rows are added. */
  fromSeq: number | null;
  /** The session's end parts are removed (its current one, if any, is among the parts added). */
  replaceEnd: boolean;
  /** Which of the session's row_issues are removed first: all, the session-level ones (message_id 0), or none. */
  issues: 'all' | 'session' | 'none';
  /** Its model_usage and daily_usage rows are replaced by the ones given (else they are left as they are). */
  usage: boolean;
  daily: boolean;
}

/** The delta of a session written whole. */
export const REPLACE: SessionDelta = { kind: 'replace', fromSeq: 0, replaceEnd: true, issues: 'all', usage: true, daily: true };
