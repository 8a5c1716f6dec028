/**
 * A JSON POST over node:http / node:https with a keep-alive agent per endpoint: what the remote
 * model clients send. Not the global `fetch`: undici's per-call machinery (streams, Headers,
 * Response) costs a find with a remote embedder more than the embedder's own work on a small
 * query (bench/RESULTS.md, issue 27, "find"), and one call of a find is all it does.
 */
import http from 'node:http';
import https from 'node:https';

export interface PostAnswer {
  status: number;
  /** A response header, lower-case name. */
  header(name: string): string | undefined;
  text: string;
}

export class HttpPoster {
  // Sockets kept between calls (idle ones do not hold the process open): a find pays no TCP or
  // TLS handshake.
  private httpAgent?: http.Agent;
  private httpsAgent?: https.Agent;

  post(url: string, headers: Record<string, string>, body: string, signal?: AbortSignal): Promise<PostAnswer> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
      const secure = url.startsWith('https:');
      if (!secure && !url.startsWith('http:')) return reject(new Error(`not an http(s) URL: ${url}`));
      const opts = { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } };
      const req = secure
        ? https.request(url, { ...opts, agent: (this.httpsAgent ??= new https.Agent({ keepAlive: true })) })
        : http.request(url, { ...opts, agent: (this.httpAgent ??= new http.Agent({ keepAlive: true })) });
      const onAbort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          signal?.removeEventListener('abort', onAbort);
          const h = res.headers;
          resolve({ status: res.statusCode ?? 0, header: (n) => { const v = h[n]; return Array.isArray(v) ? v.join(', ') : v; }, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        });
      });
      req.on('error', (err) => {
        signal?.removeEventListener('abort', onAbort);
        reject(err);
      });
      req.end(body);
    });
  }

  close(): void {
    this.httpAgent?.destroy();
    this.httpsAgent?.destroy();
  }
}
