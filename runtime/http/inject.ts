/** In-process requests through the real pipeline, for tests and tools. No socket involved. */
import type { Pipeline } from './pipeline.js';
import { bufferedResponse } from './buffered-sink.js';

export interface InjectRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** The caller's address (default 127.0.0.1). */
  remoteAddress?: string;
}

export interface InjectResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  json<T = any>(): T;
}

export async function inject(pipeline: Pipeline, r: InjectRequest): Promise<InjectResponse> {
  const [path, query = ''] = r.url.split(/\?(.*)/s, 2) as [string, string?];
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers ?? {})) headers[k.toLowerCase()] = v;
  let body: Buffer = Buffer.alloc(0);
  if (Buffer.isBuffer(r.body)) body = r.body;
  else if (typeof r.body === 'string') body = Buffer.from(r.body);
  else if (r.body !== undefined) {
    body = Buffer.from(JSON.stringify(r.body));
    headers['content-type'] ??= 'application/json';
  }
  const res = bufferedResponse();
  await pipeline.handle({ method: (r.method ?? 'GET').toUpperCase(), path, query, headers, body, remoteAddress: r.remoteAddress ?? '127.0.0.1' }, res.sink);
  await res.ended;
  const buf = res.body();
  const text = buf.toString('utf8');
  return { status: res.status(), headers: res.headers(), body: buf, text, json: () => JSON.parse(text) };
}
