/**
 * The reference product's filter forms, translated into ctx's filter language (docs/retrieval.md,
 * "Filter language") so clients written for it work unchanged:
 *   - the simple form: single-field equalities such as `{"type": "resource"}` (`type` is the
 *     reference's name for `context_type`);
 *   - its operator tree: `{op: "must"|"must_not", field, conds: [...]}`, `{op: "and"|"or", conds}`,
 *     `{op: "time_range", field, gte?, gt?, lte?, lt?}`.
 * Anything else is left as it is, so the compiler's own errors name what is wrong.
 */
import { invalidArgument } from 'ctx/plugin';

const FIELD_ALIASES: Record<string, string> = { type: 'context_type' };
const CONTEXT_TYPES = ['memory', 'resource', 'skill'];

const bad = (path: string, msg: string) => invalidArgument(`invalid filter at ${path}: ${msg}`, { field: 'filter', at: path });

function conds(node: Record<string, unknown>, path: string): unknown[] {
  const c = node.conds;
  if (!Array.isArray(c) || c.length === 0) throw bad(`${path}.conds`, 'expected a non-empty array');
  return c;
}

function fieldName(node: Record<string, unknown>, path: string): string {
  if (typeof node.field !== 'string' || node.field === '') throw bad(`${path}.field`, 'expected a field name');
  return FIELD_ALIASES[node.field] ?? node.field;
}

/** `must`: the field takes one of the values; `must_not`: none of them. */
function must(field: string, values: unknown[], negate: boolean, path: string): Record<string, unknown> {
  switch (field) {
    case 'context_type':
      return { context_type: { $in: negate ? CONTEXT_TYPES.filter((t) => !values.includes(t)) : values } };
    case 'level':
      return { level: { $in: negate ? [0, 1, 2].filter((l) => !values.includes(l)) : values } };
    case 'uri':
      return { uri: { [negate ? '$not_prefix' : '$prefix']: values } };
    case 'tags':
      if (negate) throw bad(path, 'must_not is not supported for tags');
      return values.length === 1 ? { tags: values[0] } : { $or: values.map((t) => ({ tags: t })) };
    default:
      if (negate) throw bad(path, `must_not is supported for context_type, level and uri; got ${JSON.stringify(field)}`);
      return values.length === 1 ? { [field]: values[0] } : { $or: values.map((v) => ({ [field]: v })) };
  }
}

function fromOperatorTree(node: Record<string, unknown>, path: string): Record<string, unknown> {
  switch (node.op) {
    case 'and':
      return { $and: conds(node, path).map((c, i) => normalizeFilter(c, `${path}.conds[${i}]`)) };
    case 'or':
      return { $or: conds(node, path).map((c, i) => normalizeFilter(c, `${path}.conds[${i}]`)) };
    case 'must':
    case 'must_not':
      return must(fieldName(node, path), conds(node, path), node.op === 'must_not', path);
    case 'time_range': {
      const ops: Record<string, unknown> = {};
      for (const k of ['gte', 'gt', 'lte', 'lt']) if (node[k] !== undefined && node[k] !== null) ops[`$${k}`] = node[k];
      if (!Object.keys(ops).length) throw bad(path, 'time_range needs gte, gt, lte or lt');
      return { [fieldName(node, path)]: ops };
    }
    default:
      throw bad(`${path}.op`, `unknown op ${JSON.stringify(node.op)}; ops: and, or, must, must_not, time_range`);
  }
}

/** The filter in ctx's own grammar: operator trees translated, field aliases renamed, recursively. */
export function normalizeFilter(filter: unknown, path = '$'): unknown {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) return filter;
  const node = filter as Record<string, unknown>;
  if (typeof node.op === 'string') return fromOperatorTree(node, path);
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(node)) {
    const renamed = FIELD_ALIASES[key];
    const sub = key === '$and' || key === '$or' ? (Array.isArray(value) ? value.map((v, i) => normalizeFilter(v, `${path}.${key}[${i}]`)) : value) : value;
    if (renamed === undefined && sub === value) continue;
    out ??= { ...node };
    if (renamed !== undefined) {
      if (renamed in node) throw bad(`${path}.${key}`, `${key} and ${renamed} name the same field; send one`);
      delete out[key];
      out[renamed] = value;
    } else out[key] = sub;
  }
  return out ?? node;
}
