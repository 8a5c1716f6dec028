/**
 * reading-stats against a real host (the SDK's test harness: RocksDB in a temp dir, the built-in
 * plugins, this plugin loaded as an operator's extra plugin) with users of two accounts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestHost, type Headers, type TestHost } from 'ctx-plugin-sdk/testing';
import readingStats from '../src/index.js';

let t: TestHost;
let alice: Headers;
let bob: Headers;
let carol: Headers;

const write = async (who: Headers, uri: string, content: string) => {
  const res = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: who, body: { uri, content } });
  expect(res.status, res.text).toBe(200);
};
const read = (who: Headers, uri: string) => t.req({ url: `/api/v1/x/reading-stats/read?uri=${encodeURIComponent(uri)}`, headers: who });
const stats = async (who: Headers, query = '') => {
  const res = await t.req({ url: `/api/v1/x/reading-stats${query}`, headers: who });
  expect(res.status, res.text).toBe(200);
  return res.json().result;
};

beforeAll(async () => {
  t = await startTestHost({ extraPlugins: [readingStats], config: { pluginSections: { 'reading-stats': { topFiles: 2 } } } });
  const acme = await t.account('acme', ['alice', 'bob']);
  alice = acme.users.alice!;
  bob = acme.users.bob!;
  carol = (await t.account('globex', ['carol'])).users.carol!;
  await write(alice, 'ctx://resources/guide.md', 'the guide');
  await write(alice, 'ctx://resources/faq.md', 'the faq');
  await write(alice, 'ctx://resources/notes.md', 'notes');
  await write(bob, 'ctx://user/bob/memories/diary.md', 'dear diary');
  await write(carol, 'ctx://resources/guide.md', 'globex guide');
});
afterAll(() => t.close());

describe('reading-stats', () => {
  it('reads through the caller\'s view and counts each read per user', async () => {
    const first = await read(alice, 'ctx://resources/guide.md');
    expect(first.status, first.text).toBe(200);
    expect(first.json().result).toEqual({ uri: 'ctx://resources/guide.md', content: 'the guide', reads: 1 });
    expect((await read(alice, 'ctx://resources/guide.md')).json().result.reads).toBe(2);
    await Promise.all([read(alice, 'ctx://resources/faq.md'), read(alice, 'ctx://resources/notes.md'), read(bob, 'ctx://resources/guide.md')]);

    const mine = await stats(alice);
    expect(mine).toMatchObject({ user: 'alice', total_reads: 4, distinct_files: 3, misses: 0 });
    // topFiles: 2 from the plugin's section; the most read first, ties by name.
    expect(mine.files.map((f: { uri: string; reads: number }) => [f.uri, f.reads])).toEqual([
      ['ctx://resources/guide.md', 2],
      ['ctx://resources/faq.md', 1],
    ]);
    expect((await stats(alice, '?top=5')).files).toHaveLength(3);
    expect(await stats(bob)).toMatchObject({ user: 'bob', total_reads: 1, distinct_files: 1 });
  });

  it('concurrent reads of one file all count', async () => {
    await Promise.all(Array.from({ length: 10 }, () => read(bob, 'ctx://user/bob/memories/diary.md')));
    expect((await stats(bob, '?top=1')).files[0]).toMatchObject({ uri: 'ctx://user/bob/memories/diary.md', reads: 10 });
  });

  it('another account never sees or shares these statistics', async () => {
    expect(await stats(carol)).toMatchObject({ user: 'carol', total_reads: 0, files: [] });
    const theirs = await read(carol, 'ctx://resources/guide.md');
    expect(theirs.json().result).toEqual({ uri: 'ctx://resources/guide.md', content: 'globex guide', reads: 1 });
  });

  it('a refused or missing read is the host\'s 403/404, counted as a miss', async () => {
    const denied = await read(alice, 'ctx://user/bob/memories/diary.md');
    expect(denied.status).toBe(403);
    expect(denied.json().error.code).toBe('PERMISSION_DENIED');
    expect(denied.text).not.toContain('dear diary');
    const missing = await read(alice, 'ctx://resources/none.md');
    expect(missing.status).toBe(404);
    expect((await stats(alice)).misses).toBe(2);
  });

  it('bad input gets the error envelope', async () => {
    const noUri = await t.req({ url: '/api/v1/x/reading-stats/read', headers: alice });
    expect(noUri.status).toBe(400);
    expect(noUri.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'uri' } });
    const badUri = await read(alice, 'http://elsewhere/x');
    expect(badUri.status).toBe(400);
    expect((await t.req({ url: '/api/v1/x/reading-stats?top=0', headers: alice })).json().error.details.field).toBe('top');
    expect((await t.req({ url: '/api/v1/x/reading-stats?format=pdf', headers: alice })).status).toBe(400);
    expect((await t.req({ url: '/api/v1/x/reading-stats' })).status).toBe(401);
  });

  it('serves the statistics as markdown', async () => {
    const res = await t.req({ url: '/api/v1/x/reading-stats?format=markdown', headers: alice });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/markdown');
    expect(res.text).toContain('# Reading report for alice');
    expect(res.text).toContain('| ctx://resources/guide.md | 2 |');
  });

  it("its task writes the report into the owner's space", async () => {
    const started = await t.req({ method: 'POST', url: '/api/v1/x/reading-stats/report', headers: alice });
    expect(started.status, started.text).toBe(202);
    const id = started.json().result.task_id as string;
    const task = await vi.waitFor(
      async () => {
        const r = (await t.req({ url: `/api/v1/tasks/${id}`, headers: alice })).json().result;
        if (r.status !== 'completed') throw new Error(`task is ${r.status}: ${JSON.stringify(r.error ?? null)}`);
        return r;
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(task.result).toMatchObject({ uri: 'ctx://user/alice/resources/reading-stats/report.md', files: 2, total_reads: 4 });
    const report = await t.req({ url: '/api/v1/content/read?uri=ctx://~/resources/reading-stats/report.md', headers: alice });
    expect(report.json().result).toContain('# Reading report for alice');
    // bob cannot read alice's report: it is in her space.
    expect((await t.req({ url: '/api/v1/content/read?uri=ctx://user/alice/resources/reading-stats/report.md', headers: bob })).status).toBe(403);
  });

  it('deleting an account drops its statistics, and only its', async () => {
    const del = await t.req({ method: 'DELETE', url: '/api/v1/admin/accounts/globex', headers: t.root });
    expect(del.status, del.text).toBe(200);
    const again = (await t.account('globex', ['carol'])).users.carol!;
    await vi.waitFor(async () => expect(await stats(again)).toMatchObject({ total_reads: 0, misses: 0, files: [] }), { timeout: 5_000, interval: 20 });
    expect((await stats(alice)).total_reads).toBe(4);
  });
});

describe('its configuration', () => {
  it('a section that does not fit its schema stops the host, naming plugin and field', async () => {
    await expect(startTestHost({ extraPlugins: [readingStats], env: { CTX_PLUGIN_READING_STATS_TOP_FILES: '0' } })).rejects.toMatchObject({
      code: 'CTX_PLUGIN_CONFIG',
      message: expect.stringMatching(/reading-stats.*CTX_PLUGIN_READING_STATS_TOP_FILES/),
    });
    await expect(startTestHost({ extraPlugins: [readingStats], config: { pluginSections: { 'reading-stats': { reportUri: '' } } } })).rejects.toMatchObject({
      code: 'CTX_PLUGIN_CONFIG',
      message: expect.stringContaining('plugins.reading-stats.reportUri'),
    });
  });
});
