/** `POST /api/v1/content/write` (spec Part 2, "Content": write body and rules). */
import type { IndexHint } from 'ctx/plugin';
import { CtxError, conflict, invalidArgument, notFound } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import type { PluginHost, ScopedVfs } from 'ctx/plugin';
import { SIDECAR_META_FIELDS, splitHeader, withHeader } from 'ctx/plugin';
import { splitPath, uriFromPath } from 'ctx/plugin';
import { indexingReport, type IndexingReport } from './indexing.js';
import { checkOptionalTags as checkTags } from 'ctx/plugin';
import { ABSTRACT, OVERVIEW, RELATIONS, TEXT_EXTENSIONS, assertFileLocation, hasTextExtension, resolveUri } from './targets.js';
import { rootUriOf } from 'ctx/plugin';

export interface WriteBody {
  uri: string;
  content: string;
  mode: 'replace' | 'append' | 'create';
  wait: boolean;
  timeout?: number | null;
  tags?: string[];
  tag_mode: 'replace' | 'append';
}

export interface WriteResult extends IndexingReport {
  uri: string;
  root_uri: string;
  context_type: string;
  mode: string;
  written_bytes: number;
  content_updated: boolean;
}

/** Marks a change event as a user edit of a directory's sidecar (see the commit hook in index.ts). */


export async function writeContent(host: PluginHost, identity: Identity, body: WriteBody, check: (uri: string) => Promise<void>, signal?: AbortSignal): Promise<WriteResult> {
  const u = resolveUri(body.uri, identity, 'write');
  assertFileLocation(u);
  await check(u.uri);
  const account = identity.accountId;
  if (u.name === RELATIONS) throw invalidArgument(`${u.uri}: .relations.json is derived from the relations API and cannot be written`, { resource: u.uri });
  checkTags(body.tags);
  let writtenBytes: number;
  let updated: boolean;
  if (u.name === ABSTRACT || u.name === OVERVIEW) {
    if (body.tags !== undefined) throw invalidArgument('sidecars carry no tags; tag the directory with set_tags', { field: 'tags' });
    ({ writtenBytes, updated } = await writeSidecar(host.vfsFor(identity), u.path, u.uri, body));
  } else {
    if ((body.mode === 'create' || u.contextType === 'memory') && !hasTextExtension(u.name))
      throw invalidArgument(
        `${u.uri}: ${u.contextType === 'memory' ? 'memory files' : 'mode create'} accepts only the extensions ${TEXT_EXTENSIONS.join(' ')}`,
        { field: 'uri', resource: u.uri, allowed: TEXT_EXTENSIONS },
      );
    const out = await host.vfsFor(identity).writeFile(u.uri, Buffer.from(body.content, 'utf8'), {
      mode: body.mode,
      tags: body.tags,
      tagMode: body.tag_mode,
      hint: body.tags === undefined ? undefined : { tags: body.tags, tag_mode: body.tag_mode },
    });
    writtenBytes = out.writtenBytes;
    // Tags alone are not content: `content_updated` says whether the bytes changed.
    updated = out.created || out.changed;
    if (!updated) writtenBytes = 0;
  }
  const report = await indexingReport(host, account, u.path, {
    wait: body.wait,
    timeoutMs: body.timeout == null ? undefined : body.timeout * 1000,
    signal,
    kind: 'file',
  });
  return {
    uri: u.uri,
    root_uri: rootUriOf(u),
    context_type: u.contextType!,
    mode: body.mode,
    written_bytes: writtenBytes,
    content_updated: updated,
    ...report,
  };
}

/**
 * Sidecars of existing directories: the body may be replaced or appended to, never created. A
 * body-only request keeps the stored header; a request with a header must carry the stored values
 * of the known fields (unknown fields are dropped). Only the directory's L0/L1 vectors are rebuilt.
 */
async function writeSidecar(vfs: ScopedVfs, path: string, uri: string, body: WriteBody): Promise<{ writtenBytes: number; updated: boolean }> {
  const dirPath = splitPath(path)[0];
  const dir = await vfs.stat(uriFromPath(dirPath));
  if (!dir || dir.kind !== 'dir')
    throw notFound(`${uri}: the directory does not exist; sidecars of existing directories may be updated but not created`, { resource: uri });
  const lock = await vfs.lock(uri, 'path');
  try {
    const node = await vfs.stat(uri);
    if (!node) throw notFound(`${uri} does not exist yet; sidecars are created by mkdir and semantic processing, and may then be updated`, { resource: uri });
    if (body.mode === 'create') throw conflict(`file exists: ${uri}`, uri);
    const stored = splitHeader((await vfs.readFile(uri)).toString('utf8'));
    const given = splitHeader(body.content);
    if (given.header) {
      const known = (f: Record<string, unknown> | undefined) =>
        Object.fromEntries(SIDECAR_META_FIELDS.filter((k) => f && k in f).map((k) => [k, f![k]]));
      const want = known(stored.header?.fields);
      const got = known(given.header.fields);
      for (const k of new Set([...Object.keys(want), ...Object.keys(got)]))
        if (JSON.stringify(want[k]) !== JSON.stringify(got[k]))
          throw new CtxError('CONFLICT', `${uri}: metadata field ${k} does not match the stored value; send the body alone to keep the stored metadata`, {
            resource: uri,
            field: k,
            stored: want[k] ?? null,
            given: got[k] ?? null,
          });
    }
    const newBody = body.mode === 'append' ? stored.body + given.body : given.body;
    const text = withHeader('meta', stored.header?.fields ?? null, newBody);
    const out = await vfs.writeFile(uri, Buffer.from(text, 'utf8'), { mode: 'replace', lock, hint: { index: 'sidecar-edited' satisfies IndexHint } });
    return { writtenBytes: out.changed ? Buffer.byteLength(given.body) : 0, updated: out.changed };
  } finally {
    lock.release();
  }
}
