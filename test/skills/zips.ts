/** Real and hostile zip files for the skills tests (built with fflate; hostile ones patched by hand). */
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import type { TestApp } from '../helpers/app.js';

export interface Entry {
  name: string;
  data?: string | Uint8Array;
  /** Unix mode with file type, e.g. 0o120777 for a symlink. */
  mode?: number;
  store?: boolean;
}

/** Entries in order; duplicates allowed (the streaming writer does not dedupe). */
export function makeZip(entries: Entry[]): Buffer {
  const chunks: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    chunks.push(chunk);
  });
  for (const e of entries) {
    const attrs = e.mode === undefined ? {} : { os: 3, attrs: (e.mode << 16) >>> 0 };
    const f = e.store ? new ZipPassThrough(e.name) : new ZipDeflate(e.name, { level: 6 });
    Object.assign(f, attrs);
    zip.add(f);
    const data = typeof e.data === 'string' ? Buffer.from(e.data) : (e.data ?? new Uint8Array(0));
    f.push(data, true);
  }
  zip.end();
  return Buffer.concat(chunks);
}

/** Offsets of the central directory records, in order. */
export function centralRecords(zip: Buffer): number[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    out.push(p);
    p += 46 + zip.readUInt16LE(p + 28) + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
  }
  return out;
}

export async function upload(t: TestApp, who: Record<string, string>, data: Buffer | string, filename = 'skill.zip'): Promise<string> {
  const boundary = '----skill' + Math.random().toString(16).slice(2);
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n`),
    Buffer.from(data),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await t.req({ method: 'POST', url: '/api/v1/resources/temp_upload', headers: { ...who, 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
  if (res.status !== 200) throw new Error(`upload failed: ${res.text}`);
  return res.json().result.temp_file_id;
}
