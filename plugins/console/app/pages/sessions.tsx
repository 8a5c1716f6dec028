/** Sessions and memories: the caller's sessions, their messages, commit, and what a commit extracted. */
import { useState } from 'preact/hooks';
import { api, type Task } from '../api';
import type { PageProps } from '../main';
import { waitForTask } from '../tasks';
import { Async, Confirm, ErrorBox, Paged, fmtTime, href, navigate, useAction, useLoad } from '../ui';

interface MemoryChange { category: string; uri: string; action: string; count: number }

/** The memories a finished commit wrote: its memory_diff.json, read like any file. */
async function extracted(task: Task): Promise<MemoryChange[]> {
  const r = task.result as { memory_diff_uri?: string } | null;
  if (!r?.memory_diff_uri) return [];
  const diff = JSON.parse(await api.read(r.memory_diff_uri)) as { changes?: MemoryChange[] };
  return diff.changes ?? [];
}

/** Every archive of a session (newest first) with the memories its commit wrote; listed before read, so nothing 404s. */
async function archives(uri: string) {
  const top = await api.ls(uri, 0, 100);
  if (!top.some((e) => e.name === 'history' && e.isDir)) return [];
  const dirs = (await api.ls(`${uri}/history`, 0, 1000)).filter((e) => e.isDir).reverse();
  return Promise.all(
    dirs.map(async (a) => {
      const files = await api.ls(a.uri, 0, 100);
      const diff = files.some((f) => f.name === 'memory_diff.json') ? (JSON.parse(await api.read(`${a.uri}/memory_diff.json`)) as { changes?: MemoryChange[] }) : null;
      return { id: a.name, uri: a.uri, abstract: a.abstract ?? '', changes: diff ? (diff.changes ?? []) : null };
    }),
  );
}

