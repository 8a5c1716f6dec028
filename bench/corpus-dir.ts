/**
 * A data dir holding the synthetic corpus (bench/synthetic-corpus.ts) written and indexed, made
 * once and kept under bench/.cache/corpus-<files> (gitignored), for the benches that start a server
 * on a populated store (bench/startup.ts --files). Made in-process through `app.inject` at the
 * ingest's own pace (~1,200 files/s at 100k on a quiet machine), then closed so the vector index
 * file is saved beside RocksDB, as a server that was stopped cleanly leaves it.
 *   npx tsx bench/corpus-dir.ts [--files 100000]     (prints the directory; reuses a finished one)
 * Delete the directory to make it again (after a change of the stored formats, say).
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeCorpus } from './synthetic-corpus.js';

const ROOT = 'bench-root-key-0123456789';

export function corpusDirPath(files: number): string {
  return path.join(import.meta.dirname, '.cache', `corpus-${files}`);
}

/** The kept dir for `files` documents, made first when missing or unfinished. */
export async function corpusDir(files: number, log: (msg: string) => void = (m) => console.error(m)): Promise<string> {
  const dir = corpusDirPath(files);
  if (fs.existsSync(path.join(dir, 'corpus.json'))) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const { createApp } = await import('../runtime/app.js');
  const { builtinPlugins } = await import('../plugins/index.js');
  const app = await createApp({ plugins: builtinPlugins, config: { dataDir: dir, rootApiKey: ROOT, authMode: 'api_key', logLevel: 'silent', accessLog: false } });
  try {
    const call = async (key: string, method: 'GET' | 'POST', url: string, body?: unknown) => {
      const r = await app.inject({ method, url, headers: { 'x-api-key': key }, body: body as never });
      if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${r.text.slice(0, 300)}`);
      return r.json().result;
    };
    const key = (await call(ROOT, 'POST', '/api/v1/admin/accounts', { account_id: 'bench', admin_user_id: 'alice' })).user_key as string;
    const t0 = performance.now();
    let written = 0;
    await writeCorpus(files, async (url, body) => {
      const r = await call(key, 'POST', url, body);
      written += (body as { operations?: unknown[] }).operations?.length ?? 0;
      if (written && written % 10_240 === 0) log(`corpus: ${written} files written, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      return r;
    });
    for (;;) {
      try {
        await call(key, 'POST', '/api/v1/system/wait', { timeout: 30 });
        break;
      } catch {
        log(`corpus: still indexing after ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      }
    }
    // Past the flat threshold the index becomes a graph in a background compaction: wait for it, so
    // the saved file is the graph a server that ran for a while would load.
    for (const c0 = Date.now(); Date.now() - c0 < 900_000; ) {
      const st = (await call(key, 'GET', '/api/v1/observer/vectordb')).status as string;
      if (/\(hnsw\)/.test(st) || files < 20_000) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    log(`corpus: ${files} files indexed in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    await app.close();
    fs.writeFileSync(path.join(dir, 'corpus.json'), JSON.stringify({ files, key, root_key: ROOT }));
    return dir;
  } catch (err) {
    await app.close().catch(() => undefined);
    throw err;
  }
}

if (import.meta.filename === path.resolve(process.argv[1] ?? '')) {
  const i = process.argv.indexOf('--files');
  console.log(await corpusDir(i > 0 ? Number(process.argv[i + 1]) : 100_000));
}
