/**
 * A tool call's cancellation without an AbortSignal until someone needs one. Creating an
 * AbortSignal costs ~10 µs in a loaded server (and a call that carried one was ~50 µs slower at
 * the median in `bench/_invoke`-style measurements, GC included), and almost no call is ever
 * cancelled: the direct `tools/call` path made one per call only so that
 * `notifications/cancelled` could reach the route. This object is what `host.invoke` needs of a
 * signal (`AbortLike`): listeners are kept in a plain array and called on `abort`.
 */
import type { AbortLike } from 'ctx/plugin';

export class Cancellation implements AbortLike {
  private listeners: Array<() => void> | undefined = undefined;
  private cancelled = false;

  get aborted(): boolean {
    return this.cancelled;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    // An AbortSignal already aborted does not call a listener added later; neither does this.
    if (this.cancelled) return;
    (this.listeners ??= []).push(listener);
  }

  abort(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const l of listeners ?? []) l();
  }
}
