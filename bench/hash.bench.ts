/**
 * core-native sha256 against node:crypto, same inputs, same run (issue 2 target: >= 1.5x).
 *   npx tsx bench/hash.bench.ts
 * Cases: many small buffers (pack manifests, batch-write preconditions) and a set of files
 * streamed from disk (pack export). node:crypto uses OpenSSL with SHA-NI as well, so the gain is
 * per-call overhead for small buffers and parallel streaming for files.
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { hash } from '../runtime/native.js';

const small = Array.from({ length: 10_000 }, (_, i) => Buffer.alloc(1024, i & 0xff));
const dir = mkdtempSync(join(tmpdir(), 'ctx-hash-bench-'));
const files = Array.from({ length: 32 }, (_, i) => {
  const p = join(dir, `f${i}.bin`);
  const data = Buffer.alloc(4 << 20);
  for (let j = 0; j < data.length; j += 4096) data[j] = (i + j) & 0xff;
  writeFileSync(p, data);
  return p;
});

const nodeFile = (p: string) =>
  new Promise<string>((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(p, { highWaterMark: 256 * 1024 })
      .on('data', (c) => h.update(c))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });

const bench = new Bench({ time: 2000, warmupTime: 300 });
bench
  .add('node:crypto 10k x 1 KB', () => {
    for (const b of small) createHash('sha256').update(b).digest('hex');
  })
  .add('native sha256Many 10k x 1 KB', () => {
    hash.sha256Many(small);
  })
  .add('native sha256ManyAsync 10k x 1 KB', async () => {
    await hash.sha256ManyAsync(small);
  })
  .add('node:crypto stream 32 x 4 MB files (all concurrent)', async () => {
    await Promise.all(files.map(nodeFile));
  })
  .add('native sha256Files 32 x 4 MB files', async () => {
    await hash.sha256Files(files);
  });

await bench.run();
const mean = (name: string) => (bench.tasks.find((t) => t.name === name)!.result as unknown as { latency: { mean: number } }).latency.mean;
console.table(bench.table());
const ratios = {
  'small buffers: node / native sync': mean('node:crypto 10k x 1 KB') / mean('native sha256Many 10k x 1 KB'),
  'small buffers: node / native async': mean('node:crypto 10k x 1 KB') / mean('native sha256ManyAsync 10k x 1 KB'),
  'files: node / native': mean('node:crypto stream 32 x 4 MB files (all concurrent)') / mean('native sha256Files 32 x 4 MB files'),
};
for (const [k, v] of Object.entries(ratios)) console.log(`${k}: ${v.toFixed(2)}x`);
rmSync(dir, { recursive: true, force: true });
