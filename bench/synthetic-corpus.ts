/**
 * The synthetic corpus of the retrieval benchmarks (bench/retrieval.bench.ts, bench/find-profile.ts):
 * 40 topics × 200-word vocabularies over a 4,000-word lexicon, seeded, so every run and every bench
 * writes the same documents and queries hit a known topic. `doc(i)` advances the shared generator:
 * call it in index order, as both benches do, to get identical texts.
 */
let seed = 42;
const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const SYL = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'zi', 'pe', 'sa', 'do', 'gu', 'fi', 'ha', 'bo', 'xe', 'qu', 'ly', 'tor', 'an'];
const lexicon = Array.from({ length: 4000 }, () => Array.from({ length: 2 + Math.floor(rnd() * 3) }, () => SYL[Math.floor(rnd() * SYL.length)]).join(''));
const topics = Array.from({ length: 40 }, () => Array.from({ length: 200 }, () => lexicon[Math.floor(rnd() * lexicon.length)]!));

export function doc(i: number): { uri: string; content: string; words: string[] } {
  const t = i % topics.length;
  const words: string[] = [];
  let text = `# Note ${i} on topic ${t}\n\n`;
  while (text.length < 1000) {
    const w = rnd() < 0.8 ? topics[t]![Math.floor(rnd() ** 2 * 200)]! : lexicon[Math.floor(rnd() * lexicon.length)]!;
    words.push(w);
    text += w + (rnd() < 0.1 ? '. ' : ' ');
  }
  return { uri: `ctx://resources/bench/t${t}/d${Math.floor(i / 2000)}/n${i}.md`, content: text, words };
}

/**
 * Writes docs 0..files-1 under ctx://resources/bench in batches of 256 through `post` (an HTTP
 * call or an inject), without waiting for indexing; returns each doc's words for queries.
 */
export async function writeCorpus(files: number, post: (path: string, body: unknown) => Promise<unknown>): Promise<string[][]> {
  await post('/api/v1/fs/mkdir', { uri: 'ctx://resources/bench' });
  const words: string[][] = [];
  let batch: ReturnType<typeof doc>[] = [];
  for (let i = 0; i < files; i++) {
    const d = doc(i);
    words.push(d.words);
    batch.push(d);
    if (batch.length === 256 || i === files - 1) {
      await post('/api/v1/content/batch-write', { root_uri: 'ctx://resources/bench', operations: batch.map((x) => ({ uri: x.uri, content: x.content, mode: 'upsert' })), wait: false });
      batch = [];
    }
  }
  return words;
}
