/**
 * Calls to remote models (embedding, rerank, LLM): count by outcome, latency, tokens. Model
 * clients are created by plugins through the SDK, outside any app, so these families are one per
 * process and every app's registry renders them. Labels: kind, provider, model name (operator
 * configuration, bounded), outcome; never request content.
 */
import { CounterFamily, HistogramFamily, type CounterChild, type HistogramChild } from './families.js';

let families: { calls: CounterFamily; duration: HistogramFamily; tokens: CounterFamily } | undefined;

function ensure() {
  return (families ??= {
    calls: new CounterFamily('ctx_model_calls_total', 'Calls to model endpoints by kind (embedding, rerank, llm), provider, model and outcome (ok, error)', ['kind', 'provider', 'model', 'outcome']),
    duration: new HistogramFamily('ctx_model_call_duration_seconds', 'Latency of model calls (retries included)', ['kind', 'provider', 'model']),
    tokens: new CounterFamily('ctx_model_tokens_total', 'Tokens the model endpoints reported, by direction (input, output)', ['kind', 'provider', 'model', 'direction']),
  });
}

export function modelFamilies() {
  const f = ensure();
  return [f.calls, f.duration, f.tokens];
}

/** The children of one model client, resolved when it is created. */
export class ModelCallMetrics {
  private readonly ok: CounterChild;
  private readonly failed: CounterChild;
  private readonly latency: HistogramChild;
  private readonly input: CounterChild;
  private readonly output: CounterChild;

  constructor(kind: 'embedding' | 'rerank' | 'llm', provider: string, model: string) {
    const f = ensure();
    this.ok = f.calls.child(kind, provider, model, 'ok');
    this.failed = f.calls.child(kind, provider, model, 'error');
    this.latency = f.duration.child(kind, provider, model);
    this.input = f.tokens.child(kind, provider, model, 'input');
    this.output = f.tokens.child(kind, provider, model, 'output');
  }

  /** Times `fn`, counting it as ok or error. */
  async time<T>(fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      const out = await fn();
      this.ok.inc();
      return out;
    } catch (err) {
      this.failed.inc();
      throw err;
    } finally {
      this.latency.observe((performance.now() - t0) / 1000);
    }
  }

  tokens(input: number | undefined, output: number | undefined): void {
    if (input && input > 0) this.input.inc(input);
    if (output && output > 0) this.output.inc(output);
  }
}
