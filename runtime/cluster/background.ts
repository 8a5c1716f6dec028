/**
 * Background work on the shard's leader (docs/scale-out.md, "Background work"): queue deliveries,
 * task runs, watches and idle auto-commits of an account run only on the node that leads the
 * account's shard, inside that shard's write context so everything they write (queue progress,
 * task records, derived files and vectors) is appended to the shard's log, never written locally
 * alone. They start when the lease is gained (after the stream is applied) and stop when it is lost.
 *
 * The queue and task managers and the plugins see only this interface (`import type`): single-node
 * mode has no gate and runs everything as before.
 */
import type { ShardLog } from './shard-log.js';

export interface BackgroundGate {
  /** The shard whose write context the caller is in (a request's or a delivery's), if any. */
  current(): string | undefined;
  /** The shard an account's data lives in; the system shard for no account. */
  shardOf(account: string | undefined): string;
  /** True while this node holds the shard's lease and has applied its whole stream. */
  leads(shard: string): boolean;
  /** Runs `fn` in the shard's write context: its `Kv.batch`es are appended to that shard's log. */
  run<T>(shard: string, fn: () => T): T;
  /**
   * A queue message sequence no other shard's leader can hand out: shard-partitioned so that two
   * leaders enqueuing at once never write the same queue key. `floor` is the highest seen so far.
   */
  seqBase(shard: string): number;
  onLeading(fn: (shard: string) => void): void;
  onLosing(fn: (shard: string) => void): void;
}

/** Sequence space per shard: 2^40 messages each, below 2^53 up to 8,190 shards. */
export const SEQ_SPAN = 2 ** 40;

/** Where a shard's queue sequences start (its messages are `seqBaseOf(shard)` + 1 … + `SEQ_SPAN`). */
export const seqBaseOf = (shard: string): number => (shard === 'sys' ? 1 : Number(shard) + 2) * SEQ_SPAN;

export function createBackgroundGate(parts: {
  shard(id: string): ShardLog;
  shardOfAccount(account: string): string;
  sysShard: string;
  run<T>(shard: string, fn: () => T): T;
  current(): string | undefined;
}): BackgroundGate & { leading(shard: string): void; losing(shard: string): void } {
  const leading: Array<(shard: string) => void> = [];
  const losing: Array<(shard: string) => void> = [];
  const call = (fns: Array<(shard: string) => void>, shard: string) => {
    for (const f of fns) f(shard);
  };
  return {
    current: parts.current,
    shardOf: (account) => (account === undefined ? parts.sysShard : parts.shardOfAccount(account)),
    leads: (shard) => {
      const s = parts.shard(shard);
      return s.leading && s.ready;
    },
    run: parts.run,
    seqBase: (shard) => (shard === parts.sysShard ? SEQ_SPAN : seqBaseOf(shard)),
    onLeading: (fn) => void leading.push(fn),
    onLosing: (fn) => void losing.push(fn),
    leading: (shard) => call(leading, shard),
    losing: (shard) => call(losing, shard),
  };
}
