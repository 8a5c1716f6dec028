/** add (with a progress bar that follows the task), watches, skills, relations, privacy configs. */
import fs from 'node:fs';
import { int, jsonArg, uri, type Handler } from '../context.js';
import { UsageError } from '../exit.js';
import { bytes, kv, oneLine, paint, table, when } from '../output.js';
import { progress } from '../progress.js';

const REMOTE = /^(https?:\/\/|git@|ssh:\/\/|git:\/\/)/i;

export const add: Handler = async (cx, [source], o) => {
  const src = source as string;
  if (!REMOTE.test(src) && !fs.existsSync(src)) throw new UsageError(`no such file or directory: ${src} (or give a URL)`);
  const c = await cx.client();
  const bar = progress();
  const res = await c.addResource({
    path: src,
    to: o.to ? uri(o.to) : undefined,
    parent: o.parent ? uri(o.parent) : undefined,
    reason: o.reason,
    instruction: o.instruction,
    tags: o.tag,
    watch_interval: o.watch === undefined ? undefined : Number(o.watch),
    wait: o.wait,
    onProgress: (p) => {
      if (p.phase === 'zip') bar.update(`zipping: ${p.files} files, ${bytes(p.bytes)}`);
      else if (p.phase === 'upload') bar.update(`uploading ${bytes(p.bytes)}`);
      else bar.update(`task ${p.task.task_id}: ${p.task.status}${p.task.stage ? ` (${p.task.stage})` : ''}`, p.task.status === 'completed' ? 1 : undefined);
    },
  });
  bar.done();
  cx.out.emit(res, (r: typeof res) => {
    const status = r.task ? r.task.status : 'submitted';
    const lines = [`${r.root_uri}  ${status}${r.task_id ? `  task ${r.task_id}` : ''}`];
    if (r.task?.error) lines.push(`error: ${r.task.error}`);
    return lines.join('\n');
  });
  if (res.task && res.task.status !== 'completed') process.exitCode = 1;
};

type Watch = { task_id: string; to_uri: string; path: string; watch_interval: number; is_active: boolean; next_execution_time: string; last_status: string | null };

export const watchLs: Handler = async (cx, _a, o) => {
  const c = await cx.client();
  const res = await c.watches.list({ active_only: o.active });
  cx.out.emit(res, (r: { tasks: Watch[] }) =>
    table(cx.out, ['ID', 'ACTIVE', 'EVERY', 'NEXT', 'LAST', 'TARGET'], r.tasks.map((w) => [w.task_id, w.is_active ? 'yes' : 'no', `${w.watch_interval}m`, when(w.next_execution_time), w.last_status ?? '-', w.to_uri])),
  );
};

export const watchShow: Handler = async (cx, [id]) => {
  const c = await cx.client();
  cx.out.emit(await c.watches.get(id as string), (r: Record<string, unknown>) => kv(cx.out, r));
};

export const watchSet: Handler = async (cx, [id], o) => {
  if (o.pause && o.resume) throw new UsageError('--pause and --resume exclude each other');
  const body = { watch_interval: o.interval === undefined ? undefined : Number(o.interval), is_active: o.pause ? false : o.resume ? true : undefined };
  if (body.watch_interval === undefined && body.is_active === undefined) throw new UsageError('nothing to change: --interval, --pause or --resume');
  const c = await cx.client();
  cx.out.emit(await c.watches.update(id as string, body), (r: Record<string, unknown>) => kv(cx.out, r));
};

export const watchTrigger: Handler = async (cx, [id]) => {
  const c = await cx.client();
  cx.out.emit(await c.watches.trigger(id as string), (r: Record<string, unknown>) => kv(cx.out, r));
};

export const watchRm: Handler = async (cx, [id]) => {
  const c = await cx.client();
  cx.out.emit(await c.watches.delete(id as string), () => `deleted watch ${id}`);
};

