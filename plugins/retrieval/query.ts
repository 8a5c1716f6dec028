/**
 * Request fields → core filters: access scope, target URIs, context types, levels, tags, time
 * bounds and the metadata filter language (docs/retrieval.md, "Filter language"). Everything
 * compiles to `VectorFilter`s evaluated inside the index; an `$or` becomes several filters whose
 * hits are merged, never a JS post-filter.
 */
import { CtxError, invalidArgument } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import { authorize, isAncestorOrSelf, parseUri } from 'ctx/plugin';
import { checkOptionalTags as checkTags } from 'ctx/plugin';
import type { VectorFilter } from './backends.js';
import { legacyAgentFilters } from './legacy.js';
import { normalizeFilter } from './filter-compat.js';

const CONTEXT_TYPES = ['memory', 'resource', 'skill'] as const;
const MAX_BRANCHES = 16;

// ------------------------------------------------------------------------------------------ time

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * `2h`, `30m`, `7d`, `45s`, `2w` (before now); `YYYY-MM-DD` (UTC; as an upper bound the whole day
 * is included); ISO 8601 date-times, UTC when they carry no zone. Returns epoch ms.
 */
export function parseTime(value: string, field: string, bound: 'lower' | 'upper', now = Date.now()): number {
  const v = value.trim();
  const rel = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(v);
  if (rel) return now - Number(rel[1]) * UNIT_MS[rel[2]!.toLowerCase()]!;
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (day && realDate(v)) {
    const t = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    return bound === 'upper' ? t + 86_400_000 - 1 : t;
  }
  const iso = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?$/i.exec(v);
  // Date.parse rolls impossible values over (Feb 30 → Mar 1, 24:00 → next day) instead of failing.
  if (iso && realDate(iso[1]!) && realClock(iso[2]!)) {
    const zone = iso[3] ? (iso[3].toUpperCase() === 'Z' ? 'Z' : iso[3].includes(':') ? iso[3] : `${iso[3].slice(0, 3)}:${iso[3].slice(3)}`) : 'Z';
    const t = Date.parse(`${iso[1]}T${iso[2]}${zone}`);
    if (!Number.isNaN(t)) return t;
  }
  if (day || iso) throw invalidArgument(`${field} is not a real date-time (day of month, hour 00-23, minute and second 00-59); got ${JSON.stringify(value)}`, { field });
  throw invalidArgument(`${field} must be a relative time (2h, 30m, 7d), YYYY-MM-DD or an ISO 8601 date-time; got ${JSON.stringify(value)}`, { field });
}

/** `YYYY-MM-DD` names a day that exists (month 1-12, day within that month, leap years). */
function realDate(ymd: string): boolean {
  const [y, m, d] = ymd.split('-').map(Number) as [number, number, number];
  if (m < 1 || m > 12 || d < 1) return false;
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** `hh:mm[:ss[.f]]` within 00:00:00-23:59:59 (no 24:00, no leap second). */
function realClock(hms: string): boolean {
  const [h, m, s] = hms.split(':').map((x) => Number(x)) as [number, number, number | undefined];
  return h <= 23 && m <= 59 && (s === undefined || s < 60);
}

function timeValue(v: unknown, field: string, bound: 'lower' | 'upper'): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string') return parseTime(v, field, bound);
  throw invalidArgument(`${field} must be a time string or epoch milliseconds`, { field });
}

// ------------------------------------------------------------------------------- filter language

type Conj = Omit<VectorFilter, 'account'> & { unsatisfiable?: boolean };

/** AND of two URI prefix sets (each an OR): the deeper prefix of every comparable pair. */
function intersectPrefixes(a: string[] | undefined, b: string[] | undefined): string[] | undefined {
  if (!a) return b;
  if (!b) return a;
  const out = new Set<string>();
  for (const x of a)
    for (const y of b) {
      if (isAncestorOrSelf(x, y)) out.add(y);
      else if (isAncestorOrSelf(y, x)) out.add(x);
    }
  return [...out];
}

function intersectList<T>(a: T[] | undefined, b: T[] | undefined): T[] | undefined {
  if (!a) return b;
  if (!b) return a;
  return a.filter((x) => b.includes(x));
}

