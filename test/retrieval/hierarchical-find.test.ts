/**
 * Hierarchical find (the core's `hierarchicalSearchAsync` behind find.ts) on a small knowledge base
 * of six unrelated topics with known answers: the best hit comes from the topic the query is about,
 * every hit honours the filter, and the expansions walk into that topic's directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../runtime/config.js';
import { createLogger } from '../../runtime/logger.js';
import { hostModels } from '../../runtime/models/host-models.js';
import { Kv } from '../../runtime/storage/kv.js';
import { MemoryBackend } from '../../runtime/storage/memory.js';
import { recordId } from '../../runtime/vfs/record-id.js';
import { loadBackends, type RecordAttrs, type VectorFilter } from '../../plugins/retrieval/backends.js';
import { hierarchicalFind, loadCandidates } from '../../plugins/retrieval/find.js';
import { RecordStore, type RecordDoc } from '../../plugins/retrieval/store.js';

const TOPICS = [
  'postgres vacuum autovacuum bloat index',
  'kubernetes pod eviction memory limit node pressure',
  'sourdough starter flour hydration crumb',
  'violin bow rosin strings tuning',
  'glacier moraine ice sheet melt',
  'rust borrow checker lifetimes traits',
];

describe('hierarchical find: known answers', () => {
  let dir: string;
  let store: RecordStore;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-hier-'));
    const config = loadConfig({}, { dataDir: dir, authMode: 'dev' });
    const log = createLogger('silent');
    const backends = await loadBackends(hostModels(config).embedder(), config.vectorFlatThreshold);
    store = new RecordStore(await Kv.open(new MemoryBackend()), backends, dir, log);
    await store.open();
    const docs: RecordDoc[] = [];
    const add = (p: string, level: 0 | 1 | 2, text: string) => {
      const uri = 'ctx://' + p;
      const attrs: RecordAttrs = { account: 'acme', ownerSpace: '', uri, parentUri: uri.slice(0, uri.lastIndexOf('/')), contextType: 'resource', level, tags: [], createdAt: 1, updatedAt: 1 };
      docs.push({ id: recordId('acme', uri, level), path: p, level, attrs, text, abstract: text.slice(0, 60), kind: level === 2 ? 'file' : 'dir', size: text.length });
    };
    TOPICS.forEach((topic, t) => {
      add(`resources/kb/t${t}`, 0, `Notes about ${topic}`);
      add(`resources/kb/t${t}`, 1, `Overview: ${topic}; ${TOPICS[(t + 1) % TOPICS.length]}`);
      for (let f = 0; f < 15; f++) {
        const words = topic.split(' ');
        add(`resources/kb/t${t}/n${f}.md`, 2, `Note ${f}: ${words[f % words.length]} and ${words[(f * 3) % words.length]} — ${topic} detail number ${f} with aside on ${TOPICS[(t + f) % TOPICS.length]!.split(' ')[0]}`);
      }
    });
    add('resources/kb', 0, 'Knowledge base of engineering and hobby notes');
    add('resources/kb', 1, TOPICS.join('; '));
    await store.upsert(docs, await store.embedder.embed(docs.map((d) => d.text), 'document'));
  });
  afterAll(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const [query, filters, topic] of [
    ['autovacuum bloat on a busy table', [{ account: 'acme' }], 0],
    ['pods evicted for memory pressure', [{ account: 'acme', uriPrefixes: ['ctx://resources/kb'] }], 1],
    ['rosin for the bow', [{ account: 'acme', levels: [2] }], 3],
    ['ice sheet melt', [{ account: 'acme', uriPrefixes: ['ctx://resources/kb/t4', 'ctx://resources/kb/t5'] }], 4],
  ] as Array<[string, Array<Partial<VectorFilter>>, number]>) {
    it(`finds topic ${topic} for "${query}"`, async () => {
      const [vec] = await store.embedder.embed([query], 'query');
      const scope = { filters: filters as VectorFilter[], navs: [{ account: 'acme', uriPrefixes: filters[0]!.uriPrefixes }] as VectorFilter[] };
      const { hits, provenance } = await hierarchicalFind(store, vec!, query, scope, 5);
      const candidates = await loadCandidates(store, 'acme', hits);
      expect(candidates.length).toBe(hits.length);
      expect(candidates.length).toBeGreaterThan(0);
      const dir = `ctx://resources/kb/t${topic}`;
      expect(candidates[0]!.doc.attrs.uri.startsWith(dir)).toBe(true);
      for (let i = 1; i < candidates.length; i++) expect(candidates[i]!.score).toBeLessThanOrEqual(candidates[i - 1]!.score);
      for (const c of candidates) {
        expect(c.score).toBeGreaterThanOrEqual(c.raw);
        expect(c.score).toBeLessThanOrEqual(1);
        if (filters[0]!.levels) expect(c.doc.level).toBe(2);
        const prefixes = filters[0]!.uriPrefixes;
        if (prefixes) expect(prefixes.some((p) => c.doc.attrs.uri === p || c.doc.attrs.uri.startsWith(p + '/'))).toBe(true);
      }
      expect(provenance.global_hits).toBeGreaterThan(0);
      if (provenance.expanded.length) expect(provenance.expanded.some((e) => e.uri === dir || e.uri === 'ctx://resources/kb')).toBe(true);
      expect(['stable', 'max_expansions', 'frontier_exhausted', 'frontier_below_topk']).toContain(provenance.stop_reason);
    });
  }

  it('without query text the scores are the dense similarities alone', async () => {
    const query = 'sourdough starter hydration';
    const [vec] = await store.embedder.embed([query], 'query');
    const { hits } = await hierarchicalFind(store, vec!, '', { filters: [{ account: 'acme', levels: [2] }], navs: [{ account: 'acme' }] }, 3);
    const candidates = await loadCandidates(store, 'acme', hits);
    expect(candidates[0]!.doc.attrs.uri.startsWith('ctx://resources/kb/t2/')).toBe(true);
    const [own] = await store.embedder.embed([candidates[0]!.doc.text], 'document');
    let dot = 0;
    for (let i = 0; i < vec!.length; i++) dot += vec![i]! * own![i]!;
    expect(candidates[0]!.raw).toBeCloseTo(Math.max(0, dot), 4);
  });
});
