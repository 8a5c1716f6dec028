/**
 * Privacy configs plugin (spec Part 2, "Privacy configs"): versioned sensitive settings per
 * `category` and `target_key`, private to the user who sets them. README.md has the details.
 */
import { invalidArgument, notFound } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import { definePlugin } from 'ctx/plugin';
import { s } from 'ctx/plugin';
import { HOST_VERSION } from 'ctx/plugin';
import { PrivacyStore, sameJson, type Meta, type Owner, type Snapshot } from './store.js';
import { resultObject } from 'ctx/plugin';

/** Category and target key: one path segment, no separators, so they are also safe key parts. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,127}$/;
/** The path parameters as the OpenAPI document states them (checkName and the version parse enforce them). */
const nameParam = s.string({ min: 1, max: 128 }).annotate({ pattern: NAME.source });
const params = { category: nameParam, target_key: nameParam, version: s.int({ min: 1 }) };
export const LIMITS = { values: 1000, reasonChars: 4096, labels: 100 } as const;

function checkName(field: 'category' | 'target_key', value: string): string {
  if (!NAME.test(value))
    throw invalidArgument(`${field} must be 1-128 characters of letters, digits and _ . : @ + - (starting with a letter or digit), got ${JSON.stringify(value).slice(0, 140)}`, { field });
  return value;
}

function checkVersion(raw: string): number {
  const v = Number(raw);
  if (!/^[0-9]{1,10}$/.test(raw) || !Number.isSafeInteger(v) || v < 1) throw invalidArgument(`version must be a positive integer, got ${JSON.stringify(raw).slice(0, 40)}`, { field: 'version' });
  return v;
}

const ownerOf = (identity: Identity): Owner => ({ account: identity.accountId, user: identity.userId });
const now = () => new Date().toISOString();

// Spec Part 2 "Privacy config".
const snapshotSchema = resultObject({ version: s.int(), category: s.string(), target_key: s.string(), values: s.record(s.any()), created_at: s.string(), created_by: s.string(), change_reason: s.string() });
const metaSchema = resultObject({ category: s.string(), target_key: s.string(), active_version: s.int(), latest_version: s.int(), created_at: s.string(), updated_at: s.string(), updated_by: s.string(), last_accessed_at: s.string().nullable(), labels: s.record(s.any()).nullable() });
const setBody = s.object({
  values: s.custom<Record<string, unknown>>((v, field) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidArgument(`${field} must be an object, got ${v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v}`, { field });
    if (Object.keys(v).length > LIMITS.values) throw invalidArgument(`${field} has more than ${LIMITS.values} keys`, { field, limit: LIMITS.values });
    return v as Record<string, unknown>;
  }, s.record(s.any()).describe('key to value: the full replacement snapshot')),
  change_reason: s.string({ max: LIMITS.reasonChars }).default(''),
  labels: s
    .custom<Record<string, unknown>>((v, field) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidArgument(`${field} must be an object or null`, { field });
      if (Object.keys(v).length > LIMITS.labels) throw invalidArgument(`${field} has more than ${LIMITS.labels} keys`, { field, limit: LIMITS.labels });
      return v as Record<string, unknown>;
    }, s.record(s.any()))
    .nullable()
    .default(null),
});

