/** Retrieval playground: find/search with the spec's parameters, hits with scores and reasons; grep and glob. */
import { useState } from 'preact/hooks';
import { api, type FindResult, type Hit } from '../api';
import type { PageProps } from '../main';
import { Empty, ErrorBox, Paged, Spinner, href, useAction } from '../ui';

const isDirUri = (h: Hit) => h.level < 2;

function Hits({ result }: { result: FindResult }) {
  const all = [...result.resources, ...result.memories, ...result.skills].sort((a, b) => b.score - a.score);
  if (all.length === 0) return <Empty>No hits. Try a broader query, another scope, or a lower score threshold.</Empty>;
  return (
    <>
      <p class="muted">
        {result.total} hits: {result.resources.length} resources, {result.memories.length} memories, {result.skills.length} skills
      </p>
      <Paged items={all} size={20}>
        {(page) => (
          <ol class="hits">
            {page.map((h) => (
              <li key={`${h.uri}#${h.level}`} class="hit">
                <div class="row">
                  <a class="uri" href={href('browser', isDirUri(h) ? { uri: h.uri, dir: '1' } : { uri: h.uri })}>{h.uri}</a>
                  <span class="score" title="score">{h.score.toFixed(3)}</span>
                </div>
                <div class="row muted">
                  <span class="badge">{h.context_type}</span>
                  <span class="badge">L{h.level}</span>
                  {h.category && <span class="badge">{h.category}</span>}
                  <span>why: {h.match_reason || '—'}</span>
                </div>
                {h.abstract && <p class="abstract">{h.abstract}</p>}
              </li>
            ))}
          </ol>
        )}
      </Paged>
      {result.query_plan !== undefined && (
        <details>
          <summary>Query plan</summary>
          <pre>{JSON.stringify(result.query_plan, null, 2)}</pre>
        </details>
      )}
      {result.provenance !== undefined && (
        <details>
          <summary>Provenance (how the hits were scored)</summary>
          <pre>{JSON.stringify(result.provenance, null, 2)}</pre>
        </details>
      )}
    </>
  );
}

function Field({ id, label, children }: { id: string; label: string; children: preact.ComponentChildren }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
    </div>
  );
}

function FindForm() {
  const [f, setF] = useState({ query: '', mode: 'find', target_uri: '', types: { resource: true, memory: true, skill: true }, tags: '', limit: '10', node_limit: '', score_threshold: '', since: '', until: '', time_field: 'updated_at', level: '', session_id: '', include_provenance: false, read_content: false });
  const [result, setResult] = useState<FindResult>();
  const act = useAction();
  const set = (k: string, v: unknown) => setF({ ...f, [k]: v });
  const submit = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = { query: f.query };
    if (f.target_uri.trim()) body.target_uri = f.target_uri.trim();
    const types = Object.entries(f.types).filter(([, on]) => on).map(([t]) => t);
    if (types.length < 3) body.context_type = types;
    if (f.tags.trim()) body.tags = f.tags.split(',').map((t) => t.trim()).filter(Boolean);
    for (const k of ['limit', 'node_limit'] as const) if (f[k]) body[k] = Number(f[k]);
    if (f.score_threshold) body.score_threshold = Number(f.score_threshold);
    if (f.since) body.since = f.since;
    if (f.until) body.until = f.until;
    if (f.since || f.until) body.time_field = f.time_field;
    if (f.level !== '') body.level = Number(f.level);
    if (f.include_provenance) body.include_provenance = true;
    if (f.read_content) body.read_content = true;
    if (f.mode === 'search' && f.session_id) body.session_id = f.session_id;
    setResult(undefined);
    const r = await act.run(() => (f.mode === 'search' ? api.search(body) : api.find(body)));
    if (r) setResult(r);
  };
  return (
    <>
      <form class="find-form" onSubmit={submit} aria-label="find">
        <div class="field query">
          <label for="q">Query</label>
          <div class="row">
            <input id="q" class="wide" type="search" required value={f.query} onInput={(e) => set('query', e.currentTarget.value)} placeholder="what are you looking for?" />
            <button class="primary" type="submit" disabled={act.busy}>
              {f.mode === 'search' ? 'Search' : 'Find'}
            </button>
          </div>
        </div>
        <Field id="mode" label="Mode">
          <select id="mode" value={f.mode} onChange={(e) => set('mode', e.currentTarget.value)}>
            <option value="find">find (vector + BM25)</option>
            <option value="search">search (with session context and query planning)</option>
          </select>
        </Field>
        <Field id="target" label="Scope (target_uri)">
          <input id="target" value={f.target_uri} onInput={(e) => set('target_uri', e.currentTarget.value)} placeholder="ctx://resources" />
        </Field>
        <fieldset class="field">
          <legend>Context types</legend>
          {(['resource', 'memory', 'skill'] as const).map((t) => (
            <label key={t} class="check">
              <input type="checkbox" checked={f.types[t]} onChange={(e) => set('types', { ...f.types, [t]: e.currentTarget.checked })} /> {t}
            </label>
          ))}
        </fieldset>
        <Field id="tags" label="Tags (k=v, comma-separated)">
          <input id="tags" value={f.tags} onInput={(e) => set('tags', e.currentTarget.value)} />
        </Field>
        <Field id="limit" label="Limit">
          <input id="limit" type="number" min={1} max={1000} value={f.limit} onInput={(e) => set('limit', e.currentTarget.value)} />
        </Field>
        <Field id="node_limit" label="Node limit">
          <input id="node_limit" type="number" min={1} max={1000} value={f.node_limit} onInput={(e) => set('node_limit', e.currentTarget.value)} />
        </Field>
        <Field id="threshold" label="Score threshold (0–1)">
          <input id="threshold" type="number" min={0} max={1} step={0.01} value={f.score_threshold} onInput={(e) => set('score_threshold', e.currentTarget.value)} />
        </Field>
        <Field id="level" label="Level">
          <select id="level" value={f.level} onChange={(e) => set('level', e.currentTarget.value)}>
            <option value="">any</option>
            <option value="0">L0</option>
            <option value="1">L1</option>
            <option value="2">L2</option>
          </select>
        </Field>
        <Field id="since" label="Since">
          <input id="since" value={f.since} onInput={(e) => set('since', e.currentTarget.value)} placeholder="2026-01-01 or 7d" />
        </Field>
        <Field id="until" label="Until">
          <input id="until" value={f.until} onInput={(e) => set('until', e.currentTarget.value)} />
        </Field>
        <Field id="time_field" label="Time field">
          <select id="time_field" value={f.time_field} onChange={(e) => set('time_field', e.currentTarget.value)}>
            <option value="updated_at">updated_at</option>
            <option value="created_at">created_at</option>
          </select>
        </Field>
        {f.mode === 'search' && (
          <Field id="session" label="Session id">
            <input id="session" value={f.session_id} onInput={(e) => set('session_id', e.currentTarget.value)} />
          </Field>
        )}
        <label class="check">
          <input type="checkbox" checked={f.include_provenance} onChange={(e) => set('include_provenance', e.currentTarget.checked)} /> include provenance
        </label>
        <label class="check">
          <input type="checkbox" checked={f.read_content} onChange={(e) => set('read_content', e.currentTarget.checked)} /> read content
        </label>
      </form>
      {act.busy && <Spinner label="Searching…" />}
      {act.error !== undefined && <ErrorBox error={act.error} />}
      {result && <Hits result={result} />}
    </>
  );
}

