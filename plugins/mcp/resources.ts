/**
 * ctx:// URIs as MCP resources. `resources/list` pages through everything the caller may read
 * (depth-first from ctx://, 100 per page); `ctx://{+path}{?level}` reads any URI at L0/L1/L2 (a
 * directory's abstract, overview, or overview with entries; a file's text).
 */
import { authorize, invalidArgument, parseUri } from 'ctx/plugin';
import type { ToolContext } from './tool.js';
import { readAt, type Entry } from './tools/files.js';

const PAGE = 100;

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: 'ctx://{+path}{?level}',
    name: 'ctx-uri',
    title: 'Any ctx:// URI at a level',
    description: 'A file\'s text, or a directory at level 0 (abstract), 1 (overview) or 2 (overview and entries, the default).',
    mimeType: 'text/markdown',
  },
];

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const o = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown }).o;
    if (Number.isInteger(o) && (o as number) >= 0) return o as number;
  } catch {
    // answered below
  }
  throw invalidArgument('cursor is not one this server gave out', { field: 'cursor' });
}

export async function listResources(c: ToolContext, cursor: string | undefined) {
  const offset = decodeCursor(cursor);
  const entries = (await c.call({ method: 'GET', path: '/api/v1/fs/ls', query: { uri: 'ctx://', recursive: true, offset, limit: PAGE, node_limit: PAGE, abs_limit: 200 } })) as Entry[];
  const resources = entries
    .filter((e) => e.access !== 'denied')
    .map((e) => ({
      uri: e.uri,
      name: e.rel_path ?? e.name,
      ...(e.abstract ? { description: e.abstract } : {}),
      mimeType: e.isDir ? 'text/markdown' : mimeOf(e.name),
      ...(e.isDir ? {} : { size: e.size }),
    }));
  return { resources, ...(entries.length === PAGE ? { nextCursor: encodeCursor(offset + PAGE) } : {}) };
}

/** `ctx://a/b?level=1` → the ctx URI and the level (the query is this template's, not ctx's). */
export function splitResourceUri(uri: string): { uri: string; level: 0 | 1 | 2 } {
  const q = uri.indexOf('?');
  if (q < 0) return { uri, level: 2 };
  const params = new URLSearchParams(uri.slice(q + 1));
  const raw = params.get('level') ?? '2';
  if (!/^[012]$/.test(raw)) throw invalidArgument(`level must be 0, 1 or 2, got ${JSON.stringify(raw)}`, { field: 'level' });
  return { uri: uri.slice(0, q), level: Number(raw) as 0 | 1 | 2 };
}

export async function readResource(c: ToolContext, resourceUri: string) {
  const { uri, level } = splitResourceUri(resourceUri);
  const r = await readAt(c, uri, level);
  return { contents: [{ uri: resourceUri, mimeType: r.kind === 'dir' ? 'text/markdown' : mimeOf(uri), text: r.content }] };
}

/**
 * The internal path a subscription watches, once the caller is known to be allowed to read it (by
 * the namespace and entry rules a read applies). It need not exist yet: a client may wait for it.
 */
export async function subscriptionTarget(c: ToolContext, resourceUri: string): Promise<string> {
  const { uri } = splitResourceUri(resourceUri);
  const u = parseUri(uri, c.identity);
  authorize(u, c.identity, 'read');
  await c.host.access.assertEntryReadable(c.identity, u.path);
  return u.path;
}

function mimeOf(name: string): string {
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  if (ext === 'md' || ext === 'markdown') return 'text/markdown';
  if (ext === 'json') return 'application/json';
  if (ext === 'html' || ext === 'htm') return 'text/html';
  return 'text/plain';
}
