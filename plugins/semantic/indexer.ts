/**
 * The indexing pipeline on the two durable queues (indexing-contract.ts):
 *
 * 1. A `vfs.onCommit` hook adds a Semantic message to the batch of every write, mkdir, rm, mv and
 *    tag change, so a durable change always has durable index work. Sidecars are skipped (the
 *    processor's own sidecar writes must not trigger more processing) unless the writer passed an
 *    `IndexHint`: a mkdir's abstract indexes the new directory, a user's sidecar edit queues a
 *    `vectors_only` refresh of its directory.
 * 2. Semantic consumer: files get their L0 abstract (LLM or extractive) and an Embedding message
 *    for their L2 record; directories get `.abstract.md`/`.overview.md` regenerated from their
 *    children and Embedding messages for L0/L1, then their parent is queued: bottom-up. Directory
 *    refreshes are keyed per directory (`dedupeKey`), so the 256 file messages of one batch queue
 *    ONE refresh of their directory, which runs after them (queue order) and sees all of them.
 * 3. Embedding consumer: reads the node's current state (so it is order-independent and
 *    idempotent), embeds, and writes the record to RocksDB and the index.
 * Every consumer queues its follow-up work before it returns (acks), so `wait` sees no gap.
 */
import { isUtf8 } from 'node:buffer';
import type { PluginHost } from 'ctx/plugin';
import { EMBEDDING_QUEUE, SEMANTIC_QUEUE, type EmbeddingMessage, type SemanticMessage } from './indexing-contract.js';
import type { QueueMessage } from 'ctx/plugin';
import type { KvOp } from 'ctx/plugin';
import { formatHeader, splitHeader } from 'ctx/plugin';
import type { ChangeEvent, Entry, IndexHint } from 'ctx/plugin';
import { SIDECARS } from 'ctx/plugin';
import { outlineLanguageOf, sha256Of, splitPath } from 'ctx/plugin';
import type { CodeOutline, Services } from 'ctx/plugin';
import { FALLBACK_GENERATOR, fallbackDirAbstract, fallbackDirOverview } from './summarize.js';
import { CODE_GENERATOR, L2_TOKEN_BUDGET, codeSummary, truncateTokens, type ChildInfo, type Summarizer } from './summarize.js';

const S = '\x00';

/** The retrieval plugin's record store, as its `vector-store` service offers it. */
type VectorStore = Services['vector-store'];
type RecordDoc = NonNullable<Awaited<ReturnType<VectorStore['get']>>>;
type Placement = NonNullable<ReturnType<VectorStore['placement']>>;

/** The stored L0 abstract of a file (this plugin's keyspace), reused while the file is unchanged. */
export interface FileAbstract {
  abstract: string;
  sha256: string;
  generator: string;
  /** Code files: their outline as an indented list (summarize.ts `codeSummary`). */
  overview?: string;
}

/**
 * The text a file is summarized and embedded from. Binary files (images, audio, archives: a NUL
 * byte in the first 8 KiB, as git decides, or a node a plugin marked as `meta.media`) are described
 * instead of decoded — decoding gave abstracts of replacement characters — by their name, size and
 * what the plugin recorded in `meta.media` (resources puts format, dimensions and duration there).
 * Text in another encoding still decodes lossily: most of its words survive.
 */
export function indexableText(node: Pick<Entry, 'name' | 'size' | 'meta'>, data: Buffer): string {
  const media = node.meta?.media;
  if (!isBinary(node, data)) return data.toString('utf8');
  const facts = media && typeof media === 'object' ? Object.entries(media as Record<string, unknown>).map(([k, v]) => `${k}: ${String(v)}`) : [];
  return [`${node.name} (binary file, ${node.size} bytes)`, ...facts].join('\n');
}

export function isBinary(node: Pick<Entry, 'meta'>, data: Buffer): boolean {
  return Boolean(node.meta?.media) || data.subarray(0, 8192).includes(0);
}

/** A code file's outline as the indexer stored it, valid while the file's sha256 is this one. */
export interface StoredOutline {
  sha256: string;
  outline: CodeOutline;
}

/** Key of a code file's stored outline (beside its abstract, dropped with it). */
export const outlineKey = (account: string, path: string) => `o${S}${account}${S}${path}`;

