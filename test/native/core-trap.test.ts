/**
 * A panic in the core, on both builds: natively `guard` makes it an INTERNAL error; under wasm
 * (`CTX_CORE=wasm`, the test:wasm pass) it traps the instance, and runtime/native-wasm-trap.ts
 * answers INTERNAL, replaces the instance and refuses calls on the dead one's objects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreInfo, coreRestarts, debugPanic, nativeErrorCode, textKernels, VectorIndex } from '../../runtime/native.js';
import { definePlugin } from '../../runtime/sdk/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const wasm = coreInfo.kind === 'wasm';
const DIM = 4;
const id = (i: number) => i.toString(16).padStart(32, '0');
const attrs = { account: 'acme', ownerSpace: '', uri: 'ctx://resources/a.md', parentUri: 'ctx://resources', contextType: 'resource' as const, level: 2, tags: [], createdAt: 0, updatedAt: 0 };

function newIndex() {
  const idx = new VectorIndex({ dim: DIM });
  idx.upsert([id(1)], new Float32Array([1, 0, 0, 0]), [attrs]);
  return idx;
}

const caught = async (f: () => unknown): Promise<Error> => {
  try {
    await f();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
};

describe('a panic in the core', () => {
  it('is an INTERNAL error, and the core answers the next call', async () => {
    const before = coreRestarts();
    const idx = newIndex();
    const err = await caught(() => debugPanic('boom on purpose'));
    expect(nativeErrorCode(err)).toBe('INTERNAL');
    expect(err.message).toMatch(wasm ? /wasm core trapped in debugPanic .*instance was replaced/ : /panicked: boom on purpose/);
    expect(coreRestarts()).toBe(before + (wasm ? 1 : 0));
    expect(textKernels.tokenize('still here')).toEqual(['still', 'here']);
    // A new index lives in the live instance.
    expect(newIndex().search(new Float32Array([1, 0, 0, 0]), 1, { account: 'acme' }).map((h) => h.id)).toEqual([id(1)]);
    if (wasm) {
      // The old one lived in the dead instance: a clear error, at once, on every call.
      for (const call of [() => idx.count({ account: 'acme' }), () => idx.searchAsync(new Float32Array(DIM), 1, { account: 'acme' })]) {
        const e = await caught(call);
        expect(nativeErrorCode(e)).toBe('INTERNAL');
        expect(e.message).toMatch(/VectorIndex\.(count|searchAsync): this object belongs to a wasm core instance that trapped/);
      }
    } else {
      expect(idx.count({ account: 'acme' })).toBe(1);
    }
  });

  it('in async work is a rejected INTERNAL error, and the core answers the next call', async () => {
    const before = coreRestarts();
    const err = await caught(() => debugPanic('boom in the pool', true));
    expect(nativeErrorCode(err)).toBe('INTERNAL');
    expect(coreRestarts()).toBe(before + (wasm ? 1 : 0));
    expect(textKernels.tokenize('still here')).toEqual(['still', 'here']);
    await expect(newIndex().searchAsync(new Float32Array([1, 0, 0, 0]), 1, { account: 'acme' })).resolves.toEqual([{ id: id(1), score: expect.any(Number) }]);
  });
});

describe('a request that panics the core', () => {
  let t: TestApp;
  let alice: Record<string, string>;

  beforeAll(async () => {
    const panicker = definePlugin({
      name: 'core-panicker',
      version: '1.0.0',
      setup(host) {
        host.route({ method: 'POST', path: '/test/core-panic', summary: 'panics the core', handler: () => (debugPanic('a request panicked the core'), { ok: true }) });
      },
    });
    t = await startTestApp({ extraPlugins: [panicker] });
    alice = (await t.account('acme', ['alice'])).users.alice!;
    await t.app.vfs.writeFile('acme', 'resources/proj/a.py', Buffer.from('def main():\n    return 1\n'));
  });
  afterAll(() => t.close());

  it('gets the INTERNAL envelope, and the next request that needs the core is answered', async () => {
    const res = await t.req({ method: 'POST', url: '/test/core-panic', headers: alice, body: {} });
    expect(res.status).toBe(500);
    expect(res.json()).toMatchObject({ status: 'error', error: { code: 'INTERNAL' } });
    const next = await t.req({ method: 'POST', url: '/api/v1/code/outline', headers: alice, body: { uri: 'ctx://resources/proj/a.py' } });
    expect(next.status, next.text).toBe(200);
    expect(next.json().result).toContain('main');
  });
});
