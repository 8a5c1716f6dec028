/**
 * The process's metrics (CPU, memory, heap spaces, file descriptors, event-loop delay and
 * utilisation, GC, handles, version), under the names Node dashboards know from prom-client's
 * default collectors, read at scrape time by our own families: no client library is loaded. Two
 * things cannot be read afterwards and are recorded as they happen, natively or into numbers only:
 * the event-loop delay (Node's native histogram) and GC pauses (a GC observer adding to a
 * histogram child). Both are process-wide and started once, when the first app with metrics on is
 * made, not at the first scrape: nothing new starts once the request path is optimised.
 */
import fs from 'node:fs';
import { constants, monitorEventLoopDelay, performance, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import v8 from 'node:v8';
import { formatValue, header } from './exposition.js';
import { CollectedFamily, HistogramFamily, type CollectedSamples, type HistogramChild, type RegistrableMetric } from './families.js';

let families: RegistrableMetric[] | undefined;

/** The process families, their observers started on the first call (once per process). */
export function processFamilies(): readonly RegistrableMetric[] {
  return (families ??= make());
}

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

function make(): RegistrableMetric[] {
  const out: RegistrableMetric[] = [];
  const one = (name: string, help: string, type: 'counter' | 'gauge', read: () => number) => out.push(new CollectedFamily(name, help, type, [], () => [[[], read()]]));
  const many = (name: string, help: string, labels: string[], read: () => CollectedSamples) => out.push(new CollectedFamily(name, help, 'gauge', labels, read));

  // CPU: one read per scrape serves the three counters (user and system are read in that order).
  let cpu = process.cpuUsage();
  one('process_cpu_user_seconds_total', 'Total user CPU time spent in seconds.', 'counter', () => (cpu = process.cpuUsage()).user / 1e6);
  one('process_cpu_system_seconds_total', 'Total system CPU time spent in seconds.', 'counter', () => cpu.system / 1e6);
  one('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', 'counter', () => (cpu.user + cpu.system) / 1e6);
  const startTime = Math.round(Date.now() / 1000 - process.uptime());
  one('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.', 'gauge', () => startTime);

  // Memory: /proc/self/status where there is one (Linux), else RSS only.
  let status: ProcStatus | undefined;
  one('process_resident_memory_bytes', 'Resident memory size in bytes.', 'gauge', () => (status = readProcStatus())?.rss ?? process.memoryUsage.rss());
  one('process_virtual_memory_bytes', 'Virtual memory size in bytes.', 'gauge', () => status?.vsize ?? NaN);
  one('process_heap_bytes', 'Process heap size in bytes.', 'gauge', () => status?.data ?? NaN);
  one('process_open_fds', 'Number of open file descriptors.', 'gauge', openFds);
  const maxFds = readMaxFds();
  one('process_max_fds', 'Maximum number of open file descriptors.', 'gauge', () => maxFds);

  // Event-loop delay: Node's native histogram (sampled every 20 ms), reset at each scrape.
  const eld = monitorEventLoopDelay({ resolution: 20 });
  eld.enable();
  out.push(new EventLoopLag(eld));
  let last = performance.eventLoopUtilization();
  one('nodejs_eventloop_utilization_ratio', 'Share of time the event loop was busy since the previous scrape', 'gauge', () => {
    const now = performance.eventLoopUtilization();
    const delta = performance.eventLoopUtilization(now, last);
    last = now;
    return delta.utilization;
  });

  // Libuv handles and requests by type, and the resources keeping the loop alive.
  const byType = (list: readonly unknown[]) => {
    const counts = new Map<string, number>();
    for (const o of list) {
      const type = o === null || o === undefined ? undefined : (o as { constructor?: { name?: string } }).constructor?.name;
      if (type) counts.set(type, (counts.get(type) ?? 0) + 1);
    }
    return [...counts].map(([type, n]) => [[type], n] as [string[], number]);
  };
  const internals = process as unknown as { _getActiveHandles?: () => unknown[]; _getActiveRequests?: () => unknown[] };
  if (internals._getActiveHandles) {
    many('nodejs_active_handles', 'Number of active libuv handles grouped by handle type. Every handle type is C++ class name.', ['type'], () => byType(internals._getActiveHandles!()));
    one('nodejs_active_handles_total', 'Total number of active handles.', 'gauge', () => internals._getActiveHandles!().length);
  }
  if (internals._getActiveRequests) {
    many('nodejs_active_requests', 'Number of active libuv requests grouped by request type. Every request type is C++ class name.', ['type'], () => byType(internals._getActiveRequests!()));
    one('nodejs_active_requests_total', 'Total number of active requests.', 'gauge', () => internals._getActiveRequests!().length);
  }
  let resources: string[] = [];
  many('nodejs_active_resources', 'Number of active resources that are currently keeping the event loop alive, grouped by async resource type.', ['type'], () => {
    const counts = new Map<string, number>();
    for (const r of (resources = process.getActiveResourcesInfo())) counts.set(r, (counts.get(r) ?? 0) + 1);
    return [...counts].map(([type, n]) => [[type], n] as [string[], number]);
  });
  one('nodejs_active_resources_total', 'Total number of active resources.', 'gauge', () => resources.length);

  // Heap.
  let heap: v8.HeapInfo | undefined;
  one('nodejs_heap_size_total_bytes', 'Process heap size from Node.js in bytes.', 'gauge', () => (heap = v8.getHeapStatistics()).total_heap_size);
  one('nodejs_heap_size_used_bytes', 'Process heap size used from Node.js in bytes.', 'gauge', () => heap!.used_heap_size);
  one('nodejs_external_memory_bytes', 'Node.js external memory size in bytes.', 'gauge', () => heap!.external_memory);
  let spaces: v8.HeapSpaceInfo[] = [];
  const space = (s: v8.HeapSpaceInfo) => s.space_name.replace(/_space$/, '');
  many('nodejs_heap_space_size_total_bytes', 'Process heap space size total from Node.js in bytes.', ['space'], () => (spaces = v8.getHeapSpaceStatistics()).map((s) => [[space(s)], s.space_size]));
  many('nodejs_heap_space_size_used_bytes', 'Process heap space size used from Node.js in bytes.', ['space'], () => spaces.map((s) => [[space(s)], s.space_used_size]));
  many('nodejs_heap_space_size_available_bytes', 'Process heap space size available from Node.js in bytes.', ['space'], () => spaces.map((s) => [[space(s)], s.space_available_size]));

  const [major, minor, patch] = process.versions.node.split('.');
  many('nodejs_version_info', 'Node.js version info.', ['version', 'major', 'minor', 'patch'], () => [[[process.version, major!, minor!, patch!], 1]]);

  // GC pauses by kind. The observer's callback only adds to numeric children.
  const gc = new HistogramFamily('nodejs_gc_duration_seconds', 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.', ['kind'], [0.001, 0.01, 0.1, 1, 2, 5]);
  const gcChildren = new Map<number, HistogramChild>();
  for (const [kind, label] of Object.entries(GC_KINDS)) gcChildren.set(Number(kind), gc.child(label));
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcChildren.get((e as unknown as { detail?: { kind: number } }).detail?.kind ?? -1)?.observe(e.duration / 1000);
  }).observe({ entryTypes: ['gc'] });
  out.push(gc);

  // The miss side of every cache the process reads through (RocksDB's block cache, then the OS page
  // cache): bytes really fetched from the block device. RocksDB's own hit rate is not obtainable
  // from its binding (docs/operations.md, RocksDB); a rising rate here under a steady load says
  // the working set no longer fits in memory. Linux only (/proc/self/io); elsewhere no sample.
  one('ctx_process_storage_read_bytes_total', 'Bytes this process read from storage devices (page-cache misses), from /proc/self/io', 'counter', () => readProcIoReadBytes());
  return out;
}

