/**
 * `httpFetch`: the client's requests over node:http / node:https instead of the global fetch.
 * Node's fetch is undici, loaded on first use: in a short-lived process (the `ctx` CLI) that load is
 * most of a command's wall time. Pass it as `new CtxClient({ fetch: httpFetch })`.
 * Bodies it does not send itself (FormData, Blob, streams: uploads) go to the global fetch, which is
 * only loaded then.
 */
import http from 'node:http';
import { Readable } from 'node:stream';
import type { FetchInit, FetchLike, HttpHeaders, HttpResponse } from '../transport.js';

export const httpFetch: FetchLike = (url, init = {}) => {
  const { body, headers } = init;
  const simpleBody = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer;
  const plainHeaders = headers === undefined || (typeof headers === 'object' && Object.getPrototypeOf(headers) === Object.prototype);
  if (!simpleBody || !plainHeaders) return globalThis.fetch(url, init);
  return send(url, init, headers as Record<string, string> | undefined, body as string | Uint8Array | ArrayBuffer | null | undefined);
};

function send(url: string, init: FetchInit, headers: Record<string, string> | undefined, body: string | Uint8Array | ArrayBuffer | null | undefined): Promise<HttpResponse> {
  const target = new URL(url);
  const payload = body == null ? undefined : typeof body === 'string' ? Buffer.from(body) : body instanceof ArrayBuffer ? Buffer.from(body) : body;
  const h: Record<string, string> = { ...headers };
  if (payload) h['content-length'] = String(payload.byteLength);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.reject(new TypeError(`unsupported protocol ${target.protocol}`));
  // node:https brings TLS and crypto: loaded only for an https URL.
  const lib = target.protocol === 'https:' ? import('node:https').then((m) => m.default) : Promise.resolve(http);
  return lib.then((lib) => new Promise<HttpResponse>((resolve, reject) => {
    const req = lib.request(target, { method: init.method ?? 'GET', headers: h, signal: init.signal ?? undefined }, (msg) => resolve(new NodeResponse(msg)));
    // Shaped as fetch's failure (TypeError with the system error as cause), so callers see one kind.
    req.once('error', (err) => reject(err.name === 'AbortError' ? err : new TypeError('fetch failed', { cause: err })));
    req.end(payload);
  }));
}

class NodeResponse implements HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: HttpHeaders;
  private stream: ReadableStream<Uint8Array> | undefined;

  constructor(private readonly msg: http.IncomingMessage) {
    this.status = msg.statusCode ?? 0;
    this.statusText = msg.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
    this.headers = {
      get: (name) => {
        const v = msg.headers[name.toLowerCase()];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      },
    };
  }

  get body(): ReadableStream<Uint8Array> {
    return (this.stream ??= Readable.toWeb(this.msg) as unknown as ReadableStream<Uint8Array>);
  }

  async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const c of this.msg) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}
