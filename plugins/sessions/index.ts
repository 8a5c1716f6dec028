/**
 * Sessions plugin (spec Part 3 "Sessions", "Session info", "Auto-commit policy", "Message"):
 * conversations stored under `ctx://user/{user}/sessions/{id}/`, context assembly within a token
 * budget, and commits that archive messages and extract long-term memories. README.md has the
 * details.
 */
import {
  definePlugin,
  HOST_VERSION,
  invalidArgument,
  isValidId,
  notFound,
  resultObject,
  s,
  type Identity,
  type RouteContext,
} from 'ctx/plugin';
import { assembleContext } from './context.js';
import { ackSchema, anyObject, commitSchema, configSchema, info, infoSchema, messageSchema, policySchema, userSchema } from './shapes.js';
import { Committer, TASK_TYPE } from './commit.js';
import { buildMessage, CONTENT_OR_PARTS, LIMITS, messageBody, messageShape, messageText, type MessageInput } from './messages.js';
import { extract } from './extract.js';
import { writeMemories } from './memories.js';
import { enabledCategories, mergePolicy, parseExtractionConfig, parseMemoryPolicy, POLICY_FIELDS } from './policy.js';
import { autoCommitAllowed, IdleScheduler } from './idle.js';
import { sessionDir, SessionStore, uriOf } from './store.js';
import { messageTokens } from './tokens.js';
import type { Message, SessionMeta } from './types.js';
import { randomBytes, randomUUID } from 'node:crypto';

export interface SessionsService {
  /** The last `n` messages of a session as text, or null when the caller has no such session. */
  recentText(identity: Identity, sessionId: string, n: number): Promise<string[] | null>;
}

declare module 'ctx/plugin' {
  interface Services {
    sessions: SessionsService;
  }
}

const sessionIdOf = (raw: string, field = 'session_id'): string => {
  if (!isValidId(raw)) throw invalidArgument(`${field} is not a valid id (1-128 characters from A-Z a-z 0-9 _ . @ -, starting with a letter or digit, not a reserved word): ${JSON.stringify(raw).slice(0, 140)}`, { field });
  return raw;
};
const newMessageId = () => `msg_${randomBytes(12).toString('hex')}`;

export interface SessionsOptions {
  /** How often the idle auto-commit scheduler scans (ms). Default 60 s. */
  idleScanMs?: number;
}

