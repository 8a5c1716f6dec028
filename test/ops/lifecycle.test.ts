/**
 * Graceful shutdown of a real `npm start` process (runtime/main.ts) with a request and a task step
 * in flight: on SIGTERM readiness goes false first while requests are still served, then the
 * listener closes, the in-flight request and task step finish, RocksDB closes cleanly and the
 * process exits 0; the next start finds the task completed and its write durable.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import readline from 'node:readline';
import { expect, test } from 'vitest';
import { createApp } from '../../runtime/app.js';
import { builtinPlugins } from '../../plugins/index.js';
import { ROOT_KEY, tempDir } from '../helpers/app.js';
import { freePort } from '../helpers/free-port.js';


/** One request on a fresh connection (no keep-alive pool: "a new client" is what is tested). */
function request(port: number, method: string, p: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: p, agent: false, headers: { 'x-api-key': ROOT_KEY } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('SIGTERM: ready goes false first, in-flight request and task step finish, clean exit, durable state', { timeout: 60_000 }, async () => {
  const dir = tempDir('ctx-lifecycle-');
  const port = await freePort();
  const plugin = path.resolve('test/ops/fixtures/slow-plugin.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', 'runtime/main.ts'], {
    env: {
      ...process.env,
      CTX_CONFIG: path.join(dir, 'none.json'),
      CTX_DATA_DIR: dir,
      CTX_PORT: String(port),
      CTX_GRPC_PORT: '0',
      CTX_AUTH_MODE: 'api_key',
      CTX_ROOT_API_KEY: ROOT_KEY,
      CTX_PLUGINS: plugin,
      CTX_PLUGIN_PRIVILEGES: '',
      CTX_SHUTDOWN_DELAY_MS: '700',
      CTX_SHUTDOWN_TIMEOUT_MS: '10000',
      CTX_LOG_LEVEL: 'info',
      CTX_ACCESS_LOG: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  fs.writeFileSync(path.join(dir, 'none.json'), '{}');
  const lines: Array<Record<string, unknown>> = [];
  const listening = new Promise<void>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (l) => {
      try {
        const j = JSON.parse(l) as Record<string, unknown>;
        lines.push(j);
        if (j.msg === 'listening') resolve();
      } catch {
        // not a log line
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening`)));
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    await listening;
    const task = await request(port, 'POST', '/api/v1/ops-slow/task?ms=2000');
    expect(task.status).toBe(200);
    const taskId = task.json.result.task_id as string;
    const inFlight = request(port, 'GET', '/api/v1/ops-slow?ms=2000');
    await new Promise((r) => setTimeout(r, 300));
    expect((await request(port, 'GET', '/ready')).status).toBe(200);

    const sigterm = Date.now();
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 150));
    // Readiness first: 503 naming the host's lifecycle check, while other requests are still served.
    const ready = await request(port, 'GET', '/ready');
    expect(ready.status).toBe(503);
    expect(ready.json.checks.lifecycle).toMatch(/shutting down/);
    expect((await request(port, 'GET', '/health')).status).toBe(200);

    // After CTX_SHUTDOWN_DELAY_MS the listener is closed: a new connection is refused.
    await new Promise((r) => setTimeout(r, Math.max(0, sigterm + 1100 - Date.now())));
    await expect(request(port, 'GET', '/health')).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    // The request that was in flight completes normally.
    const slow = await inFlight;
    expect(slow.status).toBe(200);
    expect(slow.json.result).toEqual({ slept_ms: 2000 });

    expect(await exited).toBe(0);
    expect(lines.some((l) => l.msg === 'stopped')).toBe(true);
    expect(lines.some((l) => l.msg === 'shutdown deadline passed with work in flight')).toBe(false);

    // RocksDB was closed (its lock released) and the task step's work is durable.
    const app = await createApp({ env: {}, plugins: builtinPlugins, config: { dataDir: dir, rootApiKey: ROOT_KEY, authMode: 'api_key', logLevel: 'silent', grpcPort: 0 } });
    try {
      const record = await app.tasks.load(taskId);
      expect(record).toMatchObject({ status: 'completed', result: { slept_ms: 2000 } });
      expect((await app.vfs.stat('default', 'resources/written-by-the-slow-step.md'))?.kind).toBe('file');
    } finally {
      await app.close();
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
    if (stderr) console.error(stderr);
  }
});
