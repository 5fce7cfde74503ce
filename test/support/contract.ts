// Holds every answer the test suite receives to the OpenAPI document (src/emulator/admin/openapi.generated.ts, made by
// npm run docs:openapi): the status must be documented for the operation, the media type too, and a JSON body must
// validate against the schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it). Requests that match no documented
// operation (an unknown path, a wrong method: aiohttp's own 404/405 pages) are not checked.
import ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { OPENAPI_DOCUMENT } from '../../src/emulator/admin/openapi.generated.js';
import { SERVER_HEADER } from '../../src/emulator/app.js';

export interface ReceivedAnswer {
  readonly method: string;
  /** An absolute URL or a path (with any /ns/<name> and /p/<profile> prefix and query). */
  readonly url: string;
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

type Json = Record<string, any>;
const document = OPENAPI_DOCUMENT as Json;

interface Template {
  path: string;
  /** Literal segments, and null where the template has a parameter. */
  segments: Array<string | null>;
  item: Json;
}

const TEMPLATES: Template[] = Object.entries(document.paths as Record<string, Json>).map(([path, item]) => ({
  path,
  segments: path.split('/').map((s) => (s.startsWith('{') ? null : s)),
  item,
}));

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** As the routers match: a parameter is one non-empty segment, decoded, without braces (api/routes.ts matchRoute). */
function matches(t: Template, parts: string[]): boolean {
  if (t.segments.length !== parts.length) return false;
  return t.segments.every((want, i) => {
    const got = decode(parts[i]!);
    return want === null ? got !== '' && !got.includes('{') && !got.includes('}') : want === got;
  });
}

// ajv is CommonJS: under NodeNext its class is the default export's `default`.
const Ajv2020 = ajv2020.default;
let ajv: InstanceType<typeof Ajv2020> | null = null;
const validators = new Map<string, ValidateFunction>();

function validatorFor(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    if (!ajv) {
      ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
      ajv.addSchema(document, 'openapi.json');
    }
    validate = ajv.compile({ $ref: `openapi.json#${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

const pointerPart = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The documented operation a request reaches: the path without its namespace and profile prefixes. */
export function operationOf(method: string, url: string): { path: string; method: string; operation: Json } | null {
  let path = new URL(url, 'http://hermes.invalid').pathname;
  const ns = /^\/ns\/[^/]+(\/.*)$/.exec(path);
  if (ns) path = ns[1]!;
  const profile = path.startsWith('/__admin/') ? null : /^\/p\/[^/]+(\/.*)$/.exec(path);
  if (profile) {
    // A profile prefix reaches Hermes's routes only: /p/x/__admin is a Hermes path like any other, not the control plane.
    if (profile[1] === '/__admin' || profile[1]!.startsWith('/__admin/')) return null;
    path = profile[1]!;
  }
  const m = method.toLowerCase();
  const parts = path.split('/');
  for (const t of TEMPLATES) {
    if (t.item[m] && matches(t, parts)) return { path: t.path, method: m, operation: t.item[m] };
  }
  return null;
}

/**
 * Python's json.dumps writes NaN, Infinity and -Infinity for such floats (Hermes echoes `1e999` that way); JSON.parse
 * does not read them. Outside strings they become the largest finite numbers (NaN: 0), which a number schema accepts.
 */
function pythonJsonToJson(text: string): string {
  if (!/NaN|Infinity/.test(text)) return text;
  return text.replace(/"(?:[^"\\]|\\.)*"|-?Infinity|NaN/g, (token) =>
    token.startsWith('"') ? token : token === 'NaN' ? '0' : token.startsWith('-') ? '-1.7976931348623157e308' : '1.7976931348623157e308',
  );
}

function show(text: string): string {
  return JSON.stringify(text.length > 400 ? `${text.slice(0, 400)}…` : text);
}

/** Throws ContractViolation, saying what and where, when a received answer is not what the document says. */
export function checkAnswer(answer: ReceivedAnswer): void {
  const found = operationOf(answer.method, answer.url);
  if (!found) return;
  const where = `${answer.method.toUpperCase()} ${answer.url} → ${answer.status}`;
  const fail = (why: string): never => {
    throw new ContractViolation(
      `${where}: ${why}\n  body: ${show(answer.text)}\n  (the OpenAPI document: ${found.path} ${found.method}, src/emulator/admin/openapi.generated.ts; ` +
        'if the answer is right, fix the contract and run `npm run docs:openapi`)',
    );
  };
  const responses = found.operation.responses as Record<string, Json>;
  const status = String(answer.status);
  const key = [status, `${status[0]}XX`, 'default'].find((k) => responses[k]);
  if (!key) return fail(`status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`);
  const content = responses[key]!.content as Record<string, Json> | undefined;
  if (!content) {
    if (answer.text !== '') fail('the document says this answer has no body');
    return;
  }
  const media = (answer.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!content[media]) return fail(`media type "${media || '(none)'}" is not documented (documented: ${Object.keys(content).join(', ')})`);
  // A bare answer (the CORS refusal) is documented as octet-stream of no length: its body must be empty.
  if (media === 'application/octet-stream' && answer.text !== '') fail('the document says this answer has no body');
  if (media !== 'application/json') return;
  let body: unknown;
  try {
    body = JSON.parse(pythonJsonToJson(answer.text));
  } catch {
    return fail('the body is not JSON');
  }
  const pointer = `/paths/${pointerPart(found.path)}/${found.method}/responses/${key}/content/${pointerPart(media)}/schema`;
  const validate = validatorFor(pointer);
  if (!validate(body)) {
    const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '(body)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    fail(`the body does not match the schema:\n    ${errors.join('\n    ')}`);
  }
}

/** The hook every admin client runs on each answer (src/emulator/admin/client.ts): the document's check. */
export const ADMIN_ANSWER_CHECK = Symbol.for('hermetic.adminAnswerCheck');
/** Set by the preload (contract-check.ts) alone, so a test can tell it ran from a check some test installed. */
export const CONTRACT_CHECK_PRELOADED = Symbol.for('hermetic.contractCheckPreloaded');
/** The hook an in-process emulator's fetch runs on each answer it gives (src/emulator/index.ts). */
export const FETCH_ANSWER_CHECK = Symbol.for('hermetic.fetchAnswerCheck');

/**
 * Every admin client in this process checks its answers from now on (unless HERMETIC_CONTRACT_CHECK=0). Only answers
 * Hermetic gave are held to the document (they carry its Server header); a test's stub fetch answers as it likes.
 */
export function installContractCheck(): void {
  if (process.env.HERMETIC_CONTRACT_CHECK === '0') return;
  const check = ({ headers, ...answer }: { method: string; url: string; status: number; headers: Headers; text: string }): void => {
    if (headers.get('server') !== SERVER_HEADER) return;
    checkAnswer({ ...answer, contentType: headers.get('content-type') });
  };
  (globalThis as Record<symbol, unknown>)[ADMIN_ANSWER_CHECK] = check;
  (globalThis as Record<symbol, unknown>)[FETCH_ANSWER_CHECK] = check;
}
