/**
 * File system plugin: ls, tree, stat, attrs, set_tags, mkdir, rm and mv over the VFS (spec Part 2,
 * "File system"), the `access: denied` rules under ctx://resources, and the `fs` service (tag logic,
 * entry formatting, access checks) other plugins use. README.md describes the choices.
 */
import { invalidArgument } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import { definePlugin } from 'ctx/plugin';
import { NODE_URI_PATTERN, s, SCOPED_URI_PATTERN, SHARED_RESOURCE_URI_PATTERN, TAG_PATTERN } from 'ctx/plugin';
import { authorize, isValidId, parseUri, uriFromPath } from 'ctx/plugin';
import type { Entry } from 'ctx/plugin';
import { HOST_VERSION } from 'ctx/plugin';
import { READ_ACCESS_KEY, deniedError, deniedNode, deniedOnPath, deniedOnPaths } from './access.js';
import { browse, type BrowseQuery } from './browse.js';
import { entry, placeholder, type DirectoryEntry, type EntryOptions } from './entries.js';
import { ListingCache } from './listing.js';
import { attrs, mkdir, mv, resolve, rm, stat } from './ops.js';
import { rootUriOf } from 'ctx/plugin';
import { RestrictedIndex } from './restricted.js';
import { checkTags } from 'ctx/plugin';
import { setTags, type SetTagsOptions, type SetTagsOutcome } from './tags.js';
import { resultObject } from 'ctx/plugin';

export interface FsService {
  /** set_tags for both routes (fs and content): validates, authorizes, applies the tag rules atomically. */
  setTags(identity: Identity, uri: string, tags: string[], opts: SetTagsOptions): Promise<SetTagsOutcome>;
  /** Throws 403 PERMISSION_DENIED when `uri` is, or lies below, an entry the caller may not read. */
  assertContentAccess(identity: Identity, uri: string): Promise<void>;
  /** The same for many URIs with one storage read (batch-write); the first failing URI in order is reported. */
  assertContentAccessMany(identity: Identity, uris: string[]): Promise<void>;
  /** Whether `path` (internal, no scheme) is readable by the caller under the per-entry rules (search filters). */
  canReadPath(identity: Identity, path: string): Promise<boolean>;
  /** A node as a spec directory entry. */
  entry(node: Entry, opts?: EntryOptions): DirectoryEntry;
  /** The `access: denied` placeholder of a node. */
  placeholder(node: Pick<Entry, 'name' | 'kind' | 'path'>, relPath?: string): DirectoryEntry;
}

declare module 'ctx/plugin' {
  interface Services {
    fs: FsService;
  }
}

const extraField = s.enum(['locked', 'id', 'count'] as const);
const tagList = s.array(s.string({ min: 1, max: 512 }), { max: 64 });
// Spec Part 2 "Directory entry": an unreadable child under ctx://resources is a placeholder with `access: denied`.
const directoryEntry = resultObject({
  name: s.string(),
  size: s.int().optional(),
  mode: s.int().optional(),
  modTime: s.string().optional(),
  isDir: s.bool(),
  uri: s.string(),
  meta: s.record(s.any()).optional(),
  rel_path: s.string().optional(),
  access: s.enum(['denied'] as const).optional(),
});
const listing = s.array(s.union([directoryEntry, s.string()], 'an entry, or its URI with simple=true'));
const tagsResult = resultObject({ uri: s.string(), updated_uris: s.array(s.string()), root_uri: s.string(), context_type: s.string(), tags: s.array(s.string()), mode: s.enum(['replace', 'append'] as const), recursive: s.bool(), success_count: s.int(), failed_count: s.int(), skipped_count: s.int() });
const uriErrors = ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'] as const;
const listingQuery = {
  uri: s.uri(),
  output: s.enum(['agent', 'original'] as const).default('agent'),
  abs_limit: s.int({ min: 0, max: 65_536 }).default(256),
  show_all_hidden: s.bool().default(false),
  node_limit: s.int({ min: 1, max: 100_000 }).default(1000),
  limit: s.int({ min: 1, max: 100_000 }).optional(),
  offset: s.int({ min: 0 }).default(0),
  extra_fields: s.array(extraField, { max: 3 }).optional(),
  tags: tagList.optional(),
  include_tags: s.bool().default(false),
};

