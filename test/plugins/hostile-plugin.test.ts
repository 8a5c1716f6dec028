/**
 * A plugin written to read around access control, loaded as an operator would load a third-party
 * plugin (no privileges granted). Every VFS, KV, index and identity reach it tries ends in a 403,
 * a 404, a filtered result or a coded PluginError; and without the plugin that supplies the
 * per-entry rules, the host denies instead of allowing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../plugins/index.js';
import { definePlugin, s, type PluginHost, type RouteContext } from '../../runtime/sdk/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let alice: Record<string, string>;
let bob: Record<string, string>;
let acmeAdmin: Record<string, string>;
let saved!: PluginHost;

/** Each probe runs inside a real route handler, with the caller's context, and reports what it got. */
type Probe = (ctx: RouteContext, host: PluginHost) => Promise<unknown>;
const probes: Record<string, Probe> = {
  readForeignUserSpace: (ctx) => ctx.vfs.readText('ctx://user/bob/memories/diary.md'),
  readRestricted: (ctx) => ctx.vfs.readText('ctx://resources/team/secret/plan.md'),
  statRestrictedDeep: (ctx) => ctx.vfs.stat('ctx://resources/team/secret/inner/deep.md'),
  // Sidecars (.abstract.md) appear once the indexer has run: leave them out of the comparison.
  listTeam: async (ctx) => (await ctx.vfs.list('ctx://resources/team')).map((e) => e.name).filter((n) => !n.startsWith('.')),
  walkResources: async (ctx) => {
    const seen: string[] = [];
    for await (const e of ctx.vfs.walk('ctx://resources')) seen.push(e.uri);
    return seen;
  },
  writeIntoRestricted: (ctx) => ctx.vfs.writeFile('ctx://resources/team/secret/mine.md', 'planted'),
  removeTeam: (ctx) => ctx.vfs.rm('ctx://resources/team', { recursive: true }),
  moveRestrictedOut: (ctx) => ctx.vfs.mv('ctx://resources/team/secret', 'ctx://resources/stolen'),
  writeForeignUserSpace: (ctx) => ctx.vfs.writeFile('ctx://user/bob/memories/planted.md', 'x'),
  readOwn: (ctx) => ctx.vfs.readText('ctx://user/alice/memories/notes.md'),
  canReadRestricted: (ctx, host) => host.access.canReadPath(ctx.identity, 'resources/team/secret/plan.md'),
  resolveRecordOfRestricted: async (ctx, host) => {
    const index = host.optional<{ resolve(who: unknown, id: string): Promise<unknown> }>('vector-index');
    const node = await t.app.vfs.stat('acme', 'resources/team/secret/plan.md');
    return index ? index.resolve(ctx.identity, node!.id!) : 'no index';
  },
  forgeRootIdentity: async (_ctx, host) => host.vfsFor({ accountId: 'globex', userId: 'x', role: 'ROOT' }).readText('ctx://resources/g.md'),
  rawVfs: async (_ctx, host) => host.unscopedVfs.readFile('globex', 'resources/g.md'),
  identityAdmin: async (_ctx, host) => host.identities.createAccount('evil', 'mallory'),
  installRules: async (_ctx, host) => host.access.installRules({ blockedOnPaths: async (_i, p) => p.map(() => null), hidesNode: () => false }),
  createForeignTaskType: async (ctx, host) => host.tasks.create('admin_reindex', ctx.identity, { input: { account: 'globex', path: '' } }),
  loadForeignTask: async (ctx, host) => (await host.tasks.load((ctx.query as { id: string }).id)) ?? null,
  ownKvOnly: async (_ctx, host) => {
    const keys: string[] = [];
    for await (const [k] of host.kv.scanPrefix('')) keys.push(k);
    return keys;
  },
};

const snoop = definePlugin({
  name: 'snoop',
  version: '1.0.0',
  setup(host) {
    saved = host;
    host.route({
      method: 'POST',
      path: '/api/v1/x/snoop/{probe}',
      query: s.object({ id: s.string().optional() }),
      async handler(ctx) {
        await host.kv.put('mine', 'x');
        const probe = probes[ctx.params.probe!];
        if (!probe) throw new Error('unknown probe');
        try {
          return { ok: true, value: (await probe(ctx, host)) ?? null };
        } catch (err) {
          const e = err as { code?: string; message: string };
          return { ok: false, code: e.code ?? 'ERROR', message: e.message };
        }
      },
    });
  },
});

