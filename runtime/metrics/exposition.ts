/**
 * The Prometheus text exposition format (0.0.4), written straight from the families' numbers.
 * No intermediate `{labels, value}` objects: a scrape allocates strings only, so it shares no
 * object shapes with the request path (see docs/operations.md, "Why no client library").
 */

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const escapeText = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

/** `# HELP` and `# TYPE` lines of a family. */
export function header(name: string, help: string, type: 'counter' | 'gauge' | 'histogram'): string {
  return `# HELP ${name} ${escapeText(help)}\n# TYPE ${name} ${type}\n`;
}

/** `{a="x",b="y"}` (empty for no labels), made once per child and reused by every scrape. */
export function labelText(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return '';
  let s = '{';
  for (let i = 0; i < names.length; i++) s += `${i ? ',' : ''}${names[i]}="${escapeText(values[i]!).replace(/"/g, '\\"')}"`;
  return s + '}';
}

/** `labelText` with one more label appended (a histogram bucket's `le`). */
export function withLabel(labels: string, name: string, value: string): string {
  return labels === '' ? `{${name}="${value}"}` : `${labels.slice(0, -1)},${name}="${value}"}`;
}

/** A sample value as Prometheus (Go's ParseFloat) reads it. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}
