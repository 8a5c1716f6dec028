/**
 * Writes extracted memories into `ctx://user/{user}/memories/{category}/{key}.md` (or the peer's
 * `.../peers/{peer}/memories/...`), merging into the existing file: a statement already there
 * (compared case- and whitespace-insensitively) is not added again, and a profile fact replaces the
 * previous fact of the same key. Re-running a commit therefore changes nothing the second time,
 * which makes phase 2 safe to retry after a crash.
 */
import type { ScopedVfs } from 'ctx/plugin';
import type { MemoryItem } from './extract.js';

export interface MemoryChange {
  category: string;
  uri: string;
  action: 'created' | 'updated' | 'unchanged';
  added: string[];
  /** Distinct statements of this commit in the file, written now or already there (stable on a retry). */
  count: number;
}

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').replace(/[.!。]+$/u, '').trim();
const KEYED = /^- \*\*([\w-]+)\*\*: (.*)$/;

interface Doc {
  header: string[];
  lines: string[];
}

function parse(text: string): Doc {
  const all = text.split('\n');
  const first = all.findIndex((l) => l.startsWith('- '));
  if (first < 0) return { header: all.filter((l, i) => l !== '' || i < all.length - 1), lines: [] };
  return { header: all.slice(0, first), lines: all.slice(first).filter((l) => l.startsWith('- ')) };
}

function render(doc: Doc): string {
  const header = [...doc.header];
  while (header.length && header.at(-1) === '') header.pop();
  return `${header.join('\n')}\n\n${doc.lines.join('\n')}\n`;
}

/** Merges `items` (one file's worth) into the file's current text; returns the new text and what was added. */
export function mergeInto(existing: string | null, title: string, items: MemoryItem[]): { text: string; added: string[] } {
  const doc = existing ? parse(existing) : { header: [`# ${title}`], lines: [] };
  const added: string[] = [];
  for (const item of items) {
    const line = item.replaceKey ? `- **${item.replaceKey}**: ${item.text}` : `- ${item.text}`;
    if (item.replaceKey) {
      const at = doc.lines.findIndex((l) => KEYED.exec(l)?.[1] === item.replaceKey);
      if (at >= 0) {
        if (norm(doc.lines[at]!) === norm(line)) continue;
        doc.lines[at] = line;
        added.push(item.text);
        continue;
      }
    } else if (doc.lines.some((l) => norm(l.replace(KEYED, '- $2')) === norm(line))) continue;
    doc.lines.push(line);
    added.push(item.text);
  }
  return { text: render(doc), added };
}

export function memoryUri(userId: string, item: MemoryItem, peers: boolean): string {
  const base = item.peer_id && peers ? `ctx://user/${userId}/peers/${item.peer_id}/memories` : `ctx://user/${userId}/memories`;
  return `${base}/${item.category}/${item.key}.md`;
}

/** Groups items by file and merges each file once, through the owner's scoped view. */
export async function writeMemories(
  vfs: ScopedVfs,
  userId: string,
  items: MemoryItem[],
  target: { self: boolean; peer: boolean; eventTags?: string[] },
  signal?: AbortSignal,
): Promise<MemoryChange[]> {
  const files = new Map<string, MemoryItem[]>();
  for (const item of items) {
    if (item.peer_id ? !target.peer : !target.self) continue;
    const uri = memoryUri(userId, item, target.peer);
    files.set(uri, [...(files.get(uri) ?? []), item]);
  }
  const changes: MemoryChange[] = [];
  for (const [uri, group] of files) {
    signal?.throwIfAborted();
    const current = (await vfs.exists(uri)) ? await vfs.readText(uri) : null;
    const title = `${group[0]!.category}: ${group[0]!.key.replace(/-/g, ' ')}`;
    const { text, added } = mergeInto(current, title, group);
    // The session's `events.tags` label its event memories (added to tags the file already has).
    const tags = group[0]!.category === 'events' && target.eventTags?.length ? { tags: target.eventTags, tagMode: 'append' as const } : {};
    if (added.length) await vfs.writeFile(uri, text, tags);
    const count = new Set(group.map((i) => (i.replaceKey ? `${i.replaceKey}:` : '') + norm(i.text))).size;
    changes.push({ category: group[0]!.category, uri, action: added.length === 0 ? 'unchanged' : current === null ? 'created' : 'updated', added, count });
  }
  return changes;
}
