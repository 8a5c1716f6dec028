/**
 * The contract between content and the fs plugin's `fs` service, checked with a stand-in that
 * implements only that contract (the real fs plugin is tested in test/fs): set_tags forwards its
 * arguments and shapes the result; `assertContentAccess` (the `access: denied` placeholders under
 * ctx://resources) is consulted by every content operation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CtxError } from '../../runtime/errors.js';
import type { Identity } from '../../runtime/identity/types.js';
import { definePlugin, type PluginDefinition } from '../../runtime/plugin.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pluginsWithoutIndexer } from './helpers.js';

const calls: Array<{ user: string; uri: string; tags: string[]; opts: unknown }> = [];
const standIn = definePlugin({
  // Named fs so it takes the real plugin's place, whether content depends on fs or only asks for it.
  name: 'fs',
  version: '0.0.0',
  // The per-entry rules every scoped view applies come from fs: without them the host denies all.
  privileges: ['access-rules'],
  setup(host) {
    const hidden = (identity: Identity, path: string) => identity.role === 'USER' && (path === 'resources/secret' || path.startsWith('resources/secret/'));
    host.access.installRules({
      blockedOnPaths: async (identity, paths) => paths.map((p) => (hidden(identity, p) ? 'resources/secret' : null)),
      hidesNode: (identity, node) => hidden(identity, node.path),
    });
    host.provide('fs', {
      async setTags(identity: Identity, uri: string, tags: string[], opts: { mode: string; recursive: boolean }) {
        calls.push({ user: identity.userId, uri, tags, opts });
        return { updated: [uri, `${uri}/child.md`], skipped_count: 0 };
      },
      assertContentAccess(identity: Identity, uri: string) {
        if (uri.startsWith('ctx://resources/secret') && identity.role === 'USER')
          throw new CtxError('PERMISSION_DENIED', `${uri} is not readable by ${identity.userId}`, { resource: uri, access: 'denied' });
      },
    });
  },
});

/** Everything built in except the real fs plugin (and what needs it), plus the stand-in. */
function plugins(): PluginDefinition[] {
  const base = pluginsWithoutIndexer();
  const drop = new Set(['fs']);
  for (const p of base) if ((p.dependsOn ?? []).some((d) => drop.has(d)) && p.name !== 'content') drop.add(p.name);
  return [...base.filter((p) => !drop.has(p.name)), standIn];
}

let t: TestApp;
let alice: Record<string, string>;
let admin: Record<string, string>;

beforeAll(async () => {
  t = await startTestApp({ plugins: plugins() });
  const acme = await t.account('acme', ['alice']);
  alice = acme.users.alice!;
  admin = acme.admin;
  await t.app.vfs.writeFile('acme', 'resources/secret/plan.md', Buffer.from('top secret'));
  await t.app.vfs.writeFile('acme', 'resources/secret/.abstract.md', Buffer.from('secret abstract'));
  await t.app.vfs.writeFile('acme', 'resources/open/a.md', Buffer.from('a'));
});
afterAll(() => t.close());

describe('fs contract', () => {
  it('set_tags forwards identity, canonical URI, tags, mode and recursive, and shapes the result', async () => {
    const res = await t.req({ method: 'POST', url: '/api/v1/content/set_tags', headers: alice, body: { uri: 'ctx://resources/open/', tags: ['a=1'], mode: 'append', recursive: true } });
    expect(res.status).toBe(200);
    expect(calls.at(-1)).toEqual({ user: 'alice', uri: 'ctx://resources/open', tags: ['a=1'], opts: { mode: 'append', recursive: true } });
    expect(res.json().result).toEqual({
      uri: 'ctx://resources/open',
      updated_uris: ['ctx://resources/open', 'ctx://resources/open/child.md'],
      root_uri: 'ctx://resources',
      context_type: 'resource',
      tags: ['a=1'],
      mode: 'append',
      recursive: true,
      success_count: 2,
      failed_count: 0,
      skipped_count: 0,
    });
  });

  it('denied entries are 403 for read, download, abstract, write, batch-write and reindex; others pass', async () => {
    const q = (u: string) => `uri=${encodeURIComponent(u)}`;
    const denied = [
      await t.req({ url: `/api/v1/content/read?${q('ctx://resources/secret/plan.md')}`, headers: alice }),
      await t.req({ url: `/api/v1/content/download?${q('ctx://resources/secret/plan.md')}`, headers: alice }),
      await t.req({ url: `/api/v1/content/abstract?${q('ctx://resources/secret')}`, headers: alice }),
      await t.req({ method: 'POST', url: '/api/v1/content/write', headers: alice, body: { uri: 'ctx://resources/secret/plan.md', content: 'x' } }),
      await t.req({ method: 'POST', url: '/api/v1/content/batch-write', headers: alice, body: { root_uri: 'ctx://resources/secret', operations: [{ uri: 'ctx://resources/secret/b.md', content: 'x', mode: 'upsert' }] } }),
      await t.req({ method: 'POST', url: '/api/v1/content/reindex', headers: alice, body: { uri: 'ctx://resources/secret' } }),
    ];
    for (const r of denied) {
      expect(r.status).toBe(403);
      expect(r.json().error.code).toBe('PERMISSION_DENIED');
    }
    // Root readable, targets not: a new file is checked through its parent, an existing one itself.
    await t.app.vfs.writeFile('acme', 'resources/secret-note.md', Buffer.from('note'));
    for (const uri of ['ctx://resources/secret/new.md', 'ctx://resources/secret-note.md']) {
      const r = await t.req({ method: 'POST', url: '/api/v1/content/batch-write', headers: alice, body: { root_uri: 'ctx://resources', operations: [{ uri: 'ctx://resources/open/ok.md', content: 'x', mode: 'upsert' }, { uri, content: 'x', mode: 'upsert' }] } });
      expect(r.status, uri).toBe(403);
    }
    expect(await t.app.vfs.stat('acme', 'resources/open/ok.md')).toBeNull();
    expect((await t.app.vfs.readFile('acme', 'resources/secret-note.md')).toString()).toBe('note');
    expect((await t.app.vfs.readFile('acme', 'resources/secret/plan.md')).toString()).toBe('top secret');
    expect(await t.app.vfs.stat('acme', 'resources/secret/b.md')).toBeNull();
    expect((await t.req({ url: `/api/v1/content/read?${q('ctx://resources/secret/plan.md')}`, headers: admin })).json().result).toBe('top secret');
    expect((await t.req({ url: `/api/v1/content/read?${q('ctx://resources/open/a.md')}`, headers: alice })).json().result).toBe('a');
  });
});
