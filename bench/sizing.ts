/**
 * Sizing for docs/operations.md: RSS and disk after ingesting N synthetic ~1 KB notes (the corpus
 * of the retrieval benches) through `content/batch-write`, with the default local embedder, once
 * the indexer is idle. With --checkpoints, one run also measures on its way (indexer idle, RSS
 * after a GC, RocksDB's directory, the vector index's memory), so a single ingest gives the
 * scaling points; a checkpoint line is printed as soon as it is measured.
 *   node --expose-gc --import tsx bench/sizing.ts [--files 20000] [--checkpoints 25000,50000]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../runtime/app.js';
import { builtinPlugins } from '../plugins/index.js';
import { doc } from './synthetic-corpus.js';

const flag = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const FILES = Number(flag('files') ?? 20_000);
const CHECKPOINTS = new Set((flag('checkpoints') ?? '').split(',').filter(Boolean).map(Number));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-sizing-'));
const ROOT = 'sizing-root-key-0123456789';
const app = await createApp({ env: {}, plugins: builtinPlugins, config: { dataDir: dir, rootApiKey: ROOT, authMode: 'api_key', logLevel: 'silent', accessLog: false, grpcPort: 0 } });
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const rssStart = process.memoryUsage().rss;
const t0 = Date.now();
let bytes = 0;
const du = (p: string) => (fs.existsSync(p) ? Number(execFileSync('du', ['-sb', p], { encoding: 'utf8' }).split('\t')[0]) : 0);
const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;

/** The vector index's memory by the retrieval plugin's own gauge (the file is written at close). */
async function vectorIndexBytes(): Promise<number> {
  const text = await app.metrics.text();
  let sum = 0;
  for (const m of text.matchAll(/^ctx_retrieval_vector_index_bytes\{[^}]*\} (\S+)$/gm)) sum += Number(m[1]);
  return sum;
}

const mk = await app.inject({ method: 'POST', url: '/api/v1/fs/mkdir', headers: { 'x-api-key': ROOT }, body: { uri: 'ctx://resources/bench' } });
if (mk.status !== 200) throw new Error(mk.text);
for (let start = 0; start < FILES; start += 256) {
  const ops = [];
  const end = Math.min(FILES, start + 256);
  for (let k = start; k < end; k++) {
    const d = doc(k);
    bytes += Buffer.byteLength(d.content);
    ops.push({ uri: d.uri, content: d.content, mode: 'upsert' });
  }
  const r = await app.inject({ method: 'POST', url: '/api/v1/content/batch-write', headers: { 'x-api-key': ROOT }, body: { root_uri: 'ctx://resources/bench', operations: ops, wait: false } });
  if (r.status !== 200) throw new Error(r.text);
  const reached = [...CHECKPOINTS].find((c) => c > start && c <= end);
  if (reached !== undefined) {
    await app.queues.waitIdle(3_600_000);
    gc?.();
    const rss = process.memoryUsage().rss;
    console.log(JSON.stringify({ checkpoint: end, content_mib: mib(bytes), elapsed_s: Math.round((Date.now() - t0) / 1000), rss_mib: mib(rss), rss_growth_mib: mib(rss - rssStart), db_mib: mib(du(path.join(dir, 'db'))), vector_index_memory_mib: mib(await vectorIndexBytes()) }));
  }
}
await app.queues.waitIdle(3_600_000);
const seconds = (Date.now() - t0) / 1000;
gc?.();
const rss = process.memoryUsage().rss;
const indexMemory = await vectorIndexBytes();
await app.close(); // flushes the vector index file
const disk = { total: du(dir), db: du(path.join(dir, 'db')), vectors: du(path.join(dir, 'vectors')) };
const per100k = (b: number) => mib((b * 100_000) / FILES);
console.log(JSON.stringify({ files: FILES, content_mib: mib(bytes), ingest_s: Math.round(seconds), rss_start_mib: mib(rssStart), rss_mib: mib(rss), disk_total_mib: mib(disk.total), db_mib: mib(disk.db), vectors_mib: mib(disk.vectors), vector_index_memory_mib: mib(indexMemory) }));
console.log(`scaled to 100,000 files: RSS growth ${per100k(rss - rssStart)} MiB, disk ${per100k(disk.total)} MiB (RocksDB ${per100k(disk.db)} MiB, vector index ${per100k(disk.vectors)} MiB), content ${per100k(bytes)} MiB`);
fs.rmSync(dir, { recursive: true, force: true });
