// Regenerates src/generated/openapi.ts from the server's OpenAPI document (docs/openapi.json).
// `--check` exits 1 when the checked-in file differs, so a stale client fails loudly.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const here = path.dirname(fileURLToPath(import.meta.url));
const source = path.resolve(here, '../../../docs/openapi.json');
const targets = {
  types: path.resolve(here, '../src/generated/openapi.ts'),
  routes: path.resolve(here, '../src/generated/routes.ts'),
};
const HEADER = '/* Generated from docs/openapi.json by clients/typescript/scripts/generate.mjs: run `npm run generate -w ctx-client`; never edit by hand. */\n';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every generated file's text by name: the types (openapi-typescript) and the operation table. */
export async function render() {
  const doc = JSON.parse(fs.readFileSync(source, 'utf8'));
  const ast = await openapiTS(doc, { alphabetize: true });
  const rows = [];
  for (const [p, item] of Object.entries(doc.paths))
    for (const m of METHODS) if (item[m]) rows.push(`  ${item[m].operationId}: ['${m.toUpperCase()}', '${p}'],`);
  rows.sort();
  const routes =
    `${HEADER}import type { operations } from './openapi.js';\n\n` +
    `/** Method and path template of every operation, by operationId. */\n` +
    `export const routes = {\n${rows.join('\n')}\n} as const satisfies Record<keyof operations, readonly [string, string]>;\n`;
  return { types: HEADER + astToString(ast), routes };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const texts = await render();
  let stale = false;
  for (const [name, target] of Object.entries(targets)) {
    const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
    if (current === texts[name]) continue;
    stale = true;
    if (process.argv.includes('--check')) {
      console.error(`${path.relative(process.cwd(), target)} is stale: run npm run generate -w ctx-client`);
    } else {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, texts[name]);
      console.log(`wrote ${path.relative(process.cwd(), target)}`);
    }
  }
  if (stale && process.argv.includes('--check')) process.exit(1);
}
