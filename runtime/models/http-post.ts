/**
 * A JSON POST over node:http / node:https with a keep-alive agent per endpoint: what the remote
 * model clients send. Not the global `fetch`: undici's per-call machinery (streams, Headers,
 * Response) costs a find with a remote embedder more than the embedder's own work on a small
 * query (bench/RESULTS.md, issue 27, "find"), and one call of a find is all it does.
 */
import http from 'node:http';
import https from 'node:https';
import { stamp, stamping } from './wire-stamps.js';

export interface PostAnswer {
  status: number;
  /** A response header, lower-case name. */
  header(name: string): string | undefined;
  text: string;
}

/** What `post` rejects with when its `timeoutMs` ran out. */
export class PostTimeout extends Error {
  constructor(readonly ms: number) {
    super(`timed out after ${ms} ms`);
    this.name = 'PostTimeout';
  }
}

export class HttpPoster {
  // Sockets kept between calls (idle ones do not hold the process open): a find pays no TCP or
  // TLS handshake.
  private httpAgent?: http.Agent;
  private httpsAgent?: https.Agent;
  /** Each URL parsed once: a client posts to one or two. */
  private readonly targets = new Map<string, { secure: boolean; hostname: string; port: string; path: string }>();

  /**
   * `headers` is taken over (content-length is added). `timeoutMs`: the whole attempt's bound (one timer here rather than `AbortSignal.timeout` and
   * `AbortSignal.any` per call, which a find with a remote embedder paid on every query).
   */
  post(url: string, headers: Record<string, string>, body: string, signal?: AbortSignal, timeoutMs?: number): Promise<PostAnswer> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
      if (stamping) stamp('post.call');
      const t = this.target(url);
      if (!t) return reject(new Error(`not an http(s) URL: ${url}`));
      headers['content-length'] = String(Buffer.byteLength(body));
      const opts = { method: 'POST', hostname: t.hostname, port: t.port, path: t.path, headers };
      const req = t.secure
        ? https.request({ ...opts, agent: (this.httpsAgent ??= new https.Agent({ keepAlive: true })) })
        : http.request({ ...opts, agent: (this.httpAgent ??= new http.Agent({ keepAlive: true })) });
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      const done = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) timer = setTimeout(() => req.destroy(new PostTimeout(timeoutMs)), timeoutMs);
      if (stamping) {
        req.once('socket', () => stamp('post.socket'));
        req.once('finish', () => stamp('post.finish'));
      }
      req.on('response', (res) => {
        if (stamping) stamp('post.response');
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (stamping) stamp('post.body');
          done();
          const h = res.headers;
          resolve({ status: res.statusCode ?? 0, header: (n) => { const v = h[n]; return Array.isArray(v) ? v.join(', ') : v; }, text: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8') });
        });
        res.on('error', (err) => {
          done();
          reject(err);
        });
      });
      req.on('error', (err) => {
        done();
        reject(err);
      });
      req.end(body);
      if (stamping) stamp('post.ended');
    });
  }

  private target(url: string) {
    let t = this.targets.get(url);
    if (!t) {
      const secure = url.startsWith('https:');
      if (!secure && !url.startsWith('http:')) return undefined;
      const u = new URL(url);
      t = { secure, hostname: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: u.port, path: u.pathname + u.search };
      if (this.targets.size > 64) this.targets.clear();
      this.targets.set(url, t);
    }
    return t;
  }

  close(): void {
    this.httpAgent?.destroy();
    this.httpsAgent?.destroy();
  }
}
