/**
 * Child process for test/logger: logs through the default (stdout) sink, then ends as argv[2] says.
 * Reports on stderr how many write syscalls went to stdout.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const mode = process.argv[2];
// Counts the write syscalls to stdout, which is what batching changes; the writes still happen.
let writes = 0;
const writeSync = fs.writeSync as (...args: unknown[]) => number;
fs.writeSync = ((...args: unknown[]) => {
  if (args[0] === 1) writes++;
  return writeSync(...args);
}) as typeof fs.writeSync;
syncBuiltinESMExports();
const report = () => process.stderr.write(`writes=${writes}\n`);
const { createLogger } = await import('../../runtime/logger.js');

const log = createLogger('info');
const http = log.child({ component: 'http' });
const lines = (n: number, from = 0) => {
  for (let i = from; i < from + n; i++) (i % 2 ? http : log).trusted('request', { n: i, pad: 'x'.repeat(40) });
};

if (mode === 'turns') {
  // 3 turns of 100 short lines (~10 KB each): one write per turn.
  lines(100);
  setImmediate(() => {
    lines(100, 100);
    setImmediate(() => {
      lines(100, 200);
      setTimeout(report, 20);
    });
  });
} else if (mode === 'big') {
  // ~100 KB in one turn: written when the buffer passes 64 KB, the rest at the end of the turn.
  lines(1000);
  setTimeout(report, 20);
} else if (mode === 'exit') {
  lines(500);
  process.exit(0);
} else if (mode === 'throw') {
  lines(500);
  throw new Error('boom');
} else if (mode === 'flood-exit') {
  // A non-blocking stdout pipe (libuv makes it so once process.stdout exists) whose reader is slow:
  // writes meet EAGAIN and partial writes, and the process exits with lines still buffered.
  void process.stdout;
  lines(2000);
  // One line larger than the pipe and the reader's buffer together: its write is partial for sure.
  log.trusted('request', { n: 2000, pad: 'y'.repeat(300_000) });
  setImmediate(() => {
    lines(50, 2001);
    process.exit(0);
  });
} else if (mode === 'warn-then-kill') {
  lines(10);
  log.warn('about to crash', { n: 10 });
  lines(10, 11); // never flushed: SIGKILL skips `exit`
  process.kill(process.pid, 'SIGKILL');
}
