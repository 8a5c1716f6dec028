/** Concurrent writers: no torn content, batches serialized by the tree lock with preconditions honoured. */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { contentApp } from './helpers.js';

let t: TestApp;
let alice: Record<string, string>;
let bob: Record<string, string>;
const sha = (s: string) => 'sha256:' + createHash('sha256').update(s).digest('hex');

beforeAll(async () => {
  t = await contentApp();
  const acme = await t.account('acme', ['alice', 'bob']);
  alice = acme.users.alice!;
  bob = acme.users.bob!;
  await t.app.vfs.mkdir('acme', 'resources/race');
});
afterAll(() => t.close());

const post = (url: string, headers: Record<string, string>, body: unknown) => t.req({ method: 'POST', url, headers, body });

describe('concurrent writers on one file', () => {
  it('replace: every read sees exactly one whole payload, and the last state is one of them', async () => {
    // Distinct, self-describing 64 KiB payloads: a torn mix of two would not match any of them.
    const payloads = Array.from({ length: 24 }, (_, i) => `writer-${i}|`.padEnd(64 * 1024, String.fromCharCode(97 + (i % 26))));
    const valid = new Set(payloads);
    const uri = 'ctx://resources/race/one.md';
    await post('/api/v1/content/write', alice, { uri, content: payloads[0] });
    const reads: Promise<string>[] = [];
    const writes = payloads.map((content, i) => {
      reads.push(t.req({ url: `/api/v1/content/read?uri=${encodeURIComponent(uri)}`, headers: bob }).then((r) => r.json().result as string));
      return post('/api/v1/content/write', i % 2 ? alice : bob, { uri, content });
    });
    const results = await Promise.all(writes);
    for (const r of results) expect(r.status).toBe(200);
    for (const seen of await Promise.all(reads)) expect(valid.has(seen)).toBe(true);
    const final = (await t.app.vfs.readFile('acme', 'resources/race/one.md')).toString();
    expect(valid.has(final)).toBe(true);
    expect((await t.app.vfs.stat('acme', 'resources/race/one.md'))?.sha256).toBe(sha(final));
  });

  it('append: every line of every writer arrives once and whole', async () => {
    const uri = 'ctx://resources/race/log.txt';
    const lines = Array.from({ length: 60 }, (_, i) => `line-${String(i).padStart(3, '0')}-${'x'.repeat(200)}\n`);
    const res = await Promise.all(lines.map((content, i) => post('/api/v1/content/write', i % 2 ? alice : bob, { uri, content, mode: 'append' })));
    for (const r of res) expect(r.status).toBe(200);
    const got = (await t.app.vfs.readFile('acme', 'resources/race/log.txt')).toString();
    expect(got.length).toBe(lines.join('').length);
    expect(got.split('\n').filter(Boolean).sort()).toEqual(lines.map((l) => l.slice(0, -1)).sort());
  });

  it('create: exactly one of many concurrent creators wins', async () => {
    const uri = 'ctx://resources/race/once.md';
    const res = await Promise.all(Array.from({ length: 16 }, (_, i) => post('/api/v1/content/write', alice, { uri, content: `c${i}`, mode: 'create' })));
    expect(res.filter((r) => r.status === 200)).toHaveLength(1);
    expect(res.filter((r) => r.status === 409)).toHaveLength(15);
  });
});

describe('concurrent batch writes on one tree', () => {
  it('replace_if_hash from the same base: exactly one batch applies, the rest are 409 and write nothing', async () => {
    const files = ['a.md', 'b.md', 'c.md'].map((n) => `resources/race/tree/${n}`);
    for (const f of files) await t.app.vfs.writeFile('acme', f, Buffer.from('base'));
    const batches = Array.from({ length: 10 }, (_, i) =>
      post('/api/v1/content/batch-write', i % 2 ? alice : bob, {
        root_uri: 'ctx://resources/race/tree',
        operations: files.map((f) => ({ uri: `ctx://${f}`, content: `batch-${i}`, precondition: { kind: 'replace_if_hash', base_hash: sha('base') } })),
      }),
    );
    const res = await Promise.all(batches);
    const winners = res.map((r, i) => [r, i] as const).filter(([r]) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(res.filter((r) => r.status === 409)).toHaveLength(9);
    const winner = winners[0]![1];
    for (const f of files) expect((await t.app.vfs.readFile('acme', f)).toString()).toBe(`batch-${winner}`);
  });

  it('create_if_absent batches over overlapping files: one applies whole, the others none', async () => {
    const res = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post('/api/v1/content/batch-write', alice, {
          root_uri: 'ctx://resources/race',
          operations: [
            { uri: `ctx://resources/race/new/own-${i}.md`, content: `mine ${i}`, precondition: { kind: 'create_if_absent' } },
            { uri: 'ctx://resources/race/new/shared.md', content: `shared by ${i}`, precondition: { kind: 'create_if_absent' } },
          ],
        }),
      ),
    );
    const ok = res.map((r, i) => [r.status, i] as const).filter(([s]) => s === 200);
    expect(ok).toHaveLength(1);
    const i = ok[0]![1];
    expect((await t.app.vfs.readFile('acme', 'resources/race/new/shared.md')).toString()).toBe(`shared by ${i}`);
    const own = await t.app.vfs.list('acme', 'resources/race/new');
    expect(own.map((e) => e.name).sort()).toEqual([`own-${i}.md`, 'shared.md']);
  });

  it('a batch holds the tree lock: single writes inside the tree wait for it, and see it whole', async () => {
    const lock = await t.app.vfs.locks.acquire('acme', 'resources/race/held', 'tree');
    let settled = false;
    const pending = post('/api/v1/content/write', alice, { uri: 'ctx://resources/race/held/x.md', content: 'after' }).then((r) => {
      settled = true;
      return r;
    });
    while (t.app.vfs.locks.waiting === 0) await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    lock.release();
    expect((await pending).status).toBe(200);
  });
});
