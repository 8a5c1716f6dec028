/**
 * The WebAssembly core against the native one (issue 26): the same workloads on each build, each
 * build in its own child process of the same run (CTX_CORE=native, then CTX_CORE=wasm), and the
 * ratio wasm ÷ native per row (throughput: higher is better for wasm; for latencies the ratio is
 * native ÷ wasm, so ≥ 0.5 always means "at least half native speed").
 *
 *   node --import tsx bench/core-wasm.bench.ts [--hnsw-n 100000] [--queries 200] [--skip-neural]
 *        [--skip-hnsw] [--before path/to/old.node] [--cores before,native,wasm]
 *
 * `before` in `--cores` adds a child that loads a native addon file directly (for the native path
 * before/after a change to the crates: the same workloads, same run): `--before`, by default
 * bench/.cache/ctx-native-before.node, which `bash bench/build-before-addon.sh [commit]` builds.
 * The native before/after on a quiet machine, in about five minutes:
 *
 *   bash bench/build-before-addon.sh && node --import tsx bench/core-wasm.bench.ts --cores before,native --skip-hnsw --skip-neural
 *
 * `--skip-hnsw` leaves out the graph (its build takes minutes per core when it is not cached):
 * the flat (exact) row is then measured on the uncompacted index, the HNSW rows are not.
 *
 * Rows: SHA-256 over 32 MiB in 64 KiB buffers; BM25 `searchText` at 10k and 100k records; exact
 * (flat) and HNSW search at N × 384 (recall@10 against the exact result, p50 latency); the lexical
 * embedder; the neural one when its model is installed; the outline of a 5,000-line TypeScript file.
 * Vectors: a Gaussian mixture (1,024 L2-normalized centres, each vector a centre plus noise of norm
 * ≈ 1, normalized), queries fresh draws; fixed seeds. The built HNSW index of each core is cached
 * under bench/.cache (the first run reports the build time, later runs the load).
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { bm25Workload, zipfText } from './bm25-workload.js';
import { mulberry32 } from './metrics-stats.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : def;
};
const HNSW_N = Number(arg('hnsw-n', '100000'));
const SKIP_HNSW = args.includes('--skip-hnsw');
const NQ = Number(arg('queries', '200'));
const DIM = 384;
const K = 10;
const CACHE = join(import.meta.dirname, '.cache');
const log = (...a: unknown[]) => console.error(new Date().toISOString().slice(11, 19), ...a);

type Row = { name: string; unit: string; value: number; higherIsBetter: boolean; note?: string };

const mulberry = mulberry32;

function gaussian(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(Math.max(rnd(), 1e-12))) * Math.cos(2 * Math.PI * rnd());
}

function normalize(v: Float32Array, off: number, d: number) {
  let n = 0;
  for (let j = 0; j < d; j++) n += v[off + j]! ** 2;
  n = Math.sqrt(n) || 1;
  for (let j = 0; j < d; j++) v[off + j]! /= n;
}

function mixture(n: number, d: number, seed: number): Float32Array {
  const rc = mulberry(7);
  const centres = new Float32Array(1024 * d);
  for (let i = 0; i < centres.length; i++) centres[i] = gaussian(rc);
  for (let c = 0; c < 1024; c++) normalize(centres, c * d, d);
  const r = mulberry(seed);
  const out = new Float32Array(n * d);
  const sd = 1 / Math.sqrt(d);
  for (let i = 0; i < n; i++) {
    const c = Math.floor(r() * 1024);
    for (let j = 0; j < d; j++) out[i * d + j] = centres[c * d + j]! + gaussian(r) * sd;
    normalize(out, i * d, d);
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function tsSource(lines: number): string {
  const out: string[] = [];
  let i = 0;
  while (out.length < lines) {
    out.push(`export class Service${i} {`, `  private items: number[] = [];`, `  constructor(readonly name: string) {}`);
    out.push(`  add(x: number): void {`, `    if (x > ${i}) this.items.push(x);`, `  }`);
    out.push(`  total(): number {`, `    return this.items.reduce((a, b) => a + b, 0);`, `  }`, `}`);
    out.push(`export function helper${i}(a: string, b: number): string {`, `  return a.repeat(b);`, `}`, `interface Shape${i} { id: number; label: string }`, '');
    i++;
  }
  return out.slice(0, lines).join('\n');
}

type Addon = typeof import('#core-native');

/** The core under test: the one runtime/native.ts loads (CTX_CORE), or an addon file as is. */
async function loadCore(): Promise<{ kind: string; core: Addon }> {
  const file = process.env.CORE_WASM_BENCH_ADDON;
  if (file) return { kind: 'before', core: createRequire(import.meta.url)(file) as Addon };
  const native = await import('../runtime/native.js');
  log(`core ${native.coreInfo.kind} ${native.coreInfo.version}, graph ${native.coreInfo.graph}`);
  return { kind: native.coreInfo.kind, core: createRequire(import.meta.url)('#core-native') as Addon };
}

