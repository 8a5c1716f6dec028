/**
 * The app's metrics: the runtime's families, the plugins' own (`host.metrics`) and the model-call
 * families, with the process's (`process-metrics.ts`), rendered as the Prometheus text format by
 * `GET /metrics`.
 *
 * Why no client library (prom-client, or the OpenTelemetry SDK's Prometheus exporter): the
 * families here record into plain numeric fields on the request path and render their own text
 * at scrape time, with no intermediate objects. prom-client, which rendered them at first,
 * keeps its own samples as `{value, labels}` object literals and adds to them with `value +=`:
 * V8 gives every literal starting with `value` the same hidden class (the router's matches, for
 * one), so the first scrape generalised that shape and deoptimised the optimised request path
 * (fs/stat ~10-20% more CPU per request for ~10k requests after it; bench/RESULTS.md, issue 24).
 * The OpenTelemetry exporter brings the whole metrics SDK, an HTTP server of its own and
 * per-measurement attribute handling. The text format is small and stable (0.0.4), and the output
 * is checked by `promtool check metrics` in the tests.
 */
import { PROMETHEUS_CONTENT_TYPE } from './exposition.js';
import { CounterFamily, GaugeFamily, HistogramFamily, type CounterChild, type GaugeChild, type HistogramChild, type RegistrableMetric } from './families.js';
import { modelFamilies } from './model-metrics.js';
import { processFamilies } from './process-metrics.js';

export type MetricsAccess = 'off' | 'loopback' | 'token';

/** Label names that would carry an id or a URI: refused on plugin metrics (cardinality and privacy). */
const IDENTIFYING_LABELS = new Set(['account', 'account_id', 'user', 'user_id', 'uri', 'path', 'url', 'key', 'api_key', 'session_id', 'task_id', 'peer']);

export class Metrics {
  /** Every family in registration order (the order of the exposition). */
  private readonly families = new Map<string, RegistrableMetric>();

  constructor(readonly accountLabel: boolean) {
    for (const f of modelFamilies()) this.add(f);
  }

  /**
   * Starts the process collectors (event-loop delay, GC observer): once per process, when the
   * first app with metrics on is made, so that a scrape starts nothing new in a warm server.
   */
  startProcessCollectors(): void {
    processFamilies();
  }

  add<M extends RegistrableMetric>(metric: M): M {
    if (this.families.has(metric.name)) throw new Error(`A metric with the name ${metric.name} has already been registered.`);
    this.families.set(metric.name, metric);
    return metric;
  }

  has(name: string): boolean {
    return this.families.has(name);
  }

  get contentType(): string {
    return PROMETHEUS_CONTENT_TYPE;
  }

  /** The Prometheus text exposition of this app's metrics and the process's. */
  async text(): Promise<string> {
    let s = '';
    for (const f of this.families.values()) s += await f.render();
    for (const f of processFamilies()) s += await f.render();
    return s;
  }

  /** `host.metrics` for one plugin: names prefixed `ctx_<plugin>_`, identifying labels refused. */
  forPlugin(plugin: string): PluginMetrics {
    const prefix = `ctx_${plugin.replace(/-/g, '_')}_`;
    const checked = (name: string, labels: readonly string[] = []) => {
      const full = prefix + name;
      for (const l of labels)
        if (IDENTIFYING_LABELS.has(l))
          throw new Error(`plugin ${plugin}: metric ${full} has label ${l}; labels must not carry ids or URIs (cardinality and privacy)`);
      if (this.has(full)) throw new Error(`plugin ${plugin}: metric ${full} is already registered`);
      return full;
    };
    return {
      counter: (name, o) => new PluginCounter(this.add(new CounterFamily(checked(name, o.labels), o.help, o.labels ?? []))),
      gauge: (name, o) => {
        const family = this.add(new GaugeFamily(checked(name, o.labels), o.help, o.labels ?? []));
        const g = new PluginGauge(family);
        if (o.collect) {
          const collect = o.collect;
          family.collect = () => collect(g);
        }
        return g;
      },
      histogram: (name, o) => new PluginHistogram(this.add(new HistogramFamily(checked(name, o.labels), o.help, o.labels ?? [], o.buckets))),
    };
  }
}

const URI_VALUE = /^ctx:\/\//i;
function checkValues(name: string, values: string[]): string[] {
  for (const v of values) if (URI_VALUE.test(v)) throw new Error(`metric ${name}: a label value must not be a URI (${JSON.stringify(v)})`);
  return values;
}

/** A counter; `labels(...)` resolves a child once (keep it for a hot path). */
/*
 * The plugin wrappers resolve their unlabelled child in the constructor, not on first use: a field
 * first written later turns mutable in the hidden class and deoptimises code that read it (a
 * gauge's `collect` sets it at the first scrape).
 */
const ownChild = <C>(family: { labelNames: readonly string[]; child(): C }): C | undefined => (family.labelNames.length === 0 ? family.child() : undefined);

export class PluginCounter {
  private readonly own: CounterChild | undefined;
  constructor(private readonly family: CounterFamily) {
    this.own = ownChild(family);
  }
  inc(n = 1): void {
    (this.own ?? this.family.child()).inc(n);
  }
  labels(...values: string[]): { inc(n?: number): void } {
    return this.family.child(...checkValues(this.family.name, values));
  }
}

export class PluginGauge {
  private readonly own: GaugeChild | undefined;
  constructor(private readonly family: GaugeFamily) {
    this.own = ownChild(family);
  }
  set(v: number): void {
    (this.own ?? this.family.child()).set(v);
  }
  inc(n = 1): void {
    (this.own ?? this.family.child()).inc(n);
  }
  dec(n = 1): void {
    (this.own ?? this.family.child()).dec(n);
  }
  labels(...values: string[]): { set(v: number): void; inc(n?: number): void; dec(n?: number): void } {
    return this.family.child(...checkValues(this.family.name, values));
  }
}

export class PluginHistogram {
  private readonly own: HistogramChild | undefined;
  constructor(private readonly family: HistogramFamily) {
    this.own = ownChild(family);
  }
  observe(v: number): void {
    (this.own ?? this.family.child()).observe(v);
  }
  labels(...values: string[]): { observe(v: number): void } {
    return this.family.child(...checkValues(this.family.name, values));
  }
  /** Starts a timer; calling the result observes the seconds elapsed (and returns them). */
  startTimer(...values: string[]): () => number {
    const child = values.length ? this.family.child(...checkValues(this.family.name, values)) : (this.own ?? this.family.child());
    const t0 = performance.now();
    return () => {
      const s = (performance.now() - t0) / 1000;
      child.observe(s);
      return s;
    };
  }
}

/** What `host.metrics` offers a plugin (public API, re-exported by the SDK). */
export interface PluginMetrics {
  counter(name: string, opts: { help: string; labels?: readonly string[] }): PluginCounter;
  /** `collect` runs before each scrape: read the value from its source instead of tracking it. */
  gauge(name: string, opts: { help: string; labels?: readonly string[]; collect?: (gauge: PluginGauge) => void }): PluginGauge;
  /** Buckets default to 100 µs … 10 s (seconds). */
  histogram(name: string, opts: { help: string; labels?: readonly string[]; buckets?: readonly number[] }): PluginHistogram;
}
