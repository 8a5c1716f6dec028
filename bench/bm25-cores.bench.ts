/**
 * BM25 `searchText` on the native and the wasm core in ONE process, the queries alternated
 * between them, so both meet the same load on a shared machine (bench/core-wasm.bench.ts runs
 * each core in its own child, at different moments). With `--before DIR`, the same two cores of
 * an older build too (DIR holds its ctx-native.linux-x64-gnu.node, ctx-native.wasi.cjs,
 * ctx-native.wasm32-wasi.wasm and wasi-worker.mjs, e.g. copied from another checkout's
 * core-native/; DIR inside this checkout, e.g. bench/.cache/before-core, so that the wasi loader
 * finds node_modules).
 *
 *   node --import tsx bench/bm25-cores.bench.ts [--before bench/.cache/before-core] [--rounds 3]
 *
 * Workload: bench/core-wasm.bench.ts's BM25 rows (records of 60 Zipf-distributed words, 200
 * queries of 4, k 10, a filter on the account alone).
 */
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { bm25Workload } from './bm25-workload.js';

type Core = typeof import('#core-native');
const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : def;
};
const ROUNDS = Number(arg('rounds', '3'));
const req = createRequire(import.meta.url);
const dirs: Array<[string, string]> = [];
if (args.includes('--before')) dirs.push(['before', resolve(arg('before', ''))]);
dirs.push(['after', join(import.meta.dirname, '..', 'core-native')]);
const cores: Array<[string, Core]> = [];
for (const [when, dir] of dirs) {
  cores.push([`native ${when}`, req(join(dir, 'ctx-native.linux-x64-gnu.node')) as Core]);
  cores.push([`wasm ${when}`, req(join(dir, 'ctx-native.wasi.cjs')) as Core]);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

for (const n of [10_000, 100_000]) {
  const built = cores.map(([, core]) => bm25Workload(core.VectorIndex, n, 200));
  const queries = built[0]!.queries;
  const f = { account: 'a' };
  for (const q of queries.slice(0, 20)) for (const b of built) b.idx.searchText(q, 10, f);
  const lat = cores.map((): number[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const q of queries) {
      built.forEach((b, i) => {
        const t = performance.now();
        b.idx.searchText(q, 10, f);
        lat[i]!.push(performance.now() - t);
      });
    }
  }
  const p50 = Object.fromEntries(cores.map(([name], i) => [name, median(lat[i]!)]));
  const ratio = (when: string) => `${(p50[`native ${when}`]! / p50[`wasm ${when}`]!).toFixed(2)}×`;
  console.log(`BM25 searchText at ${n / 1000}k records, p50 ms: ${cores.map(([name]) => `${name} ${p50[name]!.toFixed(3)}`).join(', ')}`);
  console.log(`  wasm vs native: ${dirs.map(([when]) => `${when} ${ratio(when)}`).join(', ')}` + (dirs.length > 1 ? `; native after vs before ${(p50['native before']! / p50['native after']!).toFixed(2)}×, wasm after vs before ${(p50['wasm before']! / p50['wasm after']!).toFixed(2)}×` : ''));
}
process.exit(0);
