/** One node: L0/L1/L2 side by side, metadata and tags, relations, access, history from snapshots. */
import { useEffect, useState } from 'preact/hooks';
import { api, setReaders, type Identity } from '../api';
import { Async, Confirm, ErrorBox, fmtBytes, fmtTime, useAction, useLoad } from '../ui';
import { History } from './history';
import { parentOf } from './tree';

async function levels(uri: string, isDir: boolean) {
  const dir = isDir ? uri : parentOf(uri);
  const [l0, l1, l2] = await Promise.all([
    api.abstract(dir).catch(() => ''),
    api.overview(dir).catch(() => ''),
    isDir ? Promise.resolve(null) : api.read(uri),
  ]);
  return { dir, l0, l1, l2 };
}

function Levels({ uri, isDir }: { uri: string; isDir: boolean }) {
  const st = useLoad(() => levels(uri, isDir), [uri]);
  return (
    <Async state={st}>
      {(d) => (
        <div class="levels">
          <section aria-labelledby="l0-h">
            <h3 id="l0-h">L0 abstract{isDir ? '' : ' (its directory)'}</h3>
            <div class="level-text" data-level="0">{d.l0 || <span class="muted">No abstract yet (indexing may still be running).</span>}</div>
          </section>
          <section aria-labelledby="l1-h">
            <h3 id="l1-h">L1 overview{isDir ? '' : ' (its directory)'}</h3>
            <div class="level-text" data-level="1">{d.l1 || <span class="muted">No overview yet.</span>}</div>
          </section>
          <section aria-labelledby="l2-h">
            <h3 id="l2-h">L2 content</h3>
            <div class="level-text" data-level="2">{d.l2 === null ? <span class="muted">A directory: its entries are in the tree.</span> : d.l2 || <span class="muted">Empty file.</span>}</div>
          </section>
        </div>
      )}
    </Async>
  );
}

function Tags({ uri }: { uri: string }) {
  const st = useLoad(() => api.attrs(uri), [uri]);
  const [text, setText] = useState<string | null>(null);
  const act = useAction();
  return (
    <Async state={st}>
      {(a) => (
        <form
          class="row"
          onSubmit={async (e) => {
            e.preventDefault();
            const tags = (text ?? a.attrs.tags.join(', ')).split(',').map((t) => t.trim()).filter(Boolean);
            if ((await act.run(() => api.setTags(uri, tags))) !== undefined) {
              setText(null);
              st.reload();
            }
          }}
        >
          <span class="muted">type: {a.context_type}</span>
          <label for="tags-input">Tags (k=v, comma-separated)</label>
          <input id="tags-input" value={text ?? a.attrs.tags.join(', ')} onInput={(e) => setText(e.currentTarget.value)} placeholder="team=search, lang=en" />
          <button type="submit" disabled={act.busy || text === null}>Save tags</button>
          {act.error !== undefined && <ErrorBox error={act.error} />}
        </form>
      )}
    </Async>
  );
}

function Relations({ uri, isDir }: { uri: string; isDir: boolean }) {
  const st = useLoad(() => api.relations(uri), [uri]);
  const act = useAction();
  const graph = async () => {
    const space = isDir ? uri : parentOf(uri);
    const out = `${space}/relation-graph.html`;
    const r = await act.run(async () => {
      const g = await api.buildGraph(space, out);
      return api.read(g.graph_uri);
    });
    if (r === undefined) return;
    // Opened from a blob: the graph is self-contained, with its own CSP.
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([r], { type: 'text/html' }));
    a.download = 'relation-graph.html';
    a.click();
  };
  return (
    <>
      <Async state={st} empty="No relations from here.">
        {(list) => (
          <ul class="plain">
            {list.map((r) => (
              <li key={r.uri}>
                <a href={`#/browser?uri=${encodeURIComponent(r.uri)}`}>{r.uri}</a> <span class="muted">{r.reason}</span>
              </li>
            ))}
          </ul>
        )}
      </Async>
      {uri.startsWith('ctx://user/') && (
        <button type="button" onClick={graph} disabled={act.busy}>
          {act.busy ? 'Building…' : 'Download relation graph'}
        </button>
      )}
      {act.error !== undefined && <ErrorBox error={act.error} />}
    </>
  );
}

