/**
 * Loads the extra plugins an operator lists (`plugins` in the config file, `CTX_PLUGINS`): paths
 * (a file, or a package directory) and npm package names, resolved from the config file's
 * directory, then the working directory. Each failure is a coded PluginError naming the plugin as
 * it was written: not found, failed while loading, not a plugin. (Its API range is checked with
 * every other plugin's when the plugins are ordered.)
 */
import fs from 'node:fs';
import { register } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve as resolveModule } from 'import-meta-resolve';
import { PluginError, isPluginDefinition, type PluginDefinition } from './plugin.js';

export interface ResolveOptions {
  /** The config file's directory (package names resolve from here first). */
  configDir?: string;
  cwd?: string;
}

const isPath = (spec: string) => spec.startsWith('.') || path.isAbsolute(spec);

/** The file a plugin spec names, or CTX_PLUGIN_NOT_FOUND saying where it looked. */
export function resolvePluginSpec(spec: string, opts: ResolveOptions = {}): string {
  const cwd = opts.cwd ?? process.cwd();
  if (isPath(spec)) {
    const target = path.resolve(cwd, spec);
    if (!fs.existsSync(target)) throw new PluginError('CTX_PLUGIN_NOT_FOUND', `plugin ${spec} not found: ${target} does not exist`);
    return fs.statSync(target).isDirectory() ? packageEntry(spec, target) : target;
  }
  const bases = [...new Set([opts.configDir, cwd].filter((b): b is string => !!b))];
  const found: string[] = [];
  for (const base of bases) {
    try {
      const url = resolveModule(spec, pathToFileURL(path.join(base, 'noop.js')).href);
      if (url.startsWith('file:')) return fileURLToPath(url);
    } catch (err) {
      const code = (err as { code?: string }).code;
      // Installed, but its exports offer nothing to `import` (a CommonJS-only or mis-built package).
      if (code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') found.push(`${base}: ${(err as Error).message}`);
      else if (code !== 'ERR_MODULE_NOT_FOUND') throw new PluginError('CTX_PLUGIN_LOAD_FAILED', `cannot resolve plugin ${spec} from ${base}: ${(err as Error).message}`, { cause: err });
    }
  }
  if (found.length) throw new PluginError('CTX_PLUGIN_NOT_FOUND', `plugin ${spec} is installed but exports no entry to import (${found.join('; ')})`);
  throw new PluginError('CTX_PLUGIN_NOT_FOUND', `plugin ${spec} not found: no package of that name in node_modules of ${bases.join(' or ')} (install it there, or give a path)`);
}

/** The entry of the package in `dir`: its `exports` (as `import` sees them), else `main`, else index.js. */
function packageEntry(spec: string, dir: string): string {
  const manifest = path.join(dir, 'package.json');
  if (!fs.existsSync(manifest)) throw new PluginError('CTX_PLUGIN_NOT_FOUND', `plugin ${spec} not found: ${dir} is a directory without package.json`);
  let pkg: { name?: string; exports?: unknown; main?: string };
  try {
    pkg = JSON.parse(fs.readFileSync(manifest, 'utf8')) as typeof pkg;
  } catch (err) {
    throw new PluginError('CTX_PLUGIN_LOAD_FAILED', `plugin ${spec}: cannot read ${manifest}: ${(err as Error).message}`, { cause: err });
  }
  let entry: string;
  if (pkg.exports !== undefined && pkg.name) {
    // A package may import itself by name: that resolves its `exports` exactly as Node would.
    try {
      entry = fileURLToPath(resolveModule(pkg.name, pathToFileURL(manifest).href));
    } catch (err) {
      throw new PluginError('CTX_PLUGIN_NOT_FOUND', `plugin ${spec}: the exports of ${manifest} name no entry to import: ${(err as Error).message}`, { cause: err });
    }
  } else entry = path.resolve(dir, pkg.main ?? 'index.js');
  if (!fs.existsSync(entry)) throw new PluginError('CTX_PLUGIN_NOT_FOUND', `plugin ${spec}: its entry ${entry} does not exist (is the package built?)`);
  return entry;
}

/**
 * The specifiers that reach the host's SDK modules: the host package's own entries and those of
 * ctx-plugin-sdk (a test keeps this in step with that package's `exports`).
 */
export function sharedSdkSpecifiers(sdk: string, testing: string): Record<string, string> {
  return { 'ctx/plugin': sdk, 'ctx-plugin-sdk': sdk, 'ctx/testing': testing, 'ctx-plugin-sdk/testing': testing };
}

let hooked = false;
/**
 * Makes `ctx/plugin` and `ctx-plugin-sdk` resolve to this host's SDK for every module loaded from
 * now on (runtime/sdk/resolve-hook.ts). Only for the built host: under tsx or vitest the SDK is
 * TypeScript that Node's own loader cannot run, and those resolve `ctx/plugin` by alias anyway.
 */
function shareSdk(): void {
  if (hooked || !import.meta.url.endsWith('.js')) return;
  hooked = true;
  // Run from the bundle (dist/server/, scripts/bundle-server.ts), the host's SDK is the bundle's own
  // entry: the same module instances as the server's, as dist/runtime/sdk is for dist/runtime.
  const bundle = (globalThis as { __ctxBundleDir?: string }).__ctxBundleDir;
  const sdk = bundle ? new URL('./sdk.js', bundle).href : new URL('./sdk/index.js', import.meta.url).href;
  const testing = bundle ? new URL('./testing.js', bundle).href : new URL('./sdk/testing.js', import.meta.url).href;
  register(new URL('./sdk/resolve-hook.js', import.meta.url), { data: { map: sharedSdkSpecifiers(sdk, testing) } });
}

export async function importPlugin(spec: string, opts: ResolveOptions = {}): Promise<PluginDefinition> {
  const file = resolvePluginSpec(spec, opts);
  shareSdk();
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (err) {
    throw new PluginError('CTX_PLUGIN_LOAD_FAILED', `cannot load plugin ${spec} (${file}): ${(err as Error).message}`, { cause: err });
  }
  if (!isPluginDefinition(mod.default))
    throw new PluginError('CTX_PLUGIN_INVALID', `${spec} (${file}) is not a ctx plugin: its default export must be the result of definePlugin({...}) from ctx-plugin-sdk`);
  return mod.default;
}
