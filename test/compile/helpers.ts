/** Shared set-up of the compile tests: an account with two users, a skill, a source tree. */
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { pollUntil } from '../helpers/poll.js';

export const SKILL = { name: 'summarize', description: 'Summarizes sources into one file', content: '# Summarize\n\nRead every source file and write summary.md with one line per file.' };

export async function seed(t: TestApp, account = 'acme'): Promise<{ alice: Record<string, string>; bob: Record<string, string> }> {
  const { users } = await t.account(account, ['alice', 'bob']);
  const alice = users.alice;
  const sk = await t.req({ method: 'POST', url: '/api/v1/skills', headers: alice, body: { data: SKILL } });
  expect(sk.status, sk.text).toBe(200);
  for (const [name, text] of [['a.md', 'Alpha facts'], ['b.md', 'Beta facts']]) {
    const w = await t.req({ method: 'POST', url: '/api/v1/content/write', headers: alice, body: { uri: `ctx://~/resources/src/${name}`, content: text } });
    expect(w.status, w.text).toBe(200);
  }
  return { alice, bob: users.bob };
}

export const body = (extra: Record<string, unknown> = {}) => ({ from: ['ctx://~/resources/src'], to: 'ctx://~/resources/out', skill: 'ctx://~/skills/summarize', ...extra });

/** Polls a task until it is terminal. */
export async function settle(t: TestApp, headers: Record<string, string>, id: string, ms = 20_000): Promise<Record<string, any>> {
  return pollUntil(
    async () => {
      const r = await t.req({ method: 'GET', url: `/api/v1/tasks/${id}`, headers });
      expect(r.status, r.text).toBe(200);
      const task = r.json().result;
      return ['completed', 'failed', 'cancelled'].includes(task.status) && task;
    },
    { what: `task ${id} to finish`, timeoutMs: ms, intervalMs: 20 },
  );
}
