/**
 * The OpenAPI 3.1 document, built from the registered routes (routes are data: method, path, auth,
 * summary, request and response schemas, error codes). Served at `GET /api/v1/openapi.json` and
 * written to docs/openapi.json by `npm run openapi`; test/http/openapi.test.ts validates it and
 * fails when docs/openapi.json is stale or a route is undocumented.
 */
import type { TSchema } from '@sinclair/typebox';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';
import type { RouteDef } from '../plugin.js';
import { ObjectSchema, type Schema } from '../schema.js';
import { VERSION } from '../version.js';
import type { RegisteredRoute } from './pipeline.js';
import { Reply } from './reply.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';

type Json = Record<string, unknown>;

const ERROR_ENVELOPE: Json = {
  type: 'object',
  required: ['status', 'error', 'time'],
  properties: {
    status: { const: 'error' },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
        message: { type: 'string' },
        details: { type: 'object', description: 'the offending field (`field`) or resource (`resource`), and what else helps the client fix the request' },
      },
    },
    time: { type: 'number', description: 'seconds the server spent on the request' },
    telemetry: { $ref: '#/components/schemas/Telemetry' },
  },
};

const TELEMETRY: Json = {
  type: 'object',
  description: 'present when the request asked for it (`telemetry: true` or `{summary: true}` in the body)',
  properties: { operation_id: { type: 'string' }, summary: { type: 'object', properties: { duration_ms: { type: 'number' } } } },
};

/** Codes the host itself can answer for a route, from its definition alone. */
export function hostErrorCodes(def: RouteDef<any, any>): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if ((def.auth ?? 'required') !== 'none') codes.push('UNAUTHENTICATED');
  if (def.roles) codes.push('PERMISSION_DENIED');
  if (def.query || def.body || def.method !== 'GET') codes.push('INVALID_ARGUMENT');
  if (def.method !== 'GET' && def.method !== 'DELETE') codes.push('PAYLOAD_TOO_LARGE');
  if (def.method !== 'GET' && def.method !== 'DELETE' && !def.rawBody) codes.push('UNSUPPORTED_MEDIA_TYPE');
  codes.push('UNAVAILABLE', 'INTERNAL');
  return codes;
}

/** `{name*}` (the rest of the path) has no OpenAPI spelling; it is documented as one parameter. */
function openApiPath(path: string): string {
  return path.replace(/\{(\w+)\*\}/g, '{$1}');
}

function operationId(def: RouteDef<any, any>, taken: Set<string>): string {
  const words = def.path
    .replace(/^\/api\/v1\//, '/')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  const base = def.method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}${n}`;
  taken.add(id);
  return id;
}

function clean(schema: TSchema): Json {
  // TypeBox marks its types with symbols; the document is plain JSON.
  return JSON.parse(JSON.stringify(schema)) as Json;
}

function queryParameters(query: Schema<unknown> | undefined): Json[] {
  if (!query) return [];
  if (!(query instanceof ObjectSchema)) return [{ name: 'query', in: 'query', style: 'form', explode: true, schema: clean(query.toJsonSchema()) }];
  return Object.entries(query.shape as Record<string, Schema<unknown>>).map(([name, schema]) => ({
    name,
    in: 'query',
    required: !schema.isOptional,
    ...(schema.description ? { description: schema.description } : {}),
    schema: clean(schema.toJsonSchema()),
  }));
}

function successResponse(def: RouteDef<any, any>): Json {
  if (def.reply) {
    const schema = def.reply.schema ? clean(def.reply.schema.toJsonSchema()) : def.reply.contentType === 'application/json' ? {} : { type: 'string' };
    return { description: def.reply.description ?? def.summary ?? 'success', content: { [def.reply.contentType]: { schema } } };
  }
  const result = def.response ? clean(def.response.toJsonSchema()) : {};
  return {
    description: def.summary ?? 'success',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['status', 'result', 'time'],
          properties: {
            status: { const: 'ok' },
            result,
            time: { type: 'number', description: 'seconds the server spent on the request' },
            telemetry: { $ref: '#/components/schemas/Telemetry' },
          },
        },
      },
    },
  };
}