async function child(): Promise<Row[]> {
  const { kind, core } = await loadCore();
  const { VectorIndex } = core;
  const hash = { sha256Many: (b: Buffer[]) => core.sha256Many(b) };
  const localEmbed = { embed: (t: string[], d: number) => core.embedLocal(t, d) };
  const outlineCode = (src: string, lang: string) => core.outlineCode(src, lang);
  const rows: Row[] = [];

  // SHA-256 bulk.
  const bufs = Array.from({ length: 512 }, (_, i) => Buffer.alloc(64 * 1024, i));
  hash.sha256Many(bufs.slice(0, 8));
  const times: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    hash.sha256Many(bufs);
    times.push(performance.now() - t);
  }
  rows.push({ name: 'SHA-256, 512 × 64 KiB (sha256Many)', unit: 'MB/s', value: 32 / 1.048576 / (median(times) / 1000), higherIsBetter: true });

  // BM25.
  for (const n of [10_000, 100_000]) {
    const { idx, queries: qs } = bm25Workload(VectorIndex, n, NQ);
    for (const q of qs.slice(0, 10)) idx.searchText(q, K, { account: 'a' });
    const lat = qs.map((q) => {
      const t = performance.now();
      idx.searchText(q, K, { account: 'a' });
      return performance.now() - t;
    });
    rows.push({ name: `BM25 searchText at ${n / 1000}k records, p50`, unit: 'ms', value: median(lat), higherIsBetter: false });
  }

  // Flat (exact) and HNSW at HNSW_N × 384.
  const base = mixture(HNSW_N, DIM, 1);
  const queries = mixture(NQ, DIM, 2);
  mkdirSync(CACHE, { recursive: true });
  const file = join(CACHE, `core-wasm-${kind}-${HNSW_N}.idx`);
  log(`${kind}: flat${SKIP_HNSW ? '' : ' and HNSW'} at ${HNSW_N} × ${DIM}`);
  let idx: InstanceType<typeof VectorIndex>;
  if (existsSync(file) && !SKIP_HNSW) {
    const t = performance.now();
    idx = await VectorIndex.loadAsync(file);
    log(`${kind}: loaded the cached ${HNSW_N} index in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  } else {
    idx = new VectorIndex({ dim: DIM });
    const attrs = Array.from({ length: HNSW_N }, (_, i) => ({ account: 'a', ownerSpace: '', uri: `ctx://resources/v/${i}`, parentUri: 'ctx://resources/v', contextType: 'resource' as const, level: 2, tags: [], createdAt: 0, updatedAt: 0 }));
    const ids = Array.from({ length: HNSW_N }, (_, i) => i.toString(16).padStart(32, '0'));
    for (let s = 0; s < HNSW_N; s += 10_000) idx.upsert(ids.slice(s, s + 10_000), base.subarray(s * DIM, (s + 10_000) * DIM), attrs.slice(s, s + 10_000));
  }
  if (!SKIP_HNSW && !existsSync(file)) {
    const t = performance.now();
    await idx.compactAsync();
    const ms = performance.now() - t;
    log(`${kind}: HNSW graph of ${HNSW_N} built in ${(ms / 1000).toFixed(1)} s`);
    rows.push({ name: `HNSW build, ${HNSW_N / 1000}k × ${DIM} (native: 2 threads; wasm: 1)`, unit: 's', value: ms / 1000, higherIsBetter: false });
    await idx.saveAsync(file);
  }
  if (!SKIP_HNSW && idx.stats().kind !== 'hnsw') throw new Error(`expected an HNSW index, got ${idx.stats().kind}`);
  const f = { account: 'a' };
  const q = (i: number) => queries.subarray(i * DIM, (i + 1) * DIM);
  const exactLat: number[] = [];
  const truth = Array.from({ length: NQ }, (_, i) => {
    const t = performance.now();
    const hits = idx.search(q(i), K, f, { exact: true });
    exactLat.push(performance.now() - t);
    return new Set(hits.map((h) => h.id));
  });
  rows.push({ name: `flat (exact) search, ${HNSW_N / 1000}k × ${DIM}, p50`, unit: 'ms', value: median(exactLat), higherIsBetter: false });
  if (!SKIP_HNSW) {
    for (let i = 0; i < 20; i++) idx.search(q(i), K, f);
    let found = 0;
    const graphLat = Array.from({ length: NQ }, (_, i) => {
      const t = performance.now();
      const hits = idx.search(q(i), K, f);
      const ms = performance.now() - t;
      found += hits.filter((h) => truth[i]!.has(h.id)).length;
      return ms;
    });
    const recall = found / (NQ * K);
    rows.push({ name: `HNSW search, ${HNSW_N / 1000}k × ${DIM}, ef 160, p50`, unit: 'ms', value: median(graphLat), higherIsBetter: false, note: `recall@10 ${recall.toFixed(3)}` });
    rows.push({ name: `HNSW recall@10, ${HNSW_N / 1000}k × ${DIM}`, unit: '', value: recall, higherIsBetter: true });
  }

  // Lexical embedder.
  const r = mulberry(3);
  const texts = Array.from({ length: 2000 }, () => zipfText(r, 40));
  localEmbed.embed(texts.slice(0, 20), DIM);
  const et: number[] = [];
  for (let k = 0; k < 3; k++) {
    const t = performance.now();
    localEmbed.embed(texts, DIM);
    et.push(performance.now() - t);
  }
  rows.push({ name: 'lexical embedder, 2,000 texts of 40 words (calling thread)', unit: 'texts/s', value: 2000 / (median(et) / 1000), higherIsBetter: true });

  // Neural embedder, when the model is there and this build has it.
  const modelDir = join(import.meta.dirname, '..', 'models', 'all-minilm-l6-v2');
  if (!args.includes('--skip-neural') && existsSync(modelDir)) {
    try {
      const ne = new core.NeuralEmbedder(modelDir);
      const batch = texts.slice(0, 64);
      await ne.embed(batch.slice(0, 4));
      const t = performance.now();
      await ne.embed(batch);
      rows.push({ name: 'neural embedder (MiniLM-L6), 64 texts of 40 words', unit: 'texts/s', value: 64 / ((performance.now() - t) / 1000), higherIsBetter: true });
    } catch (err) {
      log(`${kind}: neural embedder unavailable: ${(err as Error).message.split('\n')[0]}`);
    }
  }

  // Outline of a 5,000-line file.
  const src = tsSource(5000);
  outlineCode(src, 'typescript');
  const ot: number[] = [];
  for (let k = 0; k < 7; k++) {
    const t = performance.now();
    outlineCode(src, 'typescript');
    ot.push(performance.now() - t);
  }
  rows.push({ name: 'outline of a 5,000-line TypeScript file, p50', unit: 'ms', value: median(ot), higherIsBetter: false });
  return rows;
}

