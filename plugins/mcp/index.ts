/**
 * MCP plugin: the Model Context Protocol's Streamable HTTP transport at `/mcp` (SDK
 * `@modelcontextprotocol/sdk`), so agents use ctx through tools, resources and prompts. Every
 * request authenticates as an HTTP request does (the route's `auth`), and every tool runs the
 * host's own routes in process as that caller (`host.invoke`): MCP never reads more than HTTP would.
 * README.md describes the choices.
 */
import { definePlugin, HOST_VERSION, isAncestorPath, s, type Identity, type PluginHost, type RouteContext } from 'ctx/plugin';
import { jsonRpcError, messageKind } from './messages.js';
import type { SessionState } from './server.js';
import { ownerOf, SessionTable, type McpSession } from './sessions.js';
import type { HttpSessionTransport } from './transport.js';

const SESSION_HEADER = 'mcp-session-id';
const REPLY_DOC = {
  contentType: 'application/json',
  description: 'JSON-RPC 2.0 (MCP Streamable HTTP): a JSON response, or text/event-stream for the GET stream; Mcp-Session-Id names the session',
};

export default definePlugin({
  name: 'mcp',
  version: HOST_VERSION,
  privileges: ['all-account-changes'],
  privilegeReasons: {
    'all-account-changes': 'resource subscriptions of every connected caller: a change is matched to the sessions of its own account and sent only to subscribers who may read it',
  },
  // No dependencies: tools reach other plugins only through their routes (host.invoke) at call
  // time, so a deployment without one of them answers its tools with NOT_FOUND instead of failing
  // to start.
  // Its own section: `plugins.mcp` in the config file, CTX_PLUGIN_MCP_<KEY> in the environment.
  config: s.object({
    maxSessions: s.int({ min: 1, max: 1_000_000 }).default(1000).describe('MCP sessions open at once; a new one beyond is refused (429)'),
    maxSessionsPerUser: s.int({ min: 1, max: 100_000 }).default(32).describe('per user; a new one beyond closes that user\'s least recently used'),
    sessionIdleMinutes: s.int({ min: 1, max: 10_080 }).default(30).describe('a session unused this long is closed'),
  }),
  setup(host) {
    const cfg = host.pluginConfig;
    const sessions = new SessionTable({ maxSessions: cfg.maxSessions, maxSessionsPerUser: cfg.maxSessionsPerUser, idleMs: cfg.sessionIdleMinutes * 60_000 });
    const sweeper = setInterval(() => void sessions.sweep().catch((err) => host.log.warn('mcp session sweep failed', { error: err })), Math.min(60_000, cfg.sessionIdleMinutes * 15_000));
    sweeper.unref();
    host.onClose(async () => {
      clearInterval(sweeper);
      await sessions.closeAll();
    });

    host.on('change', (ev) => notifySubscribers(host, sessions, ev));
    host.observer('mcp', () => ({ name: 'mcp', is_healthy: true, has_errors: false, status: `sessions: ${sessions.size} of ${cfg.maxSessions}` }));

    const lookup = (ctx: RouteContext): McpSession | undefined => {
      const id = ctx.req.headers[SESSION_HEADER];
      return id === undefined ? undefined : sessions.get(id, ctx.identity);
    };
    const notFound = () => jsonRpcError(404, -32001, 'Session not found');

    host.route({
      method: 'POST',
      path: '/mcp',
      summary: 'MCP Streamable HTTP: JSON-RPC messages from the client (initialize opens a session bound to the caller)',
      description: 'The Model Context Protocol endpoint (docs/mcp.md). Send `Accept: application/json, text/event-stream`; after `initialize`, send the `Mcp-Session-Id` the server returned. A session is usable only by the identity that opened it.',
      rawBody: true,
      bodyType: 'application/json',
      reply: REPLY_DOC,
      errors: ['INVALID_ARGUMENT', 'NOT_FOUND', 'RESOURCE_EXHAUSTED'],
      async handler(ctx) {
        let body: unknown;
        try {
          body = JSON.parse(ctx.req.rawBody.toString('utf8'));
        } catch {
          return jsonRpcError(400, -32700, 'Parse error: Invalid JSON');
        }
        if (ctx.req.headers[SESSION_HEADER] !== undefined) {
          const s = lookup(ctx);
          return s ? s.transport.post(ctx, ctx.identity, body) : notFound();
        }
        const messages = Array.isArray(body) ? body : [body];
        if (!messages.some((m) => messageKind(m) === 'request' && (m as { method: string }).method === 'initialize')) return jsonRpcError(400, -32000, 'Bad Request: no Mcp-Session-Id header, and this is not an initialize request');
        if (!(await sessions.makeRoom(ctx.identity))) return jsonRpcError(429, -32000, `Too many MCP sessions are open (${cfg.maxSessions}); try again later`);
        return open(host, sessions, ctx, body);
      },
    });

    host.route({
      method: 'GET',
      path: '/mcp',
      summary: 'MCP Streamable HTTP: the session\'s server-to-client event stream (resource updates)',
      reply: { ...REPLY_DOC, contentType: 'text/event-stream' },
      // 400 without Mcp-Session-Id, 404 for a session that is not (or no longer) open: JSON-RPC error bodies.
      errors: ['INVALID_ARGUMENT', 'NOT_FOUND'],
      async handler(ctx) {
        if (ctx.req.headers[SESSION_HEADER] === undefined) return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
        const s = lookup(ctx);
        return s ? s.transport.open(ctx) : notFound();
      },
    });

    host.route({
      method: 'DELETE',
      path: '/mcp',
      summary: 'MCP Streamable HTTP: ends the session named by Mcp-Session-Id',
      reply: REPLY_DOC,
      errors: ['INVALID_ARGUMENT', 'NOT_FOUND'],
      async handler(ctx) {
        if (ctx.req.headers[SESSION_HEADER] === undefined) return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
        const s = lookup(ctx);
        return s ? s.transport.end(ctx) : notFound();
      },
    });
  },
});

