/** Write statuses read from the real durable queues, with a probe indexer consuming them; reindex. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatHeader } from '../../runtime/vfs/headers.js';
import type { TestApp } from '../helpers/app.js';
import { contentApp, probeIndexer, type Probe } from './helpers.js';
import { settledTask } from '../helpers/poll.js';

let t: TestApp;
let probe: Probe;
let alice: Record<string, string>;
let bob: Record<string, string>;

const post = (url: string, body: unknown, headers = alice) => t.req({ method: 'POST', url, headers, body });

beforeAll(async () => {
  probe = probeIndexer();
  t = await contentApp(probe);
  const acme = await t.account('acme', ['alice', 'bob']);
  alice = acme.users.alice!;
  bob = acme.users.bob!;
});
afterAll(() => {
  probe.release();
  return t.close();
});

describe('write statuses', () => {
  it('without wait, pending work is reported as queued, with the pending counts', async () => {
    probe.hold();
    try {
      const res = await post('/api/v1/content/write', { uri: 'ctx://resources/ix/a.md', content: 'a' });
      const r = res.json().result;
      expect(r.semantic_status).toBe('queued');
      expect(r.vector_status).toBe('queued');
      expect(r.queue_status.Semantic).toMatchObject({ processed: 0, pending: 1 });
    } finally {
      probe.release();
    }
  });

  it('with wait, the write returns once Semantic and Embedding work settled, counting it', async () => {
    const res = await post('/api/v1/content/write', { uri: 'ctx://resources/ix/b.md', content: 'b', wait: true, tags: ['k=v'] });
    const r = res.json().result;
    expect(r.semantic_status).toBe('complete');
    expect(r.vector_status).toBe('complete');
    expect(r.queue_status.Semantic).toEqual({ processed: 1, error_count: 0, errors: [], pending: 0 });
    expect(r.queue_status.Embedding).toEqual({ processed: 1, error_count: 0, errors: [], pending: 0 });
    expect(probe.embedding).toContainEqual({ account: 'acme', path: 'resources/ix/b.md', level: 2, op: 'upsert' });
    expect(probe.semantic.find((m) => m.path === 'resources/ix/b.md')?.tags).toEqual(['k=v']);
  });

  it('a timeout returns the write with the work still queued (not an error)', async () => {
    probe.hold();
    try {
      const res = await post('/api/v1/content/write', { uri: 'ctx://resources/ix/c.md', content: 'c', wait: true, timeout: 0.05 });
      expect(res.status).toBe(200);
      expect(res.json().result).toMatchObject({ content_updated: true, semantic_status: 'queued', vector_status: 'queued' });
    } finally {
      probe.release();
    }
  });

  it('failed index work shows up as error_count and errors', async () => {
    probe.failing.add('resources/ix/bad.md');
    const r = (await post('/api/v1/content/write', { uri: 'ctx://resources/ix/bad.md', content: 'x', wait: true })).json().result;
    expect(r.queue_status.Semantic.error_count).toBe(1);
    expect(r.queue_status.Semantic.errors[0]).toContain('probe failure for resources/ix/bad.md');
    expect(r.semantic_status).toBe('complete');
  });
});

describe('batch-write and the indexer', () => {
  it('commits every file in one batch, so semantic work starts after all writes', async () => {
    await t.app.vfs.mkdir('acme', 'resources/bulk');
    const paths = Array.from({ length: 40 }, (_, i) => `resources/bulk/d${i % 4}/f${i}.md`);
    probe.watch = paths;
    const commitsBefore = probe.commits.length;
    const res = await post('/api/v1/content/batch-write', {
      root_uri: 'ctx://resources/bulk',
      operations: paths.map((p) => ({ uri: `ctx://${p}`, content: p, mode: 'upsert' })),
    });
    const r = res.json().result;
    expect(r.created).toHaveLength(40);
    expect(r).toMatchObject({ semantic_status: 'complete', vector_status: 'complete' });
    expect(r.queue_status.Semantic.processed).toBe(40);
    expect(r.queue_status.Embedding.processed).toBe(40);
    const batchCommits = probe.commits.slice(commitsBefore).filter((evs) => evs.some((e) => e.path.startsWith('resources/bulk/')));
    expect(batchCommits).toHaveLength(1);
    expect(batchCommits[0]!.filter((e) => e.type === 'write')).toHaveLength(40);
    const first = probe.semantic.find((m) => m.existing);
    expect(first?.existing).toEqual(paths.map(() => true));
    probe.watch = [];
  });
});

describe('sidecar edits', () => {
  it('ask the indexer for a refresh with the sidecar-edited hint, in the write itself', async () => {
    await t.app.vfs.mkdir('acme', 'resources/sd/child');
    await t.app.vfs.writeFile('acme', 'resources/sd/.overview.md', Buffer.from(formatHeader('meta', { level: 1 }) + 'old'));
    const before = probe.commits.length;
    const r = (await post('/api/v1/content/write', { uri: 'ctx://resources/sd/.overview.md', content: 'new overview', wait: true })).json().result;
    expect(r.content_updated).toBe(true);
    const events = probe.commits.slice(before).flat();
    expect(events).toEqual([expect.objectContaining({ type: 'write', path: 'resources/sd/.overview.md', hint: { index: 'sidecar-edited' } })]);
  });
});

describe('reindex', () => {
  it('runs as a task; wait=true returns its result', async () => {
    await t.app.vfs.writeFile('acme', 'resources/re/a.md', Buffer.from('a'));
    const res = await post('/api/v1/content/reindex', { uri: 'ctx://resources/re', mode: 'semantic_and_vectors', recursive: true, wait: true });
    expect(res.status).toBe(200);
    const r = res.json().result;
    expect(r).toMatchObject({ status: 'completed', uri: 'ctx://resources/re', mode: 'semantic_and_vectors', recursive: true, semantic_status: 'complete' });
    expect(r.queue_status.Semantic.processed).toBeGreaterThanOrEqual(1);
    expect(probe.semantic).toContainEqual(expect.objectContaining({ path: 'resources/re', op: 'refresh', mode: 'semantic_and_vectors', recursive: true }));
    const task = await t.req({ url: `/api/v1/tasks/${r.task_id}`, headers: alice });
    expect(task.json().result).toMatchObject({ task_type: 'admin_reindex', status: 'completed', resource_id: 'ctx://resources/re' });
  });

  it('a second reindex of the same URI while one runs is 409; another URI is fine', async () => {
    probe.hold();
    try {
      const first = await post('/api/v1/content/reindex', { uri: 'ctx://resources/re/a.md' });
      expect(first.status).toBe(200);
      const id = first.json().result.task_id;
      const second = await post('/api/v1/content/reindex', { uri: 'ctx://resources/re/a.md', mode: 'vectors_only' }, bob);
      expect(second.status).toBe(409);
      expect(second.json().error.details).toMatchObject({ resource: 'ctx://resources/re/a.md', task_id: id });
      expect((await post('/api/v1/content/reindex', { uri: 'ctx://resources/ix' })).status).toBe(200);
      probe.release();
      expect((await settledTask(async () => (await t.req({ url: `/api/v1/tasks/${id}`, headers: alice })).json().result)).status).toBe('completed');
      expect((await post('/api/v1/content/reindex', { uri: 'ctx://resources/re/a.md', wait: true })).json().result.status).toBe('completed');
    } finally {
      probe.release();
    }
  });

  it('validates input and access', async () => {
    expect((await post('/api/v1/content/reindex', { uri: 'ctx://resources/none' })).status).toBe(404);
    expect((await post('/api/v1/content/reindex', { uri: 'ctx://resources/re', mode: 'everything' })).status).toBe(400);
    expect((await post('/api/v1/content/reindex', { uri: 'ctx://resources/re', force: true })).status).toBe(400);
    await t.app.vfs.writeFile('acme', 'user/alice/memories/m.md', Buffer.from('m'));
    expect((await post('/api/v1/content/reindex', { uri: 'ctx://user/alice/memories' }, bob)).status).toBe(403);
  });
});

describe('without an indexer', () => {
  it('reindex answers 503', async () => {
    const { contentApp: plain } = await import('./helpers.js');
    const app = await plain();
    try {
      const acme = await app.account('acme');
      await app.app.vfs.mkdir('acme', 'resources/x');
      const res = await app.req({ method: 'POST', url: '/api/v1/content/reindex', headers: acme.admin, body: { uri: 'ctx://resources/x' } });
      expect(res.status).toBe(503);
      expect(res.json().error.code).toBe('UNAVAILABLE');
    } finally {
      await app.close();
    }
  });
});