function errorResponses(def: RouteDef<any, any>): Record<string, Json> {
  const byStatus = new Map<number, Set<ErrorCode>>();
  for (const code of [...hostErrorCodes(def), ...(def.errors ?? [])]) {
    const status = ERROR_STATUS[code];
    let codes = byStatus.get(status);
    if (!codes) byStatus.set(status, (codes = new Set()));
    codes.add(code);
  }
  const out: Record<string, Json> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0]))
    out[String(status)] = {
      description: [...codes].join(', '),
      content: {
        'application/json': {
          schema: {
            allOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }],
            properties: { error: { properties: { code: { enum: [...codes] } } } },
          },
        },
      },
    };
  return out;
}

function operation(route: RegisteredRoute, taken: Set<string>): Json {
  const { def, plugin } = route;
  const params: Json[] = [...def.path.matchAll(/\{(\w+)(\*?)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    ...(m[2] ? { description: 'the rest of the path (may contain /)' } : {}),
    schema: def.params?.[m[1]!] ? clean(def.params[m[1]!]!.toJsonSchema()) : { type: 'string' },
  }));
  params.push(...queryParameters(def.query));
  const op: Json = {
    operationId: operationId(def, taken),
    tags: def.tags ?? [plugin],
    ...(def.summary ? { summary: def.summary } : {}),
    ...(def.description ? { description: def.description } : {}),
  };
  if (params.length) op.parameters = params;
  if (def.body) op.requestBody = { required: true, content: { 'application/json': { schema: clean(def.body.toJsonSchema()) } } };
  else if (def.rawBody && def.bodyType === 'multipart/form-data')
    // Uploads are one part named `file` (runtime/adapters/uws parseMultipart).
    op.requestBody = { required: true, content: { [def.bodyType]: { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } } } };
  else if (def.rawBody && def.bodyType) op.requestBody = { required: true, content: { [def.bodyType]: { schema: { type: 'string', format: 'binary' } } } };
  const auth = def.auth ?? 'required';
  if (auth === 'none') op.security = [];
  else if (auth === 'optional') op.security = [{}, { apiKey: [] }, { bearer: [] }];
  if (def.roles) op['x-roles'] = def.roles;
  if (def.deprecated) op.deprecated = true;
  op.responses = { [String(def.successStatus ?? 200)]: successResponse(def), ...errorResponses(def) };
  return op;
}

export function buildOpenApi(routes: readonly RegisteredRoute[]): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const taken = new Set<string>();
  const tags = new Set<string>();
  // Sorted, so the document does not change with plugin load order.
  const sorted = [...routes].sort((a, b) => (a.def.path === b.def.path ? a.def.method.localeCompare(b.def.method) : a.def.path < b.def.path ? -1 : 1));
  for (const route of sorted) {
    const op = operation(route, taken);
    for (const t of op.tags as string[]) tags.add(t);
    (paths[openApiPath(route.def.path)] ??= {})[route.def.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'ctx',
      version: VERSION,
      description: 'Context store for AI agents. Every JSON answer is an envelope: `{status:"ok", result, time}` or `{status:"error", error:{code, message, details}, time}`.',
    },
    tags: [...tags].sort().map((name) => ({ name })),
    security: [{ apiKey: [] }, { bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
      schemas: { ErrorEnvelope: ERROR_ENVELOPE, Telemetry: TELEMETRY },
    },
  };
}

/** `GET /api/v1/openapi.json`, built on first request (no route is added after start-up). */
export function openApiRoute(routes: () => readonly RegisteredRoute[]): RouteDef {
  let doc: string | undefined;
  const route: RouteDef = {
    method: 'GET',
    path: OPENAPI_PATH,
    auth: 'none',
    tags: ['system'],
    summary: 'this API as an OpenAPI 3.1 document',
    reply: { contentType: 'application/json', description: 'the OpenAPI 3.1 document (no envelope)' },
    handler: () => Reply.raw((doc ??= JSON.stringify(buildOpenApi(routes()))), { contentType: 'application/json' }),
  };
  return route;
}
