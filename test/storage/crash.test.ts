/**
 * Real crash tests: a child process writes to RocksDB (through Kv, then through the Vfs) and prints
 * each acknowledged write (the third case runs the whole app and writes over its HTTP pipeline); the parent kills it with SIGKILL mid-stream, reopens the database and
 * checks that every acknowledged write is there and that every batch is all-or-nothing.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Kv } from '../../runtime/storage/kv.js';
import { RocksDbBackend } from '../../runtime/storage/rocksdb.js';
import { recordId } from '../../runtime/vfs/record-id.js';
import { Vfs, sha256Of } from '../../runtime/vfs/vfs.js';
import { startTestApp, tempDir } from '../helpers/app.js';

const CHILD = path.resolve('test/storage/crash-child.ts');

/** Same as crash-child.ts. */
function payload(id: string, j: number): string {
  return `${id}:${j}:` + 'x'.repeat((id.length * 37 + j * 101) % 900);
}

/**
 * Runs the child until it printed `acks` acknowledgement lines (after `ready`), then SIGKILLs it.
 * Returns the complete lines it printed (a line cut by the kill is dropped).
 */
async function runAndKill(dir: string, mode: 'kv' | 'vfs' | 'app', acks: number): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let seen = 0;
  let killed = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    const text = d.toString();
    out += text;
    for (const line of text.split('\n')) if (line.startsWith('ack ')) seen++;
    if (!killed && seen >= acks) {
      killed = true;
      child.kill('SIGKILL');
    }
  });
  const { code, signal } = await exited;
  if (signal !== 'SIGKILL') throw new Error(`child ended by itself (code ${code}) before the kill:\n${err}`);
  const lines = out.split('\n');
  lines.pop(); // whatever follows the last newline is incomplete
  expect(lines[0]).toBe('ready');
  return lines.slice(1);
}