/** Key of a file's stored abstract: per account first, so an account's abstracts are one range. */
export const absKey = (account: string, path: string) => `a${S}${account}${S}${path}`;
const ABSTRACT = '.abstract.md';
const OVERVIEW = '.overview.md';

export interface IndexerStats {
  files: number;
  dirRefreshes: number;
  embedded: number;
  skippedUnchanged: number;
  deleted: number;
  llmFallbacks: number;
}

export class Indexer {
  readonly stats: IndexerStats = { files: 0, dirRefreshes: 0, embedded: 0, skippedUnchanged: 0, deleted: 0, llmFallbacks: 0 };
  private readonly activations = new WeakMap<ChangeEvent, Array<() => void>>();
  /** Serializes work on one key (record, or node for Semantic) across concurrent messages. */
  private readonly keyChains = new Map<string, Promise<void>>();
  /** Semantic messages in flight per parent directory (`account\0path`). */
  private readonly childrenInFlight = new Map<string, number>();
  /**
   * Payloads prepared into a batch that is not yet durable. The queue registers a prepared message
   * as pending at once, so a consumer slot freed meanwhile could start it before its batch commits
   * (and find no node); consumers wait for the activation (or 10 s, should the batch have failed).
   */
  private readonly staged = new WeakMap<object, Promise<void>>();
  /** Directory refreshes that have started but not yet listed their children. */
  private readonly dirsWaiting = new Map<string, Array<() => void>>();

  constructor(
    private readonly host: PluginHost,
    private readonly store: VectorStore,
    private readonly summarizer: Summarizer,
  ) {}

  install(): void {
    const { host } = this;
    host.unscopedVfs.onCommit((events) => this.hook(events));
    // Messages become visible to consumers once their batch is durable (change events follow it).
    host.unscopedVfs.on('change', (ev: ChangeEvent) => {
      const fns = this.activations.get(ev);
      if (!fns) return;
      this.activations.delete(ev);
      for (const fn of fns) fn();
    });
    // Records are dropped by the retrieval plugin; the abstracts kept here are this plugin's to drop.
    host.on('account-deleted', ({ account }) => this.dropAbstracts(account));
    host.consume<SemanticMessage>(SEMANTIC_QUEUE, (m) => this.semanticTracked(m), { concurrency: 32, maxAttempts: 5, backoffMs: 100 });
    host.consume<EmbeddingMessage>(EMBEDDING_QUEUE, (m) => this.embedding(m), { concurrency: 128, maxAttempts: 5, backoffMs: 100 });
  }

  private hook(events: ChangeEvent[]): KvOp[] {
    const ops: KvOp[] = [];
    // Directories above vectors-only writes already given their message in this batch.
    const vectorDirs = new Set<string>();
    for (const ev of events) {
      const [parent, name] = splitPath(ev.path);
      const msgs: Array<[SemanticMessage, string | undefined]> = [];
      const base = { account: ev.account, kind: ev.kind };
      if (SIDECARS.has(name)) {
        // The indexer's own output, unless the writer asked for indexing (IndexHint).
        const asked = ev.type === 'write' ? (ev.hint?.index as IndexHint | undefined) : undefined;
        if (asked === 'dir-created') msgs.push([{ account: ev.account, path: parent, kind: 'dir', op: 'upsert' }, `d${S}${ev.account}${S}${parent}`]);
        else if (asked === 'sidecar-edited')
          msgs.push([{ account: ev.account, path: parent, kind: 'dir', op: 'refresh', mode: 'vectors_only', recursive: false }, `sidecar-edit${S}${ev.account}${S}${parent}`]);
        else continue;
      } else if ((ev.type === 'write' || ev.type === 'meta') && ev.hint?.index === ('vectors-only' satisfies IndexHint)) {
        // An import with processing_mode vectors_only: what changed is embedded, no L0/L1 text is
        // generated. The directories above get their L0/L1 records from the sidecars they have (or
        // their name alone), so every node of the import is in the index all the same.
        if (ev.kind === 'file') msgs.push([{ ...base, path: ev.path, op: 'refresh', mode: 'vectors_only' }, `vf${S}${ev.account}${S}${ev.path}`]);
        for (let dir = ev.kind === 'dir' ? ev.path : parent; dir !== ''; dir = splitPath(dir)[0]) {
          const key = `vo${S}${ev.account}${S}${dir}`;
          if (vectorDirs.has(key)) break;
          vectorDirs.add(key);
          msgs.push([{ account: ev.account, path: dir, kind: 'dir', op: 'refresh', mode: 'vectors_only', recursive: false }, key]);
        }
      } else
        switch (ev.type) {
          case 'write':
          case 'meta':
            msgs.push([{ ...base, path: ev.path, op: 'upsert', tags: ev.hint?.tags as string[] | undefined }, `u${S}${ev.account}${S}${ev.path}`]);
            break;
          case 'mkdir':
            msgs.push([{ ...base, path: ev.path, op: 'upsert' }, `d${S}${ev.account}${S}${ev.path}`]);
            break;
          case 'rm':
            msgs.push([{ ...base, path: ev.path, op: 'delete' }, undefined]);
            break;
          case 'mv':
            if (ev.from !== undefined) msgs.push([{ ...base, path: ev.from, op: 'delete' }, undefined]);
            msgs.push([{ ...base, path: ev.path, op: 'upsert', recursive: true }, undefined]);
            break;
        }
      for (const [msg, dedupeKey] of msgs) {
        if (msg.op !== 'delete' && !this.store.placement(msg.path)) continue;
        const prepared = this.host.queues.prepare(SEMANTIC_QUEUE, msg, { dedupeKey });
        if (!prepared) continue;
        ops.push(...prepared.ops);
        const list = this.activations.get(ev) ?? [];
        list.push(this.stage(msg, prepared.activate));
        this.activations.set(ev, list);
      }
    }
    return ops;
  }

