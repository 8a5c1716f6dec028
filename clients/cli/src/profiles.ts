/**
 * Connection settings: flags, then CTX_URL / CTX_API_KEY, then the profile file
 * (~/.config/ctx/config.toml, or $CTX_CONFIG_FILE), then the dev default. The file:
 *
 *   current = "prod"
 *   [profiles.prod]
 *   url = "https://ctx.example.com"
 *   api_key = "..."
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const DEFAULT_URL = 'http://127.0.0.1:1933';
export const PROFILE_KEYS = ['url', 'api_key', 'peer'] as const;
export type ProfileKey = (typeof PROFILE_KEYS)[number];
export type Profile = Partial<Record<ProfileKey, string>>;

export interface ProfileFile {
  current?: string;
  profiles: Record<string, Profile>;
}

export function configPath(env = process.env): string {
  if (env.CTX_CONFIG_FILE) return env.CTX_CONFIG_FILE;
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'ctx', 'config.toml');
}

export async function readProfiles(file = configPath()): Promise<ProfileFile> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { profiles: {} };
  }
  const { parse } = await import('smol-toml');
  const raw = parse(text) as { current?: unknown; profiles?: Record<string, Record<string, unknown>> };
  const profiles: Record<string, Profile> = {};
  for (const [name, p] of Object.entries(raw.profiles ?? {})) {
    profiles[name] = {};
    for (const k of PROFILE_KEYS) if (typeof p?.[k] === 'string') profiles[name]![k] = p[k] as string;
  }
  return { current: typeof raw.current === 'string' ? raw.current : undefined, profiles };
}

export async function writeProfiles(data: ProfileFile, file = configPath()): Promise<void> {
  const { stringify } = await import('smol-toml');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const body: Record<string, unknown> = {};
  if (data.current) body.current = data.current;
  body.profiles = data.profiles;
  // The file holds API keys: readable by its owner only.
  fs.writeFileSync(file, stringify(body) + '\n', { mode: 0o600 });
}

export interface Connection {
  url: string;
  apiKey: string | undefined;
  peer: string | undefined;
  profile: string | undefined;
}

export async function resolveConnection(flags: { url?: string; apiKey?: string; profile?: string }, env = process.env): Promise<Connection> {
  const needFile = !(flags.url ?? env.CTX_URL) || !(flags.apiKey ?? env.CTX_API_KEY) || flags.profile || env.CTX_PROFILE;
  const file = needFile ? await readProfiles(configPath(env)) : { profiles: {} as Record<string, Profile> };
  const name = flags.profile ?? env.CTX_PROFILE ?? file.current;
  const p = (name && file.profiles[name]) || {};
  if ((flags.profile || env.CTX_PROFILE) && !file.profiles[name!]) {
    const { UsageError } = await import('./exit.js');
    throw new UsageError(`no profile "${name}" in ${configPath(env)} (ctx config set url URL --profile ${name})`);
  }
  return {
    url: flags.url ?? env.CTX_URL ?? p.url ?? DEFAULT_URL,
    apiKey: flags.apiKey ?? env.CTX_API_KEY ?? p.api_key,
    peer: p.peer,
    profile: name,
  };
}
