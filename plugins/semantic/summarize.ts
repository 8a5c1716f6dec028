/**
 * L0 abstracts and L1 overviews: LLM prompts when an LLM is configured, otherwise deterministic
 * extractive fallbacks that are useful on their own (an agent can decide from them whether to open
 * a file or a directory). Budgets are in tokens, counted as words and punctuation marks.
 */
import type { Llm } from 'ctx/plugin';
import { outlineCode, outlineLanguageOf, splitHeader, type CodeOutline, type CodeSymbol } from 'ctx/plugin';

export const L0_TOKEN_BUDGET = 100;
/** L2 records embed at most this many tokens of a file (name and abstract first, then the content). */
export const L2_TOKEN_BUDGET = 512;
const LLM_INPUT_CHARS = 12_000;
export const LLM_CONCURRENCY = 4;

export const FALLBACK_GENERATOR = 'ctx-extractive-v1';

const TOKEN = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;

export function countTokens(text: string): number {
  return text.match(TOKEN)?.length ?? 0;
}

/** The longest prefix of `text` within `budget` tokens, cut at a token boundary. */
export function truncateTokens(text: string, budget: number): string {
  let n = 0;
  for (const m of text.matchAll(TOKEN)) {
    if (++n > budget) return text.slice(0, m.index).trimEnd();
  }
  return text;
}

export interface ChildInfo {
  name: string;
  kind: 'file' | 'dir';
  size: number;
  /** Files: their abstract; directories: their L0 (or ''). */
  abstract: string;
  /** Directories: number of entries. */
  entries?: number;
}

export function humanSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

const kindOf = (name: string) => {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : 'file';
};

/** Markdown and code decoration removed, whitespace collapsed: the text sentences are taken from. */
function plain(text: string): string {
  return text
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|[-*+>]|\d+\.)\s+/gm, '')
    .replace(/[`*_~|]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Title: front-matter `name`/`title`, the first heading, or the first non-empty line. */
function titleOf(body: string, name: string): string {
  const fm = /^---\n([\s\S]*?)\n---/.exec(body);
  if (fm) {
    const t = /^(?:title|name):\s*(.+)$/m.exec(fm[1]!);
    if (t) return t[1]!.trim().replace(/^["']|["']$/g, '');
  }
  const h = /^\s{0,3}#{1,6}\s+(.+)$/m.exec(body);
  if (h) return plain(h[1]!);
  return name;
}

/** Extractive L0 of a file: its title, then its first sentences, within the L0 budget. */
export function fallbackFileAbstract(name: string, content: string): string {
  const { body } = splitHeader(content);
  const text = body.replace(/^---\n[\s\S]*?\n---\n?/, '');
  if (/\.json$/i.test(name)) {
    try {
      const v = JSON.parse(text) as unknown;
      const desc = Array.isArray(v) ? `JSON array of ${v.length} items` : v && typeof v === 'object' ? `JSON object with keys ${Object.keys(v).slice(0, 12).join(', ')}` : `JSON ${typeof v}`;
      return truncateTokens(`${name}: ${desc}.`, L0_TOKEN_BUDGET);
    } catch {
      // not JSON after all: treat as text
    }
  }
  const title = titleOf(text, name);
  let rest = plain(text);
  if (rest.startsWith(title)) rest = rest.slice(title.length).trim();
  const sentences = rest.match(/[^.!?。！？]+[.!?。！？]*/gu) ?? [];
  let out = title === name ? `${name}:` : `${title} (${name}):`;
  for (const s of sentences) {
    const next = `${out} ${s.trim()}`;
    if (countTokens(next) > L0_TOKEN_BUDGET) break;
    out = next;
  }
  if (out.endsWith(':')) out = truncateTokens(`${out} ${rest}`, L0_TOKEN_BUDGET);
  if (!rest) out = `${out} (empty)`;
  return out.trim();
}

function childLine(c: ChildInfo): string {
  if (c.kind === 'dir') return `- ${c.name}/ (directory, ${c.entries ?? 0} entries)${c.abstract ? ` — ${c.abstract}` : ''}`;
  return `- ${c.name} (${kindOf(c.name)}, ${humanSize(c.size)})${c.abstract ? ` — ${c.abstract}` : ''}`;
}

/**
 * A file's title for its directory's L0: its abstract up to the first ": " or sentence end, named by
 * the file. A split at any '.' cut "Guide (guide.md): …" inside the file name ("Guide (guide").
 */
function fileHead(c: ChildInfo): string {
  const m = /^(.*?)(?::\s|[.!?。！？](?:\s|$))/su.exec(c.abstract);
  let head = (m ? m[1]! : c.abstract).trim();
  if (head.length > 160) head = `${head.slice(0, 160)}…`;
  if (!head || head === c.name || head === `${c.name}:`) return c.name;
  return head.endsWith(`(${c.name})`) ? head : `${head} (${c.name})`;
}

/** Extractive L0 of a directory: what it holds by kind, then its children's titles. */
export function fallbackDirAbstract(name: string, children: ChildInfo[]): string {
  if (!children.length) return `${name}/: empty directory.`;
  const files = children.filter((c) => c.kind === 'file');
  const dirs = children.filter((c) => c.kind === 'dir');
  const kinds = new Map<string, number>();
  for (const f of files) kinds.set(kindOf(f.name), (kinds.get(kindOf(f.name)) ?? 0) + 1);
  const kindText = [...kinds].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`).join(', ');
  let out = `${name}/: ${files.length} file${files.length === 1 ? '' : 's'}${kindText ? ` (${kindText})` : ''}, ${dirs.length} subdirector${dirs.length === 1 ? 'y' : 'ies'}.`;
  const heads = children.map((c) => (c.kind === 'dir' ? `${c.name}/` : fileHead(c)));
  out += ' Contains:';
  let first = true;
  for (const h of heads) {
    const next = `${out}${first ? ' ' : '; '}${h}`;
    if (countTokens(next) > L0_TOKEN_BUDGET) {
      out += first ? ' …' : '; …';
      return out;
    }
    out = next;
    first = false;
  }
  return out + '.';
}