const probe = async (name: string, headers: Record<string, string>, query = '') => {
  const res = await t.req({ method: 'POST', url: `/api/v1/x/snoop/${name}${query}`, headers });
  expect(res.status, res.text).toBe(200);
  return res.json().result as { ok: boolean; value?: unknown; code?: string; message?: string };
};

beforeAll(async () => {
  t = await startTestApp({ extraPlugins: [snoop] });
  const acme = await t.account('acme', ['alice', 'bob']);
  ({ alice, bob } = acme.users as { alice: Record<string, string>; bob: Record<string, string> });
  acmeAdmin = acme.admin;
  await t.account('globex');
  const put = (account: string, path: string, text: string) => t.app.vfs.writeFile(account, path, Buffer.from(text));
  await put('acme', 'user/bob/memories/diary.md', 'bob diary');
  await put('acme', 'user/alice/memories/notes.md', 'alice notes');
  await put('acme', 'resources/team/open.md', 'open');
  await put('acme', 'resources/team/secret/plan.md', 'top secret');
  await put('acme', 'resources/team/secret/inner/deep.md', 'deeper secret');
  await put('globex', 'resources/g.md', 'globex data');
  const acl = await t.req({ method: 'POST', url: '/api/v1/fs/access', headers: acmeAdmin, body: { uri: 'ctx://resources/team/secret', readers: ['bob'] } });
  expect(acl.status, acl.text).toBe(200);
});
afterAll(() => t.close());

describe('a hostile plugin sees only what its caller may read', () => {
  it('another user space and restricted entries are refused with 403 codes', async () => {
    for (const name of ['readForeignUserSpace', 'readRestricted', 'statRestrictedDeep', 'writeIntoRestricted', 'writeForeignUserSpace', 'removeTeam', 'moveRestrictedOut'])
      expect(await probe(name, alice), name).toMatchObject({ ok: false, code: 'PERMISSION_DENIED' });
    expect(await t.app.vfs.stat('acme', 'resources/team/secret/mine.md')).toBeNull();
    expect(await t.app.vfs.stat('acme', 'resources/team/secret/plan.md')).not.toBeNull();
  });

  it('listings and walks leave restricted subtrees out', async () => {
    expect((await probe('listTeam', alice)).value).toEqual(['open.md']);
    const walked = (await probe('walkResources', alice)).value as string[];
    expect(walked).toContain('ctx://resources/team/open.md');
    expect(walked.filter((u) => u.includes('secret'))).toEqual([]);
    // bob is on the reader list: the same calls show him the subtree.
    expect((await probe('listTeam', bob)).value).toEqual(['open.md', 'secret']);
    expect((await probe('readRestricted', bob)).value).toBe('top secret');
  });

  it('the caller reads their own space normally', async () => {
    expect(await probe('readOwn', alice)).toEqual({ ok: true, value: 'alice notes' });
  });

  it('access checks and index lookups answer for the caller', async () => {
    expect((await probe('canReadRestricted', alice)).value).toBe(false);
    expect((await probe('canReadRestricted', bob)).value).toBe(true);
    expect((await probe('resolveRecordOfRestricted', alice)).value).toBeNull();
  });

  it('privileged reaches fail with a coded error naming the missing privilege', async () => {
    expect(await probe('rawVfs', alice)).toMatchObject({ ok: false, code: 'CTX_PLUGIN_PRIVILEGE', message: expect.stringContaining('unscoped-vfs') });
    expect(await probe('identityAdmin', alice)).toMatchObject({ ok: false, code: 'CTX_PLUGIN_PRIVILEGE' });
    expect(await probe('installRules', alice)).toMatchObject({ ok: false, code: 'CTX_PLUGIN_PRIVILEGE' });
    expect(await probe('forgeRootIdentity', alice)).toMatchObject({ ok: false, code: 'CTX_PLUGIN_PRIVILEGE' });
    expect((await t.app.identities.listAccounts()).map((a) => a.account_id)).not.toContain('evil');
  });

  it("another plugin's tasks can be neither created nor loaded", async () => {
    expect(await probe('createForeignTaskType', acmeAdmin)).toMatchObject({ ok: false, code: 'CTX_PLUGIN_PRIVILEGE' });
    const reindex = await t.req({ method: 'POST', url: '/api/v1/content/reindex', headers: acmeAdmin, body: { uri: 'ctx://resources/team', wait: false } });
    expect(reindex.status, reindex.text).toBeLessThan(300);
    const id = reindex.json().result.task_id as string;
    expect(await t.app.tasks.load(id)).toBeDefined();
    expect(await probe('loadForeignTask', acmeAdmin, `?id=${id}`)).toEqual({ ok: true, value: null });
  });

  it('its KV keyspace holds only its own keys', async () => {
    expect((await probe('ownKvOnly', alice)).value).toEqual(['mine']);
  });

  it('registration after start-up throws for every hook, not only routes', () => {
    for (const register of [
      () => saved.consume('q', async () => {}),
      () => saved.onReady(() => {}),
      () => saved.onClose(() => {}),
      () => saved.readyCheck('late', () => 'ok'),
      () => saved.observer('late', () => ({ name: 'late', is_healthy: true, has_errors: false, status: '' })),
      () => saved.on('change', () => {}),
      () => saved.taskType({ type: 'late', cancellable: false, run: async () => {} }),
    ])
      expect(register).toThrow(expect.objectContaining({ code: 'CTX_PLUGIN_LATE_REGISTRATION' }));
  });
});

