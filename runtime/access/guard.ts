/**
 * Access control as a host facility. The namespace rules (whose space a URI is in, read or write)
 * are the host's own (`runtime/uri` authorize); the per-entry rules (spec Part 2: reader lists
 * under `ctx://resources`) are supplied by one plugin, the fs plugin, through `EntryRules`. Every
 * scoped handle a plugin receives (VFS view, retrieval filters) asks this guard, so a plugin cannot
 * show its caller what the caller may not read, whichever plugin it is.
 *
 * Without installed rules the guard denies every entry: a host missing the plugin that knows the
 * rules must fail closed, not open.
 */
import { CtxError } from '../errors.js';
import type { Identity } from '../identity/types.js';
import { canRead, parseUri, uriFromPath } from '../uri/index.js';
import type { Entry } from '../vfs/types.js';

export interface EntryRules {
  /**
   * For each internal path, the first node on the way down from its namespace root to the path
   * itself (inclusive) that `identity` may not read, or null when the whole chain is readable.
   */
  blockedOnPaths(identity: Identity, paths: string[]): Promise<(string | null)[]>;
  /** Whether this node alone (ancestors aside) is unreadable for `identity`: listings skip it. */
  hidesNode(identity: Identity, node: Pick<Entry, 'path' | 'meta'>): boolean;
  /**
   * Node metadata keys the rules read (reader lists): a scoped handle refuses to write them, so
   * only the plugin that installed the rules changes who may read what.
   */
  metaKeys?: readonly string[];
}

const NO_RULES = 'no entry access rules are installed (the fs plugin supplies them); access is denied';

export class AccessGuard {
  private rules: EntryRules | null = null;
  private owner: string | null = null;

  /** Called once, by the plugin holding the `access-rules` privilege. */
  install(plugin: string, rules: EntryRules): void {
    if (this.rules) throw new Error(`entry access rules are already installed by plugin ${this.owner}`);
    this.rules = rules;
    this.owner = plugin;
  }

  get reservedMetaKeys(): readonly string[] {
    return this.rules?.metaKeys ?? [];
  }

  get installed(): boolean {
    return this.rules !== null;
  }

  /** `blockedOnPaths` of the rules, or every path blocked at itself when none are installed. */
  blockedOn(identity: Identity, paths: string[]): Promise<(string | null)[]> {
    if (!this.rules) return Promise.resolve(paths.slice());
    return this.rules.blockedOnPaths(identity, paths);
  }

  hides(identity: Identity, node: Pick<Entry, 'path' | 'meta'>): boolean {
    return this.rules ? this.rules.hidesNode(identity, node) : true;
  }

  /** Namespace and entry rules together, for filtering search hits by internal path. */
  async readablePaths(identity: Identity, paths: string[]): Promise<boolean[]> {
    const inNamespace = paths.map((p) => namespaceReadable(identity, p));
    const candidates = paths.filter((_, i) => inNamespace[i]);
    const blocked = candidates.length ? await this.blockedOn(identity, candidates) : [];
    let j = 0;
    return inNamespace.map((ok) => ok && blocked[j++] === null);
  }

  async canReadPath(identity: Identity, path: string): Promise<boolean> {
    return (await this.readablePaths(identity, [path]))[0]!;
  }

  /** Throws 403 PERMISSION_DENIED when `path` or an ancestor is not readable by `identity`. */
  async assertEntryReadable(identity: Identity, path: string): Promise<void> {
    const [blocked] = await this.blockedOn(identity, [path]);
    if (blocked !== null && blocked !== undefined) throw this.denied(identity, path, blocked);
  }

  denied(identity: Identity, path: string, blockedAt: string): CtxError {
    const uri = uriFromPath(path);
    if (!this.rules) return new CtxError('PERMISSION_DENIED', `${uri}: ${NO_RULES}`, { resource: uri });
    const at = uriFromPath(blockedAt);
    const why = at === uri ? `${uri} is not readable by ${identity.userId}` : `${uri} is inside ${at}, which is not readable by ${identity.userId}`;
    return new CtxError('PERMISSION_DENIED', why, { resource: uri, access: 'denied' });
  }
}

/** Whether the caller's namespace rules allow reading an internal path (malformed paths: no). */
export function namespaceReadable(identity: Identity, path: string): boolean {
  try {
    return canRead(parseUri(uriFromPath(path), identity), identity);
  } catch {
    return false;
  }
}
