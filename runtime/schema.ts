/**
 * Declared request schemas. Routes declare `body` and `query` schemas; the runtime validates before
 * the handler runs and answers 400 INVALID_ARGUMENT naming the field (`details.field`).
 * Query values arrive as strings and are coerced (`'true'` → true, `'5'` → 5, repeated or
 * comma-separated keys → arrays); JSON bodies are not coerced: a wrong type is an error.
 */
import { CtxError } from './errors.js';

export type Mode = 'json' | 'query';

export abstract class Schema<T> {
  declare readonly _type: T;
  isOptional = false;
  defaultValue: unknown = undefined;
  description?: string;

  abstract check(value: unknown, field: string, mode: Mode): T;

  parse(value: unknown, field = 'body', mode: Mode = 'json'): T {
    if (value === undefined) {
      if (this.defaultValue !== undefined) return clone(this.defaultValue) as T;
      if (this.isOptional) return undefined as T;
      throw fieldError(field, `${field} is required`);
    }
    return this.check(value, field, mode);
  }

  optional(): Schema<T | undefined> {
    const copy = Object.assign(Object.create(Object.getPrototypeOf(this)), this) as Schema<T | undefined>;
    copy.isOptional = true;
    return copy;
  }

  default(value: T): Schema<T> {
    const copy = Object.assign(Object.create(Object.getPrototypeOf(this)), this) as Schema<T>;
    copy.defaultValue = value;
    copy.isOptional = true;
    return copy;
  }

  nullable(): Schema<T | null> {
    return new NullableSchema(this);
  }

