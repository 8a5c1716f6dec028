/**
 * Builds the technical-documents half of the held-out set: the READMEs of a fixed list of
 * permissively licensed packages installed under node_modules, split at their `##`/`###` headings
 * into one document per section. The output (sets/tech-docs.jsonl) is committed, with each
 * section's package, version and license, so the set does not drift when dependencies update;
 * rerun only to rebuild it on purpose (questions in sets/tech-questions.txt name section ids).
 *
 *   npx tsx bench/retrieval-heldout/split-docs.ts
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../../node_modules');
export const PACKAGES = ['picomatch', 'magic-string', 'tinybench', 'semver', 'debug', 'ws', 'ignore', 'uuid', 'yargs-parser', 'autocannon', 'before-after-hook'];
const OK_LICENSES = new Set(['MIT', 'ISC', 'Apache-2.0']);

const slug = (s: string) => s.toLowerCase().replace(/[`*_[\]()<>"'.,:!?]/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'section';

const out: string[] = [];
for (const pkg of PACKAGES) {
  const dir = join(root, pkg);
  const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (!OK_LICENSES.has(meta.license)) throw new Error(`${pkg}: license ${meta.license} not in the allowed list`);
  const readme = readdirSync(dir).find((f) => /^readme(\.md)?$/i.test(f));
  if (!readme) throw new Error(`${pkg}: no README`);
  const lines = readFileSync(join(dir, readme), 'utf8').split('\n');
  let heading = pkg;
  let body: string[] = [];
  let inFence = false;
  const seen = new Map<string, number>();
  const flush = () => {
    const text = body.join('\n').trim();
    body = [];
    // Badges, tables of contents and one-line stubs are not documents anyone searches for.
    if (text.replace(/\[[^\]]*\]\([^)]*\)/g, '').replace(/\s+/g, ' ').length < 120) return;
    let id = `${pkg}/${slug(heading)}`;
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    if (n > 1) id += `-${n}`;
    out.push(JSON.stringify({ id, package: pkg, version: meta.version, license: meta.license, heading, text: `# ${heading}\n\n${text}\n` }));
  };
  for (const line of lines) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    const m = !inFence && /^(#{1,3})\s+(.+?)\s*#*\s*$/.exec(line);
    if (m) {
      flush();
      heading = m[2]!.replace(/<[^>]+>/g, '').trim() || heading;
    } else body.push(line);
  }
  flush();
}
writeFileSync(join(here, 'sets/tech-docs.jsonl'), out.join('\n') + '\n');
console.log(`${out.length} sections from ${PACKAGES.length} packages → sets/tech-docs.jsonl`);
