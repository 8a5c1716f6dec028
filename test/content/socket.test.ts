/** The content routes over the real uWS socket: streamed download, large reads, batch bodies on the wire. */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UwsServer } from '../../runtime/adapters/uws/server.js';
import type { TestApp } from '../helpers/app.js';
import { contentApp } from './helpers.js';

let t: TestApp;
let server: UwsServer;
let base: string;
let alice: Record<string, string>;

beforeAll(async () => {
  t = await contentApp();
  alice = (await t.account('acme', ['alice'])).users.alice!;
  server = await t.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => t.close());

describe('content over HTTP', () => {
  it('download streams a 6 MB file byte for byte with its headers', async () => {
    const bytes = Buffer.alloc(6 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) % 256;
    await t.app.vfs.writeFile('acme', 'resources/dl/data v2.bin', bytes);
    const res = await fetch(`${base}/api/v1/content/download?uri=${encodeURIComponent('ctx://resources/dl/data v2.bin')}`, { headers: alice });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('content-disposition')).toContain("filename*=UTF-8''data%20v2.bin");
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('write, then read a 1 MB file back through the socket', async () => {
    const text = 'ümlaut "q" line\n'.repeat(65_536);
    const w = await fetch(`${base}/api/v1/content/write`, { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ uri: 'ctx://resources/dl/big.md', content: text }) });
    expect((await w.json()).result.written_bytes).toBe(Buffer.byteLength(text));
    const r = await fetch(`${base}/api/v1/content/read?uri=${encodeURIComponent('ctx://resources/dl/big.md')}`, { headers: alice });
    expect((await r.json()).result).toBe(text);
  });

  it('a batch-write body over the per-route limit is refused with 413 while streaming', async () => {
    const res = await fetch(`${base}/api/v1/content/batch-write`, { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: Buffer.alloc(49 * 1024 * 1024, 0x20) });
    expect(res.status).toBe(413);
  });

  it('a 2 MB batch-write body (many socket chunks) stores every content byte for byte', async () => {
    await t.app.vfs.mkdir('acme', 'resources/wire');
    const contents = Array.from({ length: 256 }, (_, i) => (i % 3 === 0 ? `ü ${i} 😀 `.repeat(900) : i % 3 === 1 ? `plain ${i} `.repeat(900) : `esc "${i}" \\\n`.repeat(600)));
    const res = await fetch(`${base}/api/v1/content/batch-write`, {
      method: 'POST',
      headers: { ...alice, 'content-type': 'application/json' },
      body: JSON.stringify({ root_uri: 'ctx://resources/wire', operations: contents.map((content, i) => ({ uri: `ctx://resources/wire/f${i}.txt`, content, mode: 'upsert' })) }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).result.created).toHaveLength(256);
    const stored = await t.app.vfs.readMany('acme', contents.map((_, i) => `resources/wire/f${i}.txt`));
    stored.forEach((b, i) => expect(b!.equals(Buffer.from(contents[i]!, 'utf8')), `f${i}`).toBe(true));
    // Over 2 MiB, so hashed on the thread pool (smaller batches are hashed on the JS thread).
    const nodes = await t.app.vfs.statMany('acme', contents.map((_, i) => `resources/wire/f${i}.txt`));
    nodes.forEach((n, i) => expect(n!.sha256, `f${i}`).toBe('sha256:' + createHash('sha256').update(contents[i]!, 'utf8').digest('hex')));
  });
});
