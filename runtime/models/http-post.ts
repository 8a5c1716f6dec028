/**
 * A JSON POST over HTTP/1.1 on kept-alive sockets (net / tls), with the request written in the
 * caller's own tick and a minimal response reader: what the remote model clients send. Not the
 * global `fetch` (undici's per-call streams, Headers and Response cost a find more than the
 * embedder's own work on a small query), and not node:http either: building its ClientRequest
 * took ~0.1-0.25 ms of a find's serial part and its Agent writes on a later tick, while the
 * protocol a model endpoint speaks here is one request and one answer (bench/RESULTS.md, issue 27,
 * "speed6"). The reader handles what servers send: content-length, chunked, or until close; 1xx
 * answers skipped; `connection: close` honoured. No compression is asked for.
 */
import net from 'node:net';
import tls from 'node:tls';
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

interface Target {
  secure: boolean;
  hostname: string;
  port: number;
  path: string;
  /** The Host header and the key of the idle sockets. */
  host: string;
}

/** Status line and headers larger than this are not a model endpoint's answer. */
const MAX_HEAD = 64 * 1024;
/** Idle sockets kept per origin (the endpoint's semaphore bounds how many are busy). */
const MAX_IDLE = 16;

export class HttpPoster {
  private readonly idle = new Map<string, net.Socket[]>();
  /** Each URL parsed once: a client posts to one or two. */
  private readonly targets = new Map<string, Target>();
  private closed = false;

  /** `tlsOptions.ca`: trust these certificates instead of the system's (a private model gateway's CA). */
  constructor(private readonly tlsOptions: Pick<tls.ConnectionOptions, 'ca'> = {}) {}

