/** stat, attrs, mkdir, rm and mv (spec Part 2, "File system"; mv is not in the spec). */
import { rootUriOf, spaceRootDepth, type IndexHint } from 'ctx/plugin';
import { CtxError, JsonText, conflict, invalidArgument, notFound } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import type { PluginHost } from 'ctx/plugin';
import { authorize, isRecordId, isSessionAlias, parseUri, sessionReadTarget, uriFromPath, type CtxUri } from 'ctx/plugin';
import { TEXT_EXTENSIONS, hasTextExtension } from 'ctx/plugin';
import { splitHeader, withHeader } from 'ctx/plugin';
import { SIDECARS } from 'ctx/plugin';
import { assertEntryAccess, deniedError, deniedNode } from './access.js';
import { isoTime } from './entries.js';
import { countsFor } from './count.js';
import type { RestrictedIndex } from './restricted.js';

/** Parses and authorizes a public URI, then applies the per-entry rules (403 on denied entries). */
export async function resolve(host: PluginHost, identity: Identity, input: unknown, access: 'read' | 'write', field = 'uri'): Promise<CtxUri> {
  const u = parseUri(input, identity, { field });
  authorize(u, identity, access);
  return entryRules(host, identity, u, access);
}

/** `resolve` after parsing and authorizing. */
async function entryRules(host: PluginHost, identity: Identity, u: CtxUri, access: 'read' | 'write'): Promise<CtxUri> {
  // Only a USER below ctx://resources has reader lists to check: nothing to await otherwise.
  if (identity.role === 'USER' && u.path.startsWith('resources/')) await assertEntryAccess(host.unscopedVfs, identity, u.path);
  // `ctx://session/{id}` reads fall back to an unmigrated legacy session (the alias is read-only).
  return access === 'read' ? sessionReadTarget(host.unscopedVfs, identity, u) : u;
}

/** Whether `entryRules` has anything to read for this read of `u` (else `u` is the answer). */
const readNeedsStorage = (identity: Identity, u: CtxUri) => (identity.role === 'USER' && u.path.startsWith('resources/')) || isSessionAlias(u);

export interface StatResult {
  name: string;
  size: number;
  mode: number;
  modTime: string;
  isDir: boolean;
  isLocked: boolean;
  id?: string;
  uri: string;
  count?: number;
}

/** The stat answer (`StatResult`), already as its JSON text. */
export async function stat(host: PluginHost, restricted: RestrictedIndex, identity: Identity, input: string): Promise<JsonText> {
  const account = identity.accountId;
  const vfs = host.unscopedVfs;
  let u: CtxUri;
  // A URI is never 32 characters of hex: only an input of that length can be a record id.
  if (input.length === 32 && isRecordId(input)) {
    // An id the caller may not read answers like an unknown one: ids cannot probe other spaces.
    const missing = () => notFound(`no indexed record with id ${input} (unindexed or deleted)`, { id: input });
    const path = await vfs.pathOfRecordId(account, input);
    if (path === null) throw missing();
    try {
      u = await resolve(host, identity, uriFromPath(path), 'read');
    } catch {
      throw missing();
    }
  } else {
    u = parseUri(input, identity);
    authorize(u, identity, 'read');
    if (readNeedsStorage(identity, u)) u = await entryRules(host, identity, u, 'read');
  }
  // The common case, a node whose metadata is in memory, runs without a single await: the stat
  // floor is per-request CPU (bench/RESULTS.md, issue 27 item 2).
  const node = vfs.peekStat(account, u.path) ?? (await vfs.statShared(account, u.path));
  if (!node) throw notFound(`no such file or directory: ${u.uri}`, { resource: u.uri });
  const isLocked = vfs.locks.isLocked(account, u.path);
  if (node.kind === 'file') return new JsonText(statJson({ name: node.name, size: node.size, mode: node.mode, modTime: isoTime(node.mtime), isDir: false, isLocked, id: node.id, uri: u.uri }));
  const out: StatResult = { name: node.name, size: node.size, mode: node.mode, modTime: isoTime(node.mtime), isDir: true, isLocked, uri: u.uri };
  const count = (await countsFor(host, restricted, identity, [u.path]))?.get(u.path);
  if (count !== undefined) out.count = count;
  return new JsonText(statJson(out));
}

