/**
 * Skills in the caller's space, `ctx://user/{user}/skills/{name}/`: SKILL.md (L2) and auxiliary
 * files, written through the caller-scoped VFS. The indexer writes `.abstract.md` (L0) and
 * `.overview.md` (L1) from them; nothing here writes a sidecar.
 */
import { SIDECARS, notFound, type ScopedEntry, type ScopedVfs } from 'ctx/plugin';
import { summaryOf, type Skill } from './parse.js';
import type { ZipFile } from 'ctx/plugin';

export const skillsRoot = (userId: string) => `ctx://user/${userId}/skills`;
export const skillUri = (userId: string, name: string) => `${skillsRoot(userId)}/${name}`;

/**
 * The skill directory inside a zip: its root when SKILL.md is there, else the one top-level folder
 * holding SKILL.md (what zipping a folder produces). Sidecars and macOS metadata are left out: the
 * indexer owns the former, the latter is noise.
 */
export function skillDirFiles(files: ZipFile[]): { skillMd: ZipFile; auxiliary: ZipFile[]; skipped: string[] } | null {
  const kept = files.filter((f) => !f.name.startsWith('__MACOSX/') && !f.name.split('/').includes('.DS_Store'));
  let prefix = '';
  if (!kept.some((f) => f.name === 'SKILL.md')) {
    const tops = new Set(kept.map((f) => f.name.split('/')[0]));
    const top = [...tops][0];
    if (tops.size !== 1 || !kept.some((f) => f.name === `${top}/SKILL.md`)) return null;
    prefix = `${top}/`;
  }
  const skipped: string[] = [];
  const auxiliary: ZipFile[] = [];
  let skillMd: ZipFile | undefined;
  for (const f of kept) {
    const name = f.name.slice(prefix.length);
    if (name === 'SKILL.md') skillMd = { name, data: f.data };
    else if (SIDECARS.has(name.slice(name.lastIndexOf('/') + 1))) skipped.push(name);
    else auxiliary.push({ name, data: f.data });
  }
  return { skillMd: skillMd!, auxiliary, skipped };
}

/**
 * Writes the skill in one atomic batch, then removes files of an earlier skill of the same name
 * that the new one no longer has (a crash between the two leaves the complete new skill plus stale
 * extras, never a partial one).
 */
export async function writeSkill(vfs: ScopedVfs, userId: string, skill: Skill, auxiliary: ZipFile[]): Promise<{ uri: string }> {
  const uri = skillUri(userId, skill.name);
  const previous = (await vfs.stat(uri)) ? await filesBelow(vfs, uri) : [];
  const files = [{ uri: `${uri}/SKILL.md`, data: Buffer.from(skill.skillMd) }, ...auxiliary.map((f) => ({ uri: `${uri}/${f.name}`, data: f.data }))];
  await vfs.writeFiles(uri, files);
  const now = new Set(files.map((f) => f.uri));
  for (const old of previous) if (!now.has(old.uri) && !isSidecar(old)) await vfs.rm(old.uri);
  return { uri };
}

const isSidecar = (e: ScopedEntry) => SIDECARS.has(e.name);

async function filesBelow(vfs: ScopedVfs, uri: string): Promise<ScopedEntry[]> {
  const out: ScopedEntry[] = [];
  for await (const e of vfs.walk(uri)) if (e.kind === 'file') out.push(e);
  return out;
}

export interface SkillSummary {
  type: 'skill';
  name: string;
  uri: string;
  root_uri: string;
  skill_md_uri: string;
  description: string;
  tags: string[];
  allowed_tools: string[];
}

async function summary(vfs: ScopedVfs, uri: string, name: string): Promise<SkillSummary | null> {
  const md = await vfs.stat(`${uri}/SKILL.md`);
  // A folder without SKILL.md (written by hand through fs) is not a skill.
  if (!md || md.kind !== 'file') return null;
  return { type: 'skill', name, uri, root_uri: uri, skill_md_uri: `${uri}/SKILL.md`, ...summaryOf(await vfs.readText(`${uri}/SKILL.md`)) };
}

export async function listSkills(vfs: ScopedVfs, userId: string, limit: number): Promise<SkillSummary[]> {
  const root = skillsRoot(userId);
  if (!(await vfs.stat(root))) return [];
  const out: SkillSummary[] = [];
  for (const e of await vfs.list(root)) {
    if (out.length >= limit) break;
    if (e.kind !== 'dir') continue;
    const s = await summary(vfs, e.uri, e.name);
    if (s) out.push(s);
  }
  return out;
}

export async function getSkill(
  vfs: ScopedVfs,
  userId: string,
  name: string,
  opts: { content: boolean; files: boolean },
): Promise<SkillSummary & { abstract: string; overview: string; content?: string; files?: Array<{ path: string; uri: string; kind: string; size: number }> }> {
  const uri = skillUri(userId, name);
  const s = await summary(vfs, uri, name);
  if (!s) throw notFound(`no skill named ${JSON.stringify(name)}`, { resource: uri });
  const sidecar = async (file: string) => ((await vfs.stat(`${uri}/${file}`)) ? vfs.readText(`${uri}/${file}`) : '');
  const out: Awaited<ReturnType<typeof getSkill>> = { ...s, abstract: await sidecar('.abstract.md'), overview: await sidecar('.overview.md') };
  if (opts.content) out.content = await vfs.readText(`${uri}/SKILL.md`);
  if (opts.files) {
    out.files = [];
    for await (const e of vfs.walk(uri)) {
      const path = e.uri.slice(uri.length + 1);
      const kind = e.kind === 'dir' ? 'directory' : path === 'SKILL.md' ? 'definition' : isSidecar(e) ? 'summary' : 'auxiliary';
      out.files.push({ path, uri: e.uri, kind, size: e.kind === 'file' ? e.size : 0 });
    }
  }
  return out;
}

export async function deleteSkill(vfs: ScopedVfs, userId: string, name: string): Promise<{ name: string; uri: string; root_uri: string; deleted: number }> {
  const uri = skillUri(userId, name);
  const node = await vfs.stat(uri);
  if (!node || node.kind !== 'dir') throw notFound(`no skill named ${JSON.stringify(name)}`, { resource: uri });
  const { deleted } = await vfs.rm(uri, { recursive: true });
  return { name, uri, root_uri: uri, deleted };
}
