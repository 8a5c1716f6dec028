/**
 * Memory extraction and archive summaries, with and without an LLM.
 *
 * Without an LLM (deterministic, documented in README.md): only explicit first-person statements
 * in user messages become memories — preferences ("I prefer/like/love/enjoy/hate ...", "my
 * favo(u)rite X is Y"), profile facts ("my name is", "I am a/an", "I work at/for/as", "I live in",
 * "I'm from", "I am N years old") and dated facts (a sentence with an ISO date or a spelled-out
 * day and month). Questions are never memories. The archive summary is extractive.
 *
 * With an LLM: one JSON-mode call returns the summary and a `memories` array (an item may name a
 * peer who spoke in the conversation, whose memories it then goes to); each item is checked on its own, and a malformed one is recorded and skipped without aborting the rest. A call that
 * fails or answers no usable JSON falls back to the deterministic path, so a commit always
 * completes.
 */
import { parseJsonAnswer, type Llm } from 'ctx/plugin';
import { messageText } from './messages.js';
import type { MemoryCategory, Message, TokenUsage } from './types.js';

export interface MemoryItem {
  category: MemoryCategory;
  /** Names the memory file: items with the same category and key merge into one file. */
  key: string;
  text: string;
  /** Profile facts replace the previous fact of the same key instead of adding a line. */
  replaceKey?: string;
  peer_id?: string;
}

export interface Skipped {
  index: number;
  reason: string;
}

export interface Extraction {
  abstract: string;
  overview: string;
  memories: MemoryItem[];
  skipped: Skipped[];
  usage: TokenUsage;
  generator: 'llm' | 'deterministic';
  llm_error?: string;
}

const MONTHS = 'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec';
const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/;
const DAY_MONTH = new RegExp(`\\b(?:(\\d{1,2})(?:st|nd|rd|th)? (?:of )?(${MONTHS})|(${MONTHS}) (\\d{1,2})(?:st|nd|rd|th)?)(?:,? (\\d{4}))?\\b`, 'i');