export function andConj(a: Conj, b: Conj): Conj {
  const out: Conj = { ...a };
  out.uriPrefixes = intersectPrefixes(a.uriPrefixes, b.uriPrefixes);
  out.ownerSpaces = intersectList(a.ownerSpaces, b.ownerSpaces);
  out.contextTypes = intersectList(a.contextTypes, b.contextTypes);
  out.levels = intersectList(a.levels, b.levels);
  if (a.tags || b.tags) out.tags = [...new Set([...(a.tags ?? []), ...(b.tags ?? [])])];
  if (a.excludeUriPrefixes || b.excludeUriPrefixes) out.excludeUriPrefixes = [...(a.excludeUriPrefixes ?? []), ...(b.excludeUriPrefixes ?? [])];
  if (b.since !== undefined || b.until !== undefined) {
    if (a.timeField && b.timeField && a.timeField !== b.timeField && (a.since !== undefined || a.until !== undefined))
      throw invalidArgument('a filter branch may bound only one of created_at and updated_at (use since/until with time_field, or an $or)', { field: 'filter' });
    out.timeField = b.timeField ?? a.timeField;
    out.since = Math.max(a.since ?? -Infinity, b.since ?? -Infinity);
    out.until = Math.min(a.until ?? Infinity, b.until ?? Infinity);
    if (out.since === -Infinity) delete out.since;
    if (out.until === Infinity) delete out.until;
  }
  if (b.peer !== undefined) {
    if (a.peer !== undefined && a.peer !== b.peer) out.unsatisfiable = true;
    out.peer = b.peer;
  }
  out.unsatisfiable = !!(a.unsatisfiable || b.unsatisfiable || out.unsatisfiable);
  for (const k of ['uriPrefixes', 'ownerSpaces', 'contextTypes', 'levels'] as const) if (out[k]?.length === 0) out.unsatisfiable = true;
  if (out.since !== undefined && out.until !== undefined && out.since > out.until) out.unsatisfiable = true;
  if (out.unsatisfiable === false) delete out.unsatisfiable;
  return out;
}

function andAll(branchesA: Conj[], branchesB: Conj[]): Conj[] {
  const out: Conj[] = [];
  for (const a of branchesA) for (const b of branchesB) out.push(andConj(a, b));
  if (out.length > MAX_BRANCHES) throw invalidArgument(`filter expands to more than ${MAX_BRANCHES} alternatives; simplify its $or clauses`, { field: 'filter' });
  return out;
}

const bad = (path: string, msg: string) => invalidArgument(`invalid filter at ${path}: ${msg}`, { field: 'filter', at: path });

function asList(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v) || v.length === 0) throw bad(path, 'expected a non-empty array');
  return v;
}