/**
 * `nodejs_eventloop_lag_seconds` (the delay of a setImmediate taken at the scrape) and the
 * native histogram's statistics since the previous scrape, in seconds.
 */
class EventLoopLag implements RegistrableMetric {
  readonly name = 'nodejs_eventloop_lag_seconds';
  constructor(private readonly h: IntervalHistogram) {}

  async render(): Promise<string> {
    const t0 = performance.now();
    await new Promise((resolve) => setImmediate(resolve));
    const lag = (performance.now() - t0) / 1000;
    const h = this.h;
    const stats: Array<[string, string, number]> = [
      ['', 'Lag of event loop in seconds.', lag],
      ['min_', 'The minimum recorded event loop delay.', h.min],
      ['max_', 'The maximum recorded event loop delay.', h.max],
      ['mean_', 'The mean of the recorded event loop delays.', h.mean],
      ['stddev_', 'The standard deviation of the recorded event loop delays.', h.stddev],
      ['p50_', 'The 50th percentile of the recorded event loop delays.', h.percentile(50)],
      ['p90_', 'The 90th percentile of the recorded event loop delays.', h.percentile(90)],
      ['p99_', 'The 99th percentile of the recorded event loop delays.', h.percentile(99)],
    ];
    const sampled = h.count > 0;
    h.reset();
    let s = '';
    // The histogram is in nanoseconds; with no sample yet its min is huge and its mean NaN: no sample then.
    for (let i = 0; i < stats.length; i++) {
      const [part, help, v] = stats[i]!;
      s += header(`nodejs_eventloop_lag_${part}seconds`, help, 'gauge');
      if (i === 0) s += `nodejs_eventloop_lag_seconds ${formatValue(v)}\n`;
      else if (sampled) s += `nodejs_eventloop_lag_${part}seconds ${formatValue(v / 1e9)}\n`;
    }
    return s;
  }
}

class ProcStatus {
  constructor(readonly rss: number, readonly vsize: number, readonly data: number) {}
}

function readProcStatus(): ProcStatus | undefined {
  let text: string;
  try {
    text = fs.readFileSync('/proc/self/status', 'utf8');
  } catch {
    return undefined;
  }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s*(\\d+) kB$`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return new ProcStatus(kb('VmRSS'), kb('VmSize'), kb('VmData'));
}

function openFds(): number {
  try {
    // Less the descriptor readdir itself holds open.
    return fs.readdirSync('/proc/self/fd').length - 1;
  } catch {
    return NaN;
  }
}

function readMaxFds(): number {
  try {
    return Number(/^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

function readProcIoReadBytes(): number {
  try {
    return Number(/^read_bytes: (\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}
