/**
 * Start-up to healthy: spawns `node dist/server/main.js` (what `npm start` runs; build it first
 * with `npm run build`) on a data dir and a free port, and times spawn → first
 * 200 from `GET /health` and from `GET /ready`, with the process's RSS at that moment. Each round
 * also times a bare `node -e` start (the floor every Node server pays), so the figures carry their
 * own baseline on a loaded machine.
 *   npx tsx bench/startup.ts [--rounds 5] [--data-dir DIR | --files N] [--base TREE]
 * --data-dir serves an existing data dir (copied per round, so every start finds it as it was);
 * --files N serves the synthetic corpus of N files, indexed (bench/corpus-dir.ts makes it once
 * under bench/.cache; ~4 minutes at 100k);
 * --base alternates each round with TREE's `npm start` entry (another checkout, built), so a
 * before/after pair is measured in the same minutes; --entry NAME=FILE (repeatable) adds another
 * entry script to the rotation (a bundle, a variant with node flags: NAME=FILE@--flag,--flag).
 * Besides wall time each row reports the CPU time the server used until healthy (user + system,
 * from /proc): on a shared machine wall time follows the load, CPU time much less so.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { corpusDir } from './corpus-dir.js';

const arg = (name: string, dflt?: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const ROUNDS = Number(arg('--rounds', '5'));
const FILES = arg('--files');
const KEPT = arg('--data-dir') ?? (FILES ? await corpusDir(Number(FILES)) : undefined);
/** What `npm start` runs in a tree: the bundle, or tsc's output in a tree from before it. */
const entryOf = (tree: string) => [path.join(tree, 'dist/server/main.js'), path.join(tree, 'dist/runtime/main.js')].find((f) => fs.existsSync(f))!;
/** The node flags a tree's `npm start` passes (package.json), so each tree starts as `npm start` does. */
const startFlags = (tree: string) =>
  (JSON.parse(fs.readFileSync(path.join(tree, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ').filter((a) => a.startsWith('--'));
const withFlags = (tree: string) => {
  const flags = startFlags(tree);
  return flags.length ? `${entryOf(tree)}@${flags.join(',')}` : entryOf(tree);
};
const MAIN = withFlags(path.resolve(import.meta.dirname, '..'));
const BASE = arg('--base');

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

const TICK_MS = 10; // USER_HZ is 100 on Linux
const cpuMs = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd (state) on
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
};

const rssMib = (pid: number) => {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 102.4) / 10 : NaN;
};

async function until(url: string, t0: number, deadline: number): Promise<number> {
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.status === 200) return performance.now() - t0;
    } catch {
      /* not listening yet */
    }
    if (performance.now() > deadline) throw new Error(`${url} not 200 in time`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function once(entry: string): Promise<{ health: number; ready: number; rss: number; cpu: number }> {
  const [main, flags] = entry.split('@') as [string, string | undefined];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-startup-'));
  if (KEPT) fs.cpSync(KEPT, dir, { recursive: true });
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [...(flags ? flags.split(',') : []), main], {
    env: { ...process.env, CTX_DATA_DIR: dir, CTX_PORT: String(port), CTX_HOST: '127.0.0.1', CTX_GRPC_PORT: String(await freePort()), CTX_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const health = await until(`http://127.0.0.1:${port}/health`, t0, t0 + 60_000);
    const cpu = cpuMs(child.pid!);
    const ready = await until(`http://127.0.0.1:${port}/ready`, t0, t0 + 120_000);
    return { health, ready, rss: rssMib(child.pid!), cpu };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function bareNode(): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((r) => child.once('exit', r));
  return performance.now() - t0;
}

type Row = { health: number; ready: number; rss: number; cpu: number; node: number };
const med = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const r = (x: number) => Math.round(x);
const entries = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--entry' ? [a.split(/=(.*)/s).slice(0, 2) as [string, string]] : []));
const trees: Array<[string, string]> = [['this tree', MAIN], ...(BASE ? [['base', withFlags(path.resolve(BASE))] as [string, string]] : []), ...entries];
const rows = new Map<string, Row[]>(trees.map(([name]) => [name, []]));
for (let i = 0; i < ROUNDS; i++)
  for (const [name, main] of i % 2 ? trees.slice().reverse() : trees) {
    const row = { ...(await once(main)), node: await bareNode() };
    rows.get(name)!.push(row);
    console.log(`${name}: healthy ${r(row.health)} ms (CPU ${row.cpu} ms), ready ${r(row.ready)} ms, RSS ${row.rss} MiB; bare node start ${r(row.node)} ms; load ${os.loadavg()[0]!.toFixed(2)}`);
  }
for (const [name, xs] of rows)
  console.log(
    JSON.stringify({
      tree: name,
      data_dir: FILES ? `corpus of ${FILES} files` : (KEPT ?? 'empty'),
      rounds: ROUNDS,
      healthy_ms_p50: r(med(xs.map((x) => x.health))),
      cpu_to_healthy_ms_p50: med(xs.map((x) => x.cpu)),
      ready_ms_p50: r(med(xs.map((x) => x.ready))),
      rss_at_ready_mib_p50: med(xs.map((x) => x.rss)),
      bare_node_ms_p50: r(med(xs.map((x) => x.node))),
      loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100),
    }),
  );
