/** Human output: aligned tables, trees, key/value blocks; colour only on a TTY and never with NO_COLOR. */

export interface Out {
  json: boolean;
  color: boolean;
  /** Prints a JSON value (with --json) or the human text the renderer makes. */
  emit(value: unknown, human: (v: never) => string): void;
  line(text?: string): void;
}

export function makeOut(json: boolean, noColorFlag: boolean, stream: NodeJS.WriteStream = process.stdout): Out {
  const color = !json && !noColorFlag && !process.env.NO_COLOR && Boolean(stream.isTTY) && process.env.TERM !== 'dumb';
  return {
    json,
    color,
    emit(value, human) {
      if (json) stream.write(JSON.stringify(value, null, 2) + '\n');
      else {
        const text = human(value as never);
        if (text) stream.write(text.endsWith('\n') ? text : text + '\n');
      }
    },
    line(text = '') {
      stream.write(text + '\n');
    },
  };
}

const CODES = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], blue: [34, 39], cyan: [36, 39] } as const;
export type Style = keyof typeof CODES;

export function paint(out: Pick<Out, 'color'>, style: Style, text: string): string {
  if (!out.color) return text;
  const [a, b] = CODES[style];
  return `\u001b[${a}m${text}\u001b[${b}m`;
}

const ANSI = /\u001b\[[0-9;]*m/g;
const width = (s: string) => [...s.replace(ANSI, '')].length;

/**
 * Columns padded to the widest cell; a header ending in `>` (e.g. `SIZE>`) right-aligns its column
 * (numbers line up by their last digit). The last column is never padded (it may be long).
 */
export function table(out: Pick<Out, 'color'>, headers: string[], rows: string[][]): string {
  if (rows.length === 0) return paint(out, 'dim', '(none)');
  const right = headers.map((h) => h.endsWith('>'));
  const names = headers.map((h) => h.replace(/>$/, ''));
  const all = [names.map((h) => paint(out, 'bold', h)), ...rows];
  const widths = names.map((_, i) => Math.max(...all.map((r) => width(r[i] ?? ''))));
  const cell = (c: string, i: number, last: boolean) => {
    const pad = ' '.repeat(widths[i]! - width(c));
    return right[i] ? pad + c : last ? c : c + pad;
  };
  return all.map((r) => r.map((c, i) => cell(c, i, i === r.length - 1)).join('  ').trimEnd()).join('\n');
}

/** `key: value` lines with the keys aligned. */
export function kv(out: Pick<Out, 'color'>, obj: Record<string, unknown>): string {
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
  const w = Math.max(0, ...keys.map((k) => k.length));
  return keys.map((k) => `${paint(out, 'dim', k.padEnd(w))}  ${fmt(obj[k])}`).join('\n');
}

/** One line of at most `n` characters (abstracts and messages in table cells). */
export function oneLine(s: string | undefined, n: number): string {
  const t = (s ?? '').replace(/\s+/g, ' ').trim();
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
}

export function fmt(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function bytes(n: number | undefined): string {
  if (n === undefined) return '-';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = -1;
  do {
    v /= 1024;
    u++;
  } while (v >= 1024 && u < units.length - 1);
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

export function when(iso: string | number | undefined): string {
  if (iso === undefined || iso === null) return '-';
  const d = typeof iso === 'number' ? new Date(iso * 1000) : new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toISOString().replace('T', ' ').slice(0, 19);
}

/** Draws entries (each with a `/`-separated relative path) as a tree. */
export function tree(out: Pick<Out, 'color'>, rootLabel: string, entries: Array<{ rel: string; isDir: boolean }>): string {
  interface Node { children: Map<string, Node>; isDir: boolean }
  const root: Node = { children: new Map(), isDir: true };
  for (const e of entries) {
    let n = root;
    const parts = e.rel.split('/').filter(Boolean);
    parts.forEach((p, i) => {
      let c = n.children.get(p);
      if (!c) n.children.set(p, (c = { children: new Map(), isDir: i < parts.length - 1 || e.isDir }));
      n = c;
    });
  }
  const lines = [paint(out, 'bold', rootLabel)];
  const walk = (n: Node, prefix: string) => {
    const kids = [...n.children.entries()].sort(([a, x], [b, y]) => Number(y.isDir) - Number(x.isDir) || a.localeCompare(b));
    kids.forEach(([name, c], i) => {
      const last = i === kids.length - 1;
      lines.push(`${prefix}${last ? '└── ' : '├── '}${c.isDir ? paint(out, 'blue', name + '/') : name}`);
      walk(c, prefix + (last ? '    ' : '│   '));
    });
  };
  walk(root, '');
  return lines.join('\n');
}

/** A POSIX mode as `ls -l` shows it, with the octal beside it (the API's number is st_mode). */
export function fileMode(mode: number): string {
  const type = (mode & 0o170000) === 0o040000 ? 'd' : '-';
  let perms = '';
  for (let shift = 6; shift >= 0; shift -= 3) {
    const bits = (mode >> shift) & 7;
    perms += (bits & 4 ? 'r' : '-') + (bits & 2 ? 'w' : '-') + (bits & 1 ? 'x' : '-');
  }
  return `${type}${perms} (${mode.toString(8)})`;
}
