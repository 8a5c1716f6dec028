/**
 * core-native grep (Rust `regex`, whole-buffer search confirmed per line) against a JavaScript
 * RegExp loop over the same buffers (split into lines, `test` each line: what a JS grep does),
 * same inputs, same run.
 *   npx tsx bench/grep.bench.ts
 * Input: 4,000 generated text files of ~4 KB (16 MB): log lines, prose and code in the style of
 * an agent's context store. Patterns: a rare literal, a case-insensitive word, an alternation
 * with classes, and a catastrophic-backtracking pattern (timed separately: JS cannot finish it).
 */
import { Bench } from 'tinybench';
import { grep } from '../runtime/native.js';

let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const pick = <T>(a: T[]) => a[Math.floor(rand() * a.length)]!;
const words = 'the index vector query file write search memory user agent context resource token queue commit lock shard replica backup cache session error retry latency timeout connection request response'.split(' ');
const templates = [
  () => `${new Date(1.7e12 + rand() * 1e9).toISOString()} INFO api request ${pick(words)} took ${Math.floor(rand() * 900)} ms`,
  () => `${new Date(1.7e12 + rand() * 1e9).toISOString()} WARN worker ${pick(['Timeout', 'timeout', 'refused', 'reset'])} talking to ${pick(words)}-svc status ${pick([200, 404, 500, 503])}`,
  () => Array.from({ length: 12 }, () => pick(words)).join(' ') + '.',
  () => `export function ${pick(words)}${pick(words).replace(/^./, (c) => c.toUpperCase())}(input: string): number { return input.length; }`,
];
const files = Array.from({ length: 4000 }, (_, f) => {
  const lines: string[] = [];
  let size = 0;
  while (size < 4096) {
    const l = rand() < 0.0005 ? `note: the needle ${f} is here` : pick(templates)();
    lines.push(l);
    size += l.length + 1;
  }
  return Buffer.from(lines.join('\n'));
});
const totalMb = files.reduce((s, b) => s + b.length, 0) / 2 ** 20;

function jsGrep(pattern: string, flags: string, max = 1000) {
  const re = new RegExp(pattern, flags);
  const out: Array<{ index: number; line: number; text: string }> = [];
  for (let i = 0; i < files.length && out.length < max; i++) {
    const lines = files[i]!.toString('utf8').split('\n');
    for (let j = 0; j < lines.length && out.length < max; j++) if (re.test(lines[j]!)) out.push({ index: i, line: j + 1, text: lines[j]! });
  }
  return out;
}

// [name, pattern, case-insensitive, max matches]. Most cases scan everything (max above the
// match count); the `first 1,000` case stops early, where the native call's fixed cost (one
// handle per buffer, ~0.2 µs each) is visible against a JS loop that touches a few files.
const cases: Array<[string, string, boolean, number]> = [
  ['rare literal', 'needle', false, 1000],
  ['case-insensitive word, all matches', 'timeout', true, 1_000_000],
  ['case-insensitive word, first 1,000', 'timeout', true, 1000],
  ['alternation + classes, all matches', String.raw`(refused|reset) talking to \w+-svc status 5\d\d`, false, 1_000_000],
];
// Same answers before timing anything (bounded to 1,000 matches both ways).
for (const [name, p, ci, max] of cases) {
  const a = grep.search(p, files, { caseInsensitive: ci, maxMatches: max }).matches;
  const b = jsGrep(p, ci ? 'iu' : 'u', max);
  if (a.length !== b.length || a.some((m, i) => m.index !== b[i]!.index || m.line !== b[i]!.line)) throw new Error(`${name}: native and JS disagree (${a.length} vs ${b.length})`);
  console.log(`${name}: ${a.length} matching lines`);
}

const bench = new Bench({ time: 1500, warmupTime: 200 });
for (const [name, p, ci, max] of cases) {
  bench
    .add(`js RegExp per line: ${name}`, () => void jsGrep(p, ci ? 'iu' : 'u', max))
    .add(`native grep sync: ${name}`, () => void grep.search(p, files, { caseInsensitive: ci, maxMatches: max }))
    .add(`native grep async: ${name}`, async () => void (await grep.searchAsync(p, files, { caseInsensitive: ci, maxMatches: max })));
}
await bench.run();
console.table(bench.table());
const mean = (n: string) => (bench.tasks.find((t) => t.name === n)!.result as { latency: { mean: number } }).latency.mean;
console.log(`input: ${files.length} files, ${totalMb.toFixed(1)} MB`);
for (const [name] of cases) {
  const js = mean(`js RegExp per line: ${name}`);
  const s = mean(`native grep sync: ${name}`);
  const a = mean(`native grep async: ${name}`);
  console.log(`${name}: js ${js.toFixed(1)} ms, native sync ${s.toFixed(1)} ms (${(js / s).toFixed(1)}x), async ${a.toFixed(1)} ms (${(js / a).toFixed(1)}x)`);
}

// Catastrophic backtracking: `^(a+)+$` on 'a'*n + '!'. JS time doubles per extra character.
for (const n of [20, 22, 24]) {
  const s = 'a'.repeat(n) + '!';
  let t = performance.now();
  /^(a+)+$/.test(s);
  const js = performance.now() - t;
  t = performance.now();
  grep.search('^(a+)+$', [s]);
  const nat = performance.now() - t;
  console.log(`(a+)+$ on ${n + 1} chars: js ${js.toFixed(1)} ms, native ${nat.toFixed(3)} ms`);
}
const big = 'a'.repeat(1_000_000) + '!';
const t0 = performance.now();
grep.search('^(a+)+$', [big]);
console.log(`(a+)+$ on 1,000,001 chars: native ${(performance.now() - t0).toFixed(1)} ms (JS would need ~2^1000000 steps)`);
