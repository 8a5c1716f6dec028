/**
 * Snapshots plugin (spec Part 2, "Snapshots"): commits of an account's tree into a bare git
 * repository per account, their log, their content, and forward-commit restores; plus the
 * account's `.ctxgitignore` (endpoints the spec does not show). README.md describes the choices.
 */
import { definePlugin, HOST_VERSION, Reply, resultObject, s } from 'ctx/plugin';
import { IGNORE_LIMIT, IgnoreStore } from './ignore-rules.js';
import { RESTORE_TASK, Snapshots } from './service.js';

const signature = resultObject({ name: s.string(), email: s.string(), time_seconds: s.int(), tz_offset_seconds: s.int() });
const commitMeta = resultObject({ oid: s.string(), tree: s.string(), parents: s.array(s.string()), author: signature, committer: signature, message: s.string() });
const name = s.string({ min: 1, max: 256, pattern: /^[^<>\n\r\x00]*$/, patternHint: 'no <, > or line breaks' });
const branch = s.string({ min: 1, max: 200 }).annotate({ pattern: '^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$' }).default('main');
const uriErrors = ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'] as const;

export const LOG_LIMIT = { min: 1, max: 500, default: 20 };

export default definePlugin({
  name: 'snapshots',
  version: HOST_VERSION,
  dependsOn: ['fs'],
  // Snapshots read and write through the caller's view; a USER's commit or restore of a subtree
  // holding an entry hidden from them is refused (leaving it out would record a deletion).
  privileges: ['all-account-changes'],
  privilegeReasons: { 'all-account-changes': "an account's tracker notes every path changed since its last snapshot, whoever changed it, so the next whole-tree commit re-reads only those" },
  setup(host) {
    const ignore = new IgnoreStore(host.kv.sub('ignore'));
    const snapshots = new Snapshots(host, host.kv.sub('blobs'), ignore);

    host.on('change', (ev) => snapshots.track(ev));
    host.on('account-deleted', async ({ account }) => {
      await snapshots.dropAccount(account);
      await ignore.remove(account);
    });

    host.taskType({
      type: RESTORE_TASK,
      cancellable: true,
      async run(task, raw) {
        const input = raw as { account: string; path: string };
        await task.setStage('processing_queue');
        const indexing = host.optional('indexing');
        if (!indexing) return { path: input.path, semantic_status: 'deferred', vector_status: 'deferred' };
        // The restored writes queued their index work in their own batches; this follows it to the end.
        return { ...(await indexing.report(input.account, input.path, { wait: true, signal: task.signal })) };
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/snapshot/commit',
      summary: "Commit the account's tree (or some paths of it) to a branch",
      description: 'paths null or absent: the whole account tree (ADMIN/ROOT); [] a no-op; a list: those URIs, directories recursively. Files matched by .ctxgitignore are left out and counted in `ignored`.',
      body: s.object({
        message: s.string({ min: 1, max: 65_536 }),
        paths: s.array(s.uri(), { max: 10_000 }).nullable().optional(),
        branch,
        author_name: name.optional(),
        author_email: name.optional(),
      }),
      response: resultObject({ result: s.enum(['created', 'noop'] as const), commit_oid: s.string().nullable(), changed: s.int().optional(), ignored: s.int() }),
      errors: [...uriErrors],
      async handler(ctx) {
        const b = ctx.body;
        return snapshots.commit(ctx.identity, { message: b.message, paths: b.paths ?? null, branch: b.branch, author_name: b.author_name, author_email: b.author_email });
      },
    });

    host.route({
      method: 'GET',
      path: '/api/v1/snapshot/log',
      summary: "Commits of a branch, newest first along first parents",
      query: s.object({ branch, limit: s.int().default(LOG_LIMIT.default).describe('clamped to 1-500') }),
      response: s.array(commitMeta),
      errors: ['NOT_FOUND'],
      async handler(ctx) {
        const limit = Math.min(LOG_LIMIT.max, Math.max(LOG_LIMIT.min, ctx.query.limit));
        return snapshots.log(ctx.identity.accountId, ctx.query.branch, limit);
      },
    });

    host.route({
      method: 'GET',
      path: '/api/v1/snapshot/show',
      summary: 'A commit’s metadata, or with `path` the raw bytes of one file in it',
      description: 'With `path`: `application/octet-stream` without the envelope, headers X-Snapshot-Oid (blob id) and X-Snapshot-Size (bytes).',
      query: s.object({ target_ref: s.string({ min: 1, max: 200 }).describe('a commit id or a branch (at most 200 characters, as branch names: git cannot hold a longer ref as a file)'), path: s.uri().optional() }),
      response: commitMeta,
      errors: [...uriErrors],
      async handler(ctx) {
        const out = await snapshots.show(ctx.identity, ctx.query.target_ref, ctx.query.path);
        if ('data' in out)
          return Reply.raw(out.data, { contentType: 'application/octet-stream', size: out.data.length, headers: { 'x-snapshot-oid': out.oid, 'x-snapshot-size': String(out.data.length) } });
        return out;
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/snapshot/restore',
      summary: 'Restore a commit (or one directory of it) as a new commit on top of the branch head',
      body: s.object({
        source_commit: s.string({ min: 1, max: 200 }),
        project_dir: s.uri().optional(),
        branch,
        dry_run: s.bool().default(false),
        message: s.string({ min: 1, max: 65_536 }).optional(),
        author_name: name.optional(),
        author_email: name.optional(),
      }),
      response: resultObject({
        result: s.enum(['applied', 'noop', 'dry_run'] as const),
        new_commit_oid: s.string().optional(),
        source_commit: s.string().optional(),
        parent_commit: s.string().nullable().optional(),
        written: s.int().optional(),
        deleted: s.int().optional(),
        unchanged: s.int().optional(),
        written_paths: s.array(s.string()).optional(),
        deleted_paths: s.array(s.string()).optional(),
        task_id: s.string().nullable().optional(),
        head: s.string().nullable().optional(),
        source: s.string().optional(),
        diff: resultObject({ to_write: s.array(resultObject({ path: s.string(), oid: s.string() })), to_delete: s.array(s.string()), unchanged: s.array(s.string()) }).optional(),
      }),
      errors: [...uriErrors],
      async handler(ctx) {
        return snapshots.restore(ctx.identity, ctx.body);
      },
    });

    const ignoreResult = resultObject({ content: s.string(), exists: s.bool(), rules: s.int() });
    host.route({
      method: 'GET',
      path: '/api/v1/snapshot/ignore',
      summary: "The account's .ctxgitignore (not in the spec)",
      response: ignoreResult,
      async handler(ctx) {
        const content = await ignore.read(ctx.identity.accountId);
        return { content: content ?? '', exists: content !== null, rules: (await ignore.rules(ctx.identity.accountId)).rules };
      },
    });

    host.route({
      method: 'PUT',
      path: '/api/v1/snapshot/ignore',
      summary: "Set the account's .ctxgitignore (gitignore syntax, paths relative to ctx://; not in the spec)",
      roles: ['ROOT', 'ADMIN'],
      body: s.object({ content: s.string({ max: IGNORE_LIMIT }) }),
      response: ignoreResult,
      async handler(ctx) {
        const rules = await ignore.write(ctx.identity.accountId, ctx.body.content);
        snapshots.rulesChanged(ctx.identity.accountId);
        return { content: ctx.body.content, exists: true, rules: rules.rules };
      },
    });

    host.route({
      method: 'DELETE',
      path: '/api/v1/snapshot/ignore',
      summary: "Delete the account's .ctxgitignore (not in the spec)",
      roles: ['ROOT', 'ADMIN'],
      response: resultObject({ deleted: s.bool() }),
      async handler(ctx) {
        const deleted = await ignore.remove(ctx.identity.accountId);
        snapshots.rulesChanged(ctx.identity.accountId);
        return { deleted };
      },
    });
  },
});
