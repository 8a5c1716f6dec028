import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { pollUntil } from '../helpers/poll.js';

export function client(t: TestApp, headers: Record<string, string>) {
  const c = {
    headers,
    patch: (url: string, body: unknown = {}) => t.req({ method: 'PATCH', url, headers, body }),
    post: (url: string, body: unknown = {}) => t.req({ method: 'POST', url, headers, body }),
    get: (url: string) => t.req({ method: 'GET', url, headers }),
    say: async (id: string, role: string, content: string) => {
      const res = await c.post(`/api/v1/sessions/${id}/messages`, { role, content });
      expect(res.status, res.text).toBe(200);
      return res.json().result;
    },
    commit: async (id: string, body: unknown = {}) => {
      const res = await c.post(`/api/v1/sessions/${id}/commit`, body);
      expect(res.status, res.text).toBe(200);
      return res.json().result;
    },
    /** Polls the task until it is terminal. */
    task: (taskId: string) =>
      pollUntil(
        async () => {
          const r = (await c.get(`/api/v1/tasks/${taskId}`)).json().result;
          return ['completed', 'failed', 'cancelled'].includes(r.status) && r;
        },
        { what: `task ${taskId} to finish`, intervalMs: 20 },
      ),
    read: async (uri: string) => {
      const res = await c.get(`/api/v1/content/read?uri=${encodeURIComponent(uri)}`);
      return res.status === 200 ? (res.json().result as string) : null;
    },
    info: async (id: string) => (await c.get(`/api/v1/sessions/${id}`)).json().result,
    context: async (id: string, budget?: number) => (await c.get(`/api/v1/sessions/${id}/context${budget === undefined ? '' : `?token_budget=${budget}`}`)).json().result,
  };
  return c;
}
