/** Code navigation (spec Part 3): outline, search and expand through the real pipeline. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { CAP_NOTE, NOT_CTX_URI } from '../../plugins/code-nav/format.js';

let t: TestApp;
let alice: Record<string, string>;
let bob: Record<string, string>;

const post = (path: string, body: unknown, headers = alice) => t.req({ method: 'POST', url: `/api/v1/code/${path}`, headers, body });
/** The result text of a 200 answer. */
async function text(path: string, body: unknown, headers = alice): Promise<string> {
  const res = await post(path, body, headers);
  expect(res.status, res.text).toBe(200);
  expect(res.json().status).toBe('ok');
  return res.json().result as string;
}
const write = (path: string, content: string | Buffer) => t.app.vfs.writeFile('acme', path, Buffer.isBuffer(content) ? content : Buffer.from(content));

const SESSION_PY = `import os


def main():
    service = SessionService()
    service.run()


class SessionService:
    """Runs sessions."""

    def run(self):
        return 1

    def stop(self):
        return 0
`;

const STORE_TS = `export interface Store {
  get(key: string): string;
}

export class MemoryStore implements Store {
  private data = new Map<string, string>();

  get(key: string): string {
    return this.data.get(key) ?? '';
  }

  run(): void {}
}

export function createStore(): Store {
  return new MemoryStore();
}
`;

