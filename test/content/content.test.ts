import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatHeader } from '../../runtime/vfs/headers.js';
import { recordId } from '../../runtime/vfs/record-id.js';
import type { TestApp } from '../helpers/app.js';
import { contentApp } from './helpers.js';

let t: TestApp;
let admin: Record<string, string>;
let alice: Record<string, string>;
let bob: Record<string, string>;
let otherAdmin: Record<string, string>;

const write = (headers: Record<string, string>, body: unknown) => t.req({ method: 'POST', url: '/api/v1/content/write', headers, body });
const read = (headers: Record<string, string>, query: string) => t.req({ url: `/api/v1/content/read?${query}`, headers });
const q = (uri: string) => `uri=${encodeURIComponent(uri)}`;

beforeAll(async () => {
  t = await contentApp();
  const acme = await t.account('acme', ['alice', 'bob']);
  admin = acme.admin;
  alice = acme.users.alice!;
  bob = acme.users.bob!;
  otherAdmin = (await t.account('globex')).admin;
});
afterAll(() => t.close());

describe('write', () => {
  it('replace creates the file and its parents, and the result carries every field', async () => {
    const res = await write(alice, { uri: 'ctx://resources/docs/guide/intro.md', content: '# Intro\nhello\n' });
    expect(res.status).toBe(200);
    expect(res.json().result).toEqual({
      uri: 'ctx://resources/docs/guide/intro.md',
      root_uri: 'ctx://resources/docs',
      context_type: 'resource',
      mode: 'replace',
      written_bytes: 14,
      content_updated: true,
      semantic_status: 'deferred',
      vector_status: 'deferred',
      queue_status: {
        Semantic: { processed: 0, error_count: 0, errors: [], pending: 0 },
        Embedding: { processed: 0, error_count: 0, errors: [], pending: 0 },
      },
    });
    const parent = await t.app.vfs.stat('acme', 'resources/docs/guide');
    expect(parent?.kind).toBe('dir');
    expect((await read(alice, q('ctx://resources/docs/guide/intro.md'))).json().result).toBe('# Intro\nhello\n');
  });

  it('replace with identical bytes reports content_updated false and 0 bytes', async () => {
    await write(alice, { uri: 'ctx://resources/same.md', content: 'x' });
    const res = await write(alice, { uri: 'ctx://resources/same.md', content: 'x' });
    expect(res.json().result).toMatchObject({ content_updated: false, written_bytes: 0 });
  });

  it('append appends, or creates a missing file', async () => {
    await write(alice, { uri: 'ctx://resources/log.txt', content: 'a\n', mode: 'append' });
    const res = await write(alice, { uri: 'ctx://resources/log.txt', content: 'b\n', mode: 'append' });
    expect(res.json().result).toMatchObject({ mode: 'append', written_bytes: 2, content_updated: true });
    expect((await read(alice, q('ctx://resources/log.txt'))).json().result).toBe('a\nb\n');
  });

  it('create refuses an existing file with 409 and details.resource', async () => {
    expect((await write(alice, { uri: 'ctx://resources/new.md', content: '1', mode: 'create' })).status).toBe(200);
    const res = await write(alice, { uri: 'ctx://resources/new.md', content: '2', mode: 'create' });
    expect(res.status).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'CONFLICT', details: { resource: 'ctx://resources/new.md' } });
  });

  it('create accepts only the text extension allowlist; memory targets keep it in every mode', async () => {
    for (const ext of ['.md', '.txt', '.json', '.yaml', '.yml', '.toml', '.py', '.js', '.ts'])
      expect((await write(alice, { uri: `ctx://resources/allow/f${ext}`, content: '1', mode: 'create' })).status).toBe(200);
    const bin = await write(alice, { uri: 'ctx://resources/allow/f.bin', content: '1', mode: 'create' });
    expect(bin.status).toBe(400);
    expect(bin.json().error.details.allowed).toContain('.md');
    expect((await write(alice, { uri: 'ctx://resources/allow/f.bin', content: '1' })).status).toBe(200);
    expect((await write(alice, { uri: 'ctx://user/alice/memories/m.bin', content: '1' })).status).toBe(400);
    expect((await write(alice, { uri: 'ctx://user/alice/memories/m.md', content: '1' })).json().result.context_type).toBe('memory');
  });

  it('rejects directories, scope roots and .relations.json', async () => {
    const dir = await write(alice, { uri: 'ctx://resources/docs', content: 'x' });
    expect(dir.status).toBe(400);
    expect(dir.json().error.details).toMatchObject({ expected: 'file', actual: 'directory', resource: 'ctx://resources/docs' });
    expect((await write(alice, { uri: 'ctx://resources', content: 'x' })).status).toBe(400);
    expect((await write(alice, { uri: 'ctx://user/alice', content: 'x' })).status).toBe(400);
    const rel = await write(alice, { uri: 'ctx://resources/docs/.relations.json', content: '[]' });
    expect(rel.status).toBe(400);
    expect(rel.json().error.message).toContain('.relations.json');
  });

  it('a file in the way of a parent directory is a 409', async () => {
    await write(alice, { uri: 'ctx://resources/plain.md', content: 'x' });
    expect((await write(alice, { uri: 'ctx://resources/plain.md/child.md', content: 'x' })).status).toBe(409);
  });

  it('tags: set on write, kept when omitted, merged by key with append, cleared by []', async () => {
    const uri = 'ctx://resources/tagged.md';
    await write(alice, { uri, content: '1', tags: ['team=core', 'lang=en'] });
    expect((await t.app.vfs.stat('acme', 'resources/tagged.md'))?.tags).toEqual(['team=core', 'lang=en']);
    await write(alice, { uri, content: '2' });
    expect((await t.app.vfs.stat('acme', 'resources/tagged.md'))?.tags).toEqual(['team=core', 'lang=en']);
    await write(alice, { uri, content: '3', tags: ['lang=fr', 'x=1'], tag_mode: 'append' });
    expect((await t.app.vfs.stat('acme', 'resources/tagged.md'))?.tags).toEqual(['team=core', 'lang=fr', 'x=1']);
    const same = await write(alice, { uri, content: '3', tags: [] });
    expect(same.json().result.content_updated).toBe(false);
    expect((await t.app.vfs.stat('acme', 'resources/tagged.md'))?.tags).toBeUndefined();
    const bad = await write(alice, { uri, content: '3', tags: ['novalue'] });
    expect(bad.status).toBe(400);
    expect(bad.json().error.details.field).toBe('tags[0]');
  });

  it('validates the body: wrong types, unknown fields, bad enums, malformed JSON, oversized bodies', async () => {
    expect((await write(alice, { uri: 'ctx://resources/a.md', content: 5 })).json().error.details.field).toBe('content');
    expect((await write(alice, { uri: 'ctx://resources/a.md', content: 'x', colour: 'red' })).json().error.details.field).toBe('colour');
    expect((await write(alice, { uri: 'ctx://resources/a.md', content: 'x', mode: 'overwrite' })).status).toBe(400);
    expect((await write(alice, { uri: 'ctx://resources/a.md', content: 'x', timeout: -1 })).status).toBe(400);
    expect((await write(alice, { content: 'x' })).json().error.details.field).toBe('uri');
    const malformed = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: { ...alice, 'content-type': 'application/json' }, body: '{"uri":' });
    expect(malformed.status).toBe(400);
    expect(malformed.json().error.code).toBe('INVALID_ARGUMENT');
    const huge = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: { ...alice, 'content-type': 'application/json' }, body: Buffer.alloc(33 * 1024 * 1024, 0x20) });
    expect(huge.status).toBe(413);
  });
});

