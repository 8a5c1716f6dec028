import { startTestApp, type TestApp } from '../helpers/app.js';

export interface Ctx {
  t: TestApp;
  admin: Record<string, string>;
  alice: Record<string, string>;
  bob: Record<string, string>;
}

export async function setup(opts: Parameters<typeof startTestApp>[0] = {}): Promise<Ctx> {
  const t = await startTestApp(opts);
  const { admin, users } = await t.account('acme', ['alice', 'bob']);
  return { t, admin, alice: users.alice!, bob: users.bob! };
}

export async function write(t: TestApp, headers: Record<string, string>, uri: string, content: string, extra: Record<string, unknown> = {}) {
  const r = await t.req({ method: 'POST', url: '/api/v1/content/write', headers, body: { uri, content, ...extra } });
  if (r.status !== 200) throw new Error(`write ${uri} failed: ${r.status} ${r.text}`);
  return r.json().result;
}

export async function wait(t: TestApp) {
  const r = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: t.root, body: { timeout: 30 } });
  if (r.status !== 200) throw new Error(`wait failed: ${r.text}`);
  return r.json().result;
}

/**
 * After a (re)start the vector index loads in the background: `/ready` answers 200 once it is
 * loaded. For tests that read the index's own state (observer, metrics) right after a restart.
 */
export async function untilReady(t: TestApp): Promise<void> {
  for (let i = 0; ; i++) {
    const r = await t.req({ method: 'GET', url: '/ready' });
    if (r.status === 200) return;
    if (i >= 1000) throw new Error(`not ready after 10 s: ${r.text}`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

export async function post(t: TestApp, headers: Record<string, string>, url: string, body: unknown) {
  const r = await t.req({ method: 'POST', url, headers, body });
  return { status: r.status, body: r.json() as { status: string; result: any; error?: { code: string; message: string; details?: any } } };
}

export function uris(result: any): string[] {
  return [...result.memories, ...result.resources, ...result.skills].map((m: any) => m.uri);
}
