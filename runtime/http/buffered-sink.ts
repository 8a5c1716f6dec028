/**
 * A response collected in memory: what `inject` (tests, tools) and `invoke` (a plugin calling a
 * route as an identity) both hand the pipeline instead of a socket.
 */
import type { ResponseSink } from './types.js';

export interface BufferedResponse {
  sink: ResponseSink;
  /** Settles when the pipeline has ended the response. */
  ended: Promise<void>;
  status(): number;
  headers(): Record<string, string>;
  body(): Buffer;
  /** With `keepJson`: the JSON body as the value the pipeline handed over (no text was made). */
  json(): { value: unknown } | undefined;
}

/**
 * `signal`: the caller going away, seen by the handler as an aborted response. `keepJson`: take
 * JSON bodies as values (for a caller that would only parse them back).
 */
export function bufferedResponse(signal?: AbortSignal, opts: { keepJson?: boolean } = {}): BufferedResponse {
  let json: { value: unknown } | undefined;
  let status = 0;
  let headers: Record<string, string> = {};
  const chunks: Buffer[] = [];
  let resolveEnd!: () => void;
  const ended = new Promise<void>((res) => (resolveEnd = res));
  const sink: ResponseSink = {
    get aborted() {
      return signal?.aborted ?? false;
    },
    onAbort(cb) {
      signal?.addEventListener('abort', cb, { once: true });
    },
    writeHead(s, h) {
      status = s;
      headers = h;
    },
    async write(chunk) {
      chunks.push(Buffer.from(chunk));
    },
    end(chunk) {
      if (chunk !== undefined) chunks.push(Buffer.from(chunk));
      resolveEnd();
    },
  };
  if (opts.keepJson) {
    sink.endJson = (s, h, value) => {
      status = s;
      headers = h;
      json = { value };
      resolveEnd();
    };
  }
  return { sink, ended, status: () => status, headers: () => headers, body: () => (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)), json: () => json };
}
