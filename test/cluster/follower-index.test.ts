/** How applied retrieval ops become index changes on a follower (plugins/retrieval/follower-index.ts). */
import { describe, expect, it } from 'vitest';
import { replicatedChanges } from '../../plugins/retrieval/follower-index.js';

const P = 'retrieval\x00';
const doc = (id: string, path: string) => ({ id, path, level: 2, attrs: { account: 'acc', uri: `ctx://${path}` }, text: path, abstract: '', kind: 'file', size: 1 });
const put = (k: string, v: Buffer | string) => ({ type: 'put' as const, key: P + k, value: typeof v === 'string' ? Buffer.from(v) : v });
const del = (k: string) => ({ type: 'del' as const, key: P + k });
const vec = Buffer.from(new Float32Array([1, 2]).buffer);

describe('replicated retrieval ops', () => {
  it('pairs a record with its vector, takes the store counter, ignores other keyspaces', () => {
    const out = replicatedChanges(P, [put('r\x00acc\x00resources/a.md\x002', JSON.stringify(doc('id1', 'resources/a.md'))), put('v\x00acc\x00id1', vec), put('i\x00acc\x00id1', 'x'), put('meta\x00seq', '7'), { type: 'put', key: 'vfs\x00m\x00acc\x00x', value: Buffer.from('{}') }]);
    expect(out).toEqual([{ kind: 'put', account: 'acc', id: 'id1', doc: doc('id1', 'resources/a.md'), vector: vec }, { kind: 'seq', value: 7 }]);
  });

  it('the last op on a record wins inside one coalesced record', () => {
    const removed = replicatedChanges(P, [put('r\x00acc\x00p\x002', JSON.stringify(doc('id1', 'p'))), put('v\x00acc\x00id1', vec), del('r\x00acc\x00p\x002'), del('v\x00acc\x00id1')]);
    expect(removed).toEqual([{ kind: 'del', account: 'acc', id: 'id1' }]);
    const back = replicatedChanges(P, [del('r\x00acc\x00p\x002'), del('v\x00acc\x00id1'), put('v\x00acc\x00id1', vec)]);
    // The doc is not in the batch: the store reads it back from RocksDB.
    expect(back).toEqual([{ kind: 'put', account: 'acc', id: 'id1', vector: vec, doc: undefined }]);
  });

  it('a dropped vector (embedder change) removes the record from the index', () => {
    expect(replicatedChanges(P, [del('v\x00acc\x00id9')])).toEqual([{ kind: 'del', account: 'acc', id: 'id9' }]);
  });
});
