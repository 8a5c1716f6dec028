/**
 * `npm start` runs the esbuild bundle (dist/server/main.js, scripts/bundle-server.ts) while every
 * other test runs the sources: this file starts the bundle as a process and drives, over HTTP, the
 * parts that load lazily (each a chunk of the bundle, or a package imported on first use): the MCP
 * SDK, the session tokenizer, isomorphic-git for snapshots, the zip writer for packs, /metrics (its
 * process collectors), the console's assets and the Rust core. A chunk the bundler got wrong fails here, not in
 * a user's first request. Needs `npm run setup` (it builds dist/ and the bundle).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = path.resolve('dist/server/main.js');
const ROOT_KEY = 'root-key-for-the-bundle-test-0123456789';
let child: ChildProcess;
let dir: string;
let base: string;
let output = '';
let admin: string;
let grpcPort = 0;

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });

async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + url, { method, headers: { 'x-api-key': admin ?? ROOT_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const buf = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, buf, text: buf.toString('utf8'), json: () => JSON.parse(buf.toString('utf8')) };
}

beforeAll(async () => {
  if (!fs.existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run setup (it builds the bundle npm start runs)`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-bundle-'));
  grpcPort = await freePort();
  child = spawn(process.execPath, [MAIN], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', CTX_DATA_DIR: path.join(dir, 'data'), CTX_PORT: '0', CTX_GRPC_PORT: String(grpcPort), CTX_AUTH_MODE: 'api_key', CTX_ROOT_API_KEY: ROOT_KEY, CTX_ACCESS_LOG: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the bundle did not start in 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const port = /"msg":"listening".*?"port":(\d+)/.exec(output)?.[1];
      if (port) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${port}`);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the bundle exited with ${code}:\n${output}`)));
  });
  const acct = await call('POST', '/api/v1/admin/accounts', { account_id: 'acme', admin_user_id: 'admin' });
  expect(acct.status, acct.text).toBe(201);
  admin = acct.json().result.user_key;
}, 90_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('npm start (the bundle) serves what loads lazily', () => {
  it('writes, indexes and finds; the status names the core', async () => {
    expect((await call('POST', '/api/v1/content/write', { uri: 'ctx://resources/kb/tea.md', content: '# Tea\n\nGreen tea is steeped at 80 degrees for two minutes.\n' })).status).toBe(200);
    expect((await call('POST', '/api/v1/system/wait', { timeout: 30 })).status).toBe(200);
    const found = await call('POST', '/api/v1/search/find', { query: 'how hot should green tea water be', limit: 3 });
    expect(found.status, found.text).toBe(200);
    expect(found.json().result.resources.map((h: { uri: string }) => h.uri)).toContain('ctx://resources/kb/tea.md');
    const status = await call('GET', '/api/v1/system/status');
    expect(status.json().result.core).toMatchObject({ kind: expect.stringMatching(/^(native|wasm)$/) });
  });

  it('MCP: initialize and a find tool call (the SDK is a lazy chunk)', async () => {
    const h = { accept: 'application/json, text/event-stream' };
    const init = await call('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bundle-test', version: '1' } } }, h);
    expect(init.status, init.text).toBe(200);
    const session = { ...h, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    const list = await call('POST', '/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
    expect(list.json().result.tools.map((t: { name: string }) => t.name)).toContain('find');
    const r = await call('POST', '/mcp', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'find', arguments: { query: 'green tea' } } }, session);
    expect(r.json().result.content[0].text).toContain('ctx://resources/kb/tea.md');
  });

  it('a session commit (tokenizer), a snapshot commit (git), a pack export (zip)', async () => {
    expect((await call('POST', '/api/v1/sessions', { session_id: 's1' })).status).toBe(200);
    expect((await call('POST', '/api/v1/sessions/s1/messages', { role: 'user', content: 'I prefer oolong in the afternoon.' })).status).toBe(200);
    const commit = await call('POST', '/api/v1/sessions/s1/commit', {});
    expect(commit.status, commit.text).toBe(200);
    const task = commit.json().result.task_id as string;
    let state = '';
    for (let i = 0; i < 300 && !['completed', 'failed'].includes(state); i++) {
      state = (await call('GET', `/api/v1/tasks/${task}`)).json().result.status;
      if (state !== 'completed') await new Promise((r) => setTimeout(r, 100));
    }
    expect(state).toBe('completed');
    const snap = await call('POST', '/api/v1/snapshot/commit', { message: 'from the bundle' });
    expect(snap.status, snap.text).toBe(200);
    expect(snap.json().result.result).toBe('created');
    const pack = await call('POST', '/api/v1/pack/export', { uri: 'ctx://resources/kb' });
    expect(pack.status, pack.text.slice(0, 200)).toBe(200);
    expect(pack.buf.subarray(0, 2).toString('latin1')).toBe('PK');
  });

  it('the gRPC runtime service listens (gRPC and protobuf load after HTTP is up)', async () => {
    for (let i = 0; i < 200 && !output.includes('gRPC runtime service listening'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(output).toContain('gRPC runtime service listening');
    await new Promise<void>((resolve, reject) => {
      const sock = net.connect(grpcPort, '127.0.0.1', () => {
        sock.destroy();
        resolve();
      });
      sock.once('error', reject);
    });
  });

  it('the console page and /metrics', async () => {
    const page = await fetch(`${base}/console`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^# HELP /m);
  });
});
