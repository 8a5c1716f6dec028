/**
 * Reading an uploaded pack from disk. The central directory is parsed here (it is the only place a
 * zip records entry types, so symlinks can be refused) and entries are read one by one at their
 * offsets, in batches of bounded size: memory stays bounded whatever the pack's size. Everything a hostile archive can do is refused before anything
 * is extracted: names that escape the root (zip slip), absolute or drive paths, symlinks and
 * devices, encryption, duplicate names, entries whose data overlap (the classic non-recursive zip
 * bomb) and compression ratios no real file reaches; an entry inflating past its declared size is
 * refused while inflating.
 *
 * fflate writes packs (export.ts); reading uses node's zlib, measured several times faster here
 * for inflating (native, on the thread pool, no per-chunk garbage) and able to cap the output size.
 */
import fs from 'node:fs';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { invalidArgument, zipEntryNameProblem } from 'ctx/plugin';

export interface ZipEntry {
  name: string;
  isDir: boolean;
  method: number;
  compressedSize: number;
  size: number;
  /** Offset of the local file header. */
  offset: number;
}

/** Above this ratio (and size) an entry is taken for a zip bomb: deflate peaks near 1032:1 on zeros. */
export const MAX_RATIO = 500;
const RATIO_FLOOR = 1 << 20;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

export const packError = (message: string, details: Record<string, unknown> = {}) => invalidArgument(`invalid pack: ${message}`, { field: 'temp_file_id', ...details });

const utf8 = new TextDecoder('utf-8', { fatal: true });


export async function readCentralDirectory(file: string): Promise<ZipEntry[]> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const { size } = await fh.stat();
    const tailLen = Math.min(size, 22 + 0xffff);
    const tail = Buffer.alloc(tailLen);
    await fh.read(tail, 0, tailLen, size - tailLen);
    let eocd = -1;
    for (let i = tailLen - 22; i >= 0; i--)
      if (tail.readUInt32LE(i) === 0x06054b50) {
        eocd = i;
        break;
      }
    if (eocd < 0) throw packError('not a zip file (no end of central directory record)');
    const disk = tail.readUInt16LE(eocd + 4);
    const cdDisk = tail.readUInt16LE(eocd + 6);
    let count = tail.readUInt16LE(eocd + 10);
    let cdSize = tail.readUInt32LE(eocd + 12);
    let cdOffset = tail.readUInt32LE(eocd + 16);
    if (disk !== 0 || cdDisk !== 0) throw packError('multi-disk zip files are not supported');
    let cdEnd = size - tailLen + eocd;
    if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
      // zip64: a locator just before the end record points at the zip64 end record.
      const locator = Buffer.alloc(20);
      if (cdEnd < 20 || (await fh.read(locator, 0, 20, cdEnd - 20)).bytesRead !== 20 || locator.readUInt32LE(0) !== 0x07064b50) throw packError('zip64 end record locator missing');
      const at = int64(locator, 8);
      const rec = Buffer.alloc(56);
      if (at + 56 > cdEnd - 20 || (await fh.read(rec, 0, 56, at)).bytesRead !== 56 || rec.readUInt32LE(0) !== 0x06064b50) throw packError('corrupt zip64 end record');
      if (rec.readUInt32LE(16) !== 0 || rec.readUInt32LE(20) !== 0) throw packError('multi-disk zip files are not supported');
      count = int64(rec, 32);
      cdSize = int64(rec, 40);
      cdOffset = int64(rec, 48);
      cdEnd = at;
    }
    if (cdOffset + cdSize > cdEnd) throw packError('the central directory lies outside the file');
    if (count > cdSize / 46) throw packError('the central directory is too small for its entry count');
    const cd = Buffer.alloc(cdSize);
    await fh.read(cd, 0, cdSize, cdOffset);
    const entries: ZipEntry[] = [];
    const names = new Set<string>();
    let at = 0;
    for (let i = 0; i < count; i++) {
      if (at + 46 > cd.length || cd.readUInt32LE(at) !== 0x02014b50) throw packError('corrupt central directory');
      const madeBy = cd.readUInt16LE(at + 4) >> 8;
      const flags = cd.readUInt16LE(at + 8);
      const method = cd.readUInt16LE(at + 10);
      let compressedSize = cd.readUInt32LE(at + 20);
      let entrySize = cd.readUInt32LE(at + 24);
      const nameLen = cd.readUInt16LE(at + 28);
      const extraLen = cd.readUInt16LE(at + 30);
      const commentLen = cd.readUInt16LE(at + 32);
      const external = cd.readUInt32LE(at + 38);
      let offset = cd.readUInt32LE(at + 42);
      if (entrySize === 0xffffffff || compressedSize === 0xffffffff || offset === 0xffffffff) {
        // The zip64 extra field holds, in this order, each of these that is saturated above.
        const z = zip64Extra(cd.subarray(at + 46 + nameLen, at + 46 + nameLen + extraLen));
        let k = 0;
        const next = () => {
          if (!z || k + 8 > z.length) throw packError('a zip64 entry without its extra field');
          const v = int64(z, k);
          k += 8;
          return v;
        };
        if (entrySize === 0xffffffff) entrySize = next();
        if (compressedSize === 0xffffffff) compressedSize = next();
        if (offset === 0xffffffff) offset = next();
      }
      let name: string;
      try {
        name = utf8.decode(cd.subarray(at + 46, at + 46 + nameLen));
      } catch {
        throw packError('an entry name is not UTF-8');
      }
      at += 46 + nameLen + extraLen + commentLen;
      const problem = zipEntryNameProblem(name);
      if (problem) throw packError(problem, { entry: name });
      const isDir = name.endsWith('/');
      // Unix hosts (3) keep the file type in the high half of the external attributes.
      const type = madeBy === 3 ? (external >>> 16) & S_IFMT : 0;
      if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) throw packError(type === 0o120000 ? 'symbolic links are not allowed' : 'special files are not allowed', { entry: name });
      if (type === S_IFDIR && !isDir) throw packError('a directory entry without a trailing slash', { entry: name });
      if (flags & 0x41) throw packError('encrypted entries are not supported', { entry: name });
      if (method !== 0 && method !== 8) throw packError(`compression method ${method} is not supported (stored or deflate only)`, { entry: name });
      if (method === 0 && compressedSize !== entrySize) throw packError('a stored entry whose sizes differ', { entry: name });
      if (isDir && entrySize !== 0) throw packError('a directory entry with content', { entry: name });
      if (entrySize > RATIO_FLOOR && entrySize / Math.max(compressedSize, 1) > MAX_RATIO)
        throw packError(`compression ratio above ${MAX_RATIO}:1 (zip bomb)`, { entry: name, size: entrySize, compressed_size: compressedSize });
      const key = name.normalize('NFC');
      if (names.has(key)) throw packError('duplicate entry name', { entry: name });
      names.add(key);
      entries.push({ name, isDir, method, compressedSize, size: entrySize, offset });
    }
    await checkLayout(fh, entries, cdOffset);
    return entries;
  } finally {
    await fh.close();
  }
}

