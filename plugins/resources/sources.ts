/**
 * The sources of an import and how each becomes files: a temp upload (one file or a zip of a
 * tree), an http(s) page or file, a git repository, or a host path below an operator-allowed
 * root. `classify` only looks at the request (fast, in the route); `load` does the I/O (in the
 * task, cancellable).
 */
import fs from 'node:fs';
import path from 'node:path';
import { extensionOf, invalidArgument, permissionDenied } from 'ctx/plugin';
import { convertSingle, type OutFile } from './convert.js';
import { checkRemote, download, publicUrl } from './fetch.js';
import { cloneRepo, isGitUrl, repoName, type GitAuth } from './git.js';
import { buildTree, type InputFile, type Skipped, type TreeFilters } from './tree.js';
import { DOCUMENT_EXTENSIONS } from './documents.js';
import { describeMedia, isMediaExtension, type MediaInfo } from './media.js';
import { ZIP_LIMITS, isZip, readZip, zipError } from 'ctx/plugin';

export type Source =
  | { kind: 'upload'; filename: string; data: Buffer }
  | { kind: 'http'; url: URL }
  | { kind: 'git'; url: URL; ref?: string; auth?: GitAuth }
  | { kind: 'local'; file: string };

export interface Loaded {
  files: OutFile[];
  skipped: Skipped[];
  filtered: number;
  commit?: string;
  ref?: string;
  /** A single image or audio file. */
  media?: MediaInfo;
}

const stem = (name: string) => {
  const ext = extensionOf(name);
  return ext ? name.slice(0, -ext.length) : name;
};

/** The resource's name (its root directory) for a source. */
export function sourceName(src: Source): string {
  switch (src.kind) {
    case 'upload':
      return stem(src.filename);
    case 'git':
      return repoName(src.url);
    case 'local':
      return stem(path.basename(src.file));
    case 'http': {
      const last = decodeURIComponent(src.url.pathname.replace(/\/+$/, '').split('/').pop() ?? '');
      return stem(last) || src.url.hostname;
    }
  }
}

/** `images` or `audio` for a source named as a media file: the reference keeps media under those. */
export function mediaFolder(src: Source): string | null {
  const name = src.kind === 'upload' ? src.filename : src.kind === 'local' ? src.file : src.kind === 'http' ? src.url.pathname : '';
  const ext = extensionOf(name);
  if (!isMediaExtension(ext)) return null;
  return ['.wav', '.mp3', '.ogg', '.flac'].includes(ext) ? 'audio' : 'images';
}

/** What may be shown and stored of a source (never credentials or host paths beyond the file). */
export function sourceLabel(src: Source): string {
  return src.kind === 'upload' ? src.filename : src.kind === 'local' ? src.file : publicUrl(src.url);
}

/** `args.parse_mode` (the reference's): `default` splits large documents into sections, `no_split` does not. */
export function parseModeOf(args: Record<string, unknown>): 'default' | 'no_split' {
  const m = args.parse_mode ?? 'default';
  if (m !== 'default' && m !== 'no_split') throw invalidArgument('args.parse_mode must be one of: default, no_split', { field: 'args.parse_mode' });
  return m;
}

/** `args` the import understands: git credentials and branch (and `parse_mode`, any source). Anything else is refused. */
export function gitArgs(args: Record<string, unknown>): { ref?: string; auth?: GitAuth } {
  for (const k of Object.keys(args))
    if (k !== 'auth_config' && k !== 'ref' && k !== 'parse_mode') throw invalidArgument(`args.${k} is not an import option (known: auth_config, ref, parse_mode)`, { field: `args.${k}` });
  const out: { ref?: string; auth?: GitAuth } = {};
  if (args.ref !== undefined) {
    if (typeof args.ref !== 'string' || !/^[\w./-]{1,200}$/.test(args.ref)) throw invalidArgument('args.ref must be a branch or tag name', { field: 'args.ref' });
    out.ref = args.ref;
  }
  const a = args.auth_config;
  if (a !== undefined) {
    if (!a || typeof a !== 'object' || Array.isArray(a)) throw invalidArgument('args.auth_config must be {username?, token} or {username, password}', { field: 'args.auth_config' });
    const { username, token, password, ...rest } = a as Record<string, unknown>;
    if (Object.keys(rest).length) throw invalidArgument(`args.auth_config.${Object.keys(rest)[0]} is not known (username, token, password)`, { field: 'args.auth_config' });
    const secret = token ?? password;
    if (typeof secret !== 'string' || !secret || (username !== undefined && typeof username !== 'string'))
      throw invalidArgument('args.auth_config needs a token or password string', { field: 'args.auth_config' });
    out.auth = { username: (username as string | undefined) || 'oauth2', password: secret };
  }
  return out;
}

