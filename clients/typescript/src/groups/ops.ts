/** System and observers, admin (accounts, users, keys, migration, gateway proxy), compile and bot chat. */
import type { Transport } from '../transport.js';
import type { BodyOf, QueryOf, RequestOptions } from '../types.js';
import { readSse } from '../sse.js';
import { bare, withBody } from './define.js';

export function systemGroup(t: Transport) {
  return {
    /** `GET /health` (no key needed). */
    health: bare(t, 'getHealth'),
    ready: bare(t, 'getReady'),
    status: bare(t, 'getSystemStatus'),
    /** Waits for the Embedding and Semantic queues to drain. */
    wait: (body: BodyOf<'postSystemWait'> = {}, o?: RequestOptions) => t.call('postSystemWait', { body, ...o }),
    consistency: withBody(t, 'postSystemConsistency', true),
    syncStatus: withBody(t, 'postSystemBackendSyncStatus', true),
    syncRetry: withBody(t, 'postSystemBackendSyncRetry'),
    debugHealth: bare(t, 'getDebugHealth'),
    openapi: bare(t, 'getOpenapiJson'),
    observer: {
      queue: bare(t, 'getObserverQueue'),
      vectordb: bare(t, 'getObserverVectordb'),
      models: bare(t, 'getObserverModels'),
      system: bare(t, 'getObserverSystem'),
      lock: bare(t, 'getObserverLock'),
      retrieval: bare(t, 'getObserverRetrieval'),
    },
  };
}

export function adminGroup(t: Transport) {
  const user = (account_id: string, user_id: string) => ({ account_id, user_id });
  return {
    accounts: {
      list: bare(t, 'getAdminAccounts'),
      create: withBody(t, 'postAdminAccounts'),
      delete: (accountId: string, o?: RequestOptions) => t.call('deleteAdminAccountsAccountId', { path: { account_id: accountId }, ...o }),
    },
    users: {
      list: (accountId: string, o?: RequestOptions) => t.call('getAdminAccountsAccountIdUsers', { path: { account_id: accountId }, ...o }),
      create: (accountId: string, body: BodyOf<'postAdminAccountsAccountIdUsers'>, o?: RequestOptions) =>
        t.call('postAdminAccountsAccountIdUsers', { path: { account_id: accountId }, body, ...o }),
      delete: (accountId: string, userId: string, o?: RequestOptions) => t.call('deleteAdminAccountsAccountIdUsersUserId', { path: user(accountId, userId), ...o }),
      setRole: (accountId: string, userId: string, body: BodyOf<'putAdminAccountsAccountIdUsersUserIdRole'>, o?: RequestOptions) =>
        t.call('putAdminAccountsAccountIdUsersUserIdRole', { path: user(accountId, userId), body, ...o }),
      /** Issues a new key for the user (the old one stops working). */
      rotateKey: (accountId: string, userId: string, o?: RequestOptions) => t.call('postAdminAccountsAccountIdUsersUserIdKey', { path: user(accountId, userId), ...o }),
    },
    migrate: (body: BodyOf<'postAdminMigrate'> = {}, o?: RequestOptions) => t.call('postAdminMigrate', { body, ...o }),
    /** The context gateway's admin API, proxied (`path` after `/admin/`). */
    gateway: {
      get: (path: string, query?: QueryOf<'getAdminContextGatewayPath'>, o?: RequestOptions) => t.call('getAdminContextGatewayPath', { path: { path }, query, ...o }),
      post: (path: string, body: BodyOf<'postAdminContextGatewayPath'>, o?: RequestOptions) => t.call('postAdminContextGatewayPath', { path: { path }, body, ...o }),
      put: (path: string, body: BodyOf<'putAdminContextGatewayPath'>, o?: RequestOptions) => t.call('putAdminContextGatewayPath', { path: { path }, body, ...o }),
      delete: (path: string, o?: RequestOptions) => t.call('deleteAdminContextGatewayPath', { path: { path }, ...o }),
    },
  };
}

export function compileGroup(t: Transport) {
  return {
    /** Starts a compile task; follow it with `tasks.wait`. */
    start: withBody(t, 'postCompile'),
  };
}

/** One bot chat stream event: `{event, data, timestamp}` (spec Part 3). */
export interface BotStreamEvent {
  event: 'reasoning' | 'reasoning_delta' | 'tool_call' | 'tool_result' | 'content_delta' | 'iteration' | 'response' | (string & {});
  data: unknown;
  timestamp?: string | number;
}

export function botGroup(t: Transport) {
  return {
    health: bare(t, 'getBotV1Health'),
    chat: withBody(t, 'postBotV1Chat'),
    /** Streams the answer: yields each event, the last being `response`. `sessionId` is set from X-Bot-Session-ID. */
    chatStream: (body: BodyOf<'postBotV1ChatStream'>, o?: RequestOptions) => {
      const state: { sessionId: string | undefined } = { sessionId: undefined };
      async function* run(): AsyncGenerator<BotStreamEvent> {
        const res = await t.send('postBotV1ChatStream', { body, ...o });
        state.sessionId = res.headers.get('x-bot-session-id') ?? undefined;
        if (!res.body) return;
        for await (const msg of readSse(res.body, o?.signal)) {
          if (msg.data === '[DONE]') return;
          yield JSON.parse(msg.data) as BotStreamEvent;
        }
      }
      return Object.defineProperty(run(), 'sessionId', { get: () => state.sessionId }) as AsyncGenerator<BotStreamEvent> & { readonly sessionId: string | undefined };
    },
    feedback: withBody(t, 'postBotV1Feedback'),
    compile: bare(t, 'postBotV1Compile'),
    compileStatus: (taskId: string, o?: RequestOptions) => t.call('getBotV1CompileTaskId', { path: { task_id: taskId }, ...o }),
    compileCancel: (taskId: string, o?: RequestOptions) => t.call('postBotV1CompileTaskIdCancel', { path: { task_id: taskId }, ...o }),
  };
}
