/** The `ctx` command as users run it: a child process against a real server; output, exit codes and --json. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_KEY, startLiveServer, type LiveServer } from '../../typescript/test/server.js';
import { closedPort, ctx, ensureBuilt, isolatedEnv } from './run.js';

let s: LiveServer;
let env: Record<string, string>;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-cli-'));

beforeAll(async () => {
  ensureBuilt();
  s = await startLiveServer();
  env = isolatedEnv({ CTX_URL: s.url, CTX_API_KEY: s.aliceKey });
}, 120_000);
afterAll(async () => {
  await s.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Exit 0, with stderr in the failure message. */
const ok = (r: { code: number; stderr: string }) => expect(r.code, r.stderr).toBe(0);
const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);

describe('usage, help and exit codes', () => {
  it('--version, --help with examples, per-command help', async () => {
    const v = await ctx(['--version'], { env });
    expect(v).toMatchObject({ code: 0, stdout: '0.4.0\n' });
    const help = await ctx(['--help'], { env });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Examples:\n {2}\$ ctx ls resources/);
    expect(help.stdout).toContain('Exit codes: 0 ok, 1 API error, 2 usage error, 3 cannot connect');
    const cat = await ctx(['cat', '--help'], { env });
    expect(cat.stdout).toMatch(/--level <level>/);
    expect(cat.stdout).toContain('ctx cat resources/docs --level 0');
  });

  it('a usage error exits 2; an unreachable server exits 3 with a one-line message', async () => {
    expect((await ctx(['frobnicate'], { env })).code).toBe(2);
    expect((await ctx(['cat'], { env })).code).toBe(2);
    expect((await ctx(['cat', 'x', '--level', '7'], { env })).code).toBe(2);
    expect((await ctx(['session'], { env })).code).toBe(2);
    const port = await closedPort();
    const down = await ctx(['ls', '--url', `http://127.0.0.1:${port}`], { env });
    expect(down.code).toBe(3);
    expect(down.stderr).toBe(`ctx: CANNOT_CONNECT: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n`);
  });

  it('an API error exits 1 and prints the code and message, never a stack; --json errors are JSON', async () => {
    const r = await ctx(['cat', 'resources/missing.md'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ctx: NOT_FOUND: .*missing\.md/);
    noStack(r.stderr);
    const j = await ctx(['stat', 'resources/missing.md', '--json'], { env });
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stderr)).toMatchObject({ status: 'error', error: { code: 'NOT_FOUND', status: 404, request_id: expect.any(String) } });
    const unauth = await ctx(['ls'], { env: { ...env, CTX_API_KEY: 'wrong-key-0123456789' } });
    expect(unauth).toMatchObject({ code: 1 });
    expect(unauth.stderr).toMatch(/^ctx: UNAUTHENTICATED/);
  });
});

