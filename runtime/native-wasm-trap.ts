/**
 * What the wasm core does when it traps. Natively a panic in the core becomes an `INTERNAL` error
 * (`guard`, core-native/napi/src/error.rs); under wasm it cannot: wasm32 has no unwinding, a
 * panic aborts, and an abort is a trap, a `WebAssembly.RuntimeError` thrown out of the call that
 * leaves the instance as the panic found it (locks held, the panic counter raised, emnapi's scopes
 * open), so later calls into it hang, trap again or fail in odd ways.
 *
 * So every export of the wasm core is called through a wrapper: a trap becomes an `INTERNAL`
 * error that says what happened, the instance is marked dead and a fresh one is loaded for the
 * calls that follow. Objects the dead instance made (a `VectorIndex`, a `NeuralEmbedder`) live in
 * its memory and cannot move: every later call on them fails at once with the same clear
 * `INTERNAL` error instead of calling into the dead instance, and their owners reload them (an
 * index from its file or from RocksDB). The classes the runtime exports are facades that construct
 * on, and call the statics of, the live instance.
 *
 * A trap in async work happens on a wasi thread (a Worker): emnapi's thread manager then shuts the
 * instance's thread pool down, rethrows the error on the main thread (an uncaught exception: the
 * process would exit) and leaves the call's promise pending forever. Its `fail` and each worker's
 * error handler are wrapped so that the error goes here instead: the instance is marked dead, its
 * pending calls are rejected with the `INTERNAL` error, and a fresh instance is loaded.
 */
import { createRequire } from 'node:module';
import type * as Core from '#core-native';

type CoreModule = typeof Core;
type AnyFn = (...args: unknown[]) => unknown;
type AnyClass = (abstract new (...args: never[]) => unknown) & Record<string, unknown>;

interface Instance {
  core: CoreModule;
  generation: number;
  dead: boolean;
  /** The rejections of its async calls still running. */
  pending: Set<(err: Error) => void>;
  /** Each class's statics, wrapped (the classes' own are read-only). */
  statics: Map<string, Map<PropertyKey, AnyFn>>;
}

const coded = (message: string, cause?: unknown): Error => Object.assign(new Error(message, { cause }), { code: 'INTERNAL' });

/** A napi class (methods on its prototype) rather than a plain exported function. */
const isClass = (v: unknown): v is AnyClass => typeof v === 'function' && !!v.prototype && Object.getOwnPropertyNames(v.prototype).length > 1;

export class WasmCore {
  private inst: Instance;
  private restarts = 0;

  /**
   * `first` is the loaded wasm core; `loadFresh` loads another instance of it; `onRestart` is told
   * the new (wrapped) module after a trap.
   */
  constructor(
    first: CoreModule,
    private readonly loadFresh: () => CoreModule,
    private readonly onRestart: (core: CoreModule) => void,
  ) {
    this.inst = this.instrument(this.newInstance(0), first);
    this.guardThreads(this.inst);
  }

  private newInstance(generation: number): Instance {
    return { core: {} as CoreModule, generation, dead: false, statics: new Map(), pending: new Set() };
  }

  /** The instance being loaded, whose thread manager starts its workers meanwhile. */
  private loading: Instance | undefined;

  /**
   * Routes a trap on a wasi thread to `fault` instead of an uncaught exception (see the module
   * comment). Each thread manager belongs to the instance current (or loading) when it first
   * loads a worker; the first instance's pool started before this ran, hence the default.
   */
  private guardThreads(first: Instance): void {
    type Tm = {
      loadWasmModuleToWorker: (w: { onerror?: unknown }, ...rest: unknown[]) => unknown;
      fail: (value: unknown, rethrow?: boolean) => void;
      dropFailedLoad?: (w: unknown) => void;
    };
    const { ThreadManager } = createRequire(import.meta.url)('@emnapi/core') as { ThreadManager?: { prototype: Tm } };
    const proto = ThreadManager?.prototype;
    if (!proto || typeof proto.loadWasmModuleToWorker !== 'function' || typeof proto.fail !== 'function') return;
    const owners = new WeakMap<object, Instance>();
    const ownerOf = (tm: object) => owners.get(tm) ?? first;
    const trapped = (tm: object, err: unknown) => {
      this.fault(ownerOf(tm), 'async work', err instanceof Error ? err : new Error(String(err)), true);
    };
    const self = this;
    const load = proto.loadWasmModuleToWorker;
    proto.loadWasmModuleToWorker = function (this: Tm, worker, ...rest) {
      if (!owners.has(this)) owners.set(this, self.loading ?? self.inst);
      const out = load.call(this, worker, ...rest);
      const handler = worker.onerror;
      if (typeof handler === 'function') {
        const tm = this;
        worker.onerror = (e: unknown) => {
          try {
            handler(e);
          } catch (err) {
            trapped(tm, err);
          }
        };
      }
      return out;
    };
    const fail = proto.fail;
    proto.fail = function (this: Tm, value: unknown) {
      fail.call(this, value, false);
      trapped(this, value);
    };
    // A worker that traps before the main thread has counted it as loaded (its first job, under
    // load) is dropped here instead, with neither `fail` nor a throw. Only a dropped worker while
    // calls are waiting is taken for a trap: one that fails to start with nothing running is the
    // thread manager's own business (and must not make a fresh instance restart in a loop).
    const drop = proto.dropFailedLoad;
    if (typeof drop === 'function') {
      proto.dropFailedLoad = function (this: Tm, worker: unknown) {
        drop.call(this, worker);
        if (ownerOf(this).pending.size > 0) trapped(this, new Error('a wasi thread died while loading'));
      };
    }
  }