function fieldCondition(field: string, cond: unknown, path: string, identity: Identity): Conj {
  const ops: Record<string, unknown> = cond !== null && typeof cond === 'object' && !Array.isArray(cond) ? (cond as Record<string, unknown>) : { $eq: cond };
  if (Object.keys(ops).length === 0) throw bad(path, 'empty condition');
  let out: Conj = {};
  for (const [op, v] of Object.entries(ops)) {
    const at = `${path}.${op}`;
    let c: Conj;
    switch (field) {
      case 'context_type': {
        const vals = op === '$eq' ? [v] : op === '$in' ? asList(v, at) : null;
        if (!vals) throw bad(at, 'context_type supports equality and $in');
        for (const x of vals) if (!(CONTEXT_TYPES as readonly unknown[]).includes(x)) throw bad(at, `context_type must be one of ${CONTEXT_TYPES.join(', ')}`);
        c = { contextTypes: vals as string[] };
        break;
      }
      case 'level': {
        const vals = op === '$eq' ? [v] : op === '$in' ? asList(v, at) : null;
        if (!vals) throw bad(at, 'level supports equality and $in');
        for (const x of vals) if (x !== 0 && x !== 1 && x !== 2) throw bad(at, 'level must be 0, 1 or 2');
        c = { levels: vals as number[] };
        break;
      }
      case 'uri': {
        if (op !== '$prefix' && op !== '$not_prefix') throw bad(at, 'uri supports $prefix and $not_prefix');
        const vals = (Array.isArray(v) ? v : [v]).map((x, i) => {
          const u = parseUri(x, identity, { field: `filter${at.slice(1)}${Array.isArray(v) ? `[${i}]` : ''}` });
          if (op === '$prefix') authorize(u, identity, 'read');
          return u.uri;
        });
        c = op === '$prefix' ? { uriPrefixes: vals } : { excludeUriPrefixes: vals };
        break;
      }
      case 'tags': {
        const vals = op === '$eq' ? [v] : op === '$all' ? asList(v, at) : null;
        if (!vals) throw bad(at, 'tags supports equality (one k=v tag) and $all');
        // The write side's rule, so a filter can name exactly the tags a write can store.
        for (const x of vals)
          try {
            if (typeof x !== 'string') throw new Error();
            checkTags([x]);
          } catch {
            throw bad(at, `tags are strict k=v strings (non-empty key, no control characters or surrounding blanks); got ${JSON.stringify(x)?.slice(0, 100)}`);
          }
        c = { tags: vals as string[] };
        break;
      }
      case 'created_at':
      case 'updated_at': {
        const timeField = field === 'created_at' ? 'createdAt' : 'updatedAt';
        if (op === '$gte' || op === '$gt') c = { timeField, since: timeValue(v, `filter${at.slice(1)}`, 'lower') + (op === '$gt' ? 1 : 0) };
        else if (op === '$lte' || op === '$lt') c = { timeField, until: timeValue(v, `filter${at.slice(1)}`, 'upper') - (op === '$lt' ? 1 : 0) };
        else throw bad(at, `${field} supports $gt, $gte, $lt and $lte`);
        break;
      }
      case 'peer': {
        if (op !== '$eq' || typeof v !== 'string' || !v) throw bad(at, 'peer supports equality with a peer id');
        c = { peer: v };
        break;
      }
      default:
        throw bad(path, `unknown field ${JSON.stringify(field)}; fields: context_type, level, uri, tags, created_at, updated_at, peer`);
    }
    out = andConj(out, c);
  }
  return out;
}

/** Compiles a filter object to alternatives (OR of AND-conjunctions); [] when it can match nothing. */
export function compileFilter(filter: unknown, identity: Identity, path = '$'): Conj[] {
  if (path === '$') filter = normalizeFilter(filter);
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) throw bad(path, 'expected an object');
  let branches: Conj[] = [{}];
  for (const [key, value] of Object.entries(filter as Record<string, unknown>)) {
    const at = `${path}.${key}`;
    if (key === '$and') {
      for (const [i, sub] of asList(value, at).entries()) branches = andAll(branches, compileFilter(sub, identity, `${at}[${i}]`));
    } else if (key === '$or') {
      const alts = asList(value, at).flatMap((sub, i) => compileFilter(sub, identity, `${at}[${i}]`));
      branches = andAll(branches, alts);
    } else if (key.startsWith('$')) throw bad(at, `unknown operator ${key}; top-level operators: $and, $or`);
    else branches = andAll(branches, [fieldCondition(key, value, at, identity)]);
  }
  return branches.filter((b) => !b.unsatisfiable);
}

// --------------------------------------------------------------------------------- request scope

export interface ScopeInput {
  target_uri?: string | string[];
  context_type?: string | string[];
  tags?: string[];
  level?: string | number;
  since?: string;
  until?: string;
  time_field?: 'updated_at' | 'created_at';
  filter?: Record<string, unknown>;
}

export interface Scope {
  /** Access + target + peer view: where navigation (directory expansion) may go (OR of filters). */
  navs: VectorFilter[];
  /** Every condition of the request, one filter per `$or` alternative (empty: nothing can match). */
  filters: VectorFilter[];
  targets: string[];
}

export function parseLevels(level: string | number | undefined): number[] | undefined {
  if (level === undefined) return undefined;
  const parts = String(level).split(',').map((x) => x.trim());
  const out = parts.map((p) => {
    if (!/^[012]$/.test(p)) throw invalidArgument(`level must be levels such as "0", "2" or "0,1,2"; got ${JSON.stringify(level)}`, { field: 'level' });
    return Number(p);
  });
  return [...new Set(out)];
}

/**
 * `X-Ctx-Actor-Peer: p` narrows the user's peer collection to peer p and leaves everything else:
 * the records of peer p, OR the records outside `ctx://user/{self}/peers` (the core's `peer`
 * condition alone would keep only peer records).
 */
