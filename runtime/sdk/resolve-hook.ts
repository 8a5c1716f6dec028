/**
 * A module resolve hook (`node:module` `register`), installed by the plugin loader before it
 * imports an extra plugin: `ctx/plugin` and `ctx-plugin-sdk` (and their `testing` entries) resolve
 * to this host's own modules wherever the plugin lives and whatever it has in its node_modules, so
 * the host and every plugin share one copy of the SDK (CtxError, Reply and schemas are compared by
 * identity). It runs on Node's loader thread: it imports nothing.
 */
interface HookData {
  map: Record<string, string>;
}
type NextResolve = (specifier: string, context?: unknown) => Promise<{ url: string }>;

let map: Record<string, string> = {};

export async function initialize(data: HookData): Promise<void> {
  map = data.map;
}

export async function resolve(specifier: string, context: unknown, nextResolve: NextResolve): Promise<{ url: string; shortCircuit?: boolean }> {
  const url = map[specifier];
  if (url !== undefined) return { url, shortCircuit: true };
  return nextResolve(specifier, context);
}
