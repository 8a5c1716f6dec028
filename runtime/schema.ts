/**
 * Declared request and response schemas. Routes declare `body`, `query` and `response` schemas;
 * the runtime validates requests before the handler runs and answers 400 INVALID_ARGUMENT naming
 * the field (`details.field`). Query values arrive as strings and are coerced (`'true'` → true,
 * `'5'` → 5, repeated or comma-separated keys → arrays); JSON bodies are not coerced: a wrong type
 * is an error.
 *
 * Every schema is also a TypeBox (JSON Schema) type (`toJsonSchema()`), which the OpenAPI document
 * is made of. Valid input is accepted by TypeBox's validator, compiled once per schema; the
 * hand-written walker below (`check`) runs only when that validator refuses the input (to coerce
 * a query string or to name the offending field with the message clients already see) and for
 * schemas the compiled validator cannot decide (custom checks, query strings with nullable or
 * union fields, regular expressions with flags).
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { CtxError } from './errors.js';

export type Mode = 'json' | 'query';

/** A compiled TypeBox check, or `null` when the compiled validator cannot decide for this schema and mode. */
export type Compiled = TypeCheck<TSchema> | null;

export abstract class Schema<T> {
  declare readonly _type: T;
  isOptional = false;
  defaultValue: unknown = undefined;
  description?: string;
  /** JSON Schema keywords for the OpenAPI document only (see `annotate`). */
  docKeywords?: Record<string, unknown>;
  private compiledJson: Compiled | undefined = undefined;
  private compiledQuery: Compiled | undefined = undefined;

  abstract check(value: unknown, field: string, mode: Mode): T;

  /** The JSON Schema of the value itself, without `default`/`description` (those are added by `toJsonSchema`). */
  protected abstract baseJson(): TSchema;

  /**
   * Whether input the compiled validator accepts is already what `check` would return, once
   * `finish` has run. Query mode is stricter: a value `check` would coerce must not pass as is.
   */
  abstract compilable(mode: Mode): boolean;

  /** True when an accepted value still needs defaults filled in or unknown fields stripped. */
  needsFinish(): boolean {
    return false;
  }

  /** Fills in defaults and strips unknown fields in place (input the compiled validator accepted). */
  finish(value: unknown): unknown {
    return value;
  }

  /** This schema as JSON Schema (a TypeBox type: JSON-serializable, symbols aside). */
  toJsonSchema(): TSchema {
    const base = this.baseJson();
    if (this.defaultValue === undefined && this.description === undefined && this.docKeywords === undefined) return base;
    const out: TSchema = { ...base, ...this.docKeywords };
    if (this.defaultValue !== undefined) out.default = this.defaultValue;
    if (this.description !== undefined) out.description = this.description;
    return out;
  }

  parse(value: unknown, field = 'body', mode: Mode = 'json'): T {
    if (value === undefined) {
      if (this.defaultValue !== undefined) return clone(this.defaultValue) as T;
      if (this.isOptional) return undefined as T;
      throw fieldError(field, `${field} is required`);
    }
    const compiled = mode === 'json' ? (this.compiledJson ??= this.compile('json')) : (this.compiledQuery ??= this.compile('query'));
    if (compiled !== null && compiled.Check(value)) return this.finish(value) as T;
    return this.check(value, field, mode);
  }

  private compile(mode: Mode): Compiled {
    return this.compilable(mode) ? TypeCompiler.Compile(this.toJsonSchema()) : null;
  }

  /** A copy with its own compiled validators (they depend on what the copy changes). */
  protected copy<U>(): Schema<U> {
    const copy = Object.assign(Object.create(Object.getPrototypeOf(this)), this) as Schema<U>;
    copy.compiledJson = undefined;
    copy.compiledQuery = undefined;
    return copy;
  }

  optional(): Schema<T | undefined> {
    const copy = this.copy<T | undefined>();
    copy.isOptional = true;
    return copy;
  }

  default(value: T): Schema<T> {
    const copy = this.copy<T>();
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

  /**
   * Adds JSON Schema keywords that state, in the OpenAPI document, a rule the handler enforces
   * itself with a more specific answer (a URI's shape → INVALID_URI, one of two fields required).
   * Behaviour never changes: the compiled validator sees them too, but input it refuses only takes
   * the hand-written path (`check`), which ignores them.
   */
  annotate(keywords: Record<string, unknown>): this {
    this.docKeywords = { ...this.docKeywords, ...keywords };
    this.compiledJson = this.compiledQuery = undefined;
    return this;
  }
}

/** A user, peer, agent or session id (runtime/uri/ids.ts; reserved words aside). */
const ID = '[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}';
const SEGMENT = String.raw`/[^/\\\u0000-\u001f\u007f-\u009f]{1,255}`;
/**
 * The shape of a public `ctx://` URI for the OpenAPI document (runtime/uri parses the real thing):
 * a scope; under user, agent and session an id first; under `~` a user space; then segments
 * without control characters or backslashes. `.`/`..` segments match (they are refused as denied
 * access, 403, not as malformed).
 */
export const URI_PATTERN =
  `^ctx://(resources(${SEGMENT}){0,32}|(user|agent|session)(/${ID}(${SEGMENT}){0,32})?|~(/(memories|resources|skills|sessions|peers)(${SEGMENT}){0,32})?)?/?$`;
/** URI_PATTERN without the account root `ctx://` (operations on a scope or on something in one). */
export const SCOPED_URI_PATTERN = URI_PATTERN.replace(/\)\?\/\?\$$/, ')/?$');
/**
 * URIs in spaces of the given kinds, at least `below` segments under the space root (1: a node
 * inside the space, where files live and what moves; 0: the space itself too). runtime/uri/paths.ts
 * `spaceRootDepth` is the rule this states.
 */
