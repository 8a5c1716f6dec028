/**
 * Relations plugin (spec Part 2, "Relations"): explicit links between URIs with a reason, listed per
 * source, removable, and rendered by `build_graph` into a self-contained HTML file in the VFS.
 * store.ts says where relations live and how they follow their source; README.md has the details.
 */
import { invalidArgument, notFound } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import { definePlugin, type PluginHost, type ScopedVfs } from 'ctx/plugin';
import { NODE_URI_PATTERN, s } from 'ctx/plugin';
import { TEXT_EXTENSIONS, hasTextExtension } from 'ctx/plugin';
import { authorize, parseUri, type CtxUri } from 'ctx/plugin';
import type { ChangeEvent, Entry } from 'ctx/plugin';
import { SIDECARS } from 'ctx/plugin';
import { splitPath } from 'ctx/plugin';
import { HOST_VERSION } from 'ctx/plugin';
import { collectGraph, readableFor, renderGraphHtml } from './graph.js';
import { RELATIONS_FILE, entriesOf, locate, readSidecar, scopedSidecars, updateSidecar, type StoredRelation } from './store.js';
import { resultObject } from 'ctx/plugin';

export const LIMITS = { targets: 256, reasonChars: 4096, spaces: 32 } as const;

/** Parses, authorizes and applies the per-entry rules (403 on `access: denied` entries; all denied without rules). */
async function resolve(host: PluginHost, identity: Identity, input: unknown, access: 'read' | 'write', field: string): Promise<CtxUri> {
  const u = parseUri(input, identity, { field });
  authorize(u, identity, access);
  await host.access.assertEntryReadable(identity, u.path);
  return u;
}

async function existing(vfs: ScopedVfs, u: CtxUri, field: string): Promise<Entry> {
  const node = await vfs.stat(u.uri);
  if (!node) throw notFound(`no such file or directory: ${u.uri}`, { resource: u.uri, field });
  return node;
}

function refuseSidecar(u: CtxUri, field: string): void {
  if (SIDECARS.has(u.name)) throw invalidArgument(`${field} must not be a sidecar (${u.name}): relate the directory instead`, { field, resource: u.uri });
  // Below a sidecar name, a written graph would create a directory with that name.
  const bad = u.segments.find((seg) => SIDECARS.has(seg));
  if (bad !== undefined) throw invalidArgument(`${field} ${u.uri}: ${bad} is a sidecar file name and cannot be a directory`, { field, resource: u.uri, sidecar: bad });
}

const toUris = s.custom<string[]>((v, field) => {
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list)) throw invalidArgument(`${field} must be a URI string or an array of URI strings`, { field });
  if (list.length === 0) throw invalidArgument(`${field} must name at least one URI`, { field });
  if (list.length > LIMITS.targets) throw invalidArgument(`${field} has ${list.length} URIs; at most ${LIMITS.targets} are allowed`, { field, limit: LIMITS.targets });
  list.forEach((x, i) => {
    if (typeof x !== 'string') throw invalidArgument(`${field}[${i}] must be a string`, { field: `${field}[${i}]` });
  });
  return list as string[];
}, s.union([s.uri(), s.array(s.uri(), { min: 1, max: LIMITS.targets })], 'a URI string or an array of URI strings'));

