/** A node's history from snapshots: the commits, a file's text at one of them against now, restore. */
import { useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { lineDiff } from '../diff';
import { Async, Paged, fmtTime, useLoad } from '../ui';
import { RestoreButton } from '../pages/snapshots';

const pathOf = (uri: string) => uri.replace(/^ctx:\/\//, '');

function FileAt({ uri, oid }: { uri: string; oid: string }) {
  const st = useLoad(async () => {
    const [then, now] = await Promise.all([
      api.snapshotFile(oid, pathOf(uri)).catch((e) => {
        if (e instanceof ApiError && e.status === 404) return null;
        throw e;
      }),
      api.read(uri),
    ]);
    return { then, now };
  }, [uri, oid]);
  return (
    <Async state={st}>
      {({ then, now }) => {
        if (then === null) return <p class="muted">Not in this commit (added later).</p>;
        const d = lineDiff(then, now);
        if (d && d.every((l) => l.op === ' ')) return <p class="muted">Unchanged since this commit.</p>;
        if (!d) return <pre class="diff">{then}</pre>;
        return (
          <pre class="diff" aria-label={`changes since ${oid.slice(0, 8)}`}>
            {d.map((l, i) => (
              <div key={i} class={l.op === '+' ? 'add' : l.op === '-' ? 'del' : ''}>
                {l.op} {l.text}
              </div>
            ))}
          </pre>
        );
      }}
    </Async>
  );
}

export function History({ uri, isDir }: { uri: string; isDir: boolean }) {
  const log = useLoad(() => api.snapshotLog(200), []);
  const [oid, setOid] = useState<string>();
  return (
    <Async state={log} empty="No snapshot commits yet: commit one on the Snapshots page.">
      {(commits) => (
        <>
          <Paged items={commits} size={10}>
            {(page) => (
              <table>
                <thead>
                  <tr><th>Commit</th><th>Message</th><th>When</th><th><span class="sr">Actions</span></th></tr>
                </thead>
                <tbody>
                  {page.map((c) => (
                    <tr key={c.oid} class={c.oid === oid ? 'selected' : ''}>
                      <td><code>{c.oid.slice(0, 8)}</code></td>
                      <td>{c.message.split('\n')[0]}</td>
                      <td>{fmtTime(c.author.time_seconds)}</td>
                      <td><div class="row">
                        {!isDir && <button type="button" onClick={() => setOid(c.oid)}>Compare with now</button>}
                        {isDir && <RestoreButton oid={c.oid} dir={pathOf(uri)} />}
                      </div></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Paged>
          {oid && !isDir && <FileAt uri={uri} oid={oid} />}
        </>
      )}
    </Async>
  );
}
