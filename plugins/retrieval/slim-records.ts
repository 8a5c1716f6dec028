/**
 * The slim record cache: per record, only what a find's answer reads of it (`present` and
 * `match_reason` in routes.ts/find.ts), so the records of a find's hits come from memory instead
 * of a RocksDB read on the libuv pool (~0.4 ms of a find's serial part after the query vector;
 * bench/RESULTS.md, issue 27 "speed7").
 *
 * A stored record (RecordDoc) also holds what was embedded — up to the token budget of the file's
 * text —, its source hash, embedder tag and every attribute; parsed, that was ~8 KB of RSS per
 * record for the full-record write-through (+17 MB at 2,000 files). The slim form keeps the URI,
 * level, kind, context type, abstract and directory overview, and of the text only the distinct
 * words the URI and abstract do not already show (match-terms.ts `termsIndex`: what the match
 * reason checks, exactly).
 *
 * Bounded by an estimate of its bytes (least recently used out; `plugins.retrieval.recordCacheMb`),
 * filled when a record is written and when a find reads one that is not in it, and dropped or
 * replaced on every write, removal (a move removes the old URI's records) and replicated change
 * of that record.
 */
import { termsIndex } from './match-terms.js';
import type { RecordDoc } from './store.js';

/** What a find's answer reads of a record (its `path` derived from the URI, not kept twice). */
export class SlimRecord {
  /** The cache's estimate of this entry's bytes. */
  cost = 0;
  constructor(
    readonly attrs: { readonly uri: string; readonly contextType: string },
    readonly level: 0 | 1 | 2,
    readonly kind: 'file' | 'dir',
    readonly abstract: string,
    /** Shared with the directory's other level when equal (`SlimRecordCache.share`). */
    public overview: string | undefined,
    /** termsIndex(uri, text, abstract): the match reason's input. */
    readonly extra: string,
    readonly absent: string,
  ) {}

  get path(): string {
    return this.attrs.uri.slice('ctx://'.length);
  }
}

/**
 * The slim form of a record. Its strings are copied out through JSON (a parse makes flat strings):
 * a field the caller computed as a slice of a larger string (an abstract cut from a file's
 * content) would otherwise keep that whole string alive in the cache.
 */
export function slimOf(d: RecordDoc): SlimRecord {
  const [uri, contextType, abstract, overview] = JSON.parse(JSON.stringify([d.attrs.uri, d.attrs.contextType, d.abstract, d.overview ?? null])) as [string, string, string, string | null];
  const t = termsIndex(d.attrs.uri, d.text, d.abstract);
  return new SlimRecord({ uri, contextType }, d.level, d.kind, abstract, overview ?? undefined, t.extra, t.absent);
}

const WIDE = /[^\x00-\xff]/;
/** V8 keeps a string in one byte per character unless one is outside Latin-1. */
const strBytes = (s: string) => 16 + (WIDE.test(s) ? 2 : 1) * s.length;
/**
 * The object, its `attrs`, the Map entry and the small fields. A directory's overview shared by
 * its two records is counted in each: the estimate errs high.
 */
const FIXED = 160;

function costOf(key: string, r: SlimRecord): number {
  return FIXED + strBytes(key) + strBytes(r.attrs.uri) + strBytes(r.abstract) + (r.overview ? strBytes(r.overview) : 0) + strBytes(r.extra) + strBytes(r.absent);
}

export class SlimRecordCache {
  private readonly entries = new Map<string, SlimRecord>();
  private used = 0;
  hits = 0;
  misses = 0;

  constructor(private maxBytes: number) {}

  /** Estimated bytes held. */
  get bytes(): number {
    return this.used;
  }
  get size(): number {
    return this.entries.size;
  }
  get limit(): number {
    return this.maxBytes;
  }

  resize(maxBytes: number): void {
    this.maxBytes = maxBytes;
    this.evict();
  }

  /** The entry, without making it the most recently used. */
  peek(key: string): SlimRecord | undefined {
    return this.entries.get(key);
  }

  get(key: string): SlimRecord | undefined {
    const r = this.entries.get(key);
    if (!r) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Most recently used last: Map keeps insertion order, so the first key is the one to evict.
    this.entries.delete(key);
    this.entries.set(key, r);
    return r;
  }

  set(key: string, r: SlimRecord): void {
    this.delete(key);
    if (this.maxBytes <= 0) return;
    r.cost = costOf(key, r);
    if (r.cost > this.maxBytes) return;
    this.entries.set(key, r);
    this.used += r.cost;
    this.evict();
  }

  delete(key: string): void {
    const r = this.entries.get(key);
    if (!r) return;
    this.entries.delete(key);
    this.used -= r.cost;
  }

  deletePrefix(prefix: string): void {
    for (const k of [...this.entries.keys()]) if (k.startsWith(prefix)) this.delete(k);
  }

  private evict(): void {
    while (this.used > this.maxBytes && this.entries.size) this.delete(this.entries.keys().next().value!);
  }
}
