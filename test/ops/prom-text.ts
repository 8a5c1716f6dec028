/**
 * A strict reader of the Prometheus text exposition format (0.0.4), enough to check what ctx
 * serves: every sample line parses, belongs to a family announced by # TYPE, histogram buckets are
 * cumulative and end with +Inf equal to _count. `promtool check metrics` runs too when installed.
 */
import { execFileSync } from 'node:child_process';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;

export function parsePrometheus(text: string): { samples: Sample[]; types: Map<string, string> } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) continue;
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type!)) throw new Error(`bad type line: ${line}`);
      if (types.has(name!)) throw new Error(`family ${name} announced twice`);
      types.set(name!, type!);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`unparseable sample line: ${line}`);
    const labels: Record<string, string> = {};
    if (m[2]) {
      LABEL.lastIndex = 0;
      let consumed = 0;
      while (consumed < m[2].length) {
        LABEL.lastIndex = consumed;
        const l = LABEL.exec(m[2]);
        if (!l) throw new Error(`bad labels in: ${line}`);
        labels[l[1]!] = l[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
        consumed = LABEL.lastIndex;
      }
    }
    // Go's ParseFloat (Prometheus's parser) takes NaN and Inf in any case; prom-client writes `Nan`.
    const raw = m[3]!.toLowerCase();
    const value = raw === '+inf' || raw === 'inf' ? Infinity : raw === '-inf' ? -Infinity : raw === 'nan' ? NaN : Number(m[3]);
    if (Number.isNaN(value) && raw !== 'nan') throw new Error(`bad value in: ${line}`);
    const family = [m[1]!, m[1]!.replace(/_(bucket|sum|count)$/, '')].find((n) => types.has(n));
    if (!family) throw new Error(`sample ${m[1]} has no # TYPE`);
    samples.push({ name: m[1]!, labels, value });
  }
  checkHistograms(samples, types);
  return { samples, types };
}

function checkHistograms(samples: Sample[], types: Map<string, string>): void {
  for (const [name, type] of types) {
    if (type !== 'histogram') continue;
    const series = new Map<string, { buckets: Array<[number, number]>; count?: number }>();
    const key = (l: Record<string, string>) => JSON.stringify(Object.entries(l).filter(([k]) => k !== 'le').sort());
    for (const s of samples) {
      if (s.name === name + '_bucket') {
        const e = series.get(key(s.labels)) ?? { buckets: [] };
        e.buckets.push([s.labels.le === '+Inf' ? Infinity : Number(s.labels.le), s.value]);
        series.set(key(s.labels), e);
      } else if (s.name === name + '_count') {
        const e = series.get(key(s.labels)) ?? { buckets: [] };
        e.count = s.value;
        series.set(key(s.labels), e);
      }
    }
    for (const [k, e] of series) {
      for (let i = 1; i < e.buckets.length; i++) {
        if (!(e.buckets[i]![0] > e.buckets[i - 1]![0])) throw new Error(`${name}${k}: bucket bounds not increasing`);
        if (e.buckets[i]![1] < e.buckets[i - 1]![1]) throw new Error(`${name}${k}: buckets not cumulative`);
      }
      const last = e.buckets.at(-1);
      if (!last || last[0] !== Infinity || last[1] !== e.count) throw new Error(`${name}${k}: +Inf bucket missing or not equal to _count`);
    }
  }
}

/** `promtool check metrics` on the text, when promtool is installed (Debian's prometheus package); null when absent. */
export function promtoolCheck(text: string): string | null {
  try {
    execFileSync('promtool', ['--version'], { stdio: 'ignore' });
  } catch {
    return null;
  }
  let out: string;
  try {
    out = execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    out = `${e.stdout ?? ''}${e.stderr ?? ''}`;
  }
  // The gauges nodejs_active_{handles,requests,resources}_total trip the `_total` naming lint
  // (prom-client's names, kept so existing Node dashboards work); anything else fails.
  return out
    .split('\n')
    .filter((l) => l && !/^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/.test(l))
    .join('\n');
}

export function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const hit = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return hit.reduce((a, s) => a + s.value, 0);
}
