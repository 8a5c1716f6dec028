import fs from 'node:fs';

/**
 * A process's CPU time in µs, all its threads (JS, libuv pool, GC helpers), from the scheduler's
 * nanosecond accounting (/proc/<pid>/stat counts 10 ms ticks, too coarse for these turns).
 */
export function cpuMicros(pid: number): number {
  let ns = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return ns / 1000;
}