describe('files and retrieval', () => {
  it('write from stdin and from a file, cat at three levels, ls (table and --json), tree, stat, mv, mkdir, tag, rm', async () => {
    const w = await ctx(['write', 'resources/kb/tea.md', '--wait'], { env, input: '# Tea\n\nGreen tea is steeped at 80 degrees for the zebra team.\n' });
    expect(w).toMatchObject({ code: 0, stdout: expect.stringMatching(/^wrote ctx:\/\/resources\/kb\/tea\.md/) });
    fs.writeFileSync(path.join(tmp, 'coffee.md'), '# Coffee\n\nEspresso needs 9 bar.\n');
    ok(await ctx(['write', 'ctx://resources/kb/coffee.md', path.join(tmp, 'coffee.md'), '--wait', '--tag', 'drink=coffee'], { env }));
    expect((await ctx(['cat', 'resources/kb/tea.md'], { env })).stdout).toContain('80 degrees');
    ok(await ctx(['cat', 'resources/kb', '--level', '0'], { env }));
    expect((await ctx(['cat', 'resources/kb', '-L', '1', '--json'], { env })).json()).toMatchObject({ uri: 'ctx://resources/kb', level: 1, content: expect.any(String) });
    const ls = await ctx(['ls', 'resources/kb', '-l'], { env });
    expect(ls.stdout.split('\n')[0]).toMatch(/^\s*SIZE\s+MODIFIED\s+NAME\s+ABSTRACT$/);
    expect(ls.stdout).toMatch(/tea\.md/);
    expect(ls.stdout).not.toMatch(/\u001b\[/);
    const lsj = (await ctx(['ls', 'resources/kb', '--json'], { env })).json();
    expect(lsj.map((e: { name: string }) => e.name).sort()).toEqual(['coffee.md', 'tea.md']);
    const tree = await ctx(['tree', 'resources'], { env });
    expect(tree.stdout).toMatch(/^ctx:\/\/resources\n└── kb\/\n {4}├── coffee\.md\n {4}└── tea\.md/);
    const statOut = (await ctx(['stat', 'resources/kb/tea.md'], { env })).stdout;
    expect(statOut).toMatch(/isDir\s+false/);
    expect(statOut).toMatch(/mode\s+-rw-r--r-- \(100644\)/);
    expect((await ctx(['mkdir', 'resources/kb/old', '-d', 'archive'], { env })).stdout).toBe('created ctx://resources/kb/old\n');
    ok(await ctx(['mv', 'resources/kb/coffee.md', 'resources/kb/old/coffee.md'], { env }));
    expect((await ctx(['tag', 'resources/kb/tea.md', 'team=zebra', '--add'], { env })).stdout).toMatch(/tagged 1 entry/);
    const rm = await ctx(['rm', 'resources/kb/old', '-r', '--json'], { env });
    expect(rm.json()).toMatchObject({ uri: 'ctx://resources/kb/old' });
    expect((await ctx(['stat', 'resources/kb/old'], { env })).code).toBe(1);
    const file = path.join(tmp, 'tea-copy.md');
    ok(await ctx(['download', 'resources/kb/tea.md', '-o', file], { env }));
    expect(fs.readFileSync(file, 'utf8')).toContain('80 degrees');
  });

  it('write with nothing to write is a usage error', async () => {
    expect((await ctx(['write', 'resources/x.md', path.join(tmp, 'nope.md')], { env })).code).toBe(2);
  });

  it('find (table and --json), search, grep, glob', async () => {
    const f = await ctx(['find', 'green', 'tea', 'temperature', '-u', 'resources'], { env });
    expect(f.code).toBe(0);
    expect(f.stdout.split('\n')[0]).toMatch(/^\s*SCORE\s+TYPE\s+URI\s+ABSTRACT$/);
    const fj = (await ctx(['find', 'green tea', '--json', '-n', '3'], { env })).json();
    expect(fj.resources.map((r: { uri: string }) => r.uri)).toContain('ctx://resources/kb/tea.md');
    expect((await ctx(['search', 'tea', '--json'], { env })).json()).toHaveProperty('total');
    expect((await ctx(['grep', 'ZEBRA', 'resources', '-i'], { env })).stdout).toBe('ctx://resources/kb/tea.md:3: Green tea is steeped at 80 degrees for the zebra team.\n');
    expect((await ctx(['glob', '**/*.md', '--json'], { env })).json().matches).toContain('ctx://resources/kb/tea.md');
    const bad = await ctx(['grep', '(', 'resources'], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^ctx: INVALID_ARGUMENT/);
  });

  it('code outline, search, expand', async () => {
    fs.writeFileSync(path.join(tmp, 'm.py'), 'def brew(minutes):\n    """Brews tea."""\n    return minutes * 2\n');
    await ctx(['write', 'resources/src/m.py', path.join(tmp, 'm.py'), '--wait'], { env });
    expect((await ctx(['code', 'outline', 'resources/src/m.py'], { env })).stdout).toContain('brew');
    expect((await ctx(['code', 'search', 'resources/src', 'brew'], { env })).stdout).toContain('brew');
    expect((await ctx(['code', 'expand', 'resources/src/m.py', 'brew'], { env })).stdout).toContain('Brews tea');
  });
});

describe('add, sessions, skills, packs, snapshots, tasks, relations, privacy', () => {
  it('add a local directory follows the task; a missing path is a usage error', async () => {
    const dir = path.join(tmp, 'proj');
    fs.mkdirSync(path.join(dir, 'docs'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'docs', 'guide.md'), '# Guide\n\nDeploy with the otter pipeline.\n');
    fs.writeFileSync(path.join(dir, 'README.md'), '# Proj\n');
    const r = await ctx(['add', dir, '--to', 'resources/proj', '--json'], { env });
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ root_uri: 'ctx://resources/proj', task: { status: 'completed' } });
    expect((await ctx(['cat', 'resources/proj/docs/guide.md'], { env })).stdout).toContain('otter pipeline');
    const h = await ctx(['add', dir, '--to', 'resources/proj2'], { env });
    expect(h.stdout).toMatch(/^ctx:\/\/resources\/proj2 {2}completed {2}task \S+\n$/);
    expect((await ctx(['add', path.join(tmp, 'nothing-here')], { env })).code).toBe(2);
  });

  it('session new, add, show, ls, commit (waits), rm', async () => {
    expect((await ctx(['session', 'new', 's1'], { env })).stdout).toMatch(/^s1 {2}ctx:\/\//);
    ok(await ctx(['session', 'add', 's1', 'I', 'drink', 'oolong', 'daily'], { env }));
    ok(await ctx(['session', 'add', 's1', 'Noted.', '--role', 'assistant'], { env }));
    expect((await ctx(['session', 'show', 's1', '--json'], { env })).json()).toMatchObject({ session_id: 's1', message_count: 2 });
    expect((await ctx(['session', 'ls'], { env })).stdout).toMatch(/s1/);
    const c = await ctx(['session', 'commit', 's1', '--json'], { env });
    expect(c.json()).toMatchObject({ session_id: 's1', task: { status: 'completed' } });
    const tasks = await ctx(['task', 'ls', '--type', 'session_commit', '--json'], { env });
    const id = tasks.json()[0].task_id as string;
    expect((await ctx(['task', 'show', id], { env })).stdout).toMatch(/status\s+completed/);
    expect((await ctx(['task', 'wait', id], { env })).stdout).toBe(`${id}: completed\n`);
    const cancel = await ctx(['task', 'cancel', id], { env });
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toMatch(/^ctx: FAILED_PRECONDITION/);
    ok(await ctx(['session', 'rm', 's1'], { env }));
  });

  it('skill add (file), ls, show, rm', async () => {
    const md = path.join(tmp, 'SKILL.md');
    fs.writeFileSync(md, '---\nname: steeping\ndescription: Steep tea well\n---\n\n# Steeping\n\nThree minutes.\n');
    expect((await ctx(['skill', 'add', md], { env })).stdout).toMatch(/^added skill steeping/);
    expect((await ctx(['skill', 'ls'], { env })).stdout).toMatch(/steeping\s+.*\s+Steep tea well/);
    expect((await ctx(['skill', 'show', 'steeping', '--json'], { env })).json()).toMatchObject({ name: 'steeping' });
    ok(await ctx(['skill', 'rm', 'steeping'], { env }));
  });

  it('pack export to a file and import it back', async () => {
    const file = path.join(tmp, 'kb.ctxpack');
    const e = await ctx(['pack', 'export', 'resources/kb', '-o', file, '--json'], { env });
    expect(e.json()).toMatchObject({ file, bytes: fs.statSync(file).size });
    expect(fs.readFileSync(file).subarray(0, 2).toString()).toBe('PK');
    const i = await ctx(['pack', 'import', file, '--parent', 'resources/restored'], { env });
    expect(i.stdout).toBe(`imported ${file} as ctx://resources/restored/kb\n`);
    expect((await ctx(['pack', 'import', file], { env })).code).toBe(2);
  });

  it('snapshot create, ls, show, diff, restore --dry-run', async () => {
    const c = await ctx(['snapshot', 'create', 'resources/kb', '-m', 'kb v1', '--json'], { env });
    const oid = c.json().commit_oid as string;
    expect(oid).toMatch(/^[0-9a-f]{40}$/);
    expect((await ctx(['snapshot', 'ls'], { env })).stdout).toMatch(new RegExp(`${oid.slice(0, 12)}.*kb v1`));
    expect((await ctx(['snapshot', 'show', oid], { env })).stdout).toContain('kb v1');
    await ctx(['write', 'resources/kb/tea.md', '--mode', 'append'], { env, input: 'More.\n' });
    expect((await ctx(['snapshot', 'diff', oid, '--dir', 'resources/kb'], { env })).stdout).toBe('M tea.md\n');
    expect((await ctx(['snapshot', 'restore', oid, '--dir', 'resources/kb', '--dry-run', '--json'], { env })).json()).toMatchObject({ diff: { to_write: [{ path: 'tea.md' }] } });
    expect((await ctx(['snapshot', 'diff', oid], { env })).stderr).toMatch(/^ctx: PERMISSION_DENIED/);
    expect((await ctx(['snapshot', 'create', '-m', 'all'], { env })).stderr).toMatch(/^ctx: PERMISSION_DENIED/);
  });

  it('relation link, ls, unlink; privacy set, get, versions; watch ls', async () => {
    ok(await ctx(['relation', 'link', 'resources/kb/tea.md', 'resources/proj/docs/guide.md', '--reason', 'see also'], { env }));
    expect((await ctx(['relation', 'ls', 'resources/kb/tea.md'], { env })).stdout).toMatch(/guide\.md\s+see also/);
    ok(await ctx(['relation', 'unlink', 'resources/kb/tea.md', 'resources/proj/docs/guide.md'], { env }));
    ok(await ctx(['privacy', 'set', 'llm', 'openai', '{"org":"acme"}', '--reason', 'init'], { env }));
    expect((await ctx(['privacy', 'get', 'llm', 'openai', '--json'], { env })).stdout).toContain('acme');
    expect((await ctx(['privacy', 'versions', 'llm', 'openai'], { env })).stdout).toBe('1\n');
    expect((await ctx(['privacy', 'set', 'llm', 'openai', 'not json'], { env })).code).toBe(2);
    expect((await ctx(['watch', 'ls', '--json'], { env })).json()).toMatchObject({ tasks: [] });
  });
});

