/**
 * The fs plugin with the real indexer (retrieval plugin) loaded: stat `count` and
 * `extra_fields=count` come from its `vector-index` service, and a moved tree is counted at its new
 * place once the indexer has processed the `mv` event. Waits on queue idleness, not on time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { qs } from './helpers.js';

let t: TestApp;
let alice: Record<string, string>;
const stat = async (uri: string) => (await t.req({ url: `/api/v1/fs/stat?${qs({ uri })}`, headers: alice })).json().result;

beforeAll(async () => {
  t = await startTestApp();
  alice = (await t.account('acme', ['alice'])).users.alice!;
});
afterAll(() => t.close());

describe('fs with the retrieval plugin', () => {
  it('directory count is the vector index estimate, before and after mv', async () => {
    for (const name of ['a', 'b', 'c'])
      expect((await t.req({ method: 'POST', url: '/api/v1/content/write', headers: alice, body: { uri: `ctx://resources/docs/${name}.md`, content: `${name} is a letter of the alphabet` } })).status).toBe(200);
    expect(await t.app.queues.waitIdle(30_000)).toBe(true);
    const before = await stat('ctx://resources/docs');
    expect(before.count).toBeGreaterThanOrEqual(3);
    const listed = (await t.req({ url: `/api/v1/fs/ls?${qs({ uri: 'ctx://resources', extra_fields: 'count' })}`, headers: alice })).json().result;
    expect(listed[0]).toMatchObject({ name: 'docs', count: before.count });
    expect((await t.req({ method: 'POST', url: '/api/v1/fs/mv', headers: alice, body: { from_uri: 'ctx://resources/docs', to_uri: 'ctx://resources/moved' } })).status).toBe(200);
    expect(await t.app.queues.waitIdle(30_000)).toBe(true);
    expect((await stat('ctx://resources/moved')).count).toBeGreaterThanOrEqual(3);
  });
});