  private stage(payload: object, activate: () => void): () => void {
    let release!: () => void;
    this.staged.set(payload, new Promise<void>((r) => (release = r)));
    return () => {
      this.staged.delete(payload);
      release();
      activate();
    };
  }

  private async untilDurable(payload: object): Promise<void> {
    const p = this.staged.get(payload);
    if (!p) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, 10_000)))]);
    clearTimeout(timer);
  }

  /** Queues messages in one batch (with `extra` ops), then wakes the consumers. */
  private async enqueue(sem: SemanticMessage[], emb: EmbeddingMessage[], extra: KvOp[] = []): Promise<void> {
    const ops = [...extra];
    const activate: Array<() => void> = [];
    for (const m of sem) {
      const key = m.op === 'delete' ? undefined : m.kind === 'dir' && !m.recursive ? `d${S}${m.account}${S}${m.path}` : `u${S}${m.account}${S}${m.path}`;
      const p = this.host.queues.prepare(SEMANTIC_QUEUE, m, { dedupeKey: key });
      if (p) {
        ops.push(...p.ops);
        activate.push(this.stage(m, p.activate));
      }
    }
    for (const m of emb) {
      const p = this.host.queues.prepare(EMBEDDING_QUEUE, m, { dedupeKey: `${m.op}${S}${m.account}${S}${m.path}${S}${m.level}` });
      if (p) {
        ops.push(...p.ops);
        activate.push(this.stage(m, p.activate));
      }
    }
    if (ops.length) await this.host.kv.batch(ops);
    for (const fn of activate) fn();
  }

  /**
   * The parent's refresh, unless a refresh of the parent has started and is waiting for this very
   * message to finish (it will list the children after it, so it sees this change).
   */
  private parentRefresh(account: string, path: string): SemanticMessage[] {
    const parent = this.store.parentPath(path);
    if (this.dirsWaiting.has(`${account}${S}${parent}`)) return [];
    return this.store.placement(parent) ? [{ account, path: parent, kind: 'dir', op: 'refresh', mode: 'semantic_and_vectors' }] : [];
  }

  private serialized<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.keyChains.get(key) ?? Promise.resolve();
    const run = prev.then(fn);
    const tail = run.then(
      () => {},
      () => {},
    );
    this.keyChains.set(key, tail);
    void tail.then(() => {
      if (this.keyChains.get(key) === tail) this.keyChains.delete(key);
    });
    return run;
  }

  /**
   * Semantic messages run 8 at a time. Queue order still makes a directory's refresh start after
   * every message of its children queued before it; the refresh then waits for those still in
   * flight (they never wait on anything, so this cannot deadlock) before listing the children.
   */
  private async semanticTracked(qm: QueueMessage<SemanticMessage>): Promise<void> {
    const m = qm.payload;
    const parentKey = `${m.account}${S}${this.store.parentPath(m.path)}`;
    this.childrenInFlight.set(parentKey, (this.childrenInFlight.get(parentKey) ?? 0) + 1);
    // A directory refresh counts as waiting from the moment it starts (before any await), so a
    // child finishing now does not queue a second refresh behind this one.
    const ownKey = `${m.account}${S}${m.path}`;
    const refresh = m.kind === 'dir' && m.op !== 'delete' && !m.recursive && !this.dirsWaiting.has(ownKey);
    if (refresh) this.dirsWaiting.set(ownKey, []);
    try {
      await this.untilDurable(m);
      await this.serialized(`s${S}${m.account}${S}${m.path}`, () => this.semantic(qm));
    } finally {
      // Released by childrenSettled once it listed the children, or here when it never got there.
      if (refresh && this.dirsWaiting.get(ownKey)?.length === 0) this.dirsWaiting.delete(ownKey);
      const n = (this.childrenInFlight.get(parentKey) ?? 1) - 1;
      if (n > 0) this.childrenInFlight.set(parentKey, n);
      else {
        this.childrenInFlight.delete(parentKey);
        const waiters = this.dirsWaiting.get(parentKey);
        if (waiters) for (const w of waiters.splice(0)) w();
      }
    }
  }

  private debouncing = 0;
  static DEBOUNCE_MS = 500;
  static MAX_DEBOUNCING = 4;

  /**
   * Before listing a directory's children: wait for the child messages in flight, and (debounce)
   * for child messages still queued behind this refresh, up to DEBOUNCE_MS. Meanwhile finishing
   * children do not queue another refresh of this directory, so consecutive batches into one
   * directory coalesce too. At most MAX_DEBOUNCING refreshes debounce at once, so waiting
   * refreshes can never hold every consumer slot.
   */
  private async childrenSettled(account: string, path: string): Promise<void> {
    const key = `${account}${S}${path}`;
    const waiters = this.dirsWaiting.get(key) ?? [];
    this.dirsWaiting.set(key, waiters);
    try {
      if (this.debouncing < Indexer.MAX_DEBOUNCING) {
        this.debouncing++;
        try {
          const deadline = Date.now() + Indexer.DEBOUNCE_MS;
          while (Date.now() < deadline && this.host.queues.countPendingChildren(account, path, [SEMANTIC_QUEUE]) > (this.childrenInFlight.get(key) ?? 0))
            await new Promise((r) => setTimeout(r, 20));
        } finally {
          this.debouncing--;
        }
      }
      while ((this.childrenInFlight.get(key) ?? 0) > 0) await new Promise<void>((r) => waiters.push(r));
    } finally {
      this.dirsWaiting.delete(key);
    }
  }

  // ------------------------------------------------------------------------------------- Semantic

  private async semantic(qm: QueueMessage<SemanticMessage>): Promise<void> {
    const m = qm.payload;
    if (m.op === 'delete') {
      // Records go at once (a deleted file must stop matching); the parent's L0/L1 follow.
      // Only records of nodes that no longer exist: a node recreated meanwhile keeps its record
      // (its own upsert follows), whatever order concurrent messages run in.
      this.stats.deleted += await this.store.remove(m.account, m.path, { subtree: true, keep: (paths) => this.existing(m.account, paths) });
      await this.deleteAbstracts(m.account, m.path);
      await this.enqueue(this.parentRefresh(m.account, m.path), []);
      return;
    }
    const node = await this.host.unscopedVfs.stat(m.account, m.path);
    if (!node || !this.store.placement(m.path)) return; // removed since; its delete message does the cleanup
    if (m.recursive) return this.expand(m, node);
    if (node.kind === 'file') return this.semanticFile(m, node);
    if (m.op === 'refresh' && m.mode === 'vectors_only') return this.enqueue([], [0, 1].map((level) => ({ account: m.account, path: m.path, level: level as 0 | 1, op: 'upsert' as const })));
    return this.refreshDir(m.account, node);
  }

  /** A moved or reindexed subtree: every file and directory below gets its own message. */
  private async expand(m: SemanticMessage, node: Entry): Promise<void> {
    const vectorsOnly = m.op === 'refresh' && m.mode === 'vectors_only';
    const sem: SemanticMessage[] = [];
    const emb: EmbeddingMessage[] = [];
    const visit = (e: { path: string; kind: 'file' | 'dir'; name: string }) => {
      if (SIDECARS.has(e.name) || !this.store.placement(e.path)) return;
      if (vectorsOnly) {
        for (const level of e.kind === 'file' ? [2] : [0, 1]) emb.push({ account: m.account, path: e.path, level: level as 0 | 1 | 2, op: 'upsert' });
      } else sem.push({ account: m.account, path: e.path, kind: e.kind, op: 'upsert' });
    };
    visit(node);
    if (node.kind === 'dir') for await (const e of this.host.unscopedVfs.walk(m.account, node.path)) visit(e);
    // Files first, directories deepest first: the bottom-up order of the refreshes.
    sem.sort((a, b) => (a.kind === b.kind ? b.path.split('/').length - a.path.split('/').length : a.kind === 'file' ? -1 : 1));
    for (let i = 0; i < sem.length; i += 512) await this.enqueue(sem.slice(i, i + 512), []);
    for (let i = 0; i < emb.length; i += 512) await this.enqueue([], emb.slice(i, i + 512));
    if (!vectorsOnly) await this.enqueue(this.parentRefresh(m.account, node.path), []);
  }

  private async semanticFile(m: SemanticMessage, node: Entry): Promise<void> {
    this.stats.files++;
    if (m.op === 'refresh' && m.mode === 'vectors_only') return this.enqueue([], [{ account: m.account, path: m.path, level: 2, op: 'upsert' }]);
    // The stored abstract and the content in one round trip (the content is usually needed).
    const [stored, [buf]] = await Promise.all([this.host.kv.getJson<FileAbstract>(absKey(m.account, m.path)), this.host.unscopedVfs.readMany(m.account, [m.path])]);
    const extra: KvOp[] = [];
    const data = buf ?? Buffer.alloc(0);
    // Source files are summarized from their outline, whatever the summarizer (no LLM needed).
    // Not UTF-8 is no source code navigation can show (it answers "not text"): summarized as prose.
    const isCode = outlineLanguageOf(node.name) !== null && !isBinary(node, data) && isUtf8(data);
    const generator = isCode ? CODE_GENERATOR : this.summarizer.generator;
    if (!stored || stored.sha256 !== node.sha256 || stored.generator !== generator) {
      const content = indexableText(node, data);
      const code = isCode ? codeSummary(node.name, content) : null;
      const abstract = code ? code.abstract : await this.summarizer.fileAbstract('ctx://' + m.path, node.name, content);
      const record: FileAbstract = { abstract, sha256: node.sha256 ?? '', generator };
      if (code) record.overview = code.overview;
      extra.push(this.host.kv.putJsonOp(absKey(m.account, m.path), record));
      // The outline itself, for code navigation (the `code-outlines` service): a search after an
      // import reads it instead of parsing the file again.
      if (code) extra.push(this.host.kv.putJsonOp(outlineKey(m.account, m.path), { sha256: node.sha256 ?? '', outline: code.outline } satisfies StoredOutline));
    }
    await this.enqueue(this.parentRefresh(m.account, m.path), [{ account: m.account, path: m.path, level: 2, op: 'upsert' }], extra);
  }

  private async existing(account: string, paths: string[]): Promise<Set<string>> {
    const nodes = await this.host.unscopedVfs.statMany(account, paths);
    return new Set(paths.filter((_, i) => nodes[i] !== null));
  }

  private async deleteAbstracts(account: string, path: string): Promise<void> {
    const ops: KvOp[] = [this.host.kv.delOp(absKey(account, path)), this.host.kv.delOp(outlineKey(account, path))];
    for await (const [key] of this.host.kv.scanPrefix(absKey(account, path + '/'))) ops.push(this.host.kv.delOp(key));
    for await (const [key] of this.host.kv.scanPrefix(outlineKey(account, path + '/'))) ops.push(this.host.kv.delOp(key));
    await this.host.kv.batch(ops);
  }

  /** Regenerates a directory's sidecars from its children, queues its L0/L1 vectors and its parent. */
  private async refreshDir(account: string, dir: Entry): Promise<void> {
    await this.childrenSettled(account, dir.path);
    this.stats.dirRefreshes++;
    const children = (await this.host.unscopedVfs.list(account, dir.path)).filter((c) => !SIDECARS.has(c.name));
    const files = children.filter((c) => c.kind === 'file');
    const dirs = children.filter((c) => c.kind === 'dir');
    const fileAbs = await this.host.kv.getMany(files.map((f) => absKey(account, f.path)));
    const dirAbs = await this.host.unscopedVfs.readMany(account, dirs.map((d) => d.path + '/' + ABSTRACT));
    const counts = await Promise.all(dirs.map(async (d) => (await this.host.unscopedVfs.list(account, d.path)).filter((c) => !SIDECARS.has(c.name)).length));
    const info: ChildInfo[] = [];
    dirs.forEach((d, i) => info.push({ name: d.name, kind: 'dir', size: 0, entries: counts[i], abstract: dirAbs[i] ? splitHeader(dirAbs[i]!.toString('utf8')).body.trim() : '' }));
    files.forEach((f, i) => {
      const a = fileAbs[i] ? (JSON.parse(fileAbs[i]!.toString('utf8')) as FileAbstract).abstract : '';
      info.push({ name: f.name, kind: 'file', size: f.size, abstract: a });
    });
    const uri = 'ctx://' + dir.path;
    const { abstract, overview } = await this.summarizer.dir(uri, dir.name, info);
    const sourceSha = sha256Of(Buffer.from(JSON.stringify(info)));
    // An LLM that failed leaves the extractive text: its sidecar says so, so that find can tell a
    // listing of names from a summary (buildDoc `listing`).
    const gen = (text: string, extractive: string) => (text === extractive ? FALLBACK_GENERATOR : this.summarizer.generator);
    const kept = await this.writeSidecar(account, dir.path, ABSTRACT, 0, abstract, sourceSha, gen(abstract, fallbackDirAbstract(dir.name, info)));
    const l1 = kept === abstract ? overview : overview.replace(abstract, kept);
    await this.writeSidecar(account, dir.path, OVERVIEW, 1, l1, sourceSha, gen(overview, fallbackDirOverview(uri, dir.name, abstract, info)));
    await this.enqueue(this.parentRefresh(account, dir.path), [0, 1].map((level) => ({ account, path: dir.path, level: level as 0 | 1, op: 'upsert' as const })));
  }

  /**
   * Writes a sidecar unless its body is unchanged; never recreates a directory removed meanwhile.
   * Author-written text is kept: a `mkdir` description, or a body that differs from what this
   * processor last wrote there (a user edit). Returns the body the sidecar holds afterwards.
   */
  private async writeSidecar(account: string, dir: string, name: string, level: 0 | 1, body: string, sourceSha: string, generator: string): Promise<string> {
    const path = dir + '/' + name;
    const mineKey = `w${S}${account}${S}${path}`;
    const lock = await this.host.unscopedVfs.locks.acquire(account, path, 'path', 'retrieval');
    try {
      const d = await this.host.unscopedVfs.stat(account, dir);
      if (!d || d.kind !== 'dir') return body;
      const [old] = await this.host.unscopedVfs.readMany(account, [path]);
      if (old) {
        const { header, body: oldBody } = splitHeader(old.toString('utf8'));
        if (oldBody === body) return body;
        const lastMine = await this.host.kv.get(mineKey);
        const authored = header?.fields.generator === 'mkdir' ? oldBody.trim() !== d.name && oldBody.trim() !== '' : lastMine ? lastMine.toString('utf8') !== sha256Of(Buffer.from(oldBody)) : oldBody.trim() !== '';
        if (authored) return oldBody.trim();
      }
      const header = formatHeader('meta', {
        uri: 'ctx://' + dir,
        level,
        generator,
        ...(this.summarizer.model && generator !== FALLBACK_GENERATOR ? { model: this.summarizer.model } : {}),
        source_sha256: sourceSha,
        generated_at: new Date().toISOString(),
      });
      await this.host.unscopedVfs.writeFile(account, path, Buffer.from(header + body, 'utf8'), { mode: 'replace', lock, hint: { source: 'retrieval-semantic' } });
      await this.host.kv.put(mineKey, sha256Of(Buffer.from(body)));
      return body;
    } finally {
      lock.release();
    }
  }

  // ------------------------------------------------------------------------------------ Embedding

  private async embedding(qm: QueueMessage<EmbeddingMessage>): Promise<void> {
    const m = qm.payload;
    await this.untilDurable(m);
    await this.serialized(`e${S}${m.account}${S}${m.path}${S}${m.level}`, () => this.embedOne(m));
  }

  private async embedOne(m: EmbeddingMessage): Promise<void> {
    if (m.op === 'delete') {
      this.stats.deleted += await this.store.remove(m.account, m.path, { level: m.level });
      return;
    }
    const place = this.store.placement(m.path);
    const node = place ? await this.host.unscopedVfs.stat(m.account, m.path) : null;
    const wantKind = m.level === 2 ? 'file' : 'dir';
    if (!place || !node || node.kind !== wantKind) {
      this.stats.deleted += await this.store.remove(m.account, m.path, { level: m.level });
      return;
    }
    const [doc, old] = await Promise.all([this.buildDoc(m, node, place), this.store.get(m.account, m.path, m.level)]);
    if (old && old.sourceSha === doc.sourceSha && old.text === doc.text && old.embedder === doc.embedder) {
      this.stats.skippedUnchanged++;
      if (JSON.stringify(old.attrs) !== JSON.stringify(doc.attrs) || old.abstract !== doc.abstract || old.overview !== doc.overview || !old.listing !== !doc.listing) await this.store.updateAttrs(doc);
      return;
    }
    await this.upsertBatched(doc);
    this.stats.embedded++;
  }

  private upserts: Array<{ doc: RecordDoc; done: (err?: unknown) => void }> = [];
  /** Flush loops running: two, so one embeds while the other's batch is committed and indexed. */
  private lanes = 0;
  static UPSERT_LANES = 2;

  /**
   * Concurrent Embedding messages are embedded and stored together: one embedder call, one RocksDB
   * batch and one index update per batch. At most two batches are in flight and the next takes
   * every record that arrived meanwhile: the store serializes its writes anyway, and starting a
   * write per message (each a turn of the event loop apart) made batches of ~1 record, so each record
   * paid a RocksDB commit and an index update of its own (bench/RESULTS.md, write-to-findable).
   */
  private upsertBatched(doc: RecordDoc): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.upserts.push({ doc, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (this.lanes >= Indexer.UPSERT_LANES) return;
      this.lanes++;
      setImmediate(() => void this.flushUpserts());
    });
  }

  private async flushUpserts(): Promise<void> {
    while (this.upserts.length) {
      const items = this.upserts.splice(0, 256);
      try {
        const docs = items.map((i) => i.doc);
        const vecs = await this.store.embedder.embed(docs.map((d) => d.text), 'document');
        // A record supplied while this one was embedded (a pack's or a migration's vectors) stands.
        await this.store.upsert(docs, vecs, { keepEquivalent: true });
        for (const i of items) i.done();
      } catch (err) {
        for (const i of items) i.done(err);
      }
    }
    this.lanes--;
  }

  private get embedderTag(): string {
    return this.store.embedderTag();
  }

  private async buildDoc(m: EmbeddingMessage, node: Entry, place: NonNullable<Placement | null>): Promise<RecordDoc> {
    const attrs = this.store.recordAttrs(m.account, m.path, m.level, node, place);
    const id = this.store.id(m.account, m.path, m.level);
    if (m.level === 2) {
      const [[content], abs] = await Promise.all([this.host.unscopedVfs.readMany(m.account, [m.path]), this.host.kv.getJson<FileAbstract>(absKey(m.account, m.path))]);
      const body = splitHeader(indexableText(node, content ?? Buffer.alloc(0))).body;
      // An abstract of older content (a vectors-only import changed the file since) does not describe it.
      const current = abs && (!abs.sha256 || abs.sha256 === node.sha256);
      const abstract = current ? abs.abstract : truncateTokens(body, 100);
      // A code file's outline names its symbols: embedded before the body the budget may cut.
      const overview = current ? abs.overview : undefined;
      const text = truncateTokens(overview ? `${node.name}\n${abstract}\n${overview}\n${body}` : `${node.name}\n${abstract}\n${body}`, L2_TOKEN_BUDGET);
      return { id, path: m.path, level: 2, attrs, text, abstract, ...(overview ? { overview } : {}), kind: 'file', size: node.size, sourceSha: node.sha256, embedder: this.embedderTag };
    }
    const [l0, l1] = await this.host.unscopedVfs.readMany(m.account, [m.path + '/' + ABSTRACT, m.path + '/' + OVERVIEW]);
    const abstract = l0 ? splitHeader(l0.toString('utf8')).body.trim() : '';
    const overview = l1 ? splitHeader(l1.toString('utf8')).body.trim() : '';
    const text = m.level === 0 ? `${node.name}\n${abstract}` : truncateTokens(`${node.name}\n${overview}`, L2_TOKEN_BUDGET);
    const listing = await this.isListing(m.account, m.path + '/' + (m.level === 0 ? ABSTRACT : OVERVIEW), m.level === 0 ? l0 : l1, node.name);
    return { id, path: m.path, level: m.level, attrs, text, abstract, overview, kind: 'dir', size: node.size, sourceSha: sha256Of(Buffer.from(text)), embedder: this.embedderTag, ...(listing ? { listing } : {}) };
  }

  /**
   * Whether a directory record's text only lists its children (docs/retrieval.md, "Directory
   * records"): no sidecar, an `mkdir` without a description, or the extractive generator's text as
   * this processor wrote it. An LLM summary, an `mkdir` description and a sidecar edited by its
   * author are real descriptions.
   */
  private async isListing(account: string, path: string, sidecar: Buffer | undefined, name: string): Promise<boolean> {
    if (!sidecar) return true;
    const { header, body } = splitHeader(sidecar.toString('utf8'));
    const generator = header?.fields.generator;
    if (generator === 'mkdir') return body.trim() === '' || body.trim() === name;
    if (generator !== FALLBACK_GENERATOR) return false;
    const lastMine = await this.host.kv.get(`w${S}${account}${S}${path}`);
    return !lastMine || lastMine.toString('utf8') === sha256Of(Buffer.from(body.trim())) || lastMine.toString('utf8') === sha256Of(Buffer.from(body));
  }

  private async dropAbstracts(account: string): Promise<void> {
    const ops: KvOp[] = [];
    for await (const [key] of this.host.kv.scanPrefix(absKey(account, ''))) ops.push(this.host.kv.delOp(key));
    for await (const [key] of this.host.kv.scanPrefix(outlineKey(account, ''))) ops.push(this.host.kv.delOp(key));
    await this.host.kv.batch(ops);
  }

  /**
   * Stored outlines of code files (null where none is stored or the file changed since), for the
   * `code-outlines` service. The caller has checked the caller may read these paths.
   */
  async outlines(account: string, files: Array<{ path: string; sha256?: string }>): Promise<Array<CodeOutline | null>> {
    const raw = await this.host.kv.getMany(files.map((f) => outlineKey(account, f.path)));
    return raw.map((b, i) => {
      if (!b || !files[i]!.sha256) return null;
      const v = JSON.parse(b.toString('utf8')) as StoredOutline;
      return v.sha256 === files[i]!.sha256 ? v.outline : null;
    });
  }

  /**
   * Cluster mode: queues re-embedding of the records of `accounts` (one shard this node leads; called in the
   * shard's write context, so the messages, the old vectors' deletes and `extra` — the shard's
   * embedder marker, in the last batch — are appended to the shard's log). Returns the count.
   */
  async reembedShard(accounts: string[], extra: KvOp[]): Promise<number> {
    let batch: EmbeddingMessage[] = [];
    let drops: KvOp[] = [];
    let n = 0;
    for (const account of accounts)
      for await (const d of this.store.recordsOf(account)) {
        batch.push({ account: d.attrs.account, path: d.path, level: d.level, op: 'upsert' });
        drops.push(this.store.vectorDelOp(d.attrs.account, d.id));
        if (batch.length >= 512) {
          n += batch.length;
          await this.enqueue([], batch, drops);
          batch = [];
          drops = [];
        }
      }
    n += batch.length;
    await this.enqueue([], batch, [...drops, ...extra]);
    return n;
  }

  /** Queues re-embedding of every stored record (embedder changed). */
  async reembedAll(): Promise<number> {
    let batch: EmbeddingMessage[] = [];
    let n = 0;
    for await (const d of this.store.allRecords()) {
      batch.push({ account: d.attrs.account, path: d.path, level: d.level, op: 'upsert' });
      if (batch.length >= 512) {
        n += batch.length;
        await this.enqueue([], batch);
        batch = [];
        this.host.log.info('re-embed queued', { records: n });
      }
    }
    n += batch.length;
    await this.enqueue([], batch);
    return n;
  }
}
