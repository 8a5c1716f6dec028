import { createHash } from 'node:crypto';

/**
 * The spec's deterministic 32-hex vector record key: stable for (account, uri, level), so a record
 * id survives restarts and reindexing and can be recomputed from the file system alone.
 */
export function recordId(account: string, uri: string, level: 0 | 1 | 2): string {
  return createHash('sha256').update(`${account}\n${uri}\n${level}`).digest('hex').slice(0, 32);
}
