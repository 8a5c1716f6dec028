/**
 * What a legacy migration would do (spec Part 1, "Legacy namespace migration"), worked out before
 * anything is written so that its preflight failures come before the task exists. The 0.3.x layout
 * read here, per account:
 *
 *   agent/{agent_id}/memories|resources/...       shared: every registered user gets a copy
 *   agent/{agent_id}/skills/{skill}/...           shared, to each user's skills
 *   agent/{agent_id}/<anything else>              instructions: not migrated, a warning
 *   user/{user_id}/agent/{agent_id}/...           the same, named owner: only that user
 *   session/{session_id}/...                      to its owner's sessions (.meta.json owner fields)
 */
import type { PluginHost } from 'ctx/plugin';
import { isValidId } from 'ctx/plugin';

export interface CopyJob {
  from: string;
  to: string;
  /** Vector records are rewritten to the new paths for agent data; sessions copy files only. */
  vectors: boolean;
  /** A skill is skipped whole when a same-named target skill exists. */
  skill?: boolean;
}

export interface AccountPlan {
  account: string;
  jobs: CopyJob[];
  /** Owners to register (absent from the user registry). */
  createUsers: string[];
}

export interface Plan {
  accounts: AccountPlan[];
  warnings: string[];
  problems: Array<{ account: string; path: string; reason: string }>;
}

/** Session metadata fields naming the owner, in the spec's order after `created_by_user_id`. */
const OWNER_FIELDS = ['created_by_user_id', 'user_id', 'owner_user_id', 'created_by'] as const;

export async function planMigration(host: PluginHost): Promise<Plan> {
  const vfs = host.unscopedVfs;
  const plan: Plan = { accounts: [], warnings: [], problems: [] };
  for (const acc of await host.identities.listAccounts()) {
    const account = acc.account_id;
    const users = (await host.identities.listUsers(account)).map((u) => u.user_id);
    const registered = new Set(users);
    const ap: AccountPlan = { account, jobs: [], createUsers: [] };
    const owner = (u: string, path: string): boolean => {
      if (!isValidId(u)) {
        plan.problems.push({ account, path, reason: `owner ${JSON.stringify(u)} is not a valid user id` });
        return false;
      }
      if (!registered.has(u) && !ap.createUsers.includes(u)) ap.createUsers.push(u);
      return true;
    };
    const agentData = async (base: string, targets: string[]) => {
      for (const agent of await vfs.list(account, base)) {
        if (agent.kind !== 'dir') continue;
        const id = agent.name;
        if (!isValidId(id)) {
          plan.warnings.push(`${account}: ctx://${agent.path} is not a valid agent id: not migrated`);
          continue;
        }
        for (const child of await vfs.list(account, agent.path)) {
          if (child.kind === 'dir' && (child.name === 'memories' || child.name === 'resources')) {
            for (const u of targets) ap.jobs.push({ from: child.path, to: `user/${u}/peers/${id}/${child.name}`, vectors: true });
          } else if (child.kind === 'dir' && child.name === 'skills') {
            for (const skill of await vfs.list(account, child.path))
              if (skill.kind === 'dir') for (const u of targets) ap.jobs.push({ from: skill.path, to: `user/${u}/skills/${skill.name}`, vectors: true, skill: true });
          } else if (child.name !== '.abstract.md' && child.name !== '.overview.md') {
            plan.warnings.push(`${account}: legacy agent instructions ctx://${child.path} are not migrated`);
          }
        }
      }
    };
    if (await vfs.stat(account, 'user'))
      for (const u of await vfs.list(account, 'user')) {
        if (u.kind !== 'dir' || !(await vfs.stat(account, `${u.path}/agent`))) continue;
        if (owner(u.name, `${u.path}/agent`)) await agentData(`${u.path}/agent`, [u.name]);
      }
    if (await vfs.stat(account, 'session'))
      for (const sess of await vfs.list(account, 'session')) {
        if (sess.kind !== 'dir') continue;
        const u = await sessionOwner(host, account, sess.path, users);
        if (u === null) {
          plan.problems.push({ account, path: sess.path, reason: 'the session owner cannot be resolved (no owner in its .meta.json and the account has more than one user)' });
          continue;
        }
        if (owner(u, sess.path)) ap.jobs.push({ from: sess.path, to: `user/${u}/sessions/${sess.name}`, vectors: false });
      }
    // Last: the owners registered by this migration are target users of the shared data too.
    if (await vfs.stat(account, 'agent')) {
      const targets = [...users, ...ap.createUsers];
      if (targets.length === 0) plan.warnings.push(`${account}: shared legacy agent data but no user to copy it to`);
      await agentData('agent', targets);
    }
    if (ap.jobs.length) plan.accounts.push(ap);
  }
  return plan;
}

/**
 * The spec's resolution order: the owner fields of the session's metadata, then the sole
 * registered user of a single-user account. (A user hint in the old path is not read: the 0.3.x
 * session layout handled here, `session/{id}/`, has none.)
 */
async function sessionOwner(host: PluginHost, account: string, path: string, users: string[]): Promise<string | null> {
  const [raw] = await host.unscopedVfs.readMany(account, [`${path}/.meta.json`]);
  if (raw) {
    try {
      const meta = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      for (const f of OWNER_FIELDS) if (typeof meta[f] === 'string' && meta[f] !== '') return meta[f] as string;
    } catch {
      // Unreadable metadata names no owner; the account's sole user may still.
    }
  }
  return users.length === 1 ? users[0]! : null;
}
