/**
 * JSON-over-HTTP calls to remote model APIs (embeddings, rerank) with the protections a server
 * needs in front of a dependency it does not control: bounded concurrency, per-request timeouts,
 * retries with exponential backoff and jitter (honouring Retry-After), and a circuit breaker so a
 * dead endpoint fails fast instead of stalling every indexing batch for retries × timeout.
 */
import { CtxError } from '../errors.js';
import { startOutbound } from '../tracing/tracing.js';
import { HttpPoster, type PostAnswer } from './http-post.js';

export interface ResilienceOptions {
  /** Requests in flight at once against this endpoint (default 4). */
  concurrency?: number;
  /** Retries after the first attempt for retryable failures (default 4). */
  retries?: number;
  /** First backoff delay, ms; doubles per attempt, full jitter (default 250). */
  backoffMs?: number;
  /** Longest single backoff, ms, Retry-After included (default 8000). */
  maxBackoffMs?: number;
  /** Per-attempt timeout, ms (default 30000). */
  timeoutMs?: number;
  /** Consecutive failed attempts that open the breaker (default 5). */
  breakerThreshold?: number;
  /** How long an open breaker rejects calls before letting one probe through, ms (default 30000). */
  breakerCooldownMs?: number;
  /** Clock for the breaker (tests inject one; never timing-dependent). */
  now?: () => number;
  /** Sleep used for backoff (tests inject one that records and returns at once). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** 408/425/429 and 5xx are transient; other 4xx are the request's fault and are not retried. */
const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);
/** Failures that say the endpoint (not this input) is unusable: they feed the breaker. */
const endpointFault = (status: number | undefined) => status === undefined || RETRYABLE.has(status) || status === 401 || status === 403;

export class RemoteModelError extends Error {
  constructor(message: string, readonly status?: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RemoteModelError';
  }
}

export type BreakerState = 'closed' | 'open' | 'half-open';

/**
 * Closed → (threshold consecutive failures) → open → (cooldown) → half-open: exactly one probe
 * request goes through; success closes the breaker, failure re-opens it for another cooldown.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private state_: BreakerState = 'closed';
  private probing = false;
  opens = 0;

  constructor(
    private readonly threshold: number,
    private readonly cooldownMs: number,
    private readonly now: () => number,
  ) {}

  get state(): BreakerState {
    if (this.state_ === 'open' && this.now() - this.openedAt >= this.cooldownMs) this.state_ = 'half-open';
    return this.state_;
  }

  /** Whether a request may start now; in half-open only the first caller gets through. */
  tryAcquire(): boolean {
    const s = this.state;
    if (s === 'closed') return true;
    if (s === 'half-open' && !this.probing) {
      this.probing = true;
      return true;
    }
    return false;
  }

  /** Milliseconds until an open breaker lets a probe through. */
  retryInMs(): number {
    return Math.max(0, this.cooldownMs - (this.now() - this.openedAt));
  }

  success(): void {
    this.failures = 0;
    this.probing = false;
    this.state_ = 'closed';
  }

  failure(): void {
    this.probing = false;
    this.failures++;
    if (this.state_ === 'half-open' || this.failures >= this.threshold) {
      if (this.state_ !== 'open') this.opens++;
      this.state_ = 'open';
      this.openedAt = this.now();
    }
  }

  /** A request that ended without saying anything about the endpoint (input rejected, aborted). */
  release(): void {
    this.probing = false;
  }
}

class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly max: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((r) => this.waiting.push(r));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export interface EndpointStats {
  requests: number;
  attempts: number;
  retries: number;
  failures: number;
  breaker: BreakerState;
  breakerOpens: number;
}

/** One remote endpoint (base URL + credentials) shared by all callers of a provider. */
export class ResilientEndpoint {
  readonly breaker: CircuitBreaker;
  private readonly sem: Semaphore;
  private readonly o: Required<Omit<ResilienceOptions, 'now' | 'sleep'>>;
  private readonly sleep: NonNullable<ResilienceOptions['sleep']>;
  private readonly counters = { requests: 0, attempts: 0, retries: 0, failures: 0 };
  private readonly poster: HttpPoster;
  /** A real private field: plugins hold clients built on this (`host.models`), never the key. */
  readonly #apiKey: string | undefined;

