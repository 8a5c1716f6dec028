/** Writing tools: write (modes) and edit (replace a unique string) — /api/v1/content/write and batch-write. */
import { createHash } from 'node:crypto';
import { conflict, invalidArgument, s } from 'ctx/plugin';
import { asObject, defineTool } from '../tool.js';

export const write = defineTool({
  name: 'write',
  title: 'Write a file',
  description:
    'Writes text to a ctx:// file, creating parent directories. `mode`: replace (default; creates or overwrites), append (adds to the end), create (CONFLICT if it exists). The file is then indexed so `find` sees it. Use ctx://~/resources/... for your own documents and notes, ctx://resources/... for documents the whole account shares (if you may write there); memories are written by `remember`.',
  input: s.object({
    uri: s.string({ min: 1 }).describe('the file\'s ctx:// URI'),
    content: s.string().describe('the text'),
    mode: s.enum(['replace', 'append', 'create'] as const).default('replace'),
    tags: s.array(s.string({ min: 1, max: 512 }), { max: 64 }).optional().describe('k=v tags for the file'),
    wait: s.bool().default(false).describe('return only once the file is indexed'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(c, a) {
    const r = asObject(await c.call({ method: 'POST', path: '/api/v1/content/write', body: a }));
    return { text: `wrote ${r.written_bytes} bytes to ${r.uri} (${r.mode}; index: ${r.semantic_status})`, structured: r };
  },
});

function count(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

export const edit = defineTool({
  name: 'edit',
  title: 'Edit a file',
  description:
    'Replaces `old_string` with `new_string` in a ctx:// file, as a code editor does. `old_string` must occur exactly once (include surrounding lines to make it unique) unless `replace_all` is true. The write fails with CONFLICT if the file changed since it was read, so nothing written meanwhile is lost; read it again and retry.',
  input: s.object({
    uri: s.string({ min: 1 }).describe('the file\'s ctx:// URI'),
    old_string: s.string({ min: 1 }).describe('exact text to replace'),
    new_string: s.string().describe('replacement text'),
    replace_all: s.bool().default(false).describe('replace every occurrence'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(c, a) {
    if (a.old_string === a.new_string) throw invalidArgument('new_string is the same as old_string', { field: 'new_string' });
    const before = (await c.call({ method: 'GET', path: '/api/v1/content/read', query: { uri: a.uri, raw: true } })) as string;
    const n = count(before, a.old_string);
    if (n === 0) throw invalidArgument(`old_string does not occur in ${a.uri}`, { field: 'old_string', occurrences: 0 });
    if (n > 1 && !a.replace_all)
      throw invalidArgument(`old_string occurs ${n} times in ${a.uri}; add surrounding text to make it unique, or set replace_all`, { field: 'old_string', occurrences: n });
    const after = a.replace_all ? before.split(a.old_string).join(a.new_string) : before.replace(a.old_string, () => a.new_string);
    const base = 'sha256:' + createHash('sha256').update(before, 'utf8').digest('hex');
    const cut = a.uri.lastIndexOf('/');
    const root = cut > 'ctx://'.length ? a.uri.slice(0, cut) : a.uri;
    try {
      await c.call({
        method: 'POST',
        path: '/api/v1/content/batch-write',
        body: { root_uri: root, wait: false, operations: [{ uri: a.uri, content: after, precondition: { kind: 'replace_if_hash', base_hash: base } }] },
      });
    } catch (err) {
      if ((err as { code?: string }).code === 'CONFLICT') throw conflict(`${a.uri} changed since it was read; read it again and retry the edit`, a.uri);
      throw err;
    }
    return { text: `replaced ${a.replace_all ? n : 1} occurrence${n > 1 && a.replace_all ? 's' : ''} in ${a.uri}`, structured: { uri: a.uri, replacements: a.replace_all ? n : 1, bytes: Buffer.byteLength(after) } };
  },
});
