// The session chat's user turn (spec sessions-api §6, `_session_chat_user_message`): `message` or `input`, refused
// without visible text or image, then normalized as Hermes's `_normalize_multimodal_content` does — a string, or a list
// of text and image_url parts — with its three error codes.
import { isDict, pyRepr, pyStr, pyStrip, pyTruthy, type PyDict, type PyValue } from '../../shared/python/index.js';

const MAX_TEXT = 65_536;
const MAX_PARTS = 1_000;
const TEXT_TYPES = new Set(['text', 'input_text', 'output_text']);
const IMAGE_TYPES = new Set(['image_url', 'input_image']);
const FILE_TYPES = new Set(['file', 'input_file']);

/** s[:n] in code points. */
function head(s: string, n: number): string {
  if (s.length <= n) return s;
  const chars = Array.from(s);
  return chars.length > n ? chars.slice(0, n).join('') : s;
}

const partType = (part: PyDict): string => pyStrip(pyStr(pyTruthy(part.get('type')) ? part.get('type')! : '')).toLowerCase();

/** _content_has_visible_payload: non-blank text, or any text/image part with something in it. */
export function hasVisiblePayload(content: PyValue | undefined): boolean {
  if (typeof content === 'string') return pyStrip(content) !== '';
  if (!Array.isArray(content)) return false;
  return content.some((part) => {
    if (!isDict(part)) return false;
    const type = partType(part);
    if (TEXT_TYPES.has(type)) return pyStrip(pyStr(pyTruthy(part.get('text')) ? part.get('text')! : '')) !== '';
    return IMAGE_TYPES.has(type);
  });
}

export class ContentError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** _normalize_chat_content's fallback for a value that is neither text nor a list: str(), capped. */
const fallbackText = (content: PyValue): string => head(pyStr(content), MAX_TEXT);

/** _normalize_multimodal_content: a string when text-only, else the parts; throws ContentError on a bad part. */
export function normalizeContent(content: PyValue | undefined): PyValue {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return head(content, MAX_TEXT);
  if (!Array.isArray(content)) return fallbackText(content);
  const parts: PyDict[] = [];
  for (const part of content.slice(0, MAX_PARTS)) {
    if (typeof part === 'string') {
      if (part) parts.push(new Map([['type', 'text'], ['text', head(part, MAX_TEXT)]]));
      continue;
    }
    if (!isDict(part)) continue;
    const rawType = part.get('type');
    const type = partType(part);
    if (TEXT_TYPES.has(type)) {
      const text = part.get('text');
      if (text === undefined || text === null) continue;
      const s = pyStr(text);
      if (s) parts.push(new Map([['type', 'text'], ['text', head(s, MAX_TEXT)]]));
      continue;
    }
    if (IMAGE_TYPES.has(type)) {
      let detail = part.get('detail');
      const ref = part.get('image_url');
      let url: PyValue | undefined;
      if (isDict(ref)) {
        url = ref.get('url');
        if (ref.has('detail')) detail = ref.get('detail');
      } else url = ref;
      if (typeof url !== 'string' || !pyStrip(url)) throw new ContentError('invalid_image_url', 'Image parts must include a non-empty image URL.');
      url = pyStrip(url);
      const lowered = url.toLowerCase();
      if (lowered.startsWith('data:')) {
        if (!lowered.startsWith('data:image/') || !url.includes(',')) {
          throw new ContentError('unsupported_content_type', 'Only image data URLs are supported. Non-image data payloads are not supported.');
        }
      } else if (!(lowered.startsWith('http://') || lowered.startsWith('https://'))) {
        throw new ContentError('invalid_image_url', 'Image inputs must use http(s) URLs or data:image/... URLs.');
      }
      const image: PyDict = new Map([['url', url]]);
      if (detail !== undefined && detail !== null) {
        if (typeof detail !== 'string' || !pyStrip(detail)) {
          throw new ContentError('invalid_content_part', 'Image detail must be a non-empty string when provided.');
        }
        image.set('detail', pyStrip(detail));
      }
      parts.push(new Map<string, PyValue>([['type', 'image_url'], ['image_url', image]]));
      continue;
    }
    if (FILE_TYPES.has(type)) {
      throw new ContentError(
        'unsupported_content_type',
        'Inline image inputs are supported, but uploaded files and document inputs are not supported on this endpoint.',
      );
    }
    throw new ContentError(
      'unsupported_content_type',
      `Unsupported content part type ${pyRepr(rawType ?? null)}. Only text and image_url/input_image parts are supported.`,
    );
  }
  if (parts.length === 0) return '';
  if (parts.every((p) => p.get('type') === 'text')) return parts.map((p) => p.get('text') as string).filter(Boolean).join('\n');
  return parts;
}
