/** abstract, overview, read and download (spec Part 2, "Content"). */
import { invalidArgument, notFound } from 'ctx/plugin';
import { JsonResult, Reply, contentDisposition } from 'ctx/plugin';
import { jsonStringResult } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import { splitHeader, uriFromPath } from 'ctx/plugin';
import type { ScopedVfs } from 'ctx/plugin';
import { ABSTRACT, OVERVIEW, resolveReadTarget, resolveUri } from './targets.js';

/** Piece size of streamed downloads: large enough for few native writes, small enough to pace. */
const DOWNLOAD_CHUNK = 256 * 1024;
/** From this size a whole-file read skips the JS string (below it the native call is not worth it). */
const FAST_READ_BYTES = 64 * 1024;
const HEADER_OPEN = Buffer.from('<!-- ctx:');

/** L0 or L1 text of a directory, without the metadata header; '' until one has been generated. */
export async function readSidecar(vfs: ScopedVfs, identity: Identity, input: string, which: 'abstract' | 'overview', check: (uri: string) => Promise<void>): Promise<string> {
  const u = resolveUri(input, identity, 'read');
  await check(u.uri);
  const node = await vfs.stat(u.uri);
  if (!node) throw notFound(`no such directory: ${u.uri}`, { resource: u.uri });
  if (node.kind !== 'dir')
    throw invalidArgument(`${which} needs a directory URI, got a file: ${u.uri}`, { expected: 'directory', actual: 'file', resource: u.uri });
  const path = (u.path === '' ? '' : u.path + '/') + (which === 'abstract' ? ABSTRACT : OVERVIEW);
  const side = await vfs.stat(uriFromPath(path));
  if (!side || side.kind !== 'file') return '';
  return splitHeader((await vfs.readFile(uriFromPath(path))).toString('utf8')).body;
}

export interface ReadQuery {
  uri: string;
  offset: number;
  limit: number;
  raw: boolean;
}

export async function readContent(vfs: ScopedVfs, identity: Identity, q: ReadQuery, check: (uri: string) => Promise<void>): Promise<string | JsonResult> {
  const u = await resolveReadTarget(q.uri, identity, vfs, check);
  const bytes = await vfs.readFile(u.aliasOf ?? u.uri);
  // Whole large files go out as JSON bytes built from the stored bytes (no JS string round trip).
  if (bytes.length >= FAST_READ_BYTES && q.offset === 0 && q.limit < 0 && (q.raw || u.contextType !== 'memory' || !bytes.subarray(0, HEADER_OPEN.length).equals(HEADER_OPEN)))
    return jsonStringResult(bytes);
  let text = bytes.toString('utf8');
  // Memory files carry their fields in a header; agents read the memory itself unless raw.
  if (!q.raw && u.contextType === 'memory') text = splitHeader(text).body;
  if (q.offset === 0 && q.limit < 0) return text;
  return sliceLines(text, q.offset, q.limit);
}

/** Lines [offset, offset+limit) joined by '\n'; limit -1 reads to the end. Scans without splitting it all. */
export function sliceLines(text: string, offset: number, limit: number): string {
  let start = 0;
  for (let i = 0; i < offset; i++) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) return '';
    start = nl + 1;
  }
  if (limit < 0) return text.slice(start);
  let end = start;
  for (let i = 0; i < limit; i++) {
    const nl = text.indexOf('\n', end);
    if (nl < 0) return text.slice(start);
    end = nl + 1;
  }
  return text.slice(start, Math.max(start, end - 1));
}

export async function download(vfs: ScopedVfs, identity: Identity, input: string, check: (uri: string) => Promise<void>): Promise<Reply> {
  const u = await resolveReadTarget(input, identity, vfs, check);
  const data = await vfs.readFile(u.aliasOf ?? u.uri);
  return Reply.raw(chunks(data), {
    contentType: 'application/octet-stream',
    headers: { 'content-disposition': contentDisposition(u.name) },
    size: data.length,
  });
}

async function* chunks(data: Buffer): AsyncIterable<Uint8Array> {
  for (let i = 0; i < data.length; i += DOWNLOAD_CHUNK) yield data.subarray(i, Math.min(data.length, i + DOWNLOAD_CHUNK));
}
