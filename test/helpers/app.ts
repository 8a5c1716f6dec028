/** Starts a real app (RocksDB in a temp dir) for in-process tests; `inject` goes through the real pipeline. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp, type App, type CreateAppOptions } from '../../runtime/app.js';
import type { CtxConfig } from '../../runtime/config.js';
import { builtinPlugins } from '../../plugins/index.js';
import type { InjectRequest, InjectResponse } from '../../runtime/http/inject.js';

export const ROOT_KEY = 'root-key-for-tests-0123456789abcdef';

export interface TestApp {
  app: App;
  dir: string;
  root: Record<string, string>;
  req(r: InjectRequest): Promise<InjectResponse>;
  /** Creates an account and returns headers for its admin and a USER. */
  account(accountId: string, users?: string[]): Promise<{ admin: Record<string, string>; users: Record<string, Record<string, string>> }>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export function tempDir(prefix = 'ctx-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function startTestApp(opts: CreateAppOptions & { config?: Partial<CtxConfig>; dir?: string } = {}): Promise<TestApp> {
  const dir = opts.dir ?? tempDir();
  const make = () =>
    createApp({
      ...opts,
      plugins: opts.plugins ?? builtinPlugins,
      env: opts.env ?? {},
      // grpcPort 0: no gRPC listener per test app (parallel apps would fight over 1934); gRPC tests set one.
      // shutdownTimeoutMs 2000: close() gives running task steps what is left of this deadline.
      config: { dataDir: dir, rootApiKey: ROOT_KEY, authMode: 'api_key', logLevel: 'silent', accessLog: false, grpcPort: 0, shutdownTimeoutMs: 2000, ...opts.config },
    });
  const t: TestApp = {
    app: await make(),
    dir,
    root: { 'x-api-key': ROOT_KEY },
    req: (r) => t.app.inject(r),
    async account(accountId, users = []) {
      const res = await t.req({ method: 'POST', url: '/api/v1/admin/accounts', headers: t.root, body: { account_id: accountId, admin_user_id: 'admin' } });
      if (res.status !== 201) throw new Error(`account creation failed: ${res.text}`);
      const admin = { 'x-api-key': res.json().result.user_key as string };
      const out: Record<string, Record<string, string>> = {};
      for (const u of users) {
        const r2 = await t.req({ method: 'POST', url: `/api/v1/admin/accounts/${accountId}/users`, headers: admin, body: { user_id: u, role: 'USER' } });
        if (r2.status !== 201) throw new Error(`user creation failed: ${r2.text}`);
        out[u] = { 'x-api-key': r2.json().result.user_key as string };
      }
      return { admin, users: out };
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
