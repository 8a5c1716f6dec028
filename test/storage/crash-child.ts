/**
 * Child process of crash.test.ts: writes to a real RocksDB as fast as it can and prints one line per
 * ACKNOWLEDGED write, until the parent kills it with SIGKILL. Stdout to a pipe is synchronous on
 * Linux, so a printed line means the acknowledgement happened before the kill.
 *
 *   node --import tsx test/storage/crash-child.ts <dir> kv|vfs|app
 */
import { createApp } from '../../runtime/app.js';
import { builtinPlugins } from '../../plugins/index.js';
import { Kv } from '../../runtime/storage/kv.js';
import { RocksDbBackend } from '../../runtime/storage/rocksdb.js';
import { Vfs } from '../../runtime/vfs/vfs.js';

const [dir, mode] = process.argv.slice(2);
const WRITERS = 8;
const LIMIT = 200_000; // never reached: the parent kills the process long before

/** Deterministic content, so the parent can recompute what each write must have stored (same function in crash.test.ts). */
function payload(id: string, j: number): string {
  return `${id}:${j}:` + 'x'.repeat((id.length * 37 + j * 101) % 900);
}

async function kvMode(): Promise<void> {
  const kv = await Kv.open(new RocksDbBackend(dir!));
  const s = kv.sub('crash');
  process.stdout.write('ready\n');
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let n = 0; n < LIMIT; n++) {
        const id = `${w}-${n}`;
        // Five puts, and a moving marker: put tmp/w/n and delete tmp/w/(n-1) in the same batch.
        const ops = [0, 1, 2, 3, 4].map((j) => s.putOp(`b/${id}/${j}`, payload(id, j)));
        ops.push(s.putOp(`tmp/${w}/${String(n).padStart(8, '0')}`, id));
        if (n > 0) ops.push(s.delOp(`tmp/${w}/${String(n - 1).padStart(8, '0')}`));
        await s.batch(ops);
        process.stdout.write(`ack ${id}\n`);
      }
    }),
  );
}

async function vfsMode(): Promise<void> {
  const kv = await Kv.open(new RocksDbBackend(dir!));
  const vfs = new Vfs(kv.sub('vfs'));
  process.stdout.write('ready\n');
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let n = 0; n < LIMIT; n++) {
        const path = `resources/w${w}/d${n % 7}/f${n}.txt`;
        const data = Buffer.from(payload(`${w}/${n}`, n));
        const out = await vfs.writeFile('acme', path, data, { tags: [`n=${n}`] });
        process.stdout.write(`ack ${path} ${out.sha256}\n`);
        if (n % 3 === 2) {
          // One append-only log per writer: every acknowledged line must survive, in order.
          await vfs.writeFile('acme', `resources/logs/w${w}.log`, Buffer.from(`${n}\n`), { mode: 'append' });
          process.stdout.write(`log ${w} ${n}\n`);
        }
      }
    }),
  );
}

/** The whole service: writes go through the HTTP pipeline (inject), content plugin, Vfs and hooks. */
async function appMode(): Promise<void> {
  const rootKey = 'root-key-for-crash-test-0123456789';
  const app = await createApp({ env: {}, plugins: builtinPlugins, config: { dataDir: dir!, rootApiKey: rootKey, authMode: 'api_key', logLevel: 'silent', accessLog: false } });
  const acct = await app.inject({ method: 'POST', url: '/api/v1/admin/accounts', headers: { 'x-api-key': rootKey }, body: { account_id: 'acme', admin_user_id: 'admin' } });
  const key = acct.json().result.user_key as string;
  process.stdout.write(`ready\nkey ${key}\n`);
  await Promise.all(
    Array.from({ length: 4 }, async (_, w) => {
      for (let n = 0; n < LIMIT; n++) {
        const uri = `ctx://resources/app/w${w}/f${n}.md`;
        const content = payload(`${w}/${n}`, n);
        const res = await app.inject({ method: 'POST', url: '/api/v1/content/write', headers: { 'x-api-key': key }, body: { uri, content, tags: [`n=${n}`] } });
        if (res.status !== 200) throw new Error(`write failed: ${res.text}`);
        process.stdout.write(`ack ${uri}\n`);
      }
    }),
  );
}

await (mode === 'vfs' ? vfsMode() : mode === 'app' ? appMode() : kvMode());
