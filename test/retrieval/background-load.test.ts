/**
 * The vector index loads in the background after a start (docs/operations.md, "Start-up and
 * readiness"): `/health` answers at once, `/ready` is 503 with `vectordb` "loading" until the index
 * is loaded, a find that arrives meanwhile waits for it (never an empty answer from a half-loaded
 * index), and a write meanwhile is indexed after the load. The load is held with
 * `RecordStore.loadGate`, so "meanwhile" does not depend on how fast this machine reads the file.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RecordStore } from '../../plugins/retrieval/store.js';
import { post, setup, uris, wait, write, type Ctx } from './helpers.js';

const opened: Ctx[] = [];
afterEach(() => {
  RecordStore.loadGate = null;
});
afterAll(async () => {
  for (const c of opened) await c.t.close();
});

function gate(): { promise: Promise<void>; open: () => void; fail: (err: Error) => void } {
  let open!: () => void;
  let fail!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    open = res;
    fail = rej;
  });
  return { promise, open, fail };
}

const settledWithin = <T>(p: Promise<T>, ms: number) => Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

async function populated(): Promise<Ctx> {
  const c = await setup();
  opened.push(c);
  await write(c.t, c.admin, 'ctx://resources/zoo/quokka.md', 'The quokka lives on Rottnest island and smiles at visitors.');
  await write(c.t, c.admin, 'ctx://resources/zoo/numbat.md', 'The numbat eats termites in the woodlands of Western Australia.');
  await wait(c.t);
  return c;
}

describe('vector index loading in the background', () => {
  it('healthy at once, not ready until loaded; a find during the load waits and finds; a write during it is indexed after', async () => {
    const c = await populated();
    const g = gate();
    RecordStore.loadGate = g.promise;
    await c.t.restart();

    expect((await c.t.req({ method: 'GET', url: '/health' })).status).toBe(200);
    const notReady = await c.t.req({ method: 'GET', url: '/ready' });
    expect(notReady.status).toBe(503);
    expect(notReady.json()).toMatchObject({ status: 'not_ready', checks: { vectordb: 'error: loading the vector index', filesystem: 'ok' } });
    const obs = (await c.t.req({ method: 'GET', url: '/api/v1/observer/vectordb', headers: c.t.root })).json().result.status as string;
    expect(obs).toMatch(/index\s+loading/);

    const find = post(c.t, c.admin, '/api/v1/search/find', { query: 'quokka Rottnest island' });
    // A directory's stat counts its entries from the index: it waits too, rather than count 0.
    const stat = c.t.req({ method: 'GET', url: '/api/v1/fs/stat?uri=ctx://resources/zoo', headers: c.admin });
    expect(await settledWithin(find, 150)).toBe(false);
    expect(await settledWithin(stat, 0)).toBe(false);
    // Stored while the index is held: RocksDB first, the index change queued behind the load.
    await write(c.t, c.admin, 'ctx://resources/zoo/bilby.md', 'The bilby digs burrows in the desert at night.', { wait: false });

    g.open();
    const r = await find;
    expect(r.status).toBe(200);
    expect(uris(r.body.result)[0]).toBe('ctx://resources/zoo/quokka.md');
    const st = await stat;
    expect(st.status).toBe(200);
    // The two indexed before the restart, not 0; the bilby, queued behind the load, may be counted
    // too when its index change is applied before this count runs (as under the wasm core).
    expect(st.json().result).toMatchObject({ isDir: true });
    expect([2, 3]).toContain(st.json().result.count);
    const ready = await c.t.req({ method: 'GET', url: '/ready' });
    expect(ready.status).toBe(200);
    expect(ready.json().checks.vectordb).toBe('ok');

    await wait(c.t);
    const bilby = await post(c.t, c.admin, '/api/v1/search/find', { query: 'bilby burrows desert' });
    expect(uris(bilby.body.result)[0]).toBe('ctx://resources/zoo/bilby.md');
    const after = (await c.t.req({ method: 'GET', url: '/api/v1/observer/vectordb', headers: c.t.root })).json().result.status as string;
    expect(after).toMatch(/index\s+loaded/);
  });

  it('a load that fails: not ready with the reason, find and search answer 503 UNAVAILABLE', async () => {
    const c = await populated();
    const g = gate();
    RecordStore.loadGate = g.promise;
    await c.t.restart();
    g.fail(new Error('disk on fire'));
    await new Promise((r) => setTimeout(r, 10));

    const ready = await c.t.req({ method: 'GET', url: '/ready' });
    expect(ready.status).toBe(503);
    expect(ready.json().checks.vectordb).toBe('error: index load failed: disk on fire');
    for (const url of ['/api/v1/search/find', '/api/v1/search/search']) {
      const r = await post(c.t, c.admin, url, { query: 'quokka' });
      expect(r.status).toBe(503);
      expect(r.body.error).toMatchObject({ code: 'UNAVAILABLE', message: 'the vector index could not be loaded: disk on fire' });
    }
    expect((await c.t.req({ method: 'GET', url: '/health' })).status).toBe(200);
    const obs = (await c.t.req({ method: 'GET', url: '/api/v1/observer/vectordb', headers: c.t.root })).json().result;
    expect(obs).toMatchObject({ is_healthy: false, has_errors: true });

    // The next start loads it.
    RecordStore.loadGate = null;
    await c.t.restart();
    const r = await post(c.t, c.admin, '/api/v1/search/find', { query: 'quokka Rottnest island' });
    expect(uris(r.body.result)[0]).toBe('ctx://resources/zoo/quokka.md');
  });
});
