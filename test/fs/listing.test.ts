/**
 * The listing cache on its own (a Vfs over the memory backend): changes are patched into cached
 * listings without a rescan, in the right place, and removals drop what lies below.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ListingCache, deriveView } from '../../plugins/fs/listing.js';
import { Kv } from '../../runtime/storage/kv.js';
import { MemoryBackend } from '../../runtime/storage/memory.js';
import { Vfs } from '../../runtime/vfs/vfs.js';

let vfs: Vfs;
let cache: ListingCache;
const names = async (dir: string) => (await cache.children('a', dir)).map((e) => `${e.kind === 'dir' ? 'd:' : ''}${e.name}`);
const w = (p: string) => vfs.writeFile('a', p, Buffer.from('x'));

beforeEach(async () => {
  vfs = new Vfs((await Kv.open(new MemoryBackend())).sub('vfs'));
  cache = new ListingCache(vfs);
  for (const p of ['r/b.md', 'r/d.md', 'r/sub/x.md']) await w(`resources/${p}`);
});

describe('ListingCache', () => {
  it('patches writes, new directories, removals and kind changes without rescanning', async () => {
    expect(await names('resources/r')).toEqual(['d:sub', 'b.md', 'd.md']);
    const misses = cache.stats.misses;
    await w('resources/r/c.md');
    await w('resources/r/a.md');
    await w('resources/r/new/deep/y.md');
    expect(await names('resources/r')).toEqual(['d:new', 'd:sub', 'a.md', 'b.md', 'c.md', 'd.md']);
    await vfs.rm('a', 'resources/r/b.md');
    await vfs.rm('a', 'resources/r/d.md');
    await w('resources/r/d.md/inside.md'); // d.md is now a directory
    expect(await names('resources/r')).toEqual(['d:d.md', 'd:new', 'd:sub', 'a.md', 'c.md']);
    await vfs.mv('a', 'resources/r/a.md', 'resources/r/sub/a.md');
    expect(await names('resources/r')).toEqual(['d:d.md', 'd:new', 'd:sub', 'c.md']);
    expect(cache.stats.misses).toBe(misses);
    expect(cache.stats.patched).toBeGreaterThan(0);
    // Listings below a moved or removed directory are dropped, then read afresh.
    expect(await names('resources/r/sub')).toEqual(['a.md', 'x.md']);
    await vfs.mv('a', 'resources/r/sub', 'resources/r/moved');
    expect(await names('resources/r/sub')).toEqual([]);
    expect(await names('resources/r/moved')).toEqual(['a.md', 'x.md']);
    expect(await names('resources/r')).toEqual(['d:d.md', 'd:moved', 'd:new', 'c.md']);
  });

  it('names sort in UTF-8 byte order like the store, also after patches', async () => {
    for (const n of ['\u{1F600}.md', '\uFF21.md', 'Z.md']) await w(`resources/u/${n}`);
    const fresh = await names('resources/u');
    await vfs.rm('a', 'resources/u/\uFF21.md');
    await w('resources/u/\uFF21.md');
    expect(await names('resources/u')).toEqual(fresh);
    expect(fresh).toEqual(['Z.md', '\uFF21.md', '\u{1F600}.md']);
  });

  it("tagging a directory keeps its own cached listing and patches its parent's", async () => {
    await names('resources/r');
    await names('resources');
    const misses = cache.stats.misses;
    const lock = await vfs.locks.acquire('a', 'resources/r', 'tree');
    await vfs.setTagsMany('a', ['resources/r'], ['t=1'], 'replace', { lock });
    lock.release();
    expect(await names('resources/r')).toEqual(['d:sub', 'b.md', 'd.md']);
    expect((await cache.children('a', 'resources')).find((e) => e.name === 'r')!.tags).toEqual(['t=1']);
    expect(cache.stats.misses).toBe(misses);
  });

  it('concurrent readers after a write all see it', async () => {
    await names('resources/r');
    await w('resources/r/e.md');
    const all = await Promise.all([names('resources/r'), names('resources/r'), names('resources/r')]);
    for (const n of all) expect(n).toContain('e.md');
  });

  it('cached views are patched too: hidden entries only where shown, other orders derived again', async () => {
    const view = async (showHidden: boolean, order: 'asc' | 'desc' = 'asc') =>
      (await cache.view('a', 'resources/r', { showHidden, sortBy: 'name', order })).map((e) => e.name);
    expect(await view(false)).toEqual(['sub', 'b.md', 'd.md']);
    expect(await view(true)).toEqual(['sub', 'b.md', 'd.md']);
    expect(await view(false, 'desc')).toEqual(['sub', 'd.md', 'b.md']);
    await w('resources/r/.hidden.md');
    await w('resources/r/c.md');
    await w('resources/r/a/x.md');
    await vfs.rm('a', 'resources/r/d.md');
    expect(await view(false)).toEqual(['a', 'sub', 'b.md', 'c.md']);
    expect(await view(true)).toEqual(['a', 'sub', '.hidden.md', 'b.md', 'c.md']);
    expect(await view(false, 'desc')).toEqual(['sub', 'a', 'c.md', 'b.md']);
  });

  it('Vfs.listSubtree groups children by parent, excludes look-alike siblings, and drops the group a limit cuts', async () => {
    await w('resources/r-old/z.md'); // '-' sorts between the two ranges: must not appear
    await vfs.mkdir('a', 'resources/r/empty');
    const full = await vfs.listSubtree('a', 'resources/r', 100);
    expect(full.complete).toBe(true);
    expect([...full.groups.keys()]).toEqual(['resources/r', 'resources/r/sub']);
    expect(full.groups.get('resources/r')!.map((e) => e.name)).toEqual(['b.md', 'd.md', 'empty', 'sub']);
    expect((await vfs.listSubtree('a', 'resources/r', 5)).complete).toBe(true);
    const cut = await vfs.listSubtree('a', 'resources/r', 4);
    expect(cut.complete).toBe(false);
    expect([...cut.groups.keys()]).toEqual(['resources/r']);
    expect((await vfs.listSubtree('a', 'resources/r', 3)).groups.size).toBe(0);
  });

  it('preload fills the listings of a subtree (empty directories included) and later changes still patch them', async () => {
    await vfs.mkdir('a', 'resources/r/empty');
    const misses = cache.stats.misses;
    await cache.preload('a', 'resources/r', 1000);
    expect(await names('resources/r')).toEqual(['d:empty', 'd:sub', 'b.md', 'd.md']);
    expect(await names('resources/r/sub')).toEqual(['x.md']);
    expect(await names('resources/r/empty')).toEqual([]);
    expect(cache.stats.misses).toBe(misses);
    await w('resources/r/empty/new.md');
    expect(await names('resources/r/empty')).toEqual(['new.md']);
  });

  it('a preload that raced a change stores nothing', async () => {
    const pending = cache.preload('a', 'resources/r', 1000);
    await w('resources/r/sub/late.md');
    await pending;
    expect(await names('resources/r/sub')).toEqual(['late.md', 'x.md']);
  });

  it('views keep directories first in every order', async () => {
    const base = await cache.children('a', 'resources/r');
    const desc = deriveView(base, { showHidden: false, sortBy: 'name', order: 'desc' }).map((e) => e.name);
    expect(desc).toEqual(['sub', 'd.md', 'b.md']);
  });
});
