/** URI resolution and the naming rules of content writes (spec Part 2, "Content" and "Limits"). */
import { CtxError, invalidArgument } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import { authorize, isRecordId, parseUri, spaceRootDepth, uriFromPath, type CtxUri } from 'ctx/plugin';
import { SIDECARS } from 'ctx/plugin';
import type { ScopedVfs } from 'ctx/plugin';

// Re-exported: the write paths of this plugin import them from here.
export { TEXT_EXTENSIONS, extensionOf, hasTextExtension } from 'ctx/plugin';
export const ABSTRACT = '.abstract.md';
export const OVERVIEW = '.overview.md';
export const RELATIONS = '.relations.json';

/**
 * Parses and authorizes a public URI. A write target may be a sidecar itself (content/write edits
 * one; the callers apply the sidecar rules) but never lie below one: the write would create a
 * directory with a sidecar's name, and a directory called `.relations.json` blocks the relations
 * of its parent (fs/mkdir and fs/mv refuse the same).
 */
export function resolveUri(input: unknown, identity: Identity, access: 'read' | 'write', field = 'uri'): CtxUri {
  const u = parseUri(input, identity, { field });
  authorize(u, identity, access);
  if (access === 'write') {
    const bad = u.segments.slice(0, -1).find((seg) => SIDECARS.has(seg));
    if (bad !== undefined)
      throw invalidArgument(`${field} ${u.uri}: ${bad} is a sidecar file name and cannot be a directory`, { field, resource: u.uri, sidecar: bad });
  }
  return u;
}

/**
 * A file URI or a 32-hex record id (read, download), resolved and checked against the per-entry
 * rules (`check`). An id resolves through the VFS record index; an id the caller may not read,
 * by namespace or because it lies in an `access: denied` subtree, answers NOT_FOUND like an unknown
 * one (as fs/stat does), so ids can neither probe other spaces nor reveal a hidden file's URI.
 */
export async function resolveReadTarget(input: string, identity: Identity, vfs: ScopedVfs, check: (uri: string) => Promise<void>): Promise<CtxUri> {
  if (!isRecordId(input)) {
    const u = resolveUri(input, identity, 'read');
    await check(u.uri);
    // `ctx://session/{id}/...` falls back to an unmigrated legacy session (read-only alias): the
    // scoped view's reads of `u.aliasOf` follow it.
    return u;
  }
  const found = await vfs.uriOfRecordId(input);
  const path = found === null ? null : found.slice('ctx://'.length);
  const missing = () => new CtxError('NOT_FOUND', `no indexed record with id ${input} (unindexed or deleted)`, { id: input });
  if (path === null) throw missing();
  let u: CtxUri;
  try {
    u = resolveUri(uriFromPath(path), identity, 'read');
    await check(u.uri);
  } catch (err) {
    if (err instanceof CtxError && (err.code === 'PERMISSION_DENIED' || err.code === 'INVALID_URI' || err.code === 'INVALID_ARGUMENT')) throw missing();
    throw err;
  }
  return u;
}


/** Rejects URIs a file cannot live at (containers such as `ctx://user/u`, scope roots). */
export function assertFileLocation(u: CtxUri): void {
  if (u.contextType === null || u.segments.length <= spaceRootDepth(u))
    throw invalidArgument(`cannot write a file at ${u.uri}: files live below a resources, memories, skills or sessions space`, { resource: u.uri });
}

/** Tags are strict `k=v`: a non-empty key without `=`, no control characters. */
