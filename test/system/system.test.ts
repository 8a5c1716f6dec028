import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../plugins/index.js';
import { definePlugin, type PluginQueues } from '../../runtime/sdk/index.js';
import type { VectorIndexService } from '../../plugins/retrieval/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startFakeOpenAi } from '../models/fake-openai.js';

let t: TestApp;
/** Test queues owned by a plugin that shares them with system, as the indexer shares its own. */
let testQueues!: PluginQueues;
/** What each test queue's consumer does (consumers register in setup; a test swaps the body). */
const consumers: Record<string, () => Promise<void>> = {};
const queueOwner = definePlugin({
  name: 'test-queues',
  version: '1.0.0',
  setup(host) {
    for (const q of ['TestSlow', 'TestSync']) {
      host.shareQueue(q, ['system']);
      host.consume(q, () => consumers[q]!(), { maxAttempts: 1 });
    }
    testQueues = host.queues;
  },
});
let alice: Record<string, string>;
let acmeAdmin: Record<string, string>;

beforeAll(async () => {
  t = await startTestApp({ config: { profiling: true, tempFileTtlMinutes: 60 }, extraPlugins: [queueOwner] });
  const acme = await t.account('acme', ['alice']);
  alice = acme.users.alice!;
  acmeAdmin = acme.admin;
});
afterAll(() => t.close());

describe('health and readiness', () => {
  it('GET /health answers without credentials and without auth_mode', async () => {
    const res = await t.req({ url: '/health' });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', healthy: true, version: '0.4.0' });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('GET /health reports auth_mode when credentials are supplied', async () => {
    const res = await t.req({ url: '/health', headers: alice });
    expect(res.json().auth_mode).toBe('api_key');
  });

  it('GET /health with bad credentials still answers, with auth_mode (credentials were supplied)', async () => {
    const supplied: Record<string, string>[] = [{ 'x-api-key': 'wrong-key' }, { authorization: 'Bearer wrong-key' }, { 'x-api-key': 'wrong-key', 'x-ctx-account': 'bad id!' }];
    for (const headers of supplied) {
      const res = await t.req({ url: '/health', headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.json()).toEqual({ status: 'ok', healthy: true, version: '0.4.0', auth_mode: 'api_key' });
    }
    expect((await t.req({ url: '/health', headers: { authorization: 'Bearer ' + t.root['x-api-key'] } })).json().auth_mode).toBe('api_key');
  });

  it('GET /health: identity headers alone are no credentials in api_key mode', async () => {
    const res = await t.req({ url: '/health', headers: { 'x-ctx-account': 'acme', 'x-ctx-user': 'alice' } });
    expect(res.status).toBe(200);
    expect(res.json().auth_mode).toBeUndefined();
    // An Authorization header that is not a bearer token presents no key.
    expect((await t.req({ url: '/health', headers: { authorization: 'Basic YTpi' } })).json().auth_mode).toBeUndefined();
  });

  it('GET /health in trusted mode: identity headers are the credentials, valid or not', async () => {
    const tt = await startTestApp({ config: { authMode: 'trusted' } });
    try {
      expect((await tt.req({ url: '/health' })).json().auth_mode).toBeUndefined();
      const supplied: Record<string, string>[] = [{ 'x-ctx-account': 'gw', 'x-ctx-user': 'zed' }, { 'x-ctx-account': 'gw' }, { 'x-ctx-user': 'not valid!' }, { 'x-api-key': 'wrong-key' }];
      for (const headers of supplied) {
        const res = await tt.req({ url: '/health', headers });
        expect(res.status, JSON.stringify(headers)).toBe(200);
        expect(res.json().auth_mode, JSON.stringify(headers)).toBe('trusted');
      }
    } finally {
      await tt.close();
    }
  });

  it('HEAD /health has headers and no body', async () => {
    const res = await t.req({ method: 'HEAD', url: '/health' });
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
  });

  it('GET /ready lists every check', async () => {
    const res = await t.req({ url: '/ready' });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body.status).toBe('ready');
    expect(body.checks).toMatchObject({ filesystem: 'ok', api_key_manager: 'ok', local_model_server: 'not_configured' });
    expect(body.checks).toHaveProperty('vectordb');
  });

  it("GET /ready answers 503 when a plugin's check fails, and names it", async () => {
    let broken = false;
    const flaky = definePlugin({
      name: 'flaky-disk',
      version: '1.0.0',
      setup(host) {
        host.readyCheck('flaky-disk', () => {
          if (broken) throw new Error('disk on fire');
          return 'ok';
        });
      },
    });
    const t2 = await startTestApp({ extraPlugins: [flaky] });
    try {
      expect((await t2.req({ url: '/ready' })).status).toBe(200);
      broken = true;
      const res = await t2.req({ url: '/ready' });
      expect(res.status).toBe(503);
      expect(res.json().checks['flaky-disk']).toContain('disk on fire');
      expect(t2.app.readyChecks.find((c) => c.name === 'flaky-disk')?.plugin).toBe('flaky-disk');
    } finally {
      await t2.close();
    }
  });
});

