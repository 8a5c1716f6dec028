/**
 * Shared set-up for the fs tests: a real app (RocksDB in a temp dir) without the indexer, plus, when
 * asked, a stand-in `vector-index` answering `countUnder` with known figures (the contract the
 * retrieval plugin implements).
 */
import { builtinPlugins } from '../../plugins/index.js';
import { definePlugin, type PluginDefinition } from '../../runtime/plugin.js';
import type { ChangeEvent } from '../../runtime/vfs/types.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

/** Query string from a record; arrays become repeated keys. */
export function qs(params: Record<string, string | number | boolean | string[]>): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (Array.isArray(v)) for (const x of v) sp.append(k, x);
    else sp.append(k, String(v));
  }
  return sp.toString();
}

export interface FsTestApp {
  t: TestApp;
  /** Change events seen since start (mv must carry enough to re-key vectors). */
  events: ChangeEvent[];
  /** countUnder answers of the stand-in vector index, by path. */
  counts: Map<string, number>;
}

/** Built-in plugins without the indexer (retrieval) and what depends on it: fs tests need no embedding work. */
function withoutIndexer(): PluginDefinition[] {
  const drop = new Set(['retrieval']);
  for (let changed = true; changed; ) {
    changed = false;
    for (const p of builtinPlugins)
      if (!drop.has(p.name) && (p.dependsOn ?? []).some((d) => drop.has(d))) {
        drop.add(p.name);
        changed = true;
      }
  }
  return builtinPlugins.filter((p) => !drop.has(p.name));
}

/**
 * The retrieval plugin provides `vector-index` later; this stand-in answers `countUnder` from a map
 * so stat and `extra_fields=count` can be checked against a known figure.
 */
export async function fsApp(opts: { withIndex?: boolean } = {}): Promise<FsTestApp> {
  const events: ChangeEvent[] = [];
  const counts = new Map<string, number>();
  const extra = opts.withIndex
    ? [
        definePlugin({
          name: 'vector-index-standin',
          version: '0.0.0',
          setup(host) {
            host.provide('vector-index', { countUnder: (_account: string, path: string) => counts.get(path) ?? 0 });
          },
        }),
      ]
    : [];
  const t = await startTestApp({ plugins: [...withoutIndexer(), ...extra] });
  t.app.vfs.on('change', (ev: ChangeEvent) => events.push(ev));
  return { t, events, counts };
}

export const put = (t: TestApp, account: string, path: string, text = 'x', tags?: string[]) => t.app.vfs.writeFile(account, path, Buffer.from(text), { tags });
