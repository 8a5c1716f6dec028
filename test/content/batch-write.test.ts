import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { contentApp } from './helpers.js';

let t: TestApp;
let alice: Record<string, string>;
let bob: Record<string, string>;

const batch = (body: unknown, headers = alice) => t.req({ method: 'POST', url: '/api/v1/content/batch-write', headers, body });
const sha = (s: string | Buffer) => 'sha256:' + createHash('sha256').update(s).digest('hex');
const text = async (path: string) => (await t.app.vfs.readFile('acme', path)).toString();

beforeAll(async () => {
  t = await contentApp();
  const acme = await t.account('acme', ['alice', 'bob']);
  alice = acme.users.alice!;
  bob = acme.users.bob!;
  await t.app.vfs.mkdir('acme', 'resources/proj');
  await t.app.vfs.mkdir('acme', 'user/alice/memories');
});
afterAll(() => t.close());

describe('batch-write, mode form', () => {
  it('creates, updates and reports unchanged; every file lands with its parents', async () => {
    await t.app.vfs.writeFile('acme', 'resources/proj/old.md', Buffer.from('old'));
    await t.app.vfs.writeFile('acme', 'resources/proj/same.md', Buffer.from('same'));
    const res = await batch({
      root_uri: 'ctx://resources/proj',
      operations: [
        { uri: 'ctx://resources/proj/src/a.ts', content: 'export const a = 1;\n', mode: 'create' },
        { uri: 'ctx://resources/proj/old.md', content: 'new' },
        { uri: 'ctx://resources/proj/same.md', content: 'same', mode: 'upsert' },
        { uri: 'ctx://resources/proj/img/logo.png', content_base64: Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64'), mode: 'upsert' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json().result).toEqual({
      root_uri: 'ctx://resources/proj',
      created: ['ctx://resources/proj/src/a.ts', 'ctx://resources/proj/img/logo.png'],
      updated: ['ctx://resources/proj/old.md'],
      unchanged: ['ctx://resources/proj/same.md'],
      semantic_status: 'deferred',
      vector_status: 'deferred',
      queue_status: { Semantic: { processed: 0, error_count: 0, errors: [], pending: 0 }, Embedding: { processed: 0, error_count: 0, errors: [], pending: 0 } },
    });
    expect(await text('resources/proj/old.md')).toBe('new');
    expect([...(await t.app.vfs.readFile('acme', 'resources/proj/img/logo.png'))]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect((await t.app.vfs.stat('acme', 'resources/proj/src'))?.kind).toBe('dir');
  });

  it('stores the UTF-8 bytes of every content (ASCII, multi-byte, lone surrogates, empty) next to base64 ones', async () => {
    // Long plain ones are written from slices of the request body (batch-body.ts), the others encoded.
    const contents = ['plain ascii\n', 'héllo wörld ✓ 日本語', 'emoji 😀 pair', 'lone \ud800 high and \udc00 low', '', 'x'.repeat(5000), 'ünïcödé 😀 '.repeat(100), 'long "quoted" \\ text\n'.repeat(60), 'lone \udc00 '.repeat(80)];
    const res = await batch({
      root_uri: 'ctx://resources/proj',
      operations: [
        ...contents.map((content, i) => ({ uri: `ctx://resources/proj/enc/t${i}.txt`, content, mode: 'upsert' })),
        { uri: 'ctx://resources/proj/enc/bin.dat', content_base64: Buffer.from([0, 255, 1, 254]).toString('base64'), mode: 'upsert' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json().result.created).toHaveLength(contents.length + 1);
    for (const [i, content] of contents.entries()) {
      const stored = await t.app.vfs.readFile('acme', `resources/proj/enc/t${i}.txt`);
      expect(stored.equals(Buffer.from(content, 'utf8'))).toBe(true);
      expect((await t.app.vfs.stat('acme', `resources/proj/enc/t${i}.txt`))!.sha256).toBe(sha(Buffer.from(content, 'utf8')));
    }
    expect([...(await t.app.vfs.readFile('acme', 'resources/proj/enc/bin.dat'))]).toEqual([0, 255, 1, 254]);
    // The same bytes again are unchanged, whatever their encoding in the request.
    const again = await batch({ root_uri: 'ctx://resources/proj', operations: contents.map((content, i) => ({ uri: `ctx://resources/proj/enc/t${i}.txt`, content, mode: 'upsert' })) });
    expect(again.json().result.unchanged).toHaveLength(contents.length);
  });

  it('append appends; replace of a missing file is 404 and writes nothing; create of an existing one is 409', async () => {
    await t.app.vfs.writeFile('acme', 'resources/proj/log.txt', Buffer.from('1\n'));
    const ok = await batch({ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/log.txt', content: '2\n', mode: 'append' }] });
    expect(ok.json().result.updated).toEqual(['ctx://resources/proj/log.txt']);
    expect(await text('resources/proj/log.txt')).toBe('1\n2\n');
    const missing = await batch({
      root_uri: 'ctx://resources/proj',
      operations: [
        { uri: 'ctx://resources/proj/first.md', content: 'x', mode: 'upsert' },
        { uri: 'ctx://resources/proj/nope.md', content: 'x', mode: 'replace' },
      ],
    });
    expect(missing.status).toBe(404);
    expect(await t.app.vfs.stat('acme', 'resources/proj/first.md')).toBeNull();
    const exists = await batch({ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/old.md', content: 'other', mode: 'create' }] });
    expect(exists.status).toBe(409);
    expect(exists.json().error.details.resource).toBe('ctx://resources/proj/old.md');
  });

  it('memory targets: text allowlist, no content_base64', async () => {
    const ok = await batch({ root_uri: 'ctx://user/alice/memories', operations: [{ uri: 'ctx://user/alice/memories/p/tea.md', content: 'green', mode: 'upsert' }] });
    expect(ok.json().result.created).toEqual(['ctx://user/alice/memories/p/tea.md']);
    expect((await batch({ root_uri: 'ctx://user/alice/memories', operations: [{ uri: 'ctx://user/alice/memories/x.png', content: 'x', mode: 'upsert' }] })).status).toBe(400);
    const b64 = await batch({ root_uri: 'ctx://~/memories', operations: [{ uri: 'ctx://~/memories/x.md', content_base64: 'eA==', mode: 'upsert' }] });
    expect(b64.status).toBe(400);
    expect(b64.json().error.details.field).toBe('operations[0].content_base64');
  });

  it('rejects bad targets before writing anything', async () => {
    const cases: Array<[unknown, number, string?]> = [
      [{ root_uri: 'ctx://resources/nothere', operations: [{ uri: 'ctx://resources/nothere/a.md', content: 'x', mode: 'upsert' }] }, 404],
      [{ root_uri: 'ctx://resources/proj/old.md', operations: [{ uri: 'ctx://resources/proj/old.md/a.md', content: 'x', mode: 'upsert' }] }, 404],
      [{ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/other/a.md', content: 'x' }] }, 400, 'operations[0].uri'],
      [{ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj', content: 'x' }] }, 400, 'operations[0].uri'],
      [{ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/d.md', content: 'x', mode: 'upsert' }, { uri: 'ctx://resources/proj/d.md/', content: 'y', mode: 'upsert' }] }, 400, 'operations[1].uri'],
      [{ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/e.md', mode: 'upsert' }] }, 400, 'operations[0]'],
      [{ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/e.md', content: 'x', content_base64: 'eA==' }] }, 400, 'operations[0]'],
      [{ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/e.md', content_base64: 'not base64!' }] }, 400, 'operations[0].content_base64'],
      [{ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/.abstract.md', content: 'x' }] }, 400, 'operations[0].uri'],
      [{ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/src', content: 'x' }] }, 400],
      [{ root_uri: 'ctx://resources/proj', operations: [] }, 400, 'operations'],
      [{ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/e.md', content: 'x', mode: 'move' }] }, 400, 'operations[0].mode'],
      [{ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/e.md', content: 'x', extra: 1 }] }, 400, 'operations[0].extra'],
      [{ root_uri: 'ctx://resources/proj', operations: 'a.md' }, 400, 'operations'],
      [{ root_uri: 'ctx://user/alice', operations: [{ uri: 'ctx://user/alice/memories/z.md', content: 'x' }] }, 400, 'root_uri'],
      [{ root_uri: 'ctx://resources/../proj', operations: [{ uri: 'ctx://resources/proj/z.md', content: 'x' }] }, 403, 'root_uri'],
      [{ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/%2e%2e/z.md', content: 'x' }] }, 400, 'operations[0].uri'],
      [{ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/z.md', content: 'x', mode: 'upsert', precondition: { kind: 'create_if_absent' } }] }, 400, 'operations[0]'],
    ];
    for (const [body, status, field] of cases) {
      const res = await batch(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      if (field) expect(res.json().error.details.field, JSON.stringify(body)).toBe(field);
    }
    expect(await t.app.vfs.stat('acme', 'resources/proj/e.md')).toBeNull();
    expect(await t.app.vfs.stat('acme', 'resources/proj/d.md')).toBeNull();
  });

  it('accepts telemetry (bool or object) and wait/timeout', async () => {
    const res = await batch({ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/tel.md', content: 't', mode: 'upsert' }], telemetry: { summary: true }, wait: true, timeout: 1 });
    expect(res.status).toBe(200);
    expect(res.json().telemetry.operation_id).toEqual(expect.any(String));
    expect((await batch({ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/tel.md', content: 't', mode: 'upsert' }], telemetry: 'yes' })).status).toBe(400);
    expect((await batch({ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/tel.md', content: 't', mode: 'upsert' }], wait: 'no' })).status).toBe(400);
  });

  it('a USER cannot batch-write into another user space', async () => {
    const res = await batch({ root_uri: 'ctx://user/alice/memories', operations: [{ uri: 'ctx://user/alice/memories/b.md', content: 'x', mode: 'upsert' }] }, bob);
    expect(res.status).toBe(403);
  });
});

describe('batch-write limits', () => {
  const ops = (n: number, extra: Record<string, unknown> = { mode: 'upsert' }) =>
    Array.from({ length: n }, (_, i) => ({ uri: `ctx://resources/proj/many/f${i}.txt`, content: `${i}`, ...extra }));

  it('256 operations pass; 257 is a 400 naming max_operations', async () => {
    expect((await batch({ root_uri: 'ctx://resources/proj', operations: ops(256) })).json().result.created).toHaveLength(256);
    const res = await batch({ root_uri: 'ctx://resources/proj', operations: ops(257) });
    expect(res.status).toBe(400);
    expect(res.json().error.details).toMatchObject({ limit: 'max_operations', limit_value: 256 });
    expect(res.json().error.message).toContain('256');
  });

  it('the precondition form holds 128 operations', async () => {
    const pre = { precondition: { kind: 'create_if_absent' } };
    const res = await batch({ root_uri: 'ctx://resources/proj', operations: ops(129, pre) });
    expect(res.status).toBe(400);
    expect(res.json().error.details).toMatchObject({ limit: 'max_operations_precondition', limit_value: 128 });
    expect((await batch({ root_uri: 'ctx://resources/proj', operations: ops(128, pre) })).status).toBe(200);
    const mixed = await batch({ root_uri: 'ctx://resources/proj', operations: [...ops(1, pre), ...ops(2).slice(1)] });
    expect(mixed.status).toBe(400);
  });

  it('8 MiB per file and 16 MiB in total, each a 400 naming the limit', async () => {
    const big = 'a'.repeat(8 * 1024 * 1024);
    const exact = await batch({ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/big/8m.txt', content: big, mode: 'upsert' }] });
    expect(exact.status).toBe(200);
    const over = await batch({ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/big/over.txt', content: big + 'b', mode: 'upsert' }] });
    expect(over.status).toBe(400);
    expect(over.json().error.details).toMatchObject({ limit: 'max_file_bytes', limit_value: 8 * 1024 * 1024 });
    const half = Buffer.alloc(6 * 1024 * 1024, 0x61).toString('base64');
    const total = await batch({
      root_uri: 'ctx://resources/proj',
      operations: [0, 1, 2].map((i) => ({ uri: `ctx://resources/proj/big/t${i}.bin`, content_base64: half, mode: 'upsert' })),
    });
    expect(total.status).toBe(400);
    expect(total.json().error.details).toMatchObject({ limit: 'max_total_bytes', limit_value: 16 * 1024 * 1024 });
    expect(await t.app.vfs.stat('acme', 'resources/proj/big/t0.bin')).toBeNull();
  });
});

describe('batch-write, precondition form', () => {
  it('create_if_absent creates; on an existing file with other bytes it is 409; identical bytes are unchanged', async () => {
    const op = (content: string) => ({ uri: 'ctx://resources/proj/pre/a.md', content, precondition: { kind: 'create_if_absent' } });
    expect((await batch({ root_uri: 'ctx://resources/proj', operations: [op('v1')] })).json().result.created).toEqual(['ctx://resources/proj/pre/a.md']);
    expect((await batch({ root_uri: 'ctx://resources/proj', operations: [op('v1')] })).json().result.unchanged).toEqual(['ctx://resources/proj/pre/a.md']);
    const res = await batch({ root_uri: 'ctx://resources/proj', operations: [op('v2')] });
    expect(res.status).toBe(409);
    expect(res.json().error.details).toMatchObject({ resource: 'ctx://resources/proj/pre/a.md', precondition: 'create_if_absent', actual_hash: sha('v1') });
  });

  it('replace_if_hash replaces only from the named base; a mismatch anywhere writes nothing', async () => {
    await t.app.vfs.writeFile('acme', 'resources/proj/pre/b.md', Buffer.from('base'));
    const ok = await batch({ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/pre/b.md', content: 'next', precondition: { kind: 'replace_if_hash', base_hash: sha('base') } }] });
    expect(ok.json().result.updated).toEqual(['ctx://resources/proj/pre/b.md']);
    const stale = await batch({
      root_uri: 'ctx://resources/proj',
      operations: [
        { uri: 'ctx://resources/proj/pre/c.md', content: 'c', precondition: { kind: 'create_if_absent' } },
        { uri: 'ctx://resources/proj/pre/b.md', content: 'again', precondition: { kind: 'replace_if_hash', base_hash: sha('base') } },
      ],
    });
    expect(stale.status).toBe(409);
    expect(stale.json().error.details).toMatchObject({ expected_hash: sha('base'), actual_hash: sha('next') });
    expect(await t.app.vfs.stat('acme', 'resources/proj/pre/c.md')).toBeNull();
    expect(await text('resources/proj/pre/b.md')).toBe('next');
    const missing = await batch({ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/pre/none.md', content: 'x', precondition: { kind: 'replace_if_hash', base_hash: sha('x0') } }] });
    expect(missing.status).toBe(409);
    expect(missing.json().error.details.actual_hash).toBeNull();
  });

  it('base_hash must be sha256:<64 hex> and is required for replace_if_hash', async () => {
    const op = (precondition: unknown) => ({ root_uri: 'ctx://resources/proj', operations: [{ uri: 'ctx://resources/proj/pre/b.md', content: 'x', precondition }] });
    expect((await batch(op({ kind: 'replace_if_hash' }))).json().error.details.field).toBe('operations[0].precondition.base_hash');
    expect((await batch(op({ kind: 'replace_if_hash', base_hash: 'md5:abc' }))).json().error.details.field).toBe('operations[0].precondition.base_hash');
    expect((await batch(op({ kind: 'replace_if_hash', base_hash: 'sha256:' + 'A'.repeat(64) }))).status).toBe(400);
    expect((await batch(op({ kind: 'overwrite' }))).json().error.details.field).toBe('operations[0].precondition.kind');
  });
});
