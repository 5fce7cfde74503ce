// The OpenAPI 3.1 document of every route, built from the two route tables (src/emulator/api/routes.ts,
// src/emulator/admin/routes.ts), the control plane's typed contract (AdminRoutes, read by admin-contract.ts) and the
// Hermes routes' schemas (src/emulator/api/contract.ts). Nothing per route is written here: a route added to a table
// appears in the document when it is generated again (npm run docs:openapi).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ADMIN_KEY_HEADER, OPEN_ADMIN_ROUTE } from '../../src/emulator/admin/auth.js';
import { ADMIN_PREFIX, ADMIN_ROUTES } from '../../src/emulator/admin/routes.js';
import { COMMON_ANSWERS, HERMES_HEADERS, HERMES_SCHEMAS, HERMES_TAGS, hermesOperation, type HermesAnswer, type Schema } from '../../src/emulator/api/contract.js';
import { HERMES_VERSION } from '../../src/emulator/api/meta.js';
import { ROUTES } from '../../src/emulator/api/routes.js';
import { NAMESPACE_HEADER, NAMESPACE_NAME } from '../../src/emulator/namespaces/names.js';
import { readAdminContract, REPO_ROOT, type AdminRouteContract } from './admin-contract.js';
import type { JsonSchema } from './type-schemas.js';

type Json = { [key: string]: unknown };

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const JSON_MEDIA = 'application/json';

/** `{name}` segments of a path template, as path parameters. */
function pathParameters(path: string): Json[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
}

/** "POST /__admin/clock: set, advance …" → "set, advance …"; a comment naming another route is a mistake. */
function summaryOf(contract: AdminRouteContract, method: string, path: string): { summary: string; description?: string } {
  const [first = '', ...rest] = contract.doc.split(/\n\s*\n/);
  const named = /^(GET|POST|PUT|PATCH|DELETE) (\/[^\s?:]*?)(?:\?\S*)?(?::\s+|\.\s+|\.?\s*$)/.exec(first);
  if (named && (named[1] !== method || named[2] !== path)) {
    throw new Error(`openapi: the comment on AdminRoutes.${contract.name} names ${named[1]} ${named[2]}, but the route table says ${method} ${path}`);
  }
  let summary = (named ? first.slice(named[0].length) : first).trim().replace(/\s+/g, ' ');
  summary = summary ? summary[0]!.toUpperCase() + summary.slice(1) : `${method} ${path}`;
  const description = rest.join('\n\n').trim();
  return description ? { summary, description } : { summary };
}

function resolveSchema(schema: JsonSchema, components: Record<string, unknown>): JsonSchema {
  const target = typeof schema === 'object' && typeof schema.$ref === 'string' ? schema.$ref.split('/').pop()! : null;
  return target ? resolveSchema(components[target] as JsonSchema, components) : schema;
}

/** True when `{}` (what a bodiless POST reads as) does not satisfy the body's schema. */
function bodyRequired(schema: JsonSchema, components: Record<string, unknown>): boolean {
  const s = resolveSchema(schema, components);
  if (typeof s !== 'object') return !s;
  if (Array.isArray(s.anyOf)) return s.anyOf.every((x: JsonSchema) => bodyRequired(x, components));
  return Array.isArray(s.required) && s.required.length > 0;
}

function adminOperation(route: (typeof ADMIN_ROUTES)[number], contract: AdminRouteContract, components: Record<string, unknown>): Json {
  const path = ADMIN_PREFIX + route.path;
  const text = typeof contract.result === 'object' && contract.result.type === 'string';
  const open = route.method === OPEN_ADMIN_ROUTE.method && path === OPEN_ADMIN_ROUTE.path;
  const operation: Json = {
    operationId: `admin.${route.name}`,
    ...summaryOf(contract, route.method, path),
    tags: ['Control plane'],
    'x-hermetic-client-method': route.name,
  };
  if (contract.query.length > 0) {
    operation.parameters = contract.query.map((q) => ({
      name: q.name,
      in: 'query',
      required: q.required,
      ...(q.description ? { description: q.description } : {}),
      schema: q.schema,
    }));
  }
  if (contract.body !== null) {
    operation.requestBody = {
      required: bodyRequired(contract.body, components),
      description: 'A JSON object; unknown fields are refused with a suggestion. No body reads as {}.',
      content: { [JSON_MEDIA]: { schema: contract.body } },
    };
  }
  const refused = { description: 'Refused: a HERMETIC_* code and a sentence (docs/reference/errors.md).', content: { [JSON_MEDIA]: { schema: ref('HermeticError') } } };
  operation.responses = {
    '200': { description: 'The answer.', content: { [text ? 'text/plain' : JSON_MEDIA]: { schema: contract.result } } },
    '4XX': refused,
    '5XX': refused,
  };
  operation.security = open ? [] : [{ adminKey: [] }, { adminBearer: [] }, {}];
  return operation;
}