function MemoryTable({ changes, caption, testid }: { changes: MemoryChange[]; caption: string; testid?: string }) {
  return (
    <table data-testid={testid}>
      <caption>{caption}</caption>
      <thead>
        <tr><th>Category</th><th>Memory</th><th>Change</th></tr>
      </thead>
      <tbody>
        {changes.map((c) => (
          <tr key={c.uri}>
            <td>{c.category}</td>
            <td><a href={href('browser', { uri: c.uri })}>{c.uri}</a></td>
            <td>{c.action} ({c.count})</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Archives({ uri, version }: { uri: string; version: number }) {
  const st = useLoad(() => archives(uri), [uri, version]);
  return (
    <section aria-labelledby="archives-h">
      <h3 id="archives-h">Commits and what they became</h3>
      <Async state={st} empty="Not committed yet.">
        {(list) => (
          <Paged items={list} size={5}>
            {(page) =>
              page.map((a) => (
                <div key={a.id} class="archive">
                  <p>
                    <a href={href('browser', { uri: a.uri, dir: '1' })}>{a.id}</a> <span class="muted">{a.abstract}</span>
                  </p>
                  {a.changes === null ? <p class="muted">Extraction still running.</p> : a.changes.length === 0 ? <p class="muted">No memories extracted.</p> : <MemoryTable changes={a.changes} caption={`Memories from ${a.id}`} />}
                </div>
              ))
            }
          </Paged>
        )}
      </Async>
    </section>
  );
}

function CommitPanel({ id, onDone }: { id: string; onDone: () => void }) {
  const [stage, setStage] = useState<string>();
  const [changes, setChanges] = useState<MemoryChange[]>();
  const act = useAction();
  const commit = () =>
    act.run(async () => {
      setChanges(undefined);
      const c = await api.commitSession(id);
      if (!c.task_id) {
        setStage('nothing to commit');
        return;
      }
      const t = await waitForTask(c.task_id, (t) => setStage(`${t.status}${t.stage ? ` (${t.stage})` : ''}`));
      setChanges(await extracted(t));
      onDone();
    });
  return (
    <section aria-labelledby="commit-h">
      <h3 id="commit-h">Commit</h3>
      <p class="muted">Archives the live messages and extracts memories from them.</p>
      <button type="button" class="primary" onClick={commit} disabled={act.busy}>
        {act.busy ? 'Committing…' : 'Commit session'}
      </button>
      {stage && <span role="status" class="progress"> {stage}</span>}
      {act.error !== undefined && <ErrorBox error={act.error} />}
      {changes &&
        (changes.length === 0 ? <p class="state empty">The commit extracted no memories.</p> : <MemoryTable changes={changes} caption="Memories extracted by this commit" testid="extracted" />)}
    </section>
  );
}

function SessionView({ id, onDeleted }: { id: string; onDeleted: () => void }) {
  const info = useLoad(() => api.session(id), [id]);
  const ctx = useLoad(() => api.context(id), [id]);
  const [role, setRole] = useState('user');
  const [commits, setCommits] = useState(0);
  const [text, setText] = useState('');
  const act = useAction();
  return (
    <article aria-labelledby="session-h">
      <h2 id="session-h">Session {id}</h2>
      <Async state={info}>
        {(s) => (
          <dl class="meta">
            <dt>Created</dt><dd>{fmtTime(s.created_at)}</dd>
            <dt>Messages</dt><dd>{s.message_count} live, {s.total_message_count} in all</dd>
            <dt>Commits</dt><dd>{s.commit_count} (last {fmtTime(s.last_commit_at)})</dd>
            <dt>Memories extracted</dt>
            <dd>{Object.entries(s.memories_extracted).filter(([, n]) => n > 0).map(([k, n]) => `${k}: ${n}`).join(', ') || 'none yet'}</dd>
            <dt>Stored at</dt><dd><a href={href('browser', { uri: s.uri, dir: '1' })}>{s.uri}</a></dd>
          </dl>
        )}
      </Async>
      <h3>Messages</h3>
      <Async state={ctx} isEmpty={(c) => c.messages.length === 0 && !c.latest_archive_overview} empty="No live messages.">
        {(c) => (
          <>
            {c.latest_archive_overview && (
              <details>
                <summary>Archived so far</summary>
                <div class="level-text">{c.latest_archive_overview}</div>
              </details>
            )}
            <Paged items={c.messages} size={20}>
              {(page) => (
                <ol class="messages">
                  {page.map((m) => (
                    <li key={m.id} class={`msg ${m.role}`}>
                      <span class="badge">{m.role}</span> {m.parts.map((p) => p.text ?? p.uri ?? `[${p.type}]`).join(' ')}
                    </li>
                  ))}
                </ol>
              )}
            </Paged>
          </>
        )}
      </Async>
      <form
        class="row"
        onSubmit={async (e) => {
          e.preventDefault();
          if ((await act.run(() => api.addMessage(id, role, text))) !== undefined) {
            setText('');
            ctx.reload();
            info.reload();
          }
        }}
      >
        <label for="msg-role">Role</label>
        <select id="msg-role" value={role} onChange={(e) => setRole(e.currentTarget.value)}>
          <option value="user">user</option>
          <option value="assistant">assistant</option>
        </select>
        <label for="msg-text">Message</label>
        <input id="msg-text" class="wide" required value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit" disabled={act.busy}>Add message</button>
      </form>
      {act.error !== undefined && <ErrorBox error={act.error} />}
      <CommitPanel
        id={id}
        onDone={() => {
          info.reload();
          ctx.reload();
          setCommits((n) => n + 1);
        }}
      />
      <Async state={info}>{(s) => <Archives uri={s.uri} version={commits} />}</Async>
      <hr />
      <Confirm label="Delete session" question={`Delete session ${id} with its messages and archives? Extracted memories stay.`} action={() => api.deleteSession(id)} onDone={onDeleted} />
    </article>
  );
}

export function SessionsPage({ query }: PageProps) {
  const list = useLoad(() => api.sessions(), []);
  const selected = query.get('id');
  const act = useAction();
  return (
    <div class="split">
      <section aria-labelledby="sessions-h">
        <h2 id="sessions-h">Sessions</h2>
        <button
          type="button"
          onClick={async () => {
            const s = await act.run(() => api.createSession());
            if (s) {
              list.reload();
              navigate('sessions', { id: s.session_id });
            }
          }}
        >
          New session
        </button>
        {act.error !== undefined && <ErrorBox error={act.error} />}
        <Async state={list} empty="No sessions yet.">
          {(sessions) => (
            <Paged items={sessions} size={25}>
              {(page) => (
                <ul class="plain list">
                  {page.map((s) => (
                    <li key={s.session_id}>
                      <a href={href('sessions', { id: s.session_id })} aria-current={s.session_id === selected ? 'true' : undefined}>
                        {s.session_id}
                      </a>
                    </li>
                  ))}
                </ul>
              )}
            </Paged>
          )}
        </Async>
      </section>
      <section>{selected ? (
          <SessionView
            key={selected}
            id={selected}
            onDeleted={() => {
              list.reload();
              navigate('sessions');
            }}
          />
        ) : <p class="state empty">Choose a session.</p>}</section>
    </div>
  );
}

