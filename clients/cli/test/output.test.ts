/**
 * Human output of `ctx` as a child process against a real server: the list commands' aligned tables,
 * the tree, --json left as the API's result, and colour only on a terminal (a real pseudo-terminal
 * from util-linux `script`), never with NO_COLOR or --no-color.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_KEY, startLiveServer, type LiveServer } from '../../typescript/test/server.js';
import { BIN, ctx, ensureBuilt, isolatedEnv } from './run.js';

let s: LiveServer;
let env: Record<string, string>;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-cli-out-'));
const ANSI = /\u001b\[[0-9;]*m/;
const HAS_SCRIPT = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

beforeAll(async () => {
  ensureBuilt();
  s = await startLiveServer();
  env = isolatedEnv({ CTX_URL: s.url, CTX_API_KEY: s.aliceKey });
  for (const [name, body] of [['alpha.md', '# Alpha\n\nThe heron migration plan.\n'], ['beta.md', `# Beta\n\n${'Long notes on kingfishers. '.repeat(60)}\n`]])
    expect((await ctx(['write', `resources/birds/${name}`, '--wait'], { env, input: body })).code).toBe(0);
  expect((await ctx(['write', 'resources/birds/sub/gamma.md', '--wait'], { env, input: '# Gamma\n' })).code).toBe(0);
}, 120_000);
afterAll(async () => {
  await s.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The rows of a table, split on runs of 2+ spaces. */
const rows = (stdout: string) => stdout.trimEnd().split('\n').map((l) => l.trim().split(/ {2,}/));

/** Runs ctx under a pseudo-terminal, as a user at a shell does. */
function ctxTty(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  const cmd = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: { ...env, TERM: 'xterm', ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out: Buffer.concat(out).toString('utf8').replace(/\r\n/g, '\n') }));
  });
}

describe('list commands print aligned tables', () => {
  it('ls: names (directories with a slash); -l: size right-aligned, time, name and abstract; --json is the plain listing', async () => {
    const plain = await ctx(['ls', 'resources/birds'], { env });
    expect(plain).toMatchObject({ code: 0, stdout: 'sub/\nalpha.md\nbeta.md\n' });
    const long = await ctx(['ls', 'resources/birds', '-l'], { env });
    expect(long.code).toBe(0);
    const lines = long.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ *SIZE {2}MODIFIED {13}NAME {2,}ABSTRACT$/);
    // Every row's columns start where the header's do (sizes end where SIZE ends).
    const nameAt = lines[0]!.indexOf('NAME');
    const sizeEnd = lines[0]!.indexOf('SIZE') + 4;
    for (const l of lines.slice(1)) {
      expect(l.slice(nameAt)).toMatch(/^(sub\/|alpha\.md|beta\.md)/);
      expect(l.slice(0, sizeEnd)).toMatch(/(-|\d+(\.\d)? (B|KiB))$/);
      expect(l).toMatch(/^ *\S.* \d{4}-\d\d-\d\d \d\d:\d\d:\d\d /);
    }
    expect(lines.find((l) => l.includes('beta.md'))).toMatch(/KiB/);
    const json = (await ctx(['ls', 'resources/birds', '-l', '--json'], { env })).json();
    expect(json.map((e: { name: string }) => e.name).sort()).toEqual(['alpha.md', 'beta.md', 'sub']);
    expect(json[0]).not.toHaveProperty('abstract');
    expect((await ctx(['ls', 'resources/none-here'], { env })).code).toBe(1);
  });

  it('tree draws the subtree with box lines, directories first', async () => {
    const t = await ctx(['tree', 'resources/birds'], { env });
    expect(t).toMatchObject({ code: 0, stdout: 'ctx://resources/birds\n├── sub/\n│   └── gamma.md\n├── alpha.md\n└── beta.md\n' });
  });

  it('find and search: score (right-aligned, best first), type, URI, abstract', async () => {
    for (const cmd of ['find', 'search']) {
      const f = await ctx([cmd, 'heron migration', '-u', 'resources/birds'], { env });
      expect(f.code, f.stderr).toBe(0);
      const r = rows(f.stdout);
      expect(r[0]).toEqual(['SCORE', 'TYPE', 'URI', 'ABSTRACT']);
      const scores = r.slice(1).map((x) => Number(x[0]));
      expect(scores.length).toBeGreaterThan(0);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      expect(r.slice(1).map((x) => x[2])).toContain('ctx://resources/birds/alpha.md');
    }
  });

  it('session ls, task ls, skill ls and snapshot ls', async () => {
    expect((await ctx(['session', 'new', 'birdwatch'], { env })).code).toBe(0);
    expect(rows((await ctx(['session', 'ls'], { env })).stdout)).toContainEqual(['birdwatch', 'ctx://user/alice/sessions/birdwatch']);
    expect(rows((await ctx(['session', 'ls'], { env })).stdout)[0]).toEqual(['ID', 'URI']);
    expect((await ctx(['session', 'add', 'birdwatch', 'I', 'saw', 'a', 'heron'], { env })).code).toBe(0);
    expect((await ctx(['session', 'commit', 'birdwatch'], { env })).code).toBe(0);
    const tasks = rows((await ctx(['task', 'ls'], { env })).stdout);
    expect(tasks[0]).toEqual(['ID', 'TYPE', 'STATUS', 'CREATED', 'RESOURCE']);
    expect(tasks).toContainEqual([expect.any(String), 'session_commit', 'completed', expect.stringMatching(/^\d{4}-/), expect.any(String)]);
    fs.writeFileSync(path.join(tmp, 'SKILL.md'), '---\nname: birding\ndescription: Spot birds by their calls\ntags: [nature]\n---\n\n# Birding\n');
    expect((await ctx(['skill', 'add', path.join(tmp, 'SKILL.md')], { env })).code).toBe(0);
    const skills = rows((await ctx(['skill', 'ls'], { env })).stdout);
    expect(skills[0]).toEqual(['NAME', 'TAGS', 'TOOLS', 'DESCRIPTION']);
    expect(skills.find((r) => r[0] === 'birding')?.at(-1)).toBe('Spot birds by their calls');
    expect((await ctx(['snapshot', 'create', 'resources/birds', '-m', 'birds v1'], { env })).code).toBe(0);
    const snaps = rows((await ctx(['snapshot', 'ls'], { env })).stdout);
    expect(snaps[0]).toEqual(['COMMIT', 'DATE', 'AUTHOR', 'MESSAGE']);
    expect(snaps[1]).toEqual([expect.stringMatching(/^[0-9a-f]{12}$/), expect.stringMatching(/^\d{4}-/), expect.any(String), 'birds v1']);
  });

  it('admin account ls and user ls; an empty list says (none)', async () => {
    const root = ['--api-key', ROOT_KEY];
    const accounts = rows((await ctx([...root, 'admin', 'account', 'ls'], { env })).stdout);
    expect(accounts[0]).toEqual(['ACCOUNT', 'ADMIN', 'CREATED']);
    expect(accounts).toContainEqual(['acme', expect.any(String), expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)]);
    const users = rows((await ctx([...root, 'admin', 'user', 'ls', 'acme'], { env })).stdout);
    expect(users[0]).toEqual(['USER', 'ROLE', 'CREATED']);
    expect(users).toContainEqual(['alice', 'USER', expect.any(String)]);
    expect((await ctx(['watch', 'ls'], { env })).stdout).toBe('(none)\n');
  });
});