/** A `path` string: an http(s) URL (page, file or repository) or a host path. */
export function classifyPath(raw: string, args: Record<string, unknown>, importRoots: string[]): Source {
  const p = raw.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p) && !/^file:/i.test(p)) {
    let url: URL;
    try {
      url = new URL(p);
    } catch {
      throw invalidArgument(`path is not a valid URL: ${JSON.stringify(p.slice(0, 200))}`, { field: 'path' });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidArgument(`path: only http(s) URLs are imported, got ${url.protocol}`, { field: 'path' });
    const git = isGitUrl(url);
    const opts = gitArgs(args);
    if (!git && (opts.ref || opts.auth)) throw invalidArgument('args.auth_config and args.ref apply to git repositories only', { field: 'args' });
    // Credentials written into the URL are moved out of it, so the URL can be shown and stored.
    if (url.username || url.password) {
      if (!git) throw invalidArgument('credentials in the URL are only accepted for git repositories (or use args.auth_config)', { field: 'path' });
      opts.auth ??= { username: decodeURIComponent(url.username) || 'oauth2', password: decodeURIComponent(url.password) };
      url.username = '';
      url.password = '';
    }
    return git ? { kind: 'git', url, ...opts } : { kind: 'http', url };
  }
  if (/^(git@|ssh:)/i.test(p)) throw invalidArgument('path: only http(s) git URLs are cloned (no ssh)', { field: 'path' });
  gitArgs(args);
  const file = /^file:/i.test(p) ? decodeURIComponent(new URL(p).pathname) : p;
  if (!path.isAbsolute(file)) throw invalidArgument('path must be an http(s) URL, a git repository URL or an absolute host path (use temp_file_id to send a file)', { field: 'path' });
  if (!importRoots.length) throw permissionDenied('host-local paths are not imported: the operator allows none (CTX_IMPORT_ROOTS); upload the file and pass temp_file_id', { field: 'path' });
  return { kind: 'local', file };
}

/** The files of an upload or a downloaded file: a zip is a tree, anything else one file. */
async function fromBytes(name: string, data: Buffer, contentType: string | undefined, filters: TreeFilters, field: string): Promise<Loaded> {
  let rel = name;
  if (!extensionOf(rel)) rel += extensionFor(contentType);
  // A DOCX is a zip too: only other zips are trees.
  if (isZip(data) && !DOCUMENT_EXTENSIONS.has(extensionOf(rel))) {
    const entries = readZip(data);
    // A zip of one folder (what zipping a directory gives) imports that folder's content.
    const tops = new Set(entries.map((e) => e.name.split('/')[0]));
    const strip = tops.size === 1 && entries.every((e) => e.name.includes('/')) ? [...tops][0]! + '/' : '';
    return buildTree(entries.map((e) => ({ rel: e.name.slice(strip.length), data: e.data })), filters);
  }
  if (extensionOf(rel) === '.zip') throw zipError(`${JSON.stringify(name)} is named .zip but is not a zip archive`);
  const out = await convertSingle(rel, data, contentType, field, !filters.no_split);
  const media = out[0]?.media;
  // A lone image or sound gets a description beside it, so its metadata is what is found.
  if (media) return { files: [...out, { rel: `${rel}.md`, data: Buffer.from(describeMedia(rel, media)) }], skipped: [], filtered: 0, media };
  // A single document split into sections: the sections are the resource root's content.
  const dir = `${stem(rel)}/`;
  const files = out.every((f) => f.rel.startsWith(dir)) && out.length > 1 ? out.map((f) => ({ ...f, rel: f.rel.slice(dir.length) })) : out;
  return { files, skipped: [], filtered: 0 };
}

function extensionFor(contentType: string | undefined): string {
  const ct = (contentType ?? '').toLowerCase();
  if (/html/.test(ct)) return '.html';
  if (/markdown/.test(ct)) return '.md';
  if (/json/.test(ct)) return '.json';
  if (/yaml/.test(ct)) return '.yaml';
  if (/toml/.test(ct)) return '.toml';
  if (/application\/pdf/.test(ct)) return '.pdf';
  if (/wordprocessingml/.test(ct)) return '.docx';
  if (/^image\/(png|jpeg|gif|webp|bmp)/.test(ct)) return '.' + ct.slice(6).replace(/[;\s].*$/, '').replace('jpeg', 'jpg');
  return '.txt';
}

