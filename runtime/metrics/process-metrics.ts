/**
 * Process metrics (RSS, heap, CPU, open fds, event-loop delay, GC) from prom-client's default
 * collectors, plus event-loop utilisation. One registry per process, created on first use: the
 * collectors install process-wide observers (GC, event-loop delay histogram), and several apps in
 * one process (the tests) must not install them once each.
 */
import { performance } from 'node:perf_hooks';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { CollectedFamily } from './families.js';

let registry: Registry | undefined;

export function processRegistry(): Registry {
  if (registry) return registry;
  registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  // Utilisation between two scrapes (the share of time the loop was busy), not since start.
  let last = performance.eventLoopUtilization();
  registry.registerMetric(
    new CollectedFamily('nodejs_eventloop_utilization_ratio', 'Share of time the event loop was busy since the previous scrape', 'gauge', [], () => {
      const now = performance.eventLoopUtilization();
      const delta = performance.eventLoopUtilization(now, last);
      last = now;
      return [[[], delta.utilization]];
    }) as never,
  );
  return registry;
}
