/** Watches: resources re-imported on a schedule; pause, resume, run now, delete. */
import { api } from '../api';
import type { PageProps } from '../main';
import { Confirm, ErrorBox, ListTable, StatusBadge, fmtTime, href, useAction, useLoad } from '../ui';

export function WatchesPage(_: PageProps) {
  const list = useLoad(() => api.watches(), [], { every: 5000 });
  const act = useAction();
  const watches = { ...list, data: list.data?.tasks };
  return (
    <>
      {act.error !== undefined && <ErrorBox error={act.error} />}
      <ListTable
        state={watches}
        empty="No watches. Add a resource with a watch interval to create one."
        head={<><th>Resource</th><th>Source</th><th>Every</th><th>Last run</th><th>Next</th><th><span class="sr">Actions</span></th></>}
        row={(w) => (
          <tr key={w.task_id}>
            <td><a href={href('browser', { uri: w.to_uri, dir: '1' })}>{w.to_uri}</a></td>
            <td>{w.path}</td>
            <td>{w.watch_interval} min</td>
            <td>{w.last_status ? <StatusBadge status={w.last_status} /> : '—'} {w.last_error ?? ''}</td>
            <td>{w.is_active ? fmtTime(w.next_execution_time) : 'paused'}</td>
            <td><div class="row">
              <button type="button" disabled={act.busy} onClick={async () => (await act.run(() => api.setWatchActive(w.task_id, !w.is_active))) !== undefined && list.reload()}>
                {w.is_active ? 'Pause' : 'Resume'}
              </button>
              <button type="button" disabled={act.busy} onClick={async () => (await act.run(() => api.triggerWatch(w.task_id))) !== undefined && list.reload()}>
                Run now
              </button>
              <Confirm label="Delete" question={`Stop watching ${w.to_uri}? The imported resource stays.`} action={() => api.deleteWatch(w.task_id)} onDone={list.reload} />
            </div></td>
          </tr>
        )}
      />
    </>
  );
}
