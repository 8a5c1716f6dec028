/** pack export|import (streamed to and from disk) and snapshot create|ls|show|diff|restore. */
import fs from 'node:fs';
import path from 'node:path';
import { int, uri, type Handler } from '../context.js';
import { UsageError } from '../exit.js';
import { bytes, kv, table, when } from '../output.js';
import { progress } from '../progress.js';

export const exportPack: Handler = async (cx, [u], o) => {
  const c = await cx.client();
  const target = uri(u as string);
  const file = (o.output as string | undefined) ?? `${target.replace(/\/+$/, '').split('/').pop() || 'export'}.ctxpack`;
  const { saveDownload } = await import('ctx-client/node');
  const bar = progress();
  const dl = await c.packs.export({ uri: target, include_vectors: o.vectors });
  const n = await saveDownload(dl, file, (w, total) => bar.update(`${path.basename(file)}: ${bytes(w)}${total ? ` of ${bytes(total)}` : ''}`, total ? w / total : undefined));
  bar.done();
  cx.out.emit({ uri: target, file, bytes: n }, (r: { file: string; bytes: number }) => `exported ${target} to ${r.file} (${bytes(r.bytes)})`);
};

export const importPack: Handler = async (cx, [file], o) => {
  const f = file as string;
  if (!fs.existsSync(f)) throw new UsageError(`no such file: ${f}`);
  const c = await cx.client();
  const bar = progress();
  bar.update(`uploading ${path.basename(f)} (${bytes(fs.statSync(f).size)})`);
  const res = await c.importPack(f, { parent: uri(o.parent), on_conflict: o.onConflict });
  bar.done();
  cx.out.emit(res, (r: { uri: string }) => `imported ${f} as ${r.uri}`);
};

export const snapCreate: Handler = async (cx, [paths], o) => {
  const c = await cx.client();
  const list = (paths as string[] | undefined) ?? [];
  const res = await c.snapshots.commit({ message: o.message, paths: list.length ? list.map(uri) : undefined });
  cx.out.emit(res, (r: { result: string; commit_oid?: string; changed?: number }) => `${r.result}${r.commit_oid ? ` ${r.commit_oid.slice(0, 12)}` : ''}${r.changed !== undefined ? ` (${r.changed} changed)` : ''}`);
};

type Commit = { oid: string; message: string; author: { name: string; time_seconds: number } };

export const snapLs: Handler = async (cx, _a, o) => {
  const c = await cx.client();
  const res = await c.snapshots.log({ limit: int(o.limit, '--limit'), branch: o.branch });
  cx.out.emit(res, (r: Commit[]) => table(cx.out, ['COMMIT', 'DATE', 'AUTHOR', 'MESSAGE'], r.map((x) => [x.oid.slice(0, 12), when(x.author.time_seconds), x.author.name, x.message.split('\n')[0]!])));
};

export const snapShow: Handler = async (cx, [ref]) => {
  const c = await cx.client();
  cx.out.emit(await c.snapshots.show({ target_ref: ref as string }), (r: Record<string, unknown>) => kv(cx.out, r));
};

type Restore = { diff?: { to_write: Array<{ path: string }>; to_delete: string[]; unchanged: string[] }; written?: number; deleted?: number; result: string; new_commit_oid?: string };

export const snapDiff: Handler = async (cx, [ref], o) => {
  const c = await cx.client();
  const res = await c.snapshots.restore({ source_commit: ref as string, dry_run: true, project_dir: o.dir ? uri(o.dir) : undefined });
  cx.out.emit(res, (r: Restore) => {
    const d = r.diff ?? { to_write: [], to_delete: [], unchanged: [] };
    const lines = [...d.to_write.map((w) => `M ${w.path}`), ...d.to_delete.map((p) => `D ${p}`)];
    return lines.length ? lines.join('\n') : 'no changes';
  });
};

export const snapRestore: Handler = async (cx, [ref], o) => {
  const c = await cx.client();
  const res = await c.snapshots.restore({ source_commit: ref as string, dry_run: o.dryRun, message: o.message, project_dir: o.dir ? uri(o.dir) : undefined });
  cx.out.emit(res, (r: Restore) => `${r.result}: ${r.written ?? 0} written, ${r.deleted ?? 0} deleted${r.new_commit_oid ? `, commit ${r.new_commit_oid.slice(0, 12)}` : ''}`);
};
