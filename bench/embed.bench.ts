/**
 * Local embedder throughput (texts/s for 1 KB texts), on the calling thread and on the libuv pool,
 * and the latency of one short query.
 *   npx tsx bench/embed.bench.ts
 * Texts: 2,000 × ~1 KB assembled from the retrieval-quality corpus (English prose, code, notes).
 */
import { readFileSync } from 'node:fs';
import { Bench } from 'tinybench';
import { localEmbed } from '../runtime/native.js';

const paragraphs = readFileSync(new URL('./retrieval-quality/corpus.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('#') && !l.startsWith('@'));
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const texts = Array.from({ length: 2000 }, () => {
  let t = '';
  while (t.length < 1024) t += paragraphs[Math.floor(rand() * paragraphs.length)] + ' ';
  return t.slice(0, 1024);
});
const queries = ['how do I rotate database credentials', 'retry with exponential backoff', 'what does alice like'];
const DIM = 384;

const bench = new Bench({ time: 3000, warmupTime: 300 });
bench
  .add('native embedLocal (sync), 2,000 x 1 KB', () => void localEmbed.embed(texts, DIM))
  .add('native embedLocalAsync, 2,000 x 1 KB', async () => void (await localEmbed.embedAsync(texts, DIM)))
  .add('native embedLocal (sync), one short query', () => void localEmbed.embed([queries[0]!], DIM));
await bench.run();
console.table(bench.table());
const mean = (n: string) => (bench.tasks.find((t) => t.name === n)!.result as { latency: { mean: number } }).latency.mean;
const perSec = (n: string) => (texts.length / mean(n)) * 1000;
const syncRate = perSec('native embedLocal (sync), 2,000 x 1 KB');
const asyncRate = perSec('native embedLocalAsync, 2,000 x 1 KB');
console.log(`native sync: ${Math.round(syncRate)} texts/s`);
console.log(`native async (all cores): ${Math.round(asyncRate)} texts/s`);
console.log(`one query: ${(mean('native embedLocal (sync), one short query') * 1000).toFixed(1)} µs`);