  /**
   * `headers` is taken over (host and content-length are added). `timeoutMs`: the whole attempt's
   * bound (one timer here rather than `AbortSignal.timeout` and `AbortSignal.any` per call).
   */
  post(url: string, headers: Record<string, string>, body: string, signal?: AbortSignal, timeoutMs?: number): Promise<PostAnswer> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
      if (stamping) stamp('post.call');
      const t = this.target(url);
      if (!t) return reject(new Error(`not an http(s) URL: ${url}`));
      let head = `POST ${t.path} HTTP/1.1\r\nhost: ${t.host}\r\n`;
      for (const k in headers) {
        // What node:http refused for us: a CR or LF in a configured header (an API key pasted
        // with its newline) would end the head early or smuggle a second request.
        if (/[\r\n]/.test(k) || /[\r\n]/.test(headers[k]!)) return reject(new Error(`header ${JSON.stringify(k)} holds a line break`));
        head += `${k}: ${headers[k]}\r\n`;
      }
      const request = Buffer.from(`${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      let current: net.Socket | undefined;
      const finish = (err: unknown, answer?: PostAnswer) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve(answer!);
      };
      const onAbort = () => {
        current?.destroy();
        finish(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          current?.destroy();
          finish(new PostTimeout(timeoutMs));
        }, timeoutMs);
      }
      const attempt = (reused: boolean, socket: net.Socket) => {
        current = socket;
        if (stamping) stamp('post.socket');
        exchange(socket, request, (err, answer, keep) => {
          if (settled) return void socket.destroy();
          // A kept-alive socket the server closed meanwhile fails before any answer: the request
          // never reached it, so it goes once more on a fresh connection.
          if (err && reused && (err as { beforeAnswer?: boolean }).beforeAnswer && !this.closed) {
            socket.destroy();
            return attempt(false, this.connect(t));
          }
          if (err) {
            socket.destroy();
            return finish(err);
          }
          if (keep) this.release(t, socket);
          else socket.destroy();
          finish(null, answer);
        });
      };
      const kept = this.take(t);
      attempt(kept !== undefined, kept ?? this.connect(t));
      if (stamping) stamp('post.ended');
    });
  }

  private connect(t: Target): net.Socket {
    const s = t.secure
      ? tls.connect({ ...this.tlsOptions, host: t.hostname, port: t.port, servername: net.isIP(t.hostname) ? undefined : t.hostname, ALPNProtocols: ['http/1.1'] })
      : net.connect({ host: t.hostname, port: t.port });
    s.setNoDelay(true);
    s.setKeepAlive(true, 30_000);
    return s;
  }

  private take(t: Target): net.Socket | undefined {
    const list = this.idle.get(t.host);
    for (let s = list?.pop(); s; s = list!.pop()) {
      const drop = parked.get(s)!;
      s.removeListener('data', drop).removeListener('end', drop).removeListener('close', drop).removeListener('error', drop);
      parked.delete(s);
      if (s.destroyed || !s.writable) {
        s.destroy();
        continue;
      }
      s.ref();
      return s;
    }
    return undefined;
  }

  /** Parks an answered socket: it does not hold the process open, and is dropped if the server closes it. */
  private release(t: Target, s: net.Socket): void {
    if (this.closed) return void s.destroy();
    let list = this.idle.get(t.host);
    if (!list) this.idle.set(t.host, (list = []));
    if (list.length >= MAX_IDLE) return void s.destroy();
    const drop = () => {
      s.destroy();
      const i = list!.indexOf(s);
      if (i >= 0) list!.splice(i, 1);
    };
    // Bytes while idle are no answer to anything: the connection is out of step.
    s.on('data', drop).on('end', drop).on('close', drop).on('error', drop);
    parked.set(s, drop);
    s.unref();
    list.push(s);
  }

  private target(url: string): Target | undefined {
    let t = this.targets.get(url);
    if (!t) {
      const secure = url.startsWith('https:');
      if (!secure && !url.startsWith('http:')) return undefined;
      const u = new URL(url);
      const port = u.port ? Number(u.port) : secure ? 443 : 80;
      t = { secure, hostname: u.hostname.replace(/^\[(.*)\]$/, '$1'), port, path: u.pathname + u.search, host: u.host };
      if (this.targets.size > 64) this.targets.clear();
      this.targets.set(url, t);
    }
    return t;
  }

  close(): void {
    this.closed = true;
    for (const list of this.idle.values()) for (const s of list.splice(0)) s.destroy();
  }
}

/** The listener that drops a parked socket (removed by name: node's own listeners stay). */
const parked = new WeakMap<net.Socket, () => void>();

type Done = (err: Error | null, answer?: PostAnswer, keepAlive?: boolean) => void;

/** A failure with no byte of the answer received (the request may not have reached the server). */
function early(message: string, cause?: unknown): Error {
  return Object.assign(new Error(message, { cause }), { beforeAnswer: true });
}

/** Writes one request on `socket` and reads its answer; `done` is called once. */
function exchange(socket: net.Socket, request: Buffer, done: Done): void {
  let buf: Buffer | null = null;
  let got = false;
  let status = 0;
  let keep = true;
  let headers: Map<string, string> | null = null;
  /** Body framing once the head is read: bytes to read, `chunked`, or until the socket closes. */
  let length = -1;
  let chunked = false;
  const chunks: Buffer[] = [];
  let finished = false;
  /** Bytes `parse` needs in `buf` before it can go further (0: try with whatever came). */
  let need = 0;
  const waiting: Buffer[] = [];
  let waitingBytes = 0;
  const end = (err: Error | null, ok?: boolean) => {
    if (finished) return;
    finished = true;
    socket.removeListener('data', onData).removeListener('end', onEnd).removeListener('close', onEnd).removeListener('error', onError);
    if (err) return done(err);
    if (stamping) stamp('post.body');
    const h = headers!;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    done(null, { status, header: (n) => h.get(n), text: body.toString('utf8') }, keep && ok === true);
  };
  const fail = (message: string) => end(new Error(`bad HTTP answer: ${message}`));

  /** Reads what `buf` holds, as far as it goes; ends the exchange once the answer is whole. */
  const parse = (): void => {
    for (;;) {
      if (!headers) {
        const at = buf!.indexOf('\r\n\r\n');
        if (at < 0) return void (buf!.length > MAX_HEAD && fail('header too large'));
        const lines = buf!.toString('latin1', 0, at).split('\r\n');
        buf = buf!.subarray(at + 4);
        const m = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0]!);
        if (!m) return fail(`status line ${JSON.stringify(lines[0]!.slice(0, 40))}`);
        status = Number(m[2]);
        const h = new Map<string, string>();
        for (let i = 1; i < lines.length; i++) {
          const c = lines[i]!.indexOf(':');
          if (c <= 0) continue;
          const name = lines[i]!.slice(0, c).trim().toLowerCase();
          const value = lines[i]!.slice(c + 1).trim();
          const prev = h.get(name);
          h.set(name, prev === undefined ? value : `${prev}, ${value}`);
        }
        // 1xx: an interim answer (103 Early Hints, a 100 nobody asked for); the real one follows.
        if (status >= 100 && status < 200) continue;
        headers = h;
        const conn = (h.get('connection') ?? '').toLowerCase();
        keep = m[1] === '1' ? !conn.includes('close') : conn.includes('keep-alive');
        if (/\bchunked\b/i.test(h.get('transfer-encoding') ?? '')) chunked = true;
        else if (h.has('content-length')) {
          length = Number(h.get('content-length'));
          if (!Number.isSafeInteger(length) || length < 0) return fail('content-length');
        } else if (status === 204 || status === 304) length = 0;
        else keep = false; // the body ends when the server closes
      }
      if (chunked) {
        const nl = buf!.indexOf('\r\n');
        if (nl < 0) return;
        const size = parseInt(buf!.toString('latin1', 0, nl).split(';')[0]!.trim(), 16);
        if (!Number.isInteger(size) || size < 0) return fail('chunk size');
        if (size === 0) {
          // Trailers (rare) end with an empty line; without them the empty line follows at once.
          const rest = buf!.subarray(nl + 2);
          const endAt = rest.subarray(0, 2).toString('latin1') === '\r\n' ? 2 : rest.indexOf('\r\n\r\n') >= 0 ? rest.indexOf('\r\n\r\n') + 4 : -1;
          if (endAt < 0) return;
          return end(null, rest.length === endAt);
        }
        if (buf!.length < nl + 2 + size + 2) return void (need = nl + 2 + size + 2);
        chunks.push(buf!.subarray(nl + 2, nl + 2 + size));
        buf = buf!.subarray(nl + 2 + size + 2);
        continue;
      }
      if (length >= 0) {
        if (buf!.length < length) return void (need = length);
        chunks.push(buf!.subarray(0, length));
        // Bytes past the answer: the server is out of step; answer, but do not reuse the socket.
        return end(null, buf!.length === length);
      }
      chunks.push(buf!);
      buf = Buffer.alloc(0);
      return;
    }
  };
  const onData = (c: Buffer) => {
    if (!got && stamping) stamp('post.response');
    got = true;
    // Joined only once enough is here for `parse` to move on: a large body arriving in many
    // packets is copied once, not once per packet.
    waiting.push(c);
    waitingBytes += c.length;
    if ((buf?.length ?? 0) + waitingBytes < need) return;
    buf = buf && buf.length ? Buffer.concat([buf, ...waiting]) : waiting.length === 1 ? waiting[0]! : Buffer.concat(waiting);
    waiting.length = 0;
    waitingBytes = 0;
    need = 0;
    parse();
  };
  const onEnd = () => {
    if (headers && !chunked && length < 0) return end(null, false);
    end(got ? new Error('socket closed before the answer was complete') : early('socket hang up'));
  };
  const onError = (err: Error) => end(got ? err : early(err.message, err));
  socket.on('data', onData).on('end', onEnd).on('close', onEnd).on('error', onError);
  socket.write(request, (err) => {
    if (stamping) stamp('post.finish');
    if (err) onError(err);
  });
}
