/**
 * Metadata headers inside text files, shared by every plugin that reads or writes them:
 * - semantic sidecars (`.abstract.md`, `.overview.md`) start with `<!-- ctx:meta {json} -->`
 *   (who generated them, from which source); `content/abstract` returns the text without it;
 * - memory files start with `<!-- ctx:memory {json} -->` (memory_type, name, tags, resource_refs...);
 *   `content/read` drops it unless `raw=true`, `fs/attrs` parses it.
 * One line, an HTML comment so Markdown renderers hide it; `-->` inside the JSON is escaped.
 */
export type HeaderKind = 'meta' | 'memory';

export interface TextHeader {
  kind: HeaderKind;
  fields: Record<string, unknown>;
}

/** The fields a sidecar header may carry; anything else in a written header is dropped. */
export const SIDECAR_META_FIELDS = ['uri', 'level', 'generator', 'model', 'source_sha256', 'generated_at'] as const;

const OPEN = '<!-- ctx:';
const CLOSE = '-->';

/** Splits a leading header off `text`; `header` is null when there is none (or it is malformed). */
export function splitHeader(text: string): { header: TextHeader | null; body: string } {
  if (!text.startsWith(OPEN)) return { header: null, body: text };
  const end = text.indexOf(CLOSE, OPEN.length);
  if (end < 0) return { header: null, body: text };
  const inner = text.slice(OPEN.length, end).trim();
  const space = inner.search(/\s/);
  const kind = space < 0 ? inner : inner.slice(0, space);
  if (kind !== 'meta' && kind !== 'memory') return { header: null, body: text };
  let fields: unknown = {};
  if (space >= 0) {
    try {
      fields = JSON.parse(inner.slice(space + 1));
    } catch {
      return { header: null, body: text };
    }
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return { header: null, body: text };
  let rest = end + CLOSE.length;
  if (text.startsWith('\r\n', rest)) rest += 2;
  else if (text[rest] === '\n') rest += 1;
  return { header: { kind, fields: fields as Record<string, unknown> }, body: text.slice(rest) };
}

export function formatHeader(kind: HeaderKind, fields: Record<string, unknown>): string {
  return `${OPEN}${kind} ${JSON.stringify(fields).replace(/-->/g, '--\\u003e')} ${CLOSE}\n`;
}

/** `header` + `body`; no header line when `fields` is null. */
export function withHeader(kind: HeaderKind, fields: Record<string, unknown> | null, body: string): string {
  return fields === null ? body : formatHeader(kind, fields) + body;
}
