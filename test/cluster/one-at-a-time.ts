/**
 * The test files that start a whole local cluster (3 nats-servers and 3 ctx nodes each) take turns:
 * run side by side on a 2-core machine, the second cluster's JetStream could not elect a meta
 * leader within the launcher's deadline. A lock file (created exclusively, holding the pid) is the
 * turn; a holder that died without releasing it is taken over.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { alive } from '../../runtime/cluster/launcher.js';

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
