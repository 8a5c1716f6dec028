/**
 * A node started while JetStream cannot answer yet (runtime/cluster/cluster-node.ts, `openBucket`):
 * NATS is reachable, but the nats-server it reaches has no meta leader — its two cluster peers are
 * not up, as after one was killed and the cluster re-elects. JetStream's calls then time out or
 * answer 10008 "temporarily unavailable". The node waits that out past its connect deadline (a
 * restart in CI under load refused to start after 10 s, stop 36) and starts once the peers are up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../runtime/app.js';
import { NATS_BIN, freePort, natsServerInstalled } from '../../runtime/cluster/launcher.js';
import { builtinPlugins } from '../../plugins/index.js';
import { tempDir } from '../helpers/app.js';
import { clusterTurn } from './one-at-a-time.js';

describe.skipIf(!natsServerInstalled())('a node starting while JetStream elects its meta leader', () => {
  const servers: ChildProcess[] = [];
  const dirs: string[] = [];
  let app: App | undefined;
  let release: (() => void) | undefined;

  afterAll(async () => {
    await app?.close();
    for (const s of servers) s.kill('SIGKILL');
    release?.();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('keeps retrying past its connect deadline, and starts once the nats-servers have a quorum', async () => {
    release = await clusterTurn();
    const ports = await Promise.all(Array.from({ length: 6 }, () => freePort()));
    const client = ports.slice(0, 3);
    const route = ports.slice(3);
    const store = tempDir();
    dirs.push(store);
    const startServer = (i: number) => {
      const routes = route.filter((_, j) => j !== i).map((p) => `nats://127.0.0.1:${p}`).join(',');
      const args = ['-a', '127.0.0.1', '-p', String(client[i]), '-js', '-sd', path.join(store, `nats-${i}`), '-n', `settle-${i}`, '--cluster_name', 'settle', '--cluster', `nats://127.0.0.1:${route[i]}`, '--routes', routes];
      servers.push(spawn(NATS_BIN, args, { stdio: 'ignore' }));
    };
    startServer(0);

    const dataDir = tempDir();
    dirs.push(dataDir);
    const started = Date.now();
    let settled: 'started' | Error | undefined;
    const starting = createApp({
      plugins: builtinPlugins,
      // Only the first server's URL: the node is connected within its deadline, JetStream is not ready.
      env: { CTX_CLUSTER_NATS: `nats://127.0.0.1:${client[0]}`, CTX_CLUSTER_CONNECT_TIMEOUT_MS: '1000', CTX_CLUSTER_HEARTBEAT_MS: '250', CTX_NODE_ID: 'settling' },
      config: { dataDir, authMode: 'dev', logLevel: 'silent', grpcPort: 0 },
    }).then(
      (a) => ((app = a), (settled = 'started')),
      (err: Error) => (settled = err),
    );
    // Well past the 1 s connect deadline, the node has neither started nor given up.
    await new Promise((r) => setTimeout(r, 4000));
    expect(settled).toBeUndefined();

    startServer(1);
    startServer(2);
    await starting;
    expect(settled).toBe('started');
    expect(Date.now() - started).toBeGreaterThan(4000);
    const status = (await app!.inject({ url: '/api/v1/system/status' })).json().result.cluster;
    expect(status.mode).toBe('cluster');
    expect(status.node.id).toBe('settling');
  }, 120_000);
});
