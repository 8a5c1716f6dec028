/** Following a task: polled (the API has no task event stream), faster at first, then every second. */
import { api, type Task } from './api';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
export const isTerminal = (status: string) => TERMINAL.has(status);

export async function waitForTask(id: string, onUpdate: (t: Task) => void, signal?: AbortSignal): Promise<Task> {
  for (let i = 0; ; i++) {
    const t = await api.task(id);
    onUpdate(t);
    if (isTerminal(t.status)) {
      if (t.status === 'failed') throw new Error(`task ${t.task_type} failed: ${typeof t.error === 'string' ? t.error : JSON.stringify(t.error)}`);
      return t;
    }
    if (signal?.aborted) throw new Error('stopped following the task');
    await new Promise((r) => setTimeout(r, i < 10 ? 200 : 1000));
  }
}
