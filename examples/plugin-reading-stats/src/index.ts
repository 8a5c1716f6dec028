/**
 * reading-stats: which files each user reads, and how often. A plugin kept outside the server, as a
 * third party writes one: it depends on `ctx-plugin-sdk` only, and at run time the server hands it
 * its own copy of the SDK (so `instanceof CtxError` and `Reply` mean the same on both sides).
 *
 * - `GET /api/v1/x/reading-stats/read?uri=` reads a file through `ctx.vfs` (the caller's rights:
 *   403/404 exactly as content/read) and counts the read; a refused or missing read counts as a miss.
 * - `GET /api/v1/x/reading-stats` the caller's statistics (JSON, or `format=markdown`).
 * - `POST /api/v1/x/reading-stats/report` a background task writing the report into the caller's space.
 * - Deleting an account drops its statistics (they are kept under keys that start with the account).
 */
import { CtxError, Reply, definePlugin, resultObject, s, taskStartedSchema, type Identity, type Kv, type ScopedVfs } from 'ctx-plugin-sdk';
import { markdownReport, type Stats } from './report.js';

const TASK = 'reading_stats_report';
const MISSES = '\u0000misses';

/** Keys: account, user, path; the account first so one prefix scan finds everything of an account. */
const userPrefix = (who: Identity) => `${who.accountId}\u0000${who.userId}\u0000`;

interface FileRecord {
  reads: number;
  last_read_at: string;
}

export default definePlugin({
  name: 'reading-stats',
  version: '1.0.0',
  hostApi: '^1.0.0',
  config: s.object({
    /** How many files the statistics and the report list, most read first. */
    topFiles: s.int({ min: 1, max: 1000 }).default(10),
    /** Where the report task writes, in the owner's own space. */
    reportUri: s.string({ min: 1 }).default('ctx://~/resources/reading-stats/report.md'),
  }),
  setup(host) {
    const { topFiles, reportUri } = host.pluginConfig;
    const tally = serialized(host.kv);

    async function stats(who: Identity, top: number): Promise<Stats> {
      const prefix = userPrefix(who);
      const files: Stats['files'] = [];
      let misses = 0;
      for await (const [key, value] of host.kv.scanPrefix(prefix)) {
        const rest = key.slice(prefix.length);
        if (rest === MISSES) misses = Number(value.toString());
        else files.push({ uri: `ctx://${rest}`, ...(JSON.parse(value.toString()) as FileRecord) });
      }
      files.sort((a, b) => b.reads - a.reads || a.uri.localeCompare(b.uri));
      const total = files.reduce((n, f) => n + f.reads, 0);
      return { user: who.userId, total_reads: total, distinct_files: files.length, misses, files: files.slice(0, top) };
    }

    host.route({
      method: 'GET',
      path: '/api/v1/x/reading-stats/read',
      summary: 'read a file the caller may read, and count the read',
      query: s.object({ uri: s.string({ min: 1 }) }),
      response: resultObject({ uri: s.string(), content: s.string(), reads: s.int() }),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
      async handler(ctx) {
        let uri: string;
        let content: string;
        try {
          const node = await ctx.vfs.stat(ctx.query.uri);
          if (!node) throw new CtxError('NOT_FOUND', `no such file: ${ctx.query.uri}`, { resource: ctx.query.uri });
          uri = node.uri;
          content = await ctx.vfs.readText(uri);
        } catch (err) {
          // The host's CtxError is this module's CtxError: the server shares its SDK with plugins.
          if (err instanceof CtxError && (err.code === 'NOT_FOUND' || err.code === 'PERMISSION_DENIED')) await tally.miss(userPrefix(ctx.identity));
          throw err;
        }
        const reads = await tally.read(userPrefix(ctx.identity) + uri.slice('ctx://'.length));
        return { uri, content, reads };
      },
    });

    host.route({
      method: 'GET',
      path: '/api/v1/x/reading-stats',
      summary: "the caller's reading statistics: files read most, reads, misses",
      query: s.object({ top: s.int({ min: 1, max: 1000 }).optional(), format: s.enum(['json', 'markdown'] as const).default('json') }),
      response: resultObject({
        user: s.string(),
        total_reads: s.int(),
        distinct_files: s.int(),
        misses: s.int(),
        files: s.array(resultObject({ uri: s.string(), reads: s.int(), last_read_at: s.string() })),
      }),
      async handler(ctx) {
        const result = await stats(ctx.identity, ctx.query.top ?? topFiles);
        if (ctx.query.format === 'markdown') return Reply.raw(markdownReport(result), { contentType: 'text/markdown; charset=utf-8' });
        return result;
      },
    });

    host.taskType({
      type: TASK,
      cancellable: true,
      async run(task) {
        await task.setStage('writing');
        const owner = task.task.owner;
        const result = await stats({ accountId: owner.account_id, userId: owner.user_id } as Identity, topFiles);
        // The owner's view: the report lands where they may write, or the task fails with their 403.
        const vfs: ScopedVfs = await task.vfs();
        const written = await vfs.writeFile(reportUri, markdownReport(result));
        return { uri: written.uri, files: result.files.length, total_reads: result.total_reads };
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/x/reading-stats/report',
      summary: "write the caller's reading report into their space, in the background",
      response: taskStartedSchema,
      successStatus: 202,
      async handler(ctx) {
        const task = await host.tasks.create(TASK, ctx.identity, { resourceId: reportUri, input: {} });
        ctx.status(202);
        return { task_id: task.task_id };
      },
    });

    host.on('account-deleted', async ({ account }) => {
      const keys: string[] = [];
      for await (const [key] of host.kv.scanPrefix(`${account}\u0000`)) keys.push(key);
      await host.kv.batch(keys.map((k) => host.kv.delOp(k)));
    });
  },
});

/** Read-modify-write counters, one at a time per key (two reads of one file both count). */
function serialized(kv: Kv) {
  const chains = new Map<string, Promise<unknown>>();
  const update = <T>(key: string, fn: (old: Buffer | undefined) => { value: string; result: T }): Promise<T> => {
    const run = (chains.get(key) ?? Promise.resolve()).then(async () => {
      const { value, result } = fn(await kv.get(key));
      await kv.put(key, value);
      return result;
    });
    const tail = run.catch(() => {}).finally(() => {
      if (chains.get(key) === tail) chains.delete(key);
    });
    chains.set(key, tail);
    return run;
  };
  return {
    read: (key: string) =>
      update(key, (old) => {
        const rec: FileRecord = old ? (JSON.parse(old.toString()) as FileRecord) : { reads: 0, last_read_at: '' };
        rec.reads++;
        rec.last_read_at = new Date().toISOString();
        return { value: JSON.stringify(rec), result: rec.reads };
      }),
    miss: (prefix: string) => update(prefix + MISSES, (old) => ({ value: String(Number(old?.toString() ?? 0) + 1), result: undefined })),
  };
}
