/**
 * The built package loaded into a real server process (`node dist/server/main.js`, the bundle
 * `npm start` runs, and the unbundled `node dist/runtime/main.js`), as an operator would: by path in CTX_PLUGINS, and by package name from the config file's
 * directory. Its routes answer over HTTP, and the host's CtxError and Reply are the plugin's (one
 * SDK copy): a refused read is counted as a miss (`instanceof CtxError`), markdown is served raw.
 * Needs the builds `npm run setup` makes (the server's dist/ and this package's dist/).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const PKG = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPO = path.resolve(PKG, '../..');
// The bundle shares its own SDK entry with the plugin (scripts/bundle-server.ts), tsc's output its.
const MAINS = { 'npm start (the bundle)': path.join(REPO, 'dist/server/main.js'), 'unbundled dist/runtime': path.join(REPO, 'dist/runtime/main.js') };
const ROOT_KEY = 'root-key-for-the-server-test-0123456789';

const running: Array<{ child: ChildProcess; dir: string }> = [];
afterEach(async () => {
  for (const { child, dir } of running.splice(0)) {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Starts the server; resolves with its base URL once it logs `listening`, rejects with its output if it exits. */
function serve(main: string, dir: string, env: Record<string, string>): Promise<string> {
  for (const built of [main, path.join(PKG, 'dist/index.js')])
    if (!fs.existsSync(built)) throw new Error(`${built} is missing: run npm run setup (it builds the server and the example plugin)`);
  const child = spawn(process.execPath, [main], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', CTX_DATA_DIR: path.join(dir, 'data'), CTX_PORT: '0', CTX_GRPC_PORT: '0', CTX_AUTH_MODE: 'api_key', CTX_ROOT_API_KEY: ROOT_KEY, CTX_ACCESS_LOG: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push({ child, dir });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 60 s:\n${output}`)), 60_000);
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
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

async function call(base: string, method: string, url: string, key: string, body?: unknown) {
  const res = await fetch(base + url, { method, headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, json: () => JSON.parse(text) };
}

/** Two users of one account over HTTP: reads, a refused read, the statistics in both formats. */
async function exercise(base: string, expectedTop: number) {
  const account = await call(base, 'POST', '/api/v1/admin/accounts', ROOT_KEY, { account_id: 'acme', admin_user_id: 'admin' });
  expect(account.status, account.text).toBe(201);
  const admin = account.json().result.user_key as string;
  const keys: Record<string, string> = {};
  for (const user of ['alice', 'bob']) keys[user] = (await call(base, 'POST', '/api/v1/admin/accounts/acme/users', admin, { user_id: user, role: 'USER' })).json().result.user_key;
  for (const name of ['a', 'b', 'c']) expect((await call(base, 'POST', '/api/v1/content/write', keys.alice!, { uri: `ctx://resources/${name}.md`, content: `file ${name}` })).status).toBe(200);
  expect((await call(base, 'POST', '/api/v1/content/write', keys.bob!, { uri: 'ctx://user/bob/memories/diary.md', content: 'private' })).status).toBe(200);

  const read = (uri: string) => call(base, 'GET', `/api/v1/x/reading-stats/read?uri=${encodeURIComponent(uri)}`, keys.alice!);
  const first = await read('ctx://resources/a.md');
  expect(first.status, first.text).toBe(200);
  expect(first.json().result).toEqual({ uri: 'ctx://resources/a.md', content: 'file a', reads: 1 });
  await read('ctx://resources/a.md');
  await read('ctx://resources/b.md');
  await read('ctx://resources/c.md');
  const denied = await read('ctx://user/bob/memories/diary.md');
  expect(denied.status).toBe(403);
  expect(denied.json()).toMatchObject({ status: 'error', error: { code: 'PERMISSION_DENIED' } });

  const stats = await call(base, 'GET', '/api/v1/x/reading-stats', keys.alice!);
  expect(stats.json().result).toMatchObject({ user: 'alice', total_reads: 4, distinct_files: 3, misses: 1 });
  expect(stats.json().result.files).toHaveLength(expectedTop);
  expect(stats.json().result.files[0]).toMatchObject({ uri: 'ctx://resources/a.md', reads: 2 });
  const markdown = await call(base, 'GET', '/api/v1/x/reading-stats?format=markdown', keys.alice!);
  expect(markdown.type).toContain('text/markdown');
  expect(markdown.text).toMatch(/^# Reading report for alice/);
  expect((await call(base, 'GET', '/api/v1/x/reading-stats', keys.bob!)).json().result).toMatchObject({ user: 'bob', total_reads: 0 });
}

// A server process starts in seconds, more on a loaded machine (the whole suite runs beside it).
const SERVER_TEST_MS = 120_000;

describe.each(Object.entries(MAINS))('the built example in a real server: %s', (_name, main) => {
  it('loads by path from CTX_PLUGINS, with its section from the environment', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-example-'));
    const base = await serve(main, dir, { CTX_PLUGINS: PKG, CTX_PLUGIN_READING_STATS_TOP_FILES: '2' });
    await exercise(base, 2);
  }, SERVER_TEST_MS);

  it('loads by package name from the config file directory, with its section from the file', async () => {
    // Started in `dir`, configured from `dir/conf`: the package is installed only beside the config file.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-example-'));
    const conf = path.join(dir, 'conf');
    fs.mkdirSync(path.join(conf, 'node_modules'), { recursive: true });
    fs.symlinkSync(PKG, path.join(conf, 'node_modules/ctx-plugin-reading-stats'), 'dir');
    fs.writeFileSync(path.join(conf, 'ctx.config.json'), JSON.stringify({ plugins: { load: ['ctx-plugin-reading-stats'], 'reading-stats': { topFiles: 1 } } }));
    const base = await serve(main, dir, { CTX_CONFIG: path.join(conf, 'ctx.config.json') });
    await exercise(base, 1);
  }, SERVER_TEST_MS);
});
