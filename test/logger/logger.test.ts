/**
 * Stdout logging is batched per event-loop turn (one write instead of one per line) and loses no
 * line on a normal end: exit, an uncaught exception, or a warning right before a hard crash.
 * Real child processes writing to real pipes.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  lines: Array<Record<string, unknown>>;
  writes?: number;
  stderr: string;
}

function runChild(mode: string, readAfterMs = 0): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/logger/log-child.ts', mode], { stdio: ['ignore', 'pipe', 'pipe'] });
    if (readAfterMs) {
      // A slow reader: the pipe fills and the child's writes must wait for it.
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), readAfterMs);
    }
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const writes = /writes=(\d+)/.exec(err);
      resolve({
        code,
        signal,
        lines: out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
        writes: writes ? Number(writes[1]) : undefined,
        stderr: err,
      });
    });
  });
}

const ns = (r: Run) => r.lines.filter((l) => l.msg === 'request').map((l) => l.n);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('stdout logger', () => {
  it('writes the lines of one event-loop turn with one write, in order, across child loggers', async () => {
    const r = await runChild('turns');
    expect(r.code).toBe(0);
    expect(ns(r)).toEqual(range(300));
    expect(r.lines[1]).toMatchObject({ level: 'info', msg: 'request', component: 'http', n: 1 });
    expect(r.lines[0]!.component).toBeUndefined();
    expect(r.writes).toBe(3);
  });

  it('a turn that logs more than 64 KB writes when the buffer fills, not once per line', async () => {
    const r = await runChild('big');
    expect(ns(r)).toEqual(range(1000));
    expect(r.writes).toBeGreaterThanOrEqual(2);
    expect(r.writes).toBeLessThanOrEqual(3);
  });

  it('process.exit in the same turn: every buffered line is written', async () => {
    const r = await runChild('exit');
    expect(r.code).toBe(0);
    expect(ns(r)).toEqual(range(500));
  });

  it('an uncaught exception: every buffered line is written before the process dies', async () => {
    const r = await runChild('throw');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('boom');
    expect(ns(r)).toEqual(range(500));
  });

  it('a slow reader on a full pipe, then exit with lines buffered: every line arrives whole and in order', async () => {
    const r = await runChild('flood-exit', 300);
    expect(r.code).toBe(0);
    expect(ns(r)).toEqual(range(2051));
    expect(r.lines[2000]!.pad).toHaveLength(300_000);
  });

  it('a warning is written at once, with the lines before it: a crash right after loses neither', async () => {
    const r = await runChild('warn-then-kill');
    expect(r.signal).toBe('SIGKILL');
    expect(ns(r).slice(0, 10)).toEqual(range(10));
    expect(r.lines[10]).toMatchObject({ level: 'warn', msg: 'about to crash' });
  });
});
