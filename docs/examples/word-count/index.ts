/**
 * Example third-party plugin (docs/plugins.md): counts words of files, keeps a running count of
 * writes per account from VFS change events, and offers a background task that counts a subtree.
 */
import { definePlugin } from '../../../runtime/plugin.js';
import { s } from '../../../runtime/schema.js';
import { authorize, parseUri } from '../../../runtime/uri/index.js';

export interface WordCounter {
  count(text: string): number;
}

declare module '../../../runtime/plugin.js' {
  interface Services {
    'word-counter': WordCounter;
  }
}

export default definePlugin({
  name: 'word-count',
  version: '1.0.0',
  dependsOn: ['system'],
  setup(host) {
    const counter: WordCounter = { count: (text) => text.split(/\s+/).filter(Boolean).length };
    host.provide('word-counter', counter);

    const writes = new Map<string, number>();
    host.vfs.on('change', (ev: { type: string; account: string }) => {
      if (ev.type === 'write') writes.set(ev.account, (writes.get(ev.account) ?? 0) + 1);
    });

    host.route({
      method: 'GET',
      path: '/api/v1/x/word-count',
      query: s.object({ uri: s.string({ min: 1 }) }),
      async handler(ctx) {
        const uri = parseUri(ctx.query.uri, ctx.identity);
        authorize(uri, ctx.identity, 'read');
        const text = (await host.vfs.readFile(ctx.identity.accountId, uri.path)).toString('utf8');
        return { uri: uri.uri, words: counter.count(text), writes_seen: writes.get(ctx.identity.accountId) ?? 0 };
      },
    });

    host.taskType({
      type: 'word_count_tree',
      cancellable: true,
      async run(task, input) {
        const { account, path } = input as { account: string; path: string };
        await task.setStage('counting');
        let words = 0;
        let files = 0;
        for await (const entry of host.vfs.walk(account, path)) {
          if (task.signal.aborted) break;
          if (entry.kind !== 'file') continue;
          words += counter.count((await host.vfs.readFile(account, entry.path)).toString('utf8'));
          files++;
        }
        return { files, words };
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/x/word-count/tasks',
      body: s.object({ uri: s.string({ min: 1 }) }),
      async handler(ctx) {
        const uri = parseUri(ctx.body.uri, ctx.identity);
        authorize(uri, ctx.identity, 'read');
        const task = await host.tasks.create('word_count_tree', ctx.identity, { resourceId: uri.uri, input: { account: ctx.identity.accountId, path: uri.path } });
        ctx.status(202);
        return { task_id: task.task_id };
      },
    });
  },
});
