/**
 * Per-request validation cost: the `s` schemas as they are now (TypeBox types checked by a compiled
 * TypeCompiler validator; the hand-written walker only when that refuses) against the hand-written
 * validator of an earlier commit, loaded from git into the same process so both run in the same
 * minutes on the same machine. The inputs are what the HTTP bench and typical clients send.
 *   npx tsx bench/schema.bench.ts [--baseline <git rev>]   (default: 5dbff7b, before TypeBox)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import * as current from '../runtime/schema.js';

const i = process.argv.indexOf('--baseline');
const rev = i > 0 ? process.argv[i + 1]! : '5dbff7b';
const runtimeDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'runtime');
// Beside runtime/schema.ts, so its relative imports resolve; removed as soon as it is loaded.
const baselineFile = path.join(runtimeDir, `.schema-baseline-${process.pid}.ts`);
fs.writeFileSync(baselineFile, execFileSync('git', ['show', `${rev}:runtime/schema.ts`], { encoding: 'utf8' }));
let baseline: typeof current;
try {
  baseline = (await import(pathToFileURL(baselineFile).href)) as typeof current;
} finally {
  fs.rmSync(baselineFile, { force: true });
}

function schemas(m: typeof current) {
  const { s } = m;
  return {
    stat: s.object({ uri: s.string({ min: 1 }) }),
    ls: s.object({
      uri: s.string({ min: 1 }),
      output: s.enum(['agent', 'original'] as const).default('agent'),
      abs_limit: s.int({ min: 0, max: 65_536 }).default(256),
      show_all_hidden: s.bool().default(false),
      node_limit: s.int({ min: 1, max: 100_000 }).default(1000),
      offset: s.int({ min: 0 }).default(0),
      recursive: s.bool().default(false),
    }),
    find: s.object({
      query: s.string({ max: 8192 }).optional(),
      target_uri: s.union<string | string[]>([s.string(), s.array(s.string(), { max: 64 })], 'a URI string or an array of URI strings').optional(),
      tags: s.array(s.string({ max: 512 }), { max: 64 }).optional(),
      limit: s.int({ max: 1000 }).optional(),
      score_threshold: s.number({ min: 0, max: 1 }).optional(),
      filter: s.record(s.any()).optional(),
      include_provenance: s.bool().optional(),
    }),
    write: s.object({
      uri: s.string({ min: 1 }),
      content: s.string(),
      mode: s.enum(['replace', 'append', 'create'] as const).default('replace'),
      wait: s.bool().default(false),
      timeout: s.number({ min: 0 }).nullable().optional(),
      tags: s.array(s.string({ min: 1, max: 512 }), { max: 64 }).optional(),
    }),
  };
}

const cases: Array<[string, keyof ReturnType<typeof schemas>, 'query' | 'json', () => unknown]> = [
  ['fs/stat query (uri)', 'stat', 'query', () => current.parseQueryString('uri=ctx://resources/docs/readme.md')],
  ['fs/ls query (uri, limit, recursive; defaults)', 'ls', 'query', () => current.parseQueryString('uri=ctx://resources/docs&node_limit=50&recursive=true')],
  ['search/find body', 'find', 'json', () => ({ query: 'how do I configure the embedder', target_uri: 'ctx://resources/docs', limit: 10, tags: ['lang=en'] })],
  ['content/write body (defaults)', 'write', 'json', () => ({ uri: 'ctx://resources/a.md', content: 'x'.repeat(200), tags: ['a=b'] })],
];

const before = schemas(baseline);
const after = schemas(current);
const bench = new Bench({ time: 1000 });
for (const [name, key, mode, input] of cases) {
  const field = mode === 'query' ? 'query' : 'body';
  bench.add(`before: ${name}`, () => before[key].parse(input(), field, mode));
  bench.add(`after: ${name}`, () => after[key].parse(input(), field, mode));
}
bench.add('input only: fs/stat query string', () => current.parseQueryString('uri=ctx://resources/docs/readme.md'));
await bench.run();

// tinybench reports milliseconds; a task that threw has no latency (and fails the bench here).
const ns = (name: string) => (bench.tasks.find((t) => t.name === name)!.result as unknown as { latency: { mean: number } }).latency.mean * 1e6;
console.log(`baseline: ${rev}\n`);
console.log('| input | before ns/op | after ns/op | after − before |');
console.log('|---|---|---|---|');
for (const [name] of cases) {
  const b = ns(`before: ${name}`);
  const a = ns(`after: ${name}`);
  console.log(`| ${name} | ${b.toFixed(0)} | ${a.toFixed(0)} | ${(a - b).toFixed(0)} ns |`);
}
console.log(`\n(building the input alone: fs/stat query string ${ns('input only: fs/stat query string').toFixed(0)} ns/op, included in both columns)`);
