/** Which records a storage path gets, and the attributes they carry. */
import type { Identity } from 'ctx/plugin';
import { parseUri, type CtxUri } from 'ctx/plugin';
import { SIDECARS } from 'ctx/plugin';
import { splitPath, type Entry } from 'ctx/plugin';
import type { RecordAttrs } from './backends.js';

const SYSTEM: Identity = { accountId: '-', userId: '-', role: 'ROOT' };

export interface Placement {
  uri: CtxUri;
  contextType: RecordAttrs['contextType'];
  ownerSpace: string;
  peer?: string;
}

/**
 * The placement of an indexable node, or null: containers (`ctx://user/u`, `.../peers`), session
 * logs, the legacy agent namespace, sidecars and internal scopes get no records.
 */
export function placement(path: string): Placement | null {
  if (path === '') return null;
  const name = splitPath(path)[1];
  if (SIDECARS.has(name)) return null;
  let uri: CtxUri;
  try {
    uri = parseUri('ctx://' + path, SYSTEM);
  } catch {
    return null;
  }
  const ct = uri.contextType;
  if (ct !== 'resource' && ct !== 'memory' && ct !== 'skill') return null;
  if (uri.scope === 'resources') return { uri, contextType: ct, ownerSpace: '' };
  if (uri.scope === 'user' && uri.userId) return { uri, contextType: ct, ownerSpace: `user:${uri.userId}`, peer: uri.peerId };
  return null;
}

/** True for a directory whose L0/L1 the semantic processor maintains. */
export const isIndexableDir = (path: string) => placement(path) !== null;

/** Memory category (`ctx://user/u/memories/preferences/x.md` → `preferences`), skill name, or ''. */
export function categoryOf(p: Placement): string {
  const u = p.uri;
  if (p.contextType === 'skill') return u.skillName ?? '';
  if (p.contextType === 'memory') {
    const i = u.segments.indexOf('memories');
    return i >= 0 && u.segments.length > i + 2 ? u.segments[i + 1]! : '';
  }
  return '';
}

export const parentPath = (path: string) => splitPath(path)[0];

/** The record attributes of one level of a placed node (the indexer and supplied records alike). */
export function recordAttrs(account: string, path: string, level: 0 | 1 | 2, node: Pick<Entry, 'tags' | 'ctime' | 'mtime'>, place: Placement): RecordAttrs {
  const attrs: RecordAttrs = {
    account,
    ownerSpace: place.ownerSpace,
    uri: 'ctx://' + path,
    parentUri: 'ctx://' + parentPath(path),
    contextType: place.contextType,
    level,
    tags: node.tags ?? [],
    createdAt: node.ctime,
    updatedAt: node.mtime,
  };
  if (place.peer !== undefined) attrs.peer = place.peer;
  return attrs;
}
