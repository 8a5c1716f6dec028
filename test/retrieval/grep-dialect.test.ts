/**
 * grep answers in the core's regex dialect (Rust `regex`: linear time, no look-around or
 * backreferences) from the very first request after start-up: a pattern the dialect refuses is a
 * 400 INVALID_REGEX, never a JavaScript RegExp that would accept it and backtrack.
 */
import { afterAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { post } from './helpers.js';

let t: TestApp | undefined;
afterAll(async () => {
  await t?.close();
});

it('grep uses the core regex dialect from the first request', async () => {
  t = await startTestApp();
  const root = { ...t.root, 'x-ctx-account': 'default' };
  const look = await post(t, root, '/api/v1/search/grep', { uri: 'ctx://resources', pattern: 'a(?=b)' });
  expect(look.status, JSON.stringify(look.body)).toBe(400);
  expect(look.body.error!.details).toMatchObject({ code: 'INVALID_REGEX' });
  const w = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: root, body: { uri: 'ctx://resources/g/a.md', content: 'alpha\nneedle here\n' } });
  expect(w.status, w.text).toBe(200);
  const ok = await post(t, root, '/api/v1/search/grep', { uri: 'ctx://resources/g', pattern: 'need(le)+' });
  expect(ok.body.result).toEqual({ matches: [{ uri: 'ctx://resources/g/a.md', line: 2, content: 'needle here' }], count: 1 });
});
