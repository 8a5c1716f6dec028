/** Importing and watching sources: add_resource, watch, list_watches, cancel_watch — /api/v1/resources and /api/v1/watches. */
import { randomBytes } from 'node:crypto';
import { invalidArgument, s } from 'ctx/plugin';
import { asObject, defineTool, type ToolContext } from '../tool.js';

interface Started {
  status: string;
  root_uri: string;
  task_id: string;
  source_type: string;
  source: string;
  files?: number;
}

/** A text as a multipart `file` part, stored by the temp-upload route for the caller. */
async function uploadText(c: ToolContext, filename: string, content: string): Promise<string> {
  const boundary = 'ctx-mcp-' + randomBytes(12).toString('hex');
  const safeName = filename.replace(/["\r\n\\]/g, '_');
  const data = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName}"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n`),
    Buffer.from(content, 'utf8'),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const r = asObject(await c.call({ method: 'POST', path: '/api/v1/resources/temp_upload', rawBody: { contentType: `multipart/form-data; boundary=${boundary}`, data } }));
  return r.temp_file_id as string;
}

function startedText(r: Started): string {
  return `${r.status === 'success' ? 'imported' : 'importing'} ${r.source} (${r.source_type}) into ${r.root_uri}; task ${r.task_id} is ${r.status}${r.files !== undefined ? `, ${r.files} files` : ''}`;
}

export const addResource = defineTool({
  name: 'add_resource',
  title: 'Add a resource',
  description:
    'Imports a source into ctx://resources so it can be found and read: a web page or file (http/https URL), a git repository (a .git URL or a code host /owner/repo URL), or a text you give in `content` (with a `filename`). By default it returns at once with a task id (check it with `task_status`); `wait: true` returns when the import is indexed. `to` names the target URI, otherwise it goes below `parent` (default ctx://resources).',
  input: s.object({
    source: s.string({ min: 1, max: 8192 }).optional().describe('URL of a page, file or git repository'),
    content: s.string().optional().describe('text to import instead of a URL'),
    filename: s.string({ min: 1, max: 255 }).optional().describe('name of the imported text (with `content`), e.g. notes.md'),
    to: s.string({ min: 1, max: 4096 }).optional().describe('exact target URI'),
    parent: s.string({ min: 1, max: 4096 }).optional().describe('directory to import below (default ctx://resources)'),
    reason: s.string({ max: 16384 }).optional().describe('why this is being added (kept with the resource)'),
    instruction: s.string({ max: 16384 }).optional().describe('how to process it'),
    tags: s.array(s.string({ min: 1, max: 512 }), { max: 64 }).optional(),
    wait: s.bool().default(false),
    timeout: s.number({ min: 0, max: 3600 }).optional().describe('seconds to wait at most with `wait`'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(c, a) {
    if ((a.source === undefined) === (a.content === undefined)) throw invalidArgument('give exactly one of source (a URL) or content (a text)', { field: 'source' });
    if (a.content !== undefined && !a.filename) throw invalidArgument('filename is required with content', { field: 'filename' });
    const from = a.content !== undefined ? { temp_file_id: await uploadText(c, a.filename!, a.content) } : { path: a.source };
    const { source: _s, content: _c, filename: _f, ...rest } = a;
    const r = (await c.call({ method: 'POST', path: '/api/v1/resources', body: { ...rest, ...from, ...(a.filename ? { source_name: a.filename } : {}) } })) as Started;
    return { text: startedText(r), structured: asObject(r) };
  },
});

export const watch = defineTool({
  name: 'watch',
  title: 'Watch a source',
  description:
    'Imports a URL or git repository into `to` and re-imports it every `interval_minutes`, so ctx keeps a fresh copy (a watch on `to` that exists is updated). Returns the import task; `list_watches` shows the watches, `cancel_watch` stops one.',
  input: s.object({
    source: s.string({ min: 1, max: 8192 }).describe('URL of a page, file or git repository'),
    to: s.string({ min: 1, max: 4096 }).describe('target URI, e.g. ctx://resources/docs/handbook'),
    interval_minutes: s.number({ min: 1, max: 525_600 }).describe('minutes between re-imports'),
    reason: s.string({ max: 16384 }).optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run(c, a) {
    const r = (await c.call({ method: 'POST', path: '/api/v1/resources', body: { path: a.source, to: a.to, watch_interval: a.interval_minutes, ...(a.reason ? { reason: a.reason } : {}) } })) as Started;
    return { text: `${startedText(r)}; re-imported every ${a.interval_minutes} minutes`, structured: asObject(r) };
  },
});

interface WatchRecord {
  task_id: string;
  to_uri?: string;
  path?: string;
  is_active?: boolean;
  watch_interval?: number;
  next_execution_time?: string | null;
  [k: string]: unknown;
}

export const listWatches = defineTool({
  name: 'list_watches',
  title: 'List watches',
  description: 'The sources ctx re-imports on a schedule (yours; an ADMIN sees the whole account\'s): task id, source, target URI, interval and whether it is active.',
  input: s.object({ active_only: s.bool().default(false) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    const r = (await c.call({ method: 'GET', path: '/api/v1/watches', query: a })) as { tasks: WatchRecord[]; total: number };
    const watches = r.tasks;
    const lines = [`${watches.length} watch${watches.length === 1 ? '' : 'es'}`, ...watches.map((w) => `- ${w.task_id}: ${w.path ?? '?'} -> ${w.to_uri ?? '?'} every ${w.watch_interval ?? '?'} min${w.is_active === false ? ' (paused)' : ''}`)];
    return { text: lines.join('\n'), structured: { watches } };
  },
});

export const cancelWatch = defineTool({
  name: 'cancel_watch',
  title: 'Cancel a watch',
  description: 'Stops re-importing a source: give the watch\'s `task_id` or its target `to_uri`. The imported resource stays.',
  input: s.object({ task_id: s.string({ min: 1, max: 128 }).optional(), to_uri: s.string({ min: 1, max: 4096 }).optional() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(c, a) {
    if ((a.task_id === undefined) === (a.to_uri === undefined)) throw invalidArgument('give exactly one of task_id or to_uri', { field: 'task_id' });
    const r =
      a.task_id !== undefined
        ? await c.call({ method: 'DELETE', path: `/api/v1/watches/${encodeURIComponent(a.task_id)}` })
        : await c.call({ method: 'DELETE', path: '/api/v1/watches', query: { to_uri: a.to_uri } });
    return { text: `cancelled the watch ${a.task_id ?? 'of ' + a.to_uri}`, structured: asObject(r) };
  },
});
