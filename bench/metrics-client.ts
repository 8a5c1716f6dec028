/**
 * A lean HTTP/1.1 load client for bench/metrics.bench.ts: persistent keep-alive connections, one
 * pre-serialized request, responses framed by Content-Length (or a chunked body's last chunk), and
 * a `burst(n)` that returns when n responses have arrived. Its rounds last tens of milliseconds, so
 * it must start instantly (autocannon opens its connections and histograms per run) and cost the
 * machine little per request, leaving the CPU to the servers being compared.
 */
import net from 'node:net';

const HEADER_END = Buffer.from('\r\n\r\n');
const LAST_CHUNK = Buffer.from('\r\n0\r\n\r\n');

class Connection {
  private buf: Buffer = Buffer.alloc(0);
  private onDone: ((err?: Error) => void) | undefined;

  constructor(readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => this.data(d));
    socket.on('error', (err) => this.onDone?.(err));
    socket.on('close', () => this.onDone?.(new Error('connection closed')));
  }

  /** Sends `request` and resolves with the status when its whole response has arrived. */
  roundTrip(request: Buffer): Promise<number> {
    return new Promise((resolve, reject) => {
      this.onDone = (err) => {
        this.onDone = undefined;
        if (err) reject(err);
        else resolve(this.status);
      };
      this.socket.write(request);
    });
  }

  private status = 0;

  private data(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    const end = this.buf.indexOf(HEADER_END);
    if (end < 0) return;
    const head = this.buf.toString('latin1', 0, end);
    this.status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    let total: number;
    if (length) total = end + 4 + Number(length[1]);
    else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      const last = this.buf.indexOf(LAST_CHUNK, end + 2);
      if (last < 0) return;
      total = last + LAST_CHUNK.length;
    } else total = end + 4;
    if (this.buf.length < total) return;
    const extra = this.buf.length > total;
    this.buf = Buffer.alloc(0);
    this.onDone?.(extra ? new Error('bytes after the response: this client sends one request at a time') : undefined);
  }
}

export interface RequestSpec {
  method?: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export class BurstClient {
  private readonly request: Buffer;

  private constructor(private readonly conns: Connection[], spec: RequestSpec, port: number) {
    const body = spec.body === undefined ? undefined : Buffer.from(spec.body);
    let head = `${spec.method ?? 'GET'} ${spec.path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n`;
    for (const [k, v] of Object.entries(spec.headers)) head += `${k}: ${v}\r\n`;
    if (body) head += `content-length: ${body.length}\r\n`;
    this.request = Buffer.concat([Buffer.from(head + '\r\n'), body ?? Buffer.alloc(0)]);
  }

  static async open(port: number, connections: number, spec: RequestSpec): Promise<BurstClient> {
    const conns = await Promise.all(
      Array.from({ length: connections }, () => new Promise<Connection>((resolve, reject) => {
        const s = net.connect(port, '127.0.0.1', () => resolve(new Connection(s)));
        s.once('error', reject);
      })),
    );
    return new BurstClient(conns, spec, port);
  }

  /** Sends `n` requests over all connections (each one request at a time); fails on a non-200. */
  async burst(n: number): Promise<void> {
    let left = n;
    const loop = async (c: Connection) => {
      while (left > 0) {
        left--;
        const status = await c.roundTrip(this.request);
        if (status !== 200) throw new Error(`status ${status}`);
      }
    };
    await Promise.all(this.conns.map(loop));
  }

  close(): void {
    for (const c of this.conns) c.socket.destroy();
  }
}
