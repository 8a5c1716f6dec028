/**
 * `POST /api/v1/content/batch-write` (spec Part 2, "Content": batch-write body; "Limits").
 * Everything is validated before the tree lock; preconditions are checked under the lock before
 * the first write; all files go to disk in ONE atomic batch (Vfs.writeFiles), so semantic work,
 * which commit hooks enqueue in that batch, starts once, after every write.
 */
import { createHash, hash as hashOnce } from 'node:crypto';
import { conflict, invalidArgument, notFound } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import { hash } from 'ctx/plugin';
import type { LockHandle, PluginHost, ScopedVfs } from 'ctx/plugin';
import { NODE_URI_PATTERN, s, spaceUriPattern } from 'ctx/plugin';
import { isAncestorOrSelf, type CtxUri } from 'ctx/plugin';
import { SIDECARS, type Entry } from 'ctx/plugin';
import { ancestorDirs, uriFromPath } from 'ctx/plugin';
import { contentBytes } from './batch-body.js';
import { indexingReport, type IndexingReport } from './indexing.js';
import { TEXT_EXTENSIONS, hasTextExtension, resolveUri } from './targets.js';

export const LIMITS = {
  operations: 256,
  operationsPrecondition: 128,
  fileBytes: 8 * 1024 * 1024,
  totalBytes: 16 * 1024 * 1024,
} as const;

const HASH = /^sha256:[0-9a-f]{64}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const operation = s.object({
  uri: s.uri().annotate({ pattern: NODE_URI_PATTERN }),
  content: s.string().optional(),
  content_base64: s.string().optional(),
  mode: s.enum(['replace', 'append', 'create', 'upsert'] as const).optional(),
  precondition: s
    .object({
      kind: s.enum(['create_if_absent', 'replace_if_hash'] as const),
      base_hash: s.string({ pattern: HASH, patternHint: 'expected sha256:<64 lowercase hex>' }).optional(),
    })
    // base_hash with replace_if_hash (required), never with create_if_absent.
    .annotate({ oneOf: [{ properties: { kind: { const: 'create_if_absent' } }, not: { required: ['base_hash'] } }, { properties: { kind: { const: 'replace_if_hash' } }, required: ['base_hash'] }] })
    .optional(),
}).annotate({
  // What batchWrite checks per operation: exactly one of content and content_base64; a mode or a
  // precondition, not both.
  allOf: [{ oneOf: [{ required: ['content'] }, { required: ['content_base64'] }] }, { not: { required: ['mode', 'precondition'] } }],
});

export const batchWriteBody = s.object({
  root_uri: s.uri().annotate({ pattern: spaceUriPattern(['memories', 'resources'], 0) }),
  // The count limits depend on the form, so they are checked below with their own message.
  operations: s.array(operation).annotate({ minItems: 1 }),
  wait: s.bool().default(true),
  timeout: s.number({ min: 0 }).nullable().optional(),
});

type Body = ReturnType<typeof batchWriteBody.parse>;
type Op = Body['operations'][number];

export interface BatchResult extends IndexingReport {
  root_uri: string;
  created: string[];
  updated: string[];
  unchanged: string[];
}

interface Planned {
  u: CtxUri;
  uri: string;
  path: string;
  data: Buffer;
  sha: string;
  op: Op;
}

const limitError = (message: string, limit: string, value: number, extra: Record<string, unknown> = {}) =>
  invalidArgument(message, { limit, limit_value: value, ...extra });

/** `raw`: the request body, when `body` came from `parseBatchBody` (contents may be slices of it). */
/** Per-entry access checks (the fs service): one URI, or many at once (one storage read). */
export interface AccessCheck {
  (uri: string): Promise<void>;
  many?: (uris: string[]) => Promise<void>;
}