export const createSessionsPlugin = (opts: SessionsOptions = {}) => definePlugin({
  name: 'sessions',
  version: HOST_VERSION,
  dependsOn: ['tasks'],
  // unscoped-vfs: a message append (messages.jsonl + counters) and a commit (archive + live file +
  // counters) must each be ONE atomic batch under a lock on the session directory, which only the
  // raw VFS offers (`writeFiles`, `locks`). Every path it touches is built from the caller's own
  // identity (`user/{identity.userId}/sessions/...`) and checked with `ctx.vfs.resolve(uri, 'write')`
  // (the host's namespace rules) before any use; memory files are written through the scoped view.
  privileges: ['unscoped-vfs'],
  setup(host) {
    const store = new SessionStore(host.unscopedVfs);
    const llm = host.models.llm();
    const committer = new Committer(host, store, llm);
    host.taskType({ type: TASK_TYPE, cancellable: true, onRestart: 'resume', run: (task, input) => committer.run(task, input) });
    const idle = new IdleScheduler(host.kv, store, committer, host.log, opts.idleScanMs ?? 60_000);
    host.onReady(() => idle.start());
    host.onClose(() => idle.stop());
    // Session files go with the account's VFS; the idle index in this plugin's keyspace is ours to drop.
    host.on('account-deleted', ({ account }) => idle.dropAccount(account));

    /** The caller's session directory, authorized by the host's rules for the caller. */
    const locate = (ctx: RouteContext<unknown, unknown>, raw = ctx.params.session_id!) => {
      const id = sessionIdOf(raw);
      const dir = sessionDir(ctx.identity.userId, id);
      ctx.vfs.resolve(uriOf(dir), 'write');
      return { id, dir, account: ctx.identity.accountId };
    };
    const absent = (id: string) => notFound(`session ${id} not found`, { resource: `ctx://session/${id}`, session_id: id });
    const mustMeta = async (account: string, dir: string, id: string) => {
      const meta = await store.meta(account, dir);
      if (!meta) throw absent(id);
      return meta;
    };

    host.provide('sessions', {
      async recentText(identity, sessionId, n) {
        if (!isValidId(sessionId)) return null;
        const dir = sessionDir(identity.userId, sessionId);
        if (!(await store.meta(identity.accountId, dir))) return null;
        return (await store.live(identity.accountId, dir)).slice(-n).map(messageText).filter(Boolean);
      },
    } satisfies SessionsService);

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

    /** Appends messages (creating the session when missing), then applies the auto-commit policy. */
    async function add(ctx: RouteContext<unknown, unknown>, inputs: MessageInput[], batch: boolean) {
      const { id, dir, account } = locate(ctx);
      const messages: Message[] = inputs.map((m, i) => buildMessage(m, newMessageId(), batch ? `messages[${i}]` : 'body', ctx.identity));
      const tokens = messages.reduce((t, m) => t + messageTokens(m), 0);
      const meta = await store.withLock(account, dir, async (lock) => {
        const current = (await store.meta(account, dir)) ?? store.newMeta(ctx.identity, id);
        return store.append(account, lock, dir, current, messages, tokens);
      });
      let after = meta;
      const policy = meta.auto_commit_policy;
      if (policy && (meta.pending_tokens > policy.pending_token_threshold || meta.message_count > policy.message_count_threshold)) {
        // The messages are durable already: a failed auto commit is logged, never turned into a lost ack.
        try {
          const started = await committer.commit(ctx.identity, id, { keepRecent: policy.keep_recent_count, auto: (m) => autoCommitAllowed(m) });
          if (started?.archived) after = (await store.meta(account, dir)) ?? meta;
        } catch (err) {
          ctx.log.warn('auto commit failed', { session_id: id, error: (err as Error).message });
        }
      }
      await idle.track(ctx.identity, after);
      return { session_id: id, message_count: after.message_count, pending_tokens: after.pending_tokens, ...(batch ? { added: messages.length } : { message_id: messages[0]!.id }) };
    }

    host.route({
      method: 'POST',
      path: '/api/v1/sessions/{session_id}/messages',
      params: PATH_PARAMS,
      summary: 'adds a message (simple mode: content; parts mode: parts); creates the session when missing',
      body: messageBody,
      bodyLimit: LIMITS.messageBytes,
      response: ackSchema,
      handler: (ctx) => add(ctx, [ctx.body], false),
    });

    host.route({
      method: 'POST',
      path: '/api/v1/sessions/{session_id}/messages/batch',
      params: PATH_PARAMS,
      summary: `adds up to ${LIMITS.batch} messages in one atomic write`,
      body: s.object({ messages: s.array(s.object(messageShape).annotate(CONTENT_OR_PARTS), { min: 1, max: LIMITS.batch }), telemetry: s.telemetry() }),
      bodyLimit: LIMITS.messageBytes * 4,
      response: ackSchema,
      errors: ['CONFLICT'],
      handler: (ctx) => add(ctx, ctx.body.messages, true),
    });

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

  },
});

/** A session id as the OpenAPI document states it (runtime/uri/ids.ts checks it; reserved words aside). */
const ID_PATTERN_SOURCE = '^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$';
/** Path parameters as the OpenAPI document states them (the handlers check them). */
const PATH_PARAMS = { session_id: s.string({ min: 1, max: 128 }).annotate({ pattern: ID_PATTERN_SOURCE }) };

export default createSessionsPlugin();
