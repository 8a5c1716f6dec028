/**
 * Metric families whose children are resolved once and then updated with plain arithmetic.
 *
 * A general client's `labels(...).observe(v)` builds a label object and hashes it on every call;
 * on the request path (fs/stat costs tens of µs) that is a visible share of the request. These
 * families keep each child as a small object with numeric fields (a histogram's buckets in one
 * Float64Array) and its label text made once; a scrape writes the text exposition straight from
 * those numbers (`render`), allocating strings only.
 */
import { formatValue, header, labelText, withLabel } from './exposition.js';

/** What the registry renders: one family's `# HELP`, `# TYPE` and samples, each line ending in \n. */
export interface RegistrableMetric {
  readonly name: string;
  render(): string | Promise<string>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function checkNames(name: string, labelNames: readonly string[]): void {
  if (!NAME.test(name)) throw new Error(`invalid metric name ${JSON.stringify(name)}`);
  for (const l of labelNames) if (!LABEL.test(l) || l.startsWith('__') || l === 'le') throw new Error(`invalid label name ${JSON.stringify(l)} on ${name}`);
}

/** One child and its label text (a class, not a literal: its shape is this file's own). */
class Entry<C> {
  constructor(readonly labels: string, readonly child: C) {}
}

abstract class Family<C> implements RegistrableMetric {
  protected readonly children = new Map<string, Entry<C>>();

  constructor(readonly name: string, readonly help: string, readonly labelNames: readonly string[]) {
    checkNames(name, labelNames);
  }

  protected abstract make(): C;

  /** The child for these label values: resolve it once (at route registration, at start) and keep it. */
  child(...values: string[]): C {
    return this.attach(values, undefined);
  }

  /**
   * The child for these label values, made from `made` when the family has none yet: a child whose
   * numbers live in its owner's cells (a route's, runtime/metrics/http-metrics.ts) becomes a series
   * of the family when the owner first records into it, not before (no all-zero series).
   */
  attach(values: readonly string[], made: C | undefined): C {
    if (values.length !== this.labelNames.length) throw new Error(`${this.name} takes ${this.labelNames.length} label values (${this.labelNames.join(', ')}), got ${values.length}`);
    const key = values.length === 1 ? values[0]! : values.join('\u0000');
    let entry = this.children.get(key);
    if (!entry) this.children.set(key, (entry = new Entry(labelText(this.labelNames, values), made ?? this.make())));
    return entry.child;
  }

  abstract render(): string;
}

/** A counter's number: one cell of a Float64Array, its own or its owner's (a route keeps all its numbers in one). */
export class CounterChild {
  constructor(
    private readonly cells: Float64Array = new Float64Array(1),
    private readonly at = 0,
  ) {}
  get value(): number {
    return this.cells[this.at]!;
  }
  inc(n = 1): void {
    this.cells[this.at]! += n;
  }
}

export class CounterFamily extends Family<CounterChild> {
  protected make(): CounterChild {
    return new CounterChild();
  }

  render(): string {
    let s = header(this.name, this.help, 'counter');
    for (const e of this.children.values()) s += `${this.name}${e.labels} ${formatValue(e.child.value)}\n`;
    return s;
  }
}

export class GaugeChild {
  value = 0;
  set(v: number): void {
    this.value = v;
  }
  inc(n = 1): void {
    this.value += n;
  }
  dec(n = 1): void {
    this.value -= n;
  }
}

export class GaugeFamily extends Family<GaugeChild> {
  /** Runs before each scrape (a gauge read from its source rather than kept up to date). */
  collect?: () => void;

  protected make(): GaugeChild {
    return new GaugeChild();
  }

