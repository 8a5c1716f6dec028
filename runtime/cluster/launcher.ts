/**
 * A local cluster on loopback (docs/scale-out.md, "Local cluster"): 3 nats-servers as one
 * JetStream cluster and N ctx nodes, for users and for test/cluster. `up` writes
 * `DIR/cluster.json`; `down` reads it and stops every process (idempotent).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface ClusterFile {
  nats: { url: string; pid: number }[];
  nodes: { id: string; url: string; pid: number }[];
  root_api_key: string;
}

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
export const NATS_BIN = process.env.CTX_NATS_SERVER_BIN ?? path.join(ROOT, '.cache/bin/nats-server');

export function natsServerInstalled(): boolean {
  return fs.existsSync(NATS_BIN);
}

/** A free loopback port: bound and released (the kernel does not hand it out again at once). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

class ExitedEarly extends Error {}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-3).join(' | ');
  } catch {
    return '(no log)';
  }
}

async function until(what: string, deadlineMs: number, probe: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    if (await probe().catch((err) => {
      if (err instanceof ExitedEarly) throw err;
      return false;
    })) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`cluster: ${what} not ready after ${deadlineMs / 1000} s`);
}

function detached(cmd: string, args: string[], env: NodeJS.ProcessEnv, log: string): number {
  const out = fs.openSync(log, 'a');
  const child = spawn(cmd, args, { env, stdio: ['ignore', out, out], detached: true });
  child.unref();
  fs.closeSync(out);
  if (child.pid === undefined) throw new Error(`cluster: could not start ${cmd}`);
  return child.pid;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** How a process that lost the race for its port says so (nats-server, and ctx's uWS adapter). */
const PORT_TAKEN = /address already in use|address in use/i;

export async function up(opts: { nodes: number; dir: string; heartbeatMs?: number }): Promise<ClusterFile> {
  // A port is probed free and then bound by another process: between the two, anything else on the
  // machine (a parallel test's server) may take it. Such a start is thrown away and made again on
  // new ports, a few times, instead of failing a cluster over a lost race.
  for (let attempt = 1; ; attempt++) {
    try {
      return await upOnce(opts);
    } catch (err) {
      if (!(err instanceof ExitedEarly) || !PORT_TAKEN.test(err.message) || attempt >= 4) throw err;
      const dir = path.resolve(opts.dir);
      for (const entry of fs.readdirSync(dir)) if (/^(nats-\d+|node-\d+|ctx-\d+)/.test(entry)) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
    }
  }
}

async function upOnce(opts: { nodes: number; dir: string; heartbeatMs?: number }): Promise<ClusterFile> {
  if (!natsServerInstalled()) throw new Error(`cluster: ${NATS_BIN} is missing; run bash scripts/install-nats.sh (needs Go)`);
  const dir = path.resolve(opts.dir);
  if (fs.existsSync(path.join(dir, 'cluster.json'))) throw new Error(`cluster: ${dir}/cluster.json exists; run down first`);
  fs.mkdirSync(dir, { recursive: true });
  const file: ClusterFile = { nats: [], nodes: [], root_api_key: randomBytes(24).toString('hex') };
  const write = () => fs.writeFileSync(path.join(dir, 'cluster.json'), JSON.stringify(file, null, 2) + '\n');
  try {
    const servers = [];
    for (let i = 0; i < 3; i++) servers.push({ client: await freePort(), route: await freePort(), monitor: await freePort() });
    const routes = servers.map((s) => `nats://127.0.0.1:${s.route}`).join(',');
    for (const [i, s] of servers.entries()) {
      const store = path.join(dir, `nats-${i}`);
      fs.mkdirSync(store, { recursive: true });
      const args = ['-a', '127.0.0.1', '-p', String(s.client), '-m', String(s.monitor), '-js', '-sd', store, '-n', `nats-${i}`, '--cluster_name', 'ctx', '--cluster', `nats://127.0.0.1:${s.route}`, '--routes', routes];
      file.nats.push({ url: `nats://127.0.0.1:${s.client}`, pid: detached(NATS_BIN, args, process.env, path.join(dir, `nats-${i}.log`)) });
      write();
    }
    // JetStream is usable once the meta group has a leader: every server's healthz says so.
    for (const [i, s] of servers.entries()) {
      await until(`nats-server :${s.client} (log ${dir}/nats-${i}.log)`, 60_000, async () => {
        // A server that exited (a port taken between our probe and its bind) never gets healthy:
        // say so at once, with its own words, instead of waiting out the deadline.
        if (!alive(file.nats[i]!.pid)) throw new ExitedEarly(`cluster: nats-server :${s.client} exited: ${tail(path.join(dir, `nats-${i}.log`))}`);
        return (await fetch(`http://127.0.0.1:${s.monitor}/healthz?js-enabled-only=true`)).ok;
      });
    }
    for (let i = 0; i < opts.nodes; i++) {
      const port = await freePort();
      file.nodes.push({ id: `ctx-${i + 1}`, url: `http://127.0.0.1:${port}`, pid: 0 });
      file.nodes[i]!.pid = spawnNode(dir, file, i, opts.heartbeatMs);
      write();
    }
    for (const n of file.nodes) {
      const log = path.join(dir, `${n.id.replace('ctx', 'node')}.log`);
      await until(`ctx node ${n.id} (${n.url}, log ${log})`, 60_000, async () => {
        if (!alive(n.pid)) throw new ExitedEarly(`cluster: ctx node ${n.id} (${n.url}) exited: ${tail(log)}`);
        return (await fetch(`${n.url}/health`)).ok;
      });
    }
    return file;
  } catch (err) {
    await down({ dir }).catch(() => {});
    throw err;
  }
}

