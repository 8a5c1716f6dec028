/** config set|use|show: profiles in ~/.config/ctx/config.toml. */
import type { Handler } from '../context.js';
import { UsageError } from '../exit.js';
import { kv } from '../output.js';
import { configPath, PROFILE_KEYS, readProfiles, writeProfiles, type ProfileKey } from '../profiles.js';

export const set: Handler = async (cx, [key, value], o) => {
  const k = (key as string).replace(/-/g, '_');
  if (!PROFILE_KEYS.includes(k as ProfileKey)) throw new UsageError(`unknown key ${key}: one of ${PROFILE_KEYS.join(', ')}`);
  const data = await readProfiles();
  const name = (o.profile as string | undefined) ?? data.current ?? 'default';
  data.profiles[name] = { ...data.profiles[name], [k]: value as string };
  data.current ??= name;
  await writeProfiles(data);
  cx.out.emit({ profile: name, key: k, file: configPath() }, () => `set ${k} in profile ${name} (${configPath()})`);
};

export const use: Handler = async (cx, [name]) => {
  const data = await readProfiles();
  if (!data.profiles[name as string]) throw new UsageError(`no profile "${name}" in ${configPath()}; known: ${Object.keys(data.profiles).join(', ') || 'none'}`);
  data.current = name as string;
  await writeProfiles(data);
  cx.out.emit({ current: name }, () => `now using profile ${name}`);
};

export const show: Handler = async (cx) => {
  const conn = await cx.connection();
  const data = await readProfiles();
  const mask = (k?: string) => (k ? `${k.slice(0, 4)}…(${k.length} chars)` : undefined);
  const profiles = Object.fromEntries(Object.entries(data.profiles).map(([n, p]) => [n, { ...p, api_key: mask(p.api_key) }]));
  cx.out.emit({ file: configPath(), current: data.current, url: conn.url, api_key: mask(conn.apiKey), profile: conn.profile, profiles }, () =>
    kv(cx.out, { file: configPath(), profile: conn.profile ?? '(none)', url: conn.url, api_key: mask(conn.apiKey) ?? '(none: dev mode)', profiles: Object.keys(profiles).join(', ') || '(none)' }),
  );
};
