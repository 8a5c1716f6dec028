/**
 * One MCP server per session (the SDK keeps per-connection state in it): tools, resources and
 * prompts, every request run as the identity of the HTTP request that carried it.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { HOST_VERSION, isCtxError, type AbortLike, type Identity, type PluginHost } from 'ctx/plugin';
import { getPrompt, PROMPTS } from './prompts.js';
import { listResources, readResource, RESOURCE_TEMPLATES, subscriptionTarget } from './resources.js';
import { runTool, type CallToolResult, type ToolContext } from './tool.js';
import { TOOLS } from './tools/index.js';

const INSTRUCTIONS =
  'ctx is your long-term context store: shared documents and code (ctx://resources), your memories (ctx://~/memories) and skills (ctx://~/skills), addressed by ctx:// URIs. ' +
  'Before answering from memory, `find` what is stored; `read` a URI at level 0/1 before reading it whole. ' +
  'Save what should outlive the conversation with `remember`; import documents with `add_resource`.';

/** What a session keeps besides the SDK's state: its resource subscriptions (internal paths by URI). */
export interface SessionState {
  subscriptions: Map<string, string>;
  /** Subscribed URIs with a notification about to go out (bursts are coalesced). */
  pending: Set<string>;
}

/** The identity the HTTP request carried (the route's auth), handed over by the transport. */
function identityOf(extra: { authInfo?: { extra?: Record<string, unknown> } }): Identity {
  const identity = extra.authInfo?.extra?.identity as Identity | undefined;
  if (!identity) throw new McpError(ErrorCode.InternalError, 'no caller identity on this request');
  return identity;
}

/** A ctx error on a protocol request (resources, prompts): its code and details as the JSON-RPC error's data. */
function protocolError(err: unknown): never {
  if (isCtxError(err)) throw new McpError(err.code === 'NOT_FOUND' ? -32002 : err.code === 'INVALID_ARGUMENT' || err.code === 'INVALID_URI' ? ErrorCode.InvalidParams : ErrorCode.InternalError, `${err.code}: ${err.message}`, { code: err.code, details: err.details });
  throw err;
}

/**
 * One JSON Schema validator for every session: the SDK builds an Ajv instance per `Server` unless
 * given one (tens of milliseconds of each `initialize`), and ctx never elicits, the one thing the
 * server side validates with it.
 */
let sharedValidator: AjvJsonSchemaValidator | undefined;

/**
 * `tools/call` as a function of its params: what the SDK's handler runs, and what the transport
 * calls directly for a lone `tools/call` (see `HttpSessionTransport.callTool`). Params are checked
 * by hand with the SDK's error code and wording, so both paths answer alike.
 */
export type ToolCaller = (params: unknown, identity: Identity, signal: AbortLike) => Promise<CallToolResult>;

export function toolCaller(host: PluginHost): ToolCaller {
  const byName = new Map(TOOLS.map((t) => [t.name, t]));
  return async (params, identity, signal) => {
    const p = params as { name?: unknown; arguments?: unknown } | undefined;
    if (!p || typeof p !== 'object' || typeof p.name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid tools/call request: params.name must be a string');
    if (p.arguments !== undefined && (typeof p.arguments !== 'object' || p.arguments === null || Array.isArray(p.arguments))) {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid tools/call request: params.arguments must be an object');
    }
    const tool = byName.get(p.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(p.name)}; tools/list names them`);
    return runTool(tool, { identity, signal, host, call: (req) => host.invoke(identity, { ...req, signal }) }, p.arguments);
  };
}

export function createServer(host: PluginHost, state: SessionState, callTool: ToolCaller = toolCaller(host)): Server {
  sharedValidator ??= new AjvJsonSchemaValidator();
  const server = new Server(
    { name: 'ctx', title: 'ctx context store', version: HOST_VERSION },
    { capabilities: { tools: {}, resources: { subscribe: true }, prompts: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: sharedValidator },
  );
  const context = (identity: Identity, signal: AbortSignal): ToolContext => ({
    identity,
    signal,
    host,
    call: (req) => host.invoke(identity, { ...req, signal }),
  });

  const listed = TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.input.toJsonSchema() as unknown as { type: 'object'; [k: string]: unknown },
    annotations: { title: t.title, ...t.annotations },
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, (req, extra) => callTool(req.params, identityOf(extra), extra.signal));

  server.setRequestHandler(ListResourcesRequestSchema, async (req, extra) =>
    listResources(context(identityOf(extra), extra.signal), req.params?.cursor).catch(protocolError),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => readResource(context(identityOf(extra), extra.signal), req.params.uri).catch(protocolError));
  server.setRequestHandler(SubscribeRequestSchema, async (req, extra) => {
    const identity = identityOf(extra);
    // Only what the caller may read now can be subscribed to (the same check as a read).
    const path = await subscriptionTarget(context(identity, extra.signal), req.params.uri).catch(protocolError);
    state.subscriptions.set(req.params.uri, path);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (req) => {
    state.subscriptions.delete(req.params.uri);
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, (req) => getPrompt(req.params.name, req.params.arguments ?? {}));
  return server;
}
