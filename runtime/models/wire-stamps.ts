/**
 * Bench-only timestamps of a remote model call on its way through the wire (issue 27, item 1:
 * where a find's embedding call spends the time the embedder does not), and of the request around
 * it in the HTTP server (`srv.req` as uWS hands it over, `srv.body`, `srv.handler`, `srv.result`,
 * `srv.written`). `process.hrtime.bigint()`
 * is CLOCK_MONOTONIC, one clock for every process on the machine, so these line up with the
 * bench's and the fake embedder's own stamps. Off unless CTX_BENCH_STAMPS names a file; the
 * stamps are kept in memory and written there when the process exits (bench/find-remote-gap.ts).
 */
import fs from 'node:fs';

const file = process.env.CTX_BENCH_STAMPS;
const kept: string[] | null = file ? [] : null;
if (file && kept) process.on('exit', () => fs.writeFileSync(file, kept.join('\n') + '\n'));

/** Whether stamps are being kept: callers skip their own work for them when not. */
export const stamping = kept !== null;

export function stamp(label: string): void {
  if (kept) kept.push(`${label} ${process.hrtime.bigint()}`);
}
