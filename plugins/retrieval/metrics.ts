/**
 * The vector index in `GET /metrics` (through `host.metrics`, so named `ctx_retrieval_*`): records
 * and bytes read from the core's stats at scrape time, flat vs HNSW, compactions and rebuilds, and
 * the time each search spends in the core (measured around the call: the core keeps no timer).
 */
import type { PluginHost } from 'ctx/plugin';
import type { RecordStore } from './store.js';

export function registerIndexMetrics(host: PluginHost, store: RecordStore): void {
  host.metrics.gauge('vector_records', { help: 'Live records in the vector index', collect: (g) => g.set(store.index.stats().size) });
  host.metrics.gauge('vector_index_hnsw', { help: '1 when the vector index is an HNSW graph, 0 when flat', collect: (g) => g.set(store.index.stats().kind === 'hnsw' ? 1 : 0) });
  host.metrics.gauge('vector_deleted_records', { help: 'Tombstoned records awaiting compaction', collect: (g) => g.set(store.index.stats().deleted) });
  host.metrics.gauge('vector_index_bytes', {
    help: 'Memory of the vector index by part (vectors, codes, graph, attributes, text)',
    labels: ['part'],
    collect: (g) => {
      const st = store.index.stats();
      g.labels('vectors').set(st.vectorBytes);
      g.labels('codes').set(st.codeBytes);
      g.labels('graph').set(st.graphBytes);
      g.labels('attributes').set(st.attrBytes);
      g.labels('text').set(st.textBytes);
    },
  });
  host.metrics.gauge('record_cache_bytes', { help: 'Estimated bytes held by the slim record cache (what find answers read of records)', collect: (g) => g.set(store.slim.bytes) });
  host.metrics.gauge('record_cache_entries', { help: 'Records in the slim record cache', collect: (g) => g.set(store.slim.size) });
  host.metrics.gauge('vector_compactions', { help: 'Compactions (flat to HNSW, tombstone purges) since start', collect: (g) => g.set(store.compactions) });
  host.metrics.gauge('vector_rebuilds', { help: 'Full rebuilds of the index from RocksDB since start', collect: (g) => g.set(store.rebuilds) });
  const search = host.metrics.histogram('vector_search_seconds', { help: 'Time a search spends in the core (hybrid: dense + BM25 fused; dense: vector only)', labels: ['mode'] });
  const hybrid = search.labels('hybrid');
  const dense = search.labels('dense');
  store.searchTimer = (mode) => {
    const child = mode === 'hybrid' ? hybrid : dense;
    const t0 = performance.now();
    return () => child.observe((performance.now() - t0) / 1000);
  };
}
