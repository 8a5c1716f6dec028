/**
 * Dense snapshots in packs: export with `include_vectors` writes `_ctxpack/dense.f32` and its
 * embedding metadata; import and restore store the packed vectors when the embedder is compatible
 * (findable at once, nothing re-embedded), recompute them otherwise, and `require` refuses an
 * incompatible or missing snapshot before writing anything.
 */
import { createHash } from 'node:crypto';
import { strToU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { manifestOf, repack, setManifest, unpack, upload, type PackFiles } from './zip-tools.js';
import type { VectorRecordsService } from '../../plugins/retrieval/index.js';

let t: TestApp;
let admin: Record<string, string>;
let alice: Record<string, string>;
let other: Record<string, string>;
const A = 'dense';
const DOCS: Record<string, string> = {
  'kb/rollout.md': '# Rolling deployments\n\nShift traffic gradually between versions and watch the error rate.\n',
  'kb/rollback.md': '# Rollback\n\nRevert to the previous release when health checks fail.\n',
  'kb/ops/pager.md': '# Pager duty\n\nThe on-call engineer answers pages about the payment gateway within five minutes.\n',
  'kb/ops/backups.md': '# Backups\n\nNightly snapshots of the database are kept for thirty days.\n',
};

const records = () => t.app.service<VectorRecordsService>('vector-records');
const embedded = () => t.app.service<{ stats(): { embedded: number } }>('indexing').stats().embedded;

async function wait() {
  const r = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: t.root, body: { timeout: 30 } });
  expect(r.status, r.text).toBe(200);
}

async function exportPack(uri: string): Promise<Buffer> {
  const res = await t.req({ method: 'POST', url: '/api/v1/pack/export', headers: admin, body: { uri, include_vectors: true } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function importPack(zip: Buffer, parent: string, vector_mode: string, who = admin) {
  const id = await upload(t, who, zip);
  return t.req({ method: 'POST', url: '/api/v1/pack/import', headers: who, body: { temp_file_id: id, parent, vector_mode } });
}

async function found(query: string, target: string, who = admin): Promise<string[]> {
  const r = await t.req({ method: 'POST', url: '/api/v1/search/find', headers: who, body: { query, target_uri: target, limit: 10 } });
  expect(r.status, r.text).toBe(200);
  const res = r.json().result;
  return [...res.resources, ...res.memories, ...res.skills].map((h: { uri: string }) => h.uri);
}

/** Stored vectors below a path, by path and level. */
async function stored(account: string, path: string): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  for await (const r of records().read(account, path)) out.set(`${r.path}#${r.level}`, r.vector);
  return out;
}

const vectorLines = (files: PackFiles, root: string) =>
  Buffer.from(files.get(`${root}/_ctxpack/index_records.jsonl`)!)
    .toString()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((r) => 'dense_row' in r);

let pack: Buffer;

beforeAll(async () => {
  t = await startTestApp();
  const acc = await t.account(A, ['alice']);
  admin = acc.admin;
  alice = acc.users.alice!;
  other = (await t.account('dense-other', ['alice'])).admin;
  for (const [p, body] of Object.entries(DOCS)) {
    const r = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: admin, body: { uri: `ctx://resources/${p}`, content: body } });
    expect(r.status, r.text).toBe(200);
  }
  await wait();
  pack = await exportPack('ctx://resources/kb');
});
afterAll(() => t.close());

