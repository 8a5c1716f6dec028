/**
 * Kill -9 durability: a child process appends messages (and commits) through the real app; the
 * parent SIGKILLs it mid-stream, reopens the data directory and checks that every acknowledged
 * message is there exactly once, that counters agree with the stored messages, and that commits
 * interrupted by the kill complete after the restart.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT_KEY, startTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { client } from './helpers.js';
import { pollUntil } from '../helpers/poll.js';

const CHILD = path.resolve('test/sessions/crash-child.ts');
let t: TestApp | undefined;
afterAll(() => t?.close());

async function runAndKill(dir: string, acks: number): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, ROOT_KEY], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let seen = 0;
  let killed = false;
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    const text = d.toString();
    out += text;
    for (const line of text.split('\n')) if (line.startsWith('ack ')) seen++;
    if (!killed && seen >= acks) {
      killed = true;
      child.kill('SIGKILL');
    }
  });
  if ((await exited) !== 'SIGKILL') throw new Error(`child ended by itself before the kill:\n${err}`);
  const lines = out.split('\n');
  lines.pop();
  expect(lines[0]).toBe('ready');
  return lines.slice(1);
}

describe('sessions: SIGKILL while appending and committing', () => {
  it('keeps every acknowledged message exactly once, with consistent counters', { timeout: 60_000 }, async () => {
    const dir = tempDir('ctx-crash-sessions-');
    const lines = await runAndKill(dir, 400);
    const acked = new Map<string, string[]>();
    for (const l of lines) {
      const [kind, session, text] = l.split(' ');
      if (kind === 'ack') acked.set(session!, [...(acked.get(session!) ?? []), text!]);
    }
    t = await startTestApp({ dir });
    const key = (await t.req({ method: 'POST', url: '/api/v1/admin/accounts/acme/users/admin/key', headers: t.root })).json().result.user_key as string;
    const c = client(t, { 'x-api-key': key });
    // Commits cut by the kill resume and complete.
    const w0 = await c.info('w0');
    const last = `archive_${String(w0.commit_count).padStart(3, '0')}`;
    if (w0.commit_count > 0) {
      await pollUntil(async () => (await c.get(`/api/v1/sessions/w0/archives/${last}`)).status === 200, { what: `archive ${last} of w0`, intervalMs: 50 });
    }
    for (const [session, texts] of acked) {
      const info = await c.info(session);
      // Stored = archived + live; every archive's messages are readable (done or not).
      const stored: string[] = [];
      const ctx = await c.context(session);
      for (let n = 1; n <= info.commit_count; n++) {
        const id = `archive_${String(n).padStart(3, '0')}`;
        const arch = await c.get(`/api/v1/sessions/${session}/archives/${id}`);
        if (arch.status === 200) stored.push(...arch.json().result.messages.map((m: any) => m.parts[0].text));
      }
      const active = ctx.messages.map((m: any) => m.parts[0].text);
      stored.push(...active);
      for (const text of texts) expect(stored, `${session}: ${text}`).toContain(text);
      expect(new Set(stored).size, session).toBe(stored.length);
      expect(info.total_message_count, session).toBe(stored.length);
      expect(info.message_count).toBeLessThanOrEqual(active.length);
    }
    expect(acked.get('shared')?.length ?? 0).toBeGreaterThan(0);
  });
});