/**
 * `JSON.stringify(r)` of a stat answer, byte for byte (test/fs/stat-json.test.ts), written out
 * field by field: the answer's fixed shape makes this ~0.5 µs where JSON.stringify was ~3.5 µs of a
 * ~50 µs authenticated fs/stat under `perf` (bench/RESULTS.md, issue 27 item 2).
 */
export function statJson(r: StatResult): string {
  let out = `{"name":${jsonString(r.name)},"size":${jsonNumber(r.size)},"mode":${jsonNumber(r.mode)},"modTime":${jsonString(r.modTime)},"isDir":${r.isDir},"isLocked":${r.isLocked}`;
  if (r.id !== undefined) out += `,"id":${jsonString(r.id)}`;
  out += `,"uri":${jsonString(r.uri)}`;
  if (r.count !== undefined) out += `,"count":${jsonNumber(r.count)}`;
  return out + '}';
}

/** A JSON string literal: printable ASCII without quotes or backslashes as is, the rest through JSON.stringify. */
function jsonString(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(s);
  }
  return '"' + s + '"';
}

const jsonNumber = (n: number): string => (Number.isFinite(n) ? String(n) : 'null');

export async function attrs(host: PluginHost, identity: Identity, input: string) {
  const u = await resolve(host, identity, input, 'read');
  const node = await host.unscopedVfs.stat(identity.accountId, u.path);
  if (!node) throw notFound(`no such file or directory: ${u.uri}`, { resource: u.uri });
  const contextType = u.contextType === 'memory' ? 'memory' : 'resource';
  const result: { uri: string; context_type: string; attrs: { tags: string[]; memory?: Record<string, unknown> } } = {
    uri: u.uri,
    context_type: contextType,
    attrs: { tags: node.tags ?? [] },
  };
  if (contextType === 'memory' && node.kind === 'file') {
    const { header } = splitHeader((await host.unscopedVfs.readFile(identity.accountId, u.path)).toString('utf8'));
    result.attrs.memory = header?.kind === 'memory' ? header.fields : {};
  }
  return result;
}

/**
 * Sidecars belong to the service: `.abstract.md`/`.overview.md` hold the generated L0/L1 (content/write
 * may edit an existing one, nothing may create one) and `.relations.json` is derived from the
 * relations API. A sidecar name anywhere in a path an fs operation would create also counts: a
 * directory called `.relations.json` would break every later relations write of its parent.
 */
function refuseSidecarPath(u: CtxUri, field: string): void {
  const bad = u.segments.find((seg) => SIDECARS.has(seg));
  if (bad !== undefined) throw sidecarError(u, field, bad);
}

function sidecarError(u: CtxUri, field: string, name: string): CtxError {
  const why = name === '.relations.json' ? 'it is derived from the relations API (relations/link, DELETE relations/link)' : 'the service generates it (content/write edits an existing one)';
  return invalidArgument(`${field} ${u.uri}: ${name} cannot be created, moved or removed through fs, ${why}`, { field, resource: u.uri, sidecar: name });
}

export async function mkdir(host: PluginHost, identity: Identity, body: { uri: string; description?: string }): Promise<{ uri: string }> {
  const u = await resolve(host, identity, body.uri, 'write');
  const account = identity.accountId;
  refuseSidecarPath(u, 'uri');
  // mkdir of an existing directory succeeds and changes nothing (its L0 stays, even with another
  // `description`): the reference's clients call it to make sure a directory is there (`mkdir -p`).
  if (u.path === '') return { uri: u.uri };
  // The path lock keeps two mkdirs of one directory from both passing the existence check.
  const lock = await host.unscopedVfs.locks.acquire(account, u.path, 'path', 'fs.mkdir');
  try {
    const existing = await host.unscopedVfs.stat(account, u.path);
    if (existing?.kind === 'file') throw conflict(`a file exists at ${u.uri}`, u.uri);
    if (existing) return { uri: u.uri };
    const text = withHeader('meta', { uri: u.uri, level: 0, generator: 'mkdir' }, body.description ?? u.name);
    // One atomic batch creates the directory, its missing ancestors, its L0 and (mkdir-indexing.ts)
    // the Semantic message that gets the L0 vectorized.
    await host.unscopedVfs.writeFile(account, `${u.path}/.abstract.md`, Buffer.from(text, 'utf8'), { mode: 'create', hint: { index: 'dir-created' satisfies IndexHint } });
  } finally {
    lock.release();
  }
  return { uri: u.uri };
}