describe('envelope, telemetry, profile, request ids', () => {
  it('status returns the envelope with time and the user', async () => {
    const res = await t.req({ url: '/api/v1/system/status', headers: alice });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body.status).toBe('ok');
    // The core that runs: CTX_CORE=wasm forces the WebAssembly build (the test:wasm pass).
    const kind = process.env.CTX_CORE === 'wasm' ? 'wasm' : 'native';
    expect(body.result).toEqual({
      initialized: true,
      user: 'alice',
      cluster: { mode: 'single' },
      core: { kind, version: expect.stringMatching(/^\d+\.\d+\.\d+/), graph: kind === 'wasm' ? 'rust' : 'faiss' },
    });
    expect(typeof body.time).toBe('number');
    expect(body.telemetry).toBeUndefined();
  });

  it('telemetry: true adds telemetry.operation_id; {summary:true} adds a summary', async () => {
    const a = (await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: alice, body: { telemetry: true } })).json();
    expect(a.telemetry.operation_id).toMatch(/^[0-9a-f-]{36}$/);
    const b = (await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: alice, body: { telemetry: { summary: true } } })).json();
    expect(b.telemetry.summary.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('telemetry of a wrong type is 400', async () => {
    const res = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: alice, body: { telemetry: 'yes' } });
    expect(res.status).toBe(400);
    expect(res.json().error.details.field).toBe('telemetry');
  });

  it('profile=1 adds profile lines when profiling is enabled', async () => {
    const res = await t.req({ url: '/api/v1/system/status?profile=1', headers: alice });
    const body = res.json();
    expect(Array.isArray(body.profile)).toBe(true);
    expect(body.profile.join('\n')).toMatch(/auth: [\d.]+ ms/);
  });

  it('profile=1 on a route answering pre-written JSON (fs/stat): the same result, with the profile', async () => {
    const plain = await t.req({ url: '/api/v1/fs/stat?uri=ctx://resources', headers: alice });
    const res = await t.req({ url: '/api/v1/fs/stat?uri=ctx://resources&profile=1', headers: alice });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body.result).toEqual(plain.json().result);
    expect(body.result).toMatchObject({ name: 'resources', isDir: true });
    expect(body.profile.join('\n')).toMatch(/handler: [\d.]+ ms/);
  });

  it('profile=1 is ignored when profiling is disabled', async () => {
    const t2 = await startTestApp();
    try {
      const res = await t2.req({ url: '/api/v1/system/status?profile=yes', headers: t2.root });
      expect(res.json().profile).toBeUndefined();
    } finally {
      await t2.close();
    }
  });

  it('an incoming X-Request-Id is echoed back', async () => {
    const res = await t.req({ url: '/api/v1/system/status', headers: { ...alice, 'x-request-id': 'trace-123' } });
    expect(res.headers['x-request-id']).toBe('trace-123');
    expect((await t.req({ url: '/api/v1/system/status', headers: alice, body: undefined })).headers['x-request-id']).not.toBe('trace-123');
  });

  it('unknown route is 404 NOT_FOUND in the envelope; wrong method is 405 with Allow', async () => {
    const nf = await t.req({ url: '/api/v1/nope', headers: alice });
    expect(nf.status).toBe(404);
    expect(nf.json()).toMatchObject({ status: 'error', error: { code: 'NOT_FOUND' } });
    const na = await t.req({ method: 'DELETE', url: '/api/v1/system/status', headers: alice });
    expect(na.status).toBe(405);
    expect(na.json().error.code).toBe('METHOD_NOT_ALLOWED');
    expect(na.headers.allow).toBe('GET');
  });

  it('missing or invalid keys are 401 UNAUTHENTICATED', async () => {
    expect((await t.req({ url: '/api/v1/system/status' })).json().error.code).toBe('UNAUTHENTICATED');
    const bad = await t.req({ url: '/api/v1/system/status', headers: { 'x-api-key': 'ctx_nope' } });
    expect(bad.status).toBe(401);
  });

  it('Authorization: Bearer works like X-API-Key', async () => {
    const res = await t.req({ url: '/api/v1/system/status', headers: { authorization: `Bearer ${alice['x-api-key']}` } });
    expect(res.json().result.user).toBe('alice');
  });

  it('malformed JSON is 400 INVALID_ARGUMENT naming the body', async () => {
    const res = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: { ...alice, 'content-type': 'application/json' }, body: '{"timeout": ' });
    expect(res.status).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'body' } });
  });

  it('wrong types and unknown fields are 400 naming the field', async () => {
    const wrong = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: alice, body: { timeout: 'soon' } });
    expect(wrong.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'timeout' } });
    const unknown = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: alice, body: { timeout: 1, extra: true } });
    expect(unknown.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'extra' } });
    const neg = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: alice, body: { timeout: -1 } });
    expect(neg.status).toBe(400);
  });

  it('a non-JSON content type is 415', async () => {
    const res = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: { ...alice, 'content-type': 'application/xml' }, body: '<x/>' });
    expect(res.status).toBe(415);
    expect(res.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('an oversized body is 413 in the envelope', async () => {
    const t2 = await startTestApp({ config: { maxJsonBodyBytes: 1024 } });
    try {
      const res = await t2.req({ method: 'POST', url: '/api/v1/system/wait', headers: t2.root, body: { timeout: 0, pad: 'x'.repeat(2000) } });
      expect(res.status).toBe(413);
      expect(res.json().error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: 1024 } });
    } finally {
      await t2.close();
    }
  });
});

