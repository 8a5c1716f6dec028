/**
 * Paging a directory of a few thousand entries: every entry exactly once in order, directories
 * first, tag filters before paging, and the listing cache following writes, removals and moves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { fsApp, put, qs } from './helpers.js';

const FILES = 3000;
const DIRS = 25;
let t: TestApp;
let alice: Record<string, string>;

const pad = (i: number) => String(i).padStart(5, '0');
const ls = async (params: Record<string, string | number | boolean>) => {
  const res = await t.req({ url: `/api/v1/fs/ls?${qs({ uri: 'ctx://resources/big', ...params })}`, headers: alice });
  expect(res.status).toBe(200);
  return res.json().result as Array<{ name: string; isDir: boolean }>;
};
async function pageAll(params: Record<string, string | number | boolean>, size: number): Promise<string[]> {
  const out: string[] = [];
  for (let offset = 0; ; offset += size) {
    const page = await ls({ ...params, offset, limit: size, output: 'original' });
    out.push(...page.map((e) => e.name));
    if (page.length < size) return out;
  }
}

beforeAll(async () => {
  t = (await fsApp()).t;
  alice = (await t.account('acme', ['alice'])).users.alice!;
  const lock = await t.app.vfs.locks.acquire('acme', 'resources/big', 'tree');
  try {
    // Files in shuffled creation order so name order and creation order differ.
    const files = Array.from({ length: FILES }, (_, i) => ({ path: `resources/big/f${pad((i * 7919) % FILES)}.md`, content: Buffer.from(String(i)) }));
    for (let i = 0; i < files.length; i += 500) await t.app.vfs.writeFiles('acme', files.slice(i, i + 500), { lock });
    await t.app.vfs.writeFiles('acme', Array.from({ length: DIRS }, (_, i) => ({ path: `resources/big/d${pad(i)}/.keep`, content: Buffer.from('') })), { lock });
    const tagged = Array.from({ length: FILES }, (_, i) => i).filter((i) => i % 7 === 0).map((i) => `resources/big/f${pad(i)}.md`);
    await t.app.vfs.setTagsMany('acme', tagged, ['seven=yes'], 'replace', { lock });
  } finally {
    lock.release();
  }
});
afterAll(() => t.close());

describe('paging at scale', () => {
  it('pages of 500 cover every entry once, directories first, names ascending', async () => {
    const all = await pageAll({}, 500);
    expect(all).toHaveLength(FILES + DIRS);
    expect(new Set(all).size).toBe(all.length);
    const dirs = Array.from({ length: DIRS }, (_, i) => `d${pad(i)}`);
    const files = Array.from({ length: FILES }, (_, i) => `f${pad(i)}.md`);
    expect(all).toEqual([...dirs, ...files]);
  });

  it('descending order and mtime order page consistently', async () => {
    const desc = await pageAll({ sort_order: 'desc' }, 700);
    expect(desc.slice(0, DIRS)).toEqual(Array.from({ length: DIRS }, (_, i) => `d${pad(DIRS - 1 - i)}`));
    expect(desc[DIRS]).toBe(`f${pad(FILES - 1)}.md`);
    const byTime = await pageAll({ sort_by: 'mtime' }, 1000);
    expect(new Set(byTime).size).toBe(FILES + DIRS);
    expect(byTime.slice(0, DIRS).every((n) => n.startsWith('d'))).toBe(true);
  });

  it('a tag filter applies before offset and limit', async () => {
    const expected = Array.from({ length: FILES }, (_, i) => i).filter((i) => i % 7 === 0).map((i) => `f${pad(i)}.md`);
    expect(await pageAll({ tags: 'seven=yes' }, 100)).toEqual(expected);
    const second = await ls({ tags: 'seven=yes', offset: 100, limit: 3 });
    expect(second.map((e) => e.name)).toEqual(expected.slice(100, 103));
  });

  it('the cached listing follows writes, removals and moves at once', async () => {
    expect((await ls({ offset: DIRS, limit: 1 }))[0]!.name).toBe('f00000.md');
    await put(t, 'acme', 'resources/big/a-first.md');
    expect((await ls({ offset: DIRS, limit: 1 }))[0]!.name).toBe('a-first.md');
    await t.req({ method: 'DELETE', url: `/api/v1/fs?${qs({ uri: 'ctx://resources/big/a-first.md' })}`, headers: alice });
    expect((await ls({ offset: DIRS, limit: 1 }))[0]!.name).toBe('f00000.md');
    await t.req({ method: 'POST', url: '/api/v1/fs/mv', headers: alice, body: { from_uri: 'ctx://resources/big/f00000.md', to_uri: 'ctx://resources/big/d00000/f00000.md' } });
    expect((await ls({ offset: DIRS, limit: 1 }))[0]!.name).toBe('f00001.md');
    const inner = await t.req({ url: `/api/v1/fs/ls?${qs({ uri: 'ctx://resources/big/d00000' })}`, headers: alice });
    expect(inner.json().result.map((e: { name: string }) => e.name)).toEqual(['f00000.md']);
    // A new directory created implicitly by a deep write shows up in the listing above it.
    await put(t, 'acme', 'resources/big/d99999/x/y.md');
    expect((await ls({ limit: DIRS + 1 })).at(-1)!.name).toBe('d99999');
  });

  it('tree over the directory stops at node_limit', async () => {
    const res = await t.req({ url: `/api/v1/fs/tree?${qs({ uri: 'ctx://resources/big', node_limit: 2000, output: 'original' })}`, headers: alice });
    expect(res.json().result).toHaveLength(2000);
  });
});
