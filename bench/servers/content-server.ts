/**
 * The real service in its own process for bench/content.bench.ts; prints `{port, key}`.
 * BENCH_INDEXER=0 leaves out the plugins that consume the index queues (retrieval and what depends
 * on it), to measure the storage path alone; the default is the full built-in plugin set.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtinPlugins } from '../../plugins/index.js';
import { createApp } from '../../runtime/app.js';

const withIndexer = process.env.BENCH_INDEXER !== '0';
const drop = new Set(withIndexer ? [] : ['retrieval']);
for (let changed = true; changed; ) {
  changed = false;
  for (const p of builtinPlugins)
    if (!drop.has(p.name) && (p.dependsOn ?? []).some((d) => drop.has(d))) {
      drop.add(p.name);
      changed = true;
    }
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-bench-'));
const app = await createApp({
  env: {},
  plugins: builtinPlugins.filter((p) => !drop.has(p.name)),
  config: { dataDir: dir, rootApiKey: 'bench-root-key-0123456789', authMode: 'api_key', logLevel: 'silent', accessLog: false },
  logSink: () => {},
});
const created = await app.inject({ method: 'POST', url: '/api/v1/admin/accounts', headers: { 'x-api-key': 'bench-root-key-0123456789' }, body: { account_id: 'bench', admin_user_id: 'alice' } });
const key = created.json().result.user_key as string;
const server = await app.listen(0, '127.0.0.1');
process.stdout.write(JSON.stringify({ port: server.port, key, plugins: app.plugins }) + '\n');
const stop = async () => {
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
