/**
 * The bench-only stamps of a remote embedding call (runtime/models/wire-stamps.ts, issue 27): off
 * without CTX_BENCH_STAMPS; with it, every step of a call in order: the request built before the
 * call returns (no await first once the dimension is known), written on its kept-alive socket
 * before the call returns — what lets a find's embedding request leave before its scope work.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const child = path.join(import.meta.dirname, 'fixtures', 'stamped-embed.ts');
const run = (env: Record<string, string>) => execFileSync(process.execPath, ['--import', 'tsx', child], { env: { ...process.env, ...env }, stdio: 'pipe', timeout: 30_000 });

describe('remote embedding call stamps', () => {
  it('stamps each step of the call, the request on its socket before the call returns', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-stamps-'));
    try {
      const file = path.join(dir, 'stamps');
      expect(run({ CTX_BENCH_STAMPS: file }).toString()).toBe('true');
      const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => l.split(' '));
      for (const [, t] of lines) expect(t).toMatch(/^\d+$/);
      const times = lines.map(([, t]) => BigInt(t!));
      expect(times).toEqual([...times].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      const second = lines.slice(lines.findIndex(([l]) => l === 'caller.second') + 1).map(([l]) => l);
      expect(second.filter((l) => l !== 'post.finish')).toEqual(['embed.call', 'post.call', 'post.socket', 'post.ended', 'caller.returned', 'caller.resumed', 'post.response', 'post.body', 'embed.vector']);
      expect(second).toContain('post.finish');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps nothing without CTX_BENCH_STAMPS', () => {
    expect(run({ CTX_BENCH_STAMPS: '' }).toString()).toBe('false');
  });
});