describe('privileges of extra plugins are granted by the operator', () => {
  const wants = definePlugin({ name: 'wants-raw', version: '1.0.0', privileges: ['unscoped-vfs'], setup: () => {} });

  it('an ungranted privilege fails start-up naming the plugin and the privilege', async () => {
    await expect(startTestApp({ extraPlugins: [wants] })).rejects.toMatchObject({ code: 'CTX_PLUGIN_PRIVILEGE', message: expect.stringMatching(/wants-raw.*unscoped-vfs/) });
  });

  it('a granted one loads', async () => {
    const t2 = await startTestApp({ extraPlugins: [wants], config: { pluginPrivileges: { 'wants-raw': ['unscoped-vfs'] } } });
    expect(t2.app.plugins).toContain('wants-raw');
    await t2.close();
  });

  it('an unknown privilege is refused by definePlugin', () => {
    expect(() => definePlugin({ name: 'odd', version: '1', privileges: ['root' as never], setup: () => {} })).toThrow(expect.objectContaining({ code: 'CTX_PLUGIN_INVALID' }));
  });
});

describe('without the plugin that supplies the entry rules, access is denied', () => {
  it('scoped reads and search filters deny instead of allowing', async () => {
    const noFs = builtinPlugins.filter((p) => p.name !== 'fs' && !(p.dependsOn ?? []).includes('fs'));
    const t3 = await startTestApp({ plugins: noFs, extraPlugins: [snoop] });
    try {
      const a = await t3.account('acme', ['alice']);
      await t3.app.vfs.writeFile('acme', 'user/alice/memories/notes.md', Buffer.from('alice notes'));
      const res = await t3.req({ method: 'POST', url: '/api/v1/x/snoop/readOwn', headers: a.users.alice! });
      expect(res.json().result).toMatchObject({ ok: false, code: 'PERMISSION_DENIED', message: expect.stringContaining('no entry access rules') });
      const can = await t3.req({ method: 'POST', url: '/api/v1/x/snoop/canReadRestricted', headers: a.admin });
      expect(can.json().result).toEqual({ ok: true, value: false });
    } finally {
      await t3.close();
    }
  });
});

/** Every string reachable through own properties (enumerable or not) of `root`. */
function strings(root: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>();
  const visit = (v: unknown) => {
    if (typeof v === 'string') out.push(v);
    if ((typeof v !== 'object' && typeof v !== 'function') || v === null || seen.has(v)) return;
    seen.add(v);
    for (const key of Reflect.ownKeys(v)) {
      const d = Object.getOwnPropertyDescriptor(v, key);
      if (d && 'value' in d) visit(d.value);
    }
  };
  visit(root);
  return out;
}

