/**
 * Each plugin's own configuration section: `plugins.<name>` in the config file, overridden by
 * `CTX_PLUGIN_<NAME>_<KEY>` variables, plus the secrets that belong to it (config.ts
 * `SECRETS_BY_PLUGIN`), validated at start-up by the schema it declares (`definePlugin({config})`).
 * A plugin receives its own section only (`host.pluginConfig`), never another's.
 */
import { SECRETS_BY_PLUGIN, deepFreeze, type CtxConfig } from './config.js';
import { PluginError, type PluginConfig, type PluginDefinition } from './plugin.js';
import { ObjectSchema, type Shape } from './schema.js';

/** `reading-stats` → `READING_STATS`, `reportEveryMinutes` → `REPORT_EVERY_MINUTES`. */
export function envName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}

/**
 * The `CTX_PLUGIN_*` variables of `plugin`. A variable matching the prefix of two loaded plugins
 * (`reading` and `reading-stats`) belongs to the longer name.
 */
function envOf(plugin: string, loaded: readonly string[], env: Record<string, string>): Array<[variable: string, key: string, value: string]> {
  const prefix = `CTX_PLUGIN_${envName(plugin)}_`;
  const longer = loaded.filter((n) => n.length > plugin.length && `CTX_PLUGIN_${envName(n)}_`.startsWith(prefix)).map((n) => `CTX_PLUGIN_${envName(n)}_`);
  return Object.entries(env)
    .filter(([k]) => k.startsWith(prefix) && !longer.some((l) => k.startsWith(l)))
    .map(([k, v]) => [k, k.slice(prefix.length), v]);
}

/** `CTX_PLUGIN_*` variables no loaded plugin claims (a misspelt plugin name): logged, not fatal. */
export function unclaimedEnv(config: CtxConfig, loaded: readonly string[]): string[] {
  const prefixes = loaded.map((n) => `CTX_PLUGIN_${envName(n)}_`);
  return Object.keys(config.pluginEnv).filter((k) => !prefixes.some((p) => k.startsWith(p)));
}

const invalid = (plugin: string, message: string, cause?: unknown) =>
  new PluginError('CTX_PLUGIN_CONFIG', `plugin ${plugin}: ${message}`, cause === undefined ? undefined : { cause });

/** The validated, frozen section of `def` (`{}` for a plugin without a schema and without settings). */
export function pluginSection(def: PluginDefinition, config: CtxConfig, loaded: readonly string[]): Readonly<PluginConfig> {
  const fromFile = config.pluginSections[def.name];
  const fromEnv = envOf(def.name, loaded, config.pluginEnv);
  const secrets = Object.entries(SECRETS_BY_PLUGIN[def.name] ?? {})
    .map(([key, read]) => [key, read(config)] as const)
    .filter(([, v]) => v !== undefined);
  const schema = def.config as ObjectSchema<Shape> | undefined;
  if (!schema) {
    const set = [...(fromFile ? [`plugins.${def.name}`] : []), ...fromEnv.map(([v]) => v)];
    if (set.length) throw invalid(def.name, `${set.join(', ')} is set, but the plugin declares no configuration (definePlugin({ config }))`);
    return Object.freeze({});
  }
  const section: Record<string, unknown> = { ...Object.fromEntries(secrets), ...structuredClone(fromFile ?? {}) };
  const fields = Object.keys(schema.shape);
  for (const [variable, key, raw] of fromEnv) {
    const field = fields.find((f) => envName(f) === key);
    if (!field) throw invalid(def.name, `${variable} is not one of its settings (${fields.map((f) => `CTX_PLUGIN_${envName(def.name)}_${envName(f)}`).join(', ') || 'none'})`);
    // Environment values are strings: coerced as query parameters are ('5' → 5, 'true' → true, 'a,b' → [a, b]).
    try {
      section[field] = schema.shape[field]!.parse(raw, variable, 'query');
    } catch (err) {
      throw invalid(def.name, `invalid ${variable}: ${(err as Error).message}`, err);
    }
  }
  try {
    return deepFreeze(schema.parse(section, `plugins.${def.name}`, 'json') as PluginConfig);
  } catch (err) {
    const field = (err as { details?: { field?: string } }).details?.field;
    throw invalid(def.name, `invalid configuration${field ? ` (field ${field})` : ''}: ${(err as Error).message}`, err);
  }
}
