/**
 * Index status of a write, from the semantic plugin's `indexing` service (it owns the queues and
 * knows what is outstanding). Without it nothing indexes now: every status is `deferred`.
 */
import type { PluginHost, Services } from 'ctx/plugin';

/** The semantic plugin's service, typed by its own `Services` declaration (no import of its files). */
type IndexingService = Services['indexing'];
export type IndexingReport = Awaited<ReturnType<IndexingService['report']>>;
type QueueCounters = IndexingReport['queue_status']['Semantic'];

const idle = (): QueueCounters => ({ processed: 0, error_count: 0, errors: [], pending: 0 });

export function indexing(host: PluginHost): IndexingService | undefined {
  return host.optional('indexing');
}

export async function indexingReport(
  host: PluginHost,
  account: string,
  path: string,
  opts: { wait: boolean; timeoutMs?: number; signal?: AbortSignal; kind?: 'file' | 'dir' },
): Promise<IndexingReport> {
  const service = indexing(host);
  if (service) return service.report(account, path, opts);
  return { semantic_status: 'deferred', vector_status: 'deferred', queue_status: { Semantic: idle(), Embedding: idle() } };
}
