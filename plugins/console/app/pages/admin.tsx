/** Admin (ROOT and ADMIN): accounts, users, roles, key regeneration; a new key is shown once. */
import { useState } from 'preact/hooks';
import { api, type Identity } from '../api';
import type { PageProps } from '../main';
import { ListTable, Confirm, Dialog, ErrorBox, fmtTime, href, useAction, useLoad } from '../ui';

/** The one time a key is visible: the server keeps only its hash. */
function KeyOnce({ who, keyText, onClose }: { who: string; keyText: string; onClose: () => void }) {
  return (
    <Dialog title="New API key" onClose={onClose}>
      <p>
        The key of <strong>{who}</strong>. Copy it now: it is not shown again.
      </p>
      <input class="wide key" readOnly value={keyText} aria-label={`API key of ${who}`} data-testid="new-key" onFocus={(e) => e.currentTarget.select()} />
      <div class="row end">
        <button type="button" onClick={() => navigator.clipboard?.writeText(keyText)}>Copy</button>
        <button type="button" class="primary" onClick={onClose}>Done</button>
      </div>
    </Dialog>
  );
}

function Users({ account, me }: { account: string; me: Identity }) {
  const list = useLoad(() => api.users(account), [account]);
  const [shown, setShown] = useState<{ who: string; key: string }>();
  const [uid, setUid] = useState('');
  const [role, setRole] = useState('USER');
  const act = useAction();
  return (
    <section aria-labelledby="users-h" class="card">
      <h2 id="users-h">Users of {account}</h2>
      <form
        class="row"
        onSubmit={async (e) => {
          e.preventDefault();
          const r = await act.run(() => api.createUser(account, uid.trim(), role));
          if (r) {
            setShown({ who: `${account}/${uid.trim()}`, key: r.user_key });
            setUid('');
            list.reload();
          }
        }}
      >
        <label for="new-user">User id</label>
        <input id="new-user" required value={uid} onInput={(e) => setUid(e.currentTarget.value)} />
        <label for="new-role">Role</label>
        <select id="new-role" value={role} onChange={(e) => setRole(e.currentTarget.value)}>
          <option value="USER">USER</option>
          <option value="ADMIN">ADMIN</option>
        </select>
        <button type="submit" disabled={act.busy}>Add user</button>
      </form>
      {act.error !== undefined && <ErrorBox error={act.error} />}
      <ListTable
        state={list}
        empty="No users."
        head={<><th>User</th><th>Role</th><th>Created</th><th><span class="sr">Actions</span></th></>}
        row={(u) => (
          <tr key={u.user_id} data-user={u.user_id}>
            <td>{u.user_id}</td>
            <td>
              <label class="sr" for={`role-${u.user_id}`}>Role of {u.user_id}</label>
              <select
                id={`role-${u.user_id}`}
                value={u.role}
                disabled={act.busy || (u.user_id === me.user_id && account === me.account_id)}
                onChange={async (e) => (await act.run(() => api.setRole(account, u.user_id, e.currentTarget.value))) !== undefined && list.reload()}
              >
                <option value="USER">USER</option>
                <option value="ADMIN">ADMIN</option>
              </select>
            </td>
            <td>{fmtTime(u.created_at)}</td>
            <td><div class="row">
              <Confirm
                label="Regenerate key"
                danger={false}
                question={`Issue a new key for ${u.user_id}? The old key stops working at once.`}
                action={async () => setShown({ who: `${account}/${u.user_id}`, key: (await api.regenerateKey(account, u.user_id)).user_key })}
              />
              <Confirm label="Remove" question={`Remove ${u.user_id} from ${account}?`} action={() => api.deleteUser(account, u.user_id)} onDone={list.reload} />
            </div></td>
          </tr>
        )}
      />
      {shown && <KeyOnce who={shown.who} keyText={shown.key} onClose={() => setShown(undefined)} />}
    </section>
  );
}

function Accounts({ selected }: { selected?: string }) {
  const list = useLoad(() => api.accounts(), []);
  const [id, setId] = useState('');
  const [adminId, setAdminId] = useState('admin');
  const [shown, setShown] = useState<{ who: string; key: string }>();
  const act = useAction();
  return (
    <section aria-labelledby="acc-h" class="card">
      <h2 id="acc-h">Accounts</h2>
      <form
        class="row"
        onSubmit={async (e) => {
          e.preventDefault();
          const r = await act.run(() => api.createAccount(id.trim(), adminId.trim()));
          if (r) {
            setShown({ who: `${id.trim()}/${adminId.trim()}`, key: r.user_key });
            setId('');
            list.reload();
          }
        }}
      >
        <label for="acc-id">Account id</label>
        <input id="acc-id" required value={id} onInput={(e) => setId(e.currentTarget.value)} />
        <label for="acc-admin">First admin</label>
        <input id="acc-admin" required value={adminId} onInput={(e) => setAdminId(e.currentTarget.value)} />
        <button type="submit" disabled={act.busy}>Create account</button>
      </form>
      {act.error !== undefined && <ErrorBox error={act.error} />}
      <ListTable
        state={list}
        empty="No accounts."
        head={<><th>Account</th><th>Created</th><th><span class="sr">Actions</span></th></>}
        row={(a) => (
          <tr key={a.account_id} class={a.account_id === selected ? 'selected' : ''}>
            <td><a href={href('admin', { account: a.account_id })}>{a.account_id}</a></td>
            <td>{fmtTime(a.created_at)}</td>
            <td>{a.account_id !== 'default' && <Confirm label="Delete" question={`Delete account ${a.account_id} with all its users and data?`} action={() => api.deleteAccount(a.account_id)} onDone={list.reload} />}</td>
          </tr>
        )}
      />
      {shown && <KeyOnce who={shown.who} keyText={shown.key} onClose={() => setShown(undefined)} />}
    </section>
  );
}

export function AdminPage({ me, query }: PageProps) {
  // An ADMIN manages their own account; ROOT picks any.
  const account = me.role === 'ROOT' ? (query.get('account') ?? undefined) : me.account_id;
  return (
    <div class={me.role === 'ROOT' ? 'split' : ''}>
      {me.role === 'ROOT' && <Accounts selected={account} />}
      {account ? <Users key={account} account={account} me={me} /> : <p class="state empty">Choose an account to manage its users.</p>}
    </div>
  );
}