export async function rm(host: PluginHost, identity: Identity, q: { uri: string; recursive: boolean }) {
  const u = await resolve(host, identity, q.uri, 'write');
  if (u.path === '' || u.path === 'resources' || u.path === 'user') throw invalidArgument(`cannot remove the scope root ${u.uri}`, { resource: u.uri });
  if (SIDECARS.has(u.name)) {
    // A directory with a sidecar's name can only come from before these checks existed: removing it repairs the parent.
    const node = await host.unscopedVfs.stat(identity.accountId, u.path);
    if (node?.kind !== 'dir') throw sidecarError(u, 'uri', u.name);
  }
  if (identity.role === 'USER' && u.scope === 'resources' && q.recursive) {
    // Removing a tree would destroy entries this caller may not even read: refuse instead.
    for await (const e of host.unscopedVfs.walk(identity.accountId, u.path, { descend: (d) => !deniedNode(d, identity) }))
      if (deniedNode(e, identity)) throw deniedError(u.uri, identity, e.path);
  }
  const out = await host.unscopedVfs.rm(identity.accountId, u.path, { recursive: q.recursive });
  return { uri: u.uri, deleted_count: out.deleted };
}

export async function mv(host: PluginHost, identity: Identity, body: { from_uri: string; to_uri: string }) {
  const from = await resolve(host, identity, body.from_uri, 'write', 'from_uri');
  const to = await resolve(host, identity, body.to_uri, 'write', 'to_uri');
  for (const [u, field] of [[from, 'from_uri'], [to, 'to_uri']] as const)
    if (u.contextType === null || u.segments.length <= spaceRootDepth(u))
      throw invalidArgument(`${field} must name a node inside a resources, memories, skills or sessions space, got ${u.uri}`, { field, resource: u.uri });
  if (from.contextType !== to.contextType)
    throw invalidArgument(`cannot move a ${from.contextType} (${from.uri}) into a ${to.contextType} space (${to.uri})`, { field: 'to_uri', resource: to.uri });
  if (from.path === to.path) throw invalidArgument('from_uri and to_uri are the same', { field: 'to_uri' });
  if (SIDECARS.has(from.name)) throw sidecarError(from, 'from_uri', from.name);
  refuseSidecarPath(to, 'to_uri');
  const node = await host.unscopedVfs.stat(identity.accountId, from.path);
  if (!node) throw notFound(`no such file or directory: ${from.uri}`, { resource: from.uri, field: 'from_uri' });
  // Memory files keep the text allowlist in every mode (spec Part 2, "Limits"); a rename is one more way to name a file.
  if (node.kind === 'file' && to.contextType === 'memory' && !hasTextExtension(to.name))
    throw invalidArgument(`to_uri ${to.uri}: memory files accept only the extensions ${TEXT_EXTENSIONS.join(' ')}`, { field: 'to_uri', resource: to.uri, allowed: TEXT_EXTENSIONS });
  try {
    await host.unscopedVfs.mv(identity.accountId, from.path, to.path);
  } catch (err) {
    // The VFS names its own fields; keep the URIs the caller sent in the details.
    if (err instanceof CtxError && err.code === 'NOT_FOUND') throw notFound(`no such file or directory: ${from.uri}`, { resource: from.uri, field: 'from_uri' });
    throw err;
  }
  return { from: from.uri, to: to.uri };
}
