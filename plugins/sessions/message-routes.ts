/** Messages: one or a batch appended (the session created when missing), then the auto-commit policy applied. */
import { s, type RouteContext, type PluginHost } from 'ctx/plugin';
import { ackSchema } from './shapes.js';
import { buildMessage, CONTENT_OR_PARTS, LIMITS, messageBody, messageShape, type MessageInput } from './messages.js';
import { autoCommitAllowed } from './idle.js';
import { messageTokens } from './tokens.js';
import type { Message } from './types.js';
import { newMessageId, PATH_PARAMS, type SessionsKit } from './kit.js';

export function registerMessageRoutes(host: PluginHost, kit: SessionsKit): void {
  const { store, committer, idle, locate } = kit;
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
    errors: ['CONFLICT'],
    bodyLimit: LIMITS.messageBytes * 4,
    response: ackSchema,
    handler: (ctx) => add(ctx, ctx.body.messages, true),
  });

}
