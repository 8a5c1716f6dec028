import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Kv } from '../../runtime/storage/kv.js';
import { RocksDbBackend } from '../../runtime/storage/rocksdb.js';
import { recordId } from '../../runtime/vfs/record-id.js';
import type { ChangeEvent, Entry } from '../../runtime/vfs/types.js';
import { DIR_MODE, FILE_MODE } from '../../runtime/vfs/types.js';
import { Vfs, ancestorDirs, fileMetaJson, mergeTags, sha256Of } from '../../runtime/vfs/vfs.js';
import { tempDir } from '../helpers/app.js';

const A = 'acme';
const B = 'globex';
const b = (s: string) => Buffer.from(s, 'utf8');

/** Resolves to the error a promise rejects with (fails when it resolves). */
async function failure(p: Promise<unknown>): Promise<{ code?: string; status?: number; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code?: string; status?: number; message: string };
  }
  throw new Error('expected the operation to fail');
}

describe('Vfs on RocksDB', () => {
  let dir: string;
  let kv: Kv;
  let vfs: Vfs;
  let events: ChangeEvent[];

  beforeEach(async () => {
    dir = tempDir('ctx-vfs-');
    kv = await Kv.open(new RocksDbBackend(dir));
    vfs = new Vfs(kv.sub('vfs'));
    events = [];
    vfs.on('change', (e: ChangeEvent) => events.push(e));
  });
  afterEach(async () => {
    await kv.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const names = (es: Entry[]) => es.map((e) => e.name);

  describe('implicit scope roots', () => {
    it("'', resources and user exist in every account without being written", async () => {
      for (const p of ['', 'resources', 'user']) {
        const st = await vfs.stat('fresh', p);
        expect(st).toMatchObject({ kind: 'dir', path: p, mode: DIR_MODE, mtime: 0 });
      }
      expect(await vfs.stat('fresh', 'other')).toBeNull();
      expect(names(await vfs.list('fresh', ''))).toEqual(['resources', 'user']);
      expect(await vfs.list('fresh', 'resources')).toEqual([]);
      expect((await vfs.statMany('fresh', ['user', 'nope', 'resources'])).map((e) => e?.path ?? null)).toEqual(['user', null, 'resources']);
    });

    it('cannot be written as files, removed or moved', async () => {
      for (const p of ['', 'resources', 'user']) {
        expect((await failure(vfs.writeFile(A, p, b('x')))).code).toBe('INVALID_ARGUMENT');
        expect((await failure(vfs.rm(A, p, { recursive: true }))).code).toBe('INVALID_ARGUMENT');
        expect((await failure(vfs.mv(A, p, 'elsewhere'))).code).toBe('INVALID_ARGUMENT');
      }
      await vfs.writeFile(A, 'resources/a.md', b('a'));
      expect((await failure(vfs.mv(A, 'resources/a.md', 'user'))).code).toBe('INVALID_ARGUMENT');
    });

    it('are materialized with a real mtime the first time something is written below them', async () => {
      await vfs.writeFile(A, 'resources/doc.md', b('x'));
      const st = await vfs.stat(A, 'resources');
      expect(st!.mtime).toBeGreaterThan(0);
      expect((await vfs.stat(A, 'user'))!.mtime).toBe(0);
      expect(names(await vfs.list(A, ''))).toEqual(['resources', 'user']);
      // Tagging an implicit root materializes it too.
      await vfs.setMeta(A, 'user', { tags: ['k=v'] });
      expect(await vfs.stat(A, 'user')).toMatchObject({ tags: ['k=v'] });
      expect((await vfs.stat(A, 'user'))!.mtime).toBeGreaterThan(0);
    });
  });

  describe('mkdir', () => {
    it('creates every missing ancestor and reports them; existing directories are fine', async () => {
      const r = await vfs.mkdir(A, 'resources/a/b/c');
      expect(r.created).toEqual(['resources', 'resources/a', 'resources/a/b', 'resources/a/b/c']);
      expect(events.map((e) => [e.type, e.path, e.kind])).toEqual(r.created.map((p) => ['mkdir', p, 'dir']));
      expect((await vfs.mkdir(A, 'resources/a/b')).created).toEqual([]);
      expect((await vfs.mkdir(A, 'resources/a/b/c/d')).created).toEqual(['resources/a/b/c/d']);
      expect((await failure(vfs.mkdir(A, 'resources/a', { existOk: false }))).code).toBe('CONFLICT');
      expect(await vfs.stat(A, 'resources/a/b')).toMatchObject({ kind: 'dir', size: 0, mode: DIR_MODE, name: 'b' });
    });

    it('conflicts with a file at the path or at an ancestor', async () => {
      await vfs.writeFile(A, 'resources/f', b('x'));
      expect((await failure(vfs.mkdir(A, 'resources/f'))).code).toBe('CONFLICT');
      expect((await failure(vfs.mkdir(A, 'resources/f/sub'))).code).toBe('CONFLICT');
      expect(await vfs.stat(A, 'resources/f/sub')).toBeNull();
    });
  });

  describe('writeFile / readFile', () => {
    it('replace: creates with parents, overwrites, reports created/changed/size/sha/id', async () => {
      const w1 = await vfs.writeFile(A, 'resources/d/e/f.md', b('hello'));
      const id = recordId(A, 'ctx://resources/d/e/f.md', 2);
      expect(w1).toEqual({ path: 'resources/d/e/f.md', created: true, changed: true, size: 5, writtenBytes: 5, sha256: sha256Of(b('hello')), id });
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect((await vfs.readFile(A, 'resources/d/e/f.md')).toString()).toBe('hello');
      expect((await vfs.stat(A, 'resources/d/e'))!.kind).toBe('dir');
      const st = await vfs.stat(A, 'resources/d/e/f.md');
      expect(st).toMatchObject({ kind: 'file', size: 5, mode: FILE_MODE, sha256: w1.sha256, id, name: 'f.md', path: 'resources/d/e/f.md' });
      const w2 = await vfs.writeFile(A, 'resources/d/e/f.md', b('bye'));
      expect(w2).toMatchObject({ created: false, changed: true, size: 3 });
      expect((await vfs.stat(A, 'resources/d/e/f.md'))!.ctime).toBe(st!.ctime);
      // Same bytes again: nothing written, no event.
      const n = events.length;
      expect(await vfs.writeFile(A, 'resources/d/e/f.md', b('bye'))).toMatchObject({ created: false, changed: false, writtenBytes: 0 });
      expect(events.length).toBe(n);
    });

    it('append adds to the end (and creates a missing file); create refuses an existing file', async () => {
      expect(await vfs.writeFile(A, 'resources/log.txt', b('a\n'), { mode: 'append' })).toMatchObject({ created: true, size: 2 });
      expect(await vfs.writeFile(A, 'resources/log.txt', b('b\n'), { mode: 'append' })).toMatchObject({ created: false, size: 4, writtenBytes: 2 });
      expect((await vfs.readFile(A, 'resources/log.txt')).toString()).toBe('a\nb\n');
      expect((await vfs.stat(A, 'resources/log.txt'))!.sha256).toBe(sha256Of(b('a\nb\n')));
      expect(await vfs.writeFile(A, 'resources/new.txt', b('x'), { mode: 'create' })).toMatchObject({ created: true });
      expect((await failure(vfs.writeFile(A, 'resources/new.txt', b('y'), { mode: 'create' }))).code).toBe('CONFLICT');
      expect((await vfs.readFile(A, 'resources/new.txt')).toString()).toBe('x');
    });

    it('binary and empty content round-trip', async () => {
      const bin = Buffer.from([0, 1, 2, 255, 0, 0xc3]);
      await vfs.writeFile(A, 'resources/bin', bin);
      await vfs.writeFile(A, 'resources/empty', Buffer.alloc(0));
      expect((await vfs.readFile(A, 'resources/bin')).equals(bin)).toBe(true);
      expect((await vfs.readFile(A, 'resources/empty')).length).toBe(0);
      expect((await vfs.stat(A, 'resources/empty'))!.size).toBe(0);
      expect((await vfs.readMany(A, ['resources/bin', 'resources/nope', 'resources'])).map((x) => x?.length)).toEqual([6, undefined, undefined]);
    });

    it('errors: a directory where a file is expected, a file where a directory is needed, a missing file', async () => {
      await vfs.mkdir(A, 'resources/dir');
      await vfs.writeFile(A, 'resources/file', b('x'));
      expect(await failure(vfs.writeFile(A, 'resources/dir', b('x')))).toMatchObject({ code: 'INVALID_ARGUMENT', status: 400 });
      expect(await failure(vfs.readFile(A, 'resources/dir'))).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(await failure(vfs.writeFile(A, 'resources/file/child', b('x')))).toMatchObject({ code: 'CONFLICT', status: 409 });
      expect(await failure(vfs.readFile(A, 'resources/missing'))).toMatchObject({ code: 'NOT_FOUND', status: 404 });
      expect(await failure(vfs.readLines(A, 'resources/missing'))).toMatchObject({ code: 'NOT_FOUND' });
    });

    it('readLines: offset and limit by line, -1 reads to the end', async () => {
      await vfs.writeFile(A, 'resources/l.txt', b('l0\nl1\nl2\nl3\nl4'));
      expect(await vfs.readLines(A, 'resources/l.txt')).toBe('l0\nl1\nl2\nl3\nl4');
      expect(await vfs.readLines(A, 'resources/l.txt', 1, 2)).toBe('l1\nl2');
      expect(await vfs.readLines(A, 'resources/l.txt', 3)).toBe('l3\nl4');
      expect(await vfs.readLines(A, 'resources/l.txt', 0, 1)).toBe('l0');
      expect(await vfs.readLines(A, 'resources/l.txt', 4, 10)).toBe('l4');
      expect(await vfs.readLines(A, 'resources/l.txt', 9, 2)).toBe('');
      expect(await vfs.readLines(A, 'resources/l.txt', 2, 0)).toBe('');
    });

    it('record ids: deterministic per account and URI, resolvable back to the path', async () => {
      const w = await vfs.writeFile(A, 'resources/x.md', b('1'));
      const w2 = await vfs.writeFile(B, 'resources/x.md', b('1'));
      expect(w.id).not.toBe(w2.id);
      expect(await vfs.pathOfRecordId(A, w.id)).toBe('resources/x.md');
      expect(await vfs.pathOfRecordId(B, w.id)).toBeNull();
      expect(await vfs.pathOfRecordId(A, '0'.repeat(32))).toBeNull();
      expect((await vfs.writeFile(A, 'resources/x.md', b('2'))).id).toBe(w.id);
    });
  });

  describe('tags and meta', () => {
    it('writeFile sets tags; later writes keep them unless given; setMeta replaces or appends by key', async () => {
      await vfs.writeFile(A, 'resources/t.md', b('x'), { tags: ['lang=en', 'kind=doc', 'lang=en'], meta: { source: 'upload' } });
      expect(await vfs.stat(A, 'resources/t.md')).toMatchObject({ tags: ['lang=en', 'kind=doc'], meta: { source: 'upload' } });
      await vfs.writeFile(A, 'resources/t.md', b('y'));
      expect(await vfs.stat(A, 'resources/t.md')).toMatchObject({ tags: ['lang=en', 'kind=doc'], meta: { source: 'upload' } });
      // Same content but new tags: a metadata change is still written.
      await vfs.writeFile(A, 'resources/t.md', b('y'), { tags: ['lang=de'], tagMode: 'append' });
      expect((await vfs.stat(A, 'resources/t.md'))!.tags).toEqual(['lang=de', 'kind=doc']);
      events.length = 0;
      const e = await vfs.setMeta(A, 'resources/t.md', { tags: ['team=x'], tagMode: 'append', meta: { extra: 1 } });
      expect(e).toMatchObject({ tags: ['lang=de', 'kind=doc', 'team=x'], meta: { source: 'upload', extra: 1 }, path: 'resources/t.md' });
      expect(events).toEqual([{ type: 'meta', account: A, path: 'resources/t.md', kind: 'file' }]);
      await vfs.setMeta(A, 'resources/t.md', { tags: [] });
      expect((await vfs.stat(A, 'resources/t.md'))!.tags).toBeUndefined();
      expect((await vfs.readFile(A, 'resources/t.md')).toString()).toBe('y');
      await vfs.mkdir(A, 'resources/d');
      expect(await vfs.setMeta(A, 'resources/d', { tags: ['a=b'] })).toMatchObject({ kind: 'dir', tags: ['a=b'] });
      expect((await failure(vfs.setMeta(A, 'resources/none', { tags: ['a=b'] }))).code).toBe('NOT_FOUND');
    });

    it('mergeTags', () => {
      expect(mergeTags(['a=1'], undefined)).toEqual(['a=1']);
      expect(mergeTags(['a=1'], [], 'replace')).toBeUndefined();
      expect(mergeTags(['a=1', 'b=2'], ['a=3', 'c=4'], 'append')).toEqual(['a=3', 'b=2', 'c=4']);
      expect(mergeTags(undefined, [], 'append')).toBeUndefined();
    });
  });

  describe('list and walk', () => {
    it('lists direct children in name order; cursor pages concatenate to the full listing', async () => {
      const kids = ['b', 'a', 'c.md', 'A', 'z', 'é', '\u{1F600}', 'a b', 'a-b', '0'];
      for (const k of kids) await vfs.writeFile(A, `resources/p/${k}`, b(k));
      await vfs.mkdir(A, 'resources/p/sub');
      await vfs.writeFile(A, 'resources/p/sub/deep', b('d'));
      await vfs.writeFile(A, 'resources/pp', b('sibling with a shared prefix'));
      const full = await vfs.list(A, 'resources/p');
      const expected = [...kids, 'sub'].sort((x, y) => Buffer.compare(b(x), b(y)));
      expect(names(full)).toEqual(expected);
      expect(full.find((e) => e.name === 'sub')).toMatchObject({ kind: 'dir', path: 'resources/p/sub' });
      expect(full.find((e) => e.name === 'a')).toMatchObject({ kind: 'file', size: 1, path: 'resources/p/a' });
      for (const limit of [1, 3, 4]) {
        const paged: string[] = [];
        let after: string | undefined;
        for (let guard = 0; guard < 50; guard++) {
          const page = await vfs.list(A, 'resources/p', { after, limit });
          expect(page.length).toBeLessThanOrEqual(limit);
          if (page.length === 0) break;
          paged.push(...names(page));
          after = page[page.length - 1]!.name;
        }
        expect(paged).toEqual(expected);
      }
      expect(await vfs.list(A, 'resources/none')).toEqual([]);
    });

    it('root listing pages include the implicit scopes in order and respect the limit', async () => {
      for (const d of ['a', 'm', 'x', 'zz']) await vfs.mkdir(A, d);
      const expected = ['a', 'm', 'resources', 'user', 'x', 'zz'];
      expect(names(await vfs.list(A, ''))).toEqual(expected);
      for (const limit of [1, 2, 3, 5]) {
        const paged: string[] = [];
        let after: string | undefined;
        for (let guard = 0; guard < 20; guard++) {
          const page = await vfs.list(A, '', { after, limit });
          expect(page.length).toBeLessThanOrEqual(limit);
          if (page.length === 0) break;
          paged.push(...names(page));
          after = page[page.length - 1]!.name;
        }
        expect(paged, `limit ${limit}`).toEqual(expected);
      }
      // Once materialized, a scope is listed once.
      await vfs.writeFile(A, 'resources/f', b('x'));
      expect(names(await vfs.list(A, ''))).toEqual(expected);
    });

    it('walk visits every descendant once with its depth: parents before children, siblings in name order', async () => {
      for (const p of ['r/a/1', 'r/a/2', 'r/a/s/deep', 'r/b', 'r/c/x']) await vfs.writeFile(A, p, b(p));
      const all: Array<[string, number]> = [];
      for await (const e of vfs.walk(A, 'r')) all.push([e.path, e.depth]);
      // A directory's children are yielded together, then its subdirectories are walked in order.
      expect(all).toEqual([
        ['r/a', 1],
        ['r/b', 1],
        ['r/c', 1],
        ['r/a/1', 2],
        ['r/a/2', 2],
        ['r/a/s', 2],
        ['r/a/s/deep', 3],
        ['r/c/x', 2],
      ]);
      const shallow: string[] = [];
      for await (const e of vfs.walk(A, 'r', { maxDepth: 1 })) shallow.push(e.path);
      expect(shallow).toEqual(['r/a', 'r/b', 'r/c']);
      const pruned: string[] = [];
      for await (const e of vfs.walk(A, 'r', { descend: (e) => e.name !== 'a' })) pruned.push(e.path);
      expect(pruned).toEqual(['r/a', 'r/b', 'r/c', 'r/c/x']);
      const fromFile: string[] = [];
      for await (const e of vfs.walk(A, 'r/b')) fromFile.push(e.path);
      expect(fromFile).toEqual([]);
    });
  });

  describe('rm', () => {
    it('removes a file with its content and record id; removing again is a no-op', async () => {
      const w = await vfs.writeFile(A, 'resources/f.md', b('x'));
      events.length = 0;
      expect(await vfs.rm(A, 'resources/f.md')).toEqual({ deleted: 1, paths: ['resources/f.md'] });
      expect(await vfs.stat(A, 'resources/f.md')).toBeNull();
      expect(await vfs.pathOfRecordId(A, w.id)).toBeNull();
      expect(await vfs.readMany(A, ['resources/f.md'])).toEqual([undefined]);
      expect(events).toEqual([{ type: 'rm', account: A, path: 'resources/f.md', kind: 'file', paths: ['resources/f.md'] }]);
      expect(await vfs.rm(A, 'resources/f.md')).toEqual({ deleted: 0, paths: [] });
      expect(await vfs.rm(A, 'resources/never/was', { recursive: true })).toEqual({ deleted: 0, paths: [] });
      expect(events).toHaveLength(1);
    });

    it('a non-empty directory needs recursive (sidecars alone do not count); the count excludes sidecars', async () => {
      await vfs.writeFile(A, 'resources/d/a.md', b('a'));
      await vfs.writeFile(A, 'resources/d/sub/b.md', b('b'));
      await vfs.writeFile(A, 'resources/d/.abstract.md', b('abs'));
      await vfs.writeFile(A, 'resources/d/sub/.overview.md', b('ov'));
      expect(await failure(vfs.rm(A, 'resources/d'))).toMatchObject({ code: 'FAILED_PRECONDITION', status: 412 });
      const r = await vfs.rm(A, 'resources/d', { recursive: true });
      expect(r.deleted).toBe(4); // d, a.md, sub, b.md
      expect(r.paths.sort()).toEqual(['resources/d', 'resources/d/.abstract.md', 'resources/d/a.md', 'resources/d/sub', 'resources/d/sub/.overview.md', 'resources/d/sub/b.md']);
      for (const p of r.paths) expect(await vfs.stat(A, p)).toBeNull();
      expect(await vfs.list(A, 'resources')).toEqual([]);
      await vfs.writeFile(A, 'resources/e/.overview.md', b('only a sidecar'));
      expect((await vfs.rm(A, 'resources/e')).deleted).toBe(1);
      await vfs.mkdir(A, 'resources/empty');
      expect((await vfs.rm(A, 'resources/empty')).deleted).toBe(1);
    });
  });

  describe('mv', () => {
    it('moves a subtree with contents, metadata and tags; record ids follow the new URIs', async () => {
      await vfs.writeFile(A, 'resources/src/a.md', b('A'), { tags: ['k=a'], meta: { m: 1 } });
      await vfs.writeFile(A, 'resources/src/sub/b.md', b('B'));
      await vfs.setMeta(A, 'resources/src/sub', { tags: ['dir=yes'] });
      const oldA = await vfs.stat(A, 'resources/src/a.md');
      const oldB = await vfs.stat(A, 'resources/src/sub/b.md');
      events.length = 0;
      expect(await vfs.mv(A, 'resources/src', 'resources/x/dst')).toEqual({ moved: 4 });
      expect(await vfs.stat(A, 'resources/src')).toBeNull();
      expect(await vfs.list(A, 'resources/src')).toEqual([]);
      const newA = await vfs.stat(A, 'resources/x/dst/a.md');
      expect(newA).toMatchObject({ kind: 'file', tags: ['k=a'], meta: { m: 1 }, sha256: oldA!.sha256, size: 1, ctime: oldA!.ctime });
      expect(newA!.id).toBe(recordId(A, 'ctx://resources/x/dst/a.md', 2));
      expect((await vfs.readFile(A, 'resources/x/dst/sub/b.md')).toString()).toBe('B');
      expect((await vfs.stat(A, 'resources/x/dst/sub'))!.tags).toEqual(['dir=yes']);
      expect(await vfs.pathOfRecordId(A, oldA!.id!)).toBeNull();
      expect(await vfs.pathOfRecordId(A, oldB!.id!)).toBeNull();
      expect(await vfs.pathOfRecordId(A, newA!.id!)).toBe('resources/x/dst/a.md');
      expect((await vfs.stat(A, 'resources/x'))!.kind).toBe('dir');
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: 'mv', account: A, path: 'resources/x/dst', from: 'resources/src', kind: 'dir' });
      expect(events[0]!.paths!.sort()).toEqual(['resources/src', 'resources/src/a.md', 'resources/src/sub', 'resources/src/sub/b.md']);
    });

    it('moves a single file', async () => {
      await vfs.writeFile(A, 'resources/one.md', b('1'));
      expect(await vfs.mv(A, 'resources/one.md', 'resources/two.md')).toEqual({ moved: 1 });
      expect((await vfs.readFile(A, 'resources/two.md')).toString()).toBe('1');
      expect(await vfs.stat(A, 'resources/one.md')).toBeNull();
    });

    it('errors: missing source, existing target, into itself, onto an ancestor (no deadlock)', async () => {
      await vfs.writeFile(A, 'resources/a/b/c.md', b('c'));
      await vfs.writeFile(A, 'resources/t.md', b('t'));
      expect((await failure(vfs.mv(A, 'resources/none', 'resources/z'))).code).toBe('NOT_FOUND');
      expect((await failure(vfs.mv(A, 'resources/a', 'resources/t.md'))).code).toBe('CONFLICT');
      expect((await failure(vfs.mv(A, 'resources/a', 'resources/a/b/inside'))).code).toBe('INVALID_ARGUMENT');
      expect((await failure(vfs.mv(A, 'resources/a', 'resources/a'))).code).toBe('INVALID_ARGUMENT');
      expect((await failure(vfs.mv(A, 'resources/a/b', 'resources/a'))).code).toBe('CONFLICT');
      expect((await failure(vfs.mv(A, 'resources/a', 'resources/t.md/under'))).code).toBe('CONFLICT');
      expect((await vfs.readFile(A, 'resources/a/b/c.md')).toString()).toBe('c');
      // The locks of the failed moves were all released.
      expect(vfs.locks.list()).toEqual([]);
    });
  });

  describe('onCommit hooks', () => {
    it('hook ops land in the same atomic batch as the change', async () => {
      const side = kv.sub('side');
      const seen: ChangeEvent[][] = [];
      vfs.onCommit((evs) => {
        seen.push(evs);
        return evs.map((e) => side.putOp(`${e.type}:${e.path}`, JSON.stringify(e)));
      });
      await vfs.writeFile(A, 'resources/h.md', b('x'), { hint: { why: 'test' } });
      await vfs.mkdir(A, 'resources/d');
      await vfs.rm(A, 'resources/h.md');
      expect(seen.map((evs) => evs.map((e) => e.type))).toEqual([['write'], ['mkdir'], ['rm']]);
      expect(JSON.parse((await side.get('write:resources/h.md'))!.toString())).toMatchObject({ hint: { why: 'test' } });
      expect(await side.get('mkdir:resources/d')).toBeDefined();
      expect(await side.get('rm:resources/h.md')).toBeDefined();
    });

    it('when the batch fails, neither the change nor the hook ops are stored, and no event is emitted', async () => {
      const side = kv.sub('side');
      let poison = false;
      vfs.onCommit((evs) => {
        const ops = evs.map((e) => side.putOp(`q:${e.path}`, 'queued'));
        // An op RocksDB refuses (empty key) makes the whole batch fail.
        if (poison) ops.push({ type: 'put', key: '', value: b('x') });
        return ops;
      });
      await vfs.writeFile(A, 'resources/ok.md', b('1'));
      poison = true;
      events.length = 0;
      await expect(vfs.writeFile(A, 'resources/bad/new.md', b('2'))).rejects.toThrow();
      await expect(vfs.writeFile(A, 'resources/ok.md', b('changed'))).rejects.toThrow();
      expect(events).toEqual([]);
      expect(await vfs.stat(A, 'resources/bad/new.md')).toBeNull();
      expect(await vfs.stat(A, 'resources/bad')).toBeNull();
      expect(await side.get('q:resources/bad/new.md')).toBeUndefined();
      expect((await vfs.readFile(A, 'resources/ok.md')).toString()).toBe('1');
      expect(vfs.locks.list()).toEqual([]);
    });
  });

  describe('writeFiles (one batch for many files)', () => {
    it('writes every file and its missing parents atomically under a covering tree lock', async () => {
      await vfs.writeFile(A, 'resources/batch/old.md', b('old'), { tags: ['keep=1'] });
      const lock = await vfs.locks.acquire(A, 'resources/batch', 'tree');
      try {
        const out = await vfs.writeFiles(
          A,
          [
            { path: 'resources/batch/old.md', content: b('new') },
            { path: 'resources/batch/x/y.md', content: b('y') },
          ],
          { lock },
        );
        expect(out.map((o) => [o.path, o.created, o.changed])).toEqual([
          ['resources/batch/old.md', false, true],
          ['resources/batch/x/y.md', true, true],
        ]);
        await expect(vfs.writeFiles(A, [{ path: 'resources/other.md', content: b('z') }], { lock })).rejects.toThrow(/does not cover/);
      } finally {
        lock.release();
      }
      expect((await vfs.stat(A, 'resources/batch/old.md'))!.tags).toEqual(['keep=1']);
      expect((await vfs.readFile(A, 'resources/batch/x/y.md')).toString()).toBe('y');
      expect(await vfs.pathOfRecordId(A, recordId(A, 'ctx://resources/batch/x/y.md', 2))).toBe('resources/batch/x/y.md');
    });

    it('takes targets and ancestors read by the caller (one multi-get), reading only the ancestors it was not given', async () => {
      await vfs.writeFile(A, 'resources/pre/a.md', b('a'), { tags: ['t=1'], meta: { src: 'x' } });
      const lock = await vfs.locks.acquire(A, 'resources/pre', 'tree');
      const paths = ['resources/pre/a.md', 'resources/pre/new/deep/b.md'];
      const dirs = ancestorDirs(paths);
      expect(dirs).toEqual(['resources', 'resources/pre', 'resources/pre/new', 'resources/pre/new/deep']);
      try {
        const read = await vfs.statMany(A, [...paths, ...dirs]);
        // 'resources/pre/new' left out of the map: writeFiles reads it itself.
        const ancestors = new Map(dirs.map((d, i) => [d, read[paths.length + i]!] as const).filter(([d]) => d !== 'resources/pre/new'));
        const out = await vfs.writeFiles(A, paths.map((path) => ({ path, content: b(path) })), { lock, existing: read.slice(0, paths.length), ancestors });
        expect(out.map((o) => o.created)).toEqual([false, true]);
      } finally {
        lock.release();
      }
      for (const d of ['resources/pre/new', 'resources/pre/new/deep']) expect((await vfs.stat(A, d))?.kind).toBe('dir');
      const a = await vfs.stat(A, 'resources/pre/a.md');
      expect([a!.tags, a!.meta, a!.size]).toEqual([['t=1'], { src: 'x' }, 18]);
      expect((await vfs.readFile(A, 'resources/pre/new/deep/b.md')).toString()).toBe('resources/pre/new/deep/b.md');
    });

    it('stores metadata as JSON.stringify would (fileMetaJson)', () => {
      const base = { kind: 'file' as const, size: 3, mode: FILE_MODE, mtime: 1700000000123, ctime: 1600000000000, sha256: 'sha256:' + 'ab'.repeat(32), id: '0f'.repeat(16) };
      const cases = [
        base,
        { ...base, tags: ['a=1', 'q="x"\\\u2028'] },
        { ...base, meta: { nested: { 'k"': [1, null, 'é'] } } },
        { ...base, tags: ['a=1'], meta: { x: 1 } },
        { ...base, sha256: 'weird"\n' },
        { ...base, size: 1.5 },
        { ...base, mtime: Number.NaN },
      ];
      for (const m of cases) expect(fileMetaJson(m)).toBe(JSON.stringify(m));
    });
  });

  describe('accounts', () => {
    it('the same path in two accounts holds two independent nodes', async () => {
      await vfs.writeFile(A, 'resources/same.md', b('from A'), { tags: ['a=1'] });
      await vfs.writeFile(B, 'resources/same.md', b('from B'));
      expect((await vfs.readFile(A, 'resources/same.md')).toString()).toBe('from A');
      expect((await vfs.readFile(B, 'resources/same.md')).toString()).toBe('from B');
      expect((await vfs.stat(B, 'resources/same.md'))!.tags).toBeUndefined();
      await vfs.rm(A, 'resources/same.md');
      expect((await vfs.readFile(B, 'resources/same.md')).toString()).toBe('from B');
      await vfs.mkdir(B, 'resources/onlyB');
      expect(names(await vfs.list(A, 'resources'))).toEqual([]);
      expect(names(await vfs.list(B, 'resources'))).toEqual(['onlyB', 'same.md']);
      // An account whose id is a prefix of another's stays separate.
      await vfs.writeFile('acm', 'resources/p.md', b('x'));
      expect(names(await vfs.list(A, 'resources'))).toEqual([]);
    });

    it('dropAccount removes every node, content and id of one account only', async () => {
      for (let i = 0; i < 30; i++) await vfs.writeFile(A, `resources/d${i % 3}/f${i}.md`, b(`a${i}`));
      const w = await vfs.writeFile(B, 'resources/keep.md', b('b'));
      await vfs.writeFile('acm', 'resources/keep.md', b('prefix account'));
      const removed = await vfs.dropAccount(A);
      // 30 files (meta + content + id) + resources + 3 dirs.
      expect(removed).toBe(30 * 3 + 4);
      expect(names(await vfs.list(A, ''))).toEqual(['resources', 'user']);
      expect(await vfs.list(A, 'resources')).toEqual([]);
      expect(await vfs.stat(A, 'resources/d0/f0.md')).toBeNull();
      expect((await vfs.readFile(B, 'resources/keep.md')).toString()).toBe('b');
      expect(await vfs.pathOfRecordId(B, w.id)).toBe('resources/keep.md');
      expect((await vfs.readFile('acm', 'resources/keep.md')).toString()).toBe('prefix account');
      expect(await vfs.dropAccount(A)).toBe(0);
    });
  });

  describe('metadata cache (stat never stale)', () => {
    it('every change through the VFS is seen by the next stat', async () => {
      expect(await vfs.stat(A, 'resources/c/a.md')).toBeNull(); // a cached miss
      await vfs.writeFile(A, 'resources/c/a.md', b('one'));
      expect((await vfs.stat(A, 'resources/c/a.md'))!.size).toBe(3);
      await vfs.writeFile(A, 'resources/c/a.md', b('three'));
      expect((await vfs.stat(A, 'resources/c/a.md'))!.size).toBe(5);
      await vfs.setMeta(A, 'resources/c/a.md', { tags: ['k=v'] });
      expect((await vfs.stat(A, 'resources/c/a.md'))!.tags).toEqual(['k=v']);
      const lock = await vfs.locks.acquire(A, 'resources/c', 'tree');
      try {
        await vfs.writeFiles(A, [{ path: 'resources/c/a.md', content: b('four') }], { lock });
      } finally {
        lock.release();
      }
      expect((await vfs.stat(A, 'resources/c/a.md'))!.size).toBe(4);
      await vfs.mv(A, 'resources/c', 'resources/d');
      expect(await vfs.stat(A, 'resources/c/a.md')).toBeNull();
      expect((await vfs.stat(A, 'resources/d/a.md'))!.size).toBe(4);
      await vfs.rm(A, 'resources/d', { recursive: true });
      expect(await vfs.stat(A, 'resources/d/a.md')).toBeNull();
      expect(await vfs.stat(A, 'resources/d')).toBeNull();
      await vfs.writeFile(B, 'resources/x.md', b('x'));
      expect(await vfs.stat(B, 'resources/x.md')).not.toBeNull();
      await vfs.dropAccount(B);
      expect(await vfs.stat(B, 'resources/x.md')).toBeNull();
    });

    it('a caller mutating what stat returned does not change the next stat', async () => {
      await vfs.writeFile(A, 'resources/m.md', b('m'), { tags: ['a=1'] });
      const first = (await vfs.stat(A, 'resources/m.md'))!;
      first.tags?.push('b=2');
      first.size = 999;
      const again = (await vfs.stat(A, 'resources/m.md'))!;
      expect(again.size).toBe(1);
      expect(again.tags).toEqual(first.tags!.slice(0, -1));
    });

    it('peekStat/statShared: one frozen entry per cache fill, equal to stat, never stale, undefined when not in memory', async () => {
      await vfs.writeFile(A, 'resources/s/a.md', b('one'), { tags: ['a=1'] });
      expect(vfs.peekStat(A, 'resources/s/a.md')).toBeUndefined(); // the write dropped the key
      const shared = (await vfs.statShared(A, 'resources/s/a.md'))!;
      expect(shared).toEqual(await vfs.stat(A, 'resources/s/a.md'));
      expect(vfs.peekStat(A, 'resources/s/a.md')).toBe(shared); // parsed once, then shared
      expect(Object.isFrozen(shared) && Object.isFrozen(shared.tags)).toBe(true);
      expect(() => ((shared as { size: number }).size = 9)).toThrow(TypeError);
      // stat still hands out private copies, not the shared entry.
      const copy = (await vfs.stat(A, 'resources/s/a.md'))!;
      expect(copy).not.toBe(shared);
      copy.tags!.push('b=2');
      expect(vfs.peekStat(A, 'resources/s/a.md')!.tags).toEqual(['a=1']);
      // A change is seen by the next peek (no entry in memory, then the new one).
      await vfs.writeFile(A, 'resources/s/a.md', b('three'));
      expect(vfs.peekStat(A, 'resources/s/a.md')).toBeUndefined();
      expect((await vfs.statShared(A, 'resources/s/a.md'))!.size).toBe(5);
      await vfs.rm(A, 'resources/s', { recursive: true });
      expect(await vfs.statShared(A, 'resources/s/a.md')).toBeNull();
      expect(vfs.peekStat(A, 'resources/s/a.md')).toBeNull(); // a cached miss
      // Directories, the implicit roots and the account root.
      expect((await vfs.statShared(A, 'resources'))!).toMatchObject({ kind: 'dir', path: 'resources', name: 'resources' });
      expect(vfs.peekStat(A, '')).toMatchObject({ kind: 'dir', path: '', name: '' });
      await vfs.mkdir(A, 'resources/dir');
      expect((await vfs.statShared(A, 'resources/dir'))!).toEqual(await vfs.stat(A, 'resources/dir'));
      // With the cache off nothing is kept: each call reads and parses.
      const uncached = new Vfs(kv.sub('vfs'), { metaCacheEntries: 0 });
      expect((await uncached.statShared(A, 'resources/dir'))!.kind).toBe('dir');
      expect(uncached.peekStat(A, 'resources/dir')).toBeUndefined();
    });

    it('stats racing with writes never keep an old value once the write is acknowledged', async () => {
      await vfs.writeFile(A, 'resources/race.md', b('0'));
      for (let i = 1; i <= 60; i++) {
        const body = 'x'.repeat(i);
        vfs.dropCaches(); // so the readers go to RocksDB while the write is in flight
        const readers = Array.from({ length: 4 }, () => vfs.stat(A, 'resources/race.md'));
        await Promise.all([vfs.writeFile(A, 'resources/race.md', b(body)), ...readers]);
        expect((await vfs.stat(A, 'resources/race.md'))!.size).toBe(i);
      }
    });
  });

  it('concurrent writers to one file are serialized by its path lock (appends are not lost)', async () => {
    await Promise.all(Array.from({ length: 40 }, (_, i) => vfs.writeFile(A, 'resources/c.log', b(`${i}\n`), { mode: 'append' })));
    const lines = (await vfs.readFile(A, 'resources/c.log')).toString().trim().split('\n');
    expect(lines.sort((x, y) => Number(x) - Number(y))).toEqual(Array.from({ length: 40 }, (_, i) => String(i)));
  });

  it('everything written survives closing and reopening the database', async () => {
    await vfs.writeFile(A, 'resources/p/f.md', b('persist'), { tags: ['t=1'] });
    await vfs.mv(A, 'resources/p', 'resources/q');
    await kv.close();
    kv = await Kv.open(new RocksDbBackend(dir));
    vfs = new Vfs(kv.sub('vfs'));
    expect((await vfs.readFile(A, 'resources/q/f.md')).toString()).toBe('persist');
    expect((await vfs.stat(A, 'resources/q/f.md'))!.tags).toEqual(['t=1']);
    expect(await vfs.pathOfRecordId(A, recordId(A, 'ctx://resources/q/f.md', 2))).toBe('resources/q/f.md');
  });
});