export default definePlugin({
  name: 'fs',
  version: HOST_VERSION,
  privileges: ['unscoped-vfs', 'access-rules'],
  privilegeReasons: {
    'unscoped-vfs': "the rules' own implementation: its routes decide placeholders (`access: denied`) from entries the caller may not read, its listing cache and restricted-entry index follow every account's tree (one of the three plugins keeping it)",
    'access-rules': 'it owns the per-entry read rules (reader lists under ctx://resources) and installs them for every plugin',
  },
  setup(host) {
    const cache = new ListingCache(host.unscopedVfs);
    const restricted = new RestrictedIndex(host.kv, host.unscopedVfs);

    // Every scoped handle of every plugin applies these rules (runtime/access/guard.ts).
    host.access.installRules({
      blockedOnPaths: (identity, paths) => deniedOnPaths(host.unscopedVfs, identity, paths),
      hidesNode: (identity, node) => deniedNode(node, identity),
      // Reader lists change only through POST /api/v1/fs/access, never a plugin's scoped write.
      metaKeys: [READ_ACCESS_KEY],
    });

    host.provide('fs', {
      setTags: (identity, uri, tags, opts) => setTags(host, cache, identity, uri, tags, opts),
      async assertContentAccess(identity, uri) {
        await resolve(host, identity, uri, 'read');
      },
      async assertContentAccessMany(identity, uris) {
        // What `resolve(..., 'read')` checks for each URI, with the entry rules read in one go.
        const parsed = uris.map((uri) => {
          const u = parseUri(uri, identity, { field: 'uri' });
          authorize(u, identity, 'read');
          return u;
        });
        const blocked = await deniedOnPaths(host.unscopedVfs, identity, parsed.map((u) => u.path));
        blocked.forEach((at, i) => {
          if (at !== null) throw deniedError(uriFromPath(parsed[i]!.path), identity, at);
        });
      },
      async canReadPath(identity, path) {
        return (await deniedOnPath(host.unscopedVfs, identity, path)) === null;
      },
      entry,
      placeholder,
    } satisfies FsService);

    host.route({
      method: 'GET',
      path: '/api/v1/fs/ls',
      summary: 'lists a directory (recursive, paged, sorted directories first)',
      response: listing,
      errors: [...uriErrors],
      query: s.object({
        ...listingQuery,
        simple: s.bool().default(false),
        recursive: s.bool().default(false),
        sort_by: s.enum(['name', 'mtime'] as const).default('name'),
        sort_order: s.enum(['asc', 'desc'] as const).default('asc'),
      }),
      handler: (ctx) => browse(host, cache, restricted, ctx.identity, ctx.query as BrowseQuery, 'ls'),
    });

    host.route({
      method: 'GET',
      path: '/api/v1/fs/tree',
      summary: 'a directory tree to level_limit levels, entries with rel_path',
      response: listing,
      errors: [...uriErrors],
      query: s.object({
        ...listingQuery,
        level_limit: s.int({ min: 1, max: 64 }).default(3),
        sort_by: s.enum(['name', 'mtime'] as const).default('name'),
        sort_order: s.enum(['asc', 'desc'] as const).default('asc'),
      }),
      handler: (ctx) => browse(host, cache, restricted, ctx.identity, ctx.query as BrowseQuery, 'tree'),
    });

    host.route({
      method: 'GET',
      path: '/api/v1/fs/stat',
      summary: 'a file\'s or directory\'s metadata (by URI or 32-hex record id)',
      response: resultObject({ name: s.string(), size: s.int(), mode: s.int(), modTime: s.string(), isDir: s.bool(), isLocked: s.bool(), id: s.string().optional().describe('files: the level-2 record id'), count: s.int().optional().describe('directories: estimated items under it'), uri: s.string() }),
      errors: [...uriErrors],
      query: s.object({ uri: s.uri() }),
      handler: (ctx) => stat(host, restricted, ctx.identity, ctx.query.uri),
    });

    host.route({
      method: 'GET',
      path: '/api/v1/fs/attrs',
      summary: 'context type and tags (and memory fields) of a node',
      response: resultObject({ uri: s.string(), context_type: s.string(), attrs: resultObject({ tags: s.array(s.string()), memory: s.record(s.any()).optional() }) }),
      errors: [...uriErrors],
      query: s.object({ uri: s.uri() }),
      handler: (ctx) => attrs(host, ctx.identity, ctx.query.uri),
    });

    host.route({
      method: 'POST',
      path: '/api/v1/fs/attrs/set_tags',
      summary: 'sets k=v tags (same as content/set_tags)',
      response: tagsResult,
      errors: [...uriErrors],
      body: s.object({
        uri: s.uri().annotate({ pattern: SCOPED_URI_PATTERN }),
        tags: s.array(s.string().annotate({ pattern: TAG_PATTERN }), { max: 64 }),
        mode: s.enum(['replace', 'append'] as const).default('replace'),
        recursive: s.bool().default(false),
        telemetry: s.telemetry(),
      }),
      async handler(ctx) {
        const { uri, tags, mode, recursive } = ctx.body;
        checkTags(tags);
        const u = await resolve(host, ctx.identity, uri, 'write');
        const out = await setTags(host, cache, ctx.identity, u.uri, tags, { mode, recursive });
        // Same result as POST /api/v1/content/set_tags (the spec calls the two equivalent).
        return {
          uri: u.uri,
          updated_uris: out.updated,
          root_uri: rootUriOf(u),
          context_type: u.contextType,
          tags,
          mode,
          recursive,
          success_count: out.updated.length,
          failed_count: 0,
          skipped_count: out.skipped_count,
        };
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/fs/mkdir',
      summary: 'creates a directory and its parents (existing: unchanged); writes its L0',
      response: resultObject({ uri: s.string() }),
      errors: [...uriErrors, 'CONFLICT'],
      body: s.object({ uri: s.uri(), description: s.string({ max: 64 * 1024 }).optional(), telemetry: s.telemetry() }),
      handler: (ctx) => mkdir(host, ctx.identity, ctx.body),
    });

    host.route({
      method: 'DELETE',
      path: '/api/v1/fs',
      summary: 'removes a file or directory (idempotent; recursive for a non-empty directory)',
      response: resultObject({ uri: s.string(), deleted_count: s.int().optional() }),
      errors: [...uriErrors, 'CONFLICT', 'FAILED_PRECONDITION'],
      // Never the account root or the ctx://resources and ctx://user scope roots (ops.ts rm).
      query: s.object({ uri: s.uri().annotate({ not: { pattern: '^ctx://(resources|user)?/?$' } }), recursive: s.bool().default(false) }),
      handler: (ctx) => rm(host, ctx.identity, ctx.query),
    });

    host.route({
      method: 'POST',
      path: '/api/v1/fs/mv',
      summary: 'moves a file or directory',
      response: resultObject({ from: s.string(), to: s.string() }),
      errors: [...uriErrors, 'CONFLICT'],
      body: s.object({ from_uri: s.uri().annotate({ pattern: NODE_URI_PATTERN }), to_uri: s.uri().annotate({ pattern: NODE_URI_PATTERN }), telemetry: s.telemetry() }),
      handler: (ctx) => mv(host, ctx.identity, ctx.body),
    });

    // Not in the spec: who may read a resources entry. Without it nothing is ever denied.
    host.route({
      method: 'POST',
      path: '/api/v1/fs/access',
      summary: 'sets who may read an entry under ctx://resources (null lifts the restriction; ROOT or ADMIN)',
      response: resultObject({ uri: s.string(), readers: s.array(s.string()).nullable() }),
      errors: [...uriErrors],
      roles: ['ROOT', 'ADMIN'],
      body: s.object({ uri: s.uri().annotate({ pattern: SHARED_RESOURCE_URI_PATTERN }), readers: s.array(s.string({ min: 1, max: 128 }), { max: 1000 }).nullable() }),
      async handler(ctx) {
        const u = await resolve(host, ctx.identity, ctx.body.uri, 'write');
        if (u.scope !== 'resources' || u.segments.length < 2)
          throw invalidArgument(`read access is set on entries inside ctx://resources, got ${u.uri}`, { field: 'uri', resource: u.uri });
        const readers = ctx.body.readers;
        readers?.forEach((r, i) => {
          if (!isValidId(r)) throw invalidArgument(`readers[${i}] is not a valid user id: ${JSON.stringify(r)}`, { field: `readers[${i}]` });
        });
        // The index entry goes first when restricting and last when lifting: it stays a superset.
        if (readers !== null) await restricted.add(ctx.identity.accountId, u.path);
        await host.unscopedVfs.setMeta(ctx.identity.accountId, u.path, { meta: { [READ_ACCESS_KEY]: readers === null ? null : { users: [...new Set(readers)] } } });
        if (readers === null) await restricted.remove(ctx.identity.accountId, u.path);
        return { uri: uriFromPath(u.path), readers };
      },
    });

  },
});