  constructor(
    readonly name: string,
    private readonly baseUrl: string,
    apiKey: string | undefined,
    opts: ResilienceOptions = {},
  ) {
    this.#apiKey = apiKey;
    this.o = {
      concurrency: opts.concurrency ?? 4,
      retries: opts.retries ?? 4,
      backoffMs: opts.backoffMs ?? 250,
      maxBackoffMs: opts.maxBackoffMs ?? 8000,
      timeoutMs: opts.timeoutMs ?? 30_000,
      breakerThreshold: opts.breakerThreshold ?? 5,
      breakerCooldownMs: opts.breakerCooldownMs ?? 30_000,
    };
    this.sleep = opts.sleep ?? defaultSleep;
    this.poster = new HttpPoster();
    this.breaker = new CircuitBreaker(this.o.breakerThreshold, this.o.breakerCooldownMs, opts.now ?? Date.now);
    this.sem = new Semaphore(Math.max(1, this.o.concurrency));
  }

  stats(): EndpointStats {
    return { ...this.counters, breaker: this.breaker.state, breakerOpens: this.breaker.opens };
  }

  private unavailable(detail: string, cause?: unknown): CtxError {
    return new CtxError(
      'UNAVAILABLE',
      `${this.name} at ${this.baseUrl} is unavailable: ${detail}`,
      { provider: this.name, breaker: this.breaker.state, retry_in_ms: this.breaker.retryInMs() },
      cause === undefined ? undefined : { cause },
    );
  }

  /**
   * POSTs JSON to `${baseUrl}${path}` and returns the parsed answer. Transient failures are
   * retried; what remains is thrown as CtxError UNAVAILABLE (endpoint down, breaker open) or
   * RemoteModelError (the endpoint refused this input, or answered garbage).
   */
  async postJson(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    this.counters.requests++;
    const payload = JSON.stringify(body);
    let lastErr: unknown;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      if (!this.breaker.tryAcquire()) {
        throw this.unavailable(`circuit breaker open after repeated failures${lastErr ? ` (last: ${(lastErr as Error).message})` : ''}`, lastErr);
      }
      let retryAfterMs: number | undefined;
      try {
        this.counters.attempts++;
        const out = await this.sem.run(() => this.once(path, payload, signal));
        this.breaker.success();
        return out;
      } catch (err) {
        if (signal?.aborted) {
          this.breaker.release();
          throw signal.reason ?? err;
        }
        const status = err instanceof RemoteModelError ? err.status : undefined;
        const badAnswer = err instanceof RemoteModelError && err.status !== undefined && err.status < 300;
        if (badAnswer || !endpointFault(status)) {
          // The request or its answer is at fault, not the endpoint's health: no breaker, no retry.
          this.breaker.release();
          this.counters.failures++;
          throw err;
        }
        this.breaker.failure();
        lastErr = err;
        retryAfterMs = (err as { retryAfterMs?: number }).retryAfterMs;
        if (attempt >= this.o.retries || status === 401 || status === 403) {
          this.counters.failures++;
          throw this.unavailable((err as Error).message, err);
        }
      }
      this.counters.retries++;
      const exp = Math.min(this.o.maxBackoffMs, this.o.backoffMs * 2 ** attempt);
      // Full jitter spreads the retries of concurrent batches; Retry-After is a floor.
      const delay = Math.min(this.o.maxBackoffMs, Math.max(retryAfterMs ?? 0, Math.random() * exp));
      await this.sleep(delay, signal);
    }
  }

  private async once(path: string, payload: string, signal?: AbortSignal): Promise<unknown> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    // W3C trace context of the request, task or queue message this call serves.
    const outbound = startOutbound(`POST ${path}`, { 'server.address': this.name });
    if (outbound) headers.traceparent = outbound.traceparent;
    let res: PostAnswer;
    try {
      res = await this.poster.post(`${this.baseUrl}${path}`, headers, payload, signal, this.o.timeoutMs);
    } catch (err) {
      outbound?.end(true);
      // A timeout's message says so (PostTimeout: `timed out after N ms`).
      throw new RemoteModelError(`request failed: ${(err as Error).message}`, undefined, { cause: err });
    }
    const ok = res.status >= 200 && res.status < 300;
    outbound?.end(!ok);
    const raw = res.text;
    if (!ok) {
      const e = new RemoteModelError(`HTTP ${res.status}: ${raw.slice(0, 300)}`, res.status) as RemoteModelError & { retryAfterMs?: number };
      const ra = res.header('retry-after');
      if (ra && /^\d+(\.\d+)?$/.test(ra.trim())) e.retryAfterMs = Number(ra) * 1000;
      throw e;
    }
    try {
      return JSON.parse(raw);
    } catch {
      throw new RemoteModelError(`answer is not JSON: ${raw.slice(0, 120)}`, res.status);
    }
  }
}