/** Answers for one status, merged: one description, and per media type one schema (anyOf when several). */
function response(answers: readonly HermesAnswer[]): Json {
  const media = new Map<string, Schema[]>();
  const add = (type: string, schema: Schema) => media.set(type, [...(media.get(type) ?? []), schema]);
  const headers = new Set<string>();
  for (const a of answers) {
    if (a.json !== undefined) add(JSON_MEDIA, a.json);
    if (a.eventStream) add('text/event-stream', { type: 'string', description: 'data: <HermesRunEvent JSON> lines, each followed by a blank line; comment lines start with ":".' });
    if (a.text) add('text/plain', { type: 'string' });
    if (a.html) add('text/html', { type: 'string' });
    if (a.bare) add('application/octet-stream', { type: 'string', maxLength: 0 });
    for (const h of a.headers ?? []) headers.add(h);
  }
  const out: Json = { description: answers.length === 1 ? answers[0]!.description : answers.map((a) => `- ${a.description}`).join('\n') };
  if (headers.size > 0) out.headers = Object.fromEntries([...headers].map((h) => [h, { $ref: `#/components/headers/${h}` }]));
  if (media.size > 0) {
    out.content = Object.fromEntries([...media].map(([type, schemas]) => [type, { schema: schemas.length === 1 ? schemas[0] : { anyOf: schemas } }]));
  }
  return out;
}

function hermesPathItemOperation(route: (typeof ROUTES)[number]): Json {
  const op = hermesOperation(route);
  if (!op) throw new Error(`openapi: ${route.method} ${route.path} has no entry in src/emulator/api/contract.ts`);
  const statuses = new Map<string, HermesAnswer[]>();
  const add = (all: Readonly<Record<string, HermesAnswer | readonly HermesAnswer[]>>) => {
    for (const [status, a] of Object.entries(all)) {
      const list = statuses.get(status) ?? [];
      for (const answer of Array.isArray(a) ? (a as HermesAnswer[]) : [a as HermesAnswer]) if (!list.includes(answer)) list.push(answer);
      statuses.set(status, list);
    }
  };
  add(op.answers);
  add(COMMON_ANSWERS);
  const operation: Json = {
    operationId: op.operationId === 'hermes.unsupported' ? `hermes.unsupported ${route.method} ${route.path}` : op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    'x-hermetic-operation': route.operation,
  };
  if (op.headers?.length) operation.parameters = op.headers.map((h) => ({ $ref: `#/components/parameters/${h}` }));
  if (op.body) operation.requestBody = { required: true, description: op.body.description, content: { [JSON_MEDIA]: { schema: op.body.schema } } };
  operation.responses = Object.fromEntries([...statuses].sort(([a], [b]) => a.localeCompare(b)).map(([status, answers]) => [status, response(answers)]));
  operation.security = route.auth === 'none' ? [] : [{ hermesApiKey: [] }, {}];
  return operation;
}

const NAMESPACE_VARIABLE = { default: 'default', description: 'Any namespace name; created on first use.' };
const HERMES_SERVERS = [
  { url: '/', description: 'The default namespace.' },
  { url: '/ns/{namespace}', description: 'Another namespace.', variables: { namespace: NAMESPACE_VARIABLE } },
  { url: '/p/{profile}', description: 'A named Hermes profile (its own API key).', variables: { profile: { default: 'default' } } },
  {
    url: '/ns/{namespace}/p/{profile}',
    description: 'A named Hermes profile of another namespace.',
    variables: { namespace: NAMESPACE_VARIABLE, profile: { default: 'default' } },
  },
];

