/**
 * A directory tree (zip, git checkout, host directory) into the files a resource stores:
 * `include`/`exclude` globs and `ignore_dirs` applied, `.git` and the indexer's own sidecars never
 * imported, each file converted (convert.ts); what cannot be stored is skipped with its reason.
 */
import { SIDECARS, invalidArgument } from 'ctx/plugin';
import { Unsupported, convertAny, type OutFile } from './convert.js';
import { describeMedia } from './media.js';

export interface InputFile {
  rel: string;
  data: Buffer;
}

export interface TreeFilters {
  include?: string | null;
  exclude?: string | null;
  ignore_dirs?: string | null;
  /** A file of the tree that cannot be stored fails the import instead of being skipped (the reference's `strict`). */
  strict?: boolean;
  /** false: every file directly in the resource root under its own name (the reference's `preserve_structure`). */
  preserve_structure?: boolean | null;
  /**
   * false: images and sounds of a tree are processed as a single media upload is, with a Markdown
   * description beside each (`{file}.md`); true (the default): stored as they are.
   */
  directly_upload_media?: boolean;
  /** `args.parse_mode: no_split`: documents are converted but never split into sections. */
  no_split?: boolean;
}

export interface Skipped {
  path: string;
  reason: string;
}

export const MAX_TREE_FILES = 20_000;

/** `*`, `**`, `?` and `{a,b}` globs; a pattern without `/` matches the file name at any depth. */
export function globMatcher(list: string | null | undefined, field: string): ((rel: string) => boolean) | null {
  // Commas inside `{a,b}` belong to the pattern, not the list.
  const patterns = (list ?? '').split(/,(?![^{]*\})/).map((p) => p.trim()).filter(Boolean);
  if (!patterns.length) return null;
  const res = patterns.map((p) => {
    if (p.length > 512) throw invalidArgument(`${field}: a pattern is longer than 512 characters`, { field });
    let re = '';
    for (let i = 0; i < p.length; i++) {
      const c = p[i]!;
      if (c === '*' && p[i + 1] === '*') {
        i++;
        if (p[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else re += '.*';
      } else if (c === '*') re += '[^/]*';
      else if (c === '?') re += '[^/]';
      else if (c === '{') {
        const end = p.indexOf('}', i);
        if (end < 0) throw invalidArgument(`${field}: unclosed "{" in ${JSON.stringify(p)}`, { field });
        re += '(?:' + p.slice(i + 1, end).split(',').map(escape).join('|') + ')';
        i = end;
      } else re += escape(c);
    }
    return { base: !p.includes('/'), re: new RegExp(`^${re}$`) };
  });
  return (rel) => res.some(({ base, re }) => re.test(base ? rel.slice(rel.lastIndexOf('/') + 1) : rel));
}

const escape = (s: string) => s.replace(/[.+^$()|[\]\\]/g, '\\$&');

/** Why a path segment cannot be a ctx:// name, or null. */
function segmentProblem(seg: string): string | null {
  if (seg === '' || seg === '.' || seg === '..') return 'an empty, "." or ".." name';
  if (/[\x00-\x1f\x7f\\%\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(seg)) return 'a character not allowed in a ctx:// URI';
  if (Buffer.byteLength(seg) > 255) return 'a name longer than 255 bytes';
  return null;
}

export async function buildTree(input: InputFile[], filters: TreeFilters): Promise<{ files: OutFile[]; skipped: Skipped[]; filtered: number }> {
  const include = globMatcher(filters.include, 'include');
  const exclude = globMatcher(filters.exclude, 'exclude');
  const ignored = new Set((filters.ignore_dirs ?? '').split(',').map((d) => d.trim().replace(/^\/+|\/+$/g, '')).filter(Boolean));
  const skipped: Skipped[] = [];
  const files: OutFile[] = [];
  const taken = new Map<string, 'file' | 'dir'>();
  let filtered = 0;
  const flat = filters.preserve_structure === false;
  for (const f of [...input].sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0))) {
    const segs = f.rel.split('/');
    const name = segs[segs.length - 1]!;
    if (segs.includes('.git') || SIDECARS.has(name)) continue;
    if (segs.slice(0, -1).some((d) => ignored.has(d)) || segs.slice(0, -1).some((_, i) => ignored.has(segs.slice(0, i + 1).join('/')))) {
      filtered++;
      continue;
    }
    if ((include && !include(f.rel)) || (exclude && exclude(f.rel))) {
      filtered++;
      continue;
    }
    const bad = segs.map(segmentProblem).find((p) => p !== null);
    if (bad) {
      skipped.push({ path: f.rel, reason: bad });
      continue;
    }
    let out: OutFile[];
    try {
      out = await convertAny(f.rel, f.data, undefined, !filters.no_split);
    } catch (err) {
      if (!(err instanceof Unsupported)) throw err;
      skipped.push({ path: f.rel, reason: err.message });
      continue;
    }
    if (filters.directly_upload_media === false) out = out.flatMap((o) => (o.media ? [o, { rel: `${o.rel}.md`, data: Buffer.from(describeMedia(o.rel.slice(o.rel.lastIndexOf('/') + 1), o.media)) }] : [o]));
    // Every output of a file lies below the file's own directory (a split document is a directory
    // beside it), so flattening drops that directory and keeps the rest.
    const dir = f.rel.slice(0, f.rel.lastIndexOf('/') + 1);
    if (flat && dir) out = out.map((o) => ({ ...o, rel: o.rel.slice(dir.length) }));
    const clash = out.find((o) => clashes(taken, o.rel));
    if (clash) {
      skipped.push({ path: f.rel, reason: `its stored name ${JSON.stringify(clash.rel)} is taken by another file of the tree` });
      continue;
    }
    for (const o of out) claim(taken, o.rel);
    files.push(...out);
    if (files.length > MAX_TREE_FILES) throw invalidArgument(`the source has more than ${MAX_TREE_FILES} files to import; narrow it with include, exclude or ignore_dirs`, { max: MAX_TREE_FILES });
  }
  if (filters.strict && skipped.length) {
    const shown = skipped.slice(0, 10).map((x) => `${x.path} (${x.reason})`).join('; ');
    throw invalidArgument(`strict: ${skipped.length} file(s) of the source cannot be imported: ${shown}${skipped.length > 10 ? '; …' : ''}`, { field: 'strict', skipped: skipped.slice(0, 50) });
  }
  return { files, skipped, filtered };
}

function clashes(taken: Map<string, 'file' | 'dir'>, rel: string): boolean {
  if (taken.has(rel)) return true;
  const segs = rel.split('/');
  for (let i = 1; i < segs.length; i++) if (taken.get(segs.slice(0, i).join('/')) === 'file') return true;
  return false;
}

function claim(taken: Map<string, 'file' | 'dir'>, rel: string): void {
  const segs = rel.split('/');
  for (let i = 1; i < segs.length; i++) taken.set(segs.slice(0, i).join('/'), 'dir');
  taken.set(rel, 'file');
}
