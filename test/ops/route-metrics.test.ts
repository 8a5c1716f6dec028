/**
 * A route's request metrics live in one Float64Array (runtime/metrics/http-metrics.ts): these check
 * that the cells land in the series the exposition shows — the bucket of a value on a bound (`le`
 * is inclusive), +Inf, sums and counts, the status classes — and that a series appears only with
 * its first request.
 */
import { describe, expect, test } from 'vitest';
import { HttpMetrics } from '../../runtime/metrics/http-metrics.js';
import { LATENCY_BUCKETS, SIZE_BUCKETS } from '../../runtime/metrics/families.js';
import { Metrics } from '../../runtime/metrics/registry.js';
import { parsePrometheus, promtoolCheck, value } from './prom-text.js';

const render = async (metrics: Metrics) => {
  const text = await metrics.text();
  return { text, samples: parsePrometheus(text).samples };
};

describe('route metrics cells', () => {
  test('buckets, sums, counts and status classes as the exposition shows them', async () => {
    const metrics = new Metrics(false);
    const http = new HttpMetrics(metrics, () => 0);
    const route = http.forRoute('GET', '/api/v1/things');
    const labels = { method: 'GET', route: '/api/v1/things' };
    route.record(200, LATENCY_BUCKETS[0]!, 0, SIZE_BUCKETS[2]!, undefined); // both exactly on a bound
    route.record(204, 0.003, 100, SIZE_BUCKETS[2]! + 1, undefined);
    route.record(404, 99, 1e12, 1e12, undefined); // above every bound: +Inf only
    route.record(199, 0.0002, 0, 0, undefined);
    route.record(600, 0.0002, 0, 0, undefined); // out of range: counted as 5xx
    const { samples, text } = await render(metrics);
    const n = (name: string, extra: Record<string, string> = {}) => value(samples, name, { ...labels, ...extra });
    expect(n('ctx_http_requests_total', { status_class: '1xx' })).toBe(1);
    expect(n('ctx_http_requests_total', { status_class: '2xx' })).toBe(2);
    expect(n('ctx_http_requests_total', { status_class: '4xx' })).toBe(1);
    expect(n('ctx_http_requests_total', { status_class: '5xx' })).toBe(1);
    expect(samples.some((s) => s.name === 'ctx_http_requests_total' && s.labels.status_class === '3xx')).toBe(false);

    expect(n('ctx_http_request_duration_seconds_bucket', { le: '0.0001' })).toBe(1);
    expect(n('ctx_http_request_duration_seconds_bucket', { le: '0.00025' })).toBe(3);
    expect(n('ctx_http_request_duration_seconds_bucket', { le: '0.0025' })).toBe(3);
    expect(n('ctx_http_request_duration_seconds_bucket', { le: '0.005' })).toBe(4);
    expect(n('ctx_http_request_duration_seconds_bucket', { le: '10' })).toBe(4);
    expect(n('ctx_http_request_duration_seconds_bucket', { le: '+Inf' })).toBe(5);
    expect(n('ctx_http_request_duration_seconds_count')).toBe(5);
    expect(n('ctx_http_request_duration_seconds_sum')).toBeCloseTo(0.0001 + 0.003 + 99 + 0.0004, 9);

    expect(n('ctx_http_request_body_bytes_bucket', { le: '64' })).toBe(3);
    expect(n('ctx_http_request_body_bytes_bucket', { le: '256' })).toBe(4);
    expect(n('ctx_http_request_body_bytes_bucket', { le: '+Inf' })).toBe(5);
    expect(n('ctx_http_request_body_bytes_sum')).toBe(100 + 1e12);

    expect(n('ctx_http_response_body_bytes_bucket', { le: '256' })).toBe(2);
    expect(n('ctx_http_response_body_bytes_bucket', { le: '1024' })).toBe(3);
    expect(n('ctx_http_response_body_bytes_bucket', { le: String(SIZE_BUCKETS.at(-1)) })).toBe(4);
    expect(n('ctx_http_response_body_bytes_bucket', { le: '+Inf' })).toBe(5);
    expect(n('ctx_http_response_body_bytes_count')).toBe(5);
    const checked = promtoolCheck(text);
    if (checked !== null) expect(checked).toBe('');
  });

  test('a route shows no series before its first request, and its errors by code', async () => {
    const metrics = new Metrics(false);
    const http = new HttpMetrics(metrics, () => 0);
    const quiet = http.forRoute('POST', '/api/v1/quiet');
    const busy = http.forRoute('GET', '/api/v1/busy');
    expect((await render(metrics)).samples.filter((s) => s.name.startsWith('ctx_http_') && s.name !== 'ctx_http_requests_in_flight')).toEqual([]);
    busy.record(400, 0.001, 0, 10, undefined);
    busy.error('INVALID_ARGUMENT');
    busy.record(400, 0.001, 0, 10, undefined);
    busy.error('INVALID_ARGUMENT');
    const { samples } = await render(metrics);
    expect(samples.some((s) => s.labels.route === '/api/v1/quiet')).toBe(false);
    expect(value(samples, 'ctx_http_requests_total', { method: 'GET', route: '/api/v1/busy', status_class: '4xx' })).toBe(2);
    expect(value(samples, 'ctx_http_errors_total', { method: 'GET', route: '/api/v1/busy', code: 'INVALID_ARGUMENT' })).toBe(2);
    expect(quiet.route).toBe('/api/v1/quiet');
  });

  test('with the account label, a request without an account counts under account=""', async () => {
    const metrics = new Metrics(true);
    const http = new HttpMetrics(metrics, () => 0);
    const route = http.forRoute('GET', '/api/v1/things');
    route.record(200, 0.001, 0, 10, 'acme');
    route.record(200, 0.001, 0, 10, 'acme');
    route.record(413, 0.001, 0, 10, undefined); // a body refused by the transport: no caller known
    const { samples } = await render(metrics);
    const base = { method: 'GET', route: '/api/v1/things' };
    expect(value(samples, 'ctx_http_requests_total', { ...base, status_class: '2xx', account: 'acme' })).toBe(2);
    expect(value(samples, 'ctx_http_requests_total', { ...base, status_class: '4xx', account: '' })).toBe(1);
    expect(value(samples, 'ctx_http_request_duration_seconds_count', base)).toBe(3);
  });
});