export function spaceUriPattern(kinds: ReadonlyArray<'memories' | 'resources' | 'skills' | 'sessions'>, below: 0 | 1): string {
  const any = kinds.join('|');
  const peer = kinds.filter((k) => k === 'memories' || k === 'resources').join('|');
  const agent = kinds.filter((k) => k !== 'sessions').join('|');
  const roots = [
    ...(kinds.includes('resources') ? ['resources'] : []),
    `~/(${any})`,
    `user/${ID}/(${any})`,
    ...(peer ? [`~/peers/${ID}/(${peer})`, `user/${ID}/peers/${ID}/(${peer})`] : []),
    ...(agent ? [`agent/${ID}/(${agent})`] : []),
  ];
  return `^ctx://(${roots.join('|')})(${SEGMENT}){${below},32}/?$`;
}
/** A node below a resources, memories, skills or sessions space. */
export const NODE_URI_PATTERN = spaceUriPattern(['memories', 'resources', 'skills', 'sessions'], 1);
/** An entry inside the account's shared `ctx://resources` (per-entry read access). */
export const SHARED_RESOURCE_URI_PATTERN = `^ctx://resources(${SEGMENT}){1,32}/?$`;
/** A `k=v` tag (runtime/tags.ts). */
export const TAG_PATTERN = '^[^=]{1,511}=';

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

export class NullableSchema<T> extends Schema<T | null> {
  constructor(private readonly inner: Schema<T>) {
    super();
    this.isOptional = inner.isOptional;
    this.defaultValue = inner.defaultValue;
  }
  check(value: unknown, field: string, mode: Mode): T | null {
    if (value === null || (mode === 'query' && value === 'null')) return null;
    return this.inner.check(value, field, mode);
  }
  protected baseJson(): TSchema {
    return Type.Union([this.inner.toJsonSchema(), Type.Null()]);
  }
  // In a query string 'null' is null; the compiled validator would take it for the string 'null'.
  compilable(mode: Mode): boolean {
    return mode === 'json' && this.inner.compilable(mode);
  }
  override needsFinish(): boolean {
    return this.inner.needsFinish();
  }
  override finish(value: unknown): unknown {
    return value === null ? null : this.inner.finish(value);
  }
}

export interface StringOpts {
  min?: number;
  max?: number;
  pattern?: RegExp;
  patternHint?: string;
}

export class StringSchema extends Schema<string> {
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
  protected baseJson(): TSchema {
    const { min, max, pattern } = this.opts;
    return Type.String({ ...(min !== undefined ? { minLength: min } : {}), ...(max !== undefined ? { maxLength: max } : {}), ...(pattern ? { pattern: pattern.source } : {}) });
  }
  // JSON Schema patterns carry no flags: a flagged RegExp is checked by `check` alone.
  compilable(): boolean {
    return !this.opts.pattern || this.opts.pattern.flags === '';
  }
}

export class EnumSchema<T extends string> extends Schema<T> {
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
  protected baseJson(): TSchema {
    return Type.Union(this.values.map((v) => Type.Literal(v)));
  }
  compilable(): boolean {
    return this.values.length > 0;
  }
}

export interface NumberOpts {
  min?: number;
  max?: number;
  int?: boolean;
}