describe('wait and observers', () => {
  it('wait returns per-queue counters', async () => {
    const res = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: alice, body: { timeout: 1 } });
    expect(res.status).toBe(200);
    const r = res.json().result;
    expect(r.Embedding).toEqual({ processed: 0, requeue_count: 0, error_count: 0, errors: [] });
    expect(r.Semantic).toEqual({ processed: 0, requeue_count: 0, error_count: 0, errors: [] });
  });

  it('wait times out with 504 DEADLINE_EXCEEDED while a queue is busy', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    consumers.TestSlow = async () => {
      await gate;
    };
    await testQueues.enqueue('TestSlow', { account: 'acme', path: 'resources/x' });
    const res = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: alice, body: { timeout: 0.05 } });
    expect(res.status).toBe(504);
    expect(res.json().error.code).toBe('DEADLINE_EXCEEDED');
    release();
    const ok = await t.req({ method: 'POST', url: '/api/v1/system/wait', headers: alice, body: {} });
    expect(ok.status).toBe(200);
    expect(ok.json().result.TestSlow.processed).toBe(1);
  });

  it.each(['queue', 'vectordb', 'models', 'lock', 'retrieval'])('observer %s returns a ComponentStatus', async (name) => {
    const res = await t.req({ url: `/api/v1/observer/${name}`, headers: alice });
    expect(res.status).toBe(200);
    const c = res.json().result;
    expect(c.name).toBe(name);
    expect(typeof c.is_healthy).toBe('boolean');
    expect(typeof c.has_errors).toBe('boolean');
    expect(typeof c.status).toBe('string');
  });

  it('observer models lists dense_embedding, rerank and vlm', async () => {
    const status = (await t.req({ url: '/api/v1/observer/models', headers: alice })).json().result.status as string;
    for (const line of ['dense_embedding', 'rerank', 'vlm']) expect(status).toContain(line);
  });

  it('observer models shows the embedder the retrieval plugin runs, not a configured guess', async () => {
    const info = t.app.service<VectorIndexService>('vector-index').embedderInfo();
    const status = (await t.req({ url: '/api/v1/observer/models', headers: alice })).json().result.status as string;
    const row = status.split('\n').find((l) => l.includes('dense_embedding'))!;
    expect(row).toMatch(new RegExp(`${info.provider}\\s.*${info.model}\\s.*\\b${info.dim}\\b.*loaded`));
    // The vectordb observer names the same model.
    const v = (await t.req({ url: '/api/v1/observer/vectordb', headers: alice })).json().result.status as string;
    expect(v).toContain(`${info.provider}/${info.model}`);
  });

  it('observer models shows a remote embedder\'s dimension adopted from its probe (none configured)', async () => {
    const f = await startFakeOpenAi(12);
    const other = await startTestApp({ config: { embedding: { provider: 'openai', baseUrl: f.url, model: 'fake-embed-12' } } });
    try {
      const status = (await other.req({ url: '/api/v1/observer/models', headers: other.root })).json().result.status as string;
      const row = status.split('\n').find((l) => l.includes('dense_embedding'))!;
      expect(row).toMatch(/openai\s.*fake-embed-12\s.*\b12\b.*loaded/);
    } finally {
      await other.close();
      await f.close();
    }
  });

  it('observer models falls back to the configuration when no plugin provides vector-index', async () => {
    const bare = await startTestApp({ plugins: builtinPlugins.filter((p) => p.name !== 'retrieval' && !(p.dependsOn ?? []).includes('retrieval')) });
    try {
      const status = (await bare.req({ url: '/api/v1/observer/models', headers: bare.root })).json().result.status as string;
      const row = status.split('\n').find((l) => l.includes('dense_embedding'))!;
      expect(row).toMatch(/local\s.*configured/);
      expect(row).not.toContain('ctx-lexical-v1');
    } finally {
      await bare.close();
    }
  });

  it('observer lock shows a held lock', async () => {
    const h = await t.app.vfs.locks.acquire('acme', 'resources/locked', 'tree', 'test');
    try {
      const status = (await t.req({ url: '/api/v1/observer/lock', headers: alice })).json().result.status as string;
      expect(status).toContain('ctx://resources/locked');
    } finally {
      h.release();
    }
  });

  it('observer system aggregates components including queue, vectordb and vlm', async () => {
    const r = (await t.req({ url: '/api/v1/observer/system', headers: alice })).json().result;
    expect(r.is_healthy).toBe(true);
    expect(r.errors).toEqual([]);
    expect(Object.keys(r.components)).toEqual(expect.arrayContaining(['queue', 'vectordb', 'vlm']));
  });

  it('debug/health', async () => {
    expect((await t.req({ url: '/api/v1/debug/health', headers: alice })).json().result).toEqual({ healthy: true });
  });
});