export async function batchWrite(host: PluginHost, identity: Identity, body: Body, check: AccessCheck, signal?: AbortSignal, raw?: Buffer): Promise<BatchResult> {
  const account = identity.accountId;
  const ops = body.operations;
  if (ops.length === 0) throw invalidArgument('operations must contain at least one operation', { field: 'operations' });
  const preconditionForm = ops.some((o) => o.precondition !== undefined);
  if (preconditionForm && ops.some((o) => o.precondition === undefined))
    throw invalidArgument('operations mix the mode form and the precondition form; use one form per batch', { field: 'operations' });
  const maxOps = preconditionForm ? LIMITS.operationsPrecondition : LIMITS.operations;
  if (ops.length > maxOps)
    throw limitError(
      `operations has ${ops.length} entries; a batch holds at most ${maxOps} operations${preconditionForm ? ' in the precondition form' : ''} (limit max_operations${preconditionForm ? '_precondition' : ''})`,
      preconditionForm ? 'max_operations_precondition' : 'max_operations',
      maxOps,
      { field: 'operations' },
    );

  const root = resolveUri(body.root_uri, identity, 'write', 'root_uri');
  if (root.contextType !== 'resource' && root.contextType !== 'memory')
    throw invalidArgument(`root_uri must be a resource or memory directory, got ${root.uri}`, { field: 'root_uri', resource: root.uri });
  const memory = root.contextType === 'memory';

  const seen = new Set<string>();
  let total = 0;
  // Contents parsed as slices of the request body are used as they are. Other UTF-8 contents are
  // encoded after validation into one buffer (one allocation per batch instead of one per file, and
  // nothing allocated for a refused batch); their sizes come from byteLength.
  const texts: Array<{ p: Planned; text: string; size: number }> = [];
  const planned: Planned[] = ops.map((o, i) => {
    const field = `operations[${i}]`;
    const u = resolveUri(o.uri, identity, 'write', `${field}.uri`);
    if (u.uri === root.uri || !isAncestorOrSelf(root.uri, u.uri))
      throw invalidArgument(`${field}.uri ${u.uri} is not below root_uri ${root.uri}`, { field: `${field}.uri`, resource: u.uri });
    if (u.contextType !== root.contextType)
      throw invalidArgument(`${field}.uri ${u.uri} is a ${u.contextType} target; every target of a batch shares the context type of root_uri (${root.contextType})`, { field: `${field}.uri` });
    if (seen.has(u.uri)) throw invalidArgument(`${field}.uri ${u.uri} appears more than once; targets must be unique`, { field: `${field}.uri`, resource: u.uri });
    seen.add(u.uri);
    if (SIDECARS.has(u.name))
      throw invalidArgument(`${field}.uri ${u.uri}: sidecars cannot be batch-written (semantic processing refreshes them after the batch; use content/write to edit one)`, { field: `${field}.uri` });
    if (memory && !hasTextExtension(u.name))
      throw invalidArgument(`${field}.uri ${u.uri}: memory targets accept only the extensions ${TEXT_EXTENSIONS.join(' ')}`, { field: `${field}.uri`, allowed: TEXT_EXTENSIONS });
    if (o.mode !== undefined && o.precondition !== undefined)
      throw invalidArgument(`${field}: give either mode or precondition, not both`, { field });
    if (o.precondition?.kind === 'replace_if_hash' && o.precondition.base_hash === undefined)
      throw invalidArgument(`${field}.precondition.base_hash is required for replace_if_hash`, { field: `${field}.precondition.base_hash` });
    if (o.precondition?.kind === 'create_if_absent' && o.precondition.base_hash !== undefined)
      throw invalidArgument(`${field}.precondition.base_hash is only valid with replace_if_hash`, { field: `${field}.precondition.base_hash` });
    if ((o.content === undefined) === (o.content_base64 === undefined))
      throw invalidArgument(`${field} needs exactly one of content or content_base64`, { field });
    let data: Buffer | undefined;
    let size: number;
    if (o.content_base64 !== undefined) {
      if (memory) throw invalidArgument(`${field}.content_base64 is not accepted for memory targets; send UTF-8 text as content`, { field: `${field}.content_base64` });
      if (o.content_base64.length % 4 !== 0 || !BASE64.test(o.content_base64))
        throw invalidArgument(`${field}.content_base64 is not valid base64`, { field: `${field}.content_base64` });
      data = Buffer.from(o.content_base64, 'base64');
      size = data.length;
    } else {
      data = contentBytes(o.content!, raw);
      size = data ? data.length : Buffer.byteLength(o.content!, 'utf8');
    }
    if (size > LIMITS.fileBytes)
      throw limitError(`${field} carries ${size} bytes; a file holds at most ${LIMITS.fileBytes} bytes (8 MiB, limit max_file_bytes)`, 'max_file_bytes', LIMITS.fileBytes, { field, resource: u.uri });
    total += size;
    if (total > LIMITS.totalBytes)
      throw limitError(`operations carry more than ${LIMITS.totalBytes} bytes; a batch holds at most 16 MiB in total (limit max_total_bytes)`, 'max_total_bytes', LIMITS.totalBytes, { field: 'operations' });
    const p: Planned = { uri: u.uri, path: u.path, data: data ?? EMPTY, sha: '', op: o, u };
    if (data === undefined) texts.push({ p, text: o.content!, size });
    return p;
  });
  encodeTexts(texts);

  await check(root.uri);
  // The bytes of every operation are known now. Up to HASH_ON_THREAD_BYTES they are hashed on this
  // thread while the thread pool reads the targets (it would otherwise wait idle; on 2 cores, hash
  // threads next to the read cost more than they save); beyond, on the thread pool from here on.
  // Appends to existing files are hashed again under the lock, once their final content is known.
  const buffers = planned.map((p) => p.data);
  const hashHere = total <= HASH_ON_THREAD_BYTES;
  const hashing = hashHere ? null : sha256All(buffers);
  hashing?.catch(() => {});
  // Every target is strictly below root_uri, so the root is one of the targets' ancestors.
  const paths = planned.map((p) => p.path);
  const dirs = ancestorDirs(paths);
  const vfs = host.vfsFor(identity);
  const lock = await vfs.lock(root.uri, 'tree', 'content.batch-write');
  let result: { created: string[]; updated: string[]; unchanged: string[] };
  try {
    // Targets, root and every ancestor directory in one multi-get (one thread-pool job).
    const reading = vfs.statMany(paths.concat(dirs).map(uriFromPath));
    reading.catch(() => {}); // awaited below, unless hashing throws first
    const hashes = hashing ?? Promise.resolve(sha256Here(buffers));
    const read = await reading;
    const ancestors = new Map<string, Entry | null>();
    dirs.forEach((d, i) => ancestors.set(d, read[paths.length + i]!));
    const rootNode = ancestors.get(root.path);
    if (!rootNode || rootNode.kind !== 'dir')
      throw notFound(`root_uri ${root.uri} is not an existing directory`, { field: 'root_uri', resource: root.uri });
    read.length = paths.length;
    result = await applyUnderLock(vfs, root.uri, planned, read, ancestors, lock, hashes, check);
  } finally {
    lock.release();
  }
  const report = await indexingReport(host, account, root.path, {
    wait: body.wait,
    timeoutMs: body.timeout == null ? undefined : body.timeout * 1000,
    signal,
  });
  return { root_uri: root.uri, ...result, ...report };
}

