/**
 * Executes a migration plan (copy, never delete; existing targets skipped, so a re-run is
 * idempotent) and the cleanup of the legacy scopes. Vector records of copied agent data are
 * rewritten to the new paths through the retrieval plugin's `vector-records` service instead of
 * being recomputed; the indexer, which sees the copies like any write, then finds those records
 * unchanged and embeds nothing.
 */
import type { Entry, PluginHost, PluginTaskContext } from 'ctx/plugin';
import { SIDECARS } from 'ctx/plugin';
import { planMigration, type CopyJob } from './plan.js';

const BATCH_FILES = 128;
const BATCH_BYTES = 16 << 20;

export interface MigrationResult {
  migrated: { files: number; directories: number; vector_records: number; skipped_vector_records: number; operations: number };
  skipped: Array<{ uri: string; reason: string }>;
  warnings: string[];
  created_users: Array<{ account_id: string; user_id: string; role: string }>;
}

const uri = (p: string) => 'ctx://' + p;
const under = (from: string, to: string, p: string) => to + p.slice(from.length);

export async function runMigration(host: PluginHost, task: PluginTaskContext): Promise<MigrationResult> {
  // Planned again: the legacy data may have changed since the preflight, which the task must follow.
  const plan = await planMigration(host);
  const out: MigrationResult = {
    migrated: { files: 0, directories: 0, vector_records: 0, skipped_vector_records: 0, operations: 0 },
    skipped: plan.problems.map((p) => ({ uri: uri(p.path), reason: p.reason })),
    warnings: [...plan.warnings],
    created_users: [],
  };
  for (const ap of plan.accounts) {
    for (const u of ap.createUsers) {
      // Keys are never listed: with hashed keys the new users' keys must be regenerated anyway.
      const { user } = await host.identities.createUser(ap.account, u, 'USER');
      out.created_users.push({ account_id: ap.account, user_id: u, role: user.role });
    }
    if (out.created_users.length) out.warnings.push('users were created for legacy owners: issue their keys with POST /api/v1/admin/accounts/{account_id}/users/{user_id}/key');
    for (const job of ap.jobs) {
      if (task.signal.aborted) return out;
      await task.setStage(`copying ${uri(job.from)}`);
      await copy(host, ap.account, job, out);
    }
  }
  return out;
}

async function copy(host: PluginHost, account: string, job: CopyJob, out: MigrationResult): Promise<void> {
  const vfs = host.unscopedVfs;
  if (job.skill && (await vfs.stat(account, job.to))) {
    out.skipped.push({ uri: uri(job.to), reason: 'a skill of that name exists' });
    return;
  }
  const nodes: Entry[] = [];
  for await (const e of vfs.walk(account, job.from)) nodes.push(e);
  const lock = await vfs.locks.acquire(account, job.to, 'tree');
  const newDirs = new Set<string>();
  const written = new Set<string>();
  try {
    const dirs = [job.to, ...nodes.filter((n) => n.kind === 'dir').map((n) => under(job.from, job.to, n.path))];
    const existed = await vfs.statMany(account, dirs);
    for (let i = 0; i < dirs.length; i++) {
      if (existed[i]) continue;
      await vfs.mkdir(account, dirs[i]!, { lock, existOk: true });
      newDirs.add(dirs[i]!);
      out.migrated.directories++;
    }
    // L0/L1 sidecars and relations are derived: the indexer writes them for the copies.
    const files = nodes.filter((n) => n.kind === 'file' && !SIDECARS.has(n.name) && n.name !== '.relations.json');
    const targets = await vfs.statMany(account, files.map((f) => under(job.from, job.to, f.path)));
    const todo = files.filter((f, i) => {
      if (!targets[i]) return true;
      out.skipped.push({ uri: uri(under(job.from, job.to, f.path)), reason: 'target exists' });
      return false;
    });
    for (let at = 0; at < todo.length; ) {
      const batch: Entry[] = [];
      let bytes = 0;
      while (at < todo.length && batch.length < BATCH_FILES && (batch.length === 0 || bytes + todo[at]!.size <= BATCH_BYTES)) {
        bytes += todo[at]!.size;
        batch.push(todo[at++]!);
      }
      const contents = await vfs.readMany(account, batch.map((f) => f.path));
      await vfs.writeFiles(
        account,
        batch.map((f, i) => ({ path: under(job.from, job.to, f.path), content: contents[i] ?? Buffer.alloc(0) })),
        { lock },
      );
      for (const f of batch) written.add(under(job.from, job.to, f.path));
      out.migrated.files += batch.length;
    }
    if (job.vectors && (written.size || newDirs.size)) await rewriteVectors(host, account, job, written, newDirs, out);
  } finally {
    lock.release();
  }
  out.migrated.operations++;
}

/** Records of the copied nodes, moved to their new paths with their vectors (not recomputed). */
async function rewriteVectors(host: PluginHost, account: string, job: CopyJob, files: Set<string>, dirs: Set<string>, out: MigrationResult): Promise<void> {
  const records = host.optional('vector-records');
  if (!records) {
    out.warnings.push(`no vector store is loaded: the records of ${uri(job.from)} are recomputed by the indexer`);
    return;
  }
  // Every record below the copied subtree counts; those without a vector (or made by another
  // embedder, or for other bytes) are the skipped ones.
  const total = await records.count(account, job.from);
  let batch: Parameters<typeof records.write>[1] = [];
  let rewritten = 0;
  const flush = async () => {
    if (!batch.length) return;
    rewritten += (await records.write(account, batch, await host.unscopedVfs.statMany(account, batch.map((r) => r.path)))).written;
    batch = [];
  };
  for await (const r of records.read(account, job.from)) {
    const to = under(job.from, job.to, r.path);
    if (!(r.level === 2 ? files.has(to) : dirs.has(to))) continue;
    batch.push({ ...r, path: to });
    if (batch.length >= 256) await flush();
  }
  await flush();
  out.migrated.vector_records += rewritten;
  out.migrated.skipped_vector_records += Math.max(0, total - rewritten);
}

/** Legacy scopes of every account: vector records first, then the directories. */
export async function runCleanup(host: PluginHost, task: PluginTaskContext): Promise<{ removed: string[]; skipped: Array<{ uri: string; reason: string }>; vector_records_removed: number }> {
  const vfs = host.unscopedVfs;
  const records = host.optional('vector-records');
  const out = { removed: [] as string[], skipped: [] as Array<{ uri: string; reason: string }>, vector_records_removed: 0 };
  for (const acc of await host.identities.listAccounts()) {
    const account = acc.account_id;
    const scopes = ['agent', 'session'];
    if (await vfs.stat(account, 'user')) for (const u of await vfs.list(account, 'user')) if (u.kind === 'dir') scopes.push(`${u.path}/agent`);
    for (const p of scopes) {
      if (task.signal.aborted) return out;
      if (!(await vfs.stat(account, p))) continue;
      try {
        if (records) out.vector_records_removed += await records.remove(account, p);
      } catch (err) {
        // Removing the directory would orphan records that still point into it.
        out.skipped.push({ uri: uri(p), reason: `its vector records could not be removed: ${(err as Error).message}` });
        continue;
      }
      await vfs.rm(account, p, { recursive: true });
      out.removed.push(`${account}:${uri(p)}`);
    }
  }
  return out;
}