function Access({ uri, me }: { uri: string; me: Identity }) {
  const [readers, setR] = useState('');
  const act = useAction();
  const [done, setDone] = useState('');
  if (!uri.startsWith('ctx://resources/') || me.role === 'USER') return <p class="muted">Read access follows the namespace (your own space, or the account's resources).</p>;
  return (
    <form
      class="row"
      onSubmit={async (e) => {
        e.preventDefault();
        const list = readers.trim() ? readers.split(',').map((s) => s.trim()).filter(Boolean) : null;
        if ((await act.run(() => setReaders(uri, list))) !== undefined) setDone(list ? `Readable by ${list.join(', ')} (and admins).` : 'Restriction lifted.');
      }}
    >
      <label for="readers">Readers (user ids; empty lifts the restriction)</label>
      <input id="readers" value={readers} onInput={(e) => setR(e.currentTarget.value)} placeholder="alice, bob" />
      <button type="submit" disabled={act.busy}>Set access</button>
      {done && <span role="status">{done}</span>}
      {act.error !== undefined && <ErrorBox error={act.error} />}
    </form>
  );
}

function Actions({ uri, isDir, onChanged }: { uri: string; isDir: boolean; onChanged: (go?: string, isDir?: boolean) => void }) {
  const [to, setTo] = useState(uri);
  const act = useAction();
  useEffect(() => setTo(uri), [uri]);
  return (
    <div class="row">
      <form
        class="row"
        onSubmit={async (e) => {
          e.preventDefault();
          if ((await act.run(() => api.mv(uri, to))) !== undefined) onChanged(to, isDir);
        }}
      >
        <label for="mv-to">Move to</label>
        <input id="mv-to" class="wide" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        <button type="submit" disabled={act.busy || to === uri}>Move</button>
      </form>
      <Confirm label="Delete" question={`Delete ${uri}${isDir ? ' and everything under it' : ''}? This cannot be undone (except from a snapshot).`} action={() => api.rm(uri)} onDone={() => onChanged(parentOf(uri), true)} />
      {act.error !== undefined && <ErrorBox error={act.error} />}
    </div>
  );
}

export function NodeView({ uri, me, onChanged }: { uri: string; me: Identity; onChanged: (go?: string, isDir?: boolean) => void }) {
  const stat = useLoad(() => api.stat(uri), [uri]);
  const [tab, setTab] = useState<'content' | 'meta' | 'relations' | 'history'>('content');
  return (
    <Async state={stat}>
      {(s) => (
        <article class="node" aria-labelledby="node-title">
          <h2 id="node-title" class="uri">{s.uri}</h2>
          <p class="muted">
            {s.isDir ? `directory · ${s.count ?? 0} items` : `file · ${fmtBytes(s.size)}`} · modified {fmtTime(s.modTime)}
            {s.isLocked && ' · locked'}
          </p>
          <div role="tablist" aria-label="node views" class="tabs">
            {(['content', 'meta', 'relations', 'history'] as const).map((t) => (
              <button key={t} type="button" role="tab" aria-selected={tab === t} onClick={() => setTab(t)}>
                {t === 'content' ? 'L0 / L1 / L2' : t === 'meta' ? 'Metadata' : t === 'relations' ? 'Relations' : 'History'}
              </button>
            ))}
          </div>
          <div role="tabpanel">
            {tab === 'content' && <Levels uri={s.uri} isDir={s.isDir} />}
            {tab === 'meta' && (
              <>
                <dl class="meta">
                  <dt>URI</dt><dd>{s.uri}</dd>
                  {s.id && (<><dt>Record id</dt><dd><code>{s.id}</code></dd></>)}
                  <dt>Size</dt><dd>{fmtBytes(s.size)}</dd>
                  <dt>Modified</dt><dd>{fmtTime(s.modTime)}</dd>
                </dl>
                <h3>Tags</h3>
                <Tags uri={s.uri} />
                <h3>Access</h3>
                <Access uri={s.uri} me={me} />
                <h3>Move or delete</h3>
                <Actions uri={s.uri} isDir={s.isDir} onChanged={onChanged} />
              </>
            )}
            {tab === 'relations' && <Relations uri={s.uri} isDir={s.isDir} />}
            {tab === 'history' && <History uri={s.uri} isDir={s.isDir} />}
          </div>
        </article>
      )}
    </Async>
  );
}
