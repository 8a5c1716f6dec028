/**
 * Packs plugin (spec Part 2, "Packs", "Pack layout"): export and backup as streamed zip packs with
 * integrity manifests; import and restore that validate the whole pack before the first write, so
 * a rejected pack leaves the target untouched. README.md describes the choices.
 */
import type { CtxUri, Entry, Identity, PluginHost, ScopedVfs } from 'ctx/plugin';
import { authorize, conflict, contentDisposition, definePlugin, HOST_VERSION, invalidArgument, notFound, parseUri, permissionDenied, Reply, resultObject, s, SCOPED_URI_PATTERN, unavailable, uriFromPath } from 'ctx/plugin';
import { joinPath, restorable, writePack, type WriteHooks } from './apply.js';
import type { DenseSnapshot } from './dense.js';
import { spoolDir } from './spool.js';
import { packStream, type PackSource } from './export.js';
import { packError } from './zip-read.js';
import { validatePack, type ValidatedPack } from './validate.js';

const onConflict = s.enum(['fail', 'overwrite', 'skip'] as const).default('fail');
const vectorMode = s.enum(['auto', 'recompute', 'require'] as const).default('auto');
const uriErrors = ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'] as const;
/** What a backup holds (spec Part 2: resources and every user's space; never temp, queue, users or keys). */
const BACKUP_SCOPES = ['resources', 'user'];
/** listSubtree reads at most this many nodes: far beyond what a zip without zip64 can hold. */
const SUBTREE_LIMIT = 1_000_000_000;

