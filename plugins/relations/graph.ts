/** `build_graph`: gathers the relations stored under the merged spaces and renders them as HTML. */
import type { Identity } from 'ctx/plugin';
import type { PluginHost } from 'ctx/plugin';
import { canRead, parseUri, uriFromPath, type CtxUri } from 'ctx/plugin';
import { isAncestorPath, splitPath } from 'ctx/plugin';
import { renderGraphHtml, type GraphData, type GraphEdge, type GraphNode } from './graph-html.js';
import { RELATIONS_FILE, readSidecar, scopedSidecars } from './store.js';

/** Readability of a stored URI for the caller: namespace rules plus the per-entry rules (host.access). */
export type Readable = (path: string) => Promise<boolean>;

export function readableFor(host: PluginHost, identity: Identity): Readable {
  return (path) => host.access.canReadPath(identity, path);
}

const labelOf = (path: string) => splitPath(path)[1] || 'ctx://';
const pathOf = (uri: string) => uri.slice('ctx://'.length);

export async function collectGraph(host: PluginHost, identity: Identity, spaces: CtxUri[], readable: Readable): Promise<GraphData> {
  const vfs = host.vfsFor(identity);
  const io = scopedSidecars(vfs);
  // Sidecar paths under every space (a space inside another is walked once per sidecar).
  const sidecars = new Set<string>();
  for (const space of spaces) {
    sidecars.add(space.path === '' ? RELATIONS_FILE : `${space.path}/${RELATIONS_FILE}`);
    for await (const e of vfs.walk(space.uri)) if (e.kind === 'file' && e.name === RELATIONS_FILE) sidecars.add(e.path);
  }
  const nodes = new Map<string, GraphNode>();
  const edges: GraphEdge[] = [];
  const spaceOf = (path: string) => {
    let best = -1;
    let depth = -1;
    spaces.forEach((s, i) => {
      if (isAncestorPath(s.path, path) && s.path.length > depth) {
        best = i;
        depth = s.path.length;
      }
    });
    return best;
  };
  const nodeFor = (path: string): GraphNode => {
    let n = nodes.get(path);
    if (!n) {
      n = { id: nodes.size, uri: uriFromPath(path), label: labelOf(path), space: spaceOf(path), exists: true, isDir: false };
      nodes.set(path, n);
    }
    return n;
  };
  for (const sidecar of [...sidecars].sort()) {
    const dir = splitPath(sidecar)[0];
    if (!(await readable(dir))) continue;
    const entries = await readSidecar(io, sidecar);
    if (entries.length === 0) continue;
    const sourcePaths = entries.map((r) => (r.source === '' ? dir : dir === '' ? r.source : `${dir}/${r.source}`));
    const targetPaths = entries.map((r) => pathOf(r.uri));
    // Only what the caller may read is looked at: an unreadable source or target is no edge.
    const all = [...sourcePaths, ...targetPaths];
    const ok = await Promise.all(all.map((p) => readable(p)));
    const got = await vfs.statMany(all.filter((_, i) => ok[i]).map(uriFromPath));
    let k = 0;
    const stats = all.map((_, i) => (ok[i] ? got[k++]! : null));
    const readableTargets = ok.slice(sourcePaths.length);
    for (let i = 0; i < entries.length; i++) {
      const r = entries[i]!;
      const src = stats[i];
      // Entries of a removed or re-created file source are not relations any more.
      if (!ok[i] || !src || (r.source !== '' && src.ctime !== r.sourceCtime)) continue;
      if (!readableTargets[i]) continue;
      const s = nodeFor(sourcePaths[i]!);
      s.isDir = src.kind === 'dir';
      const t = nodeFor(targetPaths[i]!);
      const tgt = stats[entries.length + i];
      t.exists = !!tgt;
      t.isDir = tgt?.kind === 'dir';
      edges.push({ source: s.id, target: t.id, reason: r.reason });
    }
  }
  return {
    title: `Relations of ${spaces.map((s) => s.uri).join(', ')}`,
    generated_at: new Date().toISOString(),
    spaces: spaces.map((s) => s.uri),
    nodes: [...nodes.values()],
    edges,
  };
}

export { renderGraphHtml };
