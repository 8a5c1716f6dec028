/**
 * A response collected in memory: what `inject` (tests, tools) and `invoke` (a plugin calling a
 * route as an identity) both hand the pipeline instead of a socket.
 */
import type { AbortLike } from './invoke.js';
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
export function bufferedResponse(signal?: AbortLike, opts: { keepJson?: boolean } = {}): BufferedResponse {
  return new BufferedSink(signal, opts.keepJson === true);
}

/**
 * One object for the sink and its reader, with methods on the prototype: the closures this was
 * made of were created (and, in the bundle, named through `__name`) on every `inject` and
 * `invoke`, twice per MCP tool call.
 */
class BufferedSink implements ResponseSink, BufferedResponse {
  readonly sink: ResponseSink = this;
  readonly ended: Promise<void>;
  endJson?: (status: number, headers: Record<string, string>, body: unknown) => void;
  private statusCode = 0;
  private head: Record<string, string> = {};
  private readonly chunks: Buffer[] = [];
  private kept: { value: unknown } | undefined = undefined;
  private resolveEnd!: () => void;

  constructor(
    private readonly signal: AbortLike | undefined,
    keepJson: boolean,
  ) {
    this.ended = new Promise<void>((res) => (this.resolveEnd = res));
    // Only a sink that keeps JSON has `endJson`: the pipeline serializes for the others.
    if (keepJson) this.endJson = this.keepJsonBody;
  }

  get aborted(): boolean {
    return this.signal?.aborted ?? false;
  }

  onAbort(cb: () => void): void {
    this.signal?.addEventListener('abort', cb, { once: true });
  }

  writeHead(status: number, headers: Record<string, string>): void {
    this.statusCode = status;
    this.head = headers;
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.chunks.push(Buffer.from(chunk));
  }

  end(chunk?: Uint8Array | string): void {
    if (chunk !== undefined) this.chunks.push(Buffer.from(chunk));
    this.resolveEnd();
  }

  private keepJsonBody(status: number, headers: Record<string, string>, value: unknown): void {
    this.statusCode = status;
    this.head = headers;
    this.kept = { value };
    this.resolveEnd();
  }

  status(): number {
    return this.statusCode;
  }

  headers(): Record<string, string> {
    return this.head;
  }

  body(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
  }

  json(): { value: unknown } | undefined {
    return this.kept;
  }
}
