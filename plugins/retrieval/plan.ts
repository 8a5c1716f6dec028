/**
 * Intent analysis for `search`: the query plus recent session messages become the queries that
 * run (`query_plan.expanded_queries`). With an LLM, a prompt asks for up to 4 standalone queries;
 * without one (or when it fails) the deterministic plan of docs/retrieval.md is used:
 *   1. the query as given;
 *   2. its keywords (stopwords removed), when that differs;
 *   3. with a session: the query plus the 5 most frequent salient terms of the last messages.
 */
import { parseJsonAnswer, type Llm } from 'ctx/plugin';
import { words as wordsOf } from './find.js';

export const STOPWORDS = new Set(
  ('a an and are as at be but by can could did do does for from had has have how i if in into is it its me my of on or our please ' +
    'should so than that the their them then there these they this to was we were what when where which who why will with would you your ' +
    'about any all also find show tell get give need want some more most other such only own same just')
    .split(' '),
);

export interface QueryPlan {
  expanded_queries: string[];
  planner: 'llm' | 'deterministic';
  intent: string;
}

export function deterministicPlan(query: string, session: string[]): QueryPlan {
  const out = [query];
  const words = wordsOf(query);
  const keywords = words.filter((w) => !STOPWORDS.has(w) && w.length > 1);
  const kw = keywords.join(' ');
  if (kw && kw !== words.join(' ')) out.push(kw);
  if (session.length) {
    const freq = new Map<string, number>();
    for (const w of wordsOf(session.join(' '))) if (!STOPWORDS.has(w) && w.length > 2 && !keywords.includes(w)) freq.set(w, (freq.get(w) ?? 0) + 1);
    const top = [...freq].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5).map(([w]) => w);
    if (top.length) out.push(`${query} ${top.join(' ')}`);
  }
  return { expanded_queries: [...new Set(out)], planner: 'deterministic', intent: keywords.length ? `lookup: ${keywords.slice(0, 6).join(' ')}` : 'lookup' };
}

export async function planQueries(query: string, session: string[], llm: Llm | null, signal?: AbortSignal): Promise<QueryPlan> {
  if (!llm) return deterministicPlan(query, session);
  try {
    const context = session.length ? `Recent conversation:\n${session.map((t) => `- ${t.slice(0, 500)}`).join('\n')}\n\n` : '';
    const r = await llm.chat(
      [
        {
          role: 'system',
          content:
            'You plan searches over a context store. Answer with a JSON object {"intent": string, "expanded_queries": string[]}: 1 to 4 standalone search queries that together cover what the user needs, the first one closest to the original query. Resolve pronouns from the conversation.',
        },
        { role: 'user', content: `${context}Query: ${query}` },
      ],
      { json: true, maxTokens: 300, signal },
    );
    const j = parseJsonAnswer(r.text);
    const qs = Array.isArray(j?.expanded_queries) ? (j!.expanded_queries as unknown[]).filter((q): q is string => typeof q === 'string' && q.trim() !== '').map((q) => q.trim().slice(0, 1000)) : [];
    if (!qs.length) return deterministicPlan(query, session);
    return { expanded_queries: [...new Set(qs)].slice(0, 4), planner: 'llm', intent: typeof j?.intent === 'string' ? j.intent : '' };
  } catch {
    return deterministicPlan(query, session);
  }
}
