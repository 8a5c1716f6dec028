/** Context assembly, archives, commit, memory extraction and usage records. */
import { invalidArgument, notFound, resultObject, s, type PluginHost } from 'ctx/plugin';
import { assembleContext } from './context.js';
import { anyObject, commitSchema, messageSchema } from './shapes.js';
import { extract } from './extract.js';
import { writeMemories } from './memories.js';
import { enabledCategories, POLICY_FIELDS } from './policy.js';
import { uriOf } from './store.js';
import type { SessionMeta } from './types.js';
import { PATH_PARAMS, sessionIdOf, type SessionsKit } from './kit.js';

export function registerArchiveRoutes(host: PluginHost, kit: SessionsKit): void {
  const { store, committer, llm, locate, absent, mustMeta } = kit;
  host.route({
    method: 'GET',
    path: '/api/v1/sessions/{session_id}/context',
    params: PATH_PARAMS,
    summary: 'active messages plus archive overview and abstracts within token_budget',
    query: s.object({ token_budget: s.int().default(128_000) }),
    response: resultObject({
      latest_archive_overview: s.string(),
      pre_archive_abstracts: s.array(resultObject({ archive_id: s.string(), abstract: s.string() })),
      messages: s.array(messageSchema),
      estimatedTokens: s.int(),
      stats: s.record(s.int()),
    }),
    errors: ['NOT_FOUND'],
    async handler(ctx) {
      const budget = ctx.query.token_budget;
      if (budget < 0) throw invalidArgument(`token_budget must be >= 0, got ${budget}`, { field: 'token_budget', value: budget });
      const { id, dir, account } = locate(ctx);
      const meta = await mustMeta(account, dir, id);
      return assembleContext(store, account, dir, meta, budget);
    },
  });

  host.route({
    method: 'GET',
    path: '/api/v1/sessions/{session_id}/archives/{archive_id}',
    params: PATH_PARAMS,
    summary: 'one completed archive: abstract, overview and messages',
    response: resultObject({ archive_id: s.string(), abstract: s.string(), overview: s.string(), messages: s.array(messageSchema) }),
    errors: ['NOT_FOUND', 'INVALID_ARGUMENT'],
    async handler(ctx) {
      const { id, dir, account } = locate(ctx);
      await mustMeta(account, dir, id);
      const name = ctx.params.archive_id!;
      const archive = (await store.archives(account, dir)).find((a) => a.name === name);
      if (!archive?.done) throw notFound(`archive ${name} of session ${id} not found or not completed`, { resource: uriOf(`${dir}/history/${name}`) });
      const [texts] = await store.archiveTexts(account, dir, [name]);
      return { archive_id: name, abstract: texts!.abstract, overview: texts!.overview, messages: await store.archiveMessages(account, dir, name) };
    },
  });

  host.route({
    method: 'POST',
    path: '/api/v1/sessions/{session_id}/commit',
    params: PATH_PARAMS,
    summary: 'archives the live messages now and starts the session_commit task (summary and memory extraction)',
    body: s.object({ keep_recent_count: s.int({ min: 0, max: POLICY_FIELDS.keep_recent_count.max }).optional(), telemetry: s.telemetry() }),
    response: commitSchema,
    errors: ['NOT_FOUND'],
    async handler(ctx) {
      const { id } = locate(ctx);
      const started = await committer.commit(ctx.identity, id, { keepRecent: ctx.body.keep_recent_count });
      if (!started) throw absent(id);
      return started;
    },
  });

  host.route({
    method: 'POST',
    path: '/api/v1/sessions/{session_id}/extract',
    params: PATH_PARAMS,
    summary: 'extracts memories from the live messages now, without archiving them (the reference\'s manual extract)',
    body: s.object({ telemetry: s.telemetry() }),
    response: s.array(resultObject({ category: s.string(), uri: s.string(), action: s.enum(['created', 'updated', 'unchanged'] as const), added: s.array(s.string()), count: s.int() })),
    errors: ['NOT_FOUND'],
    async handler(ctx) {
      const { id, dir, account } = locate(ctx);
      const meta = await mustMeta(account, dir, id);
      const live = await store.live(account, dir);
      const policy = meta.memory_policy;
      const ex = await extract('manual_extract', live, enabledCategories(policy), { llm, summary: false, signal: ctx.signal });
      return writeMemories(ctx.vfs, ctx.identity.userId, ex.memories, { self: policy.self, peer: policy.peer, eventTags: meta.memory_extraction_config.events.tags }, ctx.signal);
    },
  });

  host.route({
    method: 'POST',
    path: '/api/v1/sessions/{session_id}/used',
    params: PATH_PARAMS,
    summary: 'records contexts and a skill the agent actually used (creates a missing session)',
    body: s.object({ contexts: s.array(s.uri({ max: 2048 }), { max: 1000 }).nullable().optional(), skill: anyObject.nullable().optional() }),
    response: resultObject({ session_id: s.string(), contexts_used: s.int(), skills_used: s.int() }),
    errors: ['NOT_FOUND'],
    async handler(ctx) {
      const { id, dir, account } = locate(ctx);
      const contexts = (ctx.body.contexts ?? []).map((u, i) => ctx.vfs.resolve(u, 'read', `contexts[${i}]`).uri);
      const skill = ctx.body.skill;
      let skillName: string | undefined;
      if (skill) {
        if (skill.uri !== undefined && typeof skill.uri !== 'string') throw invalidArgument('skill.uri must be a string', { field: 'skill.uri' });
        if (skill.name !== undefined && typeof skill.name !== 'string') throw invalidArgument('skill.name must be a string', { field: 'skill.name' });
        skillName = typeof skill.uri === 'string' ? ctx.vfs.resolve(skill.uri, 'read', 'skill.uri').uri : (skill.name as string | undefined);
      }
      return store.withLock(account, dir, async (lock) => {
        // A session that does not exist yet is created, as adding a message would.
        const meta = (await store.meta(account, dir)) ?? store.newMeta(ctx.identity, id);
        const uniq = (xs: string[]) => [...new Set(xs)].slice(-1000);
        const next: SessionMeta = {
          ...meta,
          contexts_used: uniq([...meta.contexts_used, ...contexts]),
          skills_used: skillName ? uniq([...meta.skills_used, skillName]) : meta.skills_used,
          used_since_commit: uniq([...(meta.used_since_commit ?? []), ...contexts, ...(skillName ? [skillName] : [])]),
          updated_at: new Date().toISOString(),
        };
        await store.putMeta(account, lock, dir, next);
        return { session_id: id, contexts_used: next.contexts_used.length, skills_used: next.skills_used.length };
      });
    },
  });

}
