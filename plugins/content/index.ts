/**
 * Content plugin: tiered reads (abstract, overview, read, download), writes, batch writes, tags and
 * reindex (spec Part 2, "Content"). README.md describes the routes and the choices made.
 */
import type { Identity } from 'ctx/plugin';
import { definePlugin } from 'ctx/plugin';
import { NODE_URI_PATTERN, SCOPED_URI_PATTERN, s } from 'ctx/plugin';
import { HOST_VERSION } from 'ctx/plugin';
import { parseBatchBody } from './batch-body.js';
import { LIMITS, batchWrite, batchWriteBody, type AccessCheck } from './batch-write.js';
import { download, readContent, readSidecar } from './read.js';
import { registerReindex } from './reindex.js';
import { resolveUri } from './targets.js';
import { rootUriOf } from 'ctx/plugin';
import { checkOptionalTags as checkTags } from 'ctx/plugin';
import { writeContent } from './write.js';
import { resultObject } from 'ctx/plugin';

const tagList = s.array(s.string(), { max: 64 });

export default definePlugin({
  name: 'content',
  version: HOST_VERSION,
  // Tag logic and the per-entry `access: denied` rules under ctx://resources live in fs, once.
  dependsOn: ['fs'],
  setup(host) {
    const fs = host.use('fs');
    const accessCheck = (identity: Identity) => (uri: string) => fs.assertContentAccess(identity, uri);
    // Many targets in one storage read, when the fs service offers it (a stand-in may not).
    const batchAccessCheck = (identity: Identity): AccessCheck =>
      typeof fs.assertContentAccessMany === 'function' ? Object.assign(accessCheck(identity), { many: (uris: string[]) => fs.assertContentAccessMany(identity, uris) }) : accessCheck(identity);


    host.route({
      method: 'GET',
      path: '/api/v1/content/abstract',
      summary: 'a directory\'s L0 abstract, without its metadata header',
      response: s.string(),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
      query: s.object({ uri: s.uri() }),
      handler: (ctx) => readSidecar(ctx.vfs, ctx.identity, ctx.query.uri, 'abstract', accessCheck(ctx.identity)),
    });

    host.route({
      method: 'GET',
      path: '/api/v1/content/overview',
      summary: 'a directory\'s L1 overview',
      response: s.string(),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
      query: s.object({ uri: s.uri() }),
      handler: (ctx) => readSidecar(ctx.vfs, ctx.identity, ctx.query.uri, 'overview', accessCheck(ctx.identity)),
    });

    host.route({
      method: 'GET',
      path: '/api/v1/content/read',
      summary: 'a file\'s text (by URI or 32-hex record id), optionally a range of lines',
      response: s.string(),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
      query: s.object({
        uri: s.uri(),
        offset: s.int({ min: 0 }).default(0),
        limit: s.int({ min: -1 }).default(-1),
        raw: s.bool().default(false),
      }),
      handler: (ctx) => readContent(ctx.vfs, ctx.identity, ctx.query, accessCheck(ctx.identity)),
    });

    host.route({
      method: 'GET',
      path: '/api/v1/content/download',
      summary: 'a file\'s raw bytes as an attachment',
      reply: { contentType: 'application/octet-stream', description: 'the file\'s bytes, with Content-Disposition: attachment' },
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
      query: s.object({ uri: s.uri().annotate({ pattern: NODE_URI_PATTERN }) }),
      handler: (ctx) => download(ctx.vfs, ctx.identity, ctx.query.uri, accessCheck(ctx.identity)),
    });

    host.route({
      method: 'POST',
      path: '/api/v1/content/write',
      summary: 'writes a file (replace, append or create); parents are created',
      response: resultObject({ uri: s.string(), root_uri: s.string(), context_type: s.string(), mode: s.string(), written_bytes: s.int(), content_updated: s.bool(), semantic_status: s.enum(['queued', 'complete', 'deferred']), vector_status: s.string(), queue_status: resultObject({ Semantic: resultObject({ processed: s.int(), error_count: s.int(), errors: s.array(s.string()) }).optional(), Embedding: resultObject({ processed: s.int(), error_count: s.int(), errors: s.array(s.string()) }).optional() }).optional() }),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND', 'CONFLICT', 'PROCESSING_ERROR', 'DEADLINE_EXCEEDED'],
      body: s.object({
        uri: s.uri().annotate({ pattern: NODE_URI_PATTERN }),
        content: s.string(),
        mode: s.enum(['replace', 'append', 'create'] as const).default('replace'),
        wait: s.bool().default(false),
        timeout: s.number({ min: 0 }).nullable().optional(),
        tags: tagList.optional(),
        tag_mode: s.enum(['replace', 'append'] as const).default('replace'),
      }),
      handler: (ctx) => writeContent(host, ctx.identity, ctx.body, accessCheck(ctx.identity), ctx.signal),
    });

    host.route({
      method: 'POST',
      path: '/api/v1/content/batch-write',
      summary: 'writes many files under one root in one locked batch, with optional hash preconditions',
      response: resultObject({ root_uri: s.string(), created: s.array(s.string()), updated: s.array(s.string()), unchanged: s.array(s.string()), semantic_status: s.string(), vector_status: s.string(), queue_status: resultObject({ Semantic: resultObject({ processed: s.int(), error_count: s.int(), errors: s.array(s.string()) }).optional(), Embedding: resultObject({ processed: s.int(), error_count: s.int(), errors: s.array(s.string()) }).optional() }).optional() }),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND', 'CONFLICT', 'PROCESSING_ERROR', 'DEADLINE_EXCEEDED'],
      body: batchWriteBody,
      // Room for 16 MiB of content sent as base64 or escaped JSON; the content limits are checked
      // after parsing, with messages naming them.
      bodyLimit: LIMITS.totalBytes * 3,
      // Long plain contents stay in the request body and are written from slices of it.
      parseJson: parseBatchBody,
      handler: (ctx) => batchWrite(host, ctx.identity, ctx.body, batchAccessCheck(ctx.identity), ctx.signal, ctx.req.rawBody),
    });

    host.route({
      method: 'POST',
      path: '/api/v1/content/set_tags',
      summary: 'sets k=v tags on a file or directory (replace or append; recursive for descendants)',
      response: resultObject({ uri: s.string(), updated_uris: s.array(s.string()), root_uri: s.string(), context_type: s.string(), tags: s.array(s.string()), mode: s.enum(['replace', 'append']), recursive: s.bool(), success_count: s.int(), failed_count: s.int(), skipped_count: s.int() }),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
      body: s.object({
        uri: s.uri().annotate({ pattern: SCOPED_URI_PATTERN }),
        tags: tagList,
        mode: s.enum(['replace', 'append'] as const).default('replace'),
        recursive: s.bool().default(false),
      }),
      async handler(ctx) {
        const { uri, tags, mode, recursive } = ctx.body;
        const u = resolveUri(uri, ctx.identity, 'write');
        checkTags(tags);
        const out = await fs.setTags(ctx.identity, u.uri, tags, { mode, recursive });
        // The same result as POST /api/v1/fs/attrs/set_tags (the spec calls the two equivalent).
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

    const reindex = registerReindex(host);
    host.route({
      method: 'POST',
      path: '/api/v1/content/reindex',
      summary: 'rebuilds vectors (and optionally L0/L1) under a URI as a task; with wait, answers when it finished',
      response: resultObject({ task_id: s.string(), status: s.string(), uri: s.string().optional(), mode: s.string().optional(), recursive: s.bool().optional() }),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND', 'CONFLICT', 'PROCESSING_ERROR'],
      body: s.object({
        uri: s.uri(),
        mode: s.enum(['vectors_only', 'semantic_and_vectors'] as const).default('vectors_only'),
        wait: s.bool().default(false),
        recursive: s.bool().default(false),
      }),
      handler: (ctx) => reindex(ctx.identity, ctx.body, accessCheck(ctx.identity), ctx.signal),
    });
  },
});