export class NumberSchema extends Schema<number> {
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
  protected baseJson(): TSchema {
    const { min, max } = this.opts;
    const bounds = { ...(min !== undefined ? { minimum: min } : {}), ...(max !== undefined ? { maximum: max } : {}) };
    return this.opts.int ? Type.Integer(bounds) : Type.Number(bounds);
  }
  compilable(): boolean {
    return true;
  }
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off', '']);

export class BoolSchema extends Schema<boolean> {
  check(value: unknown, field: string, mode: Mode): boolean {
    if (typeof value === 'boolean') return value;
    if (mode === 'query' && typeof value === 'string') {
      const w = value.toLowerCase();
      if (TRUE_WORDS.has(w)) return true;
      if (FALSE_WORDS.has(w)) return false;
    }
    throw fieldError(field, `${field} must be a boolean, got ${JSON.stringify(value)}`);
  }
  protected baseJson(): TSchema {
    return Type.Boolean();
  }
  compilable(): boolean {
    return true;
  }
}

export class ArraySchema<T> extends Schema<T[]> {
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
  protected baseJson(): TSchema {
    const { min, max } = this.opts;
    return Type.Array(this.item.toJsonSchema(), { ...(min !== undefined ? { minItems: min } : {}), ...(max !== undefined ? { maxItems: max } : {}) });
  }
  compilable(mode: Mode): boolean {
    return this.item.compilable(mode);
  }
  override needsFinish(): boolean {
    return this.item.needsFinish();
  }
  override finish(value: unknown): unknown {
    const arr = value as unknown[];
    if (this.item.needsFinish()) for (let i = 0; i < arr.length; i++) arr[i] = this.item.finish(arr[i]);
    return arr;
  }
}

export type Shape = Record<string, Schema<unknown>>;
export type ObjectOf<S extends Shape> = { [K in keyof S]: Infer<S[K]> };

export type UnknownFields = 'reject' | 'strip' | 'allow';

export class ObjectSchema<S extends Shape> extends Schema<ObjectOf<S>> {
  /** Fields with a default (filled in by `finish`) and fields whose values need finishing themselves. */
  private readonly defaulted: string[];
  private readonly nested: string[];

  constructor(readonly shape: S, private readonly unknown: UnknownFields = 'reject') {
    super();
    const keys = Object.keys(shape);
    this.defaulted = keys.filter((k) => shape[k]!.defaultValue !== undefined);
    this.nested = keys.filter((k) => shape[k]!.needsFinish());
  }
  protected baseJson(): TSchema {
    const props: Record<string, TSchema> = {};
    for (const [key, schema] of Object.entries(this.shape)) props[key] = schema.isOptional ? Type.Optional(schema.toJsonSchema()) : schema.toJsonSchema();
    return Type.Object(props, this.unknown === 'reject' ? { additionalProperties: false } : {});
  }
  compilable(mode: Mode): boolean {
    return Object.values(this.shape).every((schema) => schema.compilable(mode));
  }
  override needsFinish(): boolean {
    return this.defaulted.length > 0 || this.nested.length > 0 || this.unknown === 'strip';
  }
  override finish(value: unknown): unknown {
    const obj = value as Record<string, unknown>;
    // Nested values first: a default filled in is used as given, as `parse` returns it.
    for (const key of this.nested) if (obj[key] !== undefined) obj[key] = this.shape[key]!.finish(obj[key]);
    for (const key of this.defaulted) if (obj[key] === undefined) obj[key] = clone(this.shape[key]!.defaultValue);
    if (this.unknown === 'strip') for (const key of Object.keys(obj)) if (!Object.hasOwn(this.shape, key)) delete obj[key];
    return obj;
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

export class RecordSchema<T> extends Schema<Record<string, T>> {
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
  protected baseJson(): TSchema {
    return Type.Record(Type.String(), this.value.toJsonSchema());
  }
  compilable(mode: Mode): boolean {
    return this.value.compilable(mode);
  }
  override needsFinish(): boolean {
    return this.value.needsFinish();
  }
  override finish(value: unknown): unknown {
    const obj = value as Record<string, unknown>;
    if (this.value.needsFinish()) for (const key of Object.keys(obj)) obj[key] = this.value.finish(obj[key]);
    return obj;
  }
}

export class UnionSchema<T> extends Schema<T> {
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
  protected baseJson(): TSchema {
    return Type.Union(this.options.map((o) => o.toJsonSchema()));
  }
  // Which alternative `check` picks is not known after a compiled check, so none may need finishing;
  // in a query string an earlier alternative may coerce what a later one accepts as is.
  compilable(mode: Mode): boolean {
    return mode === 'json' && this.options.every((o) => o.compilable(mode) && !o.needsFinish());
  }
}

export class AnySchema extends Schema<unknown> {
  check(value: unknown): unknown {
    return value;
  }
  protected baseJson(): TSchema {
    return Type.Any();
  }
  compilable(): boolean {
    return true;
  }
}

/**
 * A hand-written check. `doc` is what the OpenAPI document shows for it (any value when absent);
 * the compiled validator never runs for it, since only `fn` knows what it accepts and returns.
 */
export class CustomSchema<T> extends Schema<T> {
  constructor(private readonly fn: (value: unknown, field: string, mode: Mode) => T, private readonly doc?: Schema<unknown>) {
    super();
  }
  check(value: unknown, field: string, mode: Mode): T {
    return this.fn(value, field, mode);
  }
  protected baseJson(): TSchema {
    return this.doc ? this.doc.toJsonSchema() : Type.Unknown();
  }
  compilable(): boolean {
    return false;
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
  /** A `ctx://` URI field: a non-empty string, its shape documented (runtime/uri checks it: INVALID_URI). */
  uri: (opts?: { max?: number }) => new StringSchema({ min: 1, ...opts }).annotate({ pattern: URI_PATTERN }),
  /** A hand-written check; `doc` describes what it accepts in the OpenAPI document. */
  custom: <T>(fn: (value: unknown, field: string, mode: Mode) => T, doc?: Schema<unknown>) => new CustomSchema<T>(fn, doc),
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