if (process.env.CORE_WASM_BENCH_CHILD === '1') {
  const rows = await child();
  process.stdout.write(`${JSON.stringify(rows)}\n`);
  process.exit(0);
}

const runs: Record<string, Row[]> = {};
const cores = arg('cores', args.includes('--before') ? 'before,native,wasm' : 'native,wasm').split(',');
const before = arg('before', join(CACHE, 'ctx-native-before.node'));
if (cores.includes('before') && !existsSync(before)) {
  throw new Error(`no "before" addon at ${before}: build it with \`bash bench/build-before-addon.sh [commit]\` (or pass --before path/to/addon.node)`);
}
for (const core of cores) {
  log(`running the workloads on the ${core} core`);
  const extra = core === 'before' ? { CORE_WASM_BENCH_ADDON: before, CTX_CORE: 'native' } : { CTX_CORE: core };
  const r = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, ...args], {
    env: { ...process.env, ...extra, CORE_WASM_BENCH_CHILD: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`the ${core} run failed (exit ${r.status})`);
  runs[core] = JSON.parse(r.stdout.trim().split('\n').pop()!) as Row[];
}
const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
console.log(`\ncore-wasm: ${HNSW_N} × ${DIM} vectors, ${NQ} queries, ${new Date().toISOString()}\n`);
if (runs.wasm && runs.native) console.log('| workload | unit | native | wasm | wasm vs native |\n|---|---|---|---|---|');
for (const w of runs.native ? (runs.wasm ?? []) : []) {
  const n = runs.native!.find((x) => x.name.replace(/native: .*; wasm: 1/, '') === w.name.replace(/native: .*; wasm: 1/, ''));
  const ratio = n ? (w.higherIsBetter ? w.value / n.value : n.value / w.value) : NaN;
  console.log(`| ${w.name}${w.note ? ` (wasm ${w.note}${n?.note ? `, native ${n.note}` : ''})` : ''} | ${w.unit} | ${n ? fmt(n.value) : '-'} | ${fmt(w.value)} | ${Number.isNaN(ratio) ? '-' : `${ratio.toFixed(2)}×`} |`);
}
for (const n of runs.wasm ? (runs.native ?? []) : []) if (!runs.wasm.some((w) => w.name === n.name)) console.log(`| ${n.name} | ${n.unit} | ${fmt(n.value)} | - | - |`);
if (runs.before && runs.native) {
  console.log('\nnative path before/after (`--before`: the addon given, then the current native build; after vs before)\n');
  console.log('| workload | unit | before | after | after vs before |');
  console.log('|---|---|---|---|---|');
  for (const b of runs.before) {
    const a = runs.native!.find((x) => x.name === b.name);
    if (!a) continue;
    const ratio = b.higherIsBetter ? a.value / b.value : b.value / a.value;
    console.log(`| ${b.name} | ${b.unit} | ${fmt(b.value)} | ${fmt(a.value)} | ${ratio.toFixed(2)}× |`);
  }
}
