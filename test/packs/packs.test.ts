/**
 * Packs through the request pipeline with real zip files: the exported layout (checked with
 * Info-ZIP's unzip as well), round trips, conflict policies, backup/restore, access, and every
 * rejection one by one, each proven to leave the target untouched.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { strToU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { contentSha, manifestOf, rawZip, repack, setManifest, sha256, unpack, upload } from './zip-tools.js';

let t: TestApp;
let admin: Record<string, string>;
let alice: Record<string, string>;
let otherAdmin: Record<string, string>;
const A = 'packs';
const BIN = Buffer.from([0, 1, 2, 3, 250, 251, 252, 253, 254, 255]);

const vfsWrite = (p: string, data: Buffer | string, account = A) => t.app.vfs.writeFile(account, p, Buffer.from(data));
const read = async (p: string, account = A) => (await t.app.vfs.readFile(account, p)).toString('latin1');

async function exportPack(uri: string, who = admin): Promise<Buffer> {
  const res = await t.req({ method: 'POST', url: '/api/v1/pack/export', headers: who, body: { uri } });
  expect(res.status, res.text).toBe(200);
  expect(res.headers['content-type']).toBe('application/zip');
  return res.body;
}

async function importPack(zip: Buffer | Uint8Array, body: Record<string, unknown>, who = admin) {
  const id = await upload(t, who, zip);
  return t.req({ method: 'POST', url: '/api/v1/pack/import', headers: who, body: { temp_file_id: id, ...body } });
}

/** Every file below a path with its bytes (sidecars the indexer writes left out). */
async function snapshot(p: string, account = A): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (!(await t.app.vfs.stat(account, p))) return out;
  for await (const e of t.app.vfs.walk(account, p))
    if (e.kind === 'file' && e.name !== '.abstract.md' && e.name !== '.overview.md') out[e.path.slice(p.length + 1)] = (await t.app.vfs.readFile(account, e.path)).toString('base64');
    else if (e.kind === 'dir') out[e.path.slice(p.length + 1) + '/'] = '';
  return out;
}

beforeAll(async () => {
  t = await startTestApp();
  const a = await t.account(A, ['alice', 'bob']);
  admin = a.admin;
  alice = a.users.alice!;
  otherAdmin = (await t.account('elsewhere')).admin;
  await vfsWrite('resources/proj/readme.md', '# project\n');
  await vfsWrite('resources/proj/docs/guide.md', 'guide text\n');
  await vfsWrite('resources/proj/docs/deep/bin.dat', BIN);
  await vfsWrite('resources/proj/é 😀.md', 'unicode name\n');
  await vfsWrite('resources/proj/.relations.json', '[]');
  await t.app.vfs.mkdir(A, 'resources/proj/empty');
});
afterAll(() => t.close());