export default definePlugin({
  name: 'privacy',
  version: HOST_VERSION,
  setup(host) {
    const store = new PrivacyStore(host.kv);
    // Account deletion drops the VFS; a re-created account must not inherit the old configs.
    host.on('account-deleted', ({ account }) => store.dropAccount(account));

    const target = (identity: Identity, params: Record<string, string>) => ({
      owner: ownerOf(identity),
      category: checkName('category', params.category!),
      key: checkName('target_key', params.target_key!),
    });
    const absent = (category: string, key: string) => notFound(`no privacy config ${category}/${key}`, { category, target_key: key });

    host.route({
      method: 'GET',
      path: '/api/v1/privacy-configs',
      summary: 'the caller\'s privacy-config categories',
      response: s.array(s.string()),
      handler: (ctx) => store.categories(ownerOf(ctx.identity)),
    });

    host.route({
      method: 'GET',
      path: '/api/v1/privacy-configs/{category}',
      params,
      summary: 'the target keys of a category',
      response: s.array(s.string()),
      errors: ['INVALID_ARGUMENT'],
      handler: (ctx) => store.targets(ownerOf(ctx.identity), checkName('category', ctx.params.category!)),
    });

    host.route({
      method: 'GET',
      path: '/api/v1/privacy-configs/{category}/{target_key}',
      params,
      summary: 'a config\'s meta and current snapshot',
      response: resultObject({ meta: metaSchema, current: snapshotSchema }),
      errors: ['INVALID_ARGUMENT', 'NOT_FOUND'],
      handler(ctx) {
        const { owner, category, key } = target(ctx.identity, ctx.params);
        return store.serialized(owner, category, key, async () => {
          const meta = await store.meta(owner, category, key);
          if (!meta) throw absent(category, key);
          const current = await store.version(owner, category, key, meta.active_version);
          if (!current) throw absent(category, key);
          const touched: Meta = { ...meta, last_accessed_at: now() };
          await store.putMeta(owner, touched);
          return { meta: touched, current };
        });
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/privacy-configs/{category}/{target_key}',
      params,
      summary: 'stores a new version (full replacement of values) and activates it',
      response: snapshotSchema,
      body: setBody,
      handler(ctx) {
        const { owner, category, key } = target(ctx.identity, ctx.params);
        const { values, change_reason, labels } = ctx.body;
        return store.serialized(owner, category, key, async (): Promise<Snapshot> => {
          const meta = await store.meta(owner, category, key);
          const at = now();
          if (meta) {
            const current = await store.version(owner, category, key, meta.active_version);
            // Identical values make no version; new labels still update the meta.
            if (current && sameJson(current.values, values)) {
              if (labels !== null && !sameJson(meta.labels, labels)) await store.putMeta(owner, { ...meta, labels, updated_at: at, updated_by: owner.user });
              return current;
            }
          }
          const version = (meta?.latest_version ?? 0) + 1;
          const snap: Snapshot = { version, category, target_key: key, values, created_at: at, created_by: owner.user, change_reason };
          const next: Meta = {
            category,
            target_key: key,
            active_version: version,
            latest_version: version,
            created_at: meta?.created_at ?? at,
            updated_at: at,
            updated_by: owner.user,
            last_accessed_at: meta?.last_accessed_at ?? null,
            labels: labels ?? meta?.labels ?? null,
          };
          await store.putVersion(owner, snap, next);
          return snap;
        });
      },
    });

    host.route({
      method: 'GET',
      path: '/api/v1/privacy-configs/{category}/{target_key}/versions',
      params,
      summary: 'the version numbers of a config',
      response: s.array(s.int()),
      errors: ['INVALID_ARGUMENT', 'NOT_FOUND'],
      async handler(ctx) {
        const { owner, category, key } = target(ctx.identity, ctx.params);
        const versions = await store.versions(owner, category, key);
        if (versions.length === 0) throw absent(category, key);
        return versions;
      },
    });

    host.route({
      method: 'GET',
      path: '/api/v1/privacy-configs/{category}/{target_key}/versions/{version}',
      params,
      summary: 'one version\'s snapshot',
      response: snapshotSchema,
      errors: ['INVALID_ARGUMENT', 'NOT_FOUND'],
      async handler(ctx) {
        const { owner, category, key } = target(ctx.identity, ctx.params);
        const version = checkVersion(ctx.params.version!);
        const snap = await store.version(owner, category, key, version);
        if (!snap) throw notFound(`privacy config ${category}/${key} has no version ${version}`, { category, target_key: key, version });
        return snap;
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/privacy-configs/{category}/{target_key}/activate',
      params,
      summary: 'makes an earlier version the active one',
      response: snapshotSchema,
      errors: ['NOT_FOUND'],
      body: s.object({ version: s.int({ min: 1 }) }),
      handler(ctx) {
        const { owner, category, key } = target(ctx.identity, ctx.params);
        const version = ctx.body.version;
        return store.serialized(owner, category, key, async () => {
          const meta = await store.meta(owner, category, key);
          if (!meta) throw absent(category, key);
          const snap = await store.version(owner, category, key, version);
          if (!snap) throw notFound(`privacy config ${category}/${key} has no version ${version}`, { category, target_key: key, version });
          // Only the stored pointer moves: no new version, nothing outside this store is touched.
          if (meta.active_version !== version) await store.putMeta(owner, { ...meta, active_version: version, updated_at: now(), updated_by: owner.user });
          return snap;
        });
      },
    });
  },
});
