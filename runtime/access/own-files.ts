/**
 * `host.ownFiles(account)` (privilege `own-files`): the files a plugin owns by name in every
 * account, for upkeep that runs with no caller (relations keeps its `.relations.json` sidecars in
 * step when a file moves or goes). Content is reachable only for the names the plugin declares in
 * `ownFiles`; any other node gives its metadata alone (to check a directory still exists).
 */
import { PluginError } from '../plugin.js';
import type { Entry } from '../vfs/types.js';
import type { LockHandle } from '../vfs/locks.js';
import { splitPath, type Vfs } from '../vfs/vfs.js';

export interface OwnFiles {
  /** Metadata of any node of the account (null when missing). */
  stat(path: string): Promise<Entry | null>;
  readFile(path: string): Promise<Buffer>;
  writeFile(path: string, data: Buffer, opts?: { lock?: LockHandle }): Promise<void>;
  rm(path: string, opts?: { lock?: LockHandle }): Promise<void>;
  /** Path locks on owned files, taken as one request. */
  lockAll(paths: string[]): Promise<LockHandle[]>;
}

export function ownFiles(plugin: string, names: readonly string[], vfs: Vfs, account: string): OwnFiles {
  const owned = (path: string, what: string) => {
    if (!names.includes(splitPath(path)[1]))
      throw new PluginError('CTX_PLUGIN_PRIVILEGE', `plugin ${plugin} may ${what} only the files it owns (${names.join(', ') || 'none declared'}), not ${path}`);
    return path;
  };
  const inAccount = (lock: LockHandle | undefined) => {
    if (lock && lock.account !== account) throw new PluginError('CTX_PLUGIN_PRIVILEGE', `plugin ${plugin}: the lock passed is not one of account ${account}'s`);
    return lock;
  };
  return {
    stat: (path) => vfs.stat(account, path),
    readFile: (path) => vfs.readFile(account, owned(path, 'read')),
    async writeFile(path, data, opts = {}) {
      await vfs.writeFile(account, owned(path, 'write'), data, { mode: 'replace', lock: inAccount(opts.lock) });
    },
    async rm(path, opts = {}) {
      await vfs.rm(account, owned(path, 'remove'), { lock: inAccount(opts.lock) });
    },
    lockAll: (paths) => vfs.locks.acquireAll(account, paths.map((p) => owned(p, 'lock')), 'path'),
  };
}