  describe(text: string): this {
    this.description = text;
    return this;
  }
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

function clone(v: unknown): unknown {
  return typeof v === 'object' && v !== null ? structuredClone(v) : v;
}

export function fieldError(field: string, message: string, extra?: Record<string, unknown>): CtxError {
  return new CtxError('INVALID_ARGUMENT', message, { field, ...extra });
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

class NullableSchema<T> extends Schema<T | null> {
  constructor(private readonly inner: Schema<T>) {
    super();
    this.isOptional = inner.isOptional;
    this.defaultValue = inner.defaultValue;
  }
  check(value: unknown, field: string, mode: Mode): T | null {
    if (value === null || (mode === 'query' && value === 'null')) return null;
    return this.inner.check(value, field, mode);
  }
}

interface StringOpts {
  min?: number;
  max?: number;
  pattern?: RegExp;
  patternHint?: string;
}

class StringSchema extends Schema<string> {
  constructor(private readonly opts: StringOpts = {}) {
    super();
  }
  check(value: unknown, field: string): string {
    if (typeof value !== 'string') throw fieldError(field, `${field} must be a string, got ${typeName(value)}`);
    const { min, max, pattern } = this.opts;
    if (min !== undefined && value.length < min)
      throw fieldError(field, min === 1 ? `${field} must not be empty` : `${field} must be at least ${min} characters`);
    if (max !== undefined && value.length > max) throw fieldError(field, `${field} must be at most ${max} characters`);
    if (pattern && !pattern.test(value))
      throw fieldError(field, `${field} is not valid${this.opts.patternHint ? `: ${this.opts.patternHint}` : ''}`);
    return value;
  }
}

class EnumSchema<T extends string> extends Schema<T> {
  constructor(private readonly values: readonly T[]) {
    super();
  }
  check(value: unknown, field: string): T {
    if (typeof value !== 'string' || !(this.values as readonly string[]).includes(value))
      throw fieldError(field, `${field} must be one of ${this.values.join(', ')}; got ${JSON.stringify(value)}`, {
        allowed: this.values,
      });
    return value as T;
  }
}

interface NumberOpts {
  min?: number;
  max?: number;
  int?: boolean;
}

class NumberSchema extends Schema<number> {
  constructor(private readonly opts: NumberOpts = {}) {
    super();
  }
  check(value: unknown, field: string, mode: Mode): number {
    let n = value;
    if (mode === 'query' && typeof value === 'string' && value.trim() !== '') n = Number(value);
    const kind = this.opts.int ? 'an integer' : 'a number';
    if (typeof n !== 'number' || !Number.isFinite(n)) throw fieldError(field, `${field} must be ${kind}, got ${JSON.stringify(value)}`);
    if (this.opts.int && !Number.isInteger(n)) throw fieldError(field, `${field} must be an integer, got ${n}`);
    if (this.opts.min !== undefined && n < this.opts.min) throw fieldError(field, `${field} must be >= ${this.opts.min}, got ${n}`);
    if (this.opts.max !== undefined && n > this.opts.max) throw fieldError(field, `${field} must be <= ${this.opts.max}, got ${n}`);
    return n;
  }
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off', '']);

class BoolSchema extends Schema<boolean> {
  check(value: unknown, field: string, mode: Mode): boolean {
    if (typeof value === 'boolean') return value;
    if (mode === 'query' && typeof value === 'string') {
      const w = value.toLowerCase();
      if (TRUE_WORDS.has(w)) return true;
      if (FALSE_WORDS.has(w)) return false;
    }
    throw fieldError(field, `${field} must be a boolean, got ${JSON.stringify(value)}`);
  }
}

class ArraySchema<T> extends Schema<T[]> {
  constructor(private readonly item: Schema<T>, private readonly opts: { max?: number; min?: number } = {}) {
    super();
  }
  check(value: unknown, field: string, mode: Mode): T[] {
    let arr = value;
    if (mode === 'query' && typeof value === 'string') arr = value === '' ? [] : value.split(',');
    if (!Array.isArray(arr)) throw fieldError(field, `${field} must be an array, got ${typeName(value)}`);
    if (this.opts.max !== undefined && arr.length > this.opts.max)
      throw fieldError(field, `${field} has ${arr.length} items; at most ${this.opts.max} are allowed`, { limit: this.opts.max });
    if (this.opts.min !== undefined && arr.length < this.opts.min)
      throw fieldError(field, `${field} needs at least ${this.opts.min} item(s)`);
    return arr.map((v, i) => this.item.parse(v, `${field}[${i}]`, mode));
  }
}

type Shape = Record<string, Schema<unknown>>;
type ObjectOf<S extends Shape> = { [K in keyof S]: Infer<S[K]> };

export type UnknownFields = 'reject' | 'strip' | 'allow';

export class ObjectSchema<S extends Shape> extends Schema<ObjectOf<S>> {
  constructor(readonly shape: S, private readonly unknown: UnknownFields = 'reject') {
    super();
  }
  check(value: unknown, field: string, mode: Mode): ObjectOf<S> {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw fieldError(field, `${field} must be an object, got ${typeName(value)}`);
    const input = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    const prefix = field === 'body' || field === 'query' ? '' : `${field}.`;
    for (const key of Object.keys(this.shape)) {
      const v = this.shape[key]!.parse(input[key], prefix + key, mode);
      if (v !== undefined) out[key] = v;
    }
    for (const key of Object.keys(input)) {
      if (key in this.shape) continue;
      if (this.unknown === 'reject') throw fieldError(prefix + key, `unknown field ${prefix + key}`, { allowed: Object.keys(this.shape) });
      if (this.unknown === 'allow') out[key] = input[key];
    }
    return out as ObjectOf<S>;
  }
}

class RecordSchema<T> extends Schema<Record<string, T>> {
  constructor(private readonly value: Schema<T>) {
    super();
  }
  check(value: unknown, field: string, mode: Mode): Record<string, T> {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw fieldError(field, `${field} must be an object, got ${typeName(value)}`);
    const out: Record<string, T> = {};
    for (const [k, v] of Object.entries(value)) out[k] = this.value.parse(v, `${field}.${k}`, mode);
    return out;
  }
}

class UnionSchema<T> extends Schema<T> {
  constructor(private readonly options: Schema<unknown>[], private readonly hint: string) {
    super();
  }
  check(value: unknown, field: string, mode: Mode): T {
    for (const o of this.options) {
      try {
        return o.check(value, field, mode) as T;
      } catch {
        // try the next alternative
      }
    }
    throw fieldError(field, `${field} must be ${this.hint}, got ${typeName(value)}`);
  }
}

class AnySchema extends Schema<unknown> {
  check(value: unknown): unknown {
    return value;
  }
}

class CustomSchema<T> extends Schema<T> {
  constructor(private readonly fn: (value: unknown, field: string, mode: Mode) => T) {
    super();
  }
  check(value: unknown, field: string, mode: Mode): T {
    return this.fn(value, field, mode);
  }
}

export const s = {
  string: (opts?: StringOpts) => new StringSchema(opts),
  enum: <const T extends string>(values: readonly T[]) => new EnumSchema<T>(values),
  number: (opts?: Omit<NumberOpts, 'int'>) => new NumberSchema(opts),
  int: (opts?: Omit<NumberOpts, 'int'>) => new NumberSchema({ ...opts, int: true }),
  bool: () => new BoolSchema(),
  array: <T>(item: Schema<T>, opts?: { max?: number; min?: number }) => new ArraySchema(item, opts),
  object: <S extends Shape>(shape: S, opts?: { unknown?: UnknownFields }) => new ObjectSchema(shape, opts?.unknown ?? 'reject'),
  record: <T>(value: Schema<T>) => new RecordSchema(value),
  union: <T>(options: Schema<unknown>[], hint: string) => new UnionSchema<T>(options, hint),
  any: () => new AnySchema(),
  custom: <T>(fn: (value: unknown, field: string, mode: Mode) => T) => new CustomSchema<T>(fn),
  /** `telemetry`: boolean or `{summary: boolean}`, accepted by most endpoints. */
  telemetry: () =>
    new UnionSchema<boolean | { summary?: boolean }>(
      [new BoolSchema(), new ObjectSchema({ summary: new BoolSchema().optional() }, 'allow')],
      'a boolean or an object like {summary: true}',
    ).optional(),
};

/**
 * Removes the query parameters `schema` does not declare and returns their names (undefined when
 * there are none). Unknown query parameters are ignored, not rejected: proxies, SDKs and browsers
 * add their own (cache busters, tracing), and every HTTP framework the reference product's clients
 * were written against ignores them. Unknown *body* fields stay rejected where the schema says so.
 */
export function dropUnknownQueryParams(schema: Schema<unknown>, raw: Record<string, unknown>): string[] | undefined {
  if (!(schema instanceof ObjectSchema)) return undefined;
  const shape = schema.shape as Shape;
  let dropped: string[] | undefined;
  for (const key in raw) {
    if (Object.hasOwn(shape, key)) continue;
    (dropped ??= []).push(key);
    delete raw[key];
  }
  return dropped;
}

/** Turns a raw query string into a map; repeated keys become arrays. */
export function parseQueryString(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!query) return out;
  if (needsDecoding(query)) {
    for (const [k, v] of new URLSearchParams(query)) addQueryPair(out, k, v);
    return out;
  }
  // Nothing to decode (no '%', no '+', printable ASCII): split as URLSearchParams would, without
  // its entries and iterator (every authenticated GET parses its query). Like it, one leading '?' is dropped.
  for (let start = query.charCodeAt(0) === 0x3f ? 1 : 0; start <= query.length; ) {
    let end = query.indexOf('&', start);
    if (end < 0) end = query.length;
    if (end > start) {
      const eq = query.indexOf('=', start);
      if (eq < 0 || eq > end) addQueryPair(out, query.slice(start, end), '');
      else addQueryPair(out, query.slice(start, eq), query.slice(eq + 1, end));
    }
    start = end + 1;
  }
  return out;
}

/** Whether URLSearchParams would change any character of the query (percent-escapes, '+', non-ASCII). */
function needsDecoding(query: string): boolean {
  for (let i = 0; i < query.length; i++) {
    const c = query.charCodeAt(i);
    if (c === 0x25 || c === 0x2b || c < 0x20 || c > 0x7e) return true;
  }
  return false;
}

function addQueryPair(out: Record<string, string | string[]>, k: string, v: string): void {
  const key = k.endsWith('[]') ? k.slice(0, -2) : k;
  const prev = out[key];
  if (prev === undefined) out[key] = k.endsWith('[]') ? [v] : v;
  else out[key] = Array.isArray(prev) ? [...prev, v] : [prev, v];
}
