/** find, search, grep, glob, and code outline/search/expand. */
import { int, uri, type Handler } from '../context.js';
import { oneLine, paint, table } from '../output.js';

type Hit = { uri: string; context_type: string; score: number; abstract: string; content?: string };
type Found = { memories: Hit[]; resources: Hit[]; skills: Hit[]; total: number };

function retrievalBody(args: Array<string | string[] | undefined>, o: Record<string, any>) {
  return {
    query: (args[0] as string[]).join(' '),
    target_uri: o.uri ? (o.uri as string[]).map(uri) : undefined,
    context_type: o.type,
    limit: int(o.limit, '--limit'),
    tags: o.tag,
    read_content: o.content,
  };
}

function renderFound(cx: Parameters<Handler>[0]) {
  return (r: Found) => {
    const hits = [...r.memories, ...r.resources, ...r.skills].sort((a, b) => b.score - a.score);
    const rows = hits.map((h) => [paint(cx.out, 'green', h.score.toFixed(3)), h.context_type, paint(cx.out, 'cyan', h.uri), oneLine(h.abstract, 80)]);
    const body = table(cx.out, ['SCORE>', 'TYPE', 'URI', 'ABSTRACT'], rows);
    const contents = hits.filter((h) => h.content).map((h) => `\n${paint(cx.out, 'bold', h.uri)}\n${h.content}`);
    return body + contents.join('\n');
  };
}


export const find: Handler = async (cx, args, o) => {
  const c = await cx.client();
  cx.out.emit(await c.search.find(retrievalBody(args, o)), renderFound(cx));
};

export const search: Handler = async (cx, args, o) => {
  const c = await cx.client();
  cx.out.emit(await c.search.search({ ...retrievalBody(args, o), session_id: o.session }), renderFound(cx));
};

export const grep: Handler = async (cx, [pattern, where], o) => {
  const c = await cx.client();
  const res = await c.search.grep({ pattern: pattern as string, uri: uri(where as string), case_insensitive: o.ignoreCase, node_limit: int(o.limit, '--limit') });
  cx.out.emit(res, (r: { matches: Array<{ uri: string; line: number; content: string }> }) =>
    r.matches.map((m) => `${paint(cx.out, 'cyan', m.uri)}:${paint(cx.out, 'green', String(m.line))}: ${m.content}`).join('\n'),
  );
};

export const glob: Handler = async (cx, [pattern, where], o) => {
  const c = await cx.client();
  const res = await c.search.glob({ pattern: pattern as string, uri: uri(where as string), node_limit: int(o.limit, '--limit') });
  cx.out.emit(res, (r: { matches: string[] }) => r.matches.join('\n'));
};

const text = (cx: Parameters<Handler>[0]) => (r: unknown) => (typeof r === 'string' ? r : JSON.stringify(r, null, 2));

export const codeOutline: Handler = async (cx, [u]) => {
  const c = await cx.client();
  cx.out.emit(await c.code.outline({ uri: uri(u as string) }), text(cx));
};

export const codeSearch: Handler = async (cx, [u, query]) => {
  const c = await cx.client();
  cx.out.emit(await c.code.search({ uri: uri(u as string), query: query as string }), text(cx));
};

export const codeExpand: Handler = async (cx, [u, symbol]) => {
  const c = await cx.client();
  cx.out.emit(await c.code.expand({ uri: uri(u as string), symbol: symbol as string }), text(cx));
};
