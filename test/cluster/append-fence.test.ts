/**
 * A shard leader's appends and their fence (runtime/cluster/shard-log.ts, docs/scale-out.md "What a
 * write costs"): against the launcher's 3 nats-servers (an R3 stream: a clustered stream checks a
 * fence differently from a single server's) and a real RocksDB store, batches submitted together
 * are coalesced, land in order and are all applied; once another writer has appended (a newer
 * leader), every batch this node has submitted is refused — none lands behind it — and the node
 * appends again only after it has applied the stream.
 */
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { down, natsServerInstalled, up } from '../../runtime/cluster/launcher.js';
import { clusterTurn } from './one-at-a-time.js';
import { Replicator, streamName, subjectOf } from '../../runtime/cluster/replicator.js';
import { encodeRecord } from '../../runtime/cluster/mutation-record.js';
import { RocksDbBackend } from '../../runtime/storage/rocksdb.js';
import { createLogger } from '../../runtime/logger.js';
import { tempDir } from '../helpers/app.js';

describe.skipIf(!natsServerInstalled())('a shard leader\'s appends and their fence', () => {
  const dir = tempDir('ctx-pipelined-');
  let release: (() => void) | undefined;
  let nc: NatsConnection;
  let backend: RocksDbBackend;
  let replicator: Replicator;
  const put = (k: string, v: string) => ({ type: 'put' as const, key: `vfs\x00m\x00acct\x00${k}`, value: Buffer.from(v) });

  beforeAll(async () => {
    release = await clusterTurn();
    const file = await up({ nodes: 0, dir: path.join(dir, 'cluster') });
    nc = await connect({ servers: file.nats.map((n) => n.url) });
    backend = new RocksDbBackend(path.join(dir, 'db'));
    await backend.open();
    const js = jetstream(nc);
    // JetStream answers once its meta group has a leader.
    let jsm: Awaited<ReturnType<typeof jetstreamManager>> | undefined;
    for (let i = 0; !jsm; i++) jsm = await jetstreamManager(nc).catch((err: unknown) => (i < 60 ? new Promise<undefined>((r) => setTimeout(r, 500)) : Promise.reject(err)));
    replicator = new Replicator(nc, js, jsm, backend, 'n1', 1, 3, () => true, createLogger('error'));
    await replicator.load();
    replicator.follow('0');
    await replicator.shard('0').takeOver();
  }, 720_000);

  afterAll(async () => {
    replicator?.close();
    await nc?.close();
    await backend?.close();
    await down({ dir: path.join(dir, 'cluster') }).catch(() => {});
    release?.();
  }, 60_000);

  it('batches submitted together land in order and are all applied', async () => {
    const log = replicator.shard('0');
    await log.submit([put('first', 'x')]);
    // Submitted in one tick: the first goes at once, the rest share the records after it.
    const seqs = await Promise.all(Array.from({ length: 20 }, (_, i) => log.submit([put(`k${i}`, `v${i}`)])));
    expect(new Set(seqs).size).toBeGreaterThan(1);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    const jsm = await jetstreamManager(nc);
    expect((await jsm.streams.info(streamName('0'))).state.last_seq).toBe(seqs.at(-1));
    // Answered at the quorum ack; the store has them once the read barrier is passed.
    await replicator.readBarrier();
    expect(log.applied).toBe(seqs.at(-1));
    for (let i = 0; i < 20; i++) expect((await backend.get(put(`k${i}`, '').key))?.toString()).toBe(`v${i}`);
  });

  it('after another writer appended, every batch submitted is refused and none lands behind it', { timeout: 30_000 }, async () => {
    const log = replicator.shard('0');
    const jsm = await jetstreamManager(nc);
    // A newer leader's record, appended behind this node's back.
    const foreign = encodeRecord('n2', 'n2.txn.1', [put('foreign', 'theirs')], 1 << 20)[0]!;
    // Sent before this node's batches on the same connection (so it lands first), and before this
    // node's consumer can have delivered it: the batches are aimed behind the record before it.
    const theirsAck = jetstream(nc).publish(subjectOf('0'), foreign);
    const outcomes = await Promise.allSettled([log.submit([put('late1', 'x')]), log.submit([put('late2', 'x')]), log.submit([put('late3', 'x')])]);
    const theirs = (await theirsAck).seq;
    for (const o of outcomes) {
      expect(o.status).toBe('rejected');
      expect(((o as PromiseRejectedResult).reason as { code: string }).code).toBe('UNAVAILABLE');
    }
    expect((await jsm.streams.info(streamName('0'))).state.last_seq).toBe(theirs);
    expect(await backend.get(put('late1', '').key)).toBeUndefined();
    // It applies the stream (the other writer's record too), then appends again behind it.
    for (let i = 0; i < 400 && !log.ready; i++) await new Promise((r) => setTimeout(r, 50));
    expect(log.ready).toBe(true);
    expect((await backend.get(put('foreign', '').key))?.toString()).toBe('theirs');
    expect(await log.submit([put('again', 'x')])).toBe(theirs + 1);
  });

  it('a purge of every record (a snapshot taken at the last one) does not fence its own leader out', async () => {
    const log = replicator.shard('0');
    const jsm = await jetstreamManager(nc);
    const last = await log.submit([put('before-purge', 'x')]);
    // What snapshots.ts does when the snapshot is at the stream's last record: nothing is left.
    await jsm.streams.purge(streamName('0'), { seq: last + 1 });
    const info = (await jsm.streams.info(streamName('0'))).state;
    expect(info.messages).toBe(0);
    expect(info.last_seq).toBe(last);
    expect(await log.submit([put('after-purge', 'y')])).toBe(last + 1);
    await replicator.readBarrier();
    expect((await backend.get(put('after-purge', '').key))?.toString()).toBe('y');
  });
});
