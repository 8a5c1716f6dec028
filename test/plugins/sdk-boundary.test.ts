/**
 * Plugins import the SDK and nothing else of the host: a built-in plugin reaches the host only as
 * `ctx/plugin`, exactly as a third-party plugin does, never another plugin's files, and never
 * through a computed `import()` that neither tsc nor a reader can follow.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SDK = path.resolve('runtime/sdk/index.ts');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Static `import`/`export ... from` specifiers and dynamic `import(...)` arguments of a file. */
function specifiers(text: string): { specifier: string; dynamic: boolean }[] {
  const out: { specifier: string; dynamic: boolean }[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+['"]([^'"]+)['"]/gms)) out.push({ specifier: m[1]!, dynamic: false });
  for (const m of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) out.push({ specifier: m[1]!, dynamic: false });
  for (const m of text.matchAll(/\bimport\(\s*([^)]*?)\s*\)/g)) out.push({ specifier: m[1]!, dynamic: true });
  return out;
}

/** Why an import is not allowed in `file` (inside plugin folder `root`), or null. */
function violation(file: string, root: string, specifier: string, dynamic: boolean): string | null {
  if (dynamic && !/^['"][^'"]+['"]$/.test(specifier)) return `computed import(${specifier})`;
  const spec = dynamic ? specifier.slice(1, -1) : specifier;
  if (spec.startsWith('node:')) return null;
  if (spec === 'ctx/plugin' || spec === 'ctx-plugin-sdk') return null;
  if (spec === 'ctx' || spec.startsWith('ctx/')) return `${spec}: only ctx/plugin is public`;
  if (!spec.startsWith('.')) return null; // an npm package of the plugin's own
  const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts');
  if (target === SDK) return `${spec}: import the SDK as ctx/plugin, as a third-party plugin does`;
  if (target.startsWith(root + path.sep)) return null;
  return `${spec} leaves the plugin's folder`;
}

const pluginRoots = [
  ...fs.readdirSync('plugins', { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => path.resolve('plugins', e.name)),
  ...fs.readdirSync('docs/examples', { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => path.resolve('docs/examples', e.name)),
  // Out-of-tree plugins: their sources import the SDK package and nothing of the server.
  ...fs.readdirSync('examples', { withFileTypes: true }).filter((e) => e.isDirectory() && e.name.startsWith('plugin-')).map((e) => path.resolve('examples', e.name, 'src')),
];

describe('plugins import only the SDK', () => {
  it('finds plugin folders to check', () => {
    expect(pluginRoots.length).toBeGreaterThanOrEqual(9);
  });

  for (const root of pluginRoots)
    it(`${path.relative(process.cwd(), root)} imports nothing else of the host or of other plugins`, () => {
      const bad: string[] = [];
      for (const file of sources(root))
        for (const { specifier, dynamic } of specifiers(fs.readFileSync(file, 'utf8'))) {
          const why = violation(file, root, specifier, dynamic);
          if (why) bad.push(`${path.relative(process.cwd(), file)}: ${why}`);
        }
      expect(bad).toEqual([]);
    });

  it('the checker catches deep imports, cross-plugin imports and computed import()', () => {
    const file = path.resolve('plugins/demo/index.ts');
    const root = path.resolve('plugins/demo');
    expect(violation(file, root, '../../runtime/vfs/vfs.js', false)).toMatch(/leaves/);
    expect(violation(file, root, '../fs/access.js', false)).toMatch(/leaves/);
    expect(violation(file, root, 'ctx/runtime/plugin.js', false)).toMatch(/only ctx\/plugin/);
    expect(violation(file, root, 'spec', true)).toMatch(/computed/);
    expect(violation(file, root, '../../runtime/sdk/index.js', false)).toMatch(/as ctx\/plugin/);
    expect(violation(file, root, 'ctx/plugin', false)).toBeNull();
    expect(violation(file, root, 'ctx-plugin-sdk', false)).toBeNull();
    expect(violation(file, root, 'ctx/testing', false)).toMatch(/only ctx\/plugin/);
    expect(violation(file, root, './helpers.js', false)).toBeNull();
    expect(specifiers("import type {\n  A,\n  B,\n} from '../x.js';\nconst m = await import(name);")).toEqual([
      { specifier: '../x.js', dynamic: false },
      { specifier: 'name', dynamic: true },
    ]);
  });
});
