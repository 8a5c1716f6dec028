/**
 * Context gateway administration proxy (spec Part 1 "Context gateway administration proxy"):
 * `/api/v1/admin/context-gateway/{path}` is forwarded to `{CTX_GATEWAY_URL}/admin/{path}` for an
 * ADMIN or ROOT caller, with the caller's credentials swapped for the shared admin token and the
 * caller's account. The gateway's status and body come back unchanged, streamed.
 */
import { CtxError, HOST_VERSION, Reply, definePlugin, notFound, s, unavailable, type RouteContext } from 'ctx/plugin';

/** First path segments the gateway's admin API has; anything else is not ours to forward. */
export const FORWARDED = new Set(['overview', 'logs', 'guides', 'upstreams', 'policies', 'keys', 'users', 'tools']);
const PREFIX = '/api/v1/admin/context-gateway/';
/** The gateway authenticates the proxy with this header and scopes what it shows by the next one. */
export const ACCOUNT_HEADER = 'x-ctx-account';
/** Bodies are admin objects; a generous cap still bounds what one request may buffer. */
const BODY_LIMIT = 16 * 1024 * 1024;
/** Caller headers that describe the body; every other one (credentials first) stays here. */
const PASSED_REQUEST_HEADERS = ['content-type', 'accept', 'accept-language'];
/** Gateway headers that describe its body; hop-by-hop and length headers are the transport's. */
const PASSED_RESPONSE_HEADERS = ['content-type', 'content-disposition', 'cache-control', 'allow', 'retry-after', 'etag', 'last-modified'];

/**
 * The decoded segments of the raw path after the prefix, or a 404 naming why they are not
 * forwarded. Raw, not the router's joined parameter: an escaped `/` inside a segment (an id) must
 * stay one segment on the way to the gateway.
 */
export function checkPath(rawPath: string): string[] {
  const path = rawPath.slice(PREFIX.length);
  const segs = path.split('/').map((seg) => {
    try {
      return decodeURIComponent(seg);
    } catch {
      throw notFound(`not a context gateway admin path: ${path}`, { path });
    }
  });
  if (segs.some((s) => s === '..' || s === '.' || s === '')) throw notFound(`not a context gateway admin path: ${path}`, { path });
  if (!FORWARDED.has(segs[0]!)) throw notFound(`unknown context gateway admin path: ${path} (forwarded: ${[...FORWARDED].join(', ')})`, { path });
  return segs;
}

function queryString(query: Record<string, string | string[]>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) for (const one of Array.isArray(v) ? v : [v]) q.append(k, one);
  const text = q.toString();
  return text ? `?${text}` : '';
}

/**
 * A key is issued for one service identity: the caller's own key or a user the account admin names.
 * Both at once is ambiguous (which identity should the gateway key act as?), so it is refused here,
 * as the reference refuses it, instead of letting the gateway pick one silently.
 */
function checkKeyRequest(raw: Buffer): void {
  let body: unknown;
  try {
    body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
  } catch {
    return; // not JSON: the gateway answers for its own body format
  }
  if (body && typeof body === 'object' && !Array.isArray(body) && 'openviking_key' in body && 'user_id' in body)
    throw new CtxError('INVALID_ARGUMENT', 'send `openviking_key` (your own service key) or `user_id` (a user of your account), not both', { field: 'user_id' });
}

/** Any parameters, passed on as they came (repeated keys as arrays). */
const passedQuery = s.record(s.union<string | string[]>([s.string(), s.array(s.string())], 'a value, or several for a repeated key')).describe('forwarded to the gateway unchanged (e.g. logs?limit=)');

