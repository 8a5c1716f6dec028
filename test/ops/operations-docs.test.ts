/**
 * The operator's artifacts in docs/: the Prometheus rule file passes `promtool check rules` (when
 * promtool is installed) and parses as rule groups; every metric the rules and the Grafana
 * dashboard query is one ctx really serves (so a renamed metric cannot leave them silently empty).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { parse } from 'yaml';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CompileService } from '../../plugins/compile/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { parsePrometheus } from './prom-text.js';

const RULES = 'docs/prometheus-rules.yml';
const DASHBOARD = 'docs/grafana-dashboard.json';

let t: TestApp;
let served: Set<string>;
beforeAll(async () => {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const grpcPort = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  t = await startTestApp({ config: { grpcPort } });
  await t.app.service<CompileService>('compile').grpcListening();
  served = new Set(parsePrometheus((await t.req({ url: '/metrics' })).text).types.keys());
});
afterAll(() => t.close());

/** Metric names in a PromQL expression (recording-rule names `a:b:c` and functions are not metrics). */
function metricsIn(expr: string): string[] {
  const names = expr.match(/\b(?:ctx|nodejs|process)_[a-z0-9_]+\b/g) ?? [];
  return names.map((n) => n.replace(/_(bucket|sum|count)$/, ''));
}

function checkServed(names: string[], where: string): void {
  for (const n of names) expect(served.has(n), `${where}: ${n} is not served by /metrics`).toBe(true);
}

test('the rule file passes promtool (when installed) and queries only served metrics', () => {
  let promtool = true;
  try {
    execFileSync('promtool', ['--version'], { stdio: 'ignore' });
  } catch {
    promtool = false;
  }
  if (promtool) expect(execFileSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' })).toMatch(/SUCCESS: \d+ rules found/);
  const doc = parse(fs.readFileSync(RULES, 'utf8')) as { groups: Array<{ name: string; rules: Array<{ record?: string; alert?: string; expr: string; labels?: Record<string, string> }> }> };
  const rules = doc.groups.flatMap((g) => g.rules);
  expect(rules.filter((r) => r.alert).length).toBeGreaterThanOrEqual(10);
  for (const r of rules) {
    expect(typeof r.expr).toBe('string');
    if (r.alert) expect(['critical', 'warning']).toContain(r.labels?.severity);
    checkServed(metricsIn(r.expr), r.alert ?? r.record!);
  }
});

test('the Grafana dashboard is valid JSON and queries only served metrics', () => {
  const dash = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as { uid: string; panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }> };
  expect(dash.uid).toBe('ctx-overview');
  const graphs = dash.panels.filter((p) => p.type === 'timeseries');
  expect(graphs.length).toBeGreaterThanOrEqual(15);
  for (const p of graphs) for (const target of p.targets ?? []) checkServed(metricsIn(target.expr), p.title);
});
