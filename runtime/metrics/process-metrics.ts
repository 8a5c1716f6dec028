/**
 * Process metrics (RSS, heap, CPU, open fds, event-loop delay, GC) from prom-client's default
 * collectors, plus event-loop utilisation. One registry per process, created on first use: the
 * collectors install process-wide observers (GC, event-loop delay histogram), and several apps in
 * one process (the tests) must not install them once each.
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Registry } from 'prom-client';
import { CollectedFamily } from './families.js';

let registry: Promise<Registry> | undefined;

/**
 * prom-client, imported when first needed (the first scrape). It is CommonJS: Node's import gives
 * its named exports, the esbuild bundle (`npm start`) only its `default`; either works here.
 */
export async function promClient(): Promise<typeof import('prom-client')> {
  const m = await import('prom-client');
  return m.Registry ? m : (m as unknown as { default: typeof m }).default;
}

/** Made at the first scrape (prom-client imported then: with metrics off it is never loaded). */
export function processRegistry(): Promise<Registry> {
  return (registry ??= makeRegistry());
}

async function makeRegistry(): Promise<Registry> {
  const { Registry, collectDefaultMetrics } = await promClient();
  const registry = new Registry();
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
  // The miss side of every cache the process reads through (RocksDB's block cache, then the OS page
  // cache): bytes really fetched from the block device. RocksDB's own hit rate is not obtainable
  // from its binding (docs/operations.md, RocksDB); a rising rate here under a steady load says
  // the working set no longer fits in memory. Linux only (/proc/self/io); elsewhere no sample.
  registry.registerMetric(
    new CollectedFamily('ctx_process_storage_read_bytes_total', 'Bytes this process read from storage devices (page-cache misses), from /proc/self/io', 'counter', [], () => {
      const io = readProcIo();
      return io ? [[[], io.readBytes]] : [];
    }) as never,
  );
  return registry;
}

function readProcIo(): { readBytes: number } | undefined {
  try {
    const m = /^read_bytes: (\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'));
    return m ? { readBytes: Number(m[1]) } : undefined;
  } catch {
    return undefined;
  }
}
