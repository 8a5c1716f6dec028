/**
 * Safe reading of a zipped directory tree (temp uploads of skills and resources), a host facility
 * so every plugin gets the same checks. The archive is read whole in memory after its size is
 * capped (the limits are the caller's). The
 * central directory is parsed here because it is the only place a zip records entry types
 * (symlinks); every check runs before the caller writes anything, so a rejected archive leaves
 * nothing behind: names escaping the root (zip slip), absolute paths, symlinks and special files,
 * duplicate names (also after Unicode normalization, and a file used as a directory), encryption,
 * zip64, entries sharing compressed data (the overlapping zip bomb), ratios and sizes no real tree
 * reaches. Data is inflated in slices so an entry that inflates past its declared size stops at once.
 */
import { crc32 } from 'node:zlib';
import { Inflate } from 'fflate';
import { invalidArgument } from './errors.js';

export interface ZipLimits {
  archiveBytes: number;
  entries: number;
  fileBytes: number;
  totalBytes: number;
  /** Largest inflated:compressed ratio accepted for an entry over 1 MiB. */
  ratio: number;
}

/** Defaults sized for imported trees; a caller with smaller inputs (a skill) passes its own. */
export const ZIP_LIMITS: Readonly<ZipLimits> = Object.freeze({
  archiveBytes: 128 * 1024 * 1024,
  entries: 20_000,
  fileBytes: 32 * 1024 * 1024,
  totalBytes: 256 * 1024 * 1024,
  /** Deflate peaks near 1032:1 on runs of one byte; text and code stay far below 100:1. */
  ratio: 200,
});

export interface ZipFile {
  /** Relative path inside the archive, `/`-separated. */
  name: string;
  data: Buffer;
}

/** 400 naming the archive's request field (`temp_file_id` unless the caller says otherwise). */
export const zipError = (message: string, details: Record<string, unknown> = {}, label = 'invalid zip archive') =>
  invalidArgument(`${label}: ${message}`, { field: 'temp_file_id', ...details });

export const isZip = (b: Buffer): boolean => (b.length >= 4 && b.readUInt32LE(0) === 0x04034b50) || (b.length >= 22 && b.readUInt32LE(0) === 0x06054b50);

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const utf8 = new TextDecoder('utf-8', { fatal: true });

interface Central {
  name: string;
  isDir: boolean;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
}

/** Why an entry name may not be extracted, or null. */
export function nameProblem(name: string): string | null {
  if (name.length === 0) return 'an empty entry name';
  if (name.includes('\0')) return 'a NUL character in an entry name';
  if (name.includes('\\')) return 'a backslash in an entry name (zip names use /)';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'an absolute entry path';
  const segments = (name.endsWith('/') ? name.slice(0, -1) : name).split('/');
  if (segments.includes('..')) return 'an entry path climbing out of the archive (zip slip)';
  if (segments.some((s) => s === '' || s === '.')) return 'an empty or "." segment in an entry path';
  return null;
}

function findEocd(buf: Buffer): number {
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) if (buf.readUInt32LE(i) === 0x06054b50) return i;
  throw zipError('no end-of-central-directory record (not a zip, or truncated)');
}

function centralDirectory(buf: Buffer, limits: ZipLimits): Central[] {
  const eocd = findEocd(buf);
  const count = buf.readUInt16LE(eocd + 10);
  const cdSize = buf.readUInt32LE(eocd + 12);
  const cdOffset = buf.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdOffset === 0xffffffff) throw zipError('zip64 archives are not accepted');
  if (count > limits.entries) throw zipError(`more than ${limits.entries} entries`, { entries: count, max: limits.entries });
  if (cdOffset + cdSize > eocd) throw zipError('the central directory lies outside the archive');
  const out: Central[] = [];
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > eocd || buf.readUInt32LE(p) !== 0x02014b50) throw zipError('a damaged central directory');
    const madeBy = buf.readUInt16LE(p + 4);
    const flags = buf.readUInt16LE(p + 8);
    const nameLen = buf.readUInt16LE(p + 28);
    const next = p + 46 + nameLen + buf.readUInt16LE(p + 30) + buf.readUInt16LE(p + 32);
    if (next > eocd) throw zipError('a damaged central directory');
    let name: string;
    try {
      name = utf8.decode(buf.subarray(p + 46, p + 46 + nameLen));
    } catch {
      throw zipError('an entry name that is not UTF-8');
    }
    const problem = nameProblem(name);
    if (problem) throw zipError(`${problem}: ${JSON.stringify(name)}`, { entry: name });
    if (flags & 1) throw zipError(`encrypted entry ${JSON.stringify(name)}`, { entry: name });
    const isDir = name.endsWith('/');
    // Unix-made entries carry their file type in the high half of the external attributes.
    if (madeBy >> 8 === 3) {
      const type = (buf.readUInt32LE(p + 38) >>> 16) & S_IFMT;
      if (type !== 0 && type !== (isDir ? S_IFDIR : S_IFREG))
        throw zipError(`${type === S_IFLNK ? 'a symbolic link' : 'a special file'} is not accepted: ${JSON.stringify(name)}`, { entry: name });
    }
    const e: Central = {
      name: isDir ? name.slice(0, -1) : name,
      isDir,
      method: buf.readUInt16LE(p + 10),
      crc: buf.readUInt32LE(p + 16),
      compressedSize: buf.readUInt32LE(p + 20),
      size: buf.readUInt32LE(p + 24),
      offset: buf.readUInt32LE(p + 42),
    };
    if (e.size === 0xffffffff || e.compressedSize === 0xffffffff || e.offset === 0xffffffff) throw zipError('zip64 entries are not accepted', { entry: name });
    out.push(e);
    p = next;
  }
  return out;
}

