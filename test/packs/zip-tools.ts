/** Building real and hostile zip files for the pack tests. */
import { createHash } from 'node:crypto';
import { strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import type { TestApp } from '../helpers/app.js';

export const sha256 = (b: Buffer | Uint8Array | string) => createHash('sha256').update(b).digest('hex');

export async function upload(t: TestApp, who: Record<string, string>, data: Buffer | Uint8Array): Promise<string> {
  const boundary = '----ctxpack' + Math.random().toString(16).slice(2);
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.ctxpack"\r\n\r\n`),
    Buffer.from(data),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await t.req({ method: 'POST', url: '/api/v1/resources/temp_upload', headers: { ...who, 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
  if (res.status !== 200) throw new Error(`upload failed: ${res.text}`);
  return res.json().result.temp_file_id;
}

/** A pack as a name → bytes map (directories have empty bytes and a trailing slash). */
export type PackFiles = Map<string, Uint8Array>;

export function unpack(zip: Buffer): PackFiles {
  return new Map(Object.entries(unzipSync(new Uint8Array(zip))));
}

export function repack(files: PackFiles): Buffer {
  const z: Zippable = {};
  for (const [name, data] of files) z[name] = [data, { level: 1 }];
  return Buffer.from(zipSync(z));
}

export function manifestOf(files: PackFiles, root: string): Record<string, any> {
  return JSON.parse(Buffer.from(files.get(`${root}/_ctxpack/manifest.json`)!).toString());
}

export function setManifest(files: PackFiles, root: string, m: unknown): void {
  files.set(`${root}/_ctxpack/manifest.json`, strToU8(JSON.stringify(m)));
}

/** content_sha256 as the pack format defines it (plugins/packs/README.md). */
export function contentSha(entries: Array<{ path: string; size?: number; sha256?: string }>): string {
  const files = entries.filter((e) => e.sha256 !== undefined).map((e) => [e.path, e.size, e.sha256]);
  files.sort((a, b) => Buffer.compare(Buffer.from(a[0] as string), Buffer.from(b[0] as string)));
  return sha256(JSON.stringify(files));
}

interface RawEntry {
  name: string;
  data?: Buffer;
  /** Unix mode put in the external attributes (e.g. 0o120777 for a symlink). */
  mode?: number;
  /** Point the central directory at another entry's local header (overlapping entries). */
  sameDataAs?: number;
  /** Size claimed in the central directory, when it should lie. */
  claimedSize?: number;
}

/** A stored (uncompressed) zip written byte by byte, so tests can make it lie. */
export function rawZip(entries: RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  const offsets: number[] = [];
  let offset = 0;
  entries.forEach((e, i) => {
    const name = Buffer.from(e.name);
    const data = e.data ?? Buffer.alloc(0);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    offsets.push(offset);
    if (e.sameDataAs === undefined) {
      locals.push(local, name, data);
      offset += 30 + name.length + data.length;
    }
    const size = e.claimedSize ?? data.length;
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE((3 << 8) | 20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(0x800, 8);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(size, 20);
    cd.writeUInt32LE(size, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(((e.mode ?? (e.name.endsWith('/') ? 0o40755 : 0o100644)) << 16) >>> 0, 38);
    cd.writeUInt32LE(e.sameDataAs === undefined ? offsets[i]! : offsets[e.sameDataAs]!, 42);
    central.push(cd, name);
  });
  const cdBuf = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cdBuf.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cdBuf, end]);
}

function crc32(data: Buffer): number {
  let c = ~0;
  for (const byte of data) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
