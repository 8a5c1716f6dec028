/** Transport-neutral request: the uWS adapter and `inject()` both build one, so tests exercise the real pipeline. */
export interface HttpRequestData {
  /** Upper-case method. */
  method: string;
  /** Raw path as sent, without the query string (not percent-decoded). */
  path: string;
  /** Raw query string without the leading '?'. */
  query: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: Buffer;
  remoteAddress: string;
  /**
   * `performance.now()` when the transport saw the request (the socket adapter sets it): `?profile=1`
   * then shows the time before the pipeline started (`queued`), so the time before the handler is
   * measured from the socket, not from the pipeline.
   */
  received?: number;
  /** `performance.now()` when the last piece of a streamed body arrived (`?profile=1` shows `body`). */
  bodyReceived?: number;
}

/**
 * Where a response goes. `write` resolves when the transport has room again, so streams honour
 * backpressure; `end` finishes the response. After `aborted` is true every call is a no-op.
 */
export interface ResponseSink {
  readonly aborted: boolean;
  onAbort(cb: () => void): void;
  writeHead(status: number, headers: Record<string, string>): void;
  write(chunk: Uint8Array): Promise<void>;
  end(chunk?: Uint8Array | string): void;
  /**
   * `end(text)` returning the body's size in UTF-8 bytes, when the transport encodes the text
   * itself anyway (uWS: into a reused buffer, one pass): the size metric then costs no second pass
   * over the text (`Buffer.byteLength` was ~600 instructions per fs/stat: bench/RESULTS.md, ops7).
   */
  endText?(text: string): number;
  /** Ends with a body of known size streamed in pieces (uses tryEnd on uWS). */
  endStream?(source: AsyncIterable<Uint8Array>, totalSize: number): Promise<void>;
  /**
   * Ends with a JSON body as the value, not its text: for an in-process caller that would parse the
   * text straight back (`invoke`). Only bodies the pipeline would serialize with JSON.stringify come
   * here; the caller must treat the value as read-only (it may be the handler's own object).
   */
  endJson?(status: number, headers: Record<string, string>, body: unknown): void;
}

export const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 206: 'Partial Content',
  304: 'Not Modified', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 408: 'Request Timeout', 409: 'Conflict', 412: 'Precondition Failed',
  413: 'Payload Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity', 429: 'Too Many Requests',
  500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function statusLine(status: number): string {
  return `${status} ${STATUS_TEXT[status] ?? 'Status'}`;
}
