/**
 * The error table: every code of spec Part 1 "Errors" has the spec's status, the pipeline renders
 * every code with its status, and docs/architecture.md lists exactly the codes the table has.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CtxError, ERROR_STATUS, type ErrorCode } from '../../runtime/errors.js';
import { definePlugin } from '../../runtime/plugin.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

/** Spec Part 1, "Errors", row by row. `null`: the spec says only "non-2xx". */
const SPEC: Array<[ErrorCode, number | null]> = [
  ['INVALID_ARGUMENT', 400],
  ['INVALID_URI', 400],
  ['PERMISSION_DENIED', 403],
  ['NOT_FOUND', 404],
  ['CONFLICT', 409],
  ['FAILED_PRECONDITION', 412],
  ['PROCESSING_ERROR', null],
  ['UNAVAILABLE', 503],
];

describe('error code → HTTP status', () => {
  it.each(SPEC)('%s has the status spec Part 1 gives it', (code, status) => {
    expect(ERROR_STATUS).toHaveProperty(code);
    if (status !== null) expect(ERROR_STATUS[code]).toBe(status);
    else {
      expect(ERROR_STATUS[code] < 200 || ERROR_STATUS[code] >= 300).toBe(true);
      expect(ERROR_STATUS[code]).toBe(422);
    }
  });

  it('every status is an HTTP error status', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
    }
  });

  it('docs/architecture.md "Errors" lists exactly the table, status by status', () => {
    const doc = fs.readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('\n## Errors\n'), doc.indexOf('\n## ', doc.indexOf('\n## Errors\n') + 1));
    const rows = [...section.matchAll(/^\| (\d{3}) \| `([A-Z_]+)` \|/gm)].map((m) => [m[2], Number(m[1])]);
    expect(Object.fromEntries(rows)).toEqual(ERROR_STATUS);
    expect(rows).toHaveLength(Object.keys(ERROR_STATUS).length);
  });
});

describe('the pipeline renders every code with its status', () => {
  let t: TestApp;
  const codes = Object.keys(ERROR_STATUS) as ErrorCode[];

  beforeAll(async () => {
    const thrower = definePlugin({
      name: 'error-thrower',
      version: '1.0.0',
      setup(host) {
        host.route({
          method: 'GET',
          path: '/test/error/{code}',
          handler(ctx) {
            throw new CtxError(ctx.params.code as ErrorCode, `thrown ${ctx.params.code}`, { code: ctx.params.code });
          },
        });
      },
    });
    t = await startTestApp({ extraPlugins: [thrower] });
  });
  afterAll(() => t.close());

  it.each(codes)('%s', async (code) => {
    const res = await t.req({ url: `/test/error/${code}`, headers: t.root });
    expect(res.status).toBe(ERROR_STATUS[code]);
    const body = res.json();
    expect(body).toMatchObject({ status: 'error', error: { code, message: `thrown ${code}`, details: { code } } });
    expect(typeof body.time).toBe('number');
  });
});
