/**
 * Bot chat (spec Part 3 "Bot chat", prefix `/bot/v1`): text and image chat over the configured
 * OpenAI-compatible LLM, grounded in the caller's store (relevant contexts from the find route's
 * logic, tools over the caller-scoped VFS), streamed as SSE, with feedback on answers. Served only
 * with `CTX_BOT_ENABLED=true` and an LLM; otherwise every route answers 503.
 */
import { randomUUID } from 'node:crypto';
import { HOST_VERSION, LlmError, Reply, definePlugin, invalidArgument, isCtxError, notFound, resultObject, s, unavailable, type RouteContext } from 'ctx/plugin';
import { runChat, type BotEvent, type ChatInput } from './chat.js';
import { MAX_IMAGES, MAX_IMAGE_URL_CHARS, checkImages, type ChatImage } from './images.js';
import { BotStore } from './store.js';
import type { FindLike } from './tools.js';

/** Four inline images at their largest, base64, plus the message. */
const CHAT_BODY_LIMIT = MAX_IMAGES * MAX_IMAGE_URL_CHARS + 1024 * 1024;
const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const image = s.object({
  type: s.enum(['image_url'] as const),
  image_url: s.object({ url: s.string({ min: 1, max: MAX_IMAGE_URL_CHARS }), detail: s.enum(['auto', 'low', 'high'] as const).optional() }),
});
// Unknown fields are ignored, as the reference bot does: chat clients send channel extras.
const chatBody = s.object(
  {
    message: s.string({ max: 200_000 }).optional(),
    images: s.array(image, { max: MAX_IMAGES }).optional(),
    session_id: s.string({ min: 1, max: 128 }).optional(),
    context: s.array(s.object({ role: s.string({ min: 1, max: 32 }), content: s.string({ max: 200_000 }) }, { unknown: 'strip' }), { max: 200 }).nullable().optional(),
    need_reply: s.bool().optional(),
    disabled_tools: s.array(s.string({ max: 128 }), { max: 64 }).optional(),
    channel_id: s.string({ max: 256 }).nullable().optional(),
    stream: s.bool().optional(),
  },
  { unknown: 'strip' },
);
const feedbackBody = s.object(
  {
    session_id: s.string({ min: 1, max: 128 }),
    response_id: s.string({ min: 1, max: 128 }),
    feedback_type: s.enum(['thumb_up', 'thumb_down', 'rating'] as const),
    feedback_score: s.number().optional(),
    feedback_reason: s.string({ max: 4096 }).optional(),
    feedback_text: s.string({ max: 65_536 }).optional(),
    channel_id: s.string({ max: 256 }).nullable().optional(),
  },
  { unknown: 'strip' },
);
type ChatBody = ReturnType<typeof chatBody.parse>;

const usageSchema = resultObject({ prompt_tokens: s.int(), completion_tokens: s.int(), total_tokens: s.int() });
const eventSchema = resultObject({ event: s.string(), data: s.any(), timestamp: s.string() });
const chatReply = resultObject({
  session_id: s.string(),
  response_id: s.string().nullable(),
  message: s.string(),
  events: s.array(eventSchema),
  relevant_memories: s.array(resultObject({ uri: s.string(), context_type: s.string(), abstract: s.string(), score: s.number() })),
  token_usage: usageSchema,
  timestamp: s.string(),
});

