/**
 * The process metrics ctx renders itself (no client library): the names, types and label sets
 * prom-client's default collectors gave (existing Node dashboards query them), values that move
 * with the process, and the text format's escaping of label values and help text.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { definePlugin } from '../../runtime/plugin.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { parsePrometheus, promtoolCheck, value } from './prom-text.js';

const awkward = 'a "quoted" back\\slash\nand a newline';

const labelPlugin = definePlugin({
  name: 'ops-escape',
  version: '1.0.0',
  setup(host) {
    const c = host.metrics.counter('odd_total', { help: 'help with a back\\slash\nand a newline', labels: ['kind'] });
    c.labels(awkward).inc(3);
    host.metrics.counter('plain_total', { help: 'no labels' });
  },
});

describe('process metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ extraPlugins: [labelPlugin] });
  });
  afterAll(() => t.close());

  const scrape = async () => {
    const r = await t.req({ url: '/metrics' });
    expect(r.status).toBe(200);
    return { text: r.text, ...parsePrometheus(r.text) };
  };

  test("prom-client's default names and types, with values that move", async () => {
    // Garbage and a busy loop for the GC observer and the event-loop-delay histogram to see.
    let keep: unknown[] = [];
    for (let i = 0; i < 300_000; i++) keep.push({ i });
    keep = [];
    const until = performance.now() + 60;
    while (performance.now() < until);
    await new Promise((r) => setTimeout(r, 50));
    const { samples, types, text } = await scrape();
    const expected: Record<string, string> = {
      process_cpu_user_seconds_total: 'counter',
      process_cpu_system_seconds_total: 'counter',
      process_cpu_seconds_total: 'counter',
      process_start_time_seconds: 'gauge',
      process_resident_memory_bytes: 'gauge',
      process_open_fds: 'gauge',
      process_max_fds: 'gauge',
      nodejs_eventloop_lag_seconds: 'gauge',
      nodejs_eventloop_lag_p99_seconds: 'gauge',
      nodejs_eventloop_utilization_ratio: 'gauge',
      nodejs_active_handles_total: 'gauge',
      nodejs_active_resources_total: 'gauge',
      nodejs_heap_size_total_bytes: 'gauge',
      nodejs_heap_size_used_bytes: 'gauge',
      nodejs_external_memory_bytes: 'gauge',
      nodejs_heap_space_size_used_bytes: 'gauge',
      nodejs_version_info: 'gauge',
      nodejs_gc_duration_seconds: 'histogram',
    };
    for (const [name, type] of Object.entries(expected)) expect([name, types.get(name)]).toEqual([name, type]);
    const v = (name: string, labels: Record<string, string> = {}) => value(samples, name, labels);
    expect(v('process_cpu_seconds_total')).toBeCloseTo(v('process_cpu_user_seconds_total') + v('process_cpu_system_seconds_total'), 5);
    expect(v('process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(v('process_resident_memory_bytes')).toBeGreaterThan(10 * 1024 * 1024);
    expect(Math.abs(v('process_start_time_seconds') - (Date.now() / 1000 - process.uptime()))).toBeLessThan(2);
    expect(v('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(v('nodejs_heap_space_size_used_bytes', { space: 'old' })).toBeGreaterThan(0);
    expect(samples.find((s) => s.name === 'nodejs_version_info')?.labels).toMatchObject({ version: process.version, major: process.versions.node.split('.')[0] });
    // The delay histogram sampled the loop (every 20 ms); the garbage made GC run.
    expect(v('nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
    expect(v('nodejs_gc_duration_seconds_count')).toBeGreaterThan(0);
    expect(samples.filter((s) => s.name === 'nodejs_gc_duration_seconds_count').map((s) => s.labels.kind).sort()).toEqual(['incremental', 'major', 'minor', 'weakcb']);
    if (process.platform === 'linux') {
      expect(v('process_open_fds')).toBeGreaterThan(2);
      expect(v('process_max_fds')).toBeGreaterThan(v('process_open_fds'));
    }
    const checked = promtoolCheck(text);
    if (checked !== null) expect(checked).toBe('');
  });

  test('utilisation is since the previous scrape, between 0 and 1; loop delay has samples once sampled', async () => {
    await scrape();
    // A busy half and an idle half between two scrapes.
    const until = performance.now() + 100;
    while (performance.now() < until);
    await new Promise((r) => setTimeout(r, 100));
    const { samples } = await scrape();
    const elu = value(samples, 'nodejs_eventloop_utilization_ratio');
    expect(elu).toBeGreaterThan(0.2);
    expect(elu).toBeLessThanOrEqual(1);
    expect(value(samples, 'nodejs_eventloop_lag_mean_seconds')).toBeGreaterThan(0);
  });

  test('label values and help text are escaped; an unlabelled plugin counter shows 0 from the start', async () => {
    const { samples, text } = await scrape();
    expect(value(samples, 'ctx_ops_escape_odd_total', { kind: awkward })).toBe(3);
    expect(text).toContain('# HELP ctx_ops_escape_odd_total help with a back\\\\slash\\nand a newline\n');
    expect(text).toContain('ctx_ops_escape_odd_total{kind="a \\"quoted\\" back\\\\slash\\nand a newline"} 3\n');
    expect(value(samples, 'ctx_ops_escape_plain_total')).toBe(0);
    expect(samples.some((s) => s.name === 'ctx_ops_escape_plain_total')).toBe(true);
    const checked = promtoolCheck(text);
    if (checked !== null) expect(checked).toBe('');
  });
});
