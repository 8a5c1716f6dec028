/**
 * The agent-facing texts of code navigation (spec Part 3 "Code navigation"), from outlines the
 * core computed. Pure functions: no I/O, so every shape is tested without a server.
 */
import type { CodeOutline, CodeSymbol } from 'ctx/plugin';

/** Files one search scans at most (spec Part 3 "Limits"). */
export const SEARCH_FILE_CAP = 200;

export const NOT_CTX_URI = 'Error: only ctx:// URIs are supported; import local code as a ctx:// resource first (POST /api/v1/resources).';
export const CAP_NOTE = `(scanning stopped at the ${SEARCH_FILE_CAP}-file cap; narrow uri to search more)`;

const span = (s: CodeSymbol) => `  L${s.startLine}-${s.endLine}`;

/** `uri  [language, N lines]`, a blank line, then one line per symbol, members indented under their container. */
export function outlineText(uri: string, o: CodeOutline): string {
  const lines = [`${uri}  [${o.language}, ${o.lineCount} lines]`, ''];
  const put = (syms: CodeSymbol[], depth: number) => {
    for (const s of syms) {
      lines.push(`${'  '.repeat(depth)}${s.kind} ${s.name}${span(s)}`);
      put(s.children, depth + 1);
    }
  };
  for (const s of o.symbols) {
    put([s], 0);
    // A blank line closes a container's block so classes stand apart from the functions after them.
    if (s.children.length) lines.push('');
  }
  if (!o.symbols.length) lines.push('(no symbols)');
  if (o.hasErrors) lines.push('', '(the file has syntax errors; symbols after them may be missing)');
  return lines.join('\n').trimEnd();
}

/** A symbol with the names of its containers (`Class.method`). */
export interface QualifiedSymbol {
  qualified: string;
  symbol: CodeSymbol;
  depth: number;
}

/** How a container qualifies its members: an impl by its type (`impl Display for Point` → `Point`). */
function qualifierOf(s: CodeSymbol): string {
  if (s.kind !== 'impl') return s.name;
  const i = s.name.lastIndexOf(' for ');
  return i >= 0 ? s.name.slice(i + ' for '.length) : s.name;
}

/** Every symbol in document order (containers before their members). */
export function flatten(symbols: CodeSymbol[]): QualifiedSymbol[] {
  const out: QualifiedSymbol[] = [];
  const walk = (syms: CodeSymbol[], prefix: string, depth: number) => {
    for (const s of syms) {
      out.push({ qualified: prefix + s.name, symbol: s, depth });
      walk(s.children, prefix + qualifierOf(s) + '.', depth + 1);
    }
  };
  walk(symbols, '', 0);
  return out;
}

/**
 * Symbols whose name contains the query, case-insensitively; a query with a dot is matched against
 * the qualified name (`Store.add`), otherwise against the bare name.
 */
export function matchSymbols(symbols: CodeSymbol[], query: string): QualifiedSymbol[] {
  const needle = query.toLowerCase();
  const qualified = needle.includes('.');
  return flatten(symbols).filter((q) => (qualified ? q.qualified : q.symbol.name).toLowerCase().includes(needle));
}

export interface SearchFileHits {
  uri: string;
  hits: QualifiedSymbol[];
}

/** `N matches for "q" (scanned M files)`, then each file's URI with its matching symbols. */
export function searchText(query: string, scanned: number, files: SearchFileHits[], notes: string[]): string {
  const total = files.reduce((n, f) => n + f.hits.length, 0);
  const out = [total === 0 ? `No matches for "${query}" (scanned ${scanned} files)` : `${total} matches for "${query}" (scanned ${scanned} files)`];
  for (const f of files) {
    if (!f.hits.length) continue;
    out.push('', f.uri);
    for (const h of f.hits) out.push(`  ${h.qualified}${span(h.symbol)}`);
  }
  for (const n of notes) out.push('', n);
  return out.join('\n');
}

/**
 * The symbol `expand` shows: an exact qualified name (`Class.method`) first, then an exact bare
 * name, outermost and earliest first (a top-level `run` before a method `run`).
 */
export function resolveSymbol(symbols: CodeSymbol[], name: string): QualifiedSymbol | null {
  const all = flatten(symbols);
  const exact = all.find((q) => q.qualified === name);
  if (exact) return exact;
  let best: QualifiedSymbol | null = null;
  for (const q of all) if (q.symbol.name === name && (!best || q.depth < best.depth)) best = q;
  return best;
}

/** `# uri  Lstart-end  (name)`, a blank line, then the symbol's lines. */
export function expandText(uri: string, source: string, q: QualifiedSymbol): string {
  const { startLine, endLine } = q.symbol;
  let start = 0;
  for (let i = 1; i < startLine; i++) {
    const nl = source.indexOf('\n', start);
    if (nl < 0) break;
    start = nl + 1;
  }
  let end = start;
  for (let i = startLine; i <= endLine; i++) {
    const nl = source.indexOf('\n', end);
    if (nl < 0) {
      end = source.length;
      break;
    }
    end = nl + 1;
  }
  const body = source.slice(start, end).replace(/\r?\n$/, '');
  return `# ${uri}  L${startLine}-${endLine}  (${q.qualified})\n\n${body}`;
}