describe('host.config holds no secret', () => {
  const SECRETS = {
    rootApiKey: 'root-secret-0123456789abcdef',
    llm: 'sk-llm-secret-value-000111',
    embedding: 'sk-embedding-secret-value-222',
    rerank: 'sk-rerank-secret-value-333444',
    gateway: 'gateway-admin-secret-token-0123456789abcdef',
    execution: 'execution-backend-secret-token-5566',
    otherSection: 'sk-another-plugins-own-key-7788',
  };
  it('no root key, provider key, gateway or backend token, nor another plugin section reaches a plugin', async () => {
    let seen!: PluginHost;
    const spy = definePlugin({ name: 'config-spy', version: '1.0.0', setup: (h) => void (seen = h) });
    const holder = definePlugin({ name: 'key-holder', version: '1.0.0', config: s.object({ apiKey: s.string() }), setup: () => {} });
    const t4 = await startTestApp({
      extraPlugins: [spy, holder],
      env: {
        CTX_LLM_BASE_URL: 'http://127.0.0.1:9/v1',
        CTX_LLM_API_KEY: SECRETS.llm,
        CTX_EMBEDDING_API_KEY: SECRETS.embedding,
        CTX_RERANK_BASE_URL: 'http://127.0.0.1:9',
        CTX_RERANK_API_KEY: SECRETS.rerank,
        CTX_GATEWAY_URL: 'http://127.0.0.1:9',
        CTX_GATEWAY_ADMIN_TOKEN: SECRETS.gateway,
        CTX_EXECUTION_BACKEND_GATEWAY_TOKEN: SECRETS.execution,
        CTX_PLUGIN_KEY_HOLDER_API_KEY: SECRETS.otherSection,
      },
      config: { rootApiKey: SECRETS.rootApiKey },
    });
    try {
      const visible = JSON.stringify({ config: seen.config, own: seen.pluginConfig });
      for (const [what, secret] of Object.entries(SECRETS)) expect(visible, what).not.toContain(secret);
      expect(seen.config.llm).toEqual({ baseUrl: 'http://127.0.0.1:9/v1' });
      expect('rootApiKey' in seen.config).toBe(false);
      // Frozen: a plugin cannot change what the others read.
      expect(Object.isFrozen(seen.config) && Object.isFrozen(seen.config.llm)).toBe(true);
      expect(() => ((seen.config as { port: number }).port = 1)).toThrow(TypeError);
      // The parts that use the secrets still get them: the gateway proxy is configured, the model clients exist.
      const ready = await t4.req({ url: '/ready' });
      expect(JSON.stringify(ready.json())).toMatch(/context_gateway"?:\s*"ok"/);
      // Nor inside the clients it is handed: the keys are in closures and #private fields.
      const { createEmbedder } = await import('../../runtime/models/embedder.js');
      const openai = await createEmbedder({ provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: SECRETS.embedding, skipCheck: true });
      const reachable = strings([seen.models.llm(), seen.models.reranker(), await seen.models.embedder(), openai]);
      expect(reachable.length).toBeGreaterThan(3);
      for (const [what, secret] of Object.entries(SECRETS)) expect(reachable.filter((v) => v.includes(secret)), what).toEqual([]);
    } finally {
      await t4.close();
    }
  });

  it('every configuration key that looks like a secret is one the host keeps back', async () => {
    const { SECRET_FIELDS, loadConfig, publicConfig } = await import('../../runtime/config.js');
    const source = (await import('node:fs')).readFileSync('runtime/config.ts', 'utf8');
    const secretVars = [...new Set([...source.matchAll(/env\.(CTX_[A-Z_]*(?:KEY|TOKEN|SECRET|PASSWORD)[A-Z_]*)/g)].map((m) => m[1]!))];
    expect(secretVars.length).toBeGreaterThanOrEqual(6);
    const env: Record<string, string> = { CTX_RERANK_BASE_URL: 'http://127.0.0.1:9' };
    for (const v of secretVars) env[v] = `secret-of-${v}-0123456789abcdef0123456789`;
    const full = loadConfig(env);
    const paths: string[] = [];
    const walk = (o: Record<string, unknown>, prefix: string) => {
      for (const [k, v] of Object.entries(o)) {
        if (v && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>, `${prefix}${k}.`);
        else if (/key|token|secret|password/i.test(k)) paths.push(prefix + k);
      }
    };
    walk(full as unknown as Record<string, unknown>, '');
    expect(paths.sort()).toEqual([...SECRET_FIELDS].sort());
    const shown = JSON.stringify(publicConfig(full));
    for (const v of secretVars) expect(shown, v).not.toContain(`secret-of-${v}`);
  });
});
