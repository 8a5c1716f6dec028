/** Sessions themselves: create, list, info, config and delete. */
import { resultObject, s, type PluginHost } from 'ctx/plugin';
import { anyObject, configSchema, info, infoSchema, policySchema, userSchema } from './shapes.js';
import { mergePolicy, parseExtractionConfig, parseMemoryPolicy } from './policy.js';
import { sessionDir, uriOf } from './store.js';
import { randomUUID } from 'node:crypto';
import { ID_PATTERN_SOURCE, PATH_PARAMS, sessionIdOf, type SessionsKit } from './kit.js';

export function registerSessionRoutes(host: PluginHost, kit: SessionsKit): void {
  const { store, idle, locate, absent, mustMeta } = kit;
  host.route({
    method: 'POST',
    path: '/api/v1/sessions',
    summary: 'creates a session (session_id generated when absent)',
    body: s.object({
      session_id: s.string({ max: 128 }).annotate({ pattern: ID_PATTERN_SOURCE }).optional(),
      memory_policy: anyObject.nullable().optional(),
      auto_commit_policy: anyObject.nullable().optional(),
      memory_extraction_config: anyObject.nullable().optional(),
      telemetry: s.telemetry(),
    }),
    response: resultObject({ session_id: s.string(), uri: s.string(), user: userSchema, auto_commit_policy: policySchema.nullable() }),
    errors: ['CONFLICT'],
    async handler(ctx) {
      const body = ctx.body;
      const { id, dir, account } = locate(ctx, body.session_id ?? randomUUID());
      const meta = store.newMeta(ctx.identity, id);
      meta.memory_policy = parseMemoryPolicy(body.memory_policy, ctx.log);
      if (body.auto_commit_policy !== undefined) meta.auto_commit_policy = mergePolicy(null, body.auto_commit_policy);
      if (body.memory_extraction_config) {
        const tags = parseExtractionConfig(body.memory_extraction_config).tags;
        if (tags) meta.memory_extraction_config.events.tags = tags;
      }
      await store.create(account, dir, meta);
      return { session_id: id, uri: uriOf(dir), user: meta.user, auto_commit_policy: meta.auto_commit_policy };
    },
  });

  host.route({
    method: 'GET',
    path: '/api/v1/sessions',
    summary: 'the caller\'s sessions',
    response: s.array(resultObject({ session_id: s.string(), uri: s.string(), is_dir: s.bool() })),
    async handler(ctx) {
      const ids = await store.list(ctx.identity.accountId, ctx.identity.userId);
      return ids.map((id) => ({ session_id: id, uri: uriOf(sessionDir(ctx.identity.userId, id)), is_dir: true }));
    },
  });

  host.route({
    method: 'GET',
    path: '/api/v1/sessions/{session_id}',
    params: PATH_PARAMS,
    summary: 'session info; NOT_FOUND when absent unless auto_create',
    query: s.object({ auto_create: s.bool().default(false) }),
    response: infoSchema,
    errors: ['NOT_FOUND'],
    async handler(ctx) {
      const { id, dir, account } = locate(ctx);
      let meta = await store.meta(account, dir);
      if (!meta && ctx.query.auto_create) {
        try {
          await store.create(account, dir, store.newMeta(ctx.identity, id));
        } catch (err) {
          // Created concurrently by another request: what it wrote is the session.
          if ((err as { code?: string }).code !== 'CONFLICT') throw err;
        }
        meta = await store.meta(account, dir);
      }
      if (!meta) throw absent(id);
      return info(meta, dir);
    },
  });

  host.route({
    method: 'PATCH',
    path: '/api/v1/sessions/{session_id}/config',
    params: PATH_PARAMS,
    summary: 'updates memory_extraction_config and auto_commit_policy (merge; null disables the policy)',
    body: s.object({
      memory_extraction_config: anyObject.optional(),
      auto_commit_policy: anyObject.nullable().optional(),
      telemetry: s.telemetry(),
    }),
    response: configSchema,
    errors: ['NOT_FOUND'],
    async handler(ctx) {
      const { id, dir, account } = locate(ctx);
      const body = ctx.body;
      // Validated before the session is looked at: a bad body is 400 whether the session exists or not.
      const tags = body.memory_extraction_config ? parseExtractionConfig(body.memory_extraction_config).tags : undefined;
      if (body.auto_commit_policy) mergePolicy(null, body.auto_commit_policy);
      return store.withLock(account, dir, async (lock) => {
        const meta = await mustMeta(account, dir, id);
        const next = { ...meta, memory_extraction_config: { events: { tags: tags ?? meta.memory_extraction_config.events.tags } } };
        if (body.auto_commit_policy !== undefined) next.auto_commit_policy = mergePolicy(meta.auto_commit_policy, body.auto_commit_policy);
        if (tags !== undefined || body.auto_commit_policy !== undefined) {
          next.updated_at = new Date().toISOString();
          await store.putMeta(account, lock, dir, next);
          await idle.track(ctx.identity, next);
        }
        return { session_id: id, memory_extraction_config: next.memory_extraction_config, auto_commit_policy: next.auto_commit_policy };
      });
    },
  });

  host.route({
    method: 'DELETE',
    path: '/api/v1/sessions/{session_id}',
    params: PATH_PARAMS,
    summary: 'deletes a session with its messages and archives (extracted memories stay); absent is fine',
    response: resultObject({ session_id: s.string() }),
    async handler(ctx) {
      const { id, dir, account } = locate(ctx);
      // Idempotent, as in the reference: deleting a session that is not there is not an error.
      await store.remove(account, dir);
      await idle.untrack(account, ctx.identity.userId, id);
      return { session_id: id };
    },
  });

}