function dataStart(buf: Buffer, e: Central): number {
  if (e.offset + 30 > buf.length || buf.readUInt32LE(e.offset) !== 0x04034b50) throw zipError(`a damaged local header for ${JSON.stringify(e.name)}`, { entry: e.name });
  const start = e.offset + 30 + buf.readUInt16LE(e.offset + 26) + buf.readUInt16LE(e.offset + 28);
  if (start + e.compressedSize > buf.length) throw zipError(`the data of ${JSON.stringify(e.name)} lies outside the archive`, { entry: e.name });
  return start;
}

function inflateBounded(input: Buffer, e: Central): Buffer {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const inf = new Inflate((chunk) => {
    total += chunk.length;
    if (total > e.size) throw zipError(`${JSON.stringify(e.name)} inflates past its declared size (a zip bomb?)`, { entry: e.name, declared: e.size });
    chunks.push(chunk);
  });
  try {
    if (input.length === 0) inf.push(new Uint8Array(0), true);
    for (let i = 0; i < input.length; i += 64 * 1024) inf.push(input.subarray(i, i + 64 * 1024), i + 64 * 1024 >= input.length);
  } catch (err) {
    if ((err as { code?: string }).code === 'INVALID_ARGUMENT') throw err;
    throw zipError(`${JSON.stringify(e.name)} does not inflate: ${(err as Error).message}`, { entry: e.name });
  }
  return Buffer.concat(chunks, total);
}

/** The regular files of a zip (directories are implied by their paths), every check passed. */
export function readZip(buf: Buffer, limits: ZipLimits = ZIP_LIMITS): ZipFile[] {
  if (buf.length > limits.archiveBytes) throw zipError(`the archive is larger than ${limits.archiveBytes} bytes`, { max: limits.archiveBytes });
  const entries = centralDirectory(buf, limits);
  const seen = new Map<string, boolean>();
  let declared = 0;
  for (const e of entries) {
    const key = e.name.normalize('NFC');
    const prior = seen.get(key);
    // Some zippers list a directory twice; any other name used twice is ambiguous.
    if (prior !== undefined && !(prior && e.isDir)) throw zipError(`duplicate entry name ${JSON.stringify(e.name)}`, { entry: e.name });
    seen.set(key, e.isDir);
    if (e.isDir) continue;
    if (e.method !== 0 && e.method !== 8) throw zipError(`unsupported compression method ${e.method} for ${JSON.stringify(e.name)}`, { entry: e.name });
    if (e.size > limits.fileBytes) throw zipError(`${JSON.stringify(e.name)} is larger than ${limits.fileBytes} bytes`, { entry: e.name, max: limits.fileBytes });
    if (e.size > 1 << 20 && e.size > e.compressedSize * limits.ratio)
      throw zipError(`${JSON.stringify(e.name)} compresses ${Math.round(e.size / Math.max(1, e.compressedSize))}:1, above the ${limits.ratio}:1 limit (a zip bomb?)`, { entry: e.name, max_ratio: limits.ratio });
    declared += e.size;
  }
  for (const [name] of seen)
    for (let i = name.indexOf('/'); i > 0; i = name.indexOf('/', i + 1))
      if (seen.get(name.slice(0, i)) === false) throw zipError(`${JSON.stringify(name.slice(0, i))} is both a file and a directory`, { entry: name });
  if (declared > limits.totalBytes) throw zipError(`the files add up to more than ${limits.totalBytes} bytes`, { max: limits.totalBytes });
  const files = entries.filter((e) => !e.isDir);
  const spans = files.map((e) => ({ e, start: dataStart(buf, e) })).sort((a, b) => a.start - b.start);
  for (let i = 1; i < spans.length; i++)
    if (spans[i]!.start < spans[i - 1]!.start + spans[i - 1]!.e.compressedSize) throw zipError('entries share compressed data (a zip bomb)', { entry: spans[i]!.e.name });
  return spans.map(({ e, start }) => {
    const raw = buf.subarray(start, start + e.compressedSize);
    const data = e.method === 0 ? Buffer.from(raw) : inflateBounded(raw, e);
    if (data.length !== e.size) throw zipError(`${JSON.stringify(e.name)} is not the size its header declares`, { entry: e.name });
    if (crc32(data) !== e.crc) throw zipError(`${JSON.stringify(e.name)} fails its CRC check`, { entry: e.name });
    return { name: e.name, data };
  });
}
