/**
 * Issue 12, packs with bounded memory: export then import of N files with their vectors
 * (`include_vectors`, `vector_mode: require`), each measured in a fresh subprocess whose peak RSS
 * (`/usr/bin/time -v`, "Maximum resident set size") is the figure, next to Info-ZIP `zip -r -1` /
 * `unzip` on the same files in the same run.
 *
 *   node --import tsx bench/packs-memory.bench.ts [--files 10000] [--size 51200] [--keep DIR]
 *
 * 1. `prepare` (subprocess, not measured): all built-in plugins (local embedder), the files written
 *    to ctx://resources/set and to disk, then indexed (vectors for every file and directory).
 *    The measured steps load the built-in plugins without the semantic indexer (see `app`).
 * 2. `export` (subprocess under /usr/bin/time -v): a fresh server on the data dir, POST
 *    /api/v1/pack/export over HTTP, streamed to a file by curl (another process).
 * 3. `import` (subprocess under /usr/bin/time -v): a fresh server, the pack placed as a temp upload
 *    (temp_upload would hold a 500 MB body in memory: not part of import), POST /api/v1/pack/import
 *    to a new parent. The request time is the figure; the indexer's work after it is not.
 * 4. `zip -r -1` and `unzip -q` of the same files on disk.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileSet } from './file-set.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const FILES = Number(arg('files', '10000'));
const SIZE = Number(arg('size', String(50 * 1024)));
const ROOT_KEY = 'bench-root-key-0123456789abcdef0123';
const now = () => performance.now();
const mib = (b: number) => (b / 2 ** 20).toFixed(0) + ' MiB';
const s = (ms: number) => (ms / 1000).toFixed(2) + ' s';


/**
 * `indexer: false` (the measured steps): the built-in plugins without semantic (and what depends
 * on it). The retrieval plugin stays (its vector store is what include_vectors exports and
 * vector_mode require writes); the indexer's background summaries of the written directories are
 * not pack work and would compete with it for the 2 cores.
 */
async function app(dir: string, indexer = false) {
  const { createApp } = await import('../runtime/app.js');
  const { builtinPlugins } = await import('../plugins/index.js');
  const plugins = indexer ? builtinPlugins : builtinPlugins.filter((p) => p.name !== 'semantic' && !(p.dependsOn ?? []).includes('semantic'));
  return createApp({ env: {}, plugins, config: { dataDir: path.join(dir, 'data'), rootApiKey: ROOT_KEY, authMode: 'api_key', logLevel: 'silent', accessLog: false, grpcPort: 0 } });
}

const rootHeaders = { 'x-api-key': ROOT_KEY, 'x-ctx-account': 'bench', 'x-ctx-user': 'admin', 'content-type': 'application/json' };

async function prepare(dir: string): Promise<void> {
  const a = await app(dir, true);
  try {
    const acct = await a.inject({ method: 'POST', url: '/api/v1/admin/accounts', headers: { 'x-api-key': ROOT_KEY }, body: { account_id: 'bench', admin_user_id: 'admin' } });
    if (acct.status !== 201) throw new Error(acct.text);
    await writeFileSet(a.vfs, 'bench', path.join(dir, 'disk'), FILES, SIZE);
    const t0 = now();
    const w = await a.inject({ method: 'POST', url: '/api/v1/system/wait', headers: rootHeaders, body: { timeout: 3600 } });
    if (w.status !== 200) throw new Error(w.text);
    console.log(JSON.stringify({ indexedMs: now() - t0 }));
  } finally {
    await a.close();
  }
}

/** Peaks of process.memoryUsage() fields while `fn` runs (sampled every 50 ms): where the RSS goes. */
async function sampled<T>(fn: () => Promise<T>): Promise<{ value: T; peaks: Record<string, number> }> {
  const peaks: Record<string, number> = {};
  const sample = () => {
    for (const [k, v] of Object.entries(process.memoryUsage())) peaks[k] = Math.max(peaks[k] ?? 0, v);
  };
  const timer = setInterval(sample, 50);
  try {
    const value = await fn();
    sample();
    return { value, peaks };
  } finally {
    clearInterval(timer);
  }
}

/** Background index work left by an earlier step must not run during the measured request. */
async function idle(a: Awaited<ReturnType<typeof app>>): Promise<void> {
  const w = await a.inject({ method: 'POST', url: '/api/v1/system/wait', headers: rootHeaders, body: { timeout: 3600 } });
  if (w.status !== 200) throw new Error(w.text);
}

async function exportPack(dir: string): Promise<void> {
  const rssStart = process.memoryUsage().rss;
  const a = await app(dir);
  const server = await a.listen(0, '127.0.0.1');
  try {
    await idle(a);
    const rssReady = process.memoryUsage().rss;
    const t0 = now();
    // The client is curl, another process: only the server is in this process's RSS.
    const { peaks } = await sampled(async () => {
      const headers = Object.entries(rootHeaders).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
      const body = JSON.stringify({ uri: 'ctx://resources/set', include_vectors: true });
      const status = await new Promise<string>((ok, fail) =>
        execFile('curl', ['-s', '-o', path.join(dir, 'set.ctxpack'), '-w', '%{http_code}', '-X', 'POST', ...headers, '--data-binary', body, `http://127.0.0.1:${server.port}/api/v1/pack/export`], (err, out) => (err ? fail(err) : ok(out))),
      );
      if (status !== '200') throw new Error(`export answered ${status}: ${fs.readFileSync(path.join(dir, 'set.ctxpack'), 'utf8').slice(0, 500)}`);
    });
    console.log(JSON.stringify({ ms: now() - t0, rssStart, rssReady, maxRssOwn: process.resourceUsage().maxRSS * 1024, peaks }));
  } finally {
    await a.close();
  }
}