function int64(b: Buffer, at: number): number {
  const v = b.readBigUInt64LE(at);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw packError('a zip64 size or offset beyond 2^53');
  return Number(v);
}

/** The data of the zip64 extended information extra field (id 1), if present. */
function zip64Extra(extra: Buffer): Buffer | null {
  for (let i = 0; i + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(i);
    const len = extra.readUInt16LE(i + 2);
    if (id === 1) return extra.subarray(i + 4, i + 4 + len);
    i += 4 + len;
  }
  return null;
}

/** Local headers must agree with the directory and entries' data may not overlap or reach the directory. */
async function checkLayout(fh: fs.promises.FileHandle, entries: ZipEntry[], cdOffset: number): Promise<void> {
  const header = Buffer.alloc(30);
  const sorted = [...entries].sort((a, b) => a.offset - b.offset);
  let end = 0;
  for (const e of sorted) {
    if (e.offset < end) throw packError('entries share data (overlapping entries: a zip bomb)', { entry: e.name });
    const { bytesRead } = await fh.read(header, 0, 30, e.offset);
    if (bytesRead < 30 || header.readUInt32LE(0) !== 0x04034b50) throw packError('corrupt local file header', { entry: e.name });
    const dataStart = e.offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    end = dataStart + e.compressedSize;
    if (end > cdOffset) throw packError('entry data runs into the central directory', { entry: e.name });
    (e as ZipEntry & { dataStart?: number }).dataStart = dataStart;
  }
}

const dataStartOf = (e: ZipEntry) => (e as ZipEntry & { dataStart?: number }).dataStart!;

const inflateRaw = promisify(zlib.inflateRaw);

/**
 * One entry's bytes, inflated on the thread pool by zlib with its output capped at the declared
 * size (`maxOutputLength`): data that inflates past it is a zip bomb and is refused as soon as the
 * cap is reached, never buffered. Callers read in batches of bounded size (the VFS stores a file as
 * one value, so a file is in memory once anyway).
 */
export async function readEntry(fh: fs.promises.FileHandle, e: ZipEntry): Promise<Buffer> {
  const raw = Buffer.allocUnsafe(e.compressedSize);
  const { bytesRead } = await fh.read(raw, 0, e.compressedSize, dataStartOf(e));
  if (bytesRead !== e.compressedSize) throw packError('truncated entry data', { entry: e.name });
  if (e.method === 0) return raw;
  if (e.compressedSize === 0) throw packError('a deflate entry without data', { entry: e.name });
  let out: Buffer;
  try {
    out = await inflateRaw(raw, { maxOutputLength: Math.max(e.size, 1) });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw packError('an entry inflates past its declared size (zip bomb)', { entry: e.name, size: e.size });
    throw packError('corrupt deflate data', { entry: e.name });
  }
  if (out.length !== e.size) throw packError('an entry is shorter than its declared size', { entry: e.name, size: e.size, actual: out.length });
  return out;
}

/** Where an entry's data starts in the archive (checked by readCentralDirectory). */
export const entryDataStart = dataStartOf;

