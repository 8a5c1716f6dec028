/**
 * JSON-RPC framing the plugin needs before a session exists, with no runtime import of the SDK:
 * the SDK (with zod and Ajv) loads on the first `/mcp` request, not at start-up.
 */
import { Reply } from 'ctx/plugin';

export function jsonRpcError(status: number, code: number, message: string): Reply {
  return Reply.json({ jsonrpc: '2.0', error: { code, message }, id: null }, status);
}

/**
 * What a JSON-RPC 2.0 message is, by its shape, or undefined when it is none. The envelope only:
 * the SDK's protocol layer validates each request's params against its method's schema, so a
 * second schema pass over the whole message here (the SDK transport's) was paid twice per call.
 */
export function messageKind(m: unknown): 'request' | 'notification' | 'response' | undefined {
  if (!m || typeof m !== 'object' || Array.isArray(m)) return undefined;
  const o = m as Record<string, unknown>;
  if (o.jsonrpc !== '2.0') return undefined;
  const id = o.id;
  const validId = (typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)));
  if (typeof o.method === 'string') {
    if (o.params !== undefined && (typeof o.params !== 'object' || o.params === null || Array.isArray(o.params))) return undefined;
    if (!('id' in o)) return 'notification';
    return validId ? 'request' : undefined;
  }
  if ('result' in o) return validId && typeof o.result === 'object' && o.result !== null ? 'response' : undefined;
  if ('error' in o) {
    const e = o.error as Record<string, unknown> | null;
    if (!e || typeof e !== 'object' || typeof e.code !== 'number' || typeof e.message !== 'string') return undefined;
    return id === undefined || id === null || validId ? 'response' : undefined;
  }
  return undefined;
}
