/**
 * The test harness (`ctx/testing`, re-exported by `ctx-plugin-sdk/testing`): a real host in-process
 * — RocksDB in a temp directory, the built-in plugins, yours — with `inject` through the real request
 * pipeline, accounts and users of several accounts, and a real socket when a test needs one. The
 * project's own tests use it too (test/helpers/app.ts), so a plugin is tested as the built-ins are.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtinPlugins } from '../../plugins/index.js';
import { createApp, type App, type CreateAppOptions } from '../app.js';
import type { CtxConfig } from '../config.js';
import type { InjectRequest, InjectResponse } from '../http/inject.js';

export type { App, CreateAppOptions, InjectRequest, InjectResponse };

/** The root key of every test host (api_key mode, as in production). */
export const ROOT_KEY = 'root-key-for-tests-0123456789abcdef';

export type Headers = Record<string, string>;

export interface TestHost {
  /** The running host: its VFS, identities, queues, tasks and services, for seeding and asserting. */
  app: App;
  /** Its data directory (removed by `close`). */
  dir: string;
  /** Headers of the root user. */
  root: Headers;
  /** A request through the real pipeline (authentication, validation, envelopes), without a socket. */
  req(r: InjectRequest): Promise<InjectResponse>;
  /** Creates an account and returns the headers of its admin and of each USER named. */
  account(accountId: string, users?: string[]): Promise<{ admin: Headers; users: Record<string, Headers> }>;
  /** Serves the host on a free loopback port; returns its base URL (closed with the host). */
  listen(): Promise<string>;
  /** Closes and reopens the host on the same data directory (what survives a restart). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface TestHostOptions extends CreateAppOptions {
  /** Data directory; a fresh temp directory by default. */
  dir?: string;
}

export function tempDir(prefix = 'ctx-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Starts a host with the built-in plugins (`plugins` replaces them) and `extraPlugins` loaded as an
 * operator's extra plugins would be: their privileges must be granted (`config.pluginPrivileges`),
 * their sections come from `config.pluginSections` or `env` (`CTX_PLUGIN_<NAME>_<KEY>`).
 */
export async function startTestHost(opts: TestHostOptions = {}): Promise<TestHost> {
  const dir = opts.dir ?? tempDir();
  const make = () =>
    createApp({
      ...opts,
      plugins: opts.plugins ?? builtinPlugins,
      env: opts.env ?? {},
      // grpcPort 0: no gRPC listener per test host (parallel hosts would fight over 1934).
      config: { dataDir: dir, rootApiKey: ROOT_KEY, authMode: 'api_key', logLevel: 'silent', accessLog: false, grpcPort: 0, ...opts.config } satisfies Partial<CtxConfig>,
    });
  const t: TestHost = {
    app: await make(),
    dir,
    root: { 'x-api-key': ROOT_KEY },
    req: (r) => t.app.inject(r),
    async account(accountId, users = []) {
      const res = await t.req({ method: 'POST', url: '/api/v1/admin/accounts', headers: t.root, body: { account_id: accountId, admin_user_id: 'admin' } });
      if (res.status !== 201) throw new Error(`account creation failed: ${res.text}`);
      const admin = { 'x-api-key': res.json().result.user_key as string };
      const out: Record<string, Headers> = {};
      for (const u of users) {
        const r2 = await t.req({ method: 'POST', url: `/api/v1/admin/accounts/${accountId}/users`, headers: admin, body: { user_id: u, role: 'USER' } });
        if (r2.status !== 201) throw new Error(`user creation failed: ${r2.text}`);
        out[u] = { 'x-api-key': r2.json().result.user_key as string };
      }
      return { admin, users: out };
    },
    async listen() {
      const server = await t.app.listen(0, '127.0.0.1');
      return `http://127.0.0.1:${server.port}`;
    },
    async restart() {
      await t.app.close();
      t.app = await make();
    },
    async close() {
      await t.app.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return t;
}
