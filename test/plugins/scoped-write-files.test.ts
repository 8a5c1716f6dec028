/** `ScopedVfs.writeFiles`: several files in one batch, authorized like `writeFile`, all or none. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePlugin, s, resultObject } from '../../runtime/sdk/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const writer = definePlugin({
  name: 'batch-writer',
  version: '1.0.0',
  setup(host) {
    host.route({
      method: 'POST',
      path: '/test/write-files',
      summary: 'writes files in one batch',
      body: s.object({ root: s.string(), files: s.array(s.object({ uri: s.string(), text: s.string() })) }),
      response: resultObject({ written: s.array(s.string()) }),
      handler: async (ctx) => ({ written: (await ctx.vfs.writeFiles(ctx.body.root, ctx.body.files.map((f) => ({ uri: f.uri, data: Buffer.from(f.text) })))).map((r) => r.uri) }),
    });
  },
});

let t: TestApp;
let alice: Record<string, string>;
const write = (root: string, files: Array<{ uri: string; text: string }>) => t.req({ method: 'POST', url: '/test/write-files', headers: alice, body: { root, files } });
const stat = (uri: string) => t.req({ method: 'GET', url: `/api/v1/fs/stat?uri=${encodeURIComponent(uri)}`, headers: alice });

beforeAll(async () => {
  t = await startTestApp({ extraPlugins: [writer] });
  alice = (await t.account('acme', ['alice', 'bob'])).users.alice!;
});
afterAll(() => t.close());

describe('ScopedVfs.writeFiles', () => {
  it('writes every file below the root, creating directories', async () => {
    const res = await write('ctx://user/alice/resources/batch', [
      { uri: 'ctx://user/alice/resources/batch/a.md', text: 'a' },
      { uri: 'ctx://user/alice/resources/batch/sub/b.md', text: 'b' },
    ]);
    expect(res.status, res.text).toBe(200);
    expect((await stat('ctx://user/alice/resources/batch/sub/b.md')).status).toBe(200);
  });

  it("writes nothing when one target is outside the root or in another user's space", async () => {
    const outside = await write('ctx://user/alice/resources/x', [
      { uri: 'ctx://user/alice/resources/x/ok.md', text: 'ok' },
      { uri: 'ctx://user/alice/resources/elsewhere.md', text: 'no' },
    ]);
    expect(outside.status).toBe(400);
    const foreign = await write('ctx://user/alice/resources/y', [
      { uri: 'ctx://user/alice/resources/y/ok.md', text: 'ok' },
      { uri: 'ctx://user/bob/resources/y/evil.md', text: 'no' },
    ]);
    expect(foreign.status).toBe(403);
    expect((await write('ctx://user/bob/resources', [{ uri: 'ctx://user/bob/resources/z.md', text: 'no' }])).status).toBe(403);
    expect((await stat('ctx://user/alice/resources/x/ok.md')).status).toBe(404);
    expect((await stat('ctx://user/alice/resources/y/ok.md')).status).toBe(404);
  });
});
