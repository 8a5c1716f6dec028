import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { definePlugin, orderPlugins, type PluginDefinition, type PluginHost } from '../../runtime/plugin.js';
import { builtinPlugins } from '../../plugins/index.js';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.js';

const p = (name: string, dependsOn: string[] = [], setup: (h: PluginHost) => void | Promise<void> = () => {}): PluginDefinition =>
  definePlugin({ name, version: '1.0.0', dependsOn, setup });

const apps: TestApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

async function boot(extra: PluginDefinition[]) {
  const dir = tempDir();
  try {
    const t = await startTestApp({ dir, extraPlugins: extra });
    apps.push(t);
    return t;
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

describe('plugin ordering', () => {
  it('orders dependencies first', () => {
    const order = orderPlugins([p('c', ['b']), p('a'), p('b', ['a'])]).map((x) => x.name);
    expect(order).toEqual(['a', 'b', 'c']);
  });
  it('names both plugins when a dependency is missing', () => {
    expect(() => orderPlugins([p('snapshots', ['vfs-extra'])])).toThrow(expect.objectContaining({ code: 'CTX_PLUGIN_MISSING_DEPENDENCY', message: expect.stringMatching(/snapshots.*vfs-extra/) }));
  });
  it('detects cycles', () => {
    expect(() => orderPlugins([p('a', ['b']), p('b', ['a'])])).toThrow(expect.objectContaining({ code: 'CTX_PLUGIN_DEPENDENCY_CYCLE' }));
  });
  it('rejects duplicate plugin names and invalid names', () => {
    expect(() => orderPlugins([p('a'), p('a')])).toThrow(expect.objectContaining({ code: 'CTX_PLUGIN_DUPLICATE' }));
    expect(() => p('Bad Name')).toThrow(expect.objectContaining({ code: 'CTX_PLUGIN_INVALID' }));
  });
});

describe('load-time checks', () => {
  it('a duplicate route fails start-up naming both plugins', async () => {
    const dup = p('dup', [], (h) => h.route({ method: 'GET', path: '/health', auth: 'none', handler: () => 'x' }));
    await expect(boot([dup])).rejects.toMatchObject({ code: 'CTX_DUPLICATE_ROUTE', message: expect.stringMatching(/dup.*GET \/health.*system/) });
  });

  it('a duplicate service fails naming both plugins', async () => {
    const dup = p('dup-svc', [], (h) => h.provide('temp-files', {}));
    await expect(boot([dup])).rejects.toMatchObject({ code: 'CTX_PLUGIN_DUPLICATE_SERVICE', message: expect.stringMatching(/dup-svc.*temp-files.*system/) });
  });

  it('using a service of a plugin that is not a dependency fails naming both', async () => {
    const sneaky = p('sneaky', [], (h) => void h.use('temp-files'));
    await expect(boot([sneaky])).rejects.toMatchObject({ code: 'CTX_PLUGIN_MISSING_SERVICE', message: expect.stringMatching(/sneaky.*temp-files.*system/) });
    const nothing = p('nothing', [], (h) => void h.use('no-such-service'));
    await expect(boot([nothing])).rejects.toMatchObject({ code: 'CTX_PLUGIN_MISSING_SERVICE' });
  });

  it('a slow setup fails with a boot timeout naming the plugin', async () => {
    const slow = definePlugin({ name: 'slowpoke', version: '1.0.0', bootTimeoutMs: 50, setup: () => new Promise((r) => setTimeout(r, 1000)) });
    await expect(boot([slow])).rejects.toMatchObject({ code: 'CTX_PLUGIN_BOOT_TIMEOUT', message: expect.stringContaining('slowpoke') });
  });

  it('registration after start-up is refused', async () => {
    let saved!: PluginHost;
    const t = await boot([p('late', [], (h) => void (saved = h))]);
    expect(t.app.plugins).toContain('late');
    expect(() => saved.route({ method: 'GET', path: '/late', handler: () => 1 })).toThrow(expect.objectContaining({ code: 'CTX_PLUGIN_LATE_REGISTRATION' }));
    expect(() => saved.provide('late-svc', {})).toThrow(expect.objectContaining({ code: 'CTX_PLUGIN_LATE_REGISTRATION' }));
  });

  it('a config plugin that cannot be loaded fails start-up clearly', async () => {
    await expect(startTestApp({ config: { plugins: [path.resolve('does/not/exist.js')] } })).rejects.toMatchObject({ code: 'CTX_PLUGIN_NOT_FOUND' });
  });

  it('optional() returns services of non-dependencies at request time, undefined when absent', async () => {
    let host!: PluginHost;
    const t = await boot([p('opt', [], (h) => void (host = h))]);
    expect(host.optional('temp-files')).toBeDefined();
    expect(host.optional('not-there')).toBeUndefined();
    void t;
  });

  it('onClose hooks run in reverse load order', async () => {
    const order: string[] = [];
    const first = p('first', [], (h) => h.onClose(() => void order.push('first')));
    const second = p('second', ['first'], (h) => h.onClose(() => void order.push('second')));
    const t = await startTestApp({ extraPlugins: [second, first] });
    await t.close();
    expect(order).toEqual(['second', 'first']);
  });

  it('a failed setup closes the plugins set up before it, newest first, and names the plugin', async () => {
    const closed: string[] = [];
    const a = p('first-ok', [], (h) => h.onClose(() => void closed.push('first-ok')));
    const b = p('second-ok', ['first-ok'], (h) => h.onClose(() => void closed.push('second-ok')));
    const c = p('breaks', ['second-ok'], () => {
      throw new Error('config file is missing');
    });
    await expect(boot([c, b, a])).rejects.toMatchObject({ code: 'CTX_PLUGIN_SETUP_FAILED', message: expect.stringMatching(/breaks.*config file is missing/) });
    expect(closed).toEqual(['second-ok', 'first-ok']);
  });

  it('a failing onReady hook also closes everything, and the data dir can be opened again', async () => {
    const dir = tempDir();
    const closed: string[] = [];
    const bad = p('ready-fails', [], (h) => {
      h.onClose(() => void closed.push('ready-fails'));
      h.onReady(() => {
        throw new Error('cannot warm up');
      });
    });
    await expect(startTestApp({ dir, extraPlugins: [bad] })).rejects.toThrow('cannot warm up');
    expect(closed).toEqual(['ready-fails']);
    const again = await startTestApp({ dir });
    apps.push(again);
    expect((await again.req({ url: '/health' })).status).toBe(200);
  });

  it('ready checks and observers are owned: a second plugin cannot take a name', async () => {
    const thief = p('thief', [], (h) => h.readyCheck('filesystem', () => 'ok'));
    await expect(boot([thief])).rejects.toMatchObject({ code: 'CTX_PLUGIN_DUPLICATE', message: expect.stringMatching(/thief.*filesystem.*system/) });
    const spy = p('spy', [], (h) => h.observer('queue', () => ({ name: 'queue', is_healthy: true, has_errors: false, status: 'fake' })));
    await expect(boot([spy])).rejects.toMatchObject({ code: 'CTX_PLUGIN_DUPLICATE', message: expect.stringMatching(/spy.*queue.*system/) });
  });

  it('shutdown waits for account-deleted handlers: cleanup never races the store closing', async () => {
    let finished = false;
    const slow = p('slow-cleanup', [], (h) =>
      h.on('account-deleted', async ({ account }) => {
        await new Promise((r) => setTimeout(r, 200));
        await h.kv.put(`dropped\x00${account}`, '1');
        finished = true;
      }),
    );
    const t = await startTestApp({ extraPlugins: [slow] });
    await t.account('doomed');
    expect((await t.req({ method: 'DELETE', url: '/api/v1/admin/accounts/doomed', headers: t.root })).status).toBe(200);
    expect(finished).toBe(false);
    await t.close();
    expect(finished).toBe(true);
  });

  it('a change listener that throws neither fails the write nor hides the change from other listeners', async () => {
    const seen: string[] = [];
    const lines: string[] = [];
    const thrower = p('thrower', [], (h) =>
      h.on('change', () => {
        throw new Error('listener bug');
      }),
    );
    const watcher = p('watcher', ['thrower'], (h) => h.on('change', (ev) => void seen.push(ev.path)));
    const t = await startTestApp({ extraPlugins: [thrower, watcher], logSink: (l) => lines.push(l), config: { logLevel: 'error' } });
    apps.push(t);
    const res = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: t.root, body: { uri: 'ctx://resources/heard.md', content: 'x', mode: 'create' } });
    expect(res.status, res.text).toBe(200);
    expect(seen).toContain('resources/heard.md');
    expect(lines.some((l) => l.includes('listener bug'))).toBe(true);
  });

  it('every built-in plugin loads through the public API', () => {
    for (const b of builtinPlugins) expect(typeof b.setup).toBe('function');
  });
});
