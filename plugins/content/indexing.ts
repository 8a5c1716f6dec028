/**
 * Index status of a write, from the retrieval plugin's `indexing` service (it owns the queues and
 * knows what is outstanding). Without it nothing indexes now: every status is `deferred`.
 */
import type { PluginHost } from '../../runtime/sdk/index.js';

export type IndexStatus = 'queued' | 'complete' | 'deferred';

export interface QueueCounters {
  processed: number;
  error_count: number;
  errors: string[];
  pending: number;
}

export interface IndexingReport {
  semantic_status: IndexStatus;
  vector_status: IndexStatus;
  queue_status: { Semantic: QueueCounters; Embedding: QueueCounters };
}

/** The part of the retrieval plugin's `indexing` service content uses (typed here: no import of its files). */
export interface IndexingService {
  report(account: string, path: string, opts: { wait: boolean; timeoutMs?: number; signal?: AbortSignal; kind?: 'file' | 'dir' }): Promise<IndexingReport>;
  running(): boolean;
  refresh(request: { account: string; path: string; kind: 'file' | 'dir'; mode: 'vectors_only' | 'semantic_and_vectors'; recursive: boolean }, taskId: string): Promise<void>;
}

const idle = (): QueueCounters => ({ processed: 0, error_count: 0, errors: [], pending: 0 });

export function indexing(host: PluginHost): IndexingService | undefined {
  return host.optional<IndexingService>('indexing');
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
