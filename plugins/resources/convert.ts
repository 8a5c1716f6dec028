/**
 * One source file into what is stored: text, Markdown and code as they are; HTML converted to
 * Markdown (turndown); JSON, YAML and TOML checked by their parsers and kept as written; large
 * Markdown split into sections (split.ts). Anything else that is not UTF-8 text is refused for a
 * single-file import and skipped (with its reason) inside a tree.
 */
import { createRequire } from 'node:module';
import type TurndownService from 'turndown';
import { parse as parseToml } from 'smol-toml';
import type * as Yaml from 'yaml';
import { extensionOf, invalidArgument } from 'ctx/plugin';
import { documentMarkdown } from './documents.js';
import { mediaInfo, type MediaInfo } from './media.js';
import { splitMarkdown } from './split.js';

export interface OutFile {
  /** Path relative to the resource root. */
  rel: string;
  data: Buffer;
  /** Images and audio: kept as bytes, described by their headers. */
  media?: MediaInfo;
}

export class Unsupported extends Error {}

const HTML = new Set(['.html', '.htm', '.xhtml']);
const MARKDOWN = new Set(['.md', '.markdown', '.mdx']);
const utf8 = new TextDecoder('utf-8', { fatal: true });

// turndown and yaml are required on first use, not at start-up (~100 ms each there; bench/RESULTS.md,
// start-up); their CommonJS builds keep these functions synchronous.
const require = createRequire(import.meta.url);
let yaml: typeof Yaml | undefined;
let turndown: TurndownService | undefined;
export function htmlToMarkdown(html: string): string {
  if (!turndown) {
    const Turndown = require('turndown') as typeof TurndownService;
    turndown = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
    // Page chrome and scripts carry no content a reader wants indexed.
    turndown.remove(['script', 'style', 'noscript', 'template', 'iframe', 'head', 'nav', 'canvas']);
    turndown.remove((n) => n.nodeName.toLowerCase() === 'svg');
  }
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.replace(/\s+/g, ' ').trim();
  // turndown keeps the text of <head> (the title) when it is handed a whole document.
  let md = turndown.turndown(html.replace(/<head[\s>][\s\S]*?<\/head>/i, '').replace(/<title[^>]*>[\s\S]*?<\/title>/gi, '')).trim();
  if (title && !/^#\s/.test(md)) md = `# ${decodeEntities(title)}\n\n${md}`;
  return md + '\n';
}

function decodeEntities(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39|#x27|nbsp);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", nbsp: ' ' })[e] ?? _);
}

export function decodeText(data: Buffer): string | null {
  if (data.includes(0)) return null;
  try {
    return utf8.decode(data);
  } catch {
    return null;
  }
}

/** Throws `Unsupported` with the reason when a structured file does not parse. */
function checkStructured(ext: string, text: string): void {
  try {
    if (ext === '.json') JSON.parse(text);
    else if (ext === '.yaml' || ext === '.yml') {
      for (const doc of (yaml ??= require('yaml') as typeof Yaml).parseAllDocuments(text)) if (doc.errors.length) throw new Error(doc.errors[0]!.message.split('\n')[0]);
    } else if (ext === '.toml') parseToml(text);
  } catch (err) {
    throw new Unsupported(`not valid ${ext.slice(1).toUpperCase()}: ${(err as Error).message.split('\n')[0]}`);
  }
}

const stemOf = (name: string) => {
  const ext = extensionOf(name);
  return ext ? name.slice(0, -ext.length) : name;
};

/**
 * What `rel` (a path below the resource root) becomes. `contentType` (from HTTP) decides for HTML
 * when the name has no telling extension. Throws `Unsupported` for content that cannot be stored.
 */
export function convert(rel: string, data: Buffer, contentType?: string, split = true): OutFile[] {
  const slash = rel.lastIndexOf('/');
  const dir = slash < 0 ? '' : rel.slice(0, slash + 1);
  const name = rel.slice(slash + 1);
  let ext = extensionOf(name);
  let media: MediaInfo | null;
  try {
    media = mediaInfo(ext, data);
  } catch (err) {
    throw new Unsupported((err as Error).message);
  }
  if (media) return [{ rel, data, media }];
  const text = decodeText(data);
  if (text === null) throw new Unsupported('binary content (not UTF-8 text)');
  const html = HTML.has(ext) || (ext === '' && /^text\/html|^application\/xhtml/i.test(contentType ?? ''));
  let body = text;
  let outName = name;
  if (html) {
    body = htmlToMarkdown(text);
    outName = `${stemOf(name)}.md`;
    ext = '.md';
  } else checkStructured(ext, text);
  if (MARKDOWN.has(ext) && split) {
    const sections = splitMarkdown(body);
    if (sections) return sections.map((s) => ({ rel: `${dir}${stemOf(outName)}/${s.rel}`, data: Buffer.from(s.text) }));
  }
  return [{ rel: `${dir}${outName}`, data: html ? Buffer.from(body) : data }];
}

/**
 * `convert`, with PDF and DOCX first turned into Markdown (`{stem}.md`). `split` false (the
 * reference's `args.parse_mode: no_split`): a large document stays one Markdown file.
 */
export async function convertAny(rel: string, data: Buffer, contentType?: string, split = true): Promise<OutFile[]> {
  const md = await documentMarkdown(rel, data);
  if (md === null) return convert(rel, data, contentType, split);
  return convert(`${stemOf(rel)}.md`, Buffer.from(md), undefined, split);
}

/** For a single-file import: the same conversion, its refusal a 400 naming the file. */
export async function convertSingle(rel: string, data: Buffer, contentType: string | undefined, field: string, split = true): Promise<OutFile[]> {
  try {
    return await convertAny(rel, data, contentType, split);
  } catch (err) {
    if (err instanceof Unsupported) throw invalidArgument(`cannot import ${JSON.stringify(rel)}: ${err.message}`, { field, file: rel });
    throw err;
  }
}