const EMPTY = Buffer.alloc(0);
/** Batches up to this size are hashed on the JS thread (~0.7 ms per MB with node:crypto here). */
const HASH_ON_THREAD_BYTES = 2 * 1024 * 1024;

function sha256Here(buffers: Buffer[]): string[] {
  return buffers.map((b) => 'sha256:' + hashOnce('sha256', b, 'hex'));
}

/**
 * Encodes the UTF-8 contents into slices of one buffer. A string whose UTF-8 length equals its
 * length is ASCII, for which latin1 encoding gives the same bytes, faster.
 */
function encodeTexts(texts: Array<{ p: Planned; text: string; size: number }>): void {
  if (texts.length === 0) return;
  let bytes = 0;
  for (const t of texts) bytes += t.size;
  const all = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const { p, text, size } of texts) {
    const n = all.write(text, at, size, size === text.length ? 'latin1' : 'utf8');
    if (n !== size) throw new Error(`batch-write: encoded ${n} bytes where ${size} were counted`);
    p.data = all.subarray(at, at + n);
    at += n;
  }
}

/**
 * `sha256:<hex>` of each buffer. Large batches go to core-native, which hashes on the libuv pool
 * across cores (about 2× node:crypto here, bench/RESULTS.md); node:crypto when the addon is absent.
 */
