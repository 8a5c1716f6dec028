/**
 * Example third-party plugin (docs/plugins.md): counts words of files, keeps a running count of
 * writes per account from host change events, and offers a background task that counts a
 * subtree. It imports only the SDK (`ctx/plugin`) and reads only through scoped VFS views, so it
 * can never show a caller what the caller may not read.
 */
import { CtxError, SIDECARS, definePlugin, resultObject, s } from 'ctx/plugin';

export interface WordCounter {
  count(text: string): number;
}

declare module 'ctx/plugin' {
  interface Services {
    'word-counter': WordCounter;
  }
}

export default definePlugin({
  name: 'word-count',
  version: '1.0.0',
  hostApi: '^1.0.0',
  dependsOn: ['system'],
  setup(host) {
    const counter: WordCounter = { count: (text) => text.split(/\s+/).filter(Boolean).length };
    host.provide('word-counter', counter);

    // Kept per account, so it is dropped with the account.
    const writes = new Map<string, number>();
    host.on('change', (ev) => {
      if (ev.type === 'write') writes.set(ev.account, (writes.get(ev.account) ?? 0) + 1);
    });
    host.on('account-deleted', ({ account }) => void writes.delete(account));

    host.route({
      method: 'GET',
      path: '/api/v1/x/word-count',
      summary: 'word count of one file the caller can read',
      query: s.object({ uri: s.string({ min: 1 }) }),
      response: resultObject({ uri: s.string(), words: s.int(), writes_seen: s.int() }),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
      async handler(ctx) {
        // ctx.vfs applies the caller's namespace and per-entry rules: 403/404 exactly as content/read.
        const file = await ctx.vfs.stat(ctx.query.uri);
        const text = await ctx.vfs.readText(ctx.query.uri);
        return { uri: file?.uri ?? ctx.query.uri, words: counter.count(text), writes_seen: writes.get(ctx.identity.accountId) ?? 0 };
      },
    });

    host.taskType({
      type: 'word_count_tree',
      cancellable: true,
      async run(task, input) {
        const { uri } = input as { uri: string };
        // The owner's view, with their role as it is now: a subtree they lost access to is skipped.
        const vfs = await task.vfs();
        await task.setStage('counting');
        let words = 0;
        let files = 0;
        for await (const entry of vfs.walk(uri)) {
          if (task.signal.aborted) break;
          // Sidecars (.abstract.md, .overview.md) are the indexer's summaries, not the user's words.
          if (entry.kind !== 'file' || SIDECARS.has(entry.name)) continue;
          words += counter.count(await vfs.readText(entry.uri));
          files++;
        }
        return { files, words };
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/x/word-count/tasks',
      summary: 'count the words of a subtree in the background',
      body: s.object({ uri: s.string({ min: 1 }) }),
      response: resultObject({ task_id: s.string() }),
      successStatus: 202,
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
      async handler(ctx) {
        const dir = await ctx.vfs.stat(ctx.body.uri);
        if (!dir) throw new CtxError('NOT_FOUND', `no such directory: ${ctx.body.uri}`, { resource: ctx.body.uri });
        const task = await host.tasks.create('word_count_tree', ctx.identity, { resourceId: dir.uri, input: { uri: dir.uri } });
        ctx.status(202);
        return { task_id: task.task_id };
      },
    });
  },
});