/**
 * Extra node flags for the ctx nodes (`CTX_CLUSTER_NODE_FLAGS`, space-separated), for measuring them:
 * e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, which NODE_OPTIONS does not accept.
 */
export const nodeFlags = (): string[] => (process.env.CTX_CLUSTER_NODE_FLAGS ?? '').split(' ').filter(Boolean);

/** Starts (or restarts, same id, port and data) node `i` of the cluster; returns its pid. */
function spawnNode(dir: string, file: ClusterFile, i: number, heartbeatMs?: number): number {
  const n = file.nodes[i]!;
  const env = {
    ...process.env,
    CTX_HOST: '127.0.0.1',
    CTX_PORT: new URL(n.url).port,
    CTX_GRPC_PORT: '0',
    CTX_DATA_DIR: path.join(dir, `node-${i + 1}`),
    CTX_ROOT_API_KEY: file.root_api_key,
    CTX_AUTH_MODE: 'api_key',
    CTX_CLUSTER_NATS: file.nats.map((x) => x.url).join(','),
    CTX_NODE_ID: n.id,
    CTX_CLUSTER_ADVERTISE_URL: n.url,
    ...(heartbeatMs ? { CTX_CLUSTER_HEARTBEAT_MS: String(heartbeatMs) } : {}),
  };
  const main = path.join(ROOT, 'runtime/main.ts');
  return detached(process.execPath, [...nodeFlags(), '--import', 'tsx', main], env, path.join(dir, `node-${i + 1}.log`));
}

/**
 * Starts one more ctx node in DIR's running cluster (`ctx-<n+1>`, a free port, its own empty data
 * directory, the same NATS and root key): it joins the membership, placement gives it its share of
 * the shards, it replays them from the streams and then serves them. Records it in cluster.json.
 */
export async function add(opts: { dir: string; heartbeatMs?: number }): Promise<ClusterFile> {
  const dir = path.resolve(opts.dir);
  const f = path.join(dir, 'cluster.json');
  if (!fs.existsSync(f)) throw new Error(`cluster: no ${f}; run up first`);
  const file = JSON.parse(fs.readFileSync(f, 'utf8')) as ClusterFile;
  const i = file.nodes.length;
  const port = await freePort();
  file.nodes.push({ id: `ctx-${i + 1}`, url: `http://127.0.0.1:${port}`, pid: 0 });
  file.nodes[i]!.pid = spawnNode(dir, file, i, opts.heartbeatMs);
  fs.writeFileSync(f, JSON.stringify(file, null, 2) + '\n');
  const log = path.join(dir, `node-${i + 1}.log`);
  await until(`ctx node ctx-${i + 1} (log ${log})`, 120_000, async () => {
    if (!alive(file.nodes[i]!.pid)) throw new ExitedEarly(`cluster: ctx node ctx-${i + 1} exited: ${tail(log)}`);
    return (await fetch(`${file.nodes[i]!.url}/health`)).ok;
  });
  return file;
}

/**
 * Restarts a stopped node of DIR's cluster with its own id, port and data directory (a node coming
 * back after a crash or maintenance); waits until it answers and records its new pid.
 */
export async function restartNode(opts: { dir: string; id: string; heartbeatMs?: number }): Promise<ClusterFile> {
  const dir = path.resolve(opts.dir);
  const f = path.join(dir, 'cluster.json');
  const file = JSON.parse(fs.readFileSync(f, 'utf8')) as ClusterFile;
  const i = file.nodes.findIndex((n) => n.id === opts.id);
  if (i < 0) throw new Error(`cluster: no node ${opts.id} in ${f}`);
  if (alive(file.nodes[i]!.pid)) throw new Error(`cluster: node ${opts.id} is still running (pid ${file.nodes[i]!.pid})`);
  file.nodes[i]!.pid = spawnNode(dir, file, i, opts.heartbeatMs);
  fs.writeFileSync(f, JSON.stringify(file, null, 2) + '\n');
  const log = path.join(dir, `${opts.id.replace('ctx', 'node')}.log`);
  await until(`ctx node ${opts.id} (log ${log})`, 120_000, async () => {
    if (!alive(file.nodes[i]!.pid)) throw new ExitedEarly(`cluster: ctx node ${opts.id} exited: ${tail(log)}`);
    return (await fetch(`${file.nodes[i]!.url}/health`)).ok;
  });
  return file;
}

/** SIGTERM every process of DIR/cluster.json, SIGKILL what is left after the deadline. */
export async function down(opts: { dir: string; deadlineMs?: number }): Promise<{ stopped: number }> {
  const f = path.join(path.resolve(opts.dir), 'cluster.json');
  if (!fs.existsSync(f)) return { stopped: 0 };
  const file = JSON.parse(fs.readFileSync(f, 'utf8')) as ClusterFile;
  // Nodes first: they leave the membership while NATS is still there.
  const groups = [file.nodes.map((n) => n.pid), file.nats.map((n) => n.pid)];
  let stopped = 0;
  for (const pids of groups) {
    const live = pids.filter(alive);
    for (const pid of live) process.kill(pid, 'SIGTERM');
    const end = Date.now() + (opts.deadlineMs ?? 10_000);
    while (live.some(alive) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    for (const pid of live.filter(alive)) process.kill(pid, 'SIGKILL');
    stopped += live.length;
  }
  fs.rmSync(f);
  return { stopped };
}
