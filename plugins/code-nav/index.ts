/**
 * Code navigation (spec Part 3 "Code navigation"): outline, symbol search and symbol expansion
 * over imported source, parsed by the core's tree-sitter grammars (`outlineCode`). Everything is
 * read through the caller's scoped VFS, so a search never sees (or names) what the caller may not
 * read. Results are agent-facing text; business failures are `Error:` texts in a 200 answer.
 */
import { isUtf8 } from 'node:buffer';
import {
  HOST_VERSION,
  SCHEME,
  SIDECARS,
  definePlugin,
  notFound,
  outlineCode,
  outlineCodeBulk,
  outlineLanguageOf,
  s,
  URI_PATTERN,
  type CodeOutline,
  type ScopedEntry,
  type ScopedVfs,
} from 'ctx/plugin';
import { CAP_NOTE, NOT_CTX_URI, SEARCH_FILE_CAP, expandText, matchSymbols, outlineText, resolveSymbol, searchText, type SearchFileHits } from './format.js';

/** The core refuses larger sources; checking the size first spares reading them. */
const MAX_SOURCE_BYTES = 8 * 1024 * 1024;
/** Outlines kept by content hash: a repeated search over unchanged files reads and parses nothing. */
const CACHE_ENTRIES = 4096;
/** Below this many bytes in all, a search outlines on the calling thread (the pool hop costs more). */
const SYNC_OUTLINE_BYTES = 256 * 1024;

class OutlineCache {
  private readonly map = new Map<string, CodeOutline>();
  get(key: string): CodeOutline | undefined {
    const v = this.map.get(key);
    if (v) {
      // Re-inserted: the Map's insertion order is the recency order.
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, v: CodeOutline): void {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > CACHE_ENTRIES) this.map.delete(this.map.keys().next().value!);
  }
}

const keyOf = (e: Pick<ScopedEntry, 'sha256'>, language: string) => (e.sha256 ? `${language}:${e.sha256}` : null);

/** Text of a file, or why it is not one (media, a NUL in the first 8 KiB as git decides, not UTF-8). */
function textOf(e: ScopedEntry, data: Buffer): string | null {
  if (e.meta?.media || data.subarray(0, 8192).includes(0) || !isUtf8(data)) return null;
  return data.toString('utf8');
}

type Loaded = { error: string } | { entry: ScopedEntry; language: string; source: string };

/** A source file the caller may read: 404 when missing (as reading it would be), else a business failure text. */
async function loadSource(vfs: ScopedVfs, uri: string): Promise<Loaded> {
  const entry = await vfs.stat(uri);
  if (!entry) throw notFound(`no such file: ${uri}`, { resource: uri });
  if (entry.kind === 'dir') return { error: `Error: ${uri} is a directory, not a source file` };
  const language = outlineLanguageOf(entry.name);
  if (!language) return { error: `Error: unsupported language for ${uri}` };
  if (entry.size > MAX_SOURCE_BYTES) return { error: `Error: ${uri} is too large to outline (${entry.size} bytes; the limit is ${MAX_SOURCE_BYTES})` };
  const source = textOf(entry, await vfs.readFile(uri));
  if (source === null) return { error: `Error: ${uri} is not text` };
  return { entry, language, source };
}

