/**
 * Metric families whose children are resolved once and then updated with plain arithmetic.
 *
 * prom-client's own `labels(...).observe(v)` builds a label object and hashes it on every call;
 * on the request path (fs/stat costs tens of µs) that is a visible share of the request. These
 * families keep each child as a small object with numeric fields (a histogram's buckets in one
 * Float64Array) and only build label objects when Prometheus scrapes. They speak prom-client's
 * metric interface (`get()` → `{name, help, type, values, aggregator}`), so prom-client's registry
 * renders them with its own text format next to its default process metrics.
 */

export interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

export interface MetricData {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  values: MetricValue[];
  aggregator: 'sum';
}

/** What prom-client's Registry needs from a metric (`registerMetric`, `getMetricsAsString`). */
export interface RegistrableMetric {
  readonly name: string;
  get(): Promise<MetricData>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function checkNames(name: string, labelNames: readonly string[]): void {
  if (!NAME.test(name)) throw new Error(`invalid metric name ${JSON.stringify(name)}`);
  for (const l of labelNames) if (!LABEL.test(l) || l.startsWith('__') || l === 'le') throw new Error(`invalid label name ${JSON.stringify(l)} on ${name}`);
}

function labelsOf(names: readonly string[], values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) out[names[i]!] = values[i]!;
  return out;
}

abstract class Family<C> implements RegistrableMetric {
  protected readonly children = new Map<string, { labels: Record<string, string>; child: C }>();

  constructor(readonly name: string, readonly help: string, readonly labelNames: readonly string[]) {
    checkNames(name, labelNames);
  }

  protected abstract make(): C;

  /** The child for these label values: resolve it once (at route registration, at start) and keep it. */
  child(...values: string[]): C {
    if (values.length !== this.labelNames.length) throw new Error(`${this.name} takes ${this.labelNames.length} label values (${this.labelNames.join(', ')}), got ${values.length}`);
    const key = values.length === 1 ? values[0]! : values.join('\u0000');
    let entry = this.children.get(key);
    if (!entry) this.children.set(key, (entry = { labels: labelsOf(this.labelNames, values), child: this.make() }));
    return entry.child;
  }

  abstract get(): Promise<MetricData>;
}

export class CounterChild {
  value = 0;
  inc(n = 1): void {
    this.value += n;
  }
}

export class CounterFamily extends Family<CounterChild> {
  protected make(): CounterChild {
    return new CounterChild();
  }

  async get(): Promise<MetricData> {
    const values: MetricValue[] = [];
    for (const { labels, child } of this.children.values()) values.push({ labels, value: child.value });
    return { name: this.name, help: this.help, type: 'counter', values, aggregator: 'sum' };
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

  async get(): Promise<MetricData> {
    this.collect?.();
    const values: MetricValue[] = [];
    for (const { labels, child } of this.children.values()) values.push({ labels, value: child.value });
    return { name: this.name, help: this.help, type: 'gauge', values, aggregator: 'sum' };
  }
}

/** Seconds: 100 µs to 10 s, about three buckets per decade (sub-millisecond requests resolve). */
export const LATENCY_BUCKETS: readonly number[] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Bytes: 64 B to 256 MiB by powers of four. */
export const SIZE_BUCKETS: readonly number[] = Array.from({ length: 12 }, (_, i) => 64 * 4 ** i);

export class HistogramChild {
  /** Per bucket (not cumulative: one increment per observation); the last slot is +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    this.counts[i]!++;
    this.sum += v;
    this.count++;
  }
}

export class HistogramFamily extends Family<HistogramChild> {
  readonly buckets: readonly number[];

  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[] = LATENCY_BUCKETS) {
    super(name, help, labelNames);
    for (let i = 1; i < buckets.length; i++) if (!(buckets[i]! > buckets[i - 1]!)) throw new Error(`${name}: buckets must increase`);
    this.buckets = [...buckets];
  }

  protected make(): HistogramChild {
    return new HistogramChild(this.buckets);
  }

  async get(): Promise<MetricData> {
    const values: MetricValue[] = [];
    const bucketName = this.name + '_bucket';
    for (const { labels, child } of this.children.values()) {
      let cumulative = 0;
      for (let i = 0; i <= this.buckets.length; i++) {
        cumulative += child.counts[i]!;
        values.push({ metricName: bucketName, labels: { ...labels, le: i < this.buckets.length ? this.buckets[i]! : '+Inf' }, value: cumulative });
      }
      values.push({ metricName: this.name + '_sum', labels, value: child.sum });
      values.push({ metricName: this.name + '_count', labels, value: child.count });
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
  }
}

/**
 * A family whose values are read from their source at scrape time (queue depths, task counts,
 * RocksDB properties): nothing is kept up to date, so it costs nothing between scrapes. `type`
 * says how Prometheus treats the numbers (`counter` for monotonic totals the source keeps).
 */
export class CollectedFamily implements RegistrableMetric {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge',
    readonly labelNames: readonly string[],
    private readonly read: () => Iterable<[values: readonly string[], value: number]> | Promise<Iterable<[values: readonly string[], value: number]>>,
  ) {
    checkNames(name, labelNames);
  }

  async get(): Promise<MetricData> {
    const values: MetricValue[] = [];
    for (const [labelValues, value] of await this.read()) if (Number.isFinite(value)) values.push({ labels: labelsOf(this.labelNames, labelValues), value });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' };
  }
}
