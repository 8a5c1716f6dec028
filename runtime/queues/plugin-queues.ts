/**
 * `host.queues`: a plugin's handle to its OWN queues. A queue belongs to the first plugin that
 * declares, consumes or enqueues into it; another plugin reaches it (enqueue, consume, counts,
 * waits, dead-letter retries) only after the owner shares it by name
 * (`host.shareQueue('Semantic', ['system'])`). Closing the queues is the host's alone. The names stay
 * the spec's (`Semantic`, `Embedding`: persisted messages and observers use them), so ownership is
 * checked against registrations rather than encoded in the name.
 */
import { PluginError } from '../plugin.js';
import type { KvOp } from '../storage/backend.js';
import type { Consumer, ConsumerOptions, QueueManager, QueueStats, SettleListener } from './queue.js';

/** Ops `prepare` handed out: a commit hook may add them to a change's batch besides its own KV ops. */
const preparedOps = new WeakSet<KvOp>();
export const isPreparedQueueOp = (op: KvOp): boolean => preparedOps.has(op);

/** Who owns each queue and who it is shared with; one per host. */
export class QueueRegistry {
  private readonly owners = new Map<string, { owner: string; shared: Set<string> }>();

  ownerOf(queue: string): string | undefined {
    return this.owners.get(queue)?.owner;
  }

  /** Claims an unowned queue for `plugin`, or checks that `plugin` may use it. */
  claim(plugin: string, queue: string, what: string): void {
    if (typeof queue !== 'string' || queue === '') throw new PluginError('CTX_PLUGIN_INVALID', `plugin ${plugin}: a queue name must be a non-empty string`);
    const entry = this.owners.get(queue);
    if (!entry) {
      this.owners.set(queue, { owner: plugin, shared: new Set() });
      return;
    }
    if (entry.owner !== plugin && !entry.shared.has(plugin))
      throw new PluginError('CTX_PLUGIN_PRIVILEGE', `plugin ${plugin} may not ${what} queue ${queue}: it belongs to plugin ${entry.owner}, which has not shared it (host.shareQueue)`);
  }

  share(plugin: string, queue: string, withPlugins: readonly string[]): void {
    this.claim(plugin, queue, 'share');
    const entry = this.owners.get(queue)!;
    if (entry.owner !== plugin) throw new PluginError('CTX_PLUGIN_PRIVILEGE', `plugin ${plugin} may not share queue ${queue}: only its owner ${entry.owner} may`);
    for (const p of withPlugins) entry.shared.add(p);
  }

  /** The queues `plugin` owns or was given. */
  reachable(plugin: string): string[] {
    const out: string[] = [];
    for (const [name, e] of this.owners) if (e.owner === plugin || e.shared.has(plugin)) out.push(name);
    return out;
  }
}

/** What a plugin may do with the queues it owns or was given (see QueueManager for each call). */
export interface PluginQueues {
  /** Claims a queue (so observers list it while idle); refused when another plugin owns it. */
  declare(name: string): void;
  /** The queues this plugin owns or was given. */
  names(): string[];
  prepare<P>(name: string, payload: P, opts?: { taskId?: string; dedupeKey?: string }): { ops: KvOp[]; activate: () => void } | null;
  enqueue<P>(name: string, payload: P, opts?: { taskId?: string; dedupeKey?: string }): Promise<boolean>;
  hasConsumer(name: string): boolean;
  /** `queues` default: every queue this plugin reaches. */
  countPending(pred: (payload: unknown) => boolean, queues?: string[]): number;
  countPendingAt(account: string, paths: readonly string[], queues: string[]): number;
  countPendingBelow(account: string, dir: string, queues: string[]): number;
  countPendingChildren(account: string, dir: string, queues: string[]): number;
  waitFor(pred: (payload: unknown) => boolean, queues: string[], timeoutMs?: number): Promise<boolean>;
  /** Settled messages of the reachable queues only. */
  onSettle(fn: SettleListener): () => void;
  matching(pred: (payload: unknown) => boolean): Promise<{ pending: number; dead: number }>;
  retryDead(pred: (payload: unknown) => boolean): Promise<{ retried: number; failed: number }>;
  stats(): Record<string, QueueStats>;
  /** Until no reachable queue with a consumer holds work; false on timeout. */
  waitIdle(timeoutMs?: number): Promise<boolean>;
  /** True once the host closed the queues (shutdown): nothing will run any more. */
  readonly isClosed: boolean;
}

export function pluginQueues(plugin: string, manager: QueueManager, registry: QueueRegistry): PluginQueues & { consume<P>(name: string, c: Consumer<P>, o?: ConsumerOptions): void } {
  const use = (name: string, what: string) => registry.claim(plugin, name, what);
  const useAll = (names: readonly string[], what: string) => {
    for (const n of names) use(n, what);
    return [...names];
  };
  const reach = () => registry.reachable(plugin);
  return {
    declare(name) {
      use(name, 'declare');
      manager.declare(name);
    },
    names: () => reach().filter((n) => manager.names().includes(n)),
    prepare(name, payload, opts) {
      use(name, 'enqueue into');
      const prepared = manager.prepare(name, payload, opts);
      for (const op of prepared?.ops ?? []) preparedOps.add(op);
      return prepared;
    },
    enqueue(name, payload, opts) {
      use(name, 'enqueue into');
      return manager.enqueue(name, payload, opts);
    },
    hasConsumer(name) {
      use(name, 'inspect');
      return manager.hasConsumer(name);
    },
    countPending: (pred, queues) => manager.countPending(pred, queues ? useAll(queues, 'count') : reach()),
    countPendingAt: (account, paths, queues) => manager.countPendingAt(account, paths, useAll(queues, 'count')),
    countPendingBelow: (account, dir, queues) => manager.countPendingBelow(account, dir, useAll(queues, 'count')),
    countPendingChildren: (account, dir, queues) => manager.countPendingChildren(account, dir, useAll(queues, 'count')),
    waitFor: (pred, queues, timeoutMs) => manager.waitFor(pred, useAll(queues, 'wait for'), timeoutMs),
    onSettle(fn) {
      return manager.onSettle((queue, msg, error) => {
        if (reach().includes(queue)) fn(queue, msg, error);
      });
    },
    matching: (pred) => manager.matching(pred, reach()),
    retryDead: (pred) => manager.retryDead(pred, reach()),
    stats() {
      const all = manager.stats();
      const out: Record<string, QueueStats> = {};
      for (const n of reach()) if (all[n]) out[n] = all[n];
      return out;
    },
    waitIdle(timeoutMs) {
      const mine = reach();
      // Every queue with work to wait for is reachable: the manager's idle signal answers exactly.
      if (manager.names().every((n) => mine.includes(n) || !manager.hasConsumer(n))) return manager.waitIdle(timeoutMs);
      return manager.waitFor(() => true, mine.filter((n) => manager.hasConsumer(n)), timeoutMs);
    },
    get isClosed() {
      return manager.isClosed;
    },
    consume(name, consumer, opts) {
      use(name, 'consume');
      manager.consume(name, consumer, opts);
    },
  };
}
