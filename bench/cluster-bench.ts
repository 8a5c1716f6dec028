/**
 * What the cluster benches (bench/cluster-write.bench.ts, bench/cluster-find.bench.ts) share: their
 * numeric flags, the nats-server they need, and the launcher's heartbeat they run the cluster with.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { natsServerInstalled, nodeFlags } from '../runtime/cluster/launcher.js';

/**
 * The launcher's nodes inherit this process's environment: they run without the access log, like
 * the single node they are compared with (`spawnSingleNode`). With it, every request a cluster node
 * served cost a synchronous log-file write the single node did not make — on the leader ~0.3 ms of
 * CPU per write, on 2 cores shared with the nats-servers (found profiling issue 23, stop 36).
 */
process.env.CTX_ACCESS_LOG = 'false';

/** Membership heartbeat of the benches' clusters: lease TTL 1.5 s, so failover is measured in seconds. */
export const HEARTBEAT_MS = 500;

export const numArg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

export function requireNatsServer(): void {
  if (natsServerInstalled()) return;
  console.error('nats-server is not installed: bash scripts/install-nats.sh');
  process.exit(1);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The single-node server the cluster is compared against: runtime/main.ts without CTX_CLUSTER_NATS, on `port`. */
export function spawnSingleNode(dataDir: string, key: string, port: number): ChildProcess {
  return spawn(process.execPath, [...nodeFlags(), '--import', 'tsx', 'runtime/main.ts'], {
    env: { ...process.env, CTX_HOST: '127.0.0.1', CTX_PORT: String(port), CTX_GRPC_PORT: '0', CTX_DATA_DIR: dataDir, CTX_ROOT_API_KEY: key, CTX_AUTH_MODE: 'api_key', CTX_ACCESS_LOG: 'false' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