describe('crash safety (SIGKILL of a writing process)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('Kv: every acknowledged batch survives, and no batch is partially applied', async () => {
    const dir = tempDir('ctx-crash-kv-');
    dirs.push(dir);
    const lines = await runAndKill(dir, 'kv', 400);
    const acked = lines.filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
    expect(acked.length).toBeGreaterThanOrEqual(400);

    const kv = await Kv.open(new RocksDbBackend(dir));
    try {
      const s = kv.sub('crash');
      // Acknowledged => present with exactly the written bytes.
      const keys = acked.flatMap((id) => [0, 1, 2, 3, 4].map((j) => `b/${id}/${j}`));
      const values = await s.getMany(keys);
      values.forEach((v, i) => expect(v?.toString(), keys[i]).toBe(payload(keys[i]!.split('/')[1]!, Number(keys[i]!.split('/')[2]))));

      // All-or-nothing: every batch found on disk (acknowledged or not) has all five keys.
      const groups = new Map<string, number>();
      for await (const [k, v] of s.scanPrefix('b/')) {
        const [, id, j] = k.split('/');
        expect(v.toString()).toBe(payload(id!, Number(j)));
        groups.set(id!, (groups.get(id!) ?? 0) + 1);
      }
      for (const [id, n] of groups) expect(n, `batch ${id}`).toBe(5);
      expect(groups.size).toBeGreaterThanOrEqual(acked.length);

      // The moving marker (put n, delete n-1 in one batch): exactly one per writer, and it is the
      // writer's last batch on disk, at or after its last acknowledged one.
      const lastAcked = new Map<string, number>();
      for (const id of acked) {
        const [w, n] = id.split('-');
        lastAcked.set(w!, Math.max(lastAcked.get(w!) ?? -1, Number(n)));
      }
      const markers = new Map<string, number[]>();
      for await (const [k] of s.scanPrefix('tmp/')) {
        const [, w, n] = k.split('/');
        markers.set(w!, [...(markers.get(w!) ?? []), Number(n)]);
      }
      for (const [w, last] of lastAcked) {
        const m = markers.get(w) ?? [];
        expect(m, `writer ${w}`).toHaveLength(1);
        expect(m[0]).toBeGreaterThanOrEqual(last);
        const onDisk = [...groups.keys()].filter((id) => id.startsWith(`${w}-`)).map((id) => Number(id.split('-')[1]));
        expect(Math.max(...onDisk)).toBe(m[0]);
      }
    } finally {
      await kv.close();
    }
  });

  it('Vfs: every acknowledged writeFile and append survives, with consistent metadata, content and ids', async () => {
    const dir = tempDir('ctx-crash-vfs-');
    dirs.push(dir);
    const lines = await runAndKill(dir, 'vfs', 300);
    const acked = lines.filter((l) => l.startsWith('ack ')).map((l) => l.split(' ') as [string, string, string]);
    const logs = lines.filter((l) => l.startsWith('log ')).map((l) => l.split(' ').slice(1).map(Number) as [number, number]);
    expect(acked.length).toBeGreaterThanOrEqual(300);

    const kv = await Kv.open(new RocksDbBackend(dir));
    try {
      const vfs = new Vfs(kv.sub('vfs'));
      for (const [, p, sha] of acked) {
        const data = await vfs.readFile('acme', p);
        expect(sha256Of(data), p).toBe(sha);
        const [, w, , f] = p.split('/');
        expect(data.toString()).toBe(payload(`${w!.slice(1)}/${f!.slice(1, -4)}`, Number(f!.slice(1, -4))));
        const st = await vfs.stat('acme', p);
        expect(st).toMatchObject({ kind: 'file', sha256: sha, size: data.length, tags: [`n=${f!.slice(1, -4)}`] });
      }
      // Every file on disk, acknowledged or not, is whole: meta matches content, id resolves, parents exist.
      let files = 0;
      for await (const e of vfs.walk('acme', 'resources')) {
        if (e.kind !== 'file') continue;
        files++;
        const data = await vfs.readFile('acme', e.path);
        expect(sha256Of(data), e.path).toBe(e.sha256);
        expect(e.size).toBe(data.length);
        expect(e.id).toBe(recordId('acme', `ctx://${e.path}`, 2));
        expect(await vfs.pathOfRecordId('acme', e.id!)).toBe(e.path);
      }
      expect(files).toBeGreaterThanOrEqual(acked.length);
      // Append logs: the acknowledged lines are all there, in order, and nothing is torn.
      const lastLog = new Map<number, number>();
      for (const [w, n] of logs) lastLog.set(w, Math.max(lastLog.get(w) ?? -1, n));
      for (const [w, last] of lastLog) {
        const text = (await vfs.readFile('acme', `resources/logs/w${w}.log`)).toString();
        expect(text.endsWith('\n')).toBe(true);
        const nums = text.trimEnd().split('\n').map(Number);
        expect(nums).toEqual(nums.map((_, i) => 3 * i + 2));
        expect(nums.at(-1)!).toBeGreaterThanOrEqual(last);
      }
    } finally {
      await kv.close();
    }
  });

  it('whole app: every acknowledged HTTP write (content/write) is readable after the restart', async () => {
    const dir = tempDir('ctx-crash-app-');
    dirs.push(dir);
    const lines = await runAndKill(dir, 'app', 120);
    const key = lines.find((l) => l.startsWith('key '))!.slice(4);
    const acked = lines.filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
    expect(acked.length).toBeGreaterThanOrEqual(120);
    // The same data directory, opened by a fresh app (its own root key: identities are in the db).
    const t = await startTestApp({ dir });
    try {
      const headers = { 'x-api-key': key };
      for (const uri of acked) {
        const res = await t.req({ method: 'GET', url: `/api/v1/content/read?uri=${encodeURIComponent(uri)}`, headers });
        expect(res.status, uri).toBe(200);
        const [, w, f] = /w(\d+)\/f(\d+)\.md$/.exec(uri)!;
        expect(res.json().result).toBe(payload(`${w}/${f}`, Number(f)));
      }
    } finally {
      await t.close();
    }
  });
});
