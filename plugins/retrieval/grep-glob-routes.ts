/** `search/grep` and `search/glob`: walks of the caller's view, each file checked against the entry rules. */
import { invalidArgument, notFound } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import type { PluginHost } from 'ctx/plugin';
import { s } from 'ctx/plugin';
import { authorize, canRead, isAncestorOrSelf, parseUri } from 'ctx/plugin';
import { SIDECARS } from 'ctx/plugin';
import { compileGlob, grepFiles, splitAbsoluteGlob } from './grep-glob.js';
import { resultObject } from 'ctx/plugin';
import type { OpStats } from './op-stats.js';

export function registerGrepGlobRoutes(host: PluginHost, ops: Record<'grep' | 'glob', OpStats>, readable: (identity: Identity, uri: string) => Promise<boolean>): void {
  host.route({
    method: 'POST',
    path: '/api/v1/search/grep',
    summary: 'lines matching a regular expression in files under uri',
    response: resultObject({ matches: s.array(resultObject({ uri: s.string(), line: s.int(), content: s.string() })), count: s.int() }),
    errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
    body: s.object({
      uri: s.uri(),
      pattern: s.string({ min: 1, max: 4096 }).annotate({ format: 'regex' }),
      case_insensitive: s.bool().optional(),
      exclude_uri: s.uri().optional(),
      node_limit: s.int({ min: 1, max: 100_000 }).optional(),
      level_limit: s.int({ min: 1, max: 64 }).optional(),
    }),
    async handler(ctx) {
      const t0 = performance.now();
      const b = ctx.body;
      const u = parseUri(b.uri, ctx.identity);
      authorize(u, ctx.identity, 'read');
      const ex = b.exclude_uri === undefined ? undefined : parseUri(b.exclude_uri, ctx.identity, { field: 'exclude_uri' }).uri;
      const matches = await grepFiles(host, ctx.identity, u, {
        pattern: b.pattern,
        caseInsensitive: b.case_insensitive ?? false,
        exclude: ex,
        limit: b.node_limit ?? 1000,
        depth: b.level_limit ?? 5,
        readable,
      });
      ops.grep.record(performance.now() - t0, matches.length);
      return { matches, count: matches.length };
    },
  });

  host.route({
    method: 'POST',
    path: '/api/v1/search/glob',
    summary: 'URIs under uri whose relative path matches a glob',
    response: resultObject({ matches: s.array(s.string()), count: s.int() }),
    errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
    body: s.object({ pattern: s.string({ min: 1, max: 1024 }), uri: s.uri().default('ctx://'), node_limit: s.int({ min: 1, max: 100_000 }).optional() }),
    async handler(ctx) {
      const t0 = performance.now();
      const b = ctx.body;
      let u = parseUri(b.uri, ctx.identity);
      let pattern = b.pattern;
      const absolute = splitAbsoluteGlob(pattern);
      if (absolute) {
        // The URI part of the pattern narrows `uri`; it may not widen it.
        const base = parseUri(absolute.base, ctx.identity, { field: 'pattern' });
        if (!isAncestorOrSelf(u.uri, base.uri))
          throw invalidArgument(`pattern ${b.pattern} lies outside uri ${u.uri}`, { field: 'pattern', uri: u.uri });
        if (absolute.rest === '') throw invalidArgument('pattern names a directory, not entries below it; add a wildcard such as /*', { field: 'pattern' });
        u = base;
        pattern = absolute.rest;
      }
      authorize(u, ctx.identity, 'read');
      const { regex, maxDepth } = compileGlob(pattern);
      const limit = b.node_limit ?? 10_000;
      const matches: string[] = [];
      const base = u.path === '' ? '' : u.path + '/';
      // A root hidden by the entry rules holds nothing the caller may see: no matches, as before.
      const node = (await host.access.canReadPath(ctx.identity, u.path)) ? await ctx.vfs.stat(u.uri) : 'hidden';
      if (!node) throw notFound(`no such file or directory: ${u.uri}`, { resource: u.uri });
      if (node === 'hidden') {
        // nothing to match
      } else if (node.kind === 'file') {
        // A file is the only candidate, matched by its name as if the pattern were relative to its
        // directory (so `*.md` and `**/*.md` both match `ctx://.../a.md`); a caller narrowing a glob
        // to one file gets it back or an empty list, never an error for a valid request.
        if (!SIDECARS.has(node.name) && regex.test(node.name) && (await readable(ctx.identity, u.uri))) matches.push(u.uri);
      } else {
        for await (const e of ctx.vfs.walk(u.uri, { maxDepth, descend: (d) => canReadPath(d.path, ctx.identity) })) {
          if (SIDECARS.has(e.name) || !canReadPath(e.path, ctx.identity)) continue;
          if (!regex.test(e.path.slice(base.length))) continue;
          if (!(await readable(ctx.identity, 'ctx://' + e.path))) continue;
          matches.push('ctx://' + e.path);
          if (matches.length >= limit) break;
        }
      }
      ops.glob.record(performance.now() - t0, matches.length);
      return { matches, count: matches.length };
    },
  });

}

/** Namespace rules alone (cheap enough for the descend filter of a walk); the entry rules are asked per hit. */
export function canReadPath(path: string, identity: Identity): boolean {
  try {
    return canRead(parseUri('ctx://' + path, identity), identity);
  } catch {
    return false;
  }
}
