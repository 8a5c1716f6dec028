/**
 * Runs benchmark suites one after another, each in its own process, so one suite's heap, native
 * threads and child servers never skew the next one's figures.
 *   npm run bench                          every bench/*.bench.ts (some take many minutes: vector builds 1M-vector indexes)
 *   npm run bench -- hash http             only these (`hash` or `hash.bench.ts`)
 *   npm run bench -- http --duration 5     options from the first `-` argument on go to every suite run
 *   npm run bench -- --list                the suites there are
 * Results are printed by each suite; bench/RESULTS.md records them with their commands.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(benchDir);
const SUFFIX = '.bench.ts';
const suites = readdirSync(benchDir)
  .filter((f) => f.endsWith(SUFFIX))
  .map((f) => f.slice(0, -SUFFIX.length))
  .sort();

const args = process.argv.slice(2);
const firstOption = args.findIndex((a) => a.startsWith('-'));
const names = firstOption < 0 ? args : args.slice(0, firstOption);
const forwarded = firstOption < 0 ? [] : args.slice(firstOption);

if (forwarded[0] === '--list') {
  for (const s of suites) console.log(s);
  process.exit(0);
}

const wanted = names.length ? names.map((n) => (n.endsWith(SUFFIX) ? n.slice(0, -SUFFIX.length) : n.replace(/^bench\//, ''))) : suites;
const unknown = wanted.filter((n) => !suites.includes(n));
if (unknown.length) {
  console.error(`unknown bench suite(s): ${unknown.join(', ')}; there are: ${suites.join(', ')}`);
  process.exit(2);
}

function run(name: string): Promise<number> {
  // Relative to the project root, where every suite expects to run (they spawn bench/servers/*).
  const file = relative(root, join(benchDir, `${name}${SUFFIX}`));
  console.log(`\n=== ${name}: node --import tsx ${file} ${forwarded.join(' ')}`.trimEnd());
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file, ...forwarded], { cwd: root, stdio: 'inherit' });
    child.on('error', (err) => {
      console.error(`${name}: could not start: ${err.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

console.log(`bench suites to run, in order: ${wanted.join(', ')}`);
const failed: string[] = [];
for (const name of wanted) {
  const started = Date.now();
  const code = await run(name);
  console.log(`=== ${name}: ${code === 0 ? 'done' : `FAILED (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (code !== 0) failed.push(name);
}
if (failed.length) {
  console.error(`failed: ${failed.join(', ')}`);
  process.exit(1);
}
