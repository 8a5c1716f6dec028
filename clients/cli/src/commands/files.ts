/** ls, tree, stat, cat, write, rm, mv, mkdir, tag, download. */
import fs from 'node:fs';
import { int, readStdin, uri, type Handler } from '../context.js';
import { UsageError } from '../exit.js';
import { bytes, fileMode, kv, oneLine, paint, table, tree as drawTree, when } from '../output.js';
import { progress } from '../progress.js';

type Entry = { name: string; uri: string; isDir: boolean; size?: number; modTime?: string; rel_path?: string; abstract?: string };
const entries = (r: unknown[]): Entry[] => r.filter((e): e is Entry => typeof e === 'object' && e !== null);

export const ls: Handler = async (cx, [target], o) => {
  const c = await cx.client();
  const res = await c.fs.ls({
    uri: uri(target as string),
    recursive: o.recursive,
    show_all_hidden: o.all,
    node_limit: int(o.limit, '--limit'),
    tags: o.tag,
    sort_by: o.sort,
    sort_order: o.desc ? 'desc' : undefined,
    // The agent view adds each entry's abstract, shown by -l; --json stays the plain listing.
    output: o.long && !cx.out.json ? 'agent' : 'original',
  });
  cx.out.emit(res, (r: unknown[]) => {
    const list = entries(r);
    const name = (e: Entry) => {
      const n = o.recursive ? (e.rel_path ?? e.name) : e.name;
      return e.isDir ? paint(cx.out, 'blue', n + '/') : n;
    };
    if (!o.long) return list.length ? list.map(name).join('\n') : '';
    return table(cx.out, ['SIZE>', 'MODIFIED', 'NAME', 'ABSTRACT'], list.map((e) => [e.isDir ? '-' : bytes(e.size), when(e.modTime), name(e), oneLine(e.abstract, 60)]));
  });
};

export const tree: Handler = async (cx, [target], o) => {
  const c = await cx.client();
  const root = uri(target as string);
  const res = await c.fs.tree({ uri: root, level_limit: int(o.depth, '--depth'), node_limit: int(o.limit, '--limit'), show_all_hidden: o.all, output: 'original' });
  cx.out.emit(res, (r: unknown[]) => drawTree(cx.out, root, entries(r).map((e) => ({ rel: e.rel_path ?? e.name, isDir: e.isDir }))));
};

export const stat: Handler = async (cx, [target]) => {
  const c = await cx.client();
  const res = await c.fs.stat({ uri: uri(target as string) });
  cx.out.emit(res, (r: Record<string, unknown>) =>
    kv(cx.out, { ...r, size: r.isDir ? undefined : bytes(r.size as number), mode: typeof r.mode === 'number' ? fileMode(r.mode) : r.mode, modTime: when(r.modTime as string) }),
  );
};

export const cat: Handler = async (cx, [target], o) => {
  const c = await cx.client();
  const u = uri(target as string);
  const level = o.level as string;
  const text =
    level === '0' ? await c.content.abstract({ uri: u }) : level === '1' ? await c.content.overview({ uri: u }) : await c.content.read({ uri: u, offset: int(o.offset, '--offset'), limit: int(o.limit, '--limit') });
  if (cx.out.json) return cx.out.emit({ uri: u, level: Number(level), content: text }, () => '');
  process.stdout.write(typeof text === 'string' ? (text.endsWith('\n') || text === '' ? text : text + '\n') : JSON.stringify(text) + '\n');
};

export const write: Handler = async (cx, [target, file], o) => {
  let content: string;
  if (typeof file === 'string' && file !== '-') {
    if (!fs.existsSync(file)) throw new UsageError(`no such file: ${file}`);
    content = fs.readFileSync(file, 'utf8');
  } else {
    if (process.stdin.isTTY) throw new UsageError('nothing to write: pipe content in or name a file (ctx write URI FILE)');
    content = await readStdin();
  }
  const c = await cx.client();
  const res = await c.content.write({ uri: uri(target as string), content, mode: o.mode, tags: o.tag, wait: o.wait });
  cx.out.emit(res, (r: { uri: string; mode: string }) => `${r.mode === 'append' ? 'appended to' : 'wrote'} ${r.uri} (${bytes(Buffer.byteLength(content))})`);
};

export const rm: Handler = async (cx, [target], o) => {
  const c = await cx.client();
  const res = await c.fs.rm({ uri: uri(target as string), recursive: o.recursive });
  cx.out.emit(res, (r: { uri: string; deleted_count?: number }) => `deleted ${r.uri}${r.deleted_count !== undefined ? ` (${r.deleted_count} entries)` : ''}`);
};

export const mv: Handler = async (cx, [from, to]) => {
  const c = await cx.client();
  const res = await c.fs.mv({ from_uri: uri(from as string), to_uri: uri(to as string) });
  cx.out.emit(res, (r: { from: string; to: string }) => `moved ${r.from} -> ${r.to}`);
};

export const mkdir: Handler = async (cx, [target], o) => {
  const c = await cx.client();
  const res = await c.fs.mkdir({ uri: uri(target as string), description: o.description });
  cx.out.emit(res, (r: { uri: string }) => `created ${r.uri}`);
};

export const tag: Handler = async (cx, [target, tags], o) => {
  const c = await cx.client();
  const res = await c.fs.setTags({ uri: uri(target as string), tags: tags as string[], mode: o.add ? 'append' : 'replace', recursive: o.recursive });
  cx.out.emit(res, (r: { success_count: number; tags: string[] }) => `tagged ${r.success_count} entr${r.success_count === 1 ? 'y' : 'ies'}: ${r.tags.join(', ')}`);
};

export const download: Handler = async (cx, [target], o) => {
  const c = await cx.client();
  const dl = await c.content.download(uri(target as string));
  if (!o.output) {
    for await (const chunk of dl.stream as unknown as AsyncIterable<Uint8Array>) process.stdout.write(chunk);
    return;
  }
  const { saveDownload } = await import('ctx-client/node');
  const bar = progress();
  const n = await saveDownload(dl, o.output, (w, total) => bar.update(`${o.output}: ${bytes(w)}`, total ? w / total : undefined));
  bar.done();
  cx.out.emit({ file: o.output, bytes: n }, (r: { file: string; bytes: number }) => `saved ${r.file} (${bytes(r.bytes)})`);
};
