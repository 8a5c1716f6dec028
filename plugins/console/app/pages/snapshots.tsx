/** Snapshots: the account's commits, commit now, what a restore would change (diff), restore. */
import { useState } from 'preact/hooks';
import { api } from '../api';
import type { PageProps } from '../main';
import { ListTable, Dialog, ErrorBox, Spinner, fmtTime, useAction, useLoad } from '../ui';

/** Restore with a preview: the dry run's diff first, then the real restore on confirmation. */
export function RestoreButton({ oid, dir, onDone }: { oid: string; dir?: string; onDone?: () => void }) {
  const [open, setOpen] = useState(false);
  const preview = useAction();
  const apply = useAction();
  const [diff, setDiff] = useState<{ write: string[]; del: string[] }>();
  const [done, setDone] = useState('');
  const show = async () => {
    setOpen(true);
    setDone('');
    const r = await preview.run(() => api.snapshotRestore(oid, true, dir));
    if (r) setDiff({ write: r.diff?.to_write.map((w) => w.path) ?? [], del: r.diff?.to_delete.map((d) => d.path) ?? [] });
  };
  return (
    <>
      <button type="button" onClick={show}>Diff / restore</button>
      {open && (
        <Dialog title={`Restore ${oid.slice(0, 8)}${dir ? ` (${dir})` : ''}`} onClose={() => setOpen(false)}>
          {preview.busy && <Spinner label="Comparing…" />}
          {preview.error !== undefined && <ErrorBox error={preview.error} />}
          {diff && (
            <div class="diff-list">
              {diff.write.length === 0 && diff.del.length === 0 ? (
                <p>Nothing differs: the tree already matches this commit.</p>
              ) : (
                <ul class="plain">
                  {diff.write.map((p) => <li key={'w' + p} class="add">~ {p}</li>)}
                  {diff.del.map((p) => <li key={'d' + p} class="del">− {p}</li>)}
                </ul>
              )}
            </div>
          )}
          {done && <p role="status">{done}</p>}
          {apply.error !== undefined && <ErrorBox error={apply.error} />}
          <div class="row end">
            <button type="button" onClick={() => setOpen(false)}>Close</button>
            <button
              type="button"
              class="primary danger"
              disabled={!diff || apply.busy || (diff.write.length === 0 && diff.del.length === 0) || !!done}
              onClick={async () => {
                const r = await apply.run(() => api.snapshotRestore(oid, false, dir));
                if (r) {
                  setDone(`Restored: ${r.written ?? 0} written, ${r.deleted ?? 0} deleted.`);
                  onDone?.();
                }
              }}
            >
              Restore
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}

export function SnapshotsPage(_: PageProps) {
  const log = useLoad(() => api.snapshotLog(500), []);
  const [message, setMessage] = useState('');
  const act = useAction();
  const [note, setNote] = useState('');
  return (
    <>
      <form
        class="row card"
        onSubmit={async (e) => {
          e.preventDefault();
          const r = await act.run(() => api.snapshotCommit(message || 'snapshot from the console'));
          if (r) {
            setNote(r.result === 'noop' ? 'Nothing changed since the last commit.' : `Committed ${r.commit_oid?.slice(0, 8)}.`);
            setMessage('');
            log.reload();
          }
        }}
      >
        <label for="snap-msg">Message</label>
        <input id="snap-msg" class="wide" value={message} onInput={(e) => setMessage(e.currentTarget.value)} placeholder="snapshot from the console" />
        <button type="submit" class="primary" disabled={act.busy}>Commit now</button>
        {note && <span role="status">{note}</span>}
        {act.error !== undefined && <ErrorBox error={act.error} />}
      </form>
      <ListTable
        state={log}
        empty="No commits yet."
        head={<><th>Commit</th><th>Message</th><th>Author</th><th>When</th><th><span class="sr">Actions</span></th></>}
        row={(c) => (
          <tr key={c.oid}>
            <td><code>{c.oid.slice(0, 8)}</code></td>
            <td>{c.message.split('\n')[0]}</td>
            <td>{c.author.name}</td>
            <td>{fmtTime(c.author.time_seconds)}</td>
            <td><RestoreButton oid={c.oid} onDone={log.reload} /></td>
          </tr>
        )}
      />
    </>
  );
}
