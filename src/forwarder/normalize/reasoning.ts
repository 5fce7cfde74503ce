// Reasoning and reply text from every field Hermes keeps them in (spec forwarding §6.1 item 6): `reasoning`,
// `reasoning_content`, `reasoning_details`, and a Responses reply that lives only in `codex_message_items` or
// `api_content` while `content` is empty.

function parse(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}

function texts(value: unknown, keys: readonly string[]): string[] {
  const out: string[] = [];
  const visit = (v: unknown, depth: number) => {
    if (depth > 4 || v === null || v === undefined) return;
    if (Array.isArray(v)) for (const x of v) visit(x, depth + 1);
    else if (typeof v === 'object') {
      const o = v as Record<string, unknown>;
      for (const k of keys) if (typeof o[k] === 'string' && o[k]) out.push(o[k] as string);
      for (const k of ['content', 'summary']) if (typeof o[k] === 'object') visit(o[k], depth + 1);
    }
  };
  visit(value, 0);
  return out;
}

const nonEmpty = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

/**
 * The row's reasoning text: the normalized field first, then the provider-native ones. `reasoning_details` that is
 * not JSON is kept as it is, as the text, and said in `problems`.
 */
export function reasoningOf(row: Readonly<Record<string, unknown>>, problems?: string[]): string | null {
  const plain = nonEmpty(row.reasoning) ?? nonEmpty(row.reasoning_content);
  if (plain !== null) return plain;
  const details = row.reasoning_details;
  const parsed = parse(details);
  if (parsed === null && nonEmpty(details) !== null && details !== 'null') {
    problems?.push('reasoning_details is not valid JSON; kept as the reasoning text, as stored');
    return details as string;
  }
  return texts(parsed, ['text', 'summary']).join('\n') || null;
}

/** Visible reply text stored outside `content` (used only when `content` has none). */
export function replyTextOf(row: Readonly<Record<string, unknown>>): string | null {
  const items = texts(parse(row.codex_message_items), ['text']).join('\n');
  if (items) return items;
  return nonEmpty(row.api_content);
}
