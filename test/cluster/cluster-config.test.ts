import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../runtime/app.js';
import { freePort } from '../../runtime/cluster/launcher.js';
import { stableNodeId } from '../../runtime/cluster/node-id.js';
import { loadConfig } from '../../runtime/config.js';
import { builtinPlugins } from '../../plugins/index.js';
import { tempDir } from '../helpers/app.js';

describe('cluster configuration', () => {
  it('is off by default and reads every CTX_CLUSTER_* variable', () => {
    expect(loadConfig({}).cluster).toEqual({ nats: [], shards: 64, replicas: 2, heartbeatMs: 1000, connectTimeoutMs: 10_000, snapshotRecords: 10_000 });
    const c = loadConfig({
      CTX_CLUSTER_NATS: 'nats://127.0.0.1:4222, nats://127.0.0.1:4223',
      CTX_NODE_ID: 'node-a',
      CTX_CLUSTER_SHARDS: '16',
      CTX_CLUSTER_REPLICAS: '3',
      CTX_CLUSTER_ADVERTISE_URL: 'http://10.0.0.5:1933',
      CTX_CLUSTER_HEARTBEAT_MS: '250',
      CTX_CLUSTER_TRACE: 'true',
    }).cluster;
    expect(c).toEqual({ nats: ['nats://127.0.0.1:4222', 'nats://127.0.0.1:4223'], nodeId: 'node-a', shards: 16, replicas: 3, advertiseUrl: 'http://10.0.0.5:1933', heartbeatMs: 250, connectTimeoutMs: 10_000, snapshotRecords: 10_000, trace: true });
  });

  it.each([
    [{ CTX_CLUSTER_NATS: 'http://x:4222' }, /CTX_CLUSTER_NATS/],
    [{ CTX_CLUSTER_SHARDS: '0' }, /CTX_CLUSTER_SHARDS/],
    [{ CTX_CLUSTER_SHARDS: 'many' }, /CTX_CLUSTER_SHARDS/],
    [{ CTX_CLUSTER_REPLICAS: '0' }, /CTX_CLUSTER_REPLICAS/],
    [{ CTX_NODE_ID: 'a/b' }, /CTX_NODE_ID/],
    [{ CTX_CLUSTER_ADVERTISE_URL: 'ftp://x' }, /CTX_CLUSTER_ADVERTISE_URL/],
    [{ CTX_CLUSTER_HEARTBEAT_MS: '10' }, /CTX_CLUSTER_HEARTBEAT_MS/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('keeps a generated node id in the data dir across restarts', () => {
    const dir = tempDir();
    const id = stableNodeId(dir);
    expect(id).toMatch(/^node-[0-9a-f]{12}$/);
    expect(stableNodeId(dir)).toBe(id);
    expect(fs.readFileSync(`${dir}/node-id`, 'utf8').trim()).toBe(id);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to start, naming the URL, when NATS is unreachable, and leaves the data dir unlocked', async () => {
    const dir = tempDir();
    const url = `nats://127.0.0.1:${await freePort()}`;
    const config = { dataDir: dir, authMode: 'dev' as const, logLevel: 'silent' as const, grpcPort: 0 };
    const started = Date.now();
    await expect(createApp({ plugins: builtinPlugins, env: { CTX_CLUSTER_NATS: url, CTX_CLUSTER_CONNECT_TIMEOUT_MS: '1000' }, config })).rejects.toThrow(`cannot reach NATS at ${url}`);
    expect(Date.now() - started).toBeLessThan(15_000); // bounded, not a hang
    // RocksDB's lock was released: a single-node start on the same data dir works.
    const app = await createApp({ plugins: builtinPlugins, env: {}, config });
    expect((await app.inject({ url: '/api/v1/system/status' })).json().result.cluster).toEqual({ mode: 'single' });
    expect((await app.inject({ url: '/api/v1/observer/system' })).json().result.components.cluster).toBeUndefined();
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
