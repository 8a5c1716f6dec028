import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../runtime/app.js';
import { decodeRecord, encodeRecord } from '../../runtime/cluster/mutation-record.js';
import { parseToken, tokenFor } from '../../runtime/cluster/request-gate.js';
import type { KvOp } from '../../runtime/storage/backend.js';
import { builtinPlugins } from '../../plugins/index.js';
import { tempDir } from '../helpers/app.js';

const put = (key: string, value: string | Buffer): KvOp => ({ type: 'put', key, value: Buffer.isBuffer(value) ? value : Buffer.from(value) });

describe('mutation record codec', () => {
  it('round-trips puts and deletes byte for byte, NUL-separated keys, binary and empty values included', () => {
    const ops: KvOp[] = [put('vfs\x00m\x00acct\x00\x00a.md', '{"kind":"file"}'), { type: 'del', key: 'vfs\x00c\x00acct\x00old.md' }, put('retrieval\x00v\x00acct\x00id', Buffer.from(new Float32Array([1.5, -2, 0]).buffer)), put('é\x00ключ', ''), put('k', Buffer.from([0, 255, 0]))];
    const [one, ...rest] = encodeRecord('ctx-1', 'txn-1', ops, 1024 * 1024);
    expect(rest).toEqual([]);
    const { header, ops: back } = decodeRecord(one!);
    expect(header).toEqual({ node: 'ctx-1', txn: 'txn-1', chunk: 1, chunks: 1 });
    expect(back).toEqual(ops);
  });

  it('splits a batch over the payload limit into chunks of one transaction, in order, each under the limit', () => {
    const ops = Array.from({ length: 100 }, (_, i) => put(`vfs\x00c\x00a\x00f${i}`, Buffer.alloc(1000, i)));
    const chunks = encodeRecord('n', 't', ops, 16 * 1024);
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(16 * 1024);
    const decoded = chunks.map((c) => decodeRecord(c));
    expect(decoded.map((d) => d.header.chunk)).toEqual(chunks.map((_, i) => i + 1));
    for (const d of decoded) expect(d.header).toMatchObject({ txn: 't', chunks: chunks.length });
    expect(decoded.flatMap((d) => d.ops)).toEqual(ops);
  });

  it('refuses what is not a record: another version, truncation, an unknown op type', () => {
    const [rec] = encodeRecord('n', 't', [put('a', 'b')], 4096);
    expect(() => decodeRecord(Buffer.from([2, 0, 0, 0, 0]))).toThrow(/version-1/);
    expect(() => decodeRecord(rec!.subarray(0, rec!.length - 1))).toThrow();
    const bad = Buffer.from(rec!);
    bad[5 + bad.readUInt32BE(1)] = 7;
    expect(() => decodeRecord(bad)).toThrow(/unknown op type 7/);
  });
});

describe('consistency tokens', () => {
  it('parses <shard>:<seq> and sys:<seq>, and nothing else', () => {
    expect(parseToken('12:345')).toEqual({ shard: '12', seq: 345 });
    expect(parseToken(' sys:7 ')).toEqual({ shard: 'sys', seq: 7 });
    for (const bad of [undefined, '', '12', ':3', '12:', 'a:1', '1:2:3', '-1:2', '1:x']) expect(parseToken(bad)).toBeUndefined();
  });

  it("a header listing several tokens presents the request's shard's (the highest when named twice); the rest is ignored", () => {
    expect(tokenFor('3:10,sys:4', '3')).toEqual({ shard: '3', seq: 10 });
    expect(tokenFor('3:10, sys:4', 'sys')).toEqual({ shard: 'sys', seq: 4 });
    expect(tokenFor(' 5:2 , junk, 5:9,5:7', '5')).toEqual({ shard: '5', seq: 9 });
    expect(tokenFor('12:345', '12')).toEqual({ shard: '12', seq: 345 });
    for (const v of [undefined, '', '3:10', 'junk', '4:x,4']) expect(tokenFor(v, '4')).toBeUndefined();
  });

  it('a single node answers no token and routes nothing (no cluster gate without CTX_CLUSTER_NATS)', async () => {
    const dir = tempDir();
    const app = await createApp({ plugins: builtinPlugins, env: {}, config: { dataDir: dir, authMode: 'dev', logLevel: 'silent', grpcPort: 0 } });
    const res = await app.inject({ method: 'POST', url: '/api/v1/content/write', body: { uri: 'ctx://resources/a.md', content: 'x' } });
    expect(res.status).toBe(200);
    expect(res.headers['x-ctx-consistency-token']).toBeUndefined();
    // A token sent to a single node is ignored, not an error.
    const read = await app.inject({ url: '/api/v1/content/read?uri=ctx://resources/a.md', headers: { 'x-ctx-consistency-token': '3:99' } });
    expect(read.json().result).toBe('x');
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
