/** Code files' L0/L1 come from their tree-sitter outline, without an LLM. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_GENERATOR, L0_TOKEN_BUDGET, codeSummary, countTokens } from '../../plugins/semantic/summarize.js';
import { absKey, type FileAbstract } from '../../plugins/semantic/indexer.js';
import { setup, wait, write, type Ctx } from '../retrieval/helpers.js';

const PY = `import os

RETRIES = 3

class Client:
    def get(self, url):
        return url

    def close(self):
        pass

def connect(host):
    return Client()
`;

describe('codeSummary', () => {
  it('L0 is one line: language, size and top-level symbols; L1 the outline with line ranges', () => {
    const s = codeSummary('client.py', PY)!;
    expect(s.abstract).toBe('client.py: python source, 13 lines, 3 top-level symbols: const RETRIES, class Client, function connect.');
    expect(s.abstract).not.toContain('\n');
    expect(s.overview).toBe(
      [
        '# client.py',
        '',
        s.abstract,
        '',
        '- const RETRIES (L3-3)',
        '- class Client (L5-10)',
        '  - method get (L6-7)',
        '  - method close (L9-10)',
        '- function connect (L12-13)',
      ].join('\n'),
    );
  });

  it('stays within the L0 budget for files with many symbols, and caps the L1 list', () => {
    const src = Array.from({ length: 600 }, (_, i) => `export function handler_number_${i}() {}`).join('\n');
    const s = codeSummary('many.ts', src)!;
    expect(countTokens(s.abstract)).toBeLessThanOrEqual(L0_TOKEN_BUDGET);
    expect(s.abstract).toMatch(/600 top-level symbols: .*, …\.$/);
    expect(s.overview).toContain('- … 200 more symbols');
  });

  it('is null for files of no outline language', () => {
    expect(codeSummary('notes.md', '# Notes')).toBeNull();
    expect(codeSummary('Makefile', 'all:\n\techo')).toBeNull();
  });
});

describe('indexing a code file', () => {
  let c: Ctx;
  beforeAll(async () => {
    c = await setup();
  });
  afterAll(() => c.t.close());

  it('stores the outline L0/L1, lists the L0 in the directory overview and embeds the outline', async () => {
    await write(c.t, c.admin, 'ctx://resources/svc/client.py', PY);
    await write(c.t, c.admin, 'ctx://resources/svc/notes.md', '# Notes\n\nPlain prose stays extractive.');
    const w = await wait(c.t);
    expect(w.Semantic.error_count).toBe(0);
    const stored = await c.t.app.kv.sub('p:semantic').getJson<FileAbstract>(absKey('acme', 'resources/svc/client.py'));
    expect(stored!.generator).toBe(CODE_GENERATOR);
    expect(stored!.abstract).toBe(codeSummary('client.py', PY)!.abstract);
    expect(stored!.overview).toContain('  - method close (L9-10)');
    const md = await c.t.app.kv.sub('p:semantic').getJson<FileAbstract>(absKey('acme', 'resources/svc/notes.md'));
    expect(md!.generator).not.toBe(CODE_GENERATOR);
    expect(md!.overview).toBeUndefined();
    const ov = await c.t.req({ method: 'GET', url: '/api/v1/content/overview?uri=ctx://resources/svc', headers: c.admin });
    expect(ov.json().result).toContain('client.py (py, ');
    expect(ov.json().result).toContain('python source, 13 lines, 3 top-level symbols');
    // The outline is in the file's record: a symbol name finds it.
    const f = await c.t.req({ method: 'POST', url: '/api/v1/search/find', headers: c.admin, body: { query: 'connect Client close', target_uri: 'ctx://resources/svc' } });
    const hit = (f.json().result.resources as Array<{ uri: string; abstract: string }>).find((r) => r.uri === 'ctx://resources/svc/client.py');
    expect(hit?.abstract).toContain('python source');
  });
});