export default definePlugin({
  name: 'gateway-proxy',
  version: HOST_VERSION,
  dependsOn: ['system'],
  // The admin token is this plugin's alone: CTX_GATEWAY_ADMIN_TOKEN reaches it here, never in host.config.
  config: s.object({ adminToken: s.string({ min: 32 }).optional() }),
  setup(host) {
    const { url } = host.config.gateway;
    const { adminToken } = host.pluginConfig;
    const base = url?.replace(/\/+$/, '');
    host.readyCheck('context_gateway', () => (base && adminToken ? 'ok' : 'not_configured'));

    async function forward(ctx: RouteContext): Promise<Reply> {
      // Path first: an unknown path is 404 whether or not a gateway is configured.
      const segs = checkPath(ctx.req.path);
      if (ctx.req.method === 'POST' && segs.length === 1 && segs[0] === 'keys') checkKeyRequest(ctx.req.rawBody);
      if (!base) throw unavailable('the context gateway is not enabled (CTX_GATEWAY_URL is not set)');
      if (!adminToken) throw unavailable('the context gateway admin token is not configured (CTX_GATEWAY_ADMIN_TOKEN)');
      const target = `${base}/admin/${segs.map(encodeURIComponent).join('/')}${queryString(ctx.query as Record<string, string | string[]>)}`;
      // identity: fetch would otherwise decode a compressed body under a length it no longer has.
      const headers: Record<string, string> = { authorization: `Bearer ${adminToken}`, [ACCOUNT_HEADER]: ctx.identity.accountId, 'accept-encoding': 'identity' };
      for (const h of PASSED_REQUEST_HEADERS) if (ctx.req.headers[h] !== undefined) headers[h] = ctx.req.headers[h]!;
      const method = ctx.req.method;
      const raw = ctx.req.rawBody;
      // A Buffer is a valid fetch body; the DOM typings only lack the ArrayBufferLike variant.
      const body = method === 'GET' || raw.length === 0 ? undefined : (raw as unknown as Uint8Array<ArrayBuffer>);
      let res: Response;
      try {
        res = await fetch(target, { method, headers, body, signal: ctx.signal, redirect: 'manual' });
      } catch (err) {
        if (ctx.signal.aborted) throw new CtxError('UNAVAILABLE', 'client went away');
        // The target URL can carry a path the operator considers private; the base is theirs to see.
        throw unavailable(`the context gateway is unreachable at ${base}: ${(err as Error).message}`);
      }
      const out: Record<string, string> = {};
      for (const h of PASSED_RESPONSE_HEADERS) {
        const v = res.headers.get(h);
        if (v !== null) out[h] = v;
      }
      const contentType = out['content-type'] ?? 'application/octet-stream';
      if (!res.body) return Reply.raw(Buffer.alloc(0), { status: res.status, contentType, headers: out });
      const length = res.headers.get('content-encoding') ? NaN : Number(res.headers.get('content-length') ?? NaN);
      return Reply.raw(res.body as unknown as AsyncIterable<Uint8Array>, { status: res.status, contentType, headers: out, size: Number.isSafeInteger(length) ? length : undefined });
    }

    for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
      host.route({
        method,
        path: `${PREFIX}{path*}`,
        roles: ['ROOT', 'ADMIN'],
        rawBody: method !== 'GET',
        // The gateway decides what a body means; ctx only carries it (usually JSON).
        bodyType: 'application/json',
        query: passedQuery,
        bodyLimit: BODY_LIMIT,
        summary: `${method} on the context gateway's admin API for the caller's account (status and body passed through)`,
        description:
          'Forwarded to {CTX_GATEWAY_URL}/admin/{path} with the same method, query and body; the caller\'s credentials are replaced by the shared admin token and the caller\'s account. Only first segments overview, logs, guides, upstreams, policies, keys, users, tools are forwarded (others, and paths with "..", 404).',
        reply: { contentType: 'application/json', description: "the gateway's own status and body, unchanged" },
        errors: ['NOT_FOUND', 'UNAVAILABLE', ...(method === 'POST' ? (['INVALID_ARGUMENT'] as const) : [])],
        handler: forward,
      });
    }
  },
});