describe('sidecars', () => {
  const header = { uri: 'ctx://resources/side', level: 0, generator: 'fallback' };
  beforeAll(async () => {
    await t.app.vfs.mkdir('acme', 'resources/side');
    await t.app.vfs.writeFile('acme', 'resources/side/.abstract.md', Buffer.from(formatHeader('meta', header) + 'generated abstract'));
    await t.app.vfs.writeFile('acme', 'resources/side/.overview.md', Buffer.from('plain overview'));
  });

  it('abstract returns L0 without the metadata header; overview returns L1', async () => {
    expect((await t.req({ url: `/api/v1/content/abstract?${q('ctx://resources/side')}`, headers: alice })).json().result).toBe('generated abstract');
    expect((await t.req({ url: `/api/v1/content/overview?${q('ctx://resources/side/')}`, headers: alice })).json().result).toBe('plain overview');
  });

  it('abstract of a directory without one is empty; of a file is 400; of a missing path is 404', async () => {
    await t.app.vfs.mkdir('acme', 'resources/bare');
    expect((await t.req({ url: `/api/v1/content/abstract?${q('ctx://resources/bare')}`, headers: alice })).json().result).toBe('');
    const file = await t.req({ url: `/api/v1/content/overview?${q('ctx://resources/same.md')}`, headers: alice });
    expect(file.status).toBe(400);
    expect(file.json().error.details).toMatchObject({ expected: 'directory', actual: 'file' });
    expect((await t.req({ url: `/api/v1/content/abstract?${q('ctx://resources/nope')}`, headers: alice })).status).toBe(404);
  });

  it('a body-only write keeps the stored metadata', async () => {
    const res = await write(alice, { uri: 'ctx://resources/side/.abstract.md', content: 'edited by hand' });
    expect(res.status).toBe(200);
    expect(res.json().result.content_updated).toBe(true);
    const stored = (await t.app.vfs.readFile('acme', 'resources/side/.abstract.md')).toString();
    expect(stored).toBe(formatHeader('meta', header) + 'edited by hand');
  });

  it('a full-metadata write must match the stored values; unknown fields are dropped', async () => {
    const mismatch = await write(alice, { uri: 'ctx://resources/side/.abstract.md', content: formatHeader('meta', { ...header, level: 1 }) + 'x' });
    expect(mismatch.status).toBe(409);
    expect(mismatch.json().error.details).toMatchObject({ field: 'level', stored: 0, given: 1 });
    const ok = await write(alice, { uri: 'ctx://resources/side/.abstract.md', content: formatHeader('meta', { ...header, colour: 'red' }) + 'second edit' });
    expect(ok.status).toBe(200);
    const stored = (await t.app.vfs.readFile('acme', 'resources/side/.abstract.md')).toString();
    expect(stored).toBe(formatHeader('meta', header) + 'second edit');
  });

  it('sidecars cannot be created: missing directory or missing sidecar is 404, create is 409', async () => {
    expect((await write(alice, { uri: 'ctx://resources/ghost/.abstract.md', content: 'x' })).status).toBe(404);
    expect(await t.app.vfs.stat('acme', 'resources/ghost')).toBeNull();
    expect((await write(alice, { uri: 'ctx://resources/bare/.overview.md', content: 'x' })).status).toBe(404);
    expect((await write(alice, { uri: 'ctx://resources/side/.overview.md', content: 'x', mode: 'create' })).status).toBe(409);
    expect((await write(alice, { uri: 'ctx://resources/side/.overview.md', content: 'x', tags: ['a=b'] })).status).toBe(400);
  });
});

