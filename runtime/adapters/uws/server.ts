/**
 * Serves the pipeline over uWebSockets.js. Follows uWS's rules: onAborted before any await, copy
 * everything out of `req` synchronously, accumulate the body from onData (enforcing the route's
 * limit while it streams), cork every write, and stream with tryEnd/onWritable backpressure.
 */
import { CtxError } from '../../errors.js';
import type { Pipeline } from '../../http/pipeline.js';
import { statusLine, type HttpRequestData, type ResponseSink } from '../../http/types.js';
import { uws, type HttpResponse, type ListenSocket, type TemplatedApp } from './index.js';
import { stamp, stamping } from '../../models/wire-stamps.js';

/** `statusLine(status)`, made once per status code. */
const STATUS_LINES = new Map<number, string>();
function statusLineOf(status: number): string {
  let line = STATUS_LINES.get(status);
  if (line === undefined) STATUS_LINES.set(status, (line = statusLine(status)));
  return line;
}

/**
 * Where `endText` encodes a response's text: uWS copies the bytes into the socket's buffer inside
 * `end`, so one buffer serves every response. Encoding here rather than in uWS (which measures the
 * string's UTF-8 length, then writes it) is one pass instead of two, and gives the byte count.
 */
const SCRATCH = Buffer.allocUnsafeSlow(64 * 1024) as Buffer & { utf8Write(s: string, offset: number): number };
/** Texts up to this many UTF-16 units always fit (3 bytes per unit at most). */
const SCRATCH_TEXT = SCRATCH.length / 3;

// `res.cork(fn)` runs fn synchronously: module-level callbacks reading these spare a closure per response.
let corkSink: UwsSink | undefined;
let corkChunk: Uint8Array | string | undefined;
function endCorked(): void {
  corkSink!.endNow(corkChunk);
}

class UwsSink implements ResponseSink {
  aborted = false;
  /** Ended: `res` must not be touched any more (uWS throws on a finished response). */
  finished = false;
  /** Close the connection after the response (a body refused before it was read is still coming). */
  closeAfterEnd = false;
  private abortCbs: Array<() => void> | undefined = undefined;
  private status = 200;
  private headers: Record<string, string> = {};
  private headWritten = false;
  private writableWaiter?: () => void;

  constructor(private readonly res: HttpResponse, private readonly isHead: boolean) {
    res.onAborted(() => {
      this.aborted = true;
      this.writableWaiter?.();
      if (this.abortCbs) for (const cb of this.abortCbs) cb();
    });
  }

  onAbort(cb: () => void): void {
    if (this.aborted) cb();
    else (this.abortCbs ??= []).push(cb);
  }

  writeHead(status: number, headers: Record<string, string>): void {
    this.status = status;
    this.headers = headers;
  }

  private flushHead(): void {
    if (this.headWritten) return;
    this.headWritten = true;
    // uWS writes "HTTP/1.1 200 OK" itself when no status was written: one native call less for most responses.
    if (this.status !== 200) this.res.writeStatus(statusLineOf(this.status));
    const headers = this.headers;
    for (const k in headers) if (k !== 'content-length') this.res.writeHeader(k, headers[k]!);
  }

  write(chunk: Uint8Array): Promise<void> {
    if (this.aborted) return Promise.resolve();
    let ok = true;
    this.res.cork(() => {
      this.flushHead();
      ok = this.res.write(chunk);
    });
    if (ok) return Promise.resolve();
    return new Promise((resolve) => {
      this.writableWaiter = resolve;
      this.res.onWritable(() => {
        this.writableWaiter = undefined;
        // Native callbacks do not drain the microtask queue: resume on the next loop turn.
        setImmediate(resolve);
        return true;
      });
    });
  }

  end(chunk?: Uint8Array | string): void {
    if (this.aborted) return;
    this.finished = true;
    corkSink = this;
    corkChunk = chunk;
    try {
      this.res.cork(endCorked);
    } finally {
      corkSink = undefined;
      corkChunk = undefined;
    }
  }

  endText(text: string): number {
    if (text.length > SCRATCH_TEXT || this.isHead) {
      this.end(text);
      return Buffer.byteLength(text);
    }
    // utf8Write: Buffer#write's native step without its argument checks (Node's own fast path).
    const n = SCRATCH.utf8Write(text, 0);
    this.end(SCRATCH.subarray(0, n));
    return n;
  }

  /** `end` inside the cork. */
  endNow(chunk: Uint8Array | string | undefined): void {
    this.flushHead();
    if (this.isHead) {
      const len = this.headers['content-length'];
      this.res.endWithoutBody(len !== undefined ? Number(len) : chunk === undefined ? undefined : Buffer.byteLength(chunk), this.closeAfterEnd);
    } else this.res.end(chunk, this.closeAfterEnd);
  }

  /** Last resort when even the error response could not be written: drop the connection. */
  close(): void {
    if (this.aborted || this.finished) return;
    this.aborted = true;
    try {
      this.res.cork(() => this.res.close());
    } catch {
      // uWS throws on a response it already considers finished: nothing is left to close.
    }
  }

