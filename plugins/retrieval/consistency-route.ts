/** `system/consistency`: index records missing for what the caller may read under a URI. */
import { notFound } from 'ctx/plugin';
import type { PluginHost } from 'ctx/plugin';
import { s } from 'ctx/plugin';
import { authorize, parseUri } from 'ctx/plugin';
import { recordId } from 'ctx/plugin';
import { SIDECARS } from 'ctx/plugin';
import { placement } from './space.js';
import type { RecordStore } from './store.js';
import { resultObject } from 'ctx/plugin';
import { canReadPath } from './grep-glob-routes.js';

export function registerConsistencyRoute(host: PluginHost, store: RecordStore): void {
  host.route({
    method: 'POST',
    path: '/api/v1/system/consistency',
    tags: ['system'],
    summary: 'index records missing for what lies under uri',
    response: resultObject({ ok: s.bool(), expected_count: s.int(), missing_record_count: s.int(), missing_records_truncated: s.bool(), missing_records: s.array(resultObject({ uri: s.string(), path: s.string(), level: s.int(), key: s.string() })) }),
    errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
    body: s.object({ uri: s.uri() }),
    async handler(ctx) {
      const u = parseUri(ctx.body.uri, ctx.identity);
      authorize(u, ctx.identity, 'read');
      const account = ctx.identity.accountId;
      await host.access.assertEntryReadable(ctx.identity, u.path);
      const node = await ctx.vfs.stat(u.uri);
      if (!node) throw notFound(`no such file or directory: ${u.uri}`, { resource: u.uri });
      const expected: Array<{ path: string; level: 0 | 1 | 2 }> = [];
      const consider = (path: string, kind: 'file' | 'dir') => {
        if (!placement(path) || !canReadPath(path, ctx.identity)) return;
        if (kind === 'file') expected.push({ path, level: 2 });
        else expected.push({ path, level: 0 }, { path, level: 1 });
      };
      consider(u.path, node.kind);
      if (node.kind === 'dir')
        for await (const e of ctx.vfs.walk(u.uri, { descend: (d) => canReadPath(d.path, ctx.identity) })) if (!SIDECARS.has(e.name)) consider(e.path, e.kind);
      if (!store.loaded) await store.whenLoaded();
      const inIndex = new Set(store.index.ids({ account, uriPrefixes: [u.uri] }));
      const missing: Array<{ uri: string; path: string; level: number; key: string }> = [];
      for (let i = 0; i < expected.length; i += 512) {
        const chunk = expected.slice(i, i + 512);
        const ids = chunk.map((e) => recordId(account, 'ctx://' + e.path, e.level));
        const docs = await store.loadMany(account, ids);
        chunk.forEach((e, j) => {
          if (!docs[j] || !inIndex.has(ids[j]!)) missing.push({ uri: 'ctx://' + e.path, path: e.path, level: e.level, key: ids[j]! });
        });
      }
      return {
        ok: missing.length === 0,
        expected_count: expected.length,
        missing_record_count: missing.length,
        missing_records_truncated: missing.length > 20,
        missing_records: missing.slice(0, 20),
      };
    },
  });
}
