/**
 * Native grep is loaded before the app serves: the first grep after createApp already runs the
 * linear-time kernel. Its own file, so no earlier app in this process has loaded the module.
 */
import { afterAll, expect, it } from 'vitest';
import { loadNativeGrep } from '../../plugins/retrieval/grep-glob.js';
import { definePlugin } from '../../runtime/plugin.js';
import { grep } from '../../runtime/native-text.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { post } from './helpers.js';

let t: TestApp | undefined;
afterAll(async () => {
  await t?.close();
});

it('grep right after createApp uses the native kernel', async () => {
  expect(typeof grep.searchAsync).toBe('function');
  // A plugin set up right after retrieval sees the kernel already loaded: retrieval's setup
  // awaited it, so no request (they start only after every setup) can reach the JS fallback.
  let loadedWhenRetrievalWasSetUp: boolean | undefined;
  const probe = definePlugin({
    name: 'grep-probe',
    version: '0',
    dependsOn: ['retrieval'],
    setup() {
      loadedWhenRetrievalWasSetUp = loadNativeGrep().current !== null;
    },
  });
  t = await startTestApp({ extraPlugins: [probe] });
  expect(loadedWhenRetrievalWasSetUp).toBe(true);
  const root = { ...t.root, 'x-ctx-account': 'default' };
  // The kernel refuses look-around (JavaScript RegExp would accept it and backtrack): the very
  // first request gets the kernel's answer.
  const look = await post(t, root, '/api/v1/search/grep', { uri: 'ctx://resources', pattern: 'a(?=b)' });
  expect(look.status, JSON.stringify(look.body)).toBe(400);
  expect(look.body.error!.details).toMatchObject({ code: 'INVALID_REGEX' });
  const w = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: root, body: { uri: 'ctx://resources/g/a.md', content: 'alpha\nneedle here\n' } });
  expect(w.status, w.text).toBe(200);
  const ok = await post(t, root, '/api/v1/search/grep', { uri: 'ctx://resources/g', pattern: 'need(le)+' });
  expect(ok.body.result).toEqual({ matches: [{ uri: 'ctx://resources/g/a.md', line: 2, content: 'needle here' }], count: 1 });
});
