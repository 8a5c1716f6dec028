/** System: liveness, readiness, the observer's components, and Prometheus metrics when served. */
import { useState } from 'preact/hooks';
import { api } from '../api';
import type { PageProps } from '../main';
import { Async, StatusBadge, useLoad } from '../ui';

function Metrics() {
  const metrics = useLoad(() => api.metrics(), []);
  return (
    <Async state={metrics} isEmpty={(m) => m === null} empty="This server does not serve /metrics to this client.">
      {(m) => (
        <details open>
          <summary>Prometheus text ({m!.split('\n').filter((l) => l && !l.startsWith('#')).length} samples)</summary>
          <pre class="status">{m}</pre>
        </details>
      )}
    </Async>
  );
}

export function SystemPage(_: PageProps) {
  const health = useLoad(() => api.health(), [], { every: 5000 });
  const ready = useLoad(() => api.ready(), [], { every: 5000 });
  const observer = useLoad(() => api.observer(), [], { every: 5000 });
  const [showMetrics, setShowMetrics] = useState(false);
  return (
    <div class="grid">
      <section class="card" aria-labelledby="sys-health">
        <h2 id="sys-health">Health</h2>
        <Async state={health}>
          {(h) => (
            <p>
              <StatusBadge status={h.healthy ? 'healthy' : 'unhealthy'} /> version {h.version}
            </p>
          )}
        </Async>
        <h3>Readiness</h3>
        <Async state={ready}>
          {(r) => (
            <table>
              <caption>
                <StatusBadge status={r.status} />
              </caption>
              <tbody>
                {Object.entries(r.checks).map(([k, v]) => (
                  <tr key={k}>
                    <td>{k}</td>
                    <td>{v === 'ok' || v === 'not_configured' ? <StatusBadge status={v} /> : <span class="state error">{v}</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Async>
      </section>
      <section class="card wide-card" aria-labelledby="sys-obs">
        <h2 id="sys-obs">Components</h2>
        <Async state={observer} isEmpty={(o) => Object.keys(o.components).length === 0} empty="No observer components.">
          {(o) => (
            <>
              {Object.values(o.components).map((c) => (
                <details key={c.name}>
                  <summary>
                    {c.name} <StatusBadge status={c.is_healthy ? 'healthy' : 'unhealthy'} />
                    {c.has_errors && <StatusBadge status="errors" />}
                  </summary>
                  <pre class="status">{c.status}</pre>
                </details>
              ))}
            </>
          )}
        </Async>
      </section>
      <section class="card wide-card" aria-labelledby="sys-metrics">
        <h2 id="sys-metrics">Metrics</h2>
        {/* On request: a server without the operations plugin answers 404, which is no error of the page. */}
        {showMetrics ? <Metrics /> : (
          <button type="button" onClick={() => setShowMetrics(true)}>Load metrics</button>
        )}
      </section>
    </div>
  );
}