describe('read', () => {
  beforeAll(async () => {
    await write(alice, { uri: 'ctx://resources/lines.txt', content: 'l0\nl1\nl2\nl3\n' });
    await write(alice, { uri: 'ctx://user/alice/memories/prefs/coffee.md', content: formatHeader('memory', { memory_type: 'preference', name: 'coffee' }) + 'likes espresso' });
  });

  it('offset and limit count lines', async () => {
    const r = (o: number, l: number) => read(alice, `${q('ctx://resources/lines.txt')}&offset=${o}&limit=${l}`).then((x) => x.json().result);
    expect(await r(1, 2)).toBe('l1\nl2');
    expect(await r(2, -1)).toBe('l2\nl3\n');
    expect(await r(0, 0)).toBe('');
    expect(await r(9, 1)).toBe('');
    expect((await read(alice, `${q('ctx://resources/lines.txt')}&offset=-1`)).status).toBe(400);
    expect((await read(alice, `${q('ctx://resources/lines.txt')}&limit=-2`)).status).toBe(400);
    expect((await read(alice, `${q('ctx://resources/lines.txt')}&limit=x`)).status).toBe(400);
  });

  it('a directory is 400 with expected/actual/resource; a missing file is 404', async () => {
    const res = await read(alice, q('ctx://resources/docs'));
    expect(res.status).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { expected: 'file', actual: 'directory', resource: 'ctx://resources/docs' } });
    expect((await read(alice, q('ctx://resources/missing.md'))).status).toBe(404);
  });

  it('memory files drop their field header unless raw=true', async () => {
    const uri = q('ctx://user/alice/memories/prefs/coffee.md');
    expect((await read(alice, uri)).json().result).toBe('likes espresso');
    expect((await read(alice, `${uri}&raw=true`)).json().result).toContain('<!-- ctx:memory');
    expect((await read(alice, q('ctx://~/memories/prefs/coffee.md'))).json().result).toBe('likes espresso');
  });

  it('reads by 32-hex record id; unknown ids and ids of unreadable files are 404', async () => {
    const id = recordId('acme', 'ctx://resources/lines.txt', 2);
    expect((await read(alice, `uri=${id}`)).json().result).toBe('l0\nl1\nl2\nl3\n');
    expect((await read(alice, `uri=${'0'.repeat(32)}`)).status).toBe(404);
    const aliceMemory = recordId('acme', 'ctx://user/alice/memories/prefs/coffee.md', 2);
    expect((await read(bob, `uri=${aliceMemory}`)).status).toBe(404);
    expect((await read(admin, `uri=${aliceMemory}`)).status).toBe(200);
    expect((await read(otherAdmin, `uri=${id}`)).status).toBe(404);
  });

  it('reads session files through the ctx://session/{id} alias of the caller', async () => {
    const w = await write(alice, { uri: 'ctx://~/sessions/s1/messages.jsonl', content: '{"role":"user","text":"hi"}\n{"role":"assistant","text":"hello"}\n' });
    expect(w.status).toBe(200);
    expect(w.json().result.context_type).toBe('session');
    expect((await read(alice, q('ctx://session/s1/messages.jsonl'))).json().result).toBe('{"role":"user","text":"hi"}\n{"role":"assistant","text":"hello"}\n');
    expect((await read(alice, `${q('ctx://session/s1/messages.jsonl')}&offset=1&limit=1`)).json().result).toBe('{"role":"assistant","text":"hello"}');
    const dl = await t.req({ url: `/api/v1/content/download?${q('ctx://session/s1/messages.jsonl')}`, headers: alice });
    expect(dl.status).toBe(200);
    expect(dl.text).toContain('"hello"');
    // The alias is the caller's own session: for bob it names bob's (absent) session.
    const asBob = await read(bob, q('ctx://session/s1/messages.jsonl'));
    expect(asBob.status).toBe(404);
    expect(asBob.json().error.details.resource).toBe('ctx://user/bob/sessions/s1/messages.jsonl');
    expect(asBob.text).not.toContain('hello');
  });

  it('large whole-file reads (pre-encoded JSON) return exactly what the string path returns', async () => {
    const text = 'naïve "quotes" \\ back\tslash\u0001\u2028 😀 line\n'.repeat(4000);
    await t.app.vfs.writeFile('acme', 'resources/large.md', Buffer.from(text));
    const res = await read(alice, q('ctx://resources/large.md'));
    expect(res.headers['content-type']).toBe('application/json');
    const body = res.json();
    expect(body.status).toBe('ok');
    expect(body.result).toBe(text);
    expect(typeof body.time).toBe('number');
    expect((await read(alice, `${q('ctx://resources/large.md')}&offset=1&limit=1`)).json().result).toBe(text.split('\n')[1]);
    const invalid = Buffer.concat([Buffer.alloc(70_000, 0x61), Buffer.from([0xff, 0xfe]), Buffer.from('tail')]);
    await t.app.vfs.writeFile('acme', 'resources/invalid.bin', invalid);
    expect((await read(alice, q('ctx://resources/invalid.bin'))).json().result).toBe(invalid.toString('utf8'));
    const memo = formatHeader('memory', { name: 'big' }) + 'm'.repeat(70_000);
    await t.app.vfs.writeFile('acme', 'user/alice/memories/big.md', Buffer.from(memo));
    expect((await read(alice, q('ctx://user/alice/memories/big.md'))).json().result).toBe('m'.repeat(70_000));
    expect((await read(alice, `${q('ctx://user/alice/memories/big.md')}&raw=true`)).json().result).toBe(memo);
  });

  it('download streams raw bytes with an RFC 5987 filename', async () => {
    const bytes = Buffer.from(Array.from({ length: 600_000 }, (_, i) => i % 251));
    await t.app.vfs.writeFile('acme', 'resources/bin/résumé 1.bin', bytes);
    const res = await t.req({ url: `/api/v1/content/download?${q('ctx://resources/bin/résumé 1.bin')}`, headers: alice });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toContain("filename*=UTF-8''r%C3%A9sum%C3%A9%201.bin");
    expect(res.body.equals(bytes)).toBe(true);
    expect((await t.req({ url: `/api/v1/content/download?${q('ctx://resources/bin')}`, headers: alice })).status).toBe(400);
  });
});