const PREFERENCE = /\bI (?:really |strongly |very much |much |also |generally |usually |do |absolutely )?(prefer|like|love|enjoy|hate|dislike|don't like|do not like|can't stand|cannot stand)\s+(.{2,200})/i;
const FAVORITE = /\bmy (?:all-time )?favou?rite ([\p{L}\p{N} -]{2,40}?) (?:is|are) (.{1,120})/iu;
const PROFILE: Array<[RegExp, string]> = [
  [/\bmy name is ([\p{L}][\p{L}\p{N} .'-]{0,60})/iu, 'name'],
  [/\bI(?:'m| am) (\d{1,3}) years old\b/i, 'age'],
  [/\bI work (?:at|for) (.{2,100})/i, 'employer'],
  [/\bI work as (?:an? )?(.{2,100})/i, 'occupation'],
  [/\bI live in (.{2,100})/i, 'location'],
  [/\bI(?:'m| am) from (.{2,100})/i, 'origin'],
  [/\bI(?:'m| am) an? ([\p{L} -]{2,60})/iu, 'role'],
];

export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length >= 3 && s.length <= 400);
}

export function slug(text: string, max = 60): string {
  const words = text
    .toLowerCase()
    .replace(/['’]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '' && !['a', 'an', 'the', 'to', 'of', 'for', 'and', 'my'].includes(w));
  let out = '';
  for (const w of words) {
    const next = out ? `${out}-${w}` : w;
    if (next.length > max) break;
    out = next;
  }
  return out || 'note';
}

const clean = (s: string) => s.replace(/[.!。！\s]+$/u, '').trim();

function isoOf(sentence: string): string | null {
  const iso = ISO_DATE.exec(sentence);
  if (iso) return `${iso[1]}-${iso[2]}-${iso[3]}`;
  const m = DAY_MONTH.exec(sentence);
  if (!m) return null;
  const day = m[1] ?? m[4];
  const month = (m[2] ?? m[3])!.toLowerCase().slice(0, 3);
  const mi = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'].indexOf(month) + 1;
  const year = m[5];
  const mm = String(mi).padStart(2, '0');
  const dd = String(Number(day)).padStart(2, '0');
  return year ? `${year}-${mm}-${dd}` : `${mm}-${dd}`;
}

/** The deterministic extraction of explicit statements (see the file comment). */
export function extractStatements(messages: Message[], enabled: Set<MemoryCategory>): MemoryItem[] {
  const out: MemoryItem[] = [];
  for (const m of messages) {
    if (m.role !== 'user') continue;
    const peer = m.peer_id ? { peer_id: m.peer_id } : {};
    for (const s of sentences(messageText(m))) {
      if (/\?\s*$/.test(s)) continue;
      const text = clean(s);
      let matched = false;
      if (enabled.has('preferences')) {
        const p = PREFERENCE.exec(s);
        const f = FAVORITE.exec(s);
        if (f) {
          out.push({ category: 'preferences', key: `favorite-${slug(f[1]!, 40)}`, text, ...peer });
          matched = true;
        } else if (p) {
          out.push({ category: 'preferences', key: slug(clean(p[2]!).split(/\s+/).slice(0, 4).join(' ')), text, ...peer });
          matched = true;
        }
      }
      if (!matched && enabled.has('profile')) {
        for (const [re, key] of PROFILE) {
          if (re.test(s)) {
            out.push({ category: 'profile', key: 'profile', replaceKey: key, text, ...peer });
            matched = true;
            break;
          }
        }
      }
      if (!matched && enabled.has('events')) {
        const date = isoOf(s);
        if (date) out.push({ category: 'events', key: date, text, ...peer });
      }
    }
  }
  return out;
}

/** An extractive summary: who said how much, when, and the opening of each turn. */
export function deterministicSummary(archiveId: string, messages: Message[]): { abstract: string; overview: string } {
  const users = messages.filter((m) => m.role === 'user').length;
  const first = messages.find((m) => m.role === 'user' && messageText(m).trim() !== '') ?? messages[0];
  const opening = first ? clean(sentences(messageText(first))[0] ?? messageText(first)).slice(0, 200) : '';
  const span = messages.length ? `${messages[0]!.created_at.slice(0, 10)}${messages.at(-1)!.created_at.slice(0, 10) !== messages[0]!.created_at.slice(0, 10) ? ` to ${messages.at(-1)!.created_at.slice(0, 10)}` : ''}` : '';
  const abstract = `${messages.length} messages (${users} from the user) on ${span}${opening ? `, starting with: ${opening}` : ''}.`;
  const lines = messages.slice(0, 30).map((m) => `- ${m.role}: ${messageText(m).replace(/\s+/g, ' ').slice(0, 160)}`);
  if (messages.length > 30) lines.push(`- ... and ${messages.length - 30} more messages`);
  return { abstract, overview: `# Session ${archiveId}\n\n${abstract}\n\n## Messages\n\n${lines.join('\n')}\n` };
}

const PROMPT = (categories: string[], peers: string[]) => `You turn a conversation into long-term memory. Answer with ONE JSON object:
{"abstract": "<one sentence, at most 60 words, what the conversation was about>",
 "overview": "<a short markdown overview of the conversation: topics, decisions, open questions>",
 "memories": [{"category": "<one of: ${categories.join(', ')}>", "key": "<2-6 words naming the topic; the same topic must get the same key>", "content": "<one self-contained statement about the user, in the third person>"${peers.length ? `, "peer_id": "<only when the statement is about a peer who spoke: one of ${peers.join(', ')}>"` : ''}}]}
Only extract what the user explicitly stated. An empty "memories" array is fine.`;

const LINE_LIMIT = 2000;

/** Validates one LLM memory item; returns the reason it is unusable, or the item. */
function checkItem(raw: unknown, enabled: Set<MemoryCategory>, peers: Set<string>): MemoryItem | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'not an object';
  const o = raw as Record<string, unknown>;
  if (typeof o.category !== 'string' || !enabled.has(o.category as MemoryCategory)) return `category ${JSON.stringify(o.category)} is not an enabled memory type`;
  if (typeof o.content !== 'string' || o.content.trim() === '') return 'content must be a non-empty string';
  if (o.content.length > LINE_LIMIT) return `content longer than ${LINE_LIMIT} characters`;
  if (o.key !== undefined && typeof o.key !== 'string') return 'key must be a string';
  if (o.peer_id !== undefined && o.peer_id !== null && (typeof o.peer_id !== 'string' || !peers.has(o.peer_id))) return `peer_id ${JSON.stringify(o.peer_id)} is not a peer of this conversation`;
  const key = slug(typeof o.key === 'string' && o.key.trim() ? o.key : o.content.split(/\s+/).slice(0, 5).join(' '));
  const item: MemoryItem = { category: o.category as MemoryCategory, key, text: clean(o.content.replace(/\s+/g, ' ')) };
  if (typeof o.peer_id === 'string') item.peer_id = o.peer_id;
  return item;
}

export async function extract(
  archiveId: string,
  messages: Message[],
  enabled: Set<MemoryCategory>,
  opts: { llm: Llm | null; summary: boolean; signal?: AbortSignal },
): Promise<Extraction> {
  const usage: TokenUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const fallback = (llm_error?: string): Extraction => ({
    ...(opts.summary ? deterministicSummary(archiveId, messages) : { abstract: '', overview: '' }),
    memories: extractStatements(messages, enabled),
    skipped: [],
    usage,
    generator: 'deterministic',
    ...(llm_error ? { llm_error } : {}),
  });
  if (!opts.llm || messages.length === 0) return fallback();
  const peers = new Set(messages.flatMap((m) => (m.peer_id ? [m.peer_id] : [])));
  const transcript = messages.map((m) => `${m.role}${m.peer_id ? ` (${m.peer_id})` : ''}: ${messageText(m)}`).join('\n').slice(-60_000);
  let answer: Record<string, unknown> | null;
  try {
    const res = await opts.llm.chat(
      [
        { role: 'system', content: PROMPT([...enabled], [...peers]) },
        { role: 'user', content: transcript },
      ],
      { json: true, signal: opts.signal },
    );
    usage.prompt_tokens += res.usage.prompt_tokens;
    usage.completion_tokens += res.usage.completion_tokens;
    usage.total_tokens += res.usage.total_tokens;
    answer = parseJsonAnswer(res.text);
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    return fallback(`LLM call failed: ${(err as Error).message.slice(0, 200)}`);
  }
  if (!answer) return fallback('LLM answer is not a JSON object');
  const memories: MemoryItem[] = [];
  const skipped: Skipped[] = [];
  const items = Array.isArray(answer.memories) ? answer.memories : [];
  if (answer.memories !== undefined && !Array.isArray(answer.memories)) skipped.push({ index: -1, reason: 'memories is not an array' });
  items.forEach((raw, index) => {
    const item = checkItem(raw, enabled, peers);
    if (typeof item === 'string') skipped.push({ index, reason: item });
    else memories.push(item);
  });
  const det = deterministicSummary(archiveId, messages);
  const abstract = typeof answer.abstract === 'string' && answer.abstract.trim() ? answer.abstract.trim() : det.abstract;
  const overview = typeof answer.overview === 'string' && answer.overview.trim() ? answer.overview.trim() + '\n' : det.overview;
  return { abstract: opts.summary ? abstract : '', overview: opts.summary ? overview : '', memories, skipped, usage, generator: 'llm' };
}