beforeAll(async () => {
  t = await startTestApp();
  const acme = await t.account('acme', ['alice', 'bob']);
  alice = acme.users.alice!;
  bob = acme.users.bob!;
  await write('resources/proj/src/session.py', SESSION_PY);
  await write('resources/proj/src/store.ts', STORE_TS);
  await write('resources/proj/src/lib/util.go', 'package lib\n\nfunc SessionHelper() {}\n');
  await write('resources/proj/README.md', '# Project\nSessionService lives in src.\n');
  await write('resources/proj/logo.ts', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
  await write('resources/proj/latin1.py', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  await write('user/bob/resources/code/secret.py', 'def hidden_function():\n    pass\n');
});
afterAll(() => t.close());

describe('code/outline', () => {
  it('lists symbols with line ranges under a header with URI, language and line count', async () => {
    const out = await text('outline', { uri: 'ctx://resources/proj/src/session.py' });
    expect(out).toBe(
      [
        'ctx://resources/proj/src/session.py  [python, 16 lines]',
        '',
        'function main  L4-6',
        'class SessionService  L9-16',
        '  method run  L12-13',
        '  method stop  L15-16',
      ].join('\n'),
    );
  });

  it('outlines TypeScript with members nested under their container', async () => {
    const out = await text('outline', { uri: 'ctx://resources/proj/src/store.ts' });
    expect(out.split('\n')[0]).toBe('ctx://resources/proj/src/store.ts  [typescript, 17 lines]');
    expect(out).toContain('interface Store  L1-3\n  method get  L2-2');
    expect(out).toContain('class MemoryStore  L5-13\n  property data  L6-6\n  method get  L8-10\n  method run  L12-12');
    expect(out).toContain('function createStore  L15-17');
  });

  it('answers business failures as status ok with an Error: text', async () => {
    expect(await text('outline', { uri: '/etc/passwd' })).toBe(NOT_CTX_URI);
    expect(await text('outline', { uri: 'viking://resources/proj/src/session.py' })).toMatch(/^Error: only ctx:\/\/ URIs/);
    expect(await text('outline', { uri: '' })).toMatch(/^Error: /);
    expect(await text('outline', { uri: 'ctx://resources/proj/logo.ts' })).toBe('Error: ctx://resources/proj/logo.ts is not text');
    expect(await text('outline', { uri: 'ctx://resources/proj/latin1.py' })).toBe('Error: ctx://resources/proj/latin1.py is not text');
    expect(await text('outline', { uri: 'ctx://resources/proj/README.md' })).toBe('Error: unsupported language for ctx://resources/proj/README.md');
    expect(await text('outline', { uri: 'ctx://resources/proj/src' })).toBe('Error: ctx://resources/proj/src is a directory, not a source file');
  });

  it('400 INVALID_ARGUMENT for a missing or mistyped field, 404 for a missing file', async () => {
    for (const body of [{}, { uri: 5 }, { symbol: 'x' }]) {
      const res = await post('outline', body);
      expect(res.status, res.text).toBe(400);
      expect(res.json().error.code).toBe('INVALID_ARGUMENT');
    }
    const missing = await post('outline', { uri: 'ctx://resources/proj/nope.py' });
    expect(missing.status).toBe(404);
    expect(missing.json().error.code).toBe('NOT_FOUND');
  });
});

describe('code/search', () => {
  it('finds symbols by case-insensitive substring across a directory, recursively', async () => {
    const out = await text('search', { uri: 'ctx://resources/proj', query: 'session' });
    // README.md is no source file; logo.ts (binary) and latin1.py (not UTF-8) are scanned but unreadable.
    expect(out).toBe(
      [
        '2 matches for "session" (scanned 5 files)',
        '',
        'ctx://resources/proj/src/session.py',
        '  SessionService  L9-16',
        '',
        'ctx://resources/proj/src/lib/util.go',
        '  SessionHelper  L3-3',
        '',
        '(warning: skipped 2 unreadable source file(s))',
      ].join('\n'),
    );
  });

  it('matches qualified names when the query has a dot, and searches one file', async () => {
    const out = await text('search', { uri: 'ctx://resources/proj/src/store.ts', query: 'memorystore.get' });
    expect(out).toBe('1 matches for "memorystore.get" (scanned 1 files)\n\nctx://resources/proj/src/store.ts\n  MemoryStore.get  L8-10');
    const run = await text('search', { uri: 'ctx://resources/proj/src', query: 'run' });
    expect(run).toContain('ctx://resources/proj/src/session.py\n  SessionService.run  L12-13');
    expect(run).toContain('ctx://resources/proj/src/store.ts\n  MemoryStore.run  L12-12');
  });

  it('says so when nothing matches or no source file is there', async () => {
    expect(await text('search', { uri: 'ctx://resources/proj/src', query: 'zzz' })).toBe('No matches for "zzz" (scanned 3 files)');
    expect(await text('search', { uri: 'ctx://resources/proj/README.md', query: 'x' })).toBe('No supported source files found under ctx://resources/proj/README.md');
  });

  it('stops at 200 files and asks to narrow the URI', async () => {
    const files = Array.from({ length: 205 }, (_, i) => ({ path: `resources/big/m${String(i).padStart(3, '0')}.py`, data: Buffer.from(`def fn_${i}():\n    pass\n`) }));
    for (const f of files) await t.app.vfs.writeFile('acme', f.path, f.data);
    const out = await text('search', { uri: 'ctx://resources/big', query: 'fn_' });
    expect(out.split('\n')[0]).toBe('200 matches for "fn_" (scanned 200 files)');
    expect(out.endsWith(`\n\n${CAP_NOTE}`)).toBe(true);
    expect(CAP_NOTE).toMatch(/narrow uri/);
    // A second search is served from the outline cache and answers the same.
    expect(await text('search', { uri: 'ctx://resources/big', query: 'fn_' })).toBe(out);
  });

  it('answers business failures as status ok with an Error: text; a missing query is 400', async () => {
    expect(await text('search', { uri: 'file:///src', query: 'x' })).toBe(NOT_CTX_URI);
    expect(await text('search', { uri: 'ctx://resources/proj', query: '' })).toBe('Error: empty query');
    expect(await text('search', { uri: 'ctx://resources/proj', query: '   ' })).toBe('Error: empty query');
    const res = await post('search', { uri: 'ctx://resources/proj' });
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('outlines stored by the indexer', () => {
  it('a search after indexing reads the stored outline; a file changed since is parsed again', async () => {
    await write('resources/indexed/app.py', 'def first_version():\n    pass\n');
    expect((await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: t.root, body: { timeout: 30 } })).status).toBe(200);
    const stored = await t.app.kv.sub('p:semantic').getJson<{ sha256: string; outline: { symbols: Array<{ name: string }> } }>(`o\x00acme\x00resources/indexed/app.py`);
    expect(stored!.outline.symbols[0]!.name).toBe('first_version');
    expect(await text('search', { uri: 'ctx://resources/indexed', query: 'version' })).toContain('  first_version  L1-2');
    // Rewritten: the stored outline (of the old content) must not answer, indexed yet or not.
    await write('resources/indexed/app.py', '# moved down\n\ndef second_version():\n    pass\n');
    const out = await text('search', { uri: 'ctx://resources/indexed', query: 'version' });
    expect(out).toContain('  second_version  L3-4');
    expect(out).not.toContain('first_version');
  });
});

describe('code/expand', () => {
  it('shows a symbol with its line range, bare or qualified', async () => {
    expect(await text('expand', { uri: 'ctx://resources/proj/src/session.py', symbol: 'main' })).toBe(
      '# ctx://resources/proj/src/session.py  L4-6  (main)\n\ndef main():\n    service = SessionService()\n    service.run()',
    );
    expect(await text('expand', { uri: 'ctx://resources/proj/src/session.py', symbol: 'SessionService.stop' })).toBe(
      '# ctx://resources/proj/src/session.py  L15-16  (SessionService.stop)\n\n    def stop(self):\n        return 0',
    );
    // A bare method name resolves to the method and names its class.
    expect((await text('expand', { uri: 'ctx://resources/proj/src/session.py', symbol: 'run' })).split('\n')[0]).toBe('# ctx://resources/proj/src/session.py  L12-13  (SessionService.run)');
    // The outermost symbol wins: the interface's get comes first at the same depth as the class's.
    expect((await text('expand', { uri: 'ctx://resources/proj/src/store.ts', symbol: 'MemoryStore' })).split('\n').slice(0, 3)).toEqual([
      '# ctx://resources/proj/src/store.ts  L5-13  (MemoryStore)',
      '',
      'export class MemoryStore implements Store {',
    ]);
  });

  it('answers business failures as status ok with an Error: text; a missing symbol is 400', async () => {
    expect(await text('expand', { uri: 'resources/proj/src/session.py', symbol: 'main' })).toBe(NOT_CTX_URI);
    expect(await text('expand', { uri: 'ctx://resources/proj/src/session.py', symbol: '' })).toBe('Error: empty symbol');
    expect(await text('expand', { uri: 'ctx://resources/proj/src/session.py', symbol: 'nothing' })).toBe("Error: symbol 'nothing' not found in ctx://resources/proj/src/session.py");
    expect(await text('expand', { uri: 'ctx://resources/proj/logo.ts', symbol: 'x' })).toBe('Error: ctx://resources/proj/logo.ts is not text');
    const res = await post('expand', { uri: 'ctx://resources/proj/src/session.py' });
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('access', () => {
  it("another user's space is invisible: outline, search and expand are refused, nothing of it is shown", async () => {
    const uri = 'ctx://user/bob/resources/code/secret.py';
    expect(await text('outline', { uri }, bob)).toContain('function hidden_function  L1-2');
    for (const [path, body] of [
      ['outline', { uri }],
      ['expand', { uri, symbol: 'hidden_function' }],
      ['search', { uri: 'ctx://user/bob', query: 'hidden' }],
    ] as const) {
      const res = await post(path, body, alice);
      expect(res.status, res.text).toBe(403);
      expect(res.json().error.code).toBe('PERMISSION_DENIED');
      expect(res.text).not.toContain('hidden_function');
    }
    // ~ is the caller's own space: alice's has no code, bob's search there finds his.
    expect(await text('search', { uri: 'ctx://~/', query: 'hidden' }, bob)).toContain('ctx://user/bob/resources/code/secret.py\n  hidden_function  L1-2');
  });

  it('needs credentials', async () => {
    const res = await t.req({ method: 'POST', url: '/api/v1/code/outline', body: { uri: 'ctx://resources/proj/src/session.py' } });
    expect(res.status).toBe(401);
  });
});
