/** The `vectordb` and `retrieval` observer components. */
import type { PluginHost } from 'ctx/plugin';
import { s } from 'ctx/plugin';
import { statusTable as table, type ComponentStatus } from 'ctx/plugin';
import type { RecordStore } from './store.js';
import type { OpStats } from './op-stats.js';

export function registerObservers(host: PluginHost, store: RecordStore, ops: Record<string, OpStats>): void {
  host.observer('vectordb', () => vectordbStatus(host, store));
  host.observer('retrieval', (): ComponentStatus => {
    const rows = Object.entries(ops).map(([name, o]) => [name, o.count, o.empty, o.pct(50), o.pct(99), o.count ? (o.expansions / o.count).toFixed(2) : '-']);
    let status = table(['operation', 'requests', 'empty', 'p50_ms', 'p99_ms', 'avg_expansions'], rows);
    // The indexer's counters, from the semantic plugin when it is loaded.
    const st = host.optional('indexing')?.stats();
    if (st)
      status +=
        '\n\n' +
        table(
          ['semantic_files', 'dir_refreshes', 'embedded', 'unchanged', 'deleted', 'llm_fallbacks', 'llm'],
          [[st.files, st.dirRefreshes, st.embedded, st.skippedUnchanged, st.deleted, st.llmFallbacks, st.llm ?? 'none (extractive)']],
        );
    return { name: 'retrieval', is_healthy: true, has_errors: (st?.llmFallbacks ?? 0) > 0, status };
  });
}

function vectordbStatus(host: PluginHost, store: RecordStore): ComponentStatus {
  const st = store.index.stats();
  const info = store.embedder.info;
  const q = host.optional('indexing')?.stats().embedding;
  const rows = [
    ['backend', `${store.backendKind} (${st.kind})`],
    ['index', store.loadError ? `load failed: ${store.loadError.message}` : store.loaded ? 'loaded' : 'loading'],
    ['records', st.size],
    ['dimension', st.dim],
    ['vector_bytes', st.vectorBytes],
    ['graph_bytes', st.graphBytes],
    ['attr_bytes', st.attrBytes],
    ['embedder', `${info.provider}/${info.model} dim ${info.dim}`],
    ['embedding_pending', q ? q.pending : 0],
    ['embedding_errors', q ? q.error_count : 0],
    ['persisted_under', store.dir],
    ['reembed_queued', store.reembedQueued],
    ['last_rebuild', store.rebuildInfo ? `${new Date(store.rebuildInfo.at).toISOString()} ${store.rebuildInfo.records} records in ${store.rebuildInfo.ms} ms (${store.rebuildInfo.reason})` : 'none (loaded from disk)'],
  ];
  return { name: 'vectordb', is_healthy: !store.loadError, has_errors: !!store.loadError || (q?.error_count ?? 0) > 0, status: table(['metric', 'value'], rows) };
}
