/** The real service in its own process, on a free port, with a fresh data dir; prints its port. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../runtime/app.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-bench-'));
const app = await createApp({
  env: {},
  config: { dataDir: dir, rootApiKey: 'bench-root-key-0123456789', authMode: 'api_key', logLevel: process.env.BENCH_LOG === '1' ? 'info' : 'silent', accessLog: process.env.BENCH_LOG === '1' },
  logSink: () => {},
});
const created = await app.inject({ method: 'POST', url: '/api/v1/admin/accounts', headers: { 'x-api-key': 'bench-root-key-0123456789' }, body: { account_id: 'bench', admin_user_id: 'alice' } });
const key = created.json().result.user_key as string;
await app.vfs.writeFile('bench', 'resources/docs/readme.md', Buffer.from('# bench\n'.repeat(64)));
const server = await app.listen(0, '127.0.0.1');
process.stdout.write(JSON.stringify({ port: server.port, key }) + '\n');
const stop = async () => {
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
