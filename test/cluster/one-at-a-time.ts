/**
 * The test files that start a whole local cluster (3 nats-servers and 3 ctx nodes each) take turns:
 * run side by side on a 2-core machine, the second cluster's JetStream could not elect a meta
 * leader within the launcher's deadline. A lock file (created exclusively, holding the pid) is the
 * turn; a holder that died without releasing it is taken over.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { alive, down, up, type ClusterFile } from '../../runtime/cluster/launcher.js';

const LOCK = path.join(os.tmpdir(), 'ctx-test-cluster.lock');

/** Waits for the turn (bounded); returns the release. */
export async function clusterTurn(timeoutMs = 540_000): Promise<() => void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(LOCK, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(fs.readFileSync(LOCK, 'utf8') || 0);
      if (holder && holder !== process.pid && !alive(holder)) fs.rmSync(LOCK, { force: true });
      else if (Date.now() > end) throw new Error(`another test's cluster (pid ${holder}) held ${LOCK} for ${timeoutMs / 1000} s`);
      else await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * A 3-node local cluster in `dir` for one test file, started in its turn before the file's tests
 * and stopped (and `dir` removed) after them; `onUp` receives its cluster.json.
 */
export function localClusterForFile(dir: string, heartbeatMs: number, onUp: (file: ClusterFile) => void): void {
  let release: (() => void) | undefined;
  beforeAll(async () => {
    release = await clusterTurn();
    onUp(await up({ nodes: 3, dir, heartbeatMs }));
  }, 720_000);
  afterAll(async () => {
    await down({ dir }).catch(() => {});
    release?.();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);
}
