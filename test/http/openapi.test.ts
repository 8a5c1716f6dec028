import fs from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_PATH, hostErrorCodes } from '../../runtime/http/openapi.js';
import { ERROR_STATUS } from '../../runtime/errors.js';
import { OPENAPI_FILE, generateOpenApiText } from '../../scripts/openapi.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let doc: Record<string, any>;
beforeAll(async () => {
  t = await startTestApp();
  const res = await t.req({ method: 'GET', url: OPENAPI_PATH });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/json');
  doc = res.json();
});
afterAll(() => t.close());

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('needs no credentials', async () => {
    const res = await t.req({ method: 'GET', url: OPENAPI_PATH, headers: { 'x-api-key': 'wrong' } });
    expect(res.status).toBe(200);
  });

  it('covers every registered route, with each error status the route can answer', () => {
    const routes = t.app.pipeline.routes();
    expect(routes.length).toBeGreaterThan(50);
    for (const { def } of routes) {
      const op = doc.paths[def.path.replace(/\{(\w+)\*\}/g, '{$1}')]?.[def.method.toLowerCase()];
      expect(op, `${def.method} ${def.path}`).toBeDefined();
      const statuses = new Set([...hostErrorCodes(def), ...(def.errors ?? [])].map((c) => String(ERROR_STATUS[c])));
      for (const s of statuses) expect(op.responses[s], `${def.method} ${def.path} answers ${s}`).toBeDefined();
      expect(op.responses[String(def.successStatus ?? 200)]).toBeDefined();
    }
  });

  it('docs/openapi.json is the generated document (npm run openapi writes it)', async () => {
    const text = await generateOpenApiText();
    expect(JSON.parse(text)).toEqual(doc);
    expect(fs.readFileSync(OPENAPI_FILE, 'utf8'), 'docs/openapi.json is stale: run npm run openapi').toBe(text);
  });

  it('the error envelope of a real error matches the documented one', async () => {
    const res = await t.req({ method: 'GET', url: '/api/v1/fs/stat?uri=', headers: t.root });
    expect(res.status).toBe(400);
    const schema = doc.paths['/api/v1/fs/stat'].get.responses['400'].content['application/json'].schema;
    const body = res.json();
    const envelope = doc.components.schemas.ErrorEnvelope;
    for (const key of envelope.required) expect(body).toHaveProperty(key);
    for (const key of envelope.properties.error.required) expect(body.error).toHaveProperty(key);
    expect(body.error.details.field).toBe('uri');
    expect(schema.properties.error.properties.code.enum).toContain(res.json().error.code);
  });
});

describe('every route is documented', () => {
  it('has a summary, request schemas for the input it reads, and a response', () => {
    const missing: string[] = [];
    for (const { def, plugin } of t.app.pipeline.routes()) {
      const name = `${def.method} ${def.path} (${plugin})`;
      if (!def.summary) missing.push(`${name}: summary`);
      if (!def.response && !def.reply) missing.push(`${name}: response or reply`);
      const source = def.handler.toString();
      // A handler that reads ctx.query or ctx.body must declare what it reads.
      if (/\bctx\.query\b/.test(source) && !def.query) missing.push(`${name}: query schema`);
      if (/\bctx\.body\b/.test(source) && !def.body) missing.push(`${name}: body schema`);
      if (/\bctx\.req\.rawBody\b/.test(source) && !def.body && !def.bodyType) missing.push(`${name}: bodyType of the raw body`);
    }
    expect(missing).toEqual([]);
  });
});
