/**
 * Scratch files of one export or import (under the data dir's `temp/packs`, removed when done):
 * what a pack streams must not be held in memory whatever its size, yet some of it is needed again
 * later in another order (vector lines at the end of an export; records and rows per written batch
 * on import). Appends are buffered; reads are by offset.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const FLUSH = 1 << 20;

export class Spool {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes appended so far (flushed or not): the offset of the next append. */
  size = 0;

  private constructor(readonly file: string, private readonly fh: fs.promises.FileHandle) {}

  static async create(dir: string, name: string): Promise<Spool> {
    await fs.promises.mkdir(dir, { recursive: true });
    const file = path.join(dir, `${name}-${randomBytes(8).toString('hex')}`);
    return new Spool(file, await fs.promises.open(file, 'w+'));
  }

  /** Appends, returning the offset the bytes start at. */
  async append(data: Buffer): Promise<number> {
    const at = this.size;
    this.pending.push(data);
    this.pendingBytes += data.length;
    this.size += data.length;
    if (this.pendingBytes >= FLUSH) await this.flush();
    return at;
  }

  async flush(): Promise<void> {
    if (!this.pendingBytes) return;
    const data = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    const at = this.size - this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    for (let done = 0; done < data.length; ) done += (await this.fh.write(data, done, data.length - done, at + done)).bytesWritten;
  }

  async read(at: number, length: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(length);
    for (let done = 0; done < length; ) {
      const { bytesRead } = await this.fh.read(buf, done, length - done, at + done);
      if (bytesRead === 0) throw new Error(`spool ${this.file}: short read`);
      done += bytesRead;
    }
    return buf;
  }

  /** The whole content in chunks, after a flush. */
  async *chunks(size = FLUSH): AsyncIterable<Buffer> {
    await this.flush();
    for (let at = 0; at < this.size; at += size) yield this.read(at, Math.min(size, this.size - at));
  }

  async close(): Promise<void> {
    await this.fh.close().catch(() => {});
    await fs.promises.rm(this.file, { force: true });
  }
}

export const spoolDir = (dataDir: string) => path.join(dataDir, 'temp', 'packs');
