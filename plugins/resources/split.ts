/**
 * Large Markdown documents become a directory of sections, so L0/L1 and retrieval work per
 * section instead of on one long file. The rule (also in README.md):
 *
 * - A document of at most `SPLIT_BYTES` (32 KiB) stays one file.
 * - A larger one is cut at the shallowest ATX heading level (`#`..`######`, outside fenced code)
 *   that occurs at least twice, or once after some text. Each section keeps its heading line and
 *   becomes `NN-slug.md` (NN its position, from 01); text before the first cut is `00-preamble.md`
 *   when it is not blank.
 * - A section still over the limit with deeper headings is cut the same way into a directory
 *   `NN-slug/`. A section without headings to cut at stays whole: text is never cut mid-paragraph.
 */
export const SPLIT_BYTES = 32 * 1024;

export interface Section {
  /** Path relative to the document's directory. */
  rel: string;
  text: string;
}

interface Heading {
  line: number;
  level: number;
  title: string;
}

function headings(lines: string[]): Heading[] {
  const out: Heading[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(l);
    if (f) {
      if (fence === null) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const h = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/.exec(l);
    if (h) out.push({ line: i, level: h[1]!.length, title: h[2]!.trim() });
  }
  return out;
}

export function slug(title: string): string {
  const s = title
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return s || 'section';
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** Sections of `text`, or null when it stays one file. */
export function splitMarkdown(text: string, limit = SPLIT_BYTES): Section[] | null {
  if (bytes(text) <= limit) return null;
  return cut(text.split('\n'), limit, 1);
}

function cut(lines: string[], limit: number, minLevel: number): Section[] | null {
  const hs = headings(lines).filter((h) => h.level >= minLevel);
  let level = 0;
  for (let l = minLevel; l <= 6 && !level; l++) {
    const at = hs.filter((h) => h.level === l);
    const textBefore = at.length > 0 && lines.slice(0, at[0]!.line).some((x) => x.trim() !== '');
    if (at.length >= 2 || (at.length === 1 && textBefore)) level = l;
  }
  if (!level) return null;
  const cuts = hs.filter((h) => h.level === level);
  const out: Section[] = [];
  const width = Math.max(2, String(cuts.length).length);
  const num = (i: number) => String(i).padStart(width, '0');
  const pre = lines.slice(0, cuts[0]!.line).join('\n');
  if (pre.trim() !== '') out.push({ rel: `${num(0)}-preamble.md`, text: pre.trimEnd() + '\n' });
  const used = new Set<string>();
  cuts.forEach((h, i) => {
    const body = lines.slice(h.line, i + 1 < cuts.length ? cuts[i + 1]!.line : lines.length);
    let name = `${num(i + 1)}-${slug(h.title)}`;
    while (used.has(name)) name += '-';
    used.add(name);
    const text = body.join('\n').trimEnd() + '\n';
    const deeper = bytes(text) > limit ? cut(body, limit, level + 1) : null;
    if (deeper) for (const s of deeper) out.push({ rel: `${name}/${s.rel}`, text: s.text });
    else out.push({ rel: `${name}.md`, text });
  });
  return out;
}