/** An upload, parsed and checked completely (in the request, before anything is written). */
export function loadUpload(src: Extract<Source, { kind: 'upload' }>, filters: TreeFilters): Promise<Loaded> {
  return fromBytes(src.filename, src.data, undefined, filters, 'temp_file_id');
}

/** What the fetching stage brings back: one file's bytes or a tree of files, not parsed yet. */
export type Fetched =
  | { kind: 'bytes'; name: string; data: Buffer; contentType?: string }
  | { kind: 'tree'; files: InputFile[]; skipped: Skipped[]; commit?: string; ref?: string };

/** The I/O of a remote or host source (the task's `fetching` stage). */
export async function fetchSource(src: Exclude<Source, { kind: 'upload' }>, ctx: { signal: AbortSignal; allowPrivate: boolean; importRoots: string[]; tmpRoot: string }): Promise<Fetched> {
  if (src.kind === 'http') {
    const d = await download(src.url, { signal: ctx.signal, allowPrivate: ctx.allowPrivate });
    const last = decodeURIComponent(d.url.pathname.replace(/\/+$/, '').split('/').pop() ?? '') || d.url.hostname;
    return { kind: 'bytes', name: last, data: d.data, contentType: d.contentType };
  }
  if (src.kind === 'git') {
    await checkRemote(src.url, ctx.allowPrivate);
    const c = await cloneRepo(src.url, { tmpRoot: ctx.tmpRoot, ref: src.ref, auth: src.auth, signal: ctx.signal, maxBytes: ZIP_LIMITS.totalBytes, allowPrivate: ctx.allowPrivate });
    return { kind: 'tree', files: c.files, skipped: c.skipped, commit: c.commit, ref: c.ref };
  }
  return readLocal(src.file, ctx.importRoots);
}

/** Fetched files into what is stored (the task's `parsing` stage). */
export async function parseFetched(f: Fetched, filters: TreeFilters): Promise<Loaded> {
  if (f.kind === 'bytes') return fromBytes(f.name, f.data, f.contentType, filters, 'path');
  const t = await buildTree(f.files, filters);
  return { ...t, skipped: [...f.skipped, ...t.skipped], ...(f.commit ? { commit: f.commit, ref: f.ref } : {}) };
}

/** The real path of `file` when it lies (after resolving links) below an allowed root; else 403/400. */
export async function checkLocalPath(file: string, roots: string[]): Promise<string> {
  const real = await fs.promises.realpath(file).catch(() => null);
  const allowed = await Promise.all(roots.map((r) => fs.promises.realpath(r).catch(() => null)));
  const inside = (p: string) => allowed.some((r) => r !== null && (p === r || p.startsWith(r.endsWith(path.sep) ? r : r + path.sep)));
  // The same answer for a missing path outside the roots as for an existing one: no probing of the host.
  if (!inside(real ?? path.resolve(file))) throw permissionDenied(`path is outside the host directories the operator allows (CTX_IMPORT_ROOTS): ${file}`, { field: 'path' });
  if (real === null) throw invalidArgument(`path does not exist on the host: ${file}`, { field: 'path' });
  return real;
}

async function readLocal(file: string, roots: string[]): Promise<Fetched> {
  const real = await checkLocalPath(file, roots);
  const st = await fs.promises.stat(real);
  if (st.isFile()) {
    if (st.size > ZIP_LIMITS.archiveBytes) throw invalidArgument(`${file} is larger than ${ZIP_LIMITS.archiveBytes} bytes`, { field: 'path' });
    return { kind: 'bytes', name: path.basename(real), data: await fs.promises.readFile(real) };
  }
  if (!st.isDirectory()) throw invalidArgument(`path is neither a file nor a directory: ${file}`, { field: 'path' });
  const files: InputFile[] = [];
  const skipped: Skipped[] = [];
  let total = 0;
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const d of await fs.promises.readdir(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      // Links are not followed: they could lead outside the allowed root.
      if (d.isSymbolicLink()) skipped.push({ path: r, reason: 'a symbolic link' });
      else if (d.isDirectory()) {
        if (d.name !== '.git') await walk(path.join(dir, d.name), r);
      } else if (d.isFile()) {
        const data = await fs.promises.readFile(path.join(dir, d.name));
        total += data.length;
        if (total > ZIP_LIMITS.totalBytes) throw invalidArgument(`the directory's files add up to more than ${ZIP_LIMITS.totalBytes} bytes`, { field: 'path' });
        files.push({ rel: r, data });
      } else skipped.push({ path: r, reason: 'a special file' });
    }
  };
  await walk(real, '');
  return { kind: 'tree', files, skipped };
}