describe('export with include_vectors', () => {
  it('writes dense.f32 rows equal to the stored vectors, described by index_records.jsonl and the manifest', async () => {
    const files = unpack(pack);
    const m = manifestOf(files, 'kb');
    const running = records().embedding();
    expect(m.include_vectors).toBe(true);
    expect(m.embedding).toMatchObject({ ...running, dtype: 'float32' });
    expect(m.embedding.params).not.toHaveProperty('baseUrl');
    const dense = Buffer.from(files.get('kb/_ctxpack/dense.f32')!);
    expect(dense.length).toBe(m.embedding.count * m.embedding.dim * 4);
    expect(createHash('sha256').update(dense).digest('hex')).toBe(m.embedding.sha256);
    const lines = vectorLines(files, 'kb');
    expect(lines.length).toBe(m.embedding.count);
    // Every file at level 2, every directory (the root included) at levels 0 and 1.
    const keys = lines.map((l) => `${l.path}#${l.level}`).sort();
    expect(keys).toEqual(['#0', '#1', 'ops#0', 'ops#1', 'ops/backups.md#2', 'ops/pager.md#2', 'rollback.md#2', 'rollout.md#2']);
    const rows = new Float32Array(new Uint8Array(dense).buffer);
    const live = await stored(A, 'resources/kb');
    for (const l of lines) {
      const row = rows.subarray(l.dense_row * m.embedding.dim, (l.dense_row + 1) * m.embedding.dim);
      expect(Array.from(row)).toEqual(Array.from(live.get(`resources/kb${l.path ? '/' + l.path : ''}#${l.level}`)!));
    }
    expect(lines.find((l) => l.path === 'rollout.md').source_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('scoped to the caller', () => {
  it("a USER's export holds no vectors of entries hidden from them", async () => {
    for (const [p, body] of [
      ['resources/team/open.md', '# Open notes\n\nThe release train leaves every Tuesday.\n'],
      ['resources/team/secret/plan.md', '# Acquisition plan\n\nConfidential merger timeline.\n'],
    ])
      await t.app.vfs.writeFile(A, p, Buffer.from(body));
    await t.app.vfs.setMeta(A, 'resources/team/secret', { meta: { read_access: { users: ['nobody-else'] } } });
    await wait();
    expect([...(await stored(A, 'resources/team')).keys()]).toContain('resources/team/secret/plan.md#2');
    const res = await t.req({ method: 'POST', url: '/api/v1/pack/export', headers: alice, body: { uri: 'ctx://resources/team', include_vectors: true } });
    expect(res.status, res.text).toBe(200);
    const files = unpack(res.body);
    const paths = vectorLines(files, 'team').map((l) => `${l.path}#${l.level}`);
    expect(paths).toContain('open.md#2');
    expect(paths.some((p) => p.startsWith('secret'))).toBe(false);
    expect(manifestOf(files, 'team').embedding.count).toBe(paths.length);
  });

  it("memories in a user's space round-trip with their vectors", async () => {
    const w = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: alice, body: { uri: 'ctx://~/memories/preferences/editor.md', content: 'Prefers vim keybindings and a dark theme.\n' } });
    expect(w.status, w.text).toBe(200);
    await wait();
    const res = await t.req({ method: 'POST', url: '/api/v1/pack/export', headers: alice, body: { uri: 'ctx://~/memories/preferences', include_vectors: true } });
    expect(res.status, res.text).toBe(200);
    const imp = await importPack(res.body, 'ctx://~/memories/restored', 'require', alice);
    expect(imp.status, imp.text).toBe(200);
    const got = await stored(A, 'user/alice/memories/restored/preferences');
    expect(Array.from(got.get('user/alice/memories/restored/preferences/editor.md#2')!)).toEqual(Array.from((await stored(A, 'user/alice/memories/preferences')).get('user/alice/memories/preferences/editor.md#2')!));
  });
});

describe('import', () => {
  it('auto with a compatible embedder: stores the packed vectors, findable at once, not re-embedded', async () => {
    await wait();
    const before = embedded();
    const res = await importPack(pack, 'ctx://resources/copy-auto', 'auto');
    expect(res.status, res.text).toBe(200);
    // No wait: the records were written with the files.
    expect(await found('on-call pages payment gateway', 'ctx://resources/copy-auto')).toContain('ctx://resources/copy-auto/kb/ops/pager.md');
    const packed = await stored(A, 'resources/kb');
    const copied = await stored(A, 'resources/copy-auto/kb');
    expect(copied.size).toBe(packed.size);
    for (const [k, v] of packed) expect(Array.from(copied.get(k.replace('resources/kb', 'resources/copy-auto/kb'))!)).toEqual(Array.from(v));
    await wait();
    // Only the directories above the imported root (copy-auto, resources: L0+L1 each) are embedded.
    expect(embedded() - before).toBeLessThanOrEqual(4);
    expect(await found('nightly database snapshots', 'ctx://resources/copy-auto')).toContain('ctx://resources/copy-auto/kb/ops/backups.md');
  });

  it('recompute ignores the packed vectors and embeds everything', async () => {
    await wait();
    const before = embedded();
    const res = await importPack(pack, 'ctx://resources/copy-recompute', 'recompute');
    expect(res.status, res.text).toBe(200);
    await wait();
    expect(embedded() - before).toBeGreaterThanOrEqual(8);
    expect(await found('on-call pages payment gateway', 'ctx://resources/copy-recompute')).toContain('ctx://resources/copy-recompute/kb/ops/pager.md');
  });

  it('require with a compatible snapshot stores it', async () => {
    const res = await importPack(pack, 'ctx://resources/copy-require', 'require');
    expect(res.status, res.text).toBe(200);
    expect(await found('revert previous release', 'ctx://resources/copy-require')).toContain('ctx://resources/copy-require/kb/rollback.md');
  });

  const incompatible = (edit: (e: Record<string, any>) => void) => {
    const files = unpack(pack);
    const m = manifestOf(files, 'kb');
    edit(m.embedding);
    setManifest(files, 'kb', m);
    return repack(files);
  };

  it('require with another embedder (provider, model, input mode, parameters) fails before writing; auto recomputes', async () => {
    for (const [edit, field] of [
      [(e: Record<string, any>) => (e.model = 'another-model'), /embedding model differs/],
      [(e: Record<string, any>) => (e.provider = 'openai'), /embedding provider differs/],
      [(e: Record<string, any>) => (e.params = { ...e.params, documentPrefix: 'passage: ' }), /embedding params differs/],
      [(e: Record<string, any>) => (e.input_mode = 'image'), /embedding input_mode differs/],
    ] as const) {
      const res = await importPack(incompatible(edit), 'ctx://resources/copy-incompatible', 'require');
      expect(res.status, res.text).toBe(400);
      const err = res.json().error;
      expect(err.code).toBe('INVALID_ARGUMENT');
      expect(err.message).toMatch(field);
      expect(err.details).toMatchObject({ field: 'vector_mode', running: records().embedding() });
      expect(await t.app.vfs.stat(A, 'resources/copy-incompatible')).toBeNull();
    }
    await wait();
    const before = embedded();
    const res = await importPack(incompatible((e) => (e.model = 'another-model')), 'ctx://resources/copy-incompatible', 'auto');
    expect(res.status, res.text).toBe(200);
    await wait();
    expect(embedded() - before).toBeGreaterThanOrEqual(8);
    expect(await found('on-call pages payment gateway', 'ctx://resources/copy-incompatible')).toContain('ctx://resources/copy-incompatible/kb/ops/pager.md');
  });

  it('a corrupt or inconsistent snapshot is rejected whatever the vector_mode, target untouched', async () => {
    const variant = (edit: (f: PackFiles, m: Record<string, any>) => void) => {
      const files = unpack(pack);
      const m = manifestOf(files, 'kb');
      edit(files, m);
      setManifest(files, 'kb', m);
      return repack(files);
    };
    const flipped = variant((f) => {
      const d = Buffer.from(f.get('kb/_ctxpack/dense.f32')!);
      d[5] ^= 0xff;
      f.set('kb/_ctxpack/dense.f32', d);
    });
    const short = variant((f) => f.set('kb/_ctxpack/dense.f32', f.get('kb/_ctxpack/dense.f32')!.subarray(4)));
    const badLevel = variant((f) => {
      const raw = Buffer.from(f.get('kb/_ctxpack/index_records.jsonl')!).toString();
      f.set('kb/_ctxpack/index_records.jsonl', strToU8(raw.replace(/("path":"rollout\.md","level":)2/, '$11')));
    });
    const twice = variant((f) => {
      const raw = Buffer.from(f.get('kb/_ctxpack/index_records.jsonl')!).toString();
      f.set('kb/_ctxpack/index_records.jsonl', strToU8(raw.replace(/("path":"rollback\.md","level":2,"dense_row":)\d+/, '$10').replace(/("path":"","level":0,"dense_row":)\d+/, '$10')));
    });
    const noMeta = variant((_, m) => delete m.embedding);
    const metaWithoutDense = variant((f, m) => {
      f.delete('kb/_ctxpack/dense.f32');
      m.include_vectors = false;
    });
    for (const [zip, why] of [
      [flipped, /sha256 of _ctxpack\/dense\.f32 differs/],
      [short, /embedding\.count × dim/],
      [badLevel, /level 1 does not fit a file/],
      [twice, /described twice|dense_row/],
      [noMeta, /no embedding object/],
      [metaWithoutDense, /without _ctxpack\/dense\.f32/],
    ] as const)
      for (const mode of ['auto', 'recompute']) {
        const res = await importPack(zip, 'ctx://resources/copy-corrupt', mode);
        expect(res.status, res.text).toBe(400);
        expect(res.json().error.message).toMatch(why);
        expect(await t.app.vfs.stat(A, 'resources/copy-corrupt')).toBeNull();
      }
  });
});

describe('backup and restore with vectors', () => {
  it('a backup with include_vectors restores into another account with require, findable at once', async () => {
    const b = await t.req({ method: 'POST', url: '/api/v1/pack/backup', headers: admin, body: { include_vectors: true } });
    expect(b.status, b.text).toBe(200);
    const m = manifestOf(unpack(b.body), 'ctx');
    expect(m.include_vectors).toBe(true);
    expect(m.embedding.count).toBeGreaterThan(8);
    const id = await upload(t, other, b.body);
    const res = await t.req({ method: 'POST', url: '/api/v1/pack/restore', headers: other, body: { temp_file_id: id, vector_mode: 'require' } });
    expect(res.status, res.text).toBe(200);
    expect(await found('on-call pages payment gateway', 'ctx://resources/kb', other)).toContain('ctx://resources/kb/ops/pager.md');
    const mine = await stored(A, 'resources/kb');
    const theirs = await stored('dense-other', 'resources/kb');
    expect([...theirs.keys()].sort()).toEqual([...mine.keys()].sort());
  });

  it('a merge restore refreshes vectors only of added or changed content', async () => {
    await wait();
    const b = await t.req({ method: 'POST', url: '/api/v1/pack/backup', headers: admin, body: { include_vectors: true } });
    // The other account changes one file; restoring the backup over it puts the packed one back.
    const w = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: other, body: { uri: 'ctx://resources/kb/rollback.md', content: 'something else entirely\n' } });
    expect(w.status, w.text).toBe(200);
    await wait();
    const id = await upload(t, other, b.body);
    const res = await t.req({ method: 'POST', url: '/api/v1/pack/restore', headers: other, body: { temp_file_id: id, on_conflict: 'overwrite', vector_mode: 'require' } });
    expect(res.status, res.text).toBe(200);
    const theirs = await stored('dense-other', 'resources/kb');
    const mine = await stored(A, 'resources/kb');
    expect(Array.from(theirs.get('resources/kb/rollback.md#2')!)).toEqual(Array.from(mine.get('resources/kb/rollback.md#2')!));
    expect(await found('revert previous release health checks', 'ctx://resources/kb', other)).toContain('ctx://resources/kb/rollback.md');
  });
});