describe('export', () => {
  it('writes files/ and _ctxpack/ under one root, with a format 3 manifest', async () => {
    const zip = await exportPack('ctx://resources/proj');
    const files = unpack(zip);
    const names = [...files.keys()];
    expect(names.every((n) => n.startsWith('proj/files/') || n.startsWith('proj/_ctxpack/'))).toBe(true);
    expect(Buffer.from(files.get('proj/files/docs/deep/bin.dat')!)).toEqual(BIN);
    expect(names).toContain('proj/files/empty/');
    expect(names).not.toContain('proj/files/.relations.json');
    const m = manifestOf(files, 'proj');
    expect(m).toMatchObject({ format_version: 3, kind: 'export', source_uri: 'ctx://resources/proj', scope_pack: false, context_type: 'resource', include_vectors: false });
    const guide = m.entries.find((e: { path: string }) => e.path === 'docs/guide.md');
    expect(guide).toEqual({ path: 'docs/guide.md', size: 11, sha256: sha256('guide text\n') });
    expect(m.entries.find((e: { path: string }) => e.path === '')).toEqual({ path: '' });
    expect(m.entries.find((e: { path: string }) => e.path === 'empty')).toEqual({ path: 'empty' });
    expect(m.content_sha256).toBe(contentSha(m.entries));
    const records = Buffer.from(files.get('proj/_ctxpack/index_records.jsonl')!).toString().trim().split('\n').map((l) => JSON.parse(l));
    expect(records.find((r) => r.path === 'docs/guide.md')).toMatchObject({ kind: 'file', context_type: 'resource', size: 11 });
    expect(files.has('proj/_ctxpack/dense.f32')).toBe(false);
  });

  it('is a zip Info-ZIP reads and tests', async () => {
    const dir = tempDir('ctx-pack-unzip-');
    try {
      fs.writeFileSync(path.join(dir, 'p.zip'), await exportPack('ctx://resources/proj'));
      expect(execFileSync('unzip', ['-t', path.join(dir, 'p.zip')], { encoding: 'utf8' })).toContain('No errors detected');
      execFileSync('unzip', ['-q', path.join(dir, 'p.zip'), '-d', path.join(dir, 'out')]);
      expect(fs.readFileSync(path.join(dir, 'out/proj/files/docs/deep/bin.dat'))).toEqual(BIN);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a file, the account root, a missing path and unknown fields', async () => {
    const code = async (body: unknown, status: number) => {
      const res = await t.req({ method: 'POST', url: '/api/v1/pack/export', headers: admin, body });
      expect(res.status, res.text).toBe(status);
    };
    await code({ uri: 'ctx://resources/proj/readme.md' }, 400);
    await code({ uri: 'ctx://' }, 400);
    await code({ uri: 'ctx://resources/nope' }, 404);
    await code({ uri: 'ctx://temp/x' }, 400);
    await code({ uri: 'ctx://resources/proj', extra: 1 }, 400);
  });
});

describe('over a real socket', () => {
  it('streams the export and the backup with their headers, and imports what it streamed', async () => {
    const server = await t.app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${server.port}`;
    const post = (url: string, body: unknown) => fetch(base + url, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const res = await post('/api/v1/pack/export', { uri: 'ctx://resources/proj' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toContain('proj.ctxpack');
    const zip = Buffer.from(await res.arrayBuffer());
    await expectSameFilesAsInProcess(zip);
    const backup = await post('/api/v1/pack/backup', {});
    expect(backup.status).toBe(200);
    expect(backup.headers.get('content-disposition')).toMatch(/^attachment; filename="packs-.*\.ctxpack"/);
    expect(manifestOf(unpack(Buffer.from(await backup.arrayBuffer())), 'ctx').kind).toBe('backup');
    const id = await upload(t, admin, zip);
    const imported = await post('/api/v1/pack/import', { temp_file_id: id, parent: 'ctx://resources/via-socket' });
    expect(imported.status).toBe(200);
    expect((await imported.json()).result).toEqual({ uri: 'ctx://resources/via-socket/proj' });
    expect(await read('resources/via-socket/proj/docs/deep/bin.dat')).toBe(BIN.toString('latin1'));
  });
});

/** The socket's bytes are a valid pack of the same files as an in-process export (times aside). */
async function expectSameFilesAsInProcess(zip: Buffer): Promise<void> {
  // The indexer may write L0/L1 sidecars between the two exports: compare the user's files.
  const derived = (k: string) => k.endsWith('manifest.json') || k.endsWith('index_records.jsonl') || /\.(abstract|overview)\.md$/.test(k);
  const a = new Map([...unpack(zip)].filter(([k]) => !derived(k)));
  const b = new Map([...unpack(await exportPack('ctx://resources/proj'))].filter(([k]) => !derived(k)));
  expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
  for (const [k, v] of a) expect(Buffer.from(v)).toEqual(Buffer.from(b.get(k)!));
}

describe('import', () => {
  it('round trip: export then import is byte-identical, directories included', async () => {
    const res = await importPack(await exportPack('ctx://resources/proj'), { parent: 'ctx://resources/copies' });
    expect(res.status, res.text).toBe(200);
    expect(res.json().result).toEqual({ uri: 'ctx://resources/copies/proj' });
    // The spec's row: the envelope carries telemetry.operation_id though the request did not ask.
    expect(res.json().telemetry).toEqual(expect.objectContaining({ operation_id: expect.stringMatching(/\S/) }));
    const original = await snapshot('resources/proj');
    delete original['.relations.json'];
    expect(await snapshot('resources/copies/proj')).toEqual(original);
  });

  it('on_conflict: fail is 409, skip keeps the target, overwrite replaces it', async () => {
    const zip = await exportPack('ctx://resources/proj');
    await vfsWrite('resources/target/proj/only-here.md', 'target only');
    const before = await snapshot('resources/target/proj');
    const fail = await importPack(zip, { parent: 'ctx://resources/target' });
    expect(fail.status).toBe(409);
    expect(fail.json().telemetry.operation_id).toEqual(expect.any(String));
    expect(fail.json().error.details.resource).toBe('ctx://resources/target/proj');
    expect(await snapshot('resources/target/proj')).toEqual(before);
    const skip = await importPack(zip, { parent: 'ctx://resources/target', on_conflict: 'skip' });
    expect(skip.status).toBe(200);
    expect(skip.json().result).toEqual({ uri: 'ctx://resources/target/proj' });
    expect(await snapshot('resources/target/proj')).toEqual(before);
    const over = await importPack(zip, { parent: 'ctx://resources/target', on_conflict: 'overwrite' });
    expect(over.status, over.text).toBe(200);
    expect(await read('resources/target/proj/readme.md')).toBe('# project\n');
    expect(await t.app.vfs.stat(A, 'resources/target/proj/only-here.md')).toBeNull();
  });

  it('skip still validates the whole pack first', async () => {
    const files = unpack(await exportPack('ctx://resources/proj'));
    files.set('proj/files/readme.md', strToU8('# pr0ject\n'));
    const res = await importPack(repack(files), { parent: 'ctx://resources/target', on_conflict: 'skip' });
    expect(res.status).toBe(400);
  });

  it('a scope pack imports only to parent ctx://; context types must match the target', async () => {
    const scope = await exportPack('ctx://resources');
    expect(manifestOf(unpack(scope), 'resources').scope_pack).toBe(true);
    const bad = await importPack(scope, { parent: 'ctx://resources/x' });
    expect(bad.status).toBe(400);
    expect(bad.json().error.details.field).toBe('parent');
    const ok = await importPack(scope, { parent: 'ctx://', on_conflict: 'skip' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json().result).toEqual({ uri: 'ctx://resources' });
    await vfsWrite('user/alice/memories/prefs/m.md', 'likes tea');
    const memories = await exportPack('ctx://user/alice/memories/prefs');
    const mismatch = await importPack(memories, { parent: 'ctx://resources/elsewhere' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json().error.message).toMatch(/memory/);
    expect(await t.app.vfs.stat(A, 'resources/elsewhere')).toBeNull();
  });
});

describe('every rejection leaves the target untouched', () => {
  let good: Map<string, Uint8Array>;
  let before: Record<string, string>;

  beforeAll(async () => {
    good = unpack(await exportPack('ctx://resources/proj'));
    await vfsWrite('resources/guarded/proj/keep.md', 'must survive');
    before = await snapshot('resources/guarded');
  });

  /** Imports with on_conflict=overwrite, so only the rejection can keep the target as it was. */
  async function rejected(zip: Buffer, expectMessage: RegExp, status = 400, body: Record<string, unknown> = {}) {
    const res = await importPack(zip, { parent: 'ctx://resources/guarded', on_conflict: 'overwrite', ...body });
    expect(res.status, res.text).toBe(status);
    expect(res.json().error.message).toMatch(expectMessage);
    expect(await snapshot('resources/guarded')).toEqual(before);
    return res.json().error;
  }
  const variant = (edit: (f: Map<string, Uint8Array>, m: Record<string, any>) => void, fixSha = true) => {
    const f = new Map(good);
    const m = manifestOf(f, 'proj');
    edit(f, m);
    if (fixSha) m.content_sha256 = contentSha(m.entries);
    setManifest(f, 'proj', m);
    return repack(f);
  };

  it('a valid pack does replace it (the control case)', async () => {
    const before2 = await snapshot('resources/control');
    await vfsWrite('resources/control/proj/x.md', 'x');
    const res = await importPack(repack(good), { parent: 'ctx://resources/control', on_conflict: 'overwrite' });
    expect(res.status).toBe(200);
    expect(await snapshot('resources/control')).not.toEqual(before2);
  });

  it('1. missing manifest', async () => {
    const f = new Map(good);
    f.delete('proj/_ctxpack/manifest.json');
    await rejected(repack(f), /without a manifest/);
  });
  it('2a. extra file', async () => {
    await rejected(variant((f) => f.set('proj/files/smuggled.md', strToU8('x'))), /not in the manifest/);
  });
  it('2b. extra directory', async () => {
    await rejected(variant((f) => f.set('proj/files/smuggled/', new Uint8Array())), /not in the manifest/);
  });
  it('2c. missing file', async () => {
    await rejected(variant((f) => f.delete('proj/files/docs/guide.md')), /missing from the archive/);
  });
  it('2d. missing directory', async () => {
    await rejected(variant((f) => f.delete('proj/files/empty/')), /missing from the archive/);
  });
  it('2e. size mismatch', async () => {
    await rejected(variant((_, m) => (m.entries.find((e: { path: string }) => e.path === 'readme.md').size = 5)), /size of/);
  });
  it('2f. sha256 mismatch (same size)', async () => {
    await rejected(variant((f) => f.set('proj/files/readme.md', strToU8('# pr0ject\n'))), /sha256 of "readme.md"/);
  });
  it('2g. content_sha256 missing or different', async () => {
    await rejected(variant((_, m) => delete m.content_sha256, false), /content_sha256/);
    await rejected(variant((_, m) => (m.content_sha256 = sha256('other')), false), /content_sha256/);
  });
  it('2h. format_version other than 3', async () => {
    const e = await rejected(variant((_, m) => (m.format_version = 2)), /format_version must be 3/);
    expect(e.details).toMatchObject({ format_version: 2, expected: 3 });
  });
  it('malformed manifest JSON, unknown fields, a manifest that is not an object', async () => {
    const f = new Map(good);
    f.set('proj/_ctxpack/manifest.json', strToU8('{"format_version": 3,'));
    await rejected(repack(f), /not valid JSON/);
    await rejected(variant((_, m) => (m.surprise = true)), /unknown manifest field "surprise"/);
    await rejected(variant((_, m) => (m.entries[1].mode = 420)), /unknown manifest entry field "mode"/);
    f.set('proj/_ctxpack/manifest.json', strToU8('[3]'));
    await rejected(repack(f), /must be a JSON object/);
  });
  it('malformed index_records.jsonl', async () => {
    await rejected(variant((f) => f.set('proj/_ctxpack/index_records.jsonl', strToU8('{"path":""}\nnot json\n'))), /line 2 is not valid JSON/);
    await rejected(variant((f) => f.set('proj/_ctxpack/index_records.jsonl', strToU8('{"path":"elsewhere.md"}\n'))), /outside the manifest/);
  });
  it('zip slip, absolute paths, backslashes', async () => {
    for (const [name, why] of [
      ['proj/files/../../../escape.md', /zip slip/],
      ['../escape.md', /zip slip/],
      ['/etc/passwd', /absolute/],
      ['C:/windows/x', /absolute/],
      ['proj/files/a\\..\\..\\b', /backslash/],
    ] as const) {
      await rejected(rawZip([{ name: 'proj/files/', data: Buffer.alloc(0) }, { name, data: Buffer.from('x') }]), why);
    }
  });
  it('symlinks and other special files', async () => {
    await rejected(rawZip([{ name: 'proj/files/', data: Buffer.alloc(0) }, { name: 'proj/files/link', data: Buffer.from('/etc/passwd'), mode: 0o120777 }]), /symbolic links/);
    await rejected(rawZip([{ name: 'proj/files/fifo', data: Buffer.alloc(0), mode: 0o010644 }]), /special files/);
  });
  it('zip bombs: extreme ratios, overlapping entries, lying sizes', async () => {
    const bomb = new Map(good);
    bomb.set('proj/files/zeros.bin', new Uint8Array(64 << 20));
    await rejected(repack(bomb), /zip bomb/);
    await rejected(
      rawZip([
        { name: 'proj/files/a.md', data: Buffer.from('same bytes') },
        { name: 'proj/files/b.md', sameDataAs: 0 },
      ]),
      /overlapping/,
    );
    // Deflated data that inflates past the size the directory (and the manifest) declare.
    const lying = variant((_, m) => (m.entries.find((e: { path: string }) => e.path === 'readme.md').size = 4));
    const cd = lying.lastIndexOf(Buffer.from('proj/files/readme.md'));
    expect(lying.readUInt32LE(cd - 46)).toBe(0x02014b50);
    lying.writeUInt32LE(4, cd - 46 + 24);
    await rejected(lying, /inflates past its declared size/);
  });
  it('not a zip, two top directories, entries outside files/ and _ctxpack/', async () => {
    await rejected(Buffer.from('this is not a zip file at all'), /not a zip/);
    await rejected(variant((f) => f.set('other/files/x.md', strToU8('x'))), /one top directory/);
    await rejected(variant((f) => f.set('proj/notes.txt', strToU8('x'))), /unexpected entry/);
  });
  it('a backup pack passed to import (rule 8)', async () => {
    const res = await t.req({ method: 'POST', url: '/api/v1/pack/backup', headers: admin, body: {} });
    await rejected(res.body, /backup pack cannot be imported/);
  });
  it('vector_mode=require without a dense snapshot; include_vectors without dense.f32', async () => {
    await rejected(repack(good), /vector_mode=require/, 400, { vector_mode: 'require' });
    await rejected(variant((_, m) => (m.include_vectors = true)), /dense\.f32 is missing/);
  });
  it('entries that are not valid ctx:// names', async () => {
    const f = new Map(good);
    const m = manifestOf(f, 'proj');
    f.set('proj/files/bad\u0001name.md', strToU8('x'));
    m.entries.push({ path: 'bad\u0001name.md', size: 1, sha256: sha256('x') });
    m.content_sha256 = contentSha(m.entries);
    setManifest(f, 'proj', m);
    await rejected(repack(f), /not a valid ctx:\/\/ path/);
  });
});

describe('access', () => {
  it('a USER exports only what they can read: hidden entries are left out', async () => {
    await vfsWrite('resources/shared/open.md', 'open');
    await vfsWrite('resources/shared/secret/plan.md', 'secret plan');
    await t.app.vfs.setMeta(A, 'resources/shared/secret', { meta: { read_access: { users: ['bob'] } } });
    const files = unpack(await exportPack('ctx://resources/shared', alice));
    expect([...files.keys()].some((n) => n.includes('secret'))).toBe(false);
    expect(Buffer.from(files.get('shared/files/open.md')!).toString()).toBe('open');
    const denied = await t.req({ method: 'POST', url: '/api/v1/pack/export', headers: alice, body: { uri: 'ctx://resources/shared/secret' } });
    expect(denied.status).toBe(403);
  });

  it("a USER cannot export or import into another user's space, nor replace what they cannot read", async () => {
    await vfsWrite('user/bob/memories/x/private.md', 'bob private');
    expect((await t.req({ method: 'POST', url: '/api/v1/pack/export', headers: alice, body: { uri: 'ctx://user/bob/memories/x' } })).status).toBe(403);
    const zip = await exportPack('ctx://user/bob/memories/x');
    const into = await importPack(zip, { parent: 'ctx://user/bob/memories/y' }, alice);
    expect(into.status).toBe(403);
    const shared = unpack(await exportPack('ctx://resources/shared'));
    const replace = await importPack(repack(shared), { parent: 'ctx://resources', on_conflict: 'overwrite' }, alice);
    expect(replace.status).toBe(403);
    expect(await read('resources/shared/secret/plan.md')).toBe('secret plan');
  });

  it("another account's temp upload is not found; backup and restore need ADMIN or ROOT", async () => {
    const id = await upload(t, admin, await exportPack('ctx://resources/proj'));
    const res = await t.req({ method: 'POST', url: '/api/v1/pack/import', headers: otherAdmin, body: { temp_file_id: id, parent: 'ctx://resources' } });
    expect(res.status).toBe(404);
    expect((await t.req({ method: 'POST', url: '/api/v1/pack/backup', headers: alice, body: {} })).status).toBe(403);
    expect((await t.req({ method: 'POST', url: '/api/v1/pack/restore', headers: alice, body: { temp_file_id: id } })).status).toBe(403);
  });
});

describe('backup and restore', () => {
  let backup: Buffer;

  it('backs up resources and every user space, with a Content-Disposition', async () => {
    const res = await t.req({ method: 'POST', url: '/api/v1/pack/backup', headers: admin, body: {} });
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename=".*\.ctxpack"/);
    backup = res.body;
    const files = unpack(backup);
    const m = manifestOf(files, 'ctx');
    expect(m).toMatchObject({ kind: 'backup', source_uri: 'ctx://', format_version: 3 });
    expect(files.has('ctx/files/user/bob/memories/x/private.md')).toBe(true);
    expect(files.has('ctx/files/resources/shared/secret/plan.md')).toBe(true);
    expect([...files.keys()].every((n) => n.startsWith('ctx/files/resources') || n.startsWith('ctx/files/user') || n.startsWith('ctx/_ctxpack/') || n === 'ctx/files/')).toBe(true);
  });

  it('restores into another account byte for byte; an export pack is refused', async () => {
    const { admin: fresh } = await t.account('fresh');
    const id = await upload(t, fresh, backup);
    const res = await t.req({ method: 'POST', url: '/api/v1/pack/restore', headers: fresh, body: { temp_file_id: id } });
    expect(res.status, res.text).toBe(200);
    expect(res.json().result).toEqual({ uri: 'ctx://' });
    for (const scope of ['resources', 'user']) {
      const src = await snapshot(scope);
      for (const k of Object.keys(src)) if (k.endsWith('.relations.json')) delete src[k];
      expect(await snapshot(scope, 'fresh')).toEqual(src);
    }
    const exportId = await upload(t, fresh, await exportPack('ctx://resources/proj'));
    const wrong = await t.req({ method: 'POST', url: '/api/v1/pack/restore', headers: fresh, body: { temp_file_id: exportId } });
    expect(wrong.status).toBe(400);
    expect(wrong.json().error.message).toMatch(/backup pack/);
  });

  it('fail is 409 when content exists; skip writes nothing; overwrite merges (target-only paths kept)', async () => {
    await vfsWrite('resources/proj/readme.md', 'changed after the backup', 'fresh');
    await vfsWrite('resources/only-in-target.md', 'target only', 'fresh');
    const before = await snapshot('resources', 'fresh');
    const { admin: fresh } = { admin: await freshAdmin() };
    const id = await upload(t, fresh, backup);
    const fail = await t.req({ method: 'POST', url: '/api/v1/pack/restore', headers: fresh, body: { temp_file_id: id } });
    expect(fail.status).toBe(409);
    const skip = await t.req({ method: 'POST', url: '/api/v1/pack/restore', headers: fresh, body: { temp_file_id: id, on_conflict: 'skip' } });
    expect(skip.status).toBe(200);
    expect(await snapshot('resources', 'fresh')).toEqual(before);
    const untouched = await t.app.vfs.stat('fresh', 'resources/proj/docs/guide.md');
    const merge = await t.req({ method: 'POST', url: '/api/v1/pack/restore', headers: fresh, body: { temp_file_id: id, on_conflict: 'overwrite' } });
    expect(merge.status, merge.text).toBe(200);
    // Files already holding the packed bytes are not rewritten (their vectors stay as they are).
    expect((await t.app.vfs.stat('fresh', 'resources/proj/docs/guide.md'))!.mtime).toBe(untouched!.mtime);
    expect(await read('resources/proj/readme.md', 'fresh')).toBe('# project\n');
    expect(await read('resources/only-in-target.md', 'fresh')).toBe('target only');
  });

  it('a corrupt backup fails even with skip', async () => {
    const files = unpack(backup);
    files.set('ctx/files/resources/proj/readme.md', strToU8('# pr0ject\n'));
    const id = await upload(t, admin, repack(files));
    const res = await t.req({ method: 'POST', url: '/api/v1/pack/restore', headers: admin, body: { temp_file_id: id, on_conflict: 'skip' } });
    expect(res.status).toBe(400);
  });
});

async function freshAdmin(): Promise<Record<string, string>> {
  const res = await t.req({ method: 'POST', url: '/api/v1/admin/accounts/fresh/users/admin/key', headers: t.root });
  expect(res.status, res.text).toBe(200);
  return { 'x-api-key': res.json().result.user_key };
}