  render(): string {
    this.collect?.();
    let s = header(this.name, this.help, 'gauge');
    for (const e of this.children.values()) s += `${this.name}${e.labels} ${formatValue(e.child.value)}\n`;
    return s;
  }
}

/** Seconds: 100 µs to 10 s, about three buckets per decade (sub-millisecond requests resolve). */
export const LATENCY_BUCKETS: readonly number[] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Bytes: 64 B to 256 MiB by powers of four. */
export const SIZE_BUCKETS: readonly number[] = Array.from({ length: 12 }, (_, i) => 64 * 4 ** i);

/** Cells a histogram of `bounds` takes: one per bucket (the last +Inf), then its sum and its count. */
export const histogramCells = (bounds: ArrayLike<number>): number => bounds.length + 3;

/**
 * Adds `v` to the histogram of `bounds` in `cells` from `at`: its bucket (the first bound not below
 * it, `le` being inclusive; the last cell for +Inf), the sum, the count. The bucket is found by a
 * loop from the smallest bound: the fast requests, whose cost matters, stop after one or two.
 * Small on purpose: V8 inlines it into the request path under a shared bytecode budget.
 */
export function observeInto(cells: Float64Array, at: number, bounds: Float64Array, v: number): void {
  const n = bounds.length;
  let i = 0;
  while (i < n && v > bounds[i]!) i++;
  cells[at + i]!++;
  cells[at + n + 1]! += v;
  cells[at + n + 2]!++;
}

/**
 * A histogram's numbers in `histogramCells(bounds)` consecutive cells of a Float64Array from
 * `at`: per bucket (not cumulative: one increment per observation), then the sum, then the count.
 */
export class HistogramChild {
  private readonly bounds: Float64Array;

  constructor(
    bounds: readonly number[] | Float64Array,
    readonly cells: Float64Array = new Float64Array(histogramCells(bounds)),
    readonly at = 0,
  ) {
    this.bounds = bounds instanceof Float64Array ? bounds : Float64Array.from(bounds);
  }

  observe(v: number): void {
    observeInto(this.cells, this.at, this.bounds, v);
  }

  get sum(): number {
    return this.cells[this.at + this.bounds.length + 1]!;
  }

  get count(): number {
    return this.cells[this.at + this.bounds.length + 2]!;
  }
}

export class HistogramFamily extends Family<HistogramChild> {
  readonly buckets: readonly number[];
  /** The same bounds, shared by every child. */
  readonly bounds: Float64Array;
  /** The `le` values as the exposition writes them, the last one +Inf. */
  private readonly les: readonly string[];

  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[] = LATENCY_BUCKETS) {
    super(name, help, labelNames);
    for (let i = 1; i < buckets.length; i++) if (!(buckets[i]! > buckets[i - 1]!)) throw new Error(`${name}: buckets must increase`);
    this.buckets = [...buckets];
    this.bounds = Float64Array.from(buckets);
    this.les = [...buckets.map(formatValue), '+Inf'];
  }

  protected make(): HistogramChild {
    return new HistogramChild(this.bounds);
  }

  render(): string {
    const name = this.name;
    let s = header(name, this.help, 'histogram');
    for (const { labels, child } of this.children.values()) {
      let cumulative = 0;
      for (let i = 0; i < this.les.length; i++) {
        cumulative += child.cells[child.at + i]!;
        s += `${name}_bucket${withLabel(labels, 'le', this.les[i]!)} ${cumulative}\n`;
      }
      s += `${name}_sum${labels} ${formatValue(child.sum)}\n${name}_count${labels} ${child.count}\n`;
    }
    return s;
  }
}

/** What a collected family reads: label values and a value per sample. */
export type CollectedSamples = Iterable<[values: readonly string[], value: number]>;

/**
 * A family whose values are read from their source at scrape time (queue depths, task counts,
 * RocksDB properties, the process's own numbers): nothing is kept up to date, so it costs nothing
 * between scrapes. `type` says how Prometheus treats the numbers (`counter` for monotonic totals
 * the source keeps). A non-finite reading is left out (a source that has no value now).
 */
export class CollectedFamily implements RegistrableMetric {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge',
    readonly labelNames: readonly string[],
    private readonly read: () => CollectedSamples | Promise<CollectedSamples>,
  ) {
    checkNames(name, labelNames);
  }

  async render(): Promise<string> {
    let s = header(this.name, this.help, this.type);
    for (const [labelValues, value] of await this.read()) if (Number.isFinite(value)) s += `${this.name}${labelText(this.labelNames, labelValues)} ${formatValue(value)}\n`;
    return s;
  }
}
