/**
 * grep and glob over the VFS. grep runs the pattern in core-native (Rust `regex`: linear time, no
 * backreferences or look-around; many buffers per call). glob patterns compile to one anchored
 * RegExp.
 */
import { CtxError, invalidArgument } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import type { PluginHost } from 'ctx/plugin';
import { canRead, isAncestorOrSelf, parseUri, type CtxUri } from 'ctx/plugin';
import { SIDECARS } from 'ctx/plugin';
import { grep, nativeErrorCode } from 'ctx/plugin';

export async function grepFiles(
  host: PluginHost,
  identity: Identity,
  u: CtxUri,
  o: {
    pattern: string;
    caseInsensitive: boolean;
    exclude?: string;
    limit: number;
    depth: number;
    readable: (identity: Identity, uri: string) => Promise<boolean>;
  },
): Promise<Array<{ uri: string; line: number; content: string }>> {
  const search = async (bufs: Buffer[], max: number) => {
    try {
      return (await grep.searchAsync(o.pattern, bufs, { caseInsensitive: o.caseInsensitive, maxMatches: max })).matches;
    } catch (err) {
      if (nativeErrorCode(err) === 'INVALID_REGEX')
        throw invalidArgument(`invalid regular expression: ${(err as Error).message}`, { field: 'pattern', code: 'INVALID_REGEX' });
      throw err;
    }
  };
  // A bad pattern is refused before the tree is walked.
  await search([], 1);
  const vfs = host.vfsFor(identity);
  // A root hidden by the entry rules holds nothing the caller may see: no matches, as before.
  if (!(await host.access.canReadPath(identity, u.path))) return [];
  const node = await vfs.stat(u.uri);
  if (!node) throw new CtxError('NOT_FOUND', `no such file or directory: ${u.uri}`, { resource: u.uri });
  const excluded = (p: string) => o.exclude !== undefined && isAncestorOrSelf(o.exclude, 'ctx://' + p);
  const ok = (p: string) => {
    try {
      return canRead(parseUri('ctx://' + p, identity), identity) && !excluded(p);
    } catch {
      return false;
    }
  };
  const files: string[] = [];
  if (node.kind === 'file') {
    if (!excluded(u.path)) files.push(u.path);
  } else
    for await (const e of vfs.walk(u.uri, { maxDepth: o.depth, descend: (d) => ok(d.path) })) {
      if (e.kind === 'file' && !SIDECARS.has(e.name) && ok(e.path)) files.push(e.path);
    }
  const matches: Array<{ uri: string; line: number; content: string }> = [];
  for (let i = 0; i < files.length && matches.length < o.limit; i += 128) {
    const slice = files.slice(i, i + 128);
    const ok = await Promise.all(slice.map((p) => o.readable(identity, 'ctx://' + p)));
    const chunk = slice.filter((_, j) => ok[j]);
    const bufs = (await vfs.readMany(chunk.map((p) => 'ctx://' + p))).map((b) => b ?? Buffer.alloc(0));
    const left = o.limit - matches.length;
    for (const m of await search(bufs, left)) matches.push({ uri: 'ctx://' + chunk[m.index]!, line: m.line, content: m.text });
  }
  return matches.slice(0, o.limit);
}

const GLOB_META = /[*?[{]/;

/**
 * Splits a pattern written as a whole URI (`ctx://resources/**\/*.md`, as the reference's clients
 * send it) into the literal directory it starts from and the pattern below it; null for a relative
 * pattern. A pattern without wildcards names one entry: its parent is the base.
 */
export function splitAbsoluteGlob(pattern: string): { base: string; rest: string } | null {
  if (!pattern.startsWith('ctx://')) return null;
  const segs = pattern.slice('ctx://'.length).split('/');
  while (segs.length > 1 && segs[segs.length - 1] === '') segs.pop();
  let i = segs.findIndex((seg) => GLOB_META.test(seg));
  if (i < 0) i = segs.length - 1;
  return { base: 'ctx://' + segs.slice(0, i).join('/'), rest: segs.slice(i).join('/') };
}

/**
 * Glob → RegExp over paths relative to the base URI: `**` any number of segments (also none),
 * `*` within a segment, `?` one character, `[abc]`/`[!abc]` classes, `{a,b}` alternatives.
 * `maxDepth` bounds the walk when the pattern has no `**`.
 */
export function compileGlob(pattern: string): { regex: RegExp; maxDepth: number } {
  let p = pattern.replace(/^\/+/, '');
  if (p.startsWith('ctx://')) throw invalidArgument('pattern is relative to uri here; split an absolute pattern with splitAbsoluteGlob first', { field: 'pattern' });
  let re = '';
  let depth = 1;
  let braces = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*') {
      if (p[i + 1] === '*') {
        const slash = p[i + 2] === '/';
        re += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
        depth = Infinity;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '/') {
      re += '/';
      depth++;
    } else if (c === '[') {
      const end = p.indexOf(']', i + 2);
      if (end < 0) throw invalidArgument('invalid glob: unclosed [', { field: 'pattern' });
      let cls = p.slice(i + 1, end).replace(/\\/g, '\\\\');
      if (cls.startsWith('!')) cls = '^' + cls.slice(1);
      re += `[${cls}]`;
      i = end;
    } else if (c === '{') {
      braces++;
      re += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      re += ')';
    } else if (c === ',' && braces > 0) re += '|';
    else re += c.replace(/[.+^$()|\\{}]/g, '\\$&');
  }
  if (braces) throw invalidArgument('invalid glob: unclosed {', { field: 'pattern' });
  p = re;
  try {
    return { regex: new RegExp(`^${p}$`, 'u'), maxDepth: depth };
  } catch (err) {
    throw invalidArgument(`invalid glob: ${(err as Error).message}`, { field: 'pattern' });
  }
}
