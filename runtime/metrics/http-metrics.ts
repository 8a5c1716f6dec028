/**
 * HTTP request metrics. Each route gets its `RouteMetrics` when it is registered (the route
 * template is known then); a request only bumps numbers on children that route resolved on its
 * first use. Labels are the method, the route template, the status class and the error code:
 * never the raw path, a URI or an id (an unmatched path is `route="unmatched"`).
 */
import { CollectedFamily, CounterFamily, HistogramFamily, SIZE_BUCKETS, type CounterChild, type HistogramChild } from './families.js';
import type { Metrics } from './registry.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

export class HttpMetrics {
  readonly requests: CounterFamily;
  readonly duration: HistogramFamily;
  readonly requestBytes: HistogramFamily;
  readonly responseBytes: HistogramFamily;
  readonly errors: CounterFamily;
  private readonly unmatched = new Map<string, RouteMetrics>();

  constructor(metrics: Metrics, inFlight: () => number) {
    const account = metrics.accountLabel ? ['account'] : [];
    this.requests = metrics.add(new CounterFamily('ctx_http_requests_total', 'HTTP requests answered, by method, route template and status class', ['method', 'route', 'status_class', ...account]));
    this.duration = metrics.add(new HistogramFamily('ctx_http_request_duration_seconds', 'Time from the request reaching the pipeline to its response being handed to the socket', ['method', 'route']));
    this.requestBytes = metrics.add(new HistogramFamily('ctx_http_request_body_bytes', 'Request body sizes', ['method', 'route'], SIZE_BUCKETS));
    this.responseBytes = metrics.add(new HistogramFamily('ctx_http_response_body_bytes', 'Response body sizes (streamed bodies by their announced size)', ['method', 'route'], SIZE_BUCKETS));
    this.errors = metrics.add(new CounterFamily('ctx_http_errors_total', 'Requests answered with an error envelope, by error code', ['method', 'route', 'code']));
    metrics.add(new CollectedFamily('ctx_http_requests_in_flight', 'Requests being processed now', 'gauge', [], () => [[[], inFlight()]]));
  }

  forRoute(method: string, route: string): RouteMetrics {
    return new RouteMetrics(this, method, route);
  }

  /** A path no route matched: one set per method (unknown methods are `OTHER`), never the path. */
  forUnmatched(method: string): RouteMetrics {
    const m = METHODS.has(method) ? method : 'OTHER';
    let r = this.unmatched.get(m);
    if (!r) this.unmatched.set(m, (r = new RouteMetrics(this, m, 'unmatched')));
    return r;
  }
}

export class RouteMetrics {
  private readonly byClass: Array<CounterChild | undefined> = [undefined, undefined, undefined, undefined, undefined];
  private byAccount: Map<string, Array<CounterChild | undefined>> | undefined;
  private duration: HistogramChild | undefined;
  private reqBytes: HistogramChild | undefined;
  private resBytes: HistogramChild | undefined;
  private errors: Map<string, CounterChild> | undefined;

  constructor(private readonly http: HttpMetrics, readonly method: string, readonly route: string) {}

  record(status: number, seconds: number, requestBytes: number, responseBytes: number, account: string | undefined): void {
    let cls = ((status / 100) | 0) - 1;
    if (cls < 0 || cls > 4) cls = 4;
    let counters = this.byClass;
    if (account !== undefined) {
      // Opt-in per-account dimension (CTX_METRICS_ACCOUNT_LABEL): one set of children per account seen.
      this.byAccount ??= new Map();
      let perAccount = this.byAccount.get(account);
      if (!perAccount) this.byAccount.set(account, (perAccount = [undefined, undefined, undefined, undefined, undefined]));
      counters = perAccount;
    }
    let c = counters[cls];
    if (c === undefined) {
      const values = [this.method, this.route, CLASSES[cls]!];
      if (this.http.requests.labelNames.length === 4) values.push(account ?? '');
      c = counters[cls] = this.http.requests.child(...values);
    }
    c.value++;
    (this.duration ??= this.http.duration.child(this.method, this.route)).observe(seconds);
    (this.reqBytes ??= this.http.requestBytes.child(this.method, this.route)).observe(requestBytes);
    (this.resBytes ??= this.http.responseBytes.child(this.method, this.route)).observe(responseBytes);
  }

  error(code: string): void {
    this.errors ??= new Map();
    let c = this.errors.get(code);
    if (!c) this.errors.set(code, (c = this.http.errors.child(this.method, this.route, code)));
    c.value++;
  }
}
