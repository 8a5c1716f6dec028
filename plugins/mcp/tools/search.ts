/** Retrieval tools: find, search (with a session), grep, glob — POST /api/v1/search/*. */
import { s } from 'ctx/plugin';
import { asObject, defineTool, oneLine, type ToolOutput } from '../tool.js';

const target = s
  .union<string | string[]>([s.string({ min: 1 }), s.array(s.string({ min: 1 }), { max: 64 })], 'a ctx:// URI or an array of them')
  .optional()
  .describe('where to look: a ctx:// directory URI or several (default: everything you may read). ctx://resources is shared documents, ctx://user/<you>/memories your memories, ctx://user/<you>/skills your skills; ctx://~/ is short for your own space');
const findFields = {
  query: s.string({ min: 1, max: 8192 }).describe('what you are looking for, in natural language'),
  target_uri: target,
  context_type: s.enum(['resource', 'memory', 'skill'] as const).optional().describe('only this kind of context'),
  tags: s.array(s.string({ max: 512 }), { max: 64 }).optional().describe('k=v tags every hit must carry'),
  limit: s.int({ min: 1, max: 100 }).default(10).describe('most hits to return'),
  score_threshold: s.number({ min: 0, max: 1 }).optional().describe('drop hits scoring below this (0..1)'),
  read_content: s.bool().optional().describe('include each hit\'s content, to save a read'),
};

interface Hit {
  uri: string;
  context_type: string;
  level: number;
  abstract: string;
  score: number;
  content?: string;
}
interface Hits {
  memories: Hit[];
  resources: Hit[];
  skills: Hit[];
  total: number;
  query_plan?: { expanded_queries: string[] };
}

function hitsOutput(r: Hits): ToolOutput {
  const all = [...r.memories, ...r.resources, ...r.skills].sort((a, b) => b.score - a.score);
  const lines = [`${r.total} result${r.total === 1 ? '' : 's'}${r.query_plan ? ` (queries: ${r.query_plan.expanded_queries.join(' | ')})` : ''}`];
  for (const h of all) {
    lines.push(`- ${h.uri} [${h.context_type}, L${h.level}, score ${h.score.toFixed(3)}] ${oneLine(h.abstract)}`);
    if (h.content !== undefined) lines.push(`  content: ${oneLine(h.content, 1000)}`);
  }
  return { text: lines.join('\n'), structured: asObject(r) };
}

export const find = defineTool({
  name: 'find',
  title: 'Find contexts',
  description:
    'Semantic search over everything you may read in ctx: your memories, shared resources (documents, code) and skills. Use it before answering a question that may depend on what was stored earlier, or to locate a document by meaning. Returns the best-matching ctx:// URIs with their kind, level (0 abstract, 1 overview, 2 content), score and a one-line abstract; read a URI with `read` for more.',
  input: s.object(findFields),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    const r = (await c.call({ method: 'POST', path: '/api/v1/search/find', body: dropUndefined(a) })) as Hits;
    return hitsOutput(r);
  },
});

export const search = defineTool({
  name: 'search',
  title: 'Search with conversation context',
  description:
    'Like `find`, but plans the query first: with a `session_id` it uses that session\'s recent messages to understand what is being asked, and may expand the query into several. Use it for follow-up questions whose meaning depends on the conversation ("what did we decide about it?"). Returns the same hits as `find` plus the expanded queries.',
  input: s.object({
    ...findFields,
    session_id: s.string({ min: 1, max: 128 }).optional().describe('a ctx session whose messages give the query its context'),
    mode: s.enum(['auto', 'fast', 'deep'] as const).optional().describe('fast: no query planning by the LLM; deep: more expansion'),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    const r = (await c.call({ method: 'POST', path: '/api/v1/search/search', body: dropUndefined(a) })) as Hits;
    return hitsOutput(r);
  },
});

export const grep = defineTool({
  name: 'grep',
  title: 'Grep files',
  description:
    'Lines matching a regular expression in the files under a ctx:// URI (recursive). Use it for exact strings, identifiers or patterns that semantic `find` would miss. Returns "uri:line: text" lines.',
  input: s.object({
    uri: s.string({ min: 1 }).describe('a file or directory URI to search under'),
    pattern: s.string({ min: 1, max: 4096 }).describe('regular expression (Rust regex syntax)'),
    case_insensitive: s.bool().optional(),
    exclude_uri: s.string({ min: 1 }).optional().describe('a subtree to skip'),
    node_limit: s.int({ min: 1, max: 10_000 }).default(200).describe('most matching lines'),
    level_limit: s.int({ min: 1, max: 64 }).optional().describe('deepest directory level searched (default 5)'),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    const r = (await c.call({ method: 'POST', path: '/api/v1/search/grep', body: dropUndefined(a) })) as { matches: Array<{ uri: string; line: number; content: string }>; count: number };
    const lines = [`${r.count} matching line${r.count === 1 ? '' : 's'}`, ...r.matches.map((m) => `${m.uri}:${m.line}: ${oneLine(m.content, 300)}`)];
    return { text: lines.join('\n'), structured: asObject(r) };
  },
});

export const glob = defineTool({
  name: 'glob',
  title: 'Glob paths',
  description:
    'ctx:// URIs under `uri` whose path relative to it matches a glob (`*` within a segment, `**` across segments, `?`, `[abc]`, `{a,b}`). Use it to list files by name or extension, e.g. `**/*.md`. Returns the matching URIs.',
  input: s.object({
    pattern: s.string({ min: 1, max: 1024 }).describe('glob relative to uri, e.g. **/*.ts'),
    uri: s.string({ min: 1 }).default('ctx://').describe('directory to search under'),
    node_limit: s.int({ min: 1, max: 10_000 }).default(1000).describe('most URIs to return'),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    const r = (await c.call({ method: 'POST', path: '/api/v1/search/glob', body: a })) as { matches: string[]; count: number };
    return { text: [`${r.count} match${r.count === 1 ? '' : 'es'}`, ...r.matches].join('\n'), structured: asObject(r) };
  },
});

export function dropUndefined<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}