describe('colour', () => {
  it('piped output has no colour codes', async () => {
    const r = await ctx(['ls', 'resources/birds', '-l'], { env });
    expect(r.stdout).not.toMatch(ANSI);
  });

  it.skipIf(!HAS_SCRIPT)('a terminal gets colour (headers, directories, error codes); NO_COLOR and --no-color turn it off', async () => {
    const tty = await ctxTty(['ls', 'resources/birds', '-l']);
    expect(tty.code).toBe(0);
    expect(tty.out).toMatch(/\u001b\[1mSIZE\u001b\[22m/);
    expect(tty.out).toMatch(/\u001b\[34msub\/\u001b\[39m/);
    const err = await ctxTty(['stat', 'resources/birds/nope.md']);
    expect(err.code).toBe(1);
    expect(err.out).toMatch(/^ctx: \u001b\[31mNOT_FOUND\u001b\[39m: /);
    const noColor = await ctxTty(['ls', 'resources/birds', '-l'], { NO_COLOR: '1' });
    expect(noColor.out).toMatch(/SIZE/);
    expect(noColor.out).not.toMatch(ANSI);
    expect((await ctxTty(['--no-color', 'tree', 'resources/birds'])).out).not.toMatch(ANSI);
    expect((await ctxTty(['stat', 'resources/birds/nope.md'], { NO_COLOR: '1' })).out).toMatch(/^ctx: NOT_FOUND: /);
    // --json is never coloured, even on a terminal.
    expect((await ctxTty(['ls', 'resources/birds', '--json'])).out).not.toMatch(ANSI);
  });
});

import { fileMode } from '../src/output.js';
describe('fileMode', () => {
  it('shows st_mode as ls -l does, with the octal', () => {
    expect(fileMode(0o100644)).toBe('-rw-r--r-- (100644)');
    expect(fileMode(0o40755)).toBe('drwxr-xr-x (40755)');
    expect(fileMode(0o100600)).toBe('-rw------- (100600)');
  });
});
