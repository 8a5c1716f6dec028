/**
 * Identity writes from any node (docs/scale-out.md, "Identity writes"): every batch of the identity
 * registry belongs to the system shard, whatever request (or no request) made it — start-up
 * bootstrap of the `default` account, dev/trusted-mode account creation, a task creating users.
 * On the system shard's leader it is appended there directly; elsewhere it is sent over NATS
 * (request/reply on `ctx.sys.submit`, answered only by the leader) and this node then waits until
 * it has applied the record itself, so its own next read sees the change.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { KvOp } from '../storage/backend.js';
import type { Logger } from '../logger.js';
import { decodeRecord, encodeRecord } from './mutation-record.js';
import { SYS_SHARD, type Replicator } from './replicator.js';
import { unavailable } from './shard-log.js';

export const SYS_SUBMIT_SUBJECT = 'ctx.sys.submit';
export const IDENTITY_PREFIX = 'identity\x00';

export const isIdentityBatch = (ops: KvOp[]): boolean => ops.length > 0 && ops.every((o) => o.key.startsWith(IDENTITY_PREFIX));

export class SystemWrites {
  private sub?: Subscription;
  private counter = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly replicator: Replicator,
    private readonly node: string,
    /** How long a sender waits for a system leader (a failover) and for its own apply. */
    private readonly waitMs: number,
    private readonly log: Logger,
  ) {}

  /** This node now leads the system shard: it appends the identity batches other nodes send. */
  serve(): void {
    if (this.sub) return;
    const sub = this.nc.subscribe(SYS_SUBMIT_SUBJECT);
    this.sub = sub;
    void (async () => {
      for await (const m of sub) {
        let ops: KvOp[];
        try {
          ops = decodeRecord(m.data).ops;
        } catch (err) {
          m.respond(JSON.stringify({ error: `undecodable identity batch: ${(err as Error).message}` }));
          continue;
        }
        // Only identity keys are accepted here: this subject is no general back door into the log.
        if (!isIdentityBatch(ops)) {
          m.respond(JSON.stringify({ error: 'only identity keys may be submitted to the system shard' }));
          continue;
        }
        this.replicator
          .shard(SYS_SHARD)
          .submit(ops)
          .then(
            (seq) => m.respond(JSON.stringify({ seq })),
            (err: unknown) => m.respond(JSON.stringify({ error: (err as Error)?.message ?? String(err) })),
          );
      }
    })().catch((err: unknown) => this.log.warn('system shard submissions stopped', { error: err }));
  }

  stop(): void {
    this.sub?.unsubscribe();
    this.sub = undefined;
  }

  /**
   * Appends an identity batch through the system shard's leader and waits until it is applied here.
   * Retried while no leader answers (a failover); a batch re-sent after an unanswered attempt is
   * the same puts and deletes again, so appending it twice changes nothing.
   */
  async submit(ops: KvOp[]): Promise<number> {
    const data = encodeRecord(this.node, `sys.${this.node}.${Date.now().toString(36)}.${++this.counter}`, ops, Number.MAX_SAFE_INTEGER)[0]!;
    const end = Date.now() + this.waitMs;
    let last = 'no leader of the system shard answered';
    for (;;) {
      try {
        const reply = await this.nc.request(SYS_SUBMIT_SUBJECT, data, { timeout: Math.max(500, Math.min(5000, end - Date.now())) });
        const r = JSON.parse(new TextDecoder().decode(reply.data)) as { seq?: number; error?: string };
        if (r.seq !== undefined) {
          if (!(await this.replicator.shard(SYS_SHARD).waitApplied(r.seq, Math.max(1000, end - Date.now()))))
            throw unavailable(`the identity change is in the log (sys:${r.seq}) but not applied on this node yet; retry the read`, { shard: SYS_SHARD });
          return r.seq;
        }
        last = r.error ?? last;
      } catch (err) {
        if ((err as { code?: string }).code === 'UNAVAILABLE') throw err;
        last = (err as Error).message;
      }
      if (Date.now() >= end) throw unavailable(`identity changes go through the system shard's leader: ${last}; retry`, { shard: SYS_SHARD });
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Resolves once this node has applied the system shard as far as the stream held when asked. */
  async caughtUp(timeoutMs: number): Promise<boolean> {
    const last = await this.replicator.lastSeq(SYS_SHARD);
    return this.replicator.shard(SYS_SHARD).waitApplied(last, timeoutMs);
  }
}
