/** The checked-in generated client (types and operation table) must match docs/openapi.json. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { routes } from 'ctx-client';

const root = path.resolve(import.meta.dirname, '..');

describe('generated client', () => {
  it('src/generated/* is what the generator makes from docs/openapi.json (else: npm run generate -w ctx-client)', async () => {
    const { render } = (await import(path.join(root, 'scripts/generate.mjs') as string)) as { render(): Promise<{ types: string; routes: string }> };
    const texts = await render();
    expect(fs.readFileSync(path.join(root, 'src/generated/openapi.ts'), 'utf8') === texts.types, 'src/generated/openapi.ts is stale').toBe(true);
    expect(fs.readFileSync(path.join(root, 'src/generated/routes.ts'), 'utf8') === texts.routes, 'src/generated/routes.ts is stale').toBe(true);
  });

  it('every operation of the document has a route entry', () => {
    const doc = JSON.parse(fs.readFileSync(path.resolve(root, '../../docs/openapi.json'), 'utf8')) as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(Object.keys(routes).sort()).toEqual(ids.sort());
  });

  it('the browser entry imports nothing from node: (only ctx-client/node does)', () => {
    const walk = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? (e.name === 'node' ? [] : walk(path.join(dir, e.name))) : [path.join(dir, e.name)]));
    for (const file of walk(path.join(root, 'src'))) expect(fs.readFileSync(file, 'utf8'), file).not.toMatch(/from ['"](node:|fs|path|stream)/);
  });
});