export function openApiDocument(root = REPO_ROOT): Json {
  const contract = readAdminContract(root);
  const components: Record<string, unknown> = {};
  for (const [name, schema] of contract.components) components[name] = schema;
  for (const [name, schema] of Object.entries(HERMES_SCHEMAS)) {
    if (name in components) throw new Error(`openapi: the schema name ${name} is used by both the admin contract and the Hermes contract`);
    components[name] = schema;
  }

  const paths: Record<string, Json> = {};
  const item = (path: string, servers?: unknown[]): Json => {
    if (!paths[path]) {
      paths[path] = {
        ...(servers ? { servers } : {}),
        parameters: [...pathParameters(path), { $ref: '#/components/parameters/namespace' }],
      };
    }
    return paths[path]!;
  };
  for (const route of ROUTES) {
    item(route.path, HERMES_SERVERS)[route.method.toLowerCase()] = hermesPathItemOperation(route);
  }
  for (const route of ADMIN_ROUTES) {
    const routeContract = contract.routes.get(route.name);
    if (!routeContract) throw new Error(`openapi: the admin route ${route.name} is not in AdminRoutes (src/emulator/admin/client.ts)`);
    item(ADMIN_PREFIX + route.path)[route.method.toLowerCase()] = adminOperation(route, routeContract, components);
  }

  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { version: string };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Hermetic',
      version: pkg.version,
      summary: `Hermes Agent's /v1/runs API (Hermes ${HERMES_VERSION}) emulated byte for byte, and Hermetic's control plane (/__admin).`,
      description: [
        'Generated by `npm run docs:openapi` from the route tables and the control plane\'s typed contract; a test keeps it in step.',
        `Every route is served in the default namespace and under /ns/{namespace} (or with the ${NAMESPACE_HEADER} header): each namespace is a whole gateway of its own.`,
        'The Hermes routes are also served under /p/{profile} for configured profiles. Hermes\'s answers are exact bytes (key order, spacing): see docs/reference/hermes-api.md; the control routes: docs/reference/admin-api.md.',
      ].join('\n\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [HERMES_SERVERS[0], HERMES_SERVERS[1]],
    tags: [
      ...Object.entries(HERMES_TAGS).map(([name, description]) => ({ name, description })),
      { name: 'Control plane', description: 'Not part of Hermes: the routes a test drives the fake agent, the clock and the gateway with.' },
    ],
    paths,
    components: {
      schemas: components,
      parameters: {
        namespace: {
          name: NAMESPACE_HEADER,
          in: 'header',
          required: false,
          description: 'The namespace this request is for (instead of, or the same as, a /ns/{namespace} prefix). Absent: "default".',
          schema: { type: 'string', pattern: NAMESPACE_NAME.source },
        },
        ...Object.fromEntries(Object.entries(HERMES_HEADERS).map(([name, h]) => [name, { name, in: 'header', required: false, ...h }])),
      },
      headers: Object.fromEntries(Object.entries(HERMES_HEADERS).map(([name, h]) => [name, h])),
      securitySchemes: {
        hermesApiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'Hermes\'s API key (API_SERVER_KEY, --api-key; per profile). Not needed when the server has none.',
        },
        adminKey: {
          type: 'apiKey',
          in: 'header',
          name: ADMIN_KEY_HEADER,
          description: `The control plane's key (--admin-key, HERMETIC_ADMIN_KEY). Not needed when the server has none; ${OPEN_ADMIN_ROUTE.method} ${OPEN_ADMIN_ROUTE.path} never needs it.`,
        },
        adminBearer: {
          type: 'http',
          scheme: 'bearer',
          description: `The admin key as "Authorization: Bearer <key>", on control routes only (${ADMIN_KEY_HEADER} decides when both are sent).`,
        },
      },
    },
  };
}

/** Where the generated document lives (served by src/emulator/admin/openapi.ts). */
export const OPENAPI_MODULE = resolve(REPO_ROOT, 'src/emulator/admin/openapi.generated.ts');

/** The generated module's text: the document as a typed constant. */
export function openApiModule(root = REPO_ROOT): string {
  const document = openApiDocument(root);
  return [
    '// GENERATED by `npm run docs:openapi` (scripts/openapi/) from the route tables and the AdminRoutes contract.',
    '// Do not edit: change a route table, the contract (admin/client.ts) or api/contract.ts, then generate it again.',
    "import type { AdminOpenApiDocument } from './client.js';",
    '',
    `export const OPENAPI_DOCUMENT: AdminOpenApiDocument = ${formatJson(document, '', 'export const OPENAPI_DOCUMENT: AdminOpenApiDocument = '.length)};`,
    '',
  ].join('\n');
}

/** JSON on one line, with a space after each separator. */
function inline(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return entries.length === 0 ? '{}' : `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`).join(', ')} }`;
}

/** JSON with a value on one line when it fits in 120 columns, else one member per line (smaller, easier diffs). */
export function formatJson(value: unknown, indent = '', used = 0): string {
  const flat = inline(value);
  if (value === null || typeof value !== 'object' || indent.length + used + flat.length <= 120) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((v) => inner + formatJson(v, inner)).join(',\n')}\n${indent}]`;
  const lines = Object.entries(value as Record<string, unknown>).map(([k, v]) => {
    const key = `${JSON.stringify(k)}: `;
    return inner + key + formatJson(v, inner, key.length);
  });
  return `{\n${lines.join(',\n')}\n${indent}}`;
}
