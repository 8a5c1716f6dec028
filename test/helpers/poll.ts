/**
 * Waiting for a condition in tests: one bounded poll instead of hand-written loops and fixed sleeps.
 * The bound is a hang guard, never a timing assertion (the machine is shared), so it is generous.
 */
export interface PollOptions {
  /** What is awaited, for the error when it never happens. */
  what?: string;
  /** Give up after this long (default 20 s). */
  timeoutMs?: number;
  /** Between checks (default 5 ms: most conditions are met within a few event-loop turns). */
  intervalMs?: number;
}

/** What a truthy check result can be. */
export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** Resolves with the first truthy value `check` returns; rejects naming `what` (and the last value) at the bound. */
export async function pollUntil<T>(check: () => T | Promise<T>, opts: PollOptions = {}): Promise<Truthy<T>> {
  const { what = 'condition', timeoutMs = 20_000, intervalMs = 5 } = opts;
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await check();
    if (last) return last as Truthy<T>;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last === undefined || typeof last === 'boolean' ? '' : `; last: ${JSON.stringify(last)}`}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A pause for the rare test that must let time pass (a debounce, a TTL): say why where it is used. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const TERMINAL = ['completed', 'failed', 'cancelled'];

/**
 * The task record once it is terminal (completed, failed or cancelled), read through `fetchTask`
 * (the test's own GET of `/api/v1/tasks/{id}`, returning the envelope's `result`).
 */
export function settledTask<T extends { status: string }>(fetchTask: () => Promise<T>, what = 'the task to finish'): Promise<T> {
  return pollUntil(
    async () => {
      const task = await fetchTask();
      return TERMINAL.includes(task.status) && task;
    },
    { what, intervalMs: 20 },
  ) as Promise<T>;
}
