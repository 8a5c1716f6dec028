/**
 * PDF and DOCX into Markdown, so they are stored, split and indexed like any document: PDF text
 * per page with unpdf (PDF.js, pure JS), one `## Page N` section per page; DOCX through mammoth to
 * HTML (its headings, lists and tables kept) and then turndown. A DOCX is a zip: it passes the
 * same archive checks as an uploaded tree before mammoth inflates it.
 */
import { extensionOf } from 'ctx/plugin';
import { Unsupported, htmlToMarkdown } from './convert.js';
import { readZip } from 'ctx/plugin';

export const DOCUMENT_EXTENSIONS = new Set(['.pdf', '.docx']);

const stemOf = (name: string) => name.slice(0, name.length - extensionOf(name).length);

async function pdfToMarkdown(name: string, data: Buffer): Promise<string> {
  if (data.subarray(0, 5).toString('latin1') !== '%PDF-') throw new Unsupported('not a valid PDF file (no %PDF- header)');
  let pages: string[];
  let title: string | undefined;
  // The converters are imported on the first document, not at start-up (bench/RESULTS.md, start-up).
  const { extractText, getDocumentProxy } = await import('unpdf');
  try {
    const doc = await getDocumentProxy(new Uint8Array(data));
    const meta = await doc.getMetadata().catch(() => null);
    const t = (meta?.info as { Title?: unknown } | undefined)?.Title;
    if (typeof t === 'string' && t.trim()) title = t.trim();
    pages = (await extractText(doc, { mergePages: false })).text as string[];
  } catch (err) {
    throw new Unsupported(`not a readable PDF: ${(err as Error).message}`);
  }
  const body = pages.map((p, i) => `## Page ${i + 1}\n\n${p.replace(/\s+\n/g, '\n').trim()}\n`).join('\n');
  if (!pages.some((p) => p.trim())) throw new Unsupported('the PDF has no text layer (scanned pages need OCR, which is not done here)');
  return `# ${title ?? stemOf(name)}\n\n${body}`;
}

async function docxToMarkdown(data: Buffer): Promise<string> {
  try {
    readZip(data);
  } catch (err) {
    throw new Unsupported(`not a valid DOCX: ${(err as Error).message.replace(/^invalid zip archive: /, '')}`);
  }
  let html: string;
  try {
    const { default: mammoth } = await import('mammoth');
    html = (await mammoth.convertToHtml({ buffer: data })).value;
  } catch (err) {
    throw new Unsupported(`not a readable DOCX: ${(err as Error).message}`);
  }
  return htmlToMarkdown(html);
}

/** The Markdown text of a PDF or DOCX, or null for other files. Throws `Unsupported`. */
export async function documentMarkdown(name: string, data: Buffer): Promise<string | null> {
  const ext = extensionOf(name);
  if (ext === '.pdf') return pdfToMarkdown(name, data);
  if (ext === '.docx') return docxToMarkdown(data);
  return null;
}
