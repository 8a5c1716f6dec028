/**
 * Session configuration rules (spec Part 3 "Auto-commit policy", "Sessions": `memory_policy`,
 * `memory_extraction_config`): validation, defaults, bounds and merging. Every function throws
 * INVALID_ARGUMENT naming the offending field.
 */
import { invalidArgument, type Logger } from 'ctx/plugin';
import { MEMORY_CATEGORIES, type AutoCommitPolicy, type MemoryCategory, type MemoryPolicy } from './types.js';

/** Default and maximum of each auto-commit field (the spec's table). */
export const POLICY_FIELDS: Record<keyof AutoCommitPolicy, { def: number; max: number }> = {
  pending_token_threshold: { def: 150_000, max: 1_000_000 },
  message_count_threshold: { def: 100, max: 1000 },
  idle_timeout_seconds: { def: 86_400, max: 604_800 },
  keep_recent_count: { def: 0, max: 500 },
  min_commit_interval_seconds: { def: 0, max: 604_800 },
};

const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const defaultPolicy = (): AutoCommitPolicy =>
  Object.fromEntries(Object.entries(POLICY_FIELDS).map(([k, f]) => [k, f.def])) as unknown as AutoCommitPolicy;

/**
 * The supplied fields of a policy object, each an int >= 0 clamped to its maximum. Fields cannot
 * be null (only the whole policy can); unknown keys are rejected.
 */
export function policyPatch(value: unknown, field = 'auto_commit_policy'): Partial<AutoCommitPolicy> {
  if (!isObject(value)) throw invalidArgument(`${field} must be an object or null, got ${typeName(value)}`, { field });
  const out: Partial<AutoCommitPolicy> = {};
  for (const [key, v] of Object.entries(value)) {
    const spec = POLICY_FIELDS[key as keyof AutoCommitPolicy];
    const f = `${field}.${key}`;
    if (!spec) throw invalidArgument(`unknown ${field} key ${JSON.stringify(key)} (known: ${Object.keys(POLICY_FIELDS).join(', ')})`, { field: f });
    if (typeof v !== 'number' || !Number.isInteger(v)) throw invalidArgument(`${f} must be an integer, got ${typeName(v)}`, { field: f });
    if (v < 0) throw invalidArgument(`${f} must be >= 0, got ${v}`, { field: f });
    out[key as keyof AutoCommitPolicy] = Math.min(v, spec.max);
  }
  return out;
}

/** `null` disables; an object is applied over `base` (the current policy, or the defaults). */
export function mergePolicy(base: AutoCommitPolicy | null, value: unknown, field = 'auto_commit_policy'): AutoCommitPolicy | null {
  if (value === null) return null;
  return { ...(base ?? defaultPolicy()), ...policyPatch(value, field) };
}

const BOOL_WORDS: Record<string, boolean> = { true: true, false: false, '1': true, '0': false, yes: true, no: false, on: true, off: false };

/** A JSON boolean, or a legacy boolean-like value (accepted with a deprecation warning). */
function flag(v: unknown, field: string, warnings: string[]): boolean {
  if (typeof v === 'boolean') return v;
  const word = typeof v === 'string' ? v.trim().toLowerCase() : typeof v === 'number' && (v === 0 || v === 1) ? String(v) : undefined;
  if (word !== undefined && word in BOOL_WORDS) {
    warnings.push(`${field}: ${JSON.stringify(v)} is a deprecated boolean spelling; send ${BOOL_WORDS[word]}`);
    return BOOL_WORDS[word]!;
  }
  throw invalidArgument(`${field} must be a boolean, got ${typeName(v)}`, { field });
}

export const defaultMemoryPolicy = (): MemoryPolicy => ({ self: true, peer: true, working_memory: { enabled: true }, memory_types: null });

