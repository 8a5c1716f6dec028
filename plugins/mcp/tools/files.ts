/** File-system tools: read, list, tree, stat, mkdir, move, forget, tag — /api/v1/content/* and /api/v1/fs/*. */
import { s, type InvokeReply } from 'ctx/plugin';
import { asObject, clip, defineTool, oneLine, type ToolContext } from '../tool.js';

const uriField = s.string({ min: 1 }).describe('a ctx:// URI (ctx://~/ is your own space: ~/resources, ~/memories, ~/skills, ~/sessions)');

export interface Entry {
  name: string;
  uri: string;
  isDir: boolean;
  size?: number;
  abstract?: string;
  rel_path?: string;
  access?: 'denied';
}

/** One URI at a level: directories give their L0 abstract (0), L1 overview (1) or both plus children (2); files their text. */
export async function readAt(c: ToolContext, uri: string, level: 0 | 1 | 2, range?: { offset: number; limit: number }): Promise<{ uri: string; kind: 'file' | 'dir'; level: number; content: string }> {
  const st = (await c.call({ method: 'GET', path: '/api/v1/fs/stat', query: { uri } })) as { isDir: boolean; uri?: string };
  if (!st.isDir) {
    const content = (await c.call({ method: 'GET', path: '/api/v1/content/read', query: { uri, offset: range?.offset ?? 0, limit: range?.limit ?? -1 } })) as string;
    return { uri, kind: 'file', level: 2, content };
  }
  if (level === 0) return { uri, kind: 'dir', level, content: (await c.call({ method: 'GET', path: '/api/v1/content/abstract', query: { uri } })) as string };
  const overview = (await c.call({ method: 'GET', path: '/api/v1/content/overview', query: { uri } })) as string;
  if (level === 1) return { uri, kind: 'dir', level, content: overview };
  const entries = (await c.call({ method: 'GET', path: '/api/v1/fs/ls', query: { uri, abs_limit: 200 } })) as Entry[];
  return { uri, kind: 'dir', level, content: [overview, '', 'Entries:', ...entries.map(entryLine)].join('\n') };
}

export function entryLine(e: Entry): string {
  if (e.access === 'denied') return `- ${e.uri} (access denied)`;
  const what = e.isDir ? 'dir' : `${e.size ?? 0} bytes`;
  return `- ${e.rel_path ?? e.uri}${e.isDir ? '/' : ''} (${what})${e.abstract ? ': ' + oneLine(e.abstract, 160) : ''}`;
}

