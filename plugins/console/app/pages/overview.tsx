/** Overview: what is stored per scope, index and queue state, recent tasks and commits; refreshes itself. */
import { api } from '../api';
import type { PageProps } from '../main';
import { Async, StatusBadge, fmtBytes, fmtTime, href, useLoad } from '../ui';

const SCOPES = [
  { label: 'Resources', uri: 'ctx://resources' },
  { label: 'Memories', uri: 'ctx://~/memories' },
  { label: 'Skills', uri: 'ctx://~/skills' },
  { label: 'Sessions', uri: 'ctx://~/sessions' },
];

/** A scope that holds nothing has no directory yet: list the parents first so no request 404s. */
async function counts(user: string) {
  const [top, users] = await Promise.all([api.ls('ctx://', 0, 100), api.ls('ctx://user', 0, 1000)]);
  const home = `ctx://user/${user}`;
  const mine = users.some((e) => e.uri === home) ? await api.ls(home, 0, 100) : [];
  const exists = new Set([...top, ...mine].map((e) => e.uri.replace(/\/$/, '')));
  return Promise.all(
    SCOPES.map(async (s) => {
      const uri = s.uri.replace('ctx://~', `ctx://user/${user}`);
      // Sessions are counted by the sessions API (a session is a directory, not its files).
      if (s.label === 'Sessions') return { ...s, count: (await api.sessions()).length };
      if (!exists.has(uri)) return { ...s, count: 0 };
      const st = await api.stat(uri);
      return { ...s, count: st.count ?? 0 };
    }),
  );
}

/** The vector index's size, read from the vectordb component's status table (no endpoint reports storage size). */
function indexSize(status: string | undefined): { records: number; bytes: number } | null {
  if (!status) return null;
  const value = (name: string) => Number(status.match(new RegExp(`^${name}\\s+(\\d+)`, 'm'))?.[1] ?? NaN);
  const records = value('records');
  const bytes = ['vector_bytes', 'graph_bytes', 'attr_bytes'].map(value).filter((n) => !Number.isNaN(n)).reduce((a, b) => a + b, 0);
  return Number.isNaN(records) ? null : { records, bytes };
}

export function OverviewPage({ me }: PageProps) {
  const scopes = useLoad(() => counts(me.user_id), [me.user_id], { every: 5000 });
  const observer = useLoad(() => api.observer(), [], { every: 5000 });
  const tasks = useLoad(() => api.tasks({ limit: 8 }), [], { every: 3000 });
  const commits = useLoad(() => api.snapshotLog(5), [], { every: 10000 });
  return (
    <div class="grid">
      <section class="card" aria-labelledby="ov-scopes">
        <h2 id="ov-scopes">Stored</h2>
        <Async state={scopes}>
          {(rows) => (
            <ul class="stats">
              {rows.map((r) => (
                <li key={r.uri}>
                  <a href={href('browser', { uri: r.uri })}>
                    <span class="num">{r.count.toLocaleString()}</span>
                    <span>{r.label}</span>
                  </a>
                </li>
              ))}
            </ul>
          )}
        </Async>
      </section>
      <section class="card" aria-labelledby="ov-health">
        <h2 id="ov-health">Index and queues</h2>
        <Async state={observer}>
          {(o) => (
            <>
              <p>
                <StatusBadge status={o.is_healthy ? 'healthy' : 'unhealthy'} /> {o.errors.length ? o.errors.join('; ') : 'no errors'}
              </p>
              {(() => {
                const size = indexSize(o.components.vectordb?.status);
                return size && (
                  <p data-testid="index-size">
                    Vector index: {size.records.toLocaleString()} records, {fmtBytes(size.bytes)} of vectors, graph and attributes
                  </p>
                );
              })()}
              {['queue', 'vectordb'].filter((n) => o.components[n]).map((n) => (
                <details key={n} open={n === 'queue'}>
                  <summary>
                    {n} <StatusBadge status={o.components[n]!.is_healthy ? 'healthy' : 'unhealthy'} />
                  </summary>
                  <pre class="status">{o.components[n]!.status}</pre>
                </details>
              ))}
            </>
          )}
        </Async>
      </section>
      <section class="card" aria-labelledby="ov-tasks">
        <h2 id="ov-tasks">Recent tasks</h2>
        <Async state={tasks} empty="No tasks yet.">
          {(list) => (
            <table>
              <thead>
                <tr><th>Type</th><th>Status</th><th>Updated</th></tr>
              </thead>
              <tbody>
                {list.map((t) => (
                  <tr key={t.task_id}>
                    <td><a href={href('tasks', { id: t.task_id })}>{t.task_type}</a></td>
                    <td><StatusBadge status={t.status} /></td>
                    <td>{fmtTime(t.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Async>
      </section>
      <section class="card" aria-labelledby="ov-commits">
        <h2 id="ov-commits">Recent snapshot commits</h2>
        <Async state={commits} empty="No snapshot commits yet.">
          {(list) => (
            <ul class="plain">
              {list.map((c) => (
                <li key={c.oid}>
                  <code>{c.oid.slice(0, 8)}</code> {c.message.split('\n')[0]} <span class="muted">{fmtTime(c.author.time_seconds)}</span>
                </li>
              ))}
            </ul>
          )}
        </Async>
      </section>
    </div>
  );
}