export const skillAdd: Handler = async (cx, [p]) => {
  const path = p as string;
  if (!fs.existsSync(path)) throw new UsageError(`no such file or directory: ${path}`);
  const c = await cx.client();
  let res;
  if (fs.statSync(path).isDirectory()) {
    const { zipPath } = await import('ctx-client/node');
    const z = await zipPath(path);
    const { temp_file_id } = await c.resources.tempUpload(new Blob([z.data as Uint8Array<ArrayBuffer>]), z.filename);
    res = await c.skills.add({ temp_file_id, wait: true });
  } else res = await c.skills.add({ data: fs.readFileSync(path, 'utf8'), wait: true });
  cx.out.emit(res, (r: { name: string; uri: string; auxiliary_files: number }) => `added skill ${r.name} at ${r.uri}${r.auxiliary_files ? ` (+${r.auxiliary_files} files)` : ''}`);
};

export const skillLs: Handler = async (cx) => {
  const c = await cx.client();
  cx.out.emit(await c.skills.list(), (r: { skills: Array<{ name: string; description: string; uri: string; tags: string[]; allowed_tools: string[] }> }) =>
    table(cx.out, ['NAME', 'TAGS', 'TOOLS', 'DESCRIPTION'], r.skills.map((s) => [paint(cx.out, 'bold', s.name), s.tags.join(',') || '-', s.allowed_tools.join(',') || '-', oneLine(s.description, 80)])),
  );
};

export const skillShow: Handler = async (cx, [name], o) => {
  const c = await cx.client();
  const res = await c.skills.get(name as string, { include_content: o.content });
  cx.out.emit(res, (r: Record<string, unknown>) => {
    const { content, ...rest } = r;
    return kv(cx.out, rest) + (typeof content === 'string' ? `\n\n${content}` : '');
  });
};

export const skillRm: Handler = async (cx, [name]) => {
  const c = await cx.client();
  cx.out.emit(await c.skills.delete(name as string), () => `deleted skill ${name}`);
};

export const relLs: Handler = async (cx, [u]) => {
  const c = await cx.client();
  cx.out.emit(await c.relations.list({ uri: uri(u as string) }), (r: Array<{ uri: string; reason: string }>) => table(cx.out, ['URI', 'REASON'], r.map((x) => [x.uri, x.reason])));
};

export const relLink: Handler = async (cx, [from, to], o) => {
  const c = await cx.client();
  const res = await c.relations.link({ from_uri: uri(from as string), to_uris: (to as string[]).map(uri), reason: o.reason });
  cx.out.emit(res, () => `linked ${uri(from as string)} -> ${(to as string[]).map(uri).join(', ')}`);
};

export const relUnlink: Handler = async (cx, [from, to]) => {
  const c = await cx.client();
  const res = await c.relations.unlink({ from_uri: uri(from as string), to_uri: uri(to as string) });
  cx.out.emit(res, () => `unlinked ${uri(from as string)} -> ${uri(to as string)}`);
};

export const privacyLs: Handler = async (cx, [category]) => {
  const c = await cx.client();
  const res = category ? await c.privacy.category(category as string) : await c.privacy.list();
  cx.out.emit(res, (r: unknown) => (Array.isArray(r) ? r.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('\n') : JSON.stringify(r, null, 2)));
};

export const privacyGet: Handler = async (cx, [category, key], o) => {
  const c = await cx.client();
  const v = int(o.version, '--version');
  const res = v === undefined ? await c.privacy.get(category as string, key as string) : await c.privacy.version(category as string, key as string, v);
  cx.out.emit(res, (r: unknown) => JSON.stringify(r, null, 2));
};

export const privacySet: Handler = async (cx, [category, key, values], o) => {
  const parsed = jsonArg(values as string, 'values');
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError('values must be a JSON object');
  const c = await cx.client();
  const res = await c.privacy.set(category as string, key as string, { values: parsed as Record<string, unknown>, change_reason: o.reason });
  cx.out.emit(res, (r: unknown) => JSON.stringify(r, null, 2));
};

export const privacyActivate: Handler = async (cx, [category, key, version]) => {
  const c = await cx.client();
  const res = await c.privacy.activate(category as string, key as string, { version: int(version, 'version')! });
  cx.out.emit(res, (r: unknown) => JSON.stringify(r, null, 2));
};

export const privacyVersions: Handler = async (cx, [category, key]) => {
  const c = await cx.client();
  cx.out.emit(await c.privacy.versions(category as string, key as string), (r: unknown[]) => r.map(String).join('\n'));
};
