/**
 * The app's metrics: the runtime's families, the plugins' own (`host.metrics`) and the model-call
 * families, rendered by a prom-client Registry with the process metrics of `process-metrics.ts`
 * by `GET /metrics`. prom-client is imported at the first scrape, not before: with CTX_METRICS=off
 * (nothing ever scraped) it is never loaded, which keeps its modules out of start-up and memory.
 *
 * Why prom-client and not the OpenTelemetry Prometheus exporter: prom-client is the Node
 * ecosystem's Prometheus client (small, no dependencies of its own, the text and OpenMetrics
 * formats, default process metrics: RSS, heap, GC, event-loop delay); the OTel exporter pulls in
 * the whole metrics SDK and its own HTTP server, and its per-record attribute handling costs more
 * on a hot path than the pre-resolved children we record into here.
 */
import type { Registry } from 'prom-client';
import { CounterFamily, GaugeFamily, HistogramFamily, type CounterChild, type GaugeChild, type HistogramChild, type RegistrableMetric } from './families.js';
import { modelFamilies } from './model-metrics.js';
import { processRegistry, promClient } from './process-metrics.js';

export type MetricsAccess = 'off' | 'loopback' | 'token';

/** Label names that would carry an id or a URI: refused on plugin metrics (cardinality and privacy). */
const IDENTIFYING_LABELS = new Set(['account', 'account_id', 'user', 'user_id', 'uri', 'path', 'url', 'key', 'api_key', 'session_id', 'task_id', 'peer']);

/** prom-client's `Registry.PROMETHEUS_CONTENT_TYPE` (text format 0.0.4), known without loading it. */
const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export class Metrics {
  /** Every family in registration order (the order of the exposition). */
  private readonly families = new Map<string, RegistrableMetric>();
  /** The renderer, made at the first scrape; `rendered` families of `families` are registered in it. */
  private registry: Registry | undefined;
  private rendered = 0;

  constructor(readonly accountLabel: boolean) {
    for (const f of modelFamilies()) this.add(f);
  }

  add<M extends RegistrableMetric>(metric: M): M {
    // prom-client's own refusal, kept now that registration no longer goes through it.
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
    if (!this.registry) {
      const { Registry } = await promClient();
      this.registry ??= new Registry();
    }
    if (this.rendered < this.families.size) {
      let i = 0;
      for (const f of this.families.values()) if (i++ >= this.rendered) this.registry.registerMetric(f as never);
      this.rendered = this.families.size;
    }
    const [app, proc] = await Promise.all([this.registry.metrics(), processRegistry().then((r) => r.metrics())]);
    return app + '\n' + proc;
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
export class PluginCounter {
  private own: CounterChild | undefined;
  constructor(private readonly family: CounterFamily) {}
  inc(n = 1): void {
    (this.own ??= this.family.child()).inc(n);
  }
  labels(...values: string[]): { inc(n?: number): void } {
    return this.family.child(...checkValues(this.family.name, values));
  }
}

export class PluginGauge {
  private own: GaugeChild | undefined;
  constructor(private readonly family: GaugeFamily) {}
  set(v: number): void {
    (this.own ??= this.family.child()).set(v);
  }
  inc(n = 1): void {
    (this.own ??= this.family.child()).inc(n);
  }
  dec(n = 1): void {
    (this.own ??= this.family.child()).dec(n);
  }
  labels(...values: string[]): { set(v: number): void; inc(n?: number): void; dec(n?: number): void } {
    return this.family.child(...checkValues(this.family.name, values));
  }
}

export class PluginHistogram {
  private own: HistogramChild | undefined;
  constructor(private readonly family: HistogramFamily) {}
  observe(v: number): void {
    (this.own ??= this.family.child()).observe(v);
  }
  labels(...values: string[]): { observe(v: number): void } {
    return this.family.child(...checkValues(this.family.name, values));
  }
  /** Starts a timer; calling the result observes the seconds elapsed (and returns them). */
  startTimer(...values: string[]): () => number {
    const child = values.length ? this.family.child(...checkValues(this.family.name, values)) : (this.own ??= this.family.child());
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