describe('isolation and hostile input', () => {
  it('a USER cannot read or write another user namespace; ADMIN can', async () => {
    const w = await write(bob, { uri: 'ctx://user/alice/memories/evil.md', content: 'x' });
    expect(w.status).toBe(403);
    expect(w.json().error.code).toBe('PERMISSION_DENIED');
    expect((await read(bob, q('ctx://user/alice/memories/prefs/coffee.md'))).status).toBe(403);
    expect((await t.req({ url: `/api/v1/content/download?${q('ctx://user/alice/memories/prefs/coffee.md')}`, headers: bob })).status).toBe(403);
    expect((await t.req({ url: `/api/v1/content/abstract?${q('ctx://user/alice/memories')}`, headers: bob })).status).toBe(403);
    expect((await read(admin, q('ctx://user/alice/memories/prefs/coffee.md'))).status).toBe(200);
  });

  it('another account never sees this account’s files', async () => {
    expect((await read(otherAdmin, q('ctx://resources/lines.txt'))).status).toBe(404);
    expect((await t.req({ url: `/api/v1/content/abstract?${q('ctx://resources/side')}`, headers: otherAdmin })).status).toBe(404);
    await write(otherAdmin, { uri: 'ctx://resources/lines.txt', content: 'globex' });
    expect((await read(alice, q('ctx://resources/lines.txt'))).json().result).toBe('l0\nl1\nl2\nl3\n');
  });

  it('download, overview, batch-write, set_tags and reindex of another account are 404 and change nothing', async () => {
    const h = otherAdmin;
    const before = await t.app.vfs.stat('acme', 'resources/docs/guide/intro.md');
    const calls: Array<[string, () => Promise<{ status: number; text: string }>]> = [
      ['download', () => t.req({ url: `/api/v1/content/download?${q('ctx://resources/docs/guide/intro.md')}`, headers: h })],
      ['download by id', () => t.req({ url: `/api/v1/content/download?uri=${recordId('acme', 'ctx://resources/docs/guide/intro.md', 2)}`, headers: h })],
      ['overview', () => t.req({ url: `/api/v1/content/overview?${q('ctx://resources/docs/guide')}`, headers: h })],
      ['batch-write', () => t.req({ method: 'POST', url: '/api/v1/content/batch-write', headers: h, body: { root_uri: 'ctx://resources/docs', operations: [{ uri: 'ctx://resources/docs/guide/intro.md', content: 'globex was here', mode: 'upsert' }] } })],
      ['set_tags', () => t.req({ method: 'POST', url: '/api/v1/content/set_tags', headers: h, body: { uri: 'ctx://resources/docs/guide/intro.md', tags: ['owner=globex'] } })],
      ['set_tags recursive', () => t.req({ method: 'POST', url: '/api/v1/content/set_tags', headers: h, body: { uri: 'ctx://resources/docs', tags: ['owner=globex'], recursive: true } })],
      ['reindex', () => t.req({ method: 'POST', url: '/api/v1/content/reindex', headers: h, body: { uri: 'ctx://resources/docs', recursive: true } })],
    ];
    for (const [name, call] of calls) {
      const res = await call();
      expect(res.status, name).toBe(404);
      expect(res.text, name).not.toContain('hello');
    }
    const after = await t.app.vfs.stat('acme', 'resources/docs/guide/intro.md');
    expect(after).toEqual(before);
    expect((await read(alice, q('ctx://resources/docs/guide/intro.md'))).json().result).toBe('# Intro\nhello\n');
    expect(await t.app.vfs.stat('globex', 'resources/docs')).toBeNull();
  });

  it('write and batch-write refuse a sidecar name as a directory of the target; nothing is created', async () => {
    for (const uri of ['ctx://resources/sc/.relations.json/x.md', 'ctx://resources/sc/.abstract.md/x.md', 'ctx://resources/sc/.overview.md/deeper/x.md']) {
      const res = await write(alice, { uri, content: 'x' });
      expect(res.status, uri).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'uri', sidecar: uri.split('/')[4] } });
    }
    expect(await t.app.vfs.stat('acme', 'resources/sc')).toBeNull();
    await t.app.vfs.mkdir('acme', 'resources/sc');
    const batch = await t.req({ method: 'POST', url: '/api/v1/content/batch-write', headers: alice, body: { root_uri: 'ctx://resources/sc', operations: [{ uri: 'ctx://resources/sc/.overview.md/y.md', content: 'y', mode: 'upsert' }] } });
    expect(batch.status).toBe(400);
    expect(batch.json().error.details).toMatchObject({ field: 'operations[0].uri', sidecar: '.overview.md' });
    expect(await t.app.vfs.stat('acme', 'resources/sc/.overview.md')).toBeNull();
  });

  it('encoded tricks are INVALID_URI and internal scopes are refused; literal traversal is PERMISSION_DENIED', async () => {
    for (const uri of ['ctx://resources/%2e%2e/x.md', 'ctx://resources/a%2fb.md', 'ctx://resources/a\\b.md', 'ctx://temp/x.md', 'ctx://queue/x', 'file:///etc/passwd']) {
      const res = await write(alice, { uri, content: 'x' });
      expect(res.status, uri).toBe(400);
      expect(res.json().error.code, uri).toBe('INVALID_URI');
      expect((await read(alice, q(uri))).status, uri).toBe(400);
    }
    for (const uri of ['ctx://resources/../user/alice/memories/x.md', 'ctx://resources/./x.md']) {
      const res = await write(alice, { uri, content: 'x' });
      expect(res.status, uri).toBe(403);
      expect(res.json().error.code, uri).toBe('PERMISSION_DENIED');
      expect((await read(alice, q(uri))).status, uri).toBe(403);
    }
  });

  it('legacy and alias namespaces are read-only', async () => {
    expect((await write(alice, { uri: 'ctx://agent/a1/memories/x.md', content: 'x' })).status).toBe(403);
    expect((await write(alice, { uri: 'ctx://session/s1/x.md', content: 'x' })).status).toBe(403);
  });

  it('requires authentication', async () => {
    expect((await t.req({ url: `/api/v1/content/read?${q('ctx://resources/lines.txt')}` })).status).toBe(401);
  });
});
