/**
 * Issue 12 figures, each next to its CLI baseline on the same files in the same run:
 * 1. snapshot commit of N files (whole tree) vs `git add -A && git commit` on the same files on disk;
 * 2. incremental commit of 10 changed files among M (whole tree, and with `paths` naming them);
 * 3. pack export then import of the N files vs Info-ZIP `zip -r -1` / `unzip`, with peak RSS.
 * Built-in plugins without the indexer (it would embed the files in the background).
 *   node --expose-gc --import tsx bench/snapshots-packs.bench.ts [--files 10000] [--size 51200] [--big 100000]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtinPlugins } from '../plugins/index.js';
import { createApp } from '../runtime/app.js';
import { pad, writeFileSet } from './file-set.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const FILES = arg('files', 10_000);
const SIZE = arg('size', 50 * 1024);
const BIG = arg('big', 100_000);
const ROOT_KEY = 'bench-root-key-0123456789abcdef0123';
const now = () => performance.now();
const s = (ms: number) => (ms / 1000).toFixed(2) + ' s';


let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-snap-bench-'));
  const plugins = builtinPlugins.filter((p) => p.name !== 'retrieval' && p.name !== 'semantic' && !(p.dependsOn ?? []).some((d) => d === 'retrieval' || d === 'semantic'));
  const app = await createApp({ env: {}, plugins, config: { dataDir: path.join(dir, 'data'), rootApiKey: ROOT_KEY, authMode: 'api_key', logLevel: 'silent', accessLog: false } });
  try {
    const acct = await app.inject({ method: 'POST', url: '/api/v1/admin/accounts', headers: { 'x-api-key': ROOT_KEY }, body: { account_id: 'bench', admin_user_id: 'admin' } });
    const headers = { 'x-api-key': acct.json().result.user_key as string };
    const vfs = app.vfs;
    const disk = path.join(dir, 'disk');
    await writeFileSet(vfs, 'bench', disk, FILES, SIZE);
    console.log(`data: ${FILES} files of ${SIZE} bytes (${((FILES * SIZE) / 2 ** 20).toFixed(0)} MiB)`);

    // 1. whole-tree commit vs git CLI
    let t0 = now();
    execFileSync('git', ['init', '-q', disk]);
    execFileSync('git', ['-C', disk, 'add', '-A']);
    execFileSync('git', ['-C', disk, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '-m', 'all']);
    const gitMs = now() - t0;
    t0 = now();
    const c1 = await app.inject({ method: 'POST', url: '/api/v1/snapshot/commit', headers, body: { message: 'all' } });
    const ctxMs = now() - t0;
    if (c1.status !== 200) throw new Error(c1.text);
    console.log(`commit ${FILES} files: ctx ${s(ctxMs)}, git add -A && git commit ${s(gitMs)}, ratio ${(ctxMs / gitMs).toFixed(2)}x (target <= 2x)`);

    // 3. pack export + import over real HTTP vs zip -r -1 / unzip; peak RSS of each request alone.
    const server = await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${server.port}`;
    const gc = (globalThis as { gc?: () => void }).gc;
    const phase = async <T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; rss: number; start: number }> => {
      gc?.();
      const start = (peakRss = process.memoryUsage().rss);
      const t = now();
      const value = await fn();
      return { value, ms: now() - t, rss: peakRss, start };
    };
    const packFile = path.join(dir, 'set.ctxpack');
    const ex = await phase(async () => {
      const res = await fetch(`${base}/api/v1/pack/export`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ uri: 'ctx://resources/set' }) });
      if (res.status !== 200) throw new Error(await res.text());
      const out = fs.createWriteStream(packFile);
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) if (!out.write(chunk)) await new Promise<void>((ok) => out.once('drain', () => ok()));
      await new Promise<void>((ok) => out.end(() => ok()));
    });
    const packBytes = fs.statSync(packFile).size;
    // The upload goes through temp_upload, which holds a request body in memory: not part of import.
    const upload = await app.inject({
      method: 'POST',
      url: '/api/v1/resources/temp_upload',
      headers: { ...headers, 'content-type': 'multipart/form-data; boundary=XbenchX' },
      body: Buffer.concat([Buffer.from('--XbenchX\r\nContent-Disposition: form-data; name="file"; filename="set.ctxpack"\r\n\r\n'), fs.readFileSync(packFile), Buffer.from('\r\n--XbenchX--\r\n')]),
    });
    if (upload.status !== 200) throw new Error(upload.text);
    const tempId = upload.json().result.temp_file_id as string;
    const im = await phase(async () => {
      const res = await fetch(`${base}/api/v1/pack/import`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ temp_file_id: tempId, parent: 'ctx://resources/copy' }) });
      if (res.status !== 200) throw new Error(await res.text());
    });
    t0 = now();
    execFileSync('zip', ['-q', '-r', '-1', path.join(dir, 'set.zip'), 'set'], { cwd: disk });
    const zipMs = now() - t0;
    t0 = now();
    execFileSync('unzip', ['-q', path.join(dir, 'set.zip'), '-d', path.join(dir, 'unzipped')]);
    const unzipMs = now() - t0;
    const mib = (b: number) => (b / 2 ** 20).toFixed(0) + ' MiB';
    console.log(`export over HTTP ${s(ex.ms)} (zip -r -1 ${s(zipMs)}, throughput ratio ${(zipMs / ex.ms).toFixed(2)}x, target >= 0.5x); pack ${mib(packBytes)}, zip ${mib(fs.statSync(path.join(dir, 'set.zip')).size)}; peak RSS ${mib(ex.rss)} (${mib(ex.start)} before the request)`);
    console.log(`import ${s(im.ms)} (unzip ${s(unzipMs)}, throughput ratio ${(unzipMs / im.ms).toFixed(2)}x, target >= 0.5x); peak RSS ${mib(im.rss)} (${mib(im.start)} before the request; target <= 256 MiB)`);

    // 2. incremental commit among BIG files
    const lock2 = await vfs.locks.acquire('bench', 'resources', 'tree');
    for (let i = 0; i < BIG; i += 2000) {
      const batch = [];
      for (let j = i; j < Math.min(BIG, i + 2000); j++) batch.push({ path: `resources/big/d${pad(j % 1000)}/f${pad(j)}.md`, content: Buffer.from(`small file ${j}`) });
      await vfs.writeFiles('bench', batch, { lock: lock2 });
    }
    lock2.release();
    t0 = now();
    const c2 = await app.inject({ method: 'POST', url: '/api/v1/snapshot/commit', headers, body: { message: 'big' } });
    console.log(`commit after adding ${BIG} small files: ${s(now() - t0)} (${c2.json().result.changed} changed)`);
    for (const mode of ['whole tree', 'paths'] as const) {
      const changed: string[] = [];
      for (let k = 0; k < 10; k++) {
        const j = (k * 9973 + (mode === 'paths' ? 1 : 0)) % BIG;
        const p = `resources/big/d${pad(j % 1000)}/f${pad(j)}.md`;
        await vfs.writeFile('bench', p, Buffer.from(`changed ${mode} ${k}`));
        changed.push('ctx://' + p);
      }
      t0 = now();
      const c3 = await app.inject({ method: 'POST', url: '/api/v1/snapshot/commit', headers, body: { message: 'ten', ...(mode === 'paths' ? { paths: changed } : {}) } });
      console.log(`incremental commit of 10 changed files among ${BIG + FILES}, ${mode}: ${(now() - t0).toFixed(0)} ms (${c3.json().result.changed} changed; target <= 200 ms)`);
    }
  } finally {
    clearInterval(sampler);
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