describe('backend sync status and retry', () => {
  it('counts pending and failed index work in scope; retry reschedules failed work', async () => {
    let fail = true;
    consumers.TestSync = async () => {
      if (fail) throw new Error('index down');
    };
    await testQueues.enqueue('TestSync', { account: 'acme', path: 'resources/docs/a.md' });
    await t.app.queues.waitIdle(2000);
    const status = await t.req({ method: 'POST', url: '/api/v1/system/backend/sync-status', headers: acmeAdmin, body: { uri: 'ctx://resources/docs' } });
    expect(status.status).toBe(200);
    expect(status.json().result).toMatchObject({ path: 'ctx://resources/docs', entry_count: 1 });
    const other = await t.req({ url: '/api/v1/system/sync/resources/elsewhere', headers: acmeAdmin });
    expect(other.json().result.entry_count).toBe(0);
    fail = false;
    const retry = await t.req({ method: 'POST', url: '/api/v1/system/sync/resources/docs/retry', headers: acmeAdmin });
    expect(retry.json().result).toMatchObject({ path: 'ctx://resources/docs', retried: 1, failed: 0 });
    await t.app.queues.waitIdle(2000);
    const after = await t.req({ method: 'POST', url: '/api/v1/system/backend/sync-retry', headers: acmeAdmin, body: { uri: 'ctx://resources/docs' } });
    expect(after.json().result.retried).toBe(0);
  });

  it('requires ROOT or ADMIN', async () => {
    const res = await t.req({ method: 'POST', url: '/api/v1/system/backend/sync-status', headers: alice, body: { uri: 'ctx://resources' } });
    expect(res.status).toBe(403);
    expect(res.json().error.code).toBe('PERMISSION_DENIED');
  });

  it('rejects internal scopes and missing uri', async () => {
    const temp = await t.req({ method: 'POST', url: '/api/v1/system/backend/sync-status', headers: acmeAdmin, body: { uri: 'ctx://temp/x' } });
    expect(temp.json().error.code).toBe('INVALID_URI');
    const missing = await t.req({ method: 'POST', url: '/api/v1/system/backend/sync-status', headers: acmeAdmin, body: {} });
    expect(missing.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'uri' } });
  });
});