function GrepGlob() {
  const [kind, setKind] = useState<'grep' | 'glob'>('grep');
  const [uri, setUri] = useState('ctx://resources');
  const [pattern, setPattern] = useState('');
  const [ci, setCi] = useState(false);
  const [out, setOut] = useState<{ kind: 'grep' | 'glob'; rows: Array<{ uri: string; line?: number; content?: string }> }>();
  const act = useAction();
  return (
    <>
      <form
        class="row"
        aria-label="grep and glob"
        onSubmit={async (e) => {
          e.preventDefault();
          setOut(undefined);
          if (kind === 'grep') {
            const r = await act.run(() => api.grep({ uri, pattern, case_insensitive: ci }));
            if (r) setOut({ kind, rows: r.matches });
          } else {
            const r = await act.run(() => api.glob({ uri, pattern }));
            if (r) setOut({ kind, rows: r.matches.map((u) => ({ uri: u })) });
          }
        }}
      >
        <label for="gg-kind">Kind</label>
        <select id="gg-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as 'grep' | 'glob')}>
          <option value="grep">grep (regular expression)</option>
          <option value="glob">glob</option>
        </select>
        <label for="gg-uri">Under</label>
        <input id="gg-uri" value={uri} onInput={(e) => setUri(e.currentTarget.value)} />
        <label for="gg-pattern">Pattern</label>
        <input id="gg-pattern" required value={pattern} onInput={(e) => setPattern(e.currentTarget.value)} placeholder={kind === 'grep' ? 'TODO|FIXME' : '**/*.md'} />
        {kind === 'grep' && (
          <label class="check">
            <input type="checkbox" checked={ci} onChange={(e) => setCi(e.currentTarget.checked)} /> ignore case
          </label>
        )}
        <button type="submit" disabled={act.busy}>Run</button>
      </form>
      {act.busy && <Spinner label="Running…" />}
      {act.error !== undefined && <ErrorBox error={act.error} />}
      {out &&
        (out.rows.length === 0 ? (
          <Empty>No matches.</Empty>
        ) : (
          <Paged items={out.rows} size={50}>
            {(page) => (
              <table>
                <tbody>
                  {page.map((m, i) => (
                    <tr key={i}>
                      <td><a href={href('browser', { uri: m.uri })}>{m.uri}</a>{m.line !== undefined && `:${m.line}`}</td>
                      {out.kind === 'grep' && <td><code>{m.content}</code></td>}
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Paged>
        ))}
    </>
  );
}

export function RetrievalPage(_: PageProps) {
  return (
    <>
      <section class="card" aria-labelledby="find-h">
        <h2 id="find-h">Find and search</h2>
        <FindForm />
      </section>
      <section class="card" aria-labelledby="gg-h">
        <h2 id="gg-h">Grep and glob</h2>
        <GrepGlob />
      </section>
    </>
  );
}