async function importPack(dir: string): Promise<void> {
  const rssStart = process.memoryUsage().rss;
  const a = await app(dir);
  const server = await a.listen(0, '127.0.0.1');
  try {
    // A copy from an earlier run (--keep) goes first, so every run imports into the same state.
    if (await a.vfs.stat('bench', 'resources/copy')) await a.inject({ method: 'DELETE', url: `/api/v1/fs?uri=${encodeURIComponent('ctx://resources/copy')}&recursive=true`, headers: rootHeaders });
    await idle(a);
    const placeholder = await a.inject({
      method: 'POST',
      url: '/api/v1/resources/temp_upload',
      headers: { ...rootHeaders, 'content-type': 'multipart/form-data; boundary=XbenchX' },
      body: Buffer.from('--XbenchX\r\nContent-Disposition: form-data; name="file"; filename="set.ctxpack"\r\n\r\nx\r\n--XbenchX--\r\n'),
    });
    if (placeholder.status !== 200) throw new Error(placeholder.text);
    const id = placeholder.json().result.temp_file_id as string;
    fs.copyFileSync(path.join(dir, 'set.ctxpack'), path.join(dir, 'data', 'temp', id));
    const rssReady = process.memoryUsage().rss;
    const t0 = now();
    const { peaks } = await sampled(async () => {
      const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/pack/import`, { method: 'POST', headers: rootHeaders, body: JSON.stringify({ temp_file_id: id, parent: 'ctx://resources/copy', vector_mode: 'require' }) });
      if (res.status !== 200) throw new Error(await res.text());
    });
    const ms = now() - t0;
    console.log(JSON.stringify({ ms, rssStart, rssReady, maxRssOwn: process.resourceUsage().maxRSS * 1024, peaks }));
  } finally {
    await a.close();
  }
}

/** Runs this script's `child` step in a fresh node under /usr/bin/time -v: its JSON line and peak RSS. */
function child(step: string, dir: string): { out: Record<string, number>; maxRss: number } {
  const script = fileURLToPath(import.meta.url);
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, '--import', 'tsx', script, '--child', step, '--dir', dir, '--files', String(FILES), '--size', String(SIZE)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${step} failed: ${r.stdout}\n${r.stderr}`);
  const line = r.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop()!;
  const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  return { out: JSON.parse(line), maxRss: kb ? Number(kb[1]) * 1024 : NaN };
}

async function parent(): Promise<void> {
  const keep = arg('keep', '');
  const dir = keep || fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-packs-mem-'));
  try {
    if (!fs.existsSync(path.join(dir, 'data'))) {
      const p = child('prepare', dir);
      console.log(`data: ${FILES} files of ${SIZE} bytes (${mib(FILES * SIZE)}), indexed with vectors in ${s(p.out.indexedMs!)}`);
    }
    const ex = child('export', dir);
    const packBytes = fs.statSync(path.join(dir, 'set.ctxpack')).size;
    const im = child('import', dir);
    fs.rmSync(path.join(dir, 'zip'), { recursive: true, force: true });
    fs.mkdirSync(path.join(dir, 'zip'));
    let t0 = now();
    execFileSync('zip', ['-q', '-r', '-1', path.join(dir, 'zip', 'set.zip'), 'set'], { cwd: path.join(dir, 'disk') });
    const zipMs = now() - t0;
    t0 = now();
    execFileSync('unzip', ['-q', path.join(dir, 'zip', 'set.zip'), '-d', path.join(dir, 'zip', 'out')]);
    const unzipMs = now() - t0;
    const zipBytes = fs.statSync(path.join(dir, 'zip', 'set.zip')).size;
    console.log(`export with vectors: ${s(ex.out.ms!)} (zip -r -1 ${s(zipMs)}; throughput ratio ${(zipMs / ex.out.ms!).toFixed(2)}x, target >= 0.5x); pack ${mib(packBytes)}, zip ${mib(zipBytes)}`);
    console.log(`  export subprocess peak RSS ${mib(ex.maxRss)} (target <= 256 MiB); server ready at ${mib(ex.out.rssReady!)}`);
    console.log(`import with vectors (require): ${s(im.out.ms!)} (unzip ${s(unzipMs)}; throughput ratio ${(unzipMs / im.out.ms!).toFixed(2)}x, target >= 0.5x)`);
    console.log(`  import subprocess peak RSS ${mib(im.maxRss)} (target <= 256 MiB); server ready at ${mib(im.out.rssReady!)}`);
    console.log(`load average after the run: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

const step = arg('child', '');
if (step === 'prepare') await prepare(arg('dir', ''));
else if (step === 'export') await exportPack(arg('dir', ''));
else if (step === 'import') await importPack(arg('dir', ''));
else await parent();