  /** Known-size body: uWS writes Content-Length itself and we retry unsent tails on onWritable. */
  async endStream(source: AsyncIterable<Uint8Array>, totalSize: number): Promise<void> {
    for await (const chunk of source) {
      if (this.aborted) return;
      let done = false;
      let ok = false;
      const startOffset = this.res.getWriteOffset();
      this.res.cork(() => {
        this.flushHead();
        [ok, done] = this.res.tryEnd(chunk, totalSize);
      });
      if (done) {
        this.finished = true;
        return;
      }
      if (!ok) {
        await new Promise<void>((resolve) => {
          this.writableWaiter = resolve;
          this.res.onWritable((offset) => {
            const rest = chunk.subarray(offset - startOffset);
            let okNow = false;
            let doneNow = false;
            this.res.cork(() => {
              [okNow, doneNow] = this.res.tryEnd(rest, totalSize);
            });
            if (okNow || doneNow) {
              this.writableWaiter = undefined;
              setImmediate(resolve);
            }
            return okNow;
          });
        });
      }
    }
    if (!this.aborted && this.res.getWriteOffset() < totalSize) {
      // The source ended short of its announced size: the only honest thing left is to close.
      this.res.cork(() => this.res.close());
    }
  }
}

/**
 * The request as the pipeline sees it, with the peer's address read only when asked for: uWS
 * answers `getRemoteAddressAsText` with a getpeername(2) per call, a syscall per request that
 * only `/metrics` (loopback check) and handlers reading `ctx.req.remoteAddress` need. It can be
 * read while the response is open; after it ended or was aborted, an address never read is ''.
 * Kept in `peerAddresses`, not in a field: see `requestInfos` in runtime/http/pipeline.ts.
 */
class UwsRequest implements HttpRequestData {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly query: string,
    readonly headers: Record<string, string>,
    readonly body: Buffer,
    readonly received: number,
    private readonly res: HttpResponse,
    private readonly sink: UwsSink,
    readonly bodyReceived: number | undefined,
  ) {}

  get remoteAddress(): string {
    let address = peerAddresses.get(this);
    if (address === undefined) peerAddresses.set(this, (address = this.sink.finished || this.sink.aborted ? '' : Buffer.from(this.res.getRemoteAddressAsText()).toString('latin1')));
    return address;
  }
}

const peerAddresses = new WeakMap<UwsRequest, string>();

/** `req.forEach` runs its callback synchronously: one module-level callback instead of a closure per request. */
let collecting: Record<string, string> | undefined;
function collectHeader(k: string, v: string): void {
  collecting![k] = v;
}

/** Shared by every bodiless request (nothing writes into a request body). */
const EMPTY_BODY = Buffer.alloc(0);

function dispatch(pipeline: Pipeline, data: HttpRequestData, sink: UwsSink): void {
  // Promise continuations started inside a uWS native callback wait for the end of the loop turn
  // (uWS does not drain microtasks per callback). Starting the pipeline from setImmediate lets
  // Node drain them right after each request: +40% throughput and lower latency, measured.
  setImmediate(runPipeline, pipeline, data, sink);
}

function runPipeline(pipeline: Pipeline, data: HttpRequestData, sink: UwsSink): void {
  // handle() answers its own failures with a 500; rejecting means writing that failed as well.
  pipeline.handle(data, sink).catch(() => sink.close());
}

export interface UwsServer {
  port: number;
  close(): void;
}

/** PEM files for HTTPS (uWS SSLApp); absent = plain HTTP. */
export interface UwsTls {
  cert: string;
  key: string;
}

export function listenUws(pipeline: Pipeline, host: string, port: number, tls?: UwsTls): Promise<UwsServer> {
  const app: TemplatedApp = tls ? uws.SSLApp({ cert_file_name: tls.cert, key_file_name: tls.key }) : uws.App();
  app.any('/*', (res, req) => {
    if (stamping) stamp('srv.req');
    const started = performance.now();
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const query = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    collecting = headers;
    req.forEach(collectHeader);
    collecting = undefined;
    const sink = new UwsSink(res, method === 'HEAD');
    const length = headers['content-length'];
    const te = headers['transfer-encoding'];
    const chunked = te !== undefined && /chunked/i.test(te);
    if (!chunked && (length === undefined || length === '0')) {
      dispatch(pipeline, new UwsRequest(method, path, query, headers, EMPTY_BODY, started, res, sink, undefined), sink);
      return;
    }
    const limit = pipeline.bodyLimitFor(method, path);
    const refuse = (err: CtxError) => {
      sink.closeAfterEnd = true;
      pipeline.reject({ method, path, headers }, sink, err, started);
      // Nothing more goes out on this response; the rest of the body is ignored.
      sink.aborted = true;
    };
    if (length !== undefined && Number(length) > limit) {
      refuse(new CtxError('PAYLOAD_TOO_LARGE', `request body of ${length} bytes exceeds the limit of ${limit} bytes`, { limit }));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    let rejected = false;
    res.onData((ab, isLast) => {
      if (rejected) return;
      received += ab.byteLength;
      if (received > limit) {
        rejected = true;
        refuse(new CtxError('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limit} bytes`, { limit }));
        return;
      }
      // uWS neuters the ArrayBuffer after the callback returns: copy it.
      chunks.push(Buffer.from(new Uint8Array(ab).slice()));
      if (isLast && stamping) stamp('srv.body');
      if (isLast) dispatch(pipeline, new UwsRequest(method, path, query, headers, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), started, res, sink, performance.now()), sink);
    });
  });
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket: ListenSocket | false) => {
      if (!socket) return reject(new Error(`cannot listen on ${host}:${port} (address in use or not permitted)`));
      resolve({
        port: uws.us_socket_local_port(socket as never),
        close: () => uws.us_listen_socket_close(socket),
      });
    });
  });
}