/** Extractive L1 of a directory: its L0, then every child with kind, size and abstract. */
export function fallbackDirOverview(uri: string, name: string, abstract: string, children: ChildInfo[]): string {
  const lines = [`# ${name}`, '', abstract, '', `URI: ${uri}`, ''];
  const dirs = children.filter((c) => c.kind === 'dir');
  const files = children.filter((c) => c.kind === 'file');
  if (dirs.length) lines.push(`## Directories (${dirs.length})`, '', ...dirs.map(childLine), '');
  if (files.length) lines.push(`## Files (${files.length})`, '', ...files.map(childLine), '');
  if (!children.length) lines.push('This directory is empty.', '');
  return lines.join('\n');
}

export interface Summarizer {
  readonly generator: string;
  readonly model?: string;
  fileAbstract(uri: string, name: string, content: string): Promise<string>;
  dir(uri: string, name: string, children: ChildInfo[]): Promise<{ abstract: string; overview: string }>;
}

export function createSummarizer(llm: Llm | null, onFallback: (err: unknown) => void): Summarizer {
  if (!llm) {
    return {
      generator: FALLBACK_GENERATOR,
      async fileAbstract(_uri, name, content) {
        return fallbackFileAbstract(name, content);
      },
      async dir(uri, name, children) {
        const abstract = fallbackDirAbstract(name, children);
        return { abstract, overview: fallbackDirOverview(uri, name, abstract, children) };
      },
    };
  }
  // At most LLM_CONCURRENCY prompts at once, whatever the queue concurrency (local model servers
  // serve a few requests at a time). On an LLM failure the extractive text is used, so a broken
  // model never blocks indexing.
  let active = 0;
  const waiting: Array<() => void> = [];
  const ask = async (system: string, user: string, maxTokens: number): Promise<string | null> => {
    while (active >= LLM_CONCURRENCY) await new Promise<void>((r) => waiting.push(r));
    active++;
    try {
      const r = await llm.chat(
        [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        { maxTokens },
      );
      const text = r.text.trim();
      return text || null;
    } catch (err) {
      onFallback(err);
      return null;
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
  return {
    generator: 'llm',
    model: llm.model,
    async fileAbstract(uri, name, content) {
      const body = splitHeader(content).body.slice(0, LLM_INPUT_CHARS);
      const text = await ask(
        'You write the L0 abstract of a document for a retrieval index: one plain paragraph of at most 100 tokens saying what the document is and its key facts. No preamble, no markdown.',
        `Document ${uri}\n\n${body}`,
        200,
      );
      return text ? truncateTokens(text, L0_TOKEN_BUDGET) : fallbackFileAbstract(name, content);
    },
    async dir(uri, name, children) {
      const listing = children.map(childLine).join('\n').slice(0, LLM_INPUT_CHARS) || '(empty)';
      const abstract =
        (await ask(
          'You write the L0 abstract of a directory for a retrieval index: one plain paragraph of at most 100 tokens saying what the directory contains and what it is for. No preamble, no markdown.',
          `Directory ${uri}\nEntries:\n${listing}`,
          200,
        )) ?? fallbackDirAbstract(name, children);
      const overview =
        (await ask(
          'You write the L1 overview of a directory for a retrieval index, in markdown: a heading, two or three sentences on its purpose, then one bullet per entry with its name and what it holds. At most 600 tokens.',
          `Directory ${uri}\nEntries:\n${listing}`,
          900,
        )) ?? fallbackDirOverview(uri, name, abstract, children);
      return { abstract: truncateTokens(abstract, L0_TOKEN_BUDGET), overview };
    },
  };
}

/** Generator of code files' L0/L1: their tree-sitter outline, with or without an LLM. */
export const CODE_GENERATOR = 'ctx-outline-v1';
/** An L1 outline lists at most this many symbols (a generated file can have thousands). */
const CODE_OVERVIEW_SYMBOLS = 400;

/**
 * L0 and L1 of a source file from its outline (no LLM: the structure is exact and costs a parse):
 * L0 one line — language, size and the top-level symbols; L1 the outline as an indented list with
 * line ranges. Null for a file of no outline language, or one the parser refuses.
 */
export function codeSummary(name: string, content: string): { abstract: string; overview: string; outline: CodeOutline } | null {
  const language = outlineLanguageOf(name);
  if (!language) return null;
  let o: CodeOutline;
  try {
    o = outlineCode(content, language);
  } catch {
    return null;
  }
  const top = o.symbols.map((s) => `${s.kind} ${s.name}`);
  let abstract = `${name}: ${language} source, ${o.lineCount} lines, ${o.symbols.length} top-level symbol${o.symbols.length === 1 ? '' : 's'}`;
  if (top.length) {
    abstract += ':';
    let first = true;
    for (const t of top) {
      const next = `${abstract}${first ? ' ' : ', '}${t}`;
      if (countTokens(next) > L0_TOKEN_BUDGET - 2) {
        abstract += ', …';
        break;
      }
      abstract = next;
      first = false;
    }
  }
  abstract += '.';
  const lines = [`# ${name}`, '', abstract, ''];
  let listed = 0;
  let total = 0;
  const put = (syms: CodeSymbol[], depth: number) => {
    for (const s of syms) {
      total++;
      if (listed < CODE_OVERVIEW_SYMBOLS) {
        lines.push(`${'  '.repeat(depth)}- ${s.kind} ${s.name} (L${s.startLine}-${s.endLine})`);
        listed++;
      }
      put(s.children, depth + 1);
    }
  };
  put(o.symbols, 0);
  if (total > listed) lines.push(`- … ${total - listed} more symbols`);
  if (o.hasErrors) lines.push('', '(syntax errors: symbols after them may be missing)');
  return { abstract, overview: lines.join('\n'), outline: o };
}
