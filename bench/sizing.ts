/**
 * Sizing for docs/operations.md: RSS and disk after ingesting N synthetic ~1 KB notes (the corpus
 * of the retrieval benches) through `content/batch-write`, with the default local embedder, once
 * the indexer is idle. Prints the figures and their scale to 100,000 files.
 *   node --expose-gc --import tsx bench/sizing.ts [--files 20000]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../runtime/app.js';
import { builtinPlugins } from '../plugins/index.js';
import { doc } from './synthetic-corpus.js';

const i = process.argv.indexOf('--files');
const FILES = i > 0 ? Number(process.argv[i + 1]) : 20_000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-sizing-'));
const ROOT = 'sizing-root-key-0123456789';
const app = await createApp({ env: {}, plugins: builtinPlugins, config: { dataDir: dir, rootApiKey: ROOT, authMode: 'api_key', logLevel: 'silent', accessLog: false, grpcPort: 0 } });
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const rssStart = process.memoryUsage().rss;
const t0 = Date.now();
let bytes = 0;
const mk = await app.inject({ method: 'POST', url: '/api/v1/fs/mkdir', headers: { 'x-api-key': ROOT }, body: { uri: 'ctx://resources/bench' } });
if (mk.status !== 200) throw new Error(mk.text);
for (let start = 0; start < FILES; start += 256) {
  const ops = [];
  for (let k = start; k < Math.min(FILES, start + 256); k++) {
    const d = doc(k);
    bytes += Buffer.byteLength(d.content);
    ops.push({ uri: d.uri, content: d.content, mode: 'upsert' });
  }
  const r = await app.inject({ method: 'POST', url: '/api/v1/content/batch-write', headers: { 'x-api-key': ROOT }, body: { root_uri: 'ctx://resources/bench', operations: ops, wait: false } });
  if (r.status !== 200) throw new Error(r.text);
}
await app.queues.waitIdle(3_600_000);
const seconds = (Date.now() - t0) / 1000;
gc?.();
const rss = process.memoryUsage().rss;
const du = (p: string) => Number(execFileSync('du', ['-sb', p], { encoding: 'utf8' }).split('\t')[0]);
await app.close(); // flushes the vector index file
const disk = { total: du(dir), db: du(path.join(dir, 'db')), vectors: fs.existsSync(path.join(dir, 'vectors')) ? du(path.join(dir, 'vectors')) : 0 };
const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;
const per100k = (b: number) => mib((b * 100_000) / FILES);
console.log(JSON.stringify({ files: FILES, content_mib: mib(bytes), ingest_s: Math.round(seconds), rss_start_mib: mib(rssStart), rss_mib: mib(rss), disk_total_mib: mib(disk.total), db_mib: mib(disk.db), vectors_mib: mib(disk.vectors) }));
console.log(`scaled to 100,000 files: RSS growth ${per100k(rss - rssStart)} MiB, disk ${per100k(disk.total)} MiB (RocksDB ${per100k(disk.db)} MiB, vector index ${per100k(disk.vectors)} MiB), content ${per100k(bytes)} MiB`);
fs.rmSync(dir, { recursive: true, force: true });