export default definePlugin({
  name: 'relations',
  version: HOST_VERSION,
  privileges: ['all-account-changes', 'own-files'],
  privilegeReasons: {
    'all-account-changes': "a file's relations sit in its parent's sidecar: they follow the file when it is removed or moved, whoever did it",
    'own-files': 'patches the .relations.json sidecars of a moved or removed file, with no caller behind the change',
  },
  ownFiles: [RELATIONS_FILE],
  setup(host) {
    // A file's relations sit in its parent's sidecar: follow the file when it is removed or moved.
    // Directories need nothing: their sidecar is inside them and moves or goes with them.
    host.on('change', (ev: ChangeEvent) => {
      if (ev.kind !== 'file' || (ev.type !== 'rm' && ev.type !== 'mv')) return;
      const name = splitPath(ev.path)[1];
      if (SIDECARS.has(name)) return;
      void followFile(host, ev).catch((err) => host.log.warn('updating relations after a file change failed', { account: ev.account, path: ev.path, error: err }));
    });

    host.route({
      method: 'POST',
      path: '/api/v1/relations/link',
      summary: 'relates a URI to one or more others, with a reason',
      response: resultObject({ from: s.string(), to: s.union([s.string(), s.array(s.string())], 'a URI or URIs') }),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
      body: s.object({ from_uri: s.uri(), to_uris: toUris, reason: s.string({ max: LIMITS.reasonChars }).default('') }),
      async handler(ctx) {
        const { identity } = ctx;
        const account = identity.accountId;
        const from = await resolve(host, identity, ctx.body.from_uri, 'write', 'from_uri');
        refuseSidecar(from, 'from_uri');
        const source = await existing(ctx.vfs, from, 'from_uri');
        const targets: CtxUri[] = [];
        for (const [i, raw] of ctx.body.to_uris.entries()) {
          const field = `to_uris[${i}]`;
          const to = await resolve(host, identity, raw, 'read', field);
          refuseSidecar(to, field);
          if (to.uri === from.uri) throw invalidArgument(`${field}: a URI cannot be related to itself (${to.uri})`, { field, resource: to.uri });
          if (!targets.some((t) => t.uri === to.uri)) targets.push(to);
        }
        const found = await ctx.vfs.statMany(targets.map((t) => t.uri));
        found.forEach((n, i) => {
          if (!n) throw notFound(`relation target does not exist: ${targets[i]!.uri}`, { resource: targets[i]!.uri, field: 'to_uris' });
        });
        const loc = locate(source);
        const createdAt = new Date().toISOString();
        const done = await updateSidecar(
          scopedSidecars(ctx.vfs),
          loc.sidecar,
          (current) => {
            // Linking again replaces the reason; other sources' entries are kept as they are.
            const uris = new Set(targets.map((t) => t.uri));
            const mine = new Set(entriesOf(current, loc));
            const next = current.filter((r) => !(r.source === loc.source && (uris.has(r.uri) || !mine.has(r))));
            for (const t of targets) {
              const entry: StoredRelation = { source: loc.source, uri: t.uri, reason: ctx.body.reason, created_at: createdAt };
              if (loc.sourceCtime !== undefined) entry.sourceCtime = loc.sourceCtime;
              next.push(entry);
            }
            return { next, result: true };
          },
          // The sidecar write would re-create a directory removed meanwhile: check under the lock.
          {
            guard: async () => {
              const now = await ctx.vfs.stat(from.uri);
              return !!now && now.kind === source.kind && (now.kind === 'dir' || now.ctime === source.ctime);
            },
          },
        );
        if (!done) throw notFound(`no such file or directory: ${from.uri}`, { resource: from.uri, field: 'from_uri' });
        return { from: from.uri, to: targets.map((t) => t.uri) };
      },
    });

    host.route({
      method: 'GET',
      path: '/api/v1/relations',
      summary: 'what a URI is related to',
      response: s.array(resultObject({ uri: s.string(), reason: s.string() })),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
      query: s.object({ uri: s.uri() }),
      async handler(ctx) {
        const { identity } = ctx;
        const u = await resolve(host, identity, ctx.query.uri, 'read', 'uri');
        const node = await existing(ctx.vfs, u, 'uri');
        if (SIDECARS.has(u.name)) return [];
        const loc = locate(node);
        const readable = readableFor(host, identity);
        const out: Array<{ uri: string; reason: string }> = [];
        // Targets the caller may not read are left out: a relation must not reveal another user's names.
        for (const r of entriesOf(await readSidecar(scopedSidecars(ctx.vfs), loc.sidecar), loc))
          if (await readable(r.uri.slice('ctx://'.length))) out.push({ uri: r.uri, reason: r.reason });
        return out;
      },
    });

    host.route({
      method: 'DELETE',
      path: '/api/v1/relations/link',
      summary: 'removes one relation',
      response: resultObject({ from: s.string(), to: s.string() }),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
      body: s.object({ from_uri: s.uri(), to_uri: s.uri() }),
      async handler(ctx) {
        const { identity } = ctx;
        const account = identity.accountId;
        const from = await resolve(host, identity, ctx.body.from_uri, 'write', 'from_uri');
        refuseSidecar(from, 'from_uri');
        // The target may be gone already: a dangling relation must still be removable.
        const to = parseUri(ctx.body.to_uri, identity, { field: 'to_uri' });
        const source = await existing(ctx.vfs, from, 'from_uri');
        const loc = locate(source);
        const removed = await updateSidecar(scopedSidecars(ctx.vfs), loc.sidecar, (current) => {
          const mine = new Set(entriesOf(current, loc).filter((r) => r.uri === to.uri));
          return { next: current.filter((r) => !mine.has(r)), result: mine.size > 0 };
        });
        if (!removed) throw notFound(`no relation from ${from.uri} to ${to.uri}`, { from: from.uri, to: to.uri });
        return { from: from.uri, to: to.uri };
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/relations/build_graph',
      summary: 'writes a self-contained HTML graph of the relations under the given memory roots',
      response: resultObject({ graph_uri: s.string() }),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
      body: s.object({
        space_uris: s.array(s.uri(), { min: 1, max: LIMITS.spaces }),
        output_uri: s.uri().annotate({ pattern: NODE_URI_PATTERN }),
      }),
      async handler(ctx) {
        const { identity } = ctx;
        const account = identity.accountId;
        const spaces: CtxUri[] = [];
        for (const [i, raw] of ctx.body.space_uris.entries()) {
          const field = `space_uris[${i}]`;
          const u = await resolve(host, identity, raw, 'read', field);
          const node = await existing(ctx.vfs, u, field);
          if (node.kind !== 'dir') throw invalidArgument(`${field} must be a directory, got a file: ${u.uri}`, { field, expected: 'directory', actual: 'file', resource: u.uri });
          if (!spaces.some((x) => x.uri === u.uri)) spaces.push(u);
        }
        const out = await resolve(host, identity, ctx.body.output_uri, 'write', 'output_uri');
        checkOutput(out);
        const data = await collectGraph(host, identity, spaces, readableFor(host, identity));
        await ctx.vfs.writeFile(out.uri, Buffer.from(renderGraphHtml(data), 'utf8'), { mode: 'replace' });
        return { graph_uri: out.uri };
      },
    });
  },
});

/** The graph is an ordinary file: below a space root, not a sidecar, and within the memory allowlist. */
function checkOutput(u: CtxUri): void {
  const spaceDepth = u.scope === 'resources' ? 1 : u.scope === 'user' ? (u.peerId !== undefined ? 5 : 3) : Infinity;
  if (u.contextType === null || u.segments.length <= spaceDepth)
    throw invalidArgument(`output_uri must be a file below a resources, memories, skills or sessions space, got ${u.uri}`, { field: 'output_uri', resource: u.uri });
  refuseSidecar(u, 'output_uri');
  if (u.contextType === 'memory' && !hasTextExtension(u.name))
    throw invalidArgument(`output_uri: memory files accept only the extensions ${TEXT_EXTENSIONS.join(' ')}; write the graph below ctx://resources`, { field: 'output_uri', resource: u.uri });
}

/** Moves or drops the entries of a removed or moved file in its (old and new) parents' sidecars. */
async function followFile(host: PluginHost, ev: ChangeEvent): Promise<void> {
  const io = host.ownFiles(ev.account);
  const oldPath = ev.type === 'mv' ? ev.from! : ev.path;
  const [oldDir, oldName] = splitPath(oldPath);
  const oldSidecar = oldDir === '' ? RELATIONS_FILE : `${oldDir}/${RELATIONS_FILE}`;
  // Most files have no relations: one read, no lock. A link made after this read stores the
  // file's new creation time, which is what it should be.
  if (!(await io.stat(oldSidecar))) return;
  if (ev.type === 'rm') {
    if (!(await io.stat(oldDir))) return;
    let keepCtime: number | undefined;
    await updateSidecar(io, oldSidecar, (cur) => ({ next: cur.filter((r) => r.source !== oldName || (keepCtime !== undefined && r.sourceCtime === keepCtime)), result: null }), {
      guard: async () => {
        if (!(await io.stat(oldDir))) return false;
        // A file re-created at the path before this ran keeps the entries it made itself.
        const again = await io.stat(oldPath);
        if (again?.kind === 'file') keepCtime = again.ctime;
        return true;
      },
    });
    return;
  }
  const [newDir, newName] = splitPath(ev.path);
  const newSidecar = newDir === '' ? RELATIONS_FILE : `${newDir}/${RELATIONS_FILE}`;
  const handles = await io.lockAll([oldSidecar, newSidecar]);
  try {
    const moved = await io.stat(ev.path);
    if (!moved || moved.kind !== 'file') return;
    const carried = (await readSidecar(io, oldSidecar)).filter((r) => r.source === oldName && r.sourceCtime === moved.ctime);
    if (carried.length === 0) return;
    const held = (p: string) => handles.find((h) => h.covers(ev.account, p))!;
    if (await io.stat(oldDir))
      await updateSidecar(io, oldSidecar, (cur) => ({ next: cur.filter((r) => !(r.source === oldName && r.sourceCtime === moved.ctime)), result: null }), { held: held(oldSidecar) });
    await updateSidecar(
      io,
      newSidecar,
      (cur) => ({ next: [...cur.filter((r) => r.source !== newName), ...carried.map((r) => ({ ...r, source: newName }))], result: null }),
      { held: held(newSidecar) },
    );
  } finally {
    for (const h of handles) h.release();
  }
}
