/**
 * Query vectors of recent find/search texts, so a repeated query skips the embedder's round trip
 * (a remote model's is most of a find's latency: bench/RESULTS.md, issue 27). Bounded (least
 * recently used out), keyed by the embedder's tag (provider, model, dimension and a fingerprint of
 * its parameters) and the text; a change of embedder empties it. Identical queries in flight
 * together share one embedder call. Size 0 turns it off.
 */
import { embedderTag } from './store.js';
import type { EmbedderLike } from './backends.js';

export class QueryEmbeddingCache {
  private readonly entries = new Map<string, Promise<Float32Array>>();
  private tag = '';
  /** What `tag` was made from: the tag (a sha256 of the fingerprint) is made again only when one changes. */
  private seen: { info: object; provider: string; model: string; dim: number; params: unknown } | null = null;
  hits = 0;
  misses = 0;

  constructor(private readonly max: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The query vectors of `texts`, in order, from the cache or one embedder call for the rest. */
  embed(embedder: EmbedderLike, texts: string[]): Promise<Float32Array[]> {
    if (this.max <= 0) return embedder.embed(texts, 'query');
    const info = embedder.info;
    const k = this.seen;
    if (!k || k.info !== info || k.provider !== info.provider || k.model !== info.model || k.dim !== info.dim || k.params !== info.params) {
      this.seen = { info, provider: info.provider, model: info.model, dim: info.dim, params: info.params };
      const tag = embedderTag(info);
      if (tag !== this.tag) {
        this.entries.clear();
        this.tag = tag;
      }
    }
    const out: Array<Promise<Float32Array>> = [];
    const missing: Array<{ text: string; i: number }> = [];
    for (const [i, text] of texts.entries()) {
      const hit = this.entries.get(text);
      if (hit) {
        this.hits++;
        // Most recently used last: Map keeps insertion order, so the first key is the one to evict.
        this.entries.delete(text);
        this.entries.set(text, hit);
        out[i] = hit;
      } else missing.push({ text, i });
    }
    if (missing.length) {
      this.misses += missing.length;
      const call = embedder.embed(
        missing.map((m) => m.text),
        'query',
      );
      for (const [j, m] of missing.entries()) {
        const p = call.then((vecs) => vecs[j]!);
        out[m.i] = p;
        this.entries.set(m.text, p);
        // A failed call is not remembered: the next query asks the embedder again.
        p.catch(() => this.entries.get(m.text) === p && this.entries.delete(m.text));
      }
      while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    }
    return Promise.all(out);
  }
}