/**
 * One entry's bytes as a stream of pieces (≤ 1 MiB read at a time, inflated by zlib on the thread
 * pool with backpressure), for internal files of any size: never the whole entry in memory. The
 * same refusals as readEntry: past the declared size (zip bomb), short, corrupt.
 */
export async function* entryChunks(file: string, e: ZipEntry): AsyncIterable<Buffer> {
  if (e.compressedSize === 0) {
    if (e.method !== 0) throw packError('a deflate entry without data', { entry: e.name });
    return;
  }
  const start = dataStartOf(e);
  const src = fs.createReadStream(file, { start, end: start + e.compressedSize - 1, highWaterMark: 1 << 20 });
  const inflate = e.method === 8 ? zlib.createInflateRaw({ chunkSize: 1 << 18 }) : null;
  const out = inflate ?? src;
  if (inflate) src.pipe(inflate);
  src.on('error', (err) => inflate?.destroy(err));
  let n = 0;
  try {
    for await (const piece of out as AsyncIterable<Buffer>) {
      n += piece.length;
      if (n > e.size) throw packError('an entry inflates past its declared size (zip bomb)', { entry: e.name, size: e.size });
      yield piece;
    }
  } catch (err) {
    if ((err as { code?: string }).code === 'INVALID_ARGUMENT') throw err;
    throw packError(inflate ? 'corrupt deflate data' : 'truncated entry data', { entry: e.name });
  } finally {
    src.destroy();
    inflate?.destroy();
  }
  if (n !== e.size) throw packError(inflate ? 'an entry is shorter than its declared size' : 'truncated entry data', { entry: e.name, size: e.size, actual: n });
}

/** The lines of an entry (UTF-8, `\n`-separated), streamed; each with its 1-based number and raw bytes. */
export async function* entryLines(file: string, e: ZipEntry): AsyncIterable<{ n: number; text: string; raw: Buffer }> {
  let rest = Buffer.alloc(0);
  let n = 0;
  const decode = (raw: Buffer) => {
    try {
      return utf8.decode(raw);
    } catch {
      throw packError(`${e.name} line ${n} is not UTF-8`, { entry: e.name, line: n });
    }
  };
  for await (const piece of entryChunks(file, e)) {
    const buf = rest.length ? Buffer.concat([rest, piece]) : piece;
    let from = 0;
    for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10, from)) {
      n++;
      const raw = buf.subarray(from, nl);
      yield { n, text: decode(raw), raw };
      from = nl + 1;
    }
    rest = Buffer.from(buf.subarray(from));
  }
  if (rest.length) {
    n++;
    yield { n, text: decode(rest), raw: rest };
  }
}

/** Compressed entries up to this size are inflated on the JS thread: a thread-pool hop costs more. */
const SYNC_INFLATE = 64 * 1024;
/** ...and inflating to at most this much, so one never holds the event loop for long. */
const SYNC_OUTPUT = 1 << 20;

/**
 * Several entries' bytes (a batch), as readEntry gives them one by one, with fewer round trips:
 * entries stored next to each other are read with one read of their span, and small deflated
 * ones are inflated synchronously (node's native zlib, capped at the declared size like readEntry).
 */
export async function readEntries(fh: fs.promises.FileHandle, entries: ZipEntry[]): Promise<Buffer[]> {
  if (entries.length === 0) return [];
  let from = Infinity;
  let to = 0;
  let sum = 0;
  for (const e of entries) {
    from = Math.min(from, dataStartOf(e));
    to = Math.max(to, dataStartOf(e) + e.compressedSize);
    sum += e.compressedSize;
  }
  // One read when the entries are (nearly) contiguous, as packs are written; else one read each.
  if (to - from > 2 * sum + 64 * 1024 * entries.length) return Promise.all(entries.map((e) => readEntry(fh, e)));
  const span = Buffer.allocUnsafe(to - from);
  for (let done = 0; done < span.length; ) {
    const { bytesRead } = await fh.read(span, done, span.length - done, from + done);
    if (bytesRead === 0) throw packError('truncated entry data', { entry: entries[0]!.name });
    done += bytesRead;
  }
  return Promise.all(
    entries.map(async (e) => {
      const raw = span.subarray(dataStartOf(e) - from, dataStartOf(e) - from + e.compressedSize);
      if (e.method === 0) return raw;
      if (e.compressedSize === 0) throw packError('a deflate entry without data', { entry: e.name });
      let out: Buffer;
      try {
        out = e.compressedSize <= SYNC_INFLATE && e.size <= SYNC_OUTPUT ? zlib.inflateRawSync(raw, { maxOutputLength: Math.max(e.size, 1) }) : await inflateRaw(raw, { maxOutputLength: Math.max(e.size, 1) });
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw packError('an entry inflates past its declared size (zip bomb)', { entry: e.name, size: e.size });
        throw packError('corrupt deflate data', { entry: e.name });
      }
      if (out.length !== e.size) throw packError('an entry is shorter than its declared size', { entry: e.name, size: e.size, actual: out.length });
      return out;
    }),
  );
}