/** Validates `memory_policy` (create). Legacy boolean spellings are accepted and logged as deprecated. */
export function parseMemoryPolicy(value: unknown, log?: Logger): MemoryPolicy {
  const out = defaultMemoryPolicy();
  if (value === undefined || value === null) return out;
  const field = 'memory_policy';
  if (!isObject(value)) throw invalidArgument(`${field} must be an object, got ${typeName(value)}`, { field });
  const warnings: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const f = `${field}.${key}`;
    switch (key) {
      case 'self':
      case 'peer':
        out[key] = flag(v, f, warnings);
        break;
      case 'working_memory': {
        if (!isObject(v)) throw invalidArgument(`${f} must be an object, got ${typeName(v)}`, { field: f });
        for (const [k2, v2] of Object.entries(v)) {
          if (k2 !== 'enabled') throw invalidArgument(`unknown ${f} key ${JSON.stringify(k2)} (known: enabled)`, { field: `${f}.${k2}` });
          out.working_memory.enabled = flag(v2, `${f}.enabled`, warnings);
        }
        break;
      }
      case 'memory_types': {
        if (v === null) break;
        if (!Array.isArray(v)) throw invalidArgument(`${f} must be an array of memory types or null, got ${typeName(v)}`, { field: f });
        const types: MemoryCategory[] = [];
        for (const t of v) {
          if (typeof t !== 'string' || !(MEMORY_CATEGORIES as readonly string[]).includes(t))
            throw invalidArgument(`unknown memory type ${JSON.stringify(t)} (known: ${MEMORY_CATEGORIES.join(', ')})`, { field: f });
          if (!types.includes(t as MemoryCategory)) types.push(t as MemoryCategory);
        }
        out.memory_types = types;
        break;
      }
      default:
        throw invalidArgument(`unknown ${field} key ${JSON.stringify(key)} (known: self, peer, working_memory, memory_types)`, { field: f });
    }
  }
  for (const w of warnings) log?.warn('deprecated memory_policy value', { warning: w });
  return out;
}

/**
 * The memory categories a commit may write. `experiences` stands for `cases` and `trajectories`:
 * listing it activates both, and without it those two are ignored even when listed.
 */
export function enabledCategories(policy: MemoryPolicy): Set<MemoryCategory> {
  if (policy.memory_types === null) return new Set(MEMORY_CATEGORIES);
  const out = new Set(policy.memory_types);
  if (out.has('experiences')) {
    out.add('cases');
    out.add('trajectories');
  } else {
    out.delete('cases');
    out.delete('trajectories');
  }
  return out;
}

/**
 * `events.tags`: strict `key=value` strings (one `=`, non-empty key without spaces, non-empty value),
 * trimmed, lowercased and deduplicated in first-seen order.
 */
export function normalizeEventTags(value: unknown, field = 'memory_extraction_config.events.tags'): string[] {
  if (!Array.isArray(value)) throw invalidArgument(`${field} must be an array of key=value strings, got ${typeName(value)}`, { field });
  if (value.length > 100) throw invalidArgument(`${field} has more than 100 tags`, { field, limit: 100 });
  const out: string[] = [];
  for (const raw of value) {
    if (typeof raw !== 'string') throw invalidArgument(`${field} must contain strings, got ${typeName(raw)}`, { field });
    const tag = raw.trim().toLowerCase();
    const eq = tag.indexOf('=');
    const key = tag.slice(0, eq).trim();
    const val = tag.slice(eq + 1).trim();
    if (eq <= 0 || tag.indexOf('=', eq + 1) >= 0 || key === '' || val === '' || /\s/.test(key) || tag.length > 256)
      throw invalidArgument(`${field}: ${JSON.stringify(raw).slice(0, 80)} is not a key=value tag`, { field });
    const norm = `${key}=${val}`;
    if (!out.includes(norm)) out.push(norm);
  }
  return out;
}

/** `memory_extraction_config` (create and PATCH): only `events.tags` is known. `undefined` tags keep the current ones. */
export function parseExtractionConfig(value: unknown, field = 'memory_extraction_config'): { tags?: string[] } {
  if (!isObject(value)) throw invalidArgument(`${field} must be an object, got ${typeName(value)}`, { field });
  const out: { tags?: string[] } = {};
  for (const [key, v] of Object.entries(value)) {
    if (key !== 'events') throw invalidArgument(`unknown ${field} key ${JSON.stringify(key)} (known: events)`, { field: `${field}.${key}` });
    if (v === null) continue;
    if (!isObject(v)) throw invalidArgument(`${field}.events must be an object, got ${typeName(v)}`, { field: `${field}.events` });
    for (const [k2, v2] of Object.entries(v)) {
      if (k2 !== 'tags') throw invalidArgument(`unknown ${field}.events key ${JSON.stringify(k2)} (known: tags)`, { field: `${field}.events.${k2}` });
      if (v2 !== null && v2 !== undefined) out.tags = normalizeEventTags(v2, `${field}.events.tags`);
    }
  }
  return out;
}
