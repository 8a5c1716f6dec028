/**
 * Context assembly (spec Part 3 "Sessions", `GET .../context`). Active messages — those of
 * incomplete archives after the latest completed one, then the live ones — are always returned.
 * What is left of `token_budget` after them goes to the latest completed archive's overview first,
 * then to older archives' abstracts, newest first (so the oldest are dropped first). Only archive
 * text actually returned counts toward `archiveTokens`.
 */
import type { SessionStore } from './store.js';
import { messageTokens } from './tokens.js';
import type { Message, SessionMeta } from './types.js';

export interface AssembledContext {
  latest_archive_overview: string;
  pre_archive_abstracts: Array<{ archive_id: string; abstract: string }>;
  messages: Message[];
  estimatedTokens: number;
  stats: { totalArchives: number; includedArchives: number; droppedArchives: number; failedArchives: number; activeTokens: number; archiveTokens: number };
}

export async function assembleContext(store: SessionStore, account: string, dir: string, meta: SessionMeta, budget: number): Promise<AssembledContext> {
  const archives = await store.archives(account, dir);
  const completed = archives.filter((a) => a.done);
  const latest = completed.at(-1);
  // Archived but not yet summarized (phase 2 pending, running or failed): still active content.
  const pending = archives.filter((a) => !a.done && (!latest || a.n > latest.n));
  const failed = archives.filter((a) => !a.done && latest && a.n < latest.n).length;
  const messages: Message[] = [];
  let activeTokens = 0;
  for (const a of pending) {
    const ms = await store.archiveMessages(account, dir, a.name);
    for (const m of ms) activeTokens += messageTokens(m);
    messages.push(...ms);
  }
  messages.push(...(await store.live(account, dir)));
  activeTokens += meta.pending_tokens;

  let left = Math.max(0, budget - activeTokens);
  let archiveTokens = 0;
  let overview = '';
  const abstracts: Array<{ archive_id: string; abstract: string }> = [];
  let included = 0;
  if (latest && budget > 0) {
    const older = completed.slice(0, -1).reverse();
    const texts = await store.archiveTexts(account, dir, [latest.name, ...older.map((a) => a.name)]);
    if (latest.done!.overview_tokens <= left) {
      overview = texts[0]!.overview;
      left -= latest.done!.overview_tokens;
      archiveTokens += latest.done!.overview_tokens;
      included++;
    }
    for (let i = 0; i < older.length; i++) {
      const cost = older[i]!.done!.abstract_tokens;
      if (cost > left) break;
      abstracts.push({ archive_id: older[i]!.name, abstract: texts[i + 1]!.abstract });
      left -= cost;
      archiveTokens += cost;
      included++;
    }
    abstracts.reverse();
  }
  return {
    latest_archive_overview: overview,
    pre_archive_abstracts: abstracts,
    messages,
    estimatedTokens: activeTokens + archiveTokens,
    stats: {
      totalArchives: completed.length,
      includedArchives: included,
      droppedArchives: completed.length - included,
      failedArchives: failed,
      activeTokens,
      archiveTokens,
    },
  };
}
