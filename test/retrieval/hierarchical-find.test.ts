/**
 * The core's hierarchical search (`hierarchicalSearchAsync`) against the JavaScript loop in
 * find.ts, which serves the JavaScript fallback index: same records, same embedder, same queries
 * → the same ranking and the same expansions.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../runtime/config.js';
import { createLogger } from '../../runtime/logger.js';
import { Kv } from '../../runtime/storage/kv.js';
import { MemoryBackend } from '../../runtime/storage/memory.js';
import { recordId } from '../../runtime/vfs/record-id.js';
import { loadBackends, type RecordAttrs, type VectorFilter } from '../../plugins/retrieval/backends.js';
import { hierarchicalFind } from '../../plugins/retrieval/find.js';
import { RecordStore, type RecordDoc } from '../../plugins/retrieval/store.js';

const TOPICS = [
  'postgres vacuum autovacuum bloat index',
  'kubernetes pod eviction memory limit node pressure',
  'sourdough starter flour hydration crumb',
  'violin bow rosin strings tuning',
  'glacier moraine ice sheet melt',
  'rust borrow checker lifetimes traits',
];

describe('hierarchical search: core and JavaScript loop agree', () => {
  let dir: string;
  let store: RecordStore;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-hier-'));
    const config = loadConfig({}, { dataDir: dir, authMode: 'dev' });
    const log = createLogger('silent');
    const backends = await loadBackends(config, log);
    expect(backends.kind).toBe('native');
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

  const jsOnly = () => new Proxy(store, { get: (t, k) => (k === 'index' ? new Proxy(t.index, { get: (i, m) => (m === 'hierarchicalSearchAsync' ? undefined : Reflect.get(i, m)) }) : Reflect.get(t, k)) });

  for (const [query, filters] of [
    ['autovacuum bloat on a busy table', [{ account: 'acme' }]],
    ['pods evicted for memory pressure', [{ account: 'acme', uriPrefixes: ['ctx://resources/kb'] }]],
    ['rosin for the bow', [{ account: 'acme', levels: [2] }]],
    ['ice sheet melt', [{ account: 'acme', uriPrefixes: ['ctx://resources/kb/t4', 'ctx://resources/kb/t5'] }]],
  ] as Array<[string, Array<Partial<VectorFilter>>]>) {
    it(`agrees on "${query}"`, async () => {
      const [vec] = await store.embedder.embed([query], 'query');
      const scope = { filters: filters as VectorFilter[], navs: [{ account: 'acme', uriPrefixes: filters[0]!.uriPrefixes }] as VectorFilter[] };
      const native = await hierarchicalFind(store, vec!, query, scope, 5);
      const js = await hierarchicalFind(jsOnly() as RecordStore, vec!, query, scope, 5);
      const top = (r: typeof native) => r.candidates.slice(0, 5).map((c) => [c.doc.attrs.uri, c.doc.level, Math.round(c.score * 1000)]);
      expect(native.candidates.length).toBeGreaterThan(0);
      expect(top(native)).toEqual(top(js));
      expect(native.provenance.expanded.map((e) => e.uri)).toEqual(js.provenance.expanded.map((e) => e.uri));
      expect(native.provenance.stop_reason).toBe(js.provenance.stop_reason);
      for (const c of native.candidates) if (filters[0]!.levels) expect(c.doc.level).toBe(2);
    });
  }
});
