/**
 * Directory entries and stat results as the spec shapes them (Part 2, "Directory entry", "Stat
 * result"). Exported through the `fs` service so other plugins format nodes the same way.
 */
import { splitHeader } from 'ctx/plugin';
import type { Entry } from 'ctx/plugin';
import { uriFromPath } from 'ctx/plugin';

export type ExtraField = 'locked' | 'id' | 'count';

export interface DirectoryEntry {
  name: string;
  size?: number;
  mode?: number;
  modTime?: string;
  isDir: boolean;
  uri: string;
  /** Tree entries and recursive listings: the path below the listed directory. */
  rel_path?: string;
  /** With `include_tags`: `{tags}`. */
  meta?: { tags: string[] };
  /** `output=agent`, directories: the L0 abstract, cut at `abs_limit` characters. */
  abstract?: string;
  isLocked?: boolean;
  id?: string;
  count?: number;
  /** Placeholders only. */
  access?: 'denied';
}

export interface EntryOptions {
  relPath?: string;
  includeTags?: boolean;
  abstract?: string;
  isLocked?: boolean;
  /** Files: the record id is shown (`extra_fields` id). */
  withId?: boolean;
  count?: number;
}

let isoMs = NaN;
let isoText = '';
/** `new Date(ms).toISOString()`; the last answer is kept (a stat of one file asked again and again, a directory of files written together). */
export function isoTime(ms: number): string {
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString();
    isoMs = ms;
  }
  return isoText;
}

/** A readable node as a directory entry. */
export function entry(node: Entry, opts: EntryOptions = {}): DirectoryEntry {
  const isDir = node.kind === 'dir';
  const out: DirectoryEntry = { name: node.name, size: node.size, mode: node.mode, modTime: isoTime(node.mtime), isDir, uri: uriFromPath(node.path) };
  if (opts.relPath !== undefined) out.rel_path = opts.relPath;
  if (opts.includeTags) out.meta = { tags: node.tags ?? [] };
  if (opts.abstract !== undefined) out.abstract = opts.abstract;
  if (opts.isLocked !== undefined) out.isLocked = opts.isLocked;
  if (opts.withId && !isDir && node.id) out.id = node.id;
  if (opts.count !== undefined && isDir) out.count = opts.count;
  return out;
}

/** An entry the caller may not read: name, kind and URI only (no size, time, abstract or metadata). */
export function placeholder(node: Pick<Entry, 'name' | 'kind' | 'path'>, relPath?: string): DirectoryEntry {
  const out: DirectoryEntry = { name: node.name, isDir: node.kind === 'dir', uri: uriFromPath(node.path), access: 'denied' };
  if (relPath !== undefined) out.rel_path = relPath;
  return out;
}

/** The body of an `.abstract.md` without its metadata header, cut at `limit` characters. */
export function abstractText(raw: Buffer | undefined, limit: number): string {
  if (!raw) return '';
  const body = splitHeader(raw.toString('utf8')).body.trim();
  if (body.length <= limit) return body;
  // Never split a surrogate pair.
  let cut = limit;
  const c = body.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff) cut--;
  return body.slice(0, cut) + '...';
}
