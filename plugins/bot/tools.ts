/**
 * The tools the bot's model may call. Every one acts through the caller's scoped VFS (or the find
 * service with the caller's identity), so the model reads exactly what its caller may, nothing more.
 */
import { isCtxError, type Identity, type ScopedVfs, type ToolDef } from 'ctx/plugin';

/** What the find service answers, as far as the bot reads it. */
export interface FindLike {
  find(identity: Identity, body: { query: string; limit?: number; target_uri?: string }): Promise<{ memories: Hit[]; resources: Hit[]; skills: Hit[] }>;
}
export interface Hit {
  uri: string;
  context_type: string;
  abstract: string;
  score: number;
}

export const READ_LIMIT = 32 * 1024;
const LIST_LIMIT = 200;

export const TOOLS: ToolDef[] = [
  {
    name: 'list_directory',
    description: 'Lists the entries of a ctx:// directory the user may read (name, uri, whether it is a directory).',
    parameters: { type: 'object', properties: { uri: { type: 'string', description: 'a ctx:// directory URI, e.g. ctx://resources or ctx://~/memories' } }, required: ['uri'] },
  },
  {
    name: 'read_file',
    description: `Reads a ctx:// text file the user may read (at most ${READ_LIMIT} characters).`,
    parameters: { type: 'object', properties: { uri: { type: 'string', description: 'a ctx:// file URI' } }, required: ['uri'] },
  },
  {
    name: 'search',
    description: 'Finds stored contexts (memories, resources, skills) similar to a query.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string' }, target_uri: { type: 'string', description: 'optional ctx:// directory to search below' }, limit: { type: 'integer', minimum: 1, maximum: 20 } },
      required: ['query'],
    },
  },
];
export const TOOL_NAMES = TOOLS.map((t) => t.name);

export interface ToolEnv {
  vfs: ScopedVfs;
  identity: Identity;
  find?: FindLike;
}

export interface ToolOutcome {
  ok: boolean;
  /** Text the model reads back (an error message when not ok). */
  content: string;
}

/** Runs one call; failures are answers for the model (it can try another URI), never exceptions. */
export async function runTool(env: ToolEnv, name: string, rawArgs: string, disabled: ReadonlySet<string>): Promise<ToolOutcome> {
  if (disabled.has(name)) return { ok: false, content: `tool ${name} is disabled for this conversation` };
  let args: Record<string, unknown>;
  try {
    const v = JSON.parse(rawArgs || '{}');
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    args = v as Record<string, unknown>;
  } catch {
    return { ok: false, content: `arguments of ${name} must be a JSON object` };
  }
  const str = (k: string) => (typeof args[k] === 'string' ? (args[k] as string) : '');
  try {
    switch (name) {
      case 'list_directory': {
        const entries = await env.vfs.list(str('uri') || 'ctx://');
        const shown = entries.slice(0, LIST_LIMIT).map((e) => ({ name: e.name, uri: e.uri, dir: e.kind === 'dir' }));
        return { ok: true, content: JSON.stringify(entries.length > LIST_LIMIT ? { entries: shown, truncated: entries.length - LIST_LIMIT } : { entries: shown }) };
      }
      case 'read_file': {
        const text = await env.vfs.readText(str('uri'));
        return { ok: true, content: text.length > READ_LIMIT ? `${text.slice(0, READ_LIMIT)}\n[truncated: ${text.length - READ_LIMIT} more characters]` : text };
      }
      case 'search': {
        if (!env.find) return { ok: false, content: 'search is not available on this server' };
        const query = str('query').trim();
        if (!query) return { ok: false, content: 'search needs a non-empty query' };
        const limit = typeof args.limit === 'number' ? Math.min(20, Math.max(1, Math.floor(args.limit))) : 5;
        const r = await env.find.find(env.identity, { query, limit, ...(str('target_uri') ? { target_uri: str('target_uri') } : {}) });
        const hits = [...r.memories, ...r.resources, ...r.skills].sort((a, b) => b.score - a.score).slice(0, limit);
        return { ok: true, content: JSON.stringify(hits.map((h) => ({ uri: h.uri, context_type: h.context_type, abstract: h.abstract, score: h.score }))) };
      }
      default:
        return { ok: false, content: `unknown tool ${name}; available: ${TOOL_NAMES.filter((n) => !disabled.has(n)).join(', ') || 'none'}` };
    }
  } catch (err) {
    if (isCtxError(err)) return { ok: false, content: `${err.code}: ${err.message}` };
    throw err;
  }
}
