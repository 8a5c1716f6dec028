/**
 * HTTP request metrics. Each route gets its `RouteMetrics` when it is registered (the route
 * template is known then), holding every number of its series in one Float64Array; a request adds
 * to fixed cells of it (no label values, no lookup, no allocation). Labels are the method, the
 * route template, the status class and the error code: never the raw path, a URI or an id (an
 * unmatched path is `route="unmatched"`).
 */
import { CollectedFamily, CounterChild, CounterFamily, HistogramChild, HistogramFamily, LATENCY_BUCKETS, SIZE_BUCKETS, histogramCells } from './families.js';
import type { Metrics } from './registry.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

const LATENCY = Float64Array.from(LATENCY_BUCKETS);
const SIZES = Float64Array.from(SIZE_BUCKETS);
/** A route's cells: requests per status class, then the duration, request and response size histograms. */
const DURATION = CLASSES.length;
const REQUEST_BYTES = DURATION + histogramCells(LATENCY);
const RESPONSE_BYTES = REQUEST_BYTES + histogramCells(SIZES);
const CELLS = RESPONSE_BYTES + histogramCells(SIZES);

export class HttpMetrics {
  readonly requests: CounterFamily;
  readonly duration: HistogramFamily;
  readonly requestBytes: HistogramFamily;
  readonly responseBytes: HistogramFamily;
  readonly errors: CounterFamily;
  /** CTX_METRICS_ACCOUNT_LABEL: the request counter has an `account` label. */
  readonly perAccount: boolean;
  private readonly unmatched = new Map<string, RouteMetrics>();

  constructor(metrics: Metrics, inFlight: () => number) {
    this.perAccount = metrics.accountLabel;
    const account = metrics.accountLabel ? ['account'] : [];
    this.requests = metrics.add(new CounterFamily('ctx_http_requests_total', 'HTTP requests answered, by method, route template and status class', ['method', 'route', 'status_class', ...account]));
    this.duration = metrics.add(new HistogramFamily('ctx_http_request_duration_seconds', 'Time from the request reaching the pipeline to its response being handed to the socket', ['method', 'route'], LATENCY_BUCKETS));
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

const N_LATENCY = LATENCY.length;
const N_SIZES = SIZES.length;

/**
 * The three histograms of one request, as `observeInto` thrice but in one call: V8 leaves it out
 * of line either way (handle's inlining budget is spent), and under callgrind the three calls were
 * ~370 instructions per fs/stat, a third of the metrics' own (bench/RESULTS.md, ops7).
 */
function observeRequest(c: Float64Array, seconds: number, requestBytes: number, responseBytes: number): void {
  let i = 0;
  while (i < N_LATENCY && seconds > LATENCY[i]!) i++;
  c[DURATION + i]!++;
  c[DURATION + N_LATENCY + 1]! += seconds;
  c[DURATION + N_LATENCY + 2]!++;
  i = 0;
  while (i < N_SIZES && requestBytes > SIZES[i]!) i++;
  c[REQUEST_BYTES + i]!++;
  c[REQUEST_BYTES + N_SIZES + 1]! += requestBytes;
  c[REQUEST_BYTES + N_SIZES + 2]!++;
  i = 0;
  while (i < N_SIZES && responseBytes > SIZES[i]!) i++;
  c[RESPONSE_BYTES + i]!++;
  c[RESPONSE_BYTES + N_SIZES + 1]! += responseBytes;
  c[RESPONSE_BYTES + N_SIZES + 2]!++;
}

export class RouteMetrics {
  /** Every number of this route's series (layout above); the families render them from here. */
  private readonly cells = new Float64Array(CELLS);
  /** The status classes seen (bits): a series joins the families with its first request, never as an all-zero series before. */
  private shown = 0;
  private byAccount: Map<string, Array<CounterChild | undefined>> | undefined = undefined;
  private errors: Map<string, CounterChild> | undefined = undefined;
  private readonly perAccount: boolean;

  constructor(private readonly http: HttpMetrics, readonly method: string, readonly route: string) {
    this.perAccount = http.perAccount;
  }

  /**
   * One request; `account` is read only with the opt-in per-account label (CTX_METRICS_ACCOUNT_LABEL),
   * '' when absent. Kept small: V8 inlines it into the pipeline's `handle` under one bytecode budget
   * for all its callees, and a larger record pushed the request's own set-up (the Exchange's fields,
   * the request id) out of line (bench/RESULTS.md, ops6).
   */
  record(status: number, seconds: number, requestBytes: number, responseBytes: number, account: string | undefined): void {
    let cls = ((status / 100) | 0) - 1;
    if (cls < 0 || cls > 4) cls = 4;
    if ((this.shown & (1 << cls)) === 0) this.show(cls);
    const c = this.cells;
    if (this.perAccount) this.countForAccount(cls, account ?? '');
    else c[cls]!++;
    observeRequest(c, seconds, requestBytes, responseBytes);
  }

  error(code: string): void {
    this.errors ??= new Map();
    let c = this.errors.get(code);
    if (!c) this.errors.set(code, (c = this.http.errors.child(this.method, this.route, code)));
    c.inc();
  }

  /** The first request of a status class (and the route's first): its series join the families. */
  private show(cls: number): void {
    if (this.shown === 0) {
      const labels = [this.method, this.route];
      this.http.duration.attach(labels, new HistogramChild(LATENCY, this.cells, DURATION));
      this.http.requestBytes.attach(labels, new HistogramChild(SIZES, this.cells, REQUEST_BYTES));
      this.http.responseBytes.attach(labels, new HistogramChild(SIZES, this.cells, RESPONSE_BYTES));
    }
    this.shown |= 1 << cls;
    // With the account label the class counters are per account (countForAccount), not these cells.
    if (!this.perAccount) this.http.requests.attach([this.method, this.route, CLASSES[cls]!], new CounterChild(this.cells, cls));
  }

  /** The per-account dimension (small deployments): one counter per account and class, kept in a map. */
  private countForAccount(cls: number, account: string): void {
    this.byAccount ??= new Map();
    let perAccount = this.byAccount.get(account);
    if (!perAccount) this.byAccount.set(account, (perAccount = [undefined, undefined, undefined, undefined, undefined]));
    (perAccount[cls] ??= this.http.requests.child(this.method, this.route, CLASSES[cls]!, account)).inc();
  }
}
