/**
 * The record cache's write-through (store.ts writeThroughMax, `plugins.retrieval.recordWriteThrough`): records written while the cache is
 * small are answered without a RocksDB read, as copies the writer cannot change afterwards; past
 * the bound a write only drops the stale entry, and reads still answer every record.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../runtime/config.js';
import { createLogger } from '../../runtime/logger.js';
import { hostModels } from '../../runtime/models/host-models.js';
import { Kv } from '../../runtime/storage/kv.js';
import { MemoryBackend } from '../../runtime/storage/memory.js';
import { recordId } from '../../runtime/vfs/record-id.js';
import { loadBackends, type RecordAttrs } from '../../plugins/retrieval/backends.js';
import { RecordStore, type RecordDoc } from '../../plugins/retrieval/store.js';

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

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-rcache-'));
  const config = loadConfig({}, { dataDir: dir, authMode: 'dev' });
  const backends = await loadBackends(hostModels(config).embedder(), config.vectorFlatThreshold);
  kv = await Kv.open(new MemoryBackend());
  store = new RecordStore(kv, backends, dir, createLogger('silent'));
  store.writeThroughMax = 5_000;
  await store.open();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('record cache write-through', () => {
  it('is off by default: a written record is read back from RocksDB', async () => {
    store.writeThroughMax = 0;
    await write([doc(1)]);
    const reads = vi.spyOn(kv, 'getMany');
    expect((await store.getMany('acme', [doc(1).id]))[0]!.text).toBe(doc(1).text);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('answers just-written records without a read, as copies the writer cannot change', async () => {
    const docs = [doc(1), doc(2), doc(3)];
    await write(docs);
    docs[0]!.text = 'changed by the caller after the write';
    const reads = vi.spyOn(kv, 'getMany');
    const got = await store.getMany('acme', docs.map((d) => d.id));
    expect(reads).not.toHaveBeenCalled();
    expect(got.map((d) => d?.text)).toEqual([doc(1).text, doc(2).text, doc(3).text]);
    // An update replaces the cached copy.
    await write([doc(2, 'note 2 rewritten about ice sheets')]);
    expect((await store.getMany('acme', [doc(2).id]))[0]!.text).toBe('note 2 rewritten about ice sheets');
    expect(reads).not.toHaveBeenCalled();
  });

  it('stops taking written records at its bound; reads still answer them all', async () => {
    store.writeThroughMax = 2;
    const docs = [1, 2, 3, 4, 5].map((n) => doc(n));
    await write(docs);
    const reads = vi.spyOn(kv, 'getMany');
    const got = await store.getMany('acme', docs.map((d) => d.id));
    expect(got.map((d) => d?.path)).toEqual(docs.map((d) => d.path));
    expect(reads).toHaveBeenCalledTimes(1);
    expect(reads.mock.calls[0]![0]).toHaveLength(3); // the three past the bound
    // Past the bound a rewrite drops the stale copy instead of serving it.
    await write([doc(1, 'note 1 rewritten past the bound')]);
    expect((await store.getMany('acme', [doc(1).id]))[0]!.text).toBe('note 1 rewritten past the bound');
  });
});
