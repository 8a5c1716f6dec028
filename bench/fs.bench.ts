/**
 * fs plugin listing speed (issue 3 targets), each figure next to a baseline from the same run:
 * 1. `GET /api/v1/fs/ls` of one directory holding 100,000 entries, paged by 1,000 with `offset`
 *    (real pipeline through `inject`: auth, query schema, handler, JSON envelope) — target p50 under
 *    10 ms per page; baseline: raw `Vfs.list` cursor paging of the same directory (one KV range read
 *    of 1,000 keys, the storage floor). Cold = the first page after the listing cache was dropped
 *    (one full prefix scan of the directory). Built-in plugins without the indexer (retrieval).
 * 2. `GET /api/v1/fs/tree` of 10,000 nodes (100 directories × 99 files, `node_limit=10000`) —
 *    target under 100 ms; baseline: `Vfs.walk` over the same tree. Cold and warm cache.
 *   npx tsx bench/fs.bench.ts [--entries 100000] [--rounds 3]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtinPlugins } from '../plugins/index.js';
import { createApp } from '../runtime/app.js';
import type { ChangeEvent } from '../runtime/vfs/types.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ENTRIES = arg('entries', 100_000);
const ROUNDS = arg('rounds', 3);
const PAGE = 1000;
const ROOT_KEY = 'bench-root-key-0123456789abcdef0123';

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const ms = (x: number) => x.toFixed(2);
const now = () => performance.now();

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-fs-bench-'));
  // No indexer: it would embed the 110,000 files in the background and measure that instead.
  const plugins = builtinPlugins.filter((p) => p.name !== 'retrieval' && !(p.dependsOn ?? []).includes('retrieval'));
  const app = await createApp({ env: {}, plugins, config: { dataDir: dir, rootApiKey: ROOT_KEY, authMode: 'api_key', logLevel: 'silent', accessLog: false } });
  try {
    const acct = await app.inject({ method: 'POST', url: '/api/v1/admin/accounts', headers: { 'x-api-key': ROOT_KEY }, body: { account_id: 'bench', admin_user_id: 'admin' } });
    const headers = { 'x-api-key': acct.json().result.user_key as string };
    const vfs = app.vfs;
    // Listing caches drop on change events at or above a directory; a synthetic one makes the next
    // request cold without touching the data.
    // (an `rm` of a directory, which nothing else loaded reacts to: relations follow files only).
    const dropCache = (p: string) => vfs.emit('change', { type: 'rm', account: 'bench', path: p, kind: 'dir', paths: [] } satisfies ChangeEvent);

    // ---- data ------------------------------------------------------------------------------------
    let t0 = now();
    const lock = await vfs.locks.acquire('bench', 'resources', 'tree');
    const pad = (i: number) => String(i).padStart(6, '0');
    for (let i = 0; i < ENTRIES; i += 2000) {
      const files = [];
      for (let j = i; j < Math.min(ENTRIES, i + 2000); j++) files.push({ path: `resources/big/f${pad(j)}.md`, content: Buffer.from(`file ${j}`) });
      await vfs.writeFiles('bench', files, { lock });
    }
    const treeFiles = [];
    for (let d = 0; d < 100; d++) for (let f = 0; f < 99; f++) treeFiles.push({ path: `resources/tree/d${pad(d)}/f${pad(f)}.md`, content: Buffer.from('x') });
    for (let i = 0; i < treeFiles.length; i += 2000) await vfs.writeFiles('bench', treeFiles.slice(i, i + 2000), { lock });
    lock.release();
    console.error(`data: ${ENTRIES} + 10,000 nodes written in ${((now() - t0) / 1000).toFixed(1)} s`);

    // ---- 1. ls paged by 1,000 ----------------------------------------------------------------------
    const lsPage = async (offset: number) => {
      const res = await app.inject({ url: `/api/v1/fs/ls?uri=ctx://resources/big&offset=${offset}&limit=${PAGE}`, headers });
      if (res.status !== 200) throw new Error(res.text);
      return res;
    };
    const first = await lsPage(0);
    const firstNames = (first.json().result as Array<{ name: string }>).map((e) => e.name);
    if (firstNames.length !== PAGE || firstNames[0] !== 'f000000.md') throw new Error('unexpected first page');
    const cold: number[] = [];
    for (let r = 0; r < ROUNDS * 2; r++) {
      dropCache('resources/big');
      t0 = now();
      await lsPage(0);
      cold.push(now() - t0);
    }
    const warm: number[] = [];
    const raw: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (let offset = 0; offset < ENTRIES; offset += PAGE) {
        t0 = now();
        const res = await lsPage(offset);
        warm.push(now() - t0);
        if (offset === ENTRIES - PAGE && res.json().result.length !== PAGE) throw new Error('short last page');
      }
      let after: string | undefined;
      for (let offset = 0; offset < ENTRIES; offset += PAGE) {
        t0 = now();
        const page = await vfs.list('bench', 'resources/big', { after, limit: PAGE });
        raw.push(now() - t0);
        after = page.at(-1)!.name;
      }
    }
    // Through the same handler but the last 1,000 of the desc order: sorting is derived once per view.
    const descT: number[] = [];
    for (let r = 0; r < 20; r++) {
      t0 = now();
      await app.inject({ url: `/api/v1/fs/ls?uri=ctx://resources/big&offset=${ENTRIES - PAGE}&limit=${PAGE}&sort_by=mtime&sort_order=desc`, headers });
      descT.push(now() - t0);
    }

    // A write into the directory, then the next page: the cached listing is patched, not rescanned.
    const afterWrite: number[] = [];
    for (let r = 0; r < 20; r++) {
      await vfs.writeFile('bench', `resources/big/n${pad(r)}.md`, Buffer.from('new'));
      t0 = now();
      const res = await lsPage(ENTRIES - PAGE);
      afterWrite.push(now() - t0);
      if (res.json().result.length !== PAGE) throw new Error('short page after write');
    }

    // ---- 2. tree of 10,000 nodes -------------------------------------------------------------------
    const tree = async () => {
      const res = await app.inject({ url: '/api/v1/fs/tree?uri=ctx://resources/tree&node_limit=10000&level_limit=3', headers });
      if (res.status !== 200 || res.json().result.length !== 10_000) throw new Error(`tree: ${res.status} ${res.text.slice(0, 200)}`);
    };
    await tree();
    const treeCold: number[] = [];
    const treeWarm: number[] = [];
    const walkT: number[] = [];
    for (let r = 0; r < ROUNDS * 4; r++) {
      dropCache('resources/tree');
      t0 = now();
      await tree();
      treeCold.push(now() - t0);
      t0 = now();
      await tree();
      treeWarm.push(now() - t0);
      t0 = now();
      let n = 0;
      for await (const _ of vfs.walk('bench', 'resources/tree')) n++;
      walkT.push(now() - t0);
      if (n !== 10_000) throw new Error(`walk saw ${n}`);
    }

    const lines = [
      `| measure | p50 ms | p95 ms | × baseline (p50) |`,
      `|---|---|---|---|`,
      `| ls page of 1,000 (offset paging over ${ENTRIES.toLocaleString('en')} entries, warm, ${warm.length} pages) | ${ms(pct(warm, 50))} | ${ms(pct(warm, 95))} | ${(pct(warm, 50) / pct(raw, 50)).toFixed(2)} |`,
      `| ls first page, cold cache (full directory scan, ${cold.length} runs) | ${ms(pct(cold, 50))} | ${ms(pct(cold, 95))} | ${(pct(cold, 50) / pct(raw, 50)).toFixed(1)} |`,
      `| ls last page, sort_by=mtime desc (warm) | ${ms(pct(descT, 50))} | ${ms(pct(descT, 95))} | ${(pct(descT, 50) / pct(raw, 50)).toFixed(2)} |`,
      `| ls page right after a write into the directory (listing patched, ${afterWrite.length} runs) | ${ms(pct(afterWrite, 50))} | ${ms(pct(afterWrite, 95))} | ${(pct(afterWrite, 50) / pct(raw, 50)).toFixed(2)} |`,
      `| baseline: raw Vfs.list cursor page of 1,000 | ${ms(pct(raw, 50))} | ${ms(pct(raw, 95))} | 1.00 |`,
      `| tree 10,000 nodes, cold cache (${treeCold.length} runs) | ${ms(pct(treeCold, 50))} | ${ms(pct(treeCold, 95))} | ${(pct(treeCold, 50) / pct(walkT, 50)).toFixed(2)} |`,
      `| tree 10,000 nodes, warm cache | ${ms(pct(treeWarm, 50))} | ${ms(pct(treeWarm, 95))} | ${(pct(treeWarm, 50) / pct(walkT, 50)).toFixed(2)} |`,
      `| baseline: raw Vfs.walk of the same 10,000 nodes | ${ms(pct(walkT, 50))} | ${ms(pct(walkT, 95))} | 1.00 |`,
    ];
    console.log(lines.join('\n'));
  } finally {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