export const read = defineTool({
  name: 'read',
  title: 'Read by URI',
  description:
    'Reads one or more ctx:// URIs. A file gives its text (optionally a range of lines). A directory gives, by `level`: 0 its one-paragraph abstract, 1 its overview (what is inside and why), 2 the overview plus its entries. Start at level 0 or 1 on large directories and go deeper only where needed. Use it after `find`/`list` to get the actual content.',
  input: s.object({
    uri: s.union<string | string[]>([s.string({ min: 1 }), s.array(s.string({ min: 1 }), { min: 1, max: 20 })], 'a ctx:// URI or an array of up to 20').describe('a ctx:// URI or an array of up to 20'),
    level: s.int({ min: 0, max: 2 }).default(2).describe('directories: 0 abstract, 1 overview, 2 overview and entries; files are always read in full (or the line range)'),
    offset: s.int({ min: 0 }).default(0).describe('files: first line to return (0-based)'),
    limit: s.int({ min: -1 }).default(-1).describe('files: number of lines (-1: to the end)'),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    const uris = typeof a.uri === 'string' ? [a.uri] : a.uri;
    const items = await Promise.all(
      uris.map(async (uri) => {
        try {
          return await readAt(c, uri, a.level as 0 | 1 | 2, { offset: a.offset, limit: a.limit });
        } catch (err) {
          if (uris.length === 1) throw err;
          const e = err as { code?: string; message?: string };
          return { uri, error: { code: e.code ?? 'INTERNAL', message: e.message ?? String(err) } };
        }
      }),
    );
    if (uris.length === 1) {
      const one = items[0] as { content: string };
      return { text: one.content, structured: asObject(one) };
    }
    const text = items.map((i) => ('error' in i ? `=== ${i.uri}\n${i.error.code}: ${i.error.message}` : `=== ${i.uri}\n${i.content}`)).join('\n\n');
    return { text, structured: { items }, isError: items.every((i) => 'error' in i) };
  },
});

const listFields = {
  uri: uriField,
  node_limit: s.int({ min: 1, max: 10_000 }).default(200).describe('most entries to return'),
  show_all_hidden: s.bool().default(false).describe('include dot-files'),
};

export const list = defineTool({
  name: 'list',
  title: 'List a directory',
  description:
    'The entries of a ctx:// directory, directories first, each with its size and a short abstract. Use it to browse: start at ctx://resources (shared documents) or ctx://~/memories (your memories). `recursive` lists everything below.',
  input: s.object({ ...listFields, recursive: s.bool().default(false) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    const entries = (await c.call({ method: 'GET', path: '/api/v1/fs/ls', query: { ...a, abs_limit: 160 } })) as Entry[];
    return { text: [`${entries.length} entr${entries.length === 1 ? 'y' : 'ies'} in ${a.uri}`, ...entries.map(entryLine)].join('\n'), structured: { entries } };
  },
});

export const tree = defineTool({
  name: 'tree',
  title: 'Directory tree',
  description: 'A ctx:// directory\'s tree to `level_limit` levels, entries with their path relative to it. Use it to see the shape of a resource (a repository, a document set) at a glance.',
  input: s.object({ ...listFields, level_limit: s.int({ min: 1, max: 16 }).default(3).describe('depth') }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    const entries = (await c.call({ method: 'GET', path: '/api/v1/fs/tree', query: { ...a, abs_limit: 0 } })) as Entry[];
    return { text: [`${a.uri}`, ...entries.map((e) => `  ${e.rel_path ?? e.name}${e.isDir ? '/' : ''}${e.access === 'denied' ? ' (access denied)' : ''}`)].join('\n'), structured: { entries } };
  },
});

export const stat = defineTool({
  name: 'stat',
  title: 'Metadata of a URI',
  description: 'Whether a ctx:// URI exists and what it is: file or directory, size, modification time, and for directories an estimate of the items below. NOT_FOUND when it does not exist.',
  input: s.object({ uri: uriField }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    const r = asObject(await c.call({ method: 'GET', path: '/api/v1/fs/stat', query: a }));
    return { text: `${r.uri}: ${r.isDir ? 'directory' : 'file'}, ${r.size} bytes, modified ${r.modTime}${r.count !== undefined ? `, ~${r.count} items` : ''}`, structured: r };
  },
});

export const mkdir = defineTool({
  name: 'mkdir',
  title: 'Make a directory',
  description: 'Creates a ctx:// directory and its parents (an existing one is left as it is). `description` becomes its abstract, which `find` and `list` show.',
  input: s.object({ uri: uriField, description: s.string({ max: 64 * 1024 }).optional().describe('what the directory is for (its L0 abstract)') }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(c, a) {
    const r = asObject(await c.call({ method: 'POST', path: '/api/v1/fs/mkdir', body: a }));
    return { text: `created ${r.uri}`, structured: r };
  },
});

export const move = defineTool({
  name: 'move',
  title: 'Move or rename',
  description: 'Moves (or renames) a file or directory to a new ctx:// URI; CONFLICT when the target exists.',
  input: s.object({ from_uri: uriField, to_uri: uriField }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(c, a) {
    const r = asObject(await c.call({ method: 'POST', path: '/api/v1/fs/mv', body: a }));
    return { text: `moved ${r.from} -> ${r.to}`, structured: r };
  },
});

export const forget = defineTool({
  name: 'forget',
  title: 'Delete (forget)',
  description: 'Deletes a file or directory, for example a memory that is wrong or outdated. A non-empty directory needs `recursive: true`. Deleting what does not exist succeeds. This cannot be undone.',
  input: s.object({ uri: uriField, recursive: s.bool().default(false) }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(c, a) {
    const r = asObject(await c.call({ method: 'DELETE', path: '/api/v1/fs', query: a }));
    return { text: `deleted ${r.uri}${r.deleted_count !== undefined ? ` (${r.deleted_count} entries)` : ''}`, structured: r };
  },
});

export const tag = defineTool({
  name: 'tag',
  title: 'Tag a file or directory',
  description: 'Sets k=v tags on a file or directory (e.g. project=apollo, status=draft), which `find` can filter on. `mode` replace (default) or append; `recursive` tags everything below too.',
  input: s.object({
    uri: uriField,
    tags: s.array(s.string({ min: 1, max: 512 }), { max: 64 }).describe('k=v strings'),
    mode: s.enum(['replace', 'append'] as const).default('replace'),
    recursive: s.bool().default(false),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(c, a) {
    const r = asObject(await c.call({ method: 'POST', path: '/api/v1/content/set_tags', body: a }));
    return { text: `tagged ${r.success_count} entr${r.success_count === 1 ? 'y' : 'ies'} under ${r.uri}: ${(r.tags as string[]).join(', ')}`, structured: r };
  },
});

/** Bytes of a route that answered outside the envelope, as text. */
export function replyText(r: unknown): string {
  return Buffer.isBuffer((r as InvokeReply).body) ? (r as InvokeReply).body.toString('utf8') : clip(JSON.stringify(r), 2000);
}
