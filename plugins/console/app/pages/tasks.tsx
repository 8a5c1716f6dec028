/** Tasks: the caller's tasks, live (polled while any is running), filterable, cancellable. */
import { useState } from 'preact/hooks';
import { api, type Task, type TaskEvent } from '../api';
import type { PageProps } from '../main';
import { isTerminal } from '../tasks';
import { Async, ListTable, Confirm, StatusBadge, fmtTime, href, useLoad } from '../ui';

const STATUSES = ['', 'pending', 'running', 'cancelling', 'completed', 'failed', 'cancelled'];

function Detail({ t, events }: { t: Task; events: TaskEvent[] }) {
  return (
    <article aria-labelledby="task-h" class="card">
      <h2 id="task-h">{t.task_type} <code>{t.task_id}</code></h2>
      <dl class="meta">
        <dt>Status</dt><dd><StatusBadge status={t.status} /> {t.stage ?? ''}</dd>
        <dt>Created</dt><dd>{fmtTime(t.created_at)}</dd>
        <dt>Updated</dt><dd>{fmtTime(t.updated_at)}</dd>
        {t.resource_id && (<><dt>Resource</dt><dd>{t.resource_id}</dd></>)}
      </dl>
      {t.error !== null && t.error !== undefined && <pre class="state error">{typeof t.error === 'string' ? t.error : JSON.stringify(t.error, null, 2)}</pre>}
      {events.length > 0 && (
        <details open>
          <summary>Events ({events.length})</summary>
          <ol class="plain events">
            {events.map((e) => (
              <li key={e.seq}>
                <span class="muted">{fmtTime(e.recorded_at)}</span> {e.kind} <StatusBadge status={e.status} /> {e.stage ?? ''} {e.operation ?? ''} {e.error && <span class="state error">{e.error}</span>}
              </li>
            ))}
          </ol>
        </details>
      )}
      {t.result !== null && t.result !== undefined && (
        <details open>
          <summary>Result</summary>
          <pre>{JSON.stringify(t.result, null, 2)}</pre>
        </details>
      )}
    </article>
  );
}

export function TasksPage({ query }: PageProps) {
  const [status, setStatus] = useState('');
  const [type, setType] = useState('');
  const [internal, setInternal] = useState(false);
  const list = useLoad(() => api.tasks({ status: status || undefined, task_type: type || undefined, include_internal: internal || undefined }), [status, type, internal], { every: 2000 });
  const id = query.get('id');
  // The open task's record with its events, followed while the page is open (the API has no push).
  const one = useLoad(() => (id ? api.taskWithEvents(id) : Promise.resolve(null)), [id], { every: 2000 });
  return (
    <>
      {id && <Async state={one}>{(d) => (d ? <Detail t={d.task} events={d.events} /> : null)}</Async>}
      <form class="row" aria-label="filter tasks" onSubmit={(e) => e.preventDefault()}>
        <label for="t-status">Status</label>
        <select id="t-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
          {STATUSES.map((s) => (
            <option key={s} value={s}>{s || 'any'}</option>
          ))}
        </select>
        <label for="t-type">Type</label>
        <input id="t-type" value={type} onInput={(e) => setType(e.currentTarget.value)} placeholder="add_resource" />
        <label class="check">
          <input type="checkbox" checked={internal} onChange={(e) => setInternal(e.currentTarget.checked)} /> internal tasks
        </label>
      </form>
      <ListTable
        state={list}
        empty="No tasks match."
        head={<><th>Type</th><th>Status</th><th>Stage</th><th>Created</th><th><span class="sr">Actions</span></th></>}
        row={(t) => (
          <tr key={t.task_id}>
            <td><a href={href('tasks', { id: t.task_id })}>{t.task_type}</a></td>
            <td><StatusBadge status={t.status} /></td>
            <td>{t.stage ?? ''}</td>
            <td>{fmtTime(t.created_at)}</td>
            <td>{!isTerminal(t.status) && t.status !== 'cancelling' && <Confirm label="Cancel" question={`Cancel ${t.task_type} ${t.task_id}?`} action={() => api.cancelTask(t.task_id)} onDone={list.reload} />}</td>
          </tr>
        )}
      />
    </>
  );
}
