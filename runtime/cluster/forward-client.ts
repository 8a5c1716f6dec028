/**
 * The HTTP client a node forwards requests with (request-gate.ts): one keep-alive `node:http` agent
 * per target node, the body sent as one Buffer with its length, the answer read into one Buffer.
 *
 * Why not `fetch`: a forwarded write is one small request on the write path of every node that
 * does not lead its shard, and undici's `fetch` (a Request clone, header objects, body and response
 * streams) cost ~1 ms more per hop than this on this machine (docs/scale-out.md, "What a write
 * costs"). Only the target's status, headers and body are needed, all at once.
 */
import http from 'node:http';

export interface ForwardAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * uWebSockets.js closes an idle HTTP connection after 10 s: a pooled socket is dropped here well
 * before, so a request rarely meets a socket the target is closing (and retries once when it does).
 */
const FREE_SOCKET_MS = 4000;
/** Per target: enough for the concurrent forwards of a busy node, bounded so a slow leader cannot take every descriptor. */
const MAX_SOCKETS = 64;

const agents = new Map<string, http.Agent>();

function agentFor(origin: string): http.Agent {
  let a = agents.get(origin);
  if (!a) {
    a = new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: MAX_SOCKETS, timeout: FREE_SOCKET_MS, scheduling: 'lifo', noDelay: true } as http.AgentOptions);
    agents.set(origin, a);
  }
  return a;
}

function once(target: URL, method: string, headers: Record<string, string>, body: Buffer | undefined, timeoutMs: number): Promise<ForwardAnswer & { reused: boolean }> {
  return new Promise((resolve, reject) => {
    const h: Record<string, string | number> = { ...headers };
    if (body) h['content-length'] = body.length;
    const req = http.request({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method, headers: h, agent: agentFor(target.origin) });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(Object.assign(err, { reused: req.reusedSocket }));
    });
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      res.once('end', () => {
        clearTimeout(timer);
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 502, headers: out, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), reused: req.reusedSocket });
      });
    });
    req.end(body);
  });
}

/**
 * One request to `target` (an absolute http URL). A pooled connection the target closed while idle
 * fails before any byte of the request was processed: that one case is retried once on a new socket.
 */
export async function forwardRequest(target: string, method: string, headers: Record<string, string>, body: Buffer | undefined, timeoutMs: number): Promise<ForwardAnswer> {
  const url = new URL(target);
  try {
    return await once(url, method, headers, body, timeoutMs);
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { reused?: boolean };
    if (!e.reused || (e.code !== 'ECONNRESET' && e.code !== 'EPIPE')) throw err;
    return once(url, method, headers, body, timeoutMs);
  }
}

/** Drops the pooled connections (a node closing). */
export function closeForwardAgents(): void {
  for (const a of agents.values()) a.destroy();
  agents.clear();
}
