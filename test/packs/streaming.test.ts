/**
 * Packs with bounded memory: export writes index_records.jsonl and dense.f32 as it reads them;
 * import streams index_records.jsonl line by line and dense.f32 in pieces, keeping lines and rows
 * in scratch files that are removed when it is done, whatever its outcome.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { manifestOf, repack, unpack, upload } from './zip-tools.js';
import type { VectorRecordsService } from '../../plugins/retrieval/index.js';

let t: TestApp;
let admin: Record<string, string>;
const A = 'stream';
const records = () => t.app.service<VectorRecordsService>('vector-records');
const LONG = Array.from({ length: 6000 }, (_, i) => `Paragraph ${i}: the retention policy keeps nightly snapshots for ${i % 90} days.`).join('\n');
const scratch = () => path.join(t.dir, 'temp', 'packs');

async function wait() {
  const r = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: t.root, body: { timeout: 30 } });
  expect(r.status, r.text).toBe(200);
}

async function stored(p: string): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  for await (const r of records().read(A, p)) out.set(`${r.path.slice(p.length)}#${r.level}`, Array.from(r.vector));
  return out;
}

async function importPack(zip: Buffer, parent: string, vector_mode = 'require') {
  const id = await upload(t, admin, zip);
  return t.req({ method: 'POST', url: '/api/v1/pack/import', headers: admin, body: { temp_file_id: id, parent, vector_mode } });
}

let pack: Buffer;

beforeAll(async () => {
  t = await startTestApp();
  admin = (await t.account(A)).admin;
  for (const [p, body] of [
    ['docs/long.md', LONG],
    ['docs/short.md', 'Backups run at 02:00 UTC.\n'],
    ['docs/sub/deep.md', 'Restores are tested monthly.\n'],
  ]) {
    const r = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: admin, body: { uri: `ctx://resources/${p}`, content: body } });
    expect(r.status, r.text).toBe(200);
  }
  // Enough lines that index_records.jsonl spans several inflated pieces, lines split between them.
  for (let i = 0; i < 60; i++) await t.app.vfs.writeFile(A, `resources/docs/many/f${i}.md`, Buffer.from(`File ${i}.\n` + LONG.slice(i * 50)));
  await wait();
  const res = await t.req({ method: 'POST', url: '/api/v1/pack/export', headers: admin, body: { uri: 'ctx://resources/docs', include_vectors: true } });
  expect(res.status, res.text).toBe(200);
  pack = res.body;
});
afterAll(() => t.close());

describe('streamed packs', () => {
  it('export: index_records.jsonl holds the entries then the vectors, one line each, long lines whole', async () => {
    const files = unpack(pack);
    const lines = Buffer.from(files.get('docs/_ctxpack/index_records.jsonl')!).toString().split('\n');
    expect(lines.pop()).toBe('');
    const recs = lines.map((l) => JSON.parse(l));
    const entries = recs.filter((r) => !('dense_row' in r)).map((r) => r.path);
    expect(entries.filter((p) => !p.includes('.abstract.md') && !p.includes('.overview.md') && !p.startsWith('many')).sort()).toEqual(['', 'long.md', 'short.md', 'sub', 'sub/deep.md']);
    expect(new Set(entries).size).toBe(entries.length);
    const vectors = recs.filter((r) => 'dense_row' in r);
    expect(vectors.length).toBe(manifestOf(files, 'docs').embedding.count);
    expect(recs.findIndex((r) => 'dense_row' in r)).toBe(entries.length);
    expect(recs.find((r) => r.path === 'long.md' && !('dense_row' in r)).size).toBe(Buffer.byteLength(LONG));
    expect(lines.reduce((n, l) => n + l.length + 1, 0)).toBeGreaterThan(128 * 1024);
  });

  it('import of the pack as exported (dense.f32 stored) and re-zipped (dense.f32 deflated): the same vectors', async () => {
    const source = await stored('resources/docs');
    for (const [zip, parent] of [
      [pack, 'ctx://resources/as-exported'],
      [repack(unpack(pack)), 'ctx://resources/deflated'],
    ] as const) {
      const res = await importPack(zip, parent);
      expect(res.status, res.text).toBe(200);
      const copy = await stored(`${parent.slice('ctx://'.length)}/docs`);
      expect(copy).toEqual(source);
      expect(fs.readdirSync(scratch())).toEqual([]);
    }
  });

  it('scratch files are removed when an import is refused', async () => {
    const files = unpack(pack);
    const dense = Buffer.from(files.get('docs/_ctxpack/dense.f32')!);
    dense[dense.length - 1] ^= 0x01;
    files.set('docs/_ctxpack/dense.f32', dense);
    const res = await importPack(repack(files), 'ctx://resources/refused');
    expect(res.status, res.text).toBe(400);
    expect(res.json().error.message).toMatch(/sha256 of _ctxpack\/dense\.f32 differs/);
    expect(await t.app.vfs.stat(A, 'resources/refused')).toBeNull();
    expect(fs.readdirSync(scratch())).toEqual([]);
  });

  it('a non-finite value in dense.f32 is refused', async () => {
    const files = unpack(pack);
    const m = manifestOf(files, 'docs');
    const dense = Buffer.from(files.get('docs/_ctxpack/dense.f32')!);
    dense.writeFloatLE(Number.NaN, 4 * (m.embedding.dim + 1));
    files.set('docs/_ctxpack/dense.f32', dense);
    m.embedding.sha256 = (await import('node:crypto')).createHash('sha256').update(dense).digest('hex');
    files.set('docs/_ctxpack/manifest.json', Buffer.from(JSON.stringify(m)));
    const res = await importPack(repack(files), 'ctx://resources/nan');
    expect(res.status, res.text).toBe(400);
    expect(res.json().error.message).toMatch(/not finite/);
  });
});
