/**
 * The node's id when `CTX_NODE_ID` is not set: generated once and kept in the data directory, so a
 * restarted node comes back as itself (its shards' placement does not move because it restarted).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export function stableNodeId(dataDir: string): string {
  const file = path.join(dataDir, 'node-id');
  try {
    const id = fs.readFileSync(file, 'utf8').trim();
    if (/^[A-Za-z0-9_-]{1,64}$/.test(id)) return id;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const id = 'node-' + randomBytes(6).toString('hex');
  fs.writeFileSync(file + '.tmp', id + '\n');
  fs.renameSync(file + '.tmp', file);
  return id;
}
