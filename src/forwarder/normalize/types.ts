// Shapes the normalizer works on: Hermes's rows as the reader hands them over (columns by name, NULL for a column
// the store does not have) and the decoded forms the projector consumes.

/** One `sessions` or `messages` row: every column Hermes has ever had, NULL where this store lacks it. */
export type Row = Readonly<Record<string, unknown>>;

/** One block of a message's content: plain text, or a decoded `\x00json:` block. */
export interface Block {
  type: 'text' | 'image' | 'other';
  text: string | null;
  /** The block's own type name when it is not text (`image_url`, `input_audio`, ...). */
  native: string | null;
}

export interface ToolCall {
  id: string | null;
  name: string | null;
  /** Parsed arguments when they are JSON, else the raw string; null when absent. */
  args: unknown;
  /** The call was stored flattened (`{name, arguments}`), not OpenAI-nested. */
  flattened: boolean;
}

/** What a row is in the transcript (spec forwarding §6.1 item 7). */
export type Kind =
  | 'message' | 'session_meta' | 'system' | 'compaction_summary'
  | 'hidden' | 'auto_continue' | 'steer' | 'model_switch' | 'failed_turn' | 'process_complete'
  | 'async_delegation_complete' | 'display_other';

/** One problem found in a row and repaired or set aside, never silently. */
export interface RowIssue {
  messageId: number | null;
  field: string;
  problem: string;
}

export interface NormalMessage {
  /** Hermes's row id. */
  id: number;
  /** The first row id of the logical message (same across compaction clones): the part ids use it. */
  logicalId: number;
  role: string;
  kind: Kind;
  /** Stored content; for `\x00json:` rows the JSON text without the sentinel. */
  content: string | null;
  contentFormat: 'text' | 'json' | null;
  blocks: Block[];
  toolCalls: ToolCall[] | null;
  /** tool_calls as parsed JSON (null when absent or not JSON). */
  toolCallsJson: unknown;
  toolName: string | null;
  toolCallId: string | null;
  reasoning: string | null;
  finishReason: string | null;
  tokenCount: number | null;
  /** Epoch seconds, validated; a garbage stored value is replaced (see `timestampRepaired`). */
  createdAt: number;
  timestampRepaired: boolean;
  /** Visible reply text found outside `content` (codex_message_items, api_content). */
  replyText: string | null;
  displayKind: string | null;
  /** Hermes's other message fields that are set (normalize/extras.ts), or null. */
  attributes: Record<string, unknown> | null;
  /** Rows rewound, undone or replaced just before this one (since the previous live row): the turn it follows. */
  afterRewind: number;
  /**
   * Summarized away by an in-place compaction (`active 0, compacted 1`): no longer replayed to the model, still part of
   * the history Hermes shows (spec forwarding §6.1 item 8). False for a live row.
   */
  compacted: boolean;
}
