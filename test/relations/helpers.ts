/** Shared set-up for the relations tests: a real app, two accounts, request shorthands. */
import { startTestApp, type TestApp } from '../helpers/app.js';

export type Headers = Record<string, string>;

export interface RelApp {
  t: TestApp;
  admin: Headers;
  alice: Headers;
  bob: Headers;
  carol: Headers;
  globexAdmin: Headers;
  put(account: string, path: string, text?: string): Promise<unknown>;
  link(body: unknown, h: Headers): ReturnType<TestApp['req']>;
  unlink(body: unknown, h: Headers): ReturnType<TestApp['req']>;
  list(uri: string, h: Headers): ReturnType<TestApp['req']>;
  graph(body: unknown, h: Headers): ReturnType<TestApp['req']>;
  /** Relations of `uri` as seen by `h`, polled until `done` holds (the file-follow listener runs after the VFS change). */
  listUntil(uri: string, h: Headers, done: (rels: Array<{ uri: string; reason: string }>) => boolean): Promise<Array<{ uri: string; reason: string }>>;
}

export async function relApp(): Promise<RelApp> {
  const t = await startTestApp();
  const acme = await t.account('acme', ['alice', 'bob']);
  const globex = await t.account('globex', ['carol']);
  const r: RelApp = {
    t,
    admin: acme.admin,
    alice: acme.users.alice!,
    bob: acme.users.bob!,
    carol: globex.users.carol!,
    globexAdmin: globex.admin,
    put: (account, path, text = 'x') => t.app.vfs.writeFile(account, path, Buffer.from(text)),
    link: (body, h) => t.req({ method: 'POST', url: '/api/v1/relations/link', headers: h, body }),
    unlink: (body, h) => t.req({ method: 'DELETE', url: '/api/v1/relations/link', headers: h, body }),
    list: (uri, h) => t.req({ url: `/api/v1/relations?uri=${encodeURIComponent(uri)}`, headers: h }),
    graph: (body, h) => t.req({ method: 'POST', url: '/api/v1/relations/build_graph', headers: h, body }),
    async listUntil(uri, h, done) {
      let last: Array<{ uri: string; reason: string }> = [];
      for (let i = 0; i < 200; i++) {
        const res = await r.list(uri, h);
        last = res.status === 200 ? res.json().result : [];
        if (done(last)) return last;
        await new Promise((ok) => setTimeout(ok, 10));
      }
      return last;
    },
  };
  return r;
}