function peerView(f: VectorFilter, identity: Identity): VectorFilter[] {
  const p = identity.actorPeerId;
  if (!p) return [f];
  if (f.peer !== undefined) return f.peer === p ? [f] : [];
  return [
    { ...f, peer: p },
    { ...f, excludeUriPrefixes: [...(f.excludeUriPrefixes ?? []), `ctx://user/${identity.userId}/peers`] },
  ];
}

export function buildScope(input: ScopeInput, identity: Identity): Scope {
  const account = identity.accountId;
  const nav: VectorFilter = { account };
  // A USER sees shared resources and their own space, whatever the target says.
  if (identity.role === 'USER') nav.ownerSpaces = ['', `user:${identity.userId}`];
  const rawTargets = input.target_uri === undefined || input.target_uri === '' ? [] : Array.isArray(input.target_uri) ? input.target_uri : [input.target_uri];
  const targets = rawTargets
    .filter((t) => t !== '')
    .map((t, i) => {
      const u = parseUri(t, identity, { field: Array.isArray(input.target_uri) ? `target_uri[${i}]` : 'target_uri' });
      authorize(u, identity, 'read');
      return u.uri;
    });
  if (targets.length) nav.uriPrefixes = targets;
  else if (identity.role !== 'ROOT') nav.uriPrefixes = ['ctx://resources', `ctx://user/${identity.userId}`];

  let base: Conj = {};
  if (input.context_type !== undefined) {
    const types = Array.isArray(input.context_type) ? input.context_type : [input.context_type];
    if (!types.length) throw invalidArgument('context_type must not be empty', { field: 'context_type' });
    for (const t of types)
      if (!(CONTEXT_TYPES as readonly string[]).includes(t)) throw invalidArgument(`context_type must be memory, resource or skill; got ${JSON.stringify(t)}`, { field: 'context_type' });
    base.contextTypes = [...new Set(types)];
  } else base.contextTypes = [...CONTEXT_TYPES];
  if (input.tags?.length) {
    // Same validator as writes: a tag find accepts is one a write could have stored.
    checkTags(input.tags);
    base.tags = [...new Set(input.tags)];
  }
  const levels = parseLevels(input.level);
  if (levels) base.levels = levels;
  if (input.since !== undefined || input.until !== undefined) {
    base.timeField = input.time_field === 'created_at' ? 'createdAt' : 'updatedAt';
    if (input.since !== undefined) base.since = parseTime(input.since, 'since', 'lower');
    if (input.until !== undefined) base.until = parseTime(input.until, 'until', 'upper');
    if (base.since !== undefined && base.until !== undefined && base.since > base.until)
      throw invalidArgument('since is after until', { field: 'since', since: new Date(base.since).toISOString(), until: new Date(base.until).toISOString() });
  }
  base = andConj(base, { ...nav, account: undefined } as Conj);
  const branches = input.filter === undefined ? [base] : compileFilter(input.filter, identity).map((b) => andConj(base, b));
  const filters = branches.filter((b) => !b.unsatisfiable).map((b) => {
    const { unsatisfiable: _u, ...rest } = b;
    return { ...rest, account } as VectorFilter;
  });
  const legacy = targets.length ? null : legacyAgentFilters(identity, nav, filters);
  return { navs: [...peerView(nav, identity), ...(legacy?.navs ?? [])], filters: [...filters.flatMap((f) => peerView(f, identity)), ...(legacy?.filters ?? [])], targets };
}

export function requireQuery(query: string | undefined, imageUrl: string | undefined, supportsImages: boolean, describe: string): void {
  if (imageUrl !== undefined) {
    if (!/^(data:image\/[a-z0-9.+-]+;base64,|https?:\/\/|ctx:\/\/)/i.test(imageUrl))
      throw invalidArgument('image_url must be a data:image/...;base64,... URL, an http(s) URL or a ctx:// URI', { field: 'image_url' });
    if (!supportsImages)
      throw invalidArgument(`image_url needs a multimodal embedding model; the configured embedder (${describe}) is text-only`, { field: 'image_url' });
    throw new CtxError('UNIMPLEMENTED', 'image queries are not supported by this server yet', { field: 'image_url' });
  }
  if (query === undefined || query.trim() === '') throw invalidArgument('query is required unless image_url is given', { field: 'query' });
}
