/**
 * Writing an import into the VFS under one tree lock on its root: files in atomic batches of
 * bounded size (the semantic plugin's commit hook queues their index work in the same batches),
 * then, when the import replaces an existing root, what the source no longer has is removed; tags
 * and the resource's own metadata (source, reason, instruction) go on last.
 */
import { SIDECARS, type PluginHost } from 'ctx/plugin';
import type { OutFile } from './convert.js';

const BATCH_FILES = 256;
const BATCH_BYTES = 16 << 20;

export interface ResourceMeta {
  source_type: string;
  source: string;
  reason: string;
  instruction: string;
  imported_at: string;
  task_id: string;
  commit?: string;
  media?: Record<string, unknown>;
}

export interface WriteInput {
  account: string;
  root: string;
  files: OutFile[];
  replace: boolean;
  tags?: string[];
  tagMode: 'replace' | 'append';
  meta: ResourceMeta;
  signal: AbortSignal;
}

export async function writeResource(host: PluginHost, w: WriteInput): Promise<{ files: number; removed: number }> {
  const vfs = host.unscopedVfs;
  const lock = await vfs.locks.acquire(w.account, w.root, 'tree');
  try {
    const wanted = new Set(w.files.map((f) => `${w.root}/${f.rel}`));
    const stale: string[] = [];
    if (w.replace) {
      const keepDirs = new Set<string>();
      for (const p of wanted) for (let i = p.indexOf('/', w.root.length + 1); i > 0; i = p.indexOf('/', i + 1)) keepDirs.add(p.slice(0, i));
      for await (const e of vfs.walk(w.account, w.root)) {
        if (e.path === w.root || SIDECARS.has(e.path.slice(e.path.lastIndexOf('/') + 1))) continue;
        if (stale.some((s) => e.path.startsWith(s + '/'))) continue;
        if (e.kind === 'dir' ? !keepDirs.has(e.path) : !wanted.has(e.path)) stale.push(e.path);
      }
    }
    if (w.signal.aborted) throw w.signal.reason;
    await vfs.mkdir(w.account, w.root, { lock, existOk: true });
    const hint = w.tags ? { tags: w.tags, tag_mode: w.tagMode } : undefined;
    for (let at = 0; at < w.files.length; ) {
      if (w.signal.aborted) throw w.signal.reason;
      const batch: OutFile[] = [];
      let bytes = 0;
      while (at < w.files.length && batch.length < BATCH_FILES && (batch.length === 0 || bytes + w.files[at]!.data.length <= BATCH_BYTES)) {
        bytes += w.files[at]!.data.length;
        batch.push(w.files[at++]!);
      }
      await vfs.writeFiles(w.account, batch.map((f) => ({ path: `${w.root}/${f.rel}`, content: f.data })), { lock, hint });
    }
    for (const p of stale) await vfs.rm(w.account, p, { recursive: true, lock });
    for (const f of w.files) if (f.media) await vfs.setMeta(w.account, `${w.root}/${f.rel}`, { meta: { media: f.media } }, { lock });
    if (w.tags) {
      const dirs = new Set<string>([w.root]);
      for (const p of wanted) for (let i = p.indexOf('/', w.root.length + 1); i > 0; i = p.indexOf('/', i + 1)) dirs.add(p.slice(0, i));
      await vfs.setTagsMany(w.account, [...dirs, ...wanted], w.tags, w.tagMode, { lock });
    }
    await vfs.setMeta(w.account, w.root, { meta: { resource: w.meta } }, { lock });
    return { files: w.files.length, removed: stale.length };
  } finally {
    lock.release();
  }
}