  /** The live instance's exports, every function wrapped. */
  get core(): CoreModule {
    return this.inst.core;
  }

  /** How many times a trap replaced the instance. */
  get restartCount(): number {
    return this.restarts;
  }

  /** A stable stand-in for one of the core's classes: `new` and the statics go to the live instance. */
  facade<K extends 'VectorIndex' | 'NeuralEmbedder'>(name: K): CoreModule[K] {
    // The target is a bare function, not the class: a proxy must report a class's read-only
    // statics (`prototype`, `loadAsync`) as they are, which would pin them to the first instance.
    const target = function () {} as unknown as object;
    return new Proxy(target, {
      construct: (_t, args) => {
        const inst = this.inst;
        if (inst.dead) throw this.deadError(`new ${name}`);
        try {
          return Reflect.construct(inst.core[name] as unknown as AnyClass, args) as object;
        } catch (err) {
          throw this.fault(inst, `new ${name}`, err);
        }
      },
      get: (_t, prop) => {
        const cls = this.inst.core[name] as unknown as AnyClass;
        return this.inst.statics.get(name)?.get(prop) ?? Reflect.get(cls, prop);
      },
      has: (_t, prop) => prop in (this.inst.core[name] as object),
    }) as CoreModule[K];
  }

  private instrument(inst: Instance, raw: CoreModule): Instance {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(raw)) {
      if (isClass(value)) {
        // The prototype belongs to this instance alone: its methods are wrapped in place, so
        // objects the core makes itself (`loadAsync`'s) get them too.
        const proto = value.prototype as Record<string, unknown>;
        for (const m of Object.getOwnPropertyNames(proto)) {
          const d = Object.getOwnPropertyDescriptor(proto, m);
          if (m !== 'constructor' && typeof d?.value === 'function' && d.configurable) {
            Object.defineProperty(proto, m, { ...d, value: this.wrap(inst, `${name}.${m}`, d.value as AnyFn) });
          }
        }
        const statics = new Map<PropertyKey, AnyFn>();
        for (const s of Object.getOwnPropertyNames(value)) {
          const v = (value as Record<string, unknown>)[s];
          if (typeof v === 'function' && s !== 'constructor') statics.set(s, this.wrap(inst, `${name}.${s}`, (v as AnyFn).bind(value)));
        }
        inst.statics.set(name, statics);
        out[name] = value;
      } else {
        out[name] = typeof value === 'function' ? this.wrap(inst, name, value as AnyFn) : value;
      }
    }
    inst.core = out as CoreModule;
    return inst;
  }

  private wrap(inst: Instance, name: string, fn: AnyFn): AnyFn {
    const self = this;
    return function (this: unknown, ...args: unknown[]) {
      if (inst.dead) throw self.deadError(name);
      let out: unknown;
      try {
        out = fn.apply(this, args);
      } catch (err) {
        throw self.fault(inst, name, err);
      }
      if (!(out instanceof Promise)) return out;
      // Settled by the call, or rejected by `fault` when the instance dies first (a trap on a
      // wasi thread leaves the call's own promise pending forever).
      return new Promise((resolve, reject) => {
        inst.pending.add(reject);
        out.then(
          (v) => (inst.pending.delete(reject), resolve(v)),
          (err: unknown) => (inst.pending.delete(reject), reject(self.fault(inst, name, err))),
        );
      });
    };
  }

  /** The error to throw for `err` out of `name`: unchanged unless it is a trap. */
  private fault(inst: Instance, name: string, err: unknown, trap = err instanceof WebAssembly.RuntimeError): unknown {
    if (!trap) return err;
    const message = (e: unknown) =>
      `the wasm core trapped in ${name} (${e instanceof Error ? e.message : String(e)}): a panic in the core, which aborts under wasm; ` +
      `the instance was replaced (restart ${this.restarts}), and objects it had made fail from now on: reload them`;
    if (!inst.dead) {
      inst.dead = true;
      if (inst === this.inst) this.restart();
      for (const reject of inst.pending) reject(coded(message(err), err));
      inst.pending.clear();
    }
    return coded(message(err), err);
  }

  private deadError(name: string): Error {
    return coded(`${name}: this object belongs to a wasm core instance that trapped and was replaced; reload it (a new object lives in the new instance)`);
  }

  private restart(): void {
    const next = this.newInstance(this.inst.generation + 1);
    this.loading = next;
    try {
      this.inst = this.instrument(next, this.loadFresh());
      this.restarts++;
      this.onRestart(this.inst.core);
    } catch (err) {
      // Nothing to run on: the dead instance stays current and every call says why.
      console.error('core-native (wasm): reloading after a trap failed:', err);
    } finally {
      this.loading = undefined;
    }
  }
}