function multipart(parts: Array<{ name: string; filename?: string; data: string | Buffer }>) {
  const boundary = '----ctxtest' + Math.random().toString(16).slice(2);
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

describe('temp upload', () => {
  it('stores the file part and returns a temp_file_id the uploader can resolve', async () => {
    const mp = multipart([{ name: 'file', filename: 'notes.md', data: '# hello\n' }]);
    const res = await t.req({ method: 'POST', url: '/api/v1/resources/temp_upload', headers: { ...alice, 'content-type': mp.contentType }, body: mp.body });
    expect(res.status).toBe(200);
    const r = res.json().result;
    expect(r.temp_file_id).toMatch(/^tmp_[0-9a-f]{32}$/);
    expect(r).toMatchObject({ filename: 'notes.md', size: 8, upload_mode: 'local' });
    const temp = t.app.service<import('../../plugins/system/temp-files.js').TempFiles>('temp-files');
    const who = { accountId: 'acme', userId: 'alice', role: 'USER' as const };
    expect((await temp.read(who, r.temp_file_id)).toString()).toBe('# hello\n');
    // Another user of the account cannot see a local upload; another account never can.
    await expect(temp.resolve({ ...who, userId: 'admin' }, r.temp_file_id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('shared uploads are visible to the whole account, never to another', async () => {
    const mp = multipart([{ name: 'file', filename: 'a.bin', data: Buffer.from([1, 2, 3]) }]);
    const res = await t.req({ method: 'POST', url: '/api/v1/resources/temp_upload?upload_mode=shared', headers: { ...alice, 'content-type': mp.contentType }, body: mp.body });
    const id = res.json().result.temp_file_id;
    const temp = t.app.service<import('../../plugins/system/temp-files.js').TempFiles>('temp-files');
    expect((await temp.resolve({ accountId: 'acme', userId: 'admin', role: 'ADMIN' }, id)).size).toBe(3);
    await expect(temp.resolve({ accountId: 'other', userId: 'alice', role: 'USER' }, id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('rejects a body without a file part, a non-multipart body and a bad upload_mode', async () => {
    const mp = multipart([{ name: 'other', data: 'x' }]);
    const noFile = await t.req({ method: 'POST', url: '/api/v1/resources/temp_upload', headers: { ...alice, 'content-type': mp.contentType }, body: mp.body });
    expect(noFile.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'file' } });
    const json = await t.req({ method: 'POST', url: '/api/v1/resources/temp_upload', headers: alice, body: { file: 'x' } });
    expect(json.status).toBe(415);
    const mode = await t.req({ method: 'POST', url: '/api/v1/resources/temp_upload?upload_mode=cloud', headers: { ...alice, 'content-type': mp.contentType }, body: mp.body });
    expect(mode.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'upload_mode' } });
  });

  it('expired uploads are swept', async () => {
    const t2 = await startTestApp({ config: { tempFileTtlMinutes: 0 } });
    try {
      const mp = multipart([{ name: 'file', filename: 'x.txt', data: 'bye' }]);
      const res = await t2.req({ method: 'POST', url: '/api/v1/resources/temp_upload', headers: { ...t2.root, 'content-type': mp.contentType }, body: mp.body });
      const id = res.json().result.temp_file_id;
      const temp = t2.app.service<import('../../plugins/system/temp-files.js').TempFileStore>('temp-files');
      await new Promise((r) => setTimeout(r, 5));
      expect(await temp.sweep()).toBeGreaterThanOrEqual(1);
      await expect(temp.resolve({ accountId: 'default', userId: 'default', role: 'ROOT' }, id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      await t2.close();
    }
  });
});
