/**
 * How the host finds, checks and configures extra plugins: paths and package names resolved from
 * the config file's directory and the working directory, the host API range, and each plugin's
 * own configuration section (file and environment), each failure a coded error naming the plugin.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../runtime/config.js';
import { resolvePluginSpec } from '../../runtime/plugin-loader.js';
import { PLUGIN_API_VERSION } from '../../runtime/version.js';
import { definePlugin, s, type PluginHost } from '../../runtime/sdk/index.js';
import { envName } from '../../runtime/plugin-config.js';
import { startTestApp, tempDir } from '../helpers/app.js';

const dirs: string[] = [];
const scratch = () => {
  const d = tempDir('ctx-plugin-load-');
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

describe('resolving a plugin spec', () => {
  const root = scratch();
  write(path.join(root, 'conf/node_modules/from-conf/package.json'), JSON.stringify({ name: 'from-conf', type: 'module', exports: { '.': { import: './lib/main.js' } } }));
  write(path.join(root, 'conf/node_modules/from-conf/lib/main.js'), 'export default 1;');
  write(path.join(root, 'work/node_modules/@acme/from-cwd/package.json'), JSON.stringify({ name: '@acme/from-cwd', main: 'entry.js' }));
  write(path.join(root, 'work/node_modules/@acme/from-cwd/entry.js'), 'export default 1;');
  write(path.join(root, 'pkgdir/package.json'), JSON.stringify({ name: 'pkgdir', exports: './dist/index.js' }));
  write(path.join(root, 'unbuilt/package.json'), JSON.stringify({ name: 'unbuilt', main: './dist/index.js' }));
  write(path.join(root, 'plain/index.js'), 'export default 1;');
  fs.mkdirSync(path.join(root, 'empty'));
  write(path.join(root, 'work/node_modules/cjs-only/package.json'), JSON.stringify({ name: 'cjs-only', exports: { require: './index.cjs' } }));
  const opts = { configDir: path.join(root, 'conf'), cwd: path.join(root, 'work') };

  it('finds a package by name in the config directory, then in the working directory, as `import` would', () => {
    expect(resolvePluginSpec('from-conf', opts)).toBe(path.join(root, 'conf/node_modules/from-conf/lib/main.js'));
    expect(resolvePluginSpec('@acme/from-cwd', opts)).toBe(path.join(root, 'work/node_modules/@acme/from-cwd/entry.js'));
  });

  it('takes a file path, or a package directory by its exports or main', () => {
    expect(resolvePluginSpec(path.join(root, 'plain/index.js'), opts)).toBe(path.join(root, 'plain/index.js'));
    expect(resolvePluginSpec('../plain/index.js', opts)).toBe(path.join(root, 'plain/index.js'));
    write(path.join(root, 'pkgdir/dist/index.js'), 'export default 1;');
    expect(resolvePluginSpec(path.join(root, 'pkgdir'), opts)).toBe(path.join(root, 'pkgdir/dist/index.js'));
  });

  it('says where it looked when nothing is there', () => {
    const err = (spec: string) => {
      try {
        resolvePluginSpec(spec, opts);
      } catch (e) {
        return e as { code: string; message: string };
      }
      throw new Error(`${spec} resolved`);
    };
    expect(err('no-such-plugin')).toMatchObject({ code: 'CTX_PLUGIN_NOT_FOUND', message: expect.stringMatching(/no-such-plugin.*conf.*work/) });
    expect(err(path.join(root, 'nothing.js'))).toMatchObject({ code: 'CTX_PLUGIN_NOT_FOUND', message: expect.stringContaining('does not exist') });
    expect(err(path.join(root, 'empty'))).toMatchObject({ code: 'CTX_PLUGIN_NOT_FOUND', message: expect.stringContaining('without package.json') });
    expect(err(path.join(root, 'unbuilt'))).toMatchObject({ code: 'CTX_PLUGIN_NOT_FOUND', message: expect.stringContaining('is the package built?') });
    expect(err('cjs-only')).toMatchObject({ code: 'CTX_PLUGIN_NOT_FOUND', message: expect.stringContaining('cjs-only is installed but exports no entry to import') });
  });
});

describe('loading from the config file', () => {
  const SDK = path.resolve('runtime/sdk/index.ts');
  const dir = scratch();
  write(
    path.join(dir, 'plugins/greeter.ts'),
    `import { definePlugin, s } from ${JSON.stringify(SDK)};
export default definePlugin({
  name: 'greeter', version: '1.0.0', hostApi: '^1.0.0',
  config: s.object({ greeting: s.string({ min: 1 }), times: s.int({ min: 1 }).default(1), loud: s.bool().default(false) }),
  setup(host) {
    host.route({ method: 'GET', path: '/api/v1/x/greeter', summary: 'greets', response: s.any(), handler: () => host.pluginConfig });
  },
});`,
  );
  write(path.join(dir, 'plugins/not-a-plugin.ts'), `export default { name: 'fake', version: '1', setup() {} };`);
  write(path.join(dir, 'plugins/throws.ts'), `throw new Error('broken at import');`);
  const config = (plugins: unknown) => {
    const file = path.join(dir, `ctx-${Math.random().toString(36).slice(2)}.config.json`);
    fs.writeFileSync(file, JSON.stringify({ plugins }));
    return file;
  };
  const boot = (plugins: unknown, env: Record<string, string> = {}) => startTestApp({ env: { CTX_CONFIG: config(plugins), ...env } });

  it('loads a path relative to the config file and hands the plugin its section (object form)', async () => {
    const t = await boot({ load: ['./plugins/greeter.ts'], greeter: { greeting: 'hello', times: 2 } }, { CTX_PLUGIN_GREETER_LOUD: 'true', CTX_PLUGIN_GREETER_TIMES: '3' });
    try {
      const res = await t.req({ url: '/api/v1/x/greeter', headers: t.root });
      // The environment overrides the file, coerced by the schema; defaults are filled in.
      expect(res.json().result).toEqual({ greeting: 'hello', times: 3, loud: true });
    } finally {
      await t.close();
    }
  });

  it('a section that does not fit the schema stops start-up naming plugin and field', async () => {
    await expect(boot({ load: ['./plugins/greeter.ts'], greeter: { greeting: 'hi', times: 0 } })).rejects.toMatchObject({
      code: 'CTX_PLUGIN_CONFIG',
      message: expect.stringMatching(/plugin greeter.*plugins\.greeter\.times/),
    });
    await expect(boot({ load: ['./plugins/greeter.ts'], greeter: { greeting: 'hi', color: 'red' } })).rejects.toMatchObject({
      code: 'CTX_PLUGIN_CONFIG',
      message: expect.stringMatching(/greeter.*plugins\.greeter\.color/),
    });
    await expect(boot({ load: ['./plugins/greeter.ts'] })).rejects.toMatchObject({ code: 'CTX_PLUGIN_CONFIG', message: expect.stringMatching(/greeter.*greeting is required/) });
    await expect(boot({ load: ['./plugins/greeter.ts'], greeter: { greeting: 'hi' } }, { CTX_PLUGIN_GREETER_TIMES: 'many' })).rejects.toMatchObject({
      code: 'CTX_PLUGIN_CONFIG',
      message: expect.stringMatching(/greeter.*CTX_PLUGIN_GREETER_TIMES/),
    });
    await expect(boot({ load: ['./plugins/greeter.ts'], greeter: { greeting: 'hi' } }, { CTX_PLUGIN_GREETER_COLOUR: 'red' })).rejects.toMatchObject({
      code: 'CTX_PLUGIN_CONFIG',
      message: expect.stringMatching(/CTX_PLUGIN_GREETER_COLOUR is not one of its settings.*CTX_PLUGIN_GREETER_GREETING/),
    });
  });

  it('a section for a plugin that declares no configuration is refused, naming it', async () => {
    await expect(startTestApp({ config: { pluginSections: { system: { x: 1 } } } })).rejects.toMatchObject({ code: 'CTX_PLUGIN_CONFIG', message: expect.stringMatching(/plugin system.*plugins\.system/) });
  });

  it('the array form still lists what to load', async () => {
    await expect(boot(['./plugins/greeter.ts'])).rejects.toMatchObject({ code: 'CTX_PLUGIN_CONFIG' });
    const t = await boot(['./plugins/greeter.ts'], { CTX_PLUGIN_GREETER_GREETING: 'from env' });
    try {
      expect((await t.req({ url: '/api/v1/x/greeter', headers: t.root })).json().result).toEqual({ greeting: 'from env', times: 1, loud: false });
    } finally {
      await t.close();
    }
  });

  it('a module that is not a plugin, or fails to load, is named', async () => {
    await expect(boot(['./plugins/not-a-plugin.ts'])).rejects.toMatchObject({ code: 'CTX_PLUGIN_INVALID', message: expect.stringMatching(/not-a-plugin\.ts.*is not a ctx plugin/) });
    await expect(boot(['./plugins/throws.ts'])).rejects.toMatchObject({ code: 'CTX_PLUGIN_LOAD_FAILED', message: expect.stringMatching(/throws\.ts.*broken at import/) });
    await expect(boot(['ctx-plugin-nowhere'])).rejects.toMatchObject({ code: 'CTX_PLUGIN_NOT_FOUND', message: expect.stringContaining('ctx-plugin-nowhere') });
  });

  it('the file form is checked: plugins must be an array or an object of sections', () => {
    expect(() => loadConfig({ CTX_CONFIG: config('oops') })).toThrow(/plugins must be an array, or an object/);
    expect(() => loadConfig({ CTX_CONFIG: config({ load: 'x.js' }) })).toThrow(/plugins\.load must be an array/);
    expect(() => loadConfig({ CTX_CONFIG: config({ greeter: 5 }) })).toThrow(/plugins\.greeter must be an object/);
    const c = loadConfig({ CTX_CONFIG: config({ load: ['./a.js', 'pkg'], greeter: { greeting: 'x' } }), CTX_PLUGIN_GREETER_TIMES: '2', CTX_PLUGIN_PRIVILEGES: 'greeter=identity-read' });
    expect(c.plugins).toEqual([path.join(dir, 'a.js'), 'pkg']);
    expect(c.pluginSections).toEqual({ greeter: { greeting: 'x' } });
    expect(c.pluginEnv).toEqual({ CTX_PLUGIN_GREETER_TIMES: '2' });
    expect(c.configDir).toBe(dir);
  });
});

describe('the host plugin API range', () => {
  const noop = (name: string, hostApi?: string) => definePlugin({ name, version: '2.3.0', hostApi, setup: () => {} });

  it('a plugin for another major of the API is refused, naming plugin, range and host version', async () => {
    await expect(startTestApp({ extraPlugins: [noop('from-the-future', '^2.0.0')] })).rejects.toMatchObject({
      code: 'CTX_PLUGIN_API_VERSION',
      message: expect.stringMatching(new RegExp(`from-the-future 2\\.3\\.0 supports host plugin API \\^2\\.0\\.0.*plugin API ${PLUGIN_API_VERSION.replace(/\./g, '\\.')}`)),
    });
  });

  it('one whose range includes this host loads', async () => {
    const t = await startTestApp({ extraPlugins: [noop('current', `^${PLUGIN_API_VERSION}`), noop('ranged', '>=1.0.0 <3')] });
    expect(t.app.plugins).toEqual(expect.arrayContaining(['current', 'ranged']));
    await t.close();
  });

  it('a range that is not semver, a non-object config schema and the reserved name are refused by definePlugin', () => {
    expect(() => noop('odd', 'banana')).toThrow(expect.objectContaining({ code: 'CTX_PLUGIN_INVALID', message: expect.stringContaining('not a semver range') }));
    expect(() => definePlugin({ name: 'odd', version: '1', config: s.string() as never, setup: () => {} })).toThrow(expect.objectContaining({ code: 'CTX_PLUGIN_INVALID' }));
    expect(() => definePlugin({ name: 'load', version: '1', setup: () => {} })).toThrow(expect.objectContaining({ code: 'CTX_PLUGIN_INVALID', message: expect.stringContaining('reserved') }));
  });
});

describe('settings for plugins that are not loaded', () => {
  it('are logged as warnings naming them, and do not stop start-up', async () => {
    const lines: string[] = [];
    const t = await startTestApp({
      env: { CTX_PLUGIN_GRETER_GREETING: 'typo in the plugin name' },
      config: { pluginSections: { nobody: { x: 1 } }, logLevel: 'warn' },
      logSink: (line) => void lines.push(line),
    });
    await t.close();
    const warnings = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 'warn');
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ section: 'plugins.nobody' }),
        expect.objectContaining({ variable: 'CTX_PLUGIN_GRETER_GREETING' }),
      ]),
    );
  });
});

describe('environment names of sections', () => {
  it('upper-snake the plugin and the field, and a longer plugin name keeps its own variables', async () => {
    expect(envName('reading-stats')).toBe('READING_STATS');
    expect(envName('reportEveryMinutes')).toBe('REPORT_EVERY_MINUTES');
    let short!: PluginHost<{ statsLimit?: number }>;
    let long!: PluginHost<{ limit?: number }>;
    const a = definePlugin({ name: 'reading', version: '1.0.0', config: s.object({ statsLimit: s.int().optional() }), setup: (h) => void (short = h) });
    const b = definePlugin({ name: 'reading-stats', version: '1.0.0', config: s.object({ limit: s.int().optional() }), setup: (h) => void (long = h) });
    const t = await startTestApp({ extraPlugins: [a, b], env: { CTX_PLUGIN_READING_STATS_LIMIT: '7' } });
    try {
      expect(long.pluginConfig).toEqual({ limit: 7 });
      expect(short.pluginConfig).toEqual({});
      expect(Object.isFrozen(long.pluginConfig)).toBe(true);
    } finally {
      await t.close();
    }
  });
});
