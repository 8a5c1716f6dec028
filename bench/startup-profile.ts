/**
 * Where start-up goes, module by module: spawns `node --cpu-prof dist/server/main.js` on an
 * empty data dir, stops it at the first 200 from `/health`, and sums the profile's samples by
 * what they ran in: each npm package, each folder of this repo (runtime/http, plugins/mcp, …),
 * node's own internals (the module loader, compilation), GC and native code. A CPU profile is the
 * one accounting that covers both ES modules and CommonJS `require` and counts evaluation, not just
 * reading the source. Samples are CPU time, so the split holds on a loaded machine even when the
 * wall time does not.
 *   npx tsx bench/startup-profile.ts [--top 30] [--tree DIR] [--entry dist/runtime/main.js]
 * Prints the groups by self time, with the files and bytes of source of the scripts that ran.
 * (For every module loaded, sampled or not: `node --import ./bench/module-load-hook.mjs …`.)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const arg = (name: string, dflt?: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const TOP = Number(arg('--top', '30'));
const TREE = path.resolve(arg('--tree', path.resolve(import.meta.dirname, '..'))!);
const ENTRY = path.resolve(TREE, arg('--entry', 'dist/server/main.js')!);

interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

/** The group a script belongs to: an npm package, a folder of the repo, or node itself. */
function groupOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native or builtin)';
  if (url.startsWith('node:')) return /loader|modules/.test(url) ? 'node: module loader' : 'node: internals';
  const file = url.replace(/^file:\/\//, '');
  const nm = file.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = file.slice(nm + 14).split('/');
    return 'npm ' + (rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]);
  }
  const rel = path.relative(TREE, file).replace(/^dist\//, '');
  if (rel.startsWith('server/')) return 'dist/server (the bundle)';
  const parts = rel.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-startup-prof-'));
  const profDir = path.join(dir, 'prof');
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-interval', '200', ENTRY], {
    env: { ...process.env, CTX_DATA_DIR: path.join(dir, 'data'), CTX_PORT: String(port), CTX_HOST: '127.0.0.1', CTX_GRPC_PORT: String(await freePort()), CTX_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let healthy = 0;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) {
        healthy = performance.now() - t0;
        break;
      }
    } catch {
      /* not listening yet */
    }
    if (performance.now() - t0 > 60_000) throw new Error('not healthy in 60 s');
    await new Promise((r) => setTimeout(r, 2));
  }
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  const file = fs.readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'))!;
  const prof = JSON.parse(fs.readFileSync(path.join(profDir, file), 'utf8')) as Profile;
  fs.rmSync(dir, { recursive: true, force: true });

  // Only the samples up to healthy: the profile runs on until the process exits.
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const scripts = new Map<string, Set<string>>();
  let t = 0;
  let total = 0;
  const limitUs = healthy * 1000;
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i]!;
    if (t > limitUs) break;
    const n = byId.get(prof.samples[i]!)!;
    const g = groupOf(n.callFrame.url, n.callFrame.functionName);
    const dt = prof.timeDeltas[i + 1] ?? 0;
    self.set(g, (self.get(g) ?? 0) + dt);
    total += dt;
  }
  for (const n of prof.nodes) {
    const u = n.callFrame.url;
    if (!u || u.startsWith('node:')) continue;
    const g = groupOf(u, '');
    (scripts.get(g) ?? scripts.set(g, new Set()).get(g)!).add(u);
  }
  const bytes = (g: string) => [...(scripts.get(g) ?? [])].reduce((s, u) => s + (fs.existsSync(u.replace(/^file:\/\//, '')) ? fs.statSync(u.replace(/^file:\/\//, '')).size : 0), 0);
  console.log(`healthy after ${Math.round(healthy)} ms; ${Math.round(total / 1000)} ms of samples before it; load ${os.loadavg()[0]!.toFixed(2)}`);
  console.log('group'.padEnd(44), 'self ms'.padStart(8), 'share'.padStart(6), 'files'.padStart(6), 'KiB src'.padStart(8));
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  for (const [g, us] of rows)
    console.log(g.padEnd(44), (us / 1000).toFixed(1).padStart(8), `${((100 * us) / total).toFixed(1)}%`.padStart(6), String(scripts.get(g)?.size ?? '').padStart(6), (scripts.has(g) ? (bytes(g) / 1024).toFixed(0) : '').padStart(8));
}

await main();
