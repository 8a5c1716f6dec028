/**
 * What a handler may return besides a plain value (which becomes the `{status:'ok', result}` envelope):
 * a non-envelope JSON body (health, ready, proxied bodies), raw bytes or a stream, or an SSE stream.
 */
export type StreamSource = Buffer | string | AsyncIterable<Uint8Array>;

/**
 * A `result` that is already JSON-encoded (for example a large file as a JSON string, from
 * runtime/native.ts). The pipeline hands it the envelope's head and tail and sends the bytes
 * it returns, so a megabyte of text is not decoded, stringified and encoded again. The bytes
 * between head and tail must be one valid JSON value.
 */
export class JsonResult {
  constructor(readonly build: (head: Buffer, tail: Buffer) => Buffer) {}

  /** A value already encoded as JSON bytes. */
  static of(json: Buffer): JsonResult {
    return new JsonResult((head, tail) => Buffer.concat([head, json, tail]));
  }
}

/**
 * A `result` its handler already wrote as JSON text: a small answer on a hot path whose
 * JSON.stringify cost more than the handler's own work (fs/stat: ~3.5 µs of ~50 per request under
 * `perf`, against ~0.5 for the handler writing it out). The pipeline splices the text into the
 * envelope as is; where it needs the envelope as bytes (telemetry, profile) it is a `JsonResult`.
 * The text must be one valid JSON value, and byte-identical to what JSON.stringify would give for
 * the same answer (the handler's own test checks that).
 */
export class JsonText extends JsonResult {
  constructor(readonly text: string) {
    super((head, tail) => Buffer.concat([head, Buffer.from(text), tail]));
  }
}

export class Reply {
  constructor(
    readonly kind: 'json' | 'raw' | 'sse',
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body?: unknown,
    readonly size?: number,
    readonly sse?: (sse: SseWriter) => Promise<void>,
  ) {}

  /** JSON without the envelope. */
  static json(body: unknown, status = 200, headers: Record<string, string> = {}): Reply {
    return new Reply('json', status, headers, body);
  }

  /** Bytes or a stream; pass `size` when known so the transport can use Content-Length and tryEnd. */
  static raw(body: StreamSource, opts: { status?: number; contentType?: string; headers?: Record<string, string>; size?: number } = {}): Reply {
    return new Reply('raw', opts.status ?? 200, { 'content-type': opts.contentType ?? 'application/octet-stream', ...opts.headers }, body, opts.size);
  }

  static sse(run: (sse: SseWriter) => Promise<void>, headers: Record<string, string> = {}): Reply {
    return new Reply('sse', 200, headers, undefined, undefined, run);
  }
}

export interface SseWriter {
  /** Sends one event; resolves when the transport has room for more (backpressure). */
  send(data: unknown, opts?: { event?: string; id?: string }): Promise<void>;
  comment(text: string): Promise<void>;
  readonly closed: boolean;
  readonly signal: AbortSignal;
}

export function formatSse(data: unknown, opts: { event?: string; id?: string } = {}): string {
  let out = '';
  if (opts.id !== undefined) out += `id: ${opts.id}\n`;
  if (opts.event !== undefined) out += `event: ${opts.event}\n`;
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  for (const line of text.split('\n')) out += `data: ${line}\n`;
  return out + '\n';
}

/** `attachment; filename*=UTF-8''<name>` with RFC 5987 encoding, plus an ASCII fallback. */
export function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
