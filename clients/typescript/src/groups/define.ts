/** Small builders so each group method is one typed line over the generated operation types. */
import type { HttpHeaders, HttpResponse, Transport } from '../transport.js';
import type { BodyOf, OperationId, QueryOf, RequestOptions, ResultOf } from '../types.js';

/** A method taking the operation's query parameters. */
export function withQuery<O extends OperationId>(t: Transport, op: O) {
  return (query: QueryOf<O>, o?: RequestOptions): Promise<ResultOf<O>> => t.call(op, { query, ...o });
}

/** A method taking the operation's JSON body; `idempotent` marks read-only POSTs, which are retried. */
export function withBody<O extends OperationId>(t: Transport, op: O, idempotent = false) {
  return (body: BodyOf<O>, o?: RequestOptions): Promise<ResultOf<O>> => t.call(op, { body, idempotent, ...o });
}

/** A method taking nothing but options. */
export function bare<O extends OperationId>(t: Transport, op: O) {
  return (o?: RequestOptions): Promise<ResultOf<O>> => t.call(op, { ...o });
}

/** A streamed body with what the headers say about it. */
export interface Download {
  stream: ReadableStream<Uint8Array>;
  /** Content-Length, when the server sent one. */
  size: number | undefined;
  /** The attachment's file name, when the server sent one. */
  filename: string | undefined;
  headers: HttpHeaders;
}

export function toDownload(res: HttpResponse): Download {
  const len = res.headers.get('content-length');
  const disp = res.headers.get('content-disposition') ?? '';
  const m = /filename\*=UTF-8''([^;]+)|filename="?([^";]+)"?/i.exec(disp);
  const filename = m ? decodeURIComponent(m[1] ?? m[2] ?? '') : undefined;
  const stream = res.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  return { stream, size: len === null ? undefined : Number(len), filename, headers: res.headers };
}