export default definePlugin({
  name: 'packs',
  version: HOST_VERSION,
  dependsOn: ['system', 'fs'],
  setup(host) {
    const temp = host.use('temp-files');

    host.route({
      method: 'POST',
      path: '/api/v1/pack/export',
      summary: 'Export a directory as a zip pack (files/ + _ctxpack/manifest.json)',
      // The account root is exported by pack/backup.
      body: s.object({ uri: s.uri().annotate({ pattern: SCOPED_URI_PATTERN }), include_vectors: s.bool().default(false) }),
      reply: { contentType: 'application/zip', description: 'the pack, streamed' },
      errors: [...uriErrors],
      async handler(ctx) {
        const u = ctx.vfs.resolve(ctx.body.uri, 'read');
        if (u.path === '') throw invalidArgument('the account root is exported with POST /api/v1/pack/backup', { field: 'uri' });
        const node = await ctx.vfs.stat(u.uri);
        if (!node) throw notFound(`no such directory: ${u.uri}`, { resource: u.uri });
        if (node.kind !== 'dir') throw invalidArgument(`uri must be a directory, got a file: ${u.uri}`, { field: 'uri', expected: 'directory', actual: 'file', resource: u.uri });
        const vectors = ctx.body.include_vectors ? denseSource(host, ctx.identity.accountId, u.path) : undefined;
        const nodes = await subtree(ctx.vfs, u.uri);
        checkZipLimits(nodes);
        const stream = packStream(
          host,
          {
            account: ctx.identity.accountId,
            vfs: ctx.vfs,
            path: u.path,
            root: u.name,
            nodes,
            manifest: { kind: 'export', source_uri: u.uri, scope_pack: u.segments.length === 1, context_type: u.contextType },
            contextTypeOf: contextTypeFor(ctx.identity),
            spoolDir: spoolDir(host.dataDir),
            ...(vectors ? { vectors } : {}),
          },
          ctx.signal,
        );
        return Reply.raw(stream, { contentType: 'application/zip', headers: { 'content-disposition': contentDisposition(`${u.name}.ctxpack`) } });
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/pack/backup',
      summary: "Back up the account's resources and every user's space as a zip pack",
      roles: ['ROOT', 'ADMIN'],
      body: s.object({ include_vectors: s.bool().default(false) }),
      reply: { contentType: 'application/zip', description: 'the backup pack, streamed, with Content-Disposition' },
      async handler(ctx) {
        const account = ctx.identity.accountId;
        const vectors = ctx.body.include_vectors ? denseSource(host, account, '') : undefined;
        const nodes: Entry[] = [];
        for (const scope of BACKUP_SCOPES) {
          nodes.push((await ctx.vfs.stat(uriFromPath(scope)))!);
          for (const e of await subtree(ctx.vfs, uriFromPath(scope))) nodes.push(e);
        }
        checkZipLimits(nodes);
        const stamp = new Date().toISOString().replace(/[:.]/g, '-');
        const stream = packStream(
          host,
          {
            account,
            vfs: ctx.vfs,
            path: '',
            root: 'ctx',
            nodes,
            manifest: { kind: 'backup', source_uri: 'ctx://', scope_pack: false, context_type: null },
            contextTypeOf: contextTypeFor(ctx.identity),
            spoolDir: spoolDir(host.dataDir),
            ...(vectors ? { vectors } : {}),
          },
          ctx.signal,
        );
        return Reply.raw(stream, { contentType: 'application/zip', headers: { 'content-disposition': contentDisposition(`${account}-${stamp}.ctxpack`) } });
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/pack/import',
      summary: 'Import an uploaded pack below a parent URI',
      body: s.object({ temp_file_id: s.string({ min: 1 }).annotate({ pattern: '^tmp_[0-9a-f]{32}$' }), parent: s.uri(), on_conflict: onConflict, vector_mode: vectorMode, telemetry: s.telemetry() }),
      response: resultObject({ uri: s.string() }),
      // The spec's row lists telemetry.operation_id in this envelope whatever the request says.
      telemetry: 'always',
      errors: [...uriErrors, 'CONFLICT'],
      async handler(ctx) {
        const b = ctx.body;
        const rec = await temp.resolve(ctx.identity, b.temp_file_id);
        const parent = ctx.vfs.resolve(b.parent, 'write', 'parent');
        const pack = await validatePack(rec.file, spoolDir(host.dataDir), ctx.signal);
        try {
          if (pack.manifest.kind === 'backup') throw packError('a backup pack cannot be imported: use POST /api/v1/pack/restore', { kind: 'backup' });
          if (pack.manifest.scope_pack && parent.path !== '')
            throw invalidArgument(`a top-level scope pack (${pack.manifest.source_uri}) must be imported to parent ctx://`, { field: 'parent' });
          const target = ctx.vfs.resolve(parent.path === '' ? `ctx://${pack.root}` : `${parent.uri}/${pack.root}`, 'write', 'parent');
          if (pack.manifest.context_type && target.contextType && pack.manifest.context_type !== target.contextType)
            throw packError(`the pack holds ${pack.manifest.context_type} content, ${target.uri} is ${target.contextType}`, { context_type: pack.manifest.context_type, target_context_type: target.contextType });
          const dense = checkVectors(host, pack, b.vector_mode);
          checkTargets(ctx.identity, target.path, pack);
          await host.access.assertEntryReadable(ctx.identity, target.path);
          const account = ctx.identity.accountId;
          const existing = await ctx.vfs.stat(target.uri);
          if (existing) {
            if (b.on_conflict === 'fail') throw conflict(`target exists: ${target.uri}`, target.uri);
            if (b.on_conflict === 'skip') return { uri: target.uri };
            await assertSubtreeReadable(ctx.vfs, target.uri);
          }
          await writePack(ctx.vfs, target.path, pack, { replace: true, ...denseHooks(host, ctx.vfs, target.path, dense) });
          return { uri: target.uri };
        } finally {
          await pack.close();
        }
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/pack/restore',
      summary: 'Restore a backup pack into the account (merge-upsert with on_conflict=overwrite)',
      roles: ['ROOT', 'ADMIN'],
      body: s.object({ temp_file_id: s.string({ min: 1 }).annotate({ pattern: '^tmp_[0-9a-f]{32}$' }), on_conflict: onConflict, vector_mode: vectorMode, telemetry: s.telemetry() }),
      response: resultObject({ uri: s.string() }),
      errors: [...uriErrors, 'CONFLICT'],
      async handler(ctx) {
        const b = ctx.body;
        const rec = await temp.resolve(ctx.identity, b.temp_file_id);
        const pack = await validatePack(rec.file, spoolDir(host.dataDir), ctx.signal);
        try {
          if (pack.manifest.kind !== 'backup') throw packError('pack/restore takes a backup pack: import an export pack with POST /api/v1/pack/import', { kind: pack.manifest.kind });
          for (const p of [...pack.dirs, ...pack.files.map((f) => f.rel)])
            if (!BACKUP_SCOPES.includes(p.split('/')[0]!)) throw packError(`a backup holds only ${BACKUP_SCOPES.join(' and ')}; found ${JSON.stringify(p)}`, { entry: p });
          const dense = checkVectors(host, pack, b.vector_mode);
          checkTargets(ctx.identity, '', pack);
          const account = ctx.identity.accountId;
          // The scope roots of a backup: ctx://resources and each packaged user's space.
          const roots = ['resources', ...pack.dirs.filter((d) => /^user\/[^/]+$/.test(d))];
          const occupied = await Promise.all(roots.map(async (r) => (await ctx.vfs.stat(uriFromPath(r))) !== null && (await ctx.vfs.list(uriFromPath(r), { limit: 1 })).length > 0));
          if (occupied.some(Boolean)) {
            if (b.on_conflict === 'fail') throw conflict(`the account already holds content at ${roots.filter((_, i) => occupied[i]).map(uriFromPath).join(', ')}`, uriFromPath(roots[occupied.indexOf(true)]!));
            if (b.on_conflict === 'skip') return { uri: 'ctx://' };
          }
          await checkShapes(ctx.vfs, pack);
          await writePack(ctx.vfs, '', pack, { replace: false, ...denseHooks(host, ctx.vfs, '', dense) });
          return { uri: 'ctx://' };
        } finally {
          await pack.close();
        }
      },
    });
  },
});

/**
 * The nodes below `root` as the caller may see them, from two range scans (the scoped view leaves
 * out, with everything below it, what the entry rules hide from the caller).
 */
async function subtree(vfs: ScopedVfs, root: string): Promise<Entry[]> {
  const nodes: Entry[] = [];
  const { groups } = await vfs.listSubtree(root, SUBTREE_LIMIT);
  for (const children of groups.values()) for (const e of children) nodes.push(e);
  return nodes;
}

/** Entries stay below 4 GiB and offsets within 32 bits (no per-entry zip64 fields): refuse, never truncate. */
function checkZipLimits(nodes: Entry[]): void {
  const bytes = nodes.reduce((n, e) => n + (e.kind === 'file' ? e.size : 0), 0);
  if (bytes >= 0xffffffff - (64 << 20))
    throw unavailable(`this tree holds ${bytes} bytes; packs of 4 GiB or more need zip64 entry fields, which are not supported yet`, { entries: nodes.length, bytes });
}

/** The records of a subtree for a dense snapshot; 503 when no plugin stores vectors. */
function denseSource(host: PluginHost, account: string, path: string): NonNullable<PackSource['vectors']> {
  const records = host.optional('vector-records');
  if (!records) throw unavailable('include_vectors: no vector store is loaded (the retrieval plugin), so there are no vectors to export', { field: 'include_vectors' });
  const { provider, model, input_mode, dim, params } = records.embedding();
  return { embedding: { provider, model, input_mode, dim, params }, read: () => records.read(account, path) };
}

function contextTypeFor(identity: Identity): (path: string) => string | null {
  return (p) => {
    try {
      return parseUri(uriFromPath(p), identity).contextType;
    } catch {
      return null;
    }
  };
}

/**
 * Spec Part 2, import rule 3, decided before anything is written: the dense snapshot to store, or
 * null to let the indexer compute every vector. `auto` uses a snapshot only when the running
 * embedder is compatible (provider, model, input mode, dimension, query/document parameters);
 * `require` fails without a compatible one; `recompute` never uses one. The snapshot itself was
 * checked with the pack (validate.ts), also under `recompute`: a corrupt pack is refused anyway.
 */
function checkVectors(host: PluginHost, pack: ValidatedPack, mode: 'auto' | 'recompute' | 'require'): DenseSnapshot | null {
  if (mode === 'recompute') return null;
  const records = host.optional('vector-records');
  if (!pack.dense) {
    if (mode === 'require') throw packError('vector_mode=require needs a compatible dense snapshot (_ctxpack/dense.f32); this pack has none', { field: 'vector_mode' });
    return null;
  }
  const verdict = records ? records.compatible(pack.dense.meta) : ({ ok: false, reason: 'no vector store is loaded (the retrieval plugin)' } as const);
  if (verdict.ok) return pack.dense;
  if (mode === 'require') {
    const { count: _n, sha256: _s, dtype: _t, ...packed } = pack.dense.meta;
    throw packError(`vector_mode=require: the dense snapshot is not compatible with this server's embedder (${verdict.reason})`, { field: 'vector_mode', packed, running: records?.embedding() ?? null });
  }
  host.log.info('pack vectors not reused: recomputing', { reason: verdict.reason });
  return null;
}

/** Stores the packed vectors of what was just written, below `target`; nothing without a snapshot. */
function denseHooks(host: PluginHost, vfs: ScopedVfs, target: string, dense: DenseSnapshot | null): { hooks?: WriteHooks } {
  const account = vfs.identity.accountId;
  const records = host.optional('vector-records');
  if (!dense || !records) return {};
  let written = 0;
  let skipped = 0;
  type Supplied = Parameters<typeof records.write>[1];
  // The lines and rows of some nodes, read from the scratch files (one write batch at a time).
  const load = async (rels: string[], levels: ReadonlyArray<0 | 1 | 2>): Promise<Supplied> => {
    const refs = [];
    const paths: string[] = [];
    for (const rel of rels)
      for (const ref of dense.byPath.get(rel) ?? [])
        if (levels.includes(ref.level)) {
          refs.push(ref);
          paths.push(joinPath(target, rel));
        }
    const got = await dense.read(refs);
    return got.map(({ line: v, vector }, i) => ({
      path: paths[i]!,
      level: v.level,
      text: v.text,
      abstract: v.abstract,
      vector,
      ...(v.overview !== undefined ? { overview: v.overview } : {}),
      ...(v.source_sha256 !== undefined ? { source_sha256: v.source_sha256 } : {}),
    }));
  };
  const store = async (batch: Supplied) => {
    for (let at = 0; at < batch.length; at += 256) {
      const slice = batch.slice(at, at + 256);
      const n = await records.write(account, slice, await vfs.statMany(slice.map((r) => uriFromPath(r.path))));
      written += n.written;
      skipped += n.skipped;
    }
  };
  // Read before the batch is written, stored right after: the indexer, which sees the files as
  // they land, then finds their records already there instead of embedding them.
  // In write order: a batch is prepared while the one before it is still being written.
  const prepared: Array<Promise<Supplied>> = [];
  return {
    hooks: {
      async prepare(rels) {
        const p = load(rels, [2]);
        p.catch(() => {}); // awaited by files()
        prepared.push(p);
      },
      async files(rels) {
        const p = prepared.shift();
        await store(p ? await p : await load(rels, [2]));
      },
      async dirs(rels) {
        for (let at = 0; at < rels.length; at += 128) await store(await load(rels.slice(at, at + 128), [0, 1]));
        host.log.info('pack vectors reused', { account, target, written, skipped, packed: dense.meta.count });
      },
    },
  };
}

/** Every path the pack writes is a valid URI the caller may write, checked before the first write. */
function checkTargets(identity: Identity, target: string, pack: ValidatedPack): void {
  for (const rel of [...pack.dirs, ...pack.files.filter((f) => restorable(f.rel)).map((f) => f.rel)]) {
    let u: CtxUri;
    try {
      u = parseUri(uriFromPath(joinPath(target, rel)), identity, { field: 'entry' });
    } catch (err) {
      throw packError(`entry ${JSON.stringify(rel)} is not a valid ctx:// path (${(err as Error).message})`, { entry: rel });
    }
    authorize(u, identity, 'write');
  }
}

/** Replacing a subtree deletes it: refused when the caller cannot read all of it (as fs rm). */
async function assertSubtreeReadable(vfs: ScopedVfs, root: string): Promise<void> {
  const hidden = await vfs.firstHidden(root);
  if (hidden !== null) throw permissionDenied(`cannot replace ${root}: ${hidden} is not readable by ${vfs.identity.userId}`, { resource: hidden });
}

/** A merge cannot put a file where a directory is, or the reverse: found before the first write. */
async function checkShapes(vfs: ScopedVfs, pack: ValidatedPack): Promise<void> {
  const wanted = [...pack.dirs.map((p) => [p, 'dir'] as const), ...pack.files.filter((f) => restorable(f.rel)).map((f) => [f.rel, 'file'] as const)];
  for (let at = 0; at < wanted.length; at += 512) {
    const slice = wanted.slice(at, at + 512);
    const nodes = await vfs.statMany(slice.map(([p]) => uriFromPath(p)));
    nodes.forEach((n, i) => {
      const [p, kind] = slice[i]!;
      if (n && n.kind !== kind) throw conflict(`${uriFromPath(p)} is a ${n.kind} in the account and a ${kind} in the backup`, uriFromPath(p));
    });
  }
}