export default definePlugin({
  name: 'bot',
  version: HOST_VERSION,
  dependsOn: ['system'],
  setup(host) {
    const enabled = host.config.botEnabled;
    const llm = enabled ? host.models.llm({ retries: 1 }) : null;
    const store = new BotStore(host.kv);
    host.on('account-deleted', ({ account }) => store.dropAccount(account));
    host.readyCheck('bot', () => (enabled && llm ? 'ok' : 'not_configured'));

    const ready = () => {
      if (!enabled) throw unavailable('bot chat is not enabled on this server (CTX_BOT_ENABLED)');
      if (!llm) throw unavailable('bot chat needs an LLM (CTX_LLM_BASE_URL is not set)');
      return llm;
    };
    const deps = () => ({ llm: ready(), store, log: host.log });
    // Retrieval is optional: without it the bot answers from the conversation and its file tools.
    const finder = () => host.optional('find') as FindLike | undefined;

    function input(ctx: RouteContext<ChatBody>): ChatInput {
      const b = ctx.body;
      const message = b.message ?? '';
      const images = (b.images ?? []) as ChatImage[];
      if (!message.trim() && images.length === 0) throw invalidArgument('message is required when images is empty', { field: 'message' });
      checkImages(images);
      if (b.session_id !== undefined && !SESSION_ID.test(b.session_id)) throw invalidArgument('session_id may hold letters, digits and ._:- only', { field: 'session_id' });
      return {
        message,
        images,
        session_id: b.session_id ?? randomUUID(),
        context: b.context ?? null,
        need_reply: b.need_reply ?? true,
        disabled_tools: b.disabled_tools ?? [],
      };
    }
    const env = (ctx: RouteContext) => ({ vfs: ctx.vfs, identity: ctx.identity, find: finder() });

    host.route({
      method: 'GET',
      path: '/bot/v1/health',
      auth: 'none',
      summary: 'bot chat health (no envelope); 503 when the bot is disabled or has no LLM',
      reply: { contentType: 'application/json', schema: resultObject({ status: s.string(), version: s.string(), timestamp: s.string() }) },
      handler: () => {
        ready();
        return Reply.json({ status: 'healthy', version: HOST_VERSION, timestamp: new Date().toISOString() });
      },
    });

    host.route({
      method: 'POST',
      path: '/bot/v1/chat',
      summary: 'one chat turn: the answer, its events, the relevant contexts and token usage (no envelope)',
      body: chatBody,
      bodyLimit: CHAT_BODY_LIMIT,
      reply: { contentType: 'application/json', schema: chatReply },
      errors: ['INVALID_ARGUMENT', 'UNAVAILABLE'],
      async handler(ctx) {
        const d = deps();
        const inp = input(ctx);
        try {
          return Reply.json(await runChat(d, env(ctx), inp, { stream: false, signal: ctx.signal }));
        } catch (err) {
          if (err instanceof LlmError) throw unavailable(`the LLM failed: ${err.message}`);
          throw err;
        }
      },
    });

    host.route({
      method: 'POST',
      path: '/bot/v1/chat/stream',
      summary: 'one chat turn as Server-Sent Events (`data: {event, data, timestamp}`); X-Bot-Session-ID carries the session',
      description:
        'Events: iteration, reasoning, reasoning_delta, tool_call, tool_result, content_delta, and last response (data: content, response_id, session_id, token_usage). A failure after the stream started ends it with a response event whose data carries error.',
      body: chatBody,
      bodyLimit: CHAT_BODY_LIMIT,
      reply: { contentType: 'text/event-stream' },
      errors: ['INVALID_ARGUMENT', 'UNAVAILABLE'],
      handler(ctx) {
        // Everything that can be refused is refused before the 200 and the first event.
        const d = deps();
        const inp = input(ctx);
        const e = env(ctx);
        return Reply.sse(
          async (sse) => {
            // Deltas are small and ordered by the sink; a client gone mid-write is the signal's business.
            const send = (ev: BotEvent) => void sse.send(ev).catch(() => {});
            try {
              await runChat(d, e, inp, { stream: true, signal: sse.signal, emit: send });
            } catch (err) {
              if (sse.closed) return;
              if (!(err instanceof LlmError) && !isCtxError(err)) host.log.error('bot chat failed mid-stream', { error: err });
              const message = err instanceof LlmError ? `the LLM failed: ${err.message}` : isCtxError(err) ? err.message : 'internal error';
              await sse.send({ event: 'response', data: { content: '', response_id: null, session_id: inp.session_id, error: message }, timestamp: new Date().toISOString() });
            }
          },
          { 'x-bot-session-id': inp.session_id },
        );
      },
    });

    host.route({
      method: 'POST',
      path: '/bot/v1/feedback',
      summary: 'feedback on an answer: thumb_up, thumb_down, or rating with feedback_score (no envelope)',
      body: feedbackBody,
      reply: {
        contentType: 'application/json',
        schema: resultObject({ accepted: s.bool(), response_id: s.string(), session_id: s.string(), feedback_type: s.string(), feedback_delay_sec: s.number(), timestamp: s.string() }),
      },
      errors: ['INVALID_ARGUMENT', 'NOT_FOUND', 'UNAVAILABLE'],
      async handler(ctx) {
        ready();
        const b = ctx.body;
        if (b.feedback_type === 'rating' && b.feedback_score === undefined) throw invalidArgument('feedback_score is required for a rating', { field: 'feedback_score' });
        const { accountId: account, userId: user } = ctx.identity;
        const r = await store.response(account, b.response_id);
        // Another user's or another session's response is as absent as a missing one.
        if (!r || r.user_id !== user || r.session_id !== b.session_id) throw notFound(`no response ${b.response_id} in session ${b.session_id}`, { resource: b.response_id });
        const at = Date.now();
        const delay = Math.round((at - r.created_at) / 10) / 100;
        await store.addFeedback(account, {
          response_id: b.response_id,
          session_id: b.session_id,
          user_id: user,
          feedback_type: b.feedback_type,
          ...(b.feedback_score !== undefined ? { feedback_score: b.feedback_score } : {}),
          ...(b.feedback_reason !== undefined ? { feedback_reason: b.feedback_reason } : {}),
          ...(b.feedback_text !== undefined ? { feedback_text: b.feedback_text } : {}),
          ...(b.channel_id ? { channel_id: b.channel_id } : {}),
          feedback_delay_sec: delay,
          created_at: at,
        });
        return Reply.json({ accepted: true, response_id: b.response_id, session_id: b.session_id, feedback_type: b.feedback_type, feedback_delay_sec: delay, timestamp: new Date(at).toISOString() });
      },
    });
  },
});