export default definePlugin({
  name: 'code-nav',
  version: HOST_VERSION,
  dependsOn: ['fs'],
  setup(host) {
    const cache = new OutlineCache();

    const outlineOf = (entry: ScopedEntry, language: string, source: string): CodeOutline => {
      const key = keyOf(entry, language);
      const hit = key ? cache.get(key) : undefined;
      if (hit) return hit;
      const o = outlineCode(source, language);
      if (key) cache.set(key, o);
      return o;
    };

    const isCtx = (uri: string) => uri.startsWith(SCHEME);
    const textResult = { response: s.string().describe('agent-facing text; a business failure starts with "Error:"') };
    const errors = ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'] as const;

    host.route({
      method: 'POST',
      path: '/api/v1/code/outline',
      summary: 'the symbol outline of one imported source file',
      description:
        'Result: "<uri>  [<language>, <n> lines]", a blank line, then one "<kind> <name>  L<start>-<end>" line per symbol, members indented under their class/interface/impl/module. Languages by extension: TypeScript/TSX, JavaScript, Python, Go, Rust, Java, C, C++. A non-ctx:// URI, a directory, an unsupported language or a non-text file answer 200 with an "Error: ..." text.',
      body: s.object({ uri: s.string().annotate({ pattern: URI_PATTERN }).describe('ctx:// URI of a source file') }, { unknown: 'strip' }),
      ...textResult,
      errors: [...errors],
      async handler(ctx) {
        const { uri } = ctx.body;
        if (!isCtx(uri)) return NOT_CTX_URI;
        const src = await loadSource(ctx.vfs, uri);
        if ('error' in src) return src.error;
        return outlineText(src.entry.uri, outlineOf(src.entry, src.language, src.source));
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/code/search',
      summary: 'symbols whose name contains the query, in a source file or every source file below a directory',
      description: `Case-insensitive substring match on symbol names (on qualified names such as Class.method when the query has a dot). Result: "<n> matches for \\"<query>\\" (scanned <m> files)", then per file its URI and "  <name>  L<start>-<end>" lines. At most ${SEARCH_FILE_CAP} source files are scanned, in walk order; when more exist the text ends with a prompt to narrow the URI. A non-ctx:// URI or an empty query answer 200 with an "Error: ..." text.`,
      body: s.object({ uri: s.string().annotate({ pattern: URI_PATTERN }).describe('ctx:// URI of a source file or a directory (searched recursively)'), query: s.string().describe('non-empty part of a symbol name') }, { unknown: 'strip' }),
      ...textResult,
      errors: [...errors],
      async handler(ctx) {
        const { uri, query } = ctx.body;
        if (!isCtx(uri)) return NOT_CTX_URI;
        if (!query.trim()) return 'Error: empty query';
        const root = await ctx.vfs.stat(uri);
        if (!root) throw notFound(`no such file or directory: ${uri}`, { resource: uri });
        const files: Array<{ entry: ScopedEntry; language: string }> = [];
        let capped = false;
        const consider = (e: ScopedEntry): boolean => {
          const language = e.kind === 'file' && !SIDECARS.has(e.name) ? outlineLanguageOf(e.name) : null;
          if (!language) return true;
          if (files.length === SEARCH_FILE_CAP) {
            capped = true;
            return false;
          }
          files.push({ entry: e, language });
          return true;
        };
        if (root.kind === 'file') consider(root);
        else for await (const e of ctx.vfs.walk(uri)) if (!consider(e)) break;
        if (!files.length) return `No supported source files found under ${root.uri}`;

        const outlines: Array<CodeOutline | null> = files.map((f) => {
          const key = keyOf(f.entry, f.language);
          return (key && cache.get(key)) || null;
        });
        let missing = files.map((_, i) => i).filter((i) => !outlines[i]);
        // Outlines the indexer stored when the files were imported or written (same content only).
        const stored = missing.length ? host.optional('code-outlines') : undefined;
        if (stored) {
          const found = await stored.get(ctx.identity.accountId, missing.map((i) => files[i]!.entry));
          missing.forEach((i, j) => {
            const o = found[j];
            if (!o) return;
            outlines[i] = o;
            const key = keyOf(files[i]!.entry, files[i]!.language);
            if (key) cache.set(key, o);
          });
          missing = missing.filter((i) => !outlines[i]);
        }
        let unreadable = 0;
        if (missing.length) {
          const sources: Array<string | null> = await Promise.all(
            missing.map(async (i) => {
              const f = files[i]!;
              if (f.entry.size > MAX_SOURCE_BYTES) return null;
              try {
                return textOf(f.entry, await ctx.vfs.readFile(f.entry.uri));
              } catch {
                return null; // removed or hidden since the walk: skipped like any unreadable file
              }
            }),
          );
          const todo = missing.filter((_, j) => sources[j] !== null);
          const todoSources = sources.filter((x): x is string => x !== null);
          unreadable = missing.length - todo.length;
          const inputs = todo.map((i, j) => ({ source: todoSources[j]!, language: files[i]!.language }));
          const bytes = inputs.reduce((n, x) => n + x.source.length, 0);
          const results =
            bytes <= SYNC_OUTLINE_BYTES
              ? inputs.map((x) => {
                  try {
                    return { outline: outlineCode(x.source, x.language) };
                  } catch (err) {
                    return { error: (err as Error).message };
                  }
                })
              : await outlineCodeBulk(inputs);
          todo.forEach((i, j) => {
            const o = results[j]!.outline ?? null;
            if (!o) {
              unreadable++;
              return;
            }
            outlines[i] = o;
            const key = keyOf(files[i]!.entry, files[i]!.language);
            if (key) cache.set(key, o);
          });
        }
        if (unreadable === files.length) return `Error: failed to read all ${files.length} source files under ${root.uri}`;
        const hits: SearchFileHits[] = [];
        files.forEach((f, i) => {
          const o = outlines[i];
          if (o) hits.push({ uri: f.entry.uri, hits: matchSymbols(o.symbols, query) });
        });
        const notes: string[] = [];
        if (unreadable) notes.push(`(warning: skipped ${unreadable} unreadable source file(s))`);
        if (capped) notes.push(CAP_NOTE);
        return searchText(query, files.length, hits, notes);
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/code/expand',
      summary: 'the source of one symbol of a file, with its line range',
      description:
        'symbol is a bare name (the outermost, earliest symbol of that name) or a qualified one such as Class.method. Result: "# <uri>  L<start>-<end>  (<qualified name>)", a blank line, then those lines of the file. A non-ctx:// URI, an empty symbol, a directory, an unsupported language, a non-text file or an unknown symbol answer 200 with an "Error: ..." text.',
      body: s.object({ uri: s.string().annotate({ pattern: URI_PATTERN }).describe('ctx:// URI of a source file'), symbol: s.string().describe('symbol name, bare or qualified (Class.method)') }, { unknown: 'strip' }),
      ...textResult,
      errors: [...errors],
      async handler(ctx) {
        const { uri, symbol } = ctx.body;
        if (!isCtx(uri)) return NOT_CTX_URI;
        if (!symbol.trim()) return 'Error: empty symbol';
        const src = await loadSource(ctx.vfs, uri);
        if ('error' in src) return src.error;
        const o = outlineOf(src.entry, src.language, src.source);
        const q = resolveSymbol(o.symbols, symbol.trim());
        if (!q) return `Error: symbol '${symbol}' not found in ${src.entry.uri}`;
        return expandText(src.entry.uri, src.source, q);
      },
    });
  },
});