describe('admin, system, chat, profiles, completion', () => {
  it('admin with the ROOT key from a flag; a USER is refused', async () => {
    const root = ['--api-key', ROOT_KEY];
    expect((await ctx([...root, 'admin', 'account', 'create', 'initech', '--admin', 'peter', '--json'], { env })).json()).toMatchObject({ account_id: 'initech', user_key: expect.any(String) });
    expect((await ctx([...root, 'admin', 'account', 'ls'], { env })).stdout).toMatch(/initech\s+peter/);
    expect((await ctx([...root, 'admin', 'user', 'add', 'initech', 'milton'], { env })).stdout).toMatch(/user_key/);
    ok(await ctx([...root, 'admin', 'user', 'role', 'initech', 'milton', 'admin'], { env }));
    expect((await ctx([...root, 'admin', 'user', 'ls', 'initech'], { env })).stdout).toMatch(/milton\s+ADMIN/);
    expect((await ctx([...root, 'admin', 'key', 'initech', 'milton', '--json'], { env })).json()).toHaveProperty('user_key');
    ok(await ctx([...root, 'admin', 'user', 'rm', 'initech', 'milton'], { env }));
    ok(await ctx([...root, 'admin', 'account', 'rm', 'initech'], { env }));
    expect((await ctx(['admin', 'account', 'ls'], { env })).stderr).toMatch(/^ctx: PERMISSION_DENIED/);
  });

  it('status and health', async () => {
    const st = await ctx(['status'], { env });
    expect(st.stdout).toMatch(/user\s+alice/);
    expect((await ctx(['health', '--json'], { env })).json()).toMatchObject({ healthy: true });
  });

  it("chat streams the bot's answer to stdout", async () => {
    s.llm.script.push({ text: 'Oolong likes 90 degrees.' });
    const r = await ctx(['chat', 'how', 'hot', 'for', 'oolong?'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Oolong likes 90 degrees.\n');
    s.llm.script.push({ text: 'Again.' });
    expect((await ctx(['chat', 'again', '--json'], { env })).json().events.at(-1)).toMatchObject({ event: 'response' });
  });

  it('profiles: config set/use/show; flags beat env beat the profile; dev mode needs nothing', async () => {
    const bare = isolatedEnv();
    expect((await ctx(['config', 'show', '--json'], { env: bare })).json()).toMatchObject({ url: 'http://127.0.0.1:1933', profiles: {} });
    ok(await ctx(['config', 'set', 'url', s.url, '-p', 'local'], { env: bare }));
    ok(await ctx(['config', 'set', 'api_key', s.aliceKey, '-p', 'local'], { env: bare }));
    ok(await ctx(['config', 'set', 'url', `http://127.0.0.1:${await closedPort()}`, '-p', 'broken'], { env: bare }));
    const file = path.join(bare.XDG_CONFIG_HOME!, 'ctx', 'config.toml');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toMatch(/current = "local"/);
    expect((await ctx(['status', '--json'], { env: bare })).json()).toMatchObject({ user: 'alice' });
    ok(await ctx(['config', 'use', 'broken'], { env: bare }));
    expect((await ctx(['status'], { env: bare })).code).toBe(3);
    expect((await ctx(['status', '--profile', 'local', '--json'], { env: bare })).json()).toMatchObject({ user: 'alice' });
    expect((await ctx(['status', '--json'], { env: { ...bare, CTX_URL: s.url, CTX_API_KEY: s.aliceKey } })).json()).toMatchObject({ user: 'alice' });
    expect((await ctx(['config', 'use', 'nope'], { env: bare })).code).toBe(2);
    expect((await ctx(['status', '--profile', 'nope'], { env: bare })).code).toBe(2);
    expect((await ctx(['config', 'set', 'colour', 'x'], { env: bare })).code).toBe(2);
  });

  it('completion scripts for bash, zsh and fish name the commands', async () => {
    const b = await ctx(['completion', 'bash'], { env });
    expect(b.stdout).toContain('complete -o default -F _ctx ctx');
    expect(b.stdout).toMatch(/"snapshot"\|"snapshot "\*\) opts='create ls show diff restore/);
    const z = await ctx(['completion', 'zsh'], { env });
    expect(z.stdout).toMatch(/^#compdef ctx/);
    const f = await ctx(['completion', 'fish'], { env });
    expect(f.stdout).toContain("complete -c ctx -n '__fish_use_subcommand' -a 'ls' -d 'list a directory'");
    expect((await ctx(['completion', 'tcsh'], { env })).code).toBe(2);
  });
});
