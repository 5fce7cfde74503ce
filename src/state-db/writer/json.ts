// A JSON column Hermes's writer reads back before it edits it (display_metadata, task_json): its object, or an empty
// one when it is NULL, not JSON, or JSON of another shape — as Hermes's `json.loads(...) or {}` guards do.
import type { PlainJson } from '../../shared/python/index.js';

export type JsonObject = { [k: string]: PlainJson };

export function jsonObject(text: unknown): JsonObject {
  if (typeof text !== 'string') return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
  } catch {
    return {};
  }
}