/**
 * The SDK side of a session (its `Server`, zod and Ajv: a good part of what a fresh server would
 * otherwise load and hold) is imported when the first session opens.
 */
let sessionModules: Promise<[typeof import('./server.js'), typeof import('./transport.js')]> | undefined;

async function open(host: PluginHost, sessions: SessionTable, ctx: RouteContext, body: unknown) {
  const [{ createServer, toolCaller }, { HttpSessionTransport }] = await (sessionModules ??= Promise.all([import('./server.js'), import('./transport.js')]));
  const identity = ctx.identity;
  const state: SessionState = { subscriptions: new Map(), pending: new Set() };
  const callTool = toolCaller(host);
  const server = createServer(host, state, callTool);
  const transport: HttpSessionTransport = new HttpSessionTransport({
    onInitialized: (id) => {
      sessions.add({ id, owner: ownerOf(identity), account: identity.accountId, transport, server, state, identity, lastSeen: Date.now() });
    },
    onClosed: (id) => void sessions.close(id),
  }, callTool);
  await server.connect(transport);
  const reply = await transport.post(ctx, identity, body);
  // An initialize the transport refused leaves no session: let go of the server at once.
  if (transport.sessionId === undefined) await server.close().catch(() => {});
  return reply;
}

/** Resource subscriptions: a change at or below a subscribed path, readable by the subscriber, notifies. */
function notifySubscribers(host: PluginHost, sessions: SessionTable, ev: { account: string; path: string; from?: string; paths?: string[] }) {
  const changed = [ev.path, ...(ev.from ? [ev.from] : []), ...(ev.paths ?? [])];
  for (const s of sessions.all()) {
    if (s.account !== ev.account || s.state.subscriptions.size === 0) continue;
    for (const [uri, path] of s.state.subscriptions) {
      const hit = changed.find((p) => p === path || path === '' || isAncestorPath(path, p));
      if (hit === undefined) continue;
      void notifyIfReadable(host, s, uri, hit);
    }
  }
}

/** Changes arrive in bursts (a file, its parents, then the indexer's sidecars): one notification per URI per burst. */
const COALESCE_MS = 50;

async function notifyIfReadable(host: PluginHost, s: McpSession, uri: string, path: string): Promise<void> {
  try {
    const identity: Identity = s.identity;
    if (!(await host.access.canReadPath(identity, path))) return;
    const pending = s.state.pending;
    if (pending.has(uri)) return;
    pending.add(uri);
    setTimeout(() => {
      pending.delete(uri);
      if (s.state.subscriptions.has(uri)) void s.server.sendResourceUpdated({ uri }).catch((err) => host.log.debug('mcp resource notification not sent', { error: err }));
    }, COALESCE_MS).unref();
  } catch (err) {
    host.log.debug('mcp resource notification not sent', { error: err });
  }
}
