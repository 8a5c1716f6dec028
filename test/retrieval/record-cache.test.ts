/**
 * The slim record cache (slim-records.ts, `plugins.retrieval.recordCacheMb`): what a find's answer
 * reads of each record, filled at write and on a find's first read, bounded by bytes, and never
 * serving a record older than the last write, removal or move of it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../runtime/config.js';
import { createLogger } from '../../runtime/logger.js';
import { hostModels } from '../../runtime/models/host-models.js';
import { Kv } from '../../runtime/storage/kv.js';
import { MemoryBackend } from '../../runtime/storage/memory.js';
import { recordId } from '../../runtime/vfs/record-id.js';
import { loadBackends, type RecordAttrs } from '../../plugins/retrieval/backends.js';
import { RecordStore, type RecordDoc } from '../../plugins/retrieval/store.js';
import { post, setup, uris, wait, write as writeFile, type Ctx } from './helpers.js';

let dir: string;
let kv: Kv;
let store: RecordStore;

function doc(n: number, text = `note ${n} about glaciers and moraines`): RecordDoc {
  const p = `resources/notes/n${n}.md`;
  const uri = 'ctx://' + p;
  const attrs: RecordAttrs = { account: 'acme', ownerSpace: '', uri, parentUri: 'ctx://resources/notes', contextType: 'resource', level: 2, tags: [], createdAt: 1, updatedAt: 1 };
  return { id: recordId('acme', uri, 2), path: p, level: 2, attrs, text, abstract: text.slice(0, 20), kind: 'file', size: text.length };
}
const write = async (docs: RecordDoc[]) => store.upsert(docs, await store.embedder.embed(docs.map((d) => d.text), 'document'));

describe('slim record cache (store)', () => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-rcache-'));
    const config = loadConfig({}, { dataDir: dir, authMode: 'dev' });
    const backends = await loadBackends(hostModels(config).embedder(), config.vectorFlatThreshold);
    kv = await Kv.open(new MemoryBackend());
    store = new RecordStore(kv, backends, dir, createLogger('silent'));
    await store.open();
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers just-written records without a read, with what the answer needs and not the text', async () => {
    const docs = [doc(1), doc(2, 'Über GLACIERS, ice-sheets & 42 moraines: glaciers again')];
    await write(docs);
    docs[0]!.abstract = 'changed by the caller after the write';
    const reads = vi.spyOn(kv, 'getMany');
    const got = await store.slimMany('acme', docs.map((d) => d.id));
    expect(reads).not.toHaveBeenCalled();
    expect(got[0]).toMatchObject({ path: doc(1).path, level: 2, kind: 'file', attrs: { uri: doc(1).attrs.uri, contextType: 'resource' }, abstract: doc(1).abstract });
    // Of the text, only the words the URI and abstract do not show (the abstract is its first 20 characters).
    expect(got[0]).toMatchObject({ extra: ' glaciers and moraines ', absent: ' glacier ' });
    expect(got[1]).toMatchObject({ extra: ' sheets 42 moraines again ', absent: ' s ' });
    expect(got[1]).not.toHaveProperty('text');
  });

  it('a rewrite replaces the entry; a removal drops it', async () => {
    await write([doc(1), doc(2)]);
    await write([doc(2, 'note 2 rewritten about ice sheets')]);
    const reads = vi.spyOn(kv, 'getMany');
    expect((await store.slimMany('acme', [doc(2).id]))[0]!.abstract).toBe('note 2 rewritten abo');
    expect(reads).not.toHaveBeenCalled();
    await store.remove('acme', doc(1).path, { level: 2 });
    expect(await store.slimMany('acme', [doc(1).id, doc(2).id])).toEqual([undefined, expect.objectContaining({ path: doc(2).path })]);
    await store.dropAccount('acme');
    expect(await store.slimMany('acme', [doc(2).id])).toEqual([undefined]);
  });

  it('stays within its byte bound, least recently used out; reads still answer every record and refill it', async () => {
    const docs = [1, 2, 3, 4, 5].map((n) => doc(n));
    await write(docs);
    const one = store.slim.bytes / 5;
    store.slim.resize(Math.floor(one * 2.5));
    expect(store.slim.size).toBe(2);
    expect(store.slim.bytes).toBeLessThanOrEqual(store.slim.limit);
    const reads = vi.spyOn(kv, 'getMany');
    const got = await store.slimMany('acme', docs.map((d) => d.id));
    expect(got.map((d) => d?.path)).toEqual(docs.map((d) => d.path));
    expect(reads.mock.calls.at(-1)![0]).toHaveLength(3); // the three evicted: one multi-get
    expect(store.slim.bytes).toBeLessThanOrEqual(store.slim.limit);
    store.slim.resize(0);
    expect(store.slim.size).toBe(0);
    await write([doc(6)]);
    expect(store.slim.size).toBe(0); // off: nothing kept
    expect((await store.slimMany('acme', [doc(6).id]))[0]!.path).toBe(doc(6).path);
  });

  it('a read racing a write does not cache what it read', async () => {
    await write([doc(1)]);
    store.slim.resize(0);
    store.slim.resize(1 << 20);
    // The read misses and gets the old record from RocksDB; the rewrite commits before the read's
    // answer comes back.
    const newer = doc(1, 'note 1 rewritten while it was being read');
    const vectors = await store.embedder.embed([newer.text], 'document');
    const getMany = kv.getMany.bind(kv);
    vi.spyOn(kv, 'getMany').mockImplementationOnce(async (keys) => {
      const got = await getMany(keys);
      await new Promise((r) => setTimeout(r, 30));
      return got;
    });
    const reading = store.slimMany('acme', [doc(1).id]);
    await store.upsert([newer], vectors);
    expect((await reading)[0]!.abstract).toBe(doc(1).abstract);
    expect((await store.slimMany('acme', [doc(1).id]))[0]!.abstract).toBe('note 1 rewritten whi');
  });

  it('cached records give the match reason the text gives', async () => {
    const text = 'Σίσυφος ΟΔΟΣ: naïve café 東京 42nd x86_64 🙂emoji e\u0301cole';
    await write([doc(7, text)]);
    const { queryTermMatcher } = await import('../../plugins/retrieval/match-terms.js');
    const [slim] = await store.slimMany('acme', [doc(7).id]);
    for (const q of ['οδος σίσυφος', 'naïve cafe café', '東京 42nd 42', 'x86 64 x86_64', 'emoji', 'cole école', 'glaciers n7 md resources'])
      expect(queryTermMatcher(q)(slim!)).toEqual(queryTermMatcher(q)(`${doc(7).attrs.uri} ${text}`));
  });
});

describe('slim record cache (find over a real app)', () => {
  let c: Ctx;
  const FIND = '/api/v1/search/find';
  beforeAll(async () => {
    c = await setup();
  });
  afterAll(async () => {
    await c.t.close();
  });

  it('find answers reflect every rewrite, move and removal of a hit', async () => {
    const { t, admin } = c;
    await writeFile(t, admin, 'ctx://resources/cache/fjord.md', '# Fjords\n\nA fjord is a long narrow inlet carved by a glacier.');
    await wait(t);
    const hit = async (query: string) => (await post(t, admin, FIND, { query, target_uri: 'ctx://resources/cache' })).body.result.resources[0];
    expect((await hit('fjord glacier inlet')).abstract).toContain('narrow inlet');
    await writeFile(t, admin, 'ctx://resources/cache/fjord.md', '# Fjords\n\nA fjord is a sea inlet between steep cliffs.', { mode: 'replace' });
    await wait(t);
    const rewritten = await hit('fjord inlet cliffs');
    expect(rewritten.abstract).toContain('steep cliffs');
    expect(rewritten.match_reason).toMatch(/shared terms: fjord, inlet, cliffs/);
    const mv = await t.req({ method: 'POST', url: '/api/v1/fs/mv', headers: admin, body: { from_uri: 'ctx://resources/cache/fjord.md', to_uri: 'ctx://resources/cache/moved/fjord.md' } });
    expect(mv.status).toBe(200);
    await wait(t);
    const found = uris((await post(t, admin, FIND, { query: 'fjord inlet cliffs', target_uri: 'ctx://resources/cache' })).body.result);
    expect(found).toContain('ctx://resources/cache/moved/fjord.md');
    expect(found).not.toContain('ctx://resources/cache/fjord.md');
    const rm = await t.req({ method: 'DELETE', url: `/api/v1/fs?uri=${encodeURIComponent('ctx://resources/cache/moved')}&recursive=true`, headers: admin });
    expect(rm.status).toBe(200);
    await wait(t);
    expect(uris((await post(t, admin, FIND, { query: 'fjord inlet cliffs', target_uri: 'ctx://resources/cache' })).body.result)).not.toContain('ctx://resources/cache/moved/fjord.md');
  });
});