async function sha256All(buffers: Buffer[]): Promise<string[]> {
  let total = 0;
  for (const b of buffers) total += b.length;
  if (buffers.length >= 8 && total >= 256 * 1024) {
    try {
      return (await hash.sha256ManyAsync(buffers)).map((h) => 'sha256:' + h);
    } catch {
      // fall through: the addon is missing or stale
    }
  }
  return buffers.map((b) => 'sha256:' + createHash('sha256').update(b).digest('hex'));
}

async function applyUnderLock(
  vfs: ScopedVfs,
  rootUri: string,
  planned: Planned[],
  nodes: (Entry | null)[],
  ancestors: Map<string, Entry | null>,
  lock: LockHandle,
  hashing: Promise<string[]>,
  check: AccessCheck,
) {
  // Per-entry access (fs): a new file has no rules of its own, so its parent's check covers it;
  // existing targets are checked themselves. Under the lock, so existence is settled; all at once.
  const uris = new Set<string>();
  planned.forEach((p, i) => uris.add(nodes[i] || p.u.parent === null ? p.uri : p.u.parent));
  if (check.many) await check.many([...uris]);
  else await Promise.all([...uris].map((uri) => check(uri)));
  const dataHashes = await hashing;
  planned.forEach((p, i) => (p.sha = dataHashes[i]!));
  const appendPaths = planned.filter((p, i) => (p.op.mode ?? 'replace') === 'append' && nodes[i]?.kind === 'file').map((p) => p.path);
  const appendBase = new Map<string, Buffer>();
  if (appendPaths.length) (await vfs.readMany(appendPaths.map(uriFromPath))).forEach((b, i) => appendBase.set(appendPaths[i]!, b ?? Buffer.alloc(0)));

  const created: string[] = [];
  const updated: string[] = [];
  const unchanged: string[] = [];
  const writes: Array<{ uri: string; data: Buffer; sha256: string }> = [];
  const writtenNodes: typeof nodes = [];
  for (let i = 0; i < planned.length; i++)
    if (nodes[i]?.kind === 'dir')
      throw invalidArgument(`${planned[i]!.uri} is a directory; batch-write targets must be files`, { expected: 'file', actual: 'directory', resource: planned[i]!.uri });
  const appended = planned.map((p, i) => (p.op.mode ?? 'replace') === 'append' && nodes[i] !== null);
  const contents = planned.map((p, i) => (appended[i] ? Buffer.concat([appendBase.get(p.path)!, p.data]) : p.data));
  const appendHashes = appended.some(Boolean) ? await sha256All(contents.filter((_, i) => appended[i])) : [];
  let next = 0;
  const hashes = planned.map((p, i) => (appended[i] ? appendHashes[next++]! : p.sha));
  // Every check runs before the first write, so a refused batch writes nothing.
  planned.forEach((p, i) => {
    const node = nodes[i];
    const mode = p.op.mode ?? 'replace';
    const content = contents[i]!;
    const sha = hashes[i]!;
    const same = node !== null && node.sha256 === sha;
    const pre = p.op.precondition;
    if (pre?.kind === 'create_if_absent' && node && !same)
      throw conflict(`precondition create_if_absent failed: ${p.uri} exists`, p.uri, { precondition: 'create_if_absent', actual_hash: node.sha256 ?? null });
    if (pre?.kind === 'replace_if_hash' && !same && node?.sha256 !== pre.base_hash)
      throw conflict(`precondition replace_if_hash failed for ${p.uri}: the stored content does not have base_hash`, p.uri, {
        precondition: 'replace_if_hash',
        expected_hash: pre.base_hash,
        actual_hash: node?.sha256 ?? null,
      });
    if (!pre && mode === 'create' && node && !same) throw conflict(`file exists: ${p.uri} (mode create)`, p.uri);
    if (!pre && mode === 'replace' && !node) throw notFound(`${p.uri} does not exist; mode replace overwrites existing files (use upsert to create)`, { resource: p.uri });
    if (same) {
      unchanged.push(p.uri);
      return;
    }
    (node ? updated : created).push(p.uri);
    writes.push({ uri: p.uri, data: content, sha256: sha });
    writtenNodes.push(node);
  });
  if (writes.length) await vfs.writeFiles(rootUri, writes, { lock, hint: { source: 'batch-write' }, existing: writtenNodes, ancestors });
  return { created, updated, unchanged };
}
