/** Browser: the ctx:// tree on the left, the selected node on the right; upload, write, move, delete. */
import { useMemo, useState } from 'preact/hooks';
import { api } from '../api';
import { NodeView } from '../browser/node-view';
import { Tree, parentOf } from '../browser/tree';
import { Upload } from '../browser/upload';
import type { PageProps } from '../main';
import { Empty, ErrorBox, navigate, useAction } from '../ui';

function NewFile({ dir, onDone }: { dir: string; onDone: (uri: string) => void }) {
  const [name, setName] = useState('');
  const [text, setText] = useState('');
  const act = useAction();
  return (
    <form
      class="stack"
      aria-labelledby="write-h"
      onSubmit={async (e) => {
        e.preventDefault();
        const uri = `${dir}/${name.trim()}`;
        if ((await act.run(() => api.write(uri, text))) !== undefined) {
          setName('');
          setText('');
          onDone(uri);
        }
      }}
    >
      <h3 id="write-h">Write a file in {dir}</h3>
      <label for="new-name">File name</label>
      <input id="new-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="notes.md" />
      <label for="new-text">File content</label>
      <textarea id="new-text" rows={5} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      <button type="submit" disabled={act.busy || !name.trim()}>Write</button>
      {act.error !== undefined && <ErrorBox error={act.error} />}
    </form>
  );
}

export function BrowserPage({ me, query }: PageProps) {
  const roots = useMemo(() => ['ctx://'], []);
  // A USER sees only their own space under ctx://user: open it at once.
  const initiallyOpen = useMemo(() => ['ctx://resources', 'ctx://user', `ctx://user/${me.user_id}`], [me.user_id]);
  const selected = query.get('uri') ?? undefined;
  const isDir = query.get('dir') === '1';
  const [version, setVersion] = useState(0);
  const [panel, setPanel] = useState<'none' | 'upload' | 'write'>('none');
  const dir = selected ? (isDir ? selected : parentOf(selected)) : 'ctx://resources';
  const select = (uri: string, d: boolean) => navigate('browser', d ? { uri, dir: '1' } : { uri });
  const changed = (go?: string, goIsDir = true) => {
    setVersion((v) => v + 1);
    if (go) select(go, goIsDir);
  };
  return (
    <div class="browser">
      <div class="tree-pane">
        <div class="row">
          <button type="button" aria-expanded={panel === 'upload'} onClick={() => setPanel(panel === 'upload' ? 'none' : 'upload')}>Upload</button>
          <button type="button" aria-expanded={panel === 'write'} onClick={() => setPanel(panel === 'write' ? 'none' : 'write')}>New file</button>
          <button type="button" onClick={() => setVersion((v) => v + 1)}>Refresh</button>
        </div>
        {panel === 'upload' && <Upload parent={dir} onDone={(root) => changed(root)} />}
        {panel === 'write' && <NewFile dir={dir} onDone={(uri) => changed(uri, false)} />}
        <Tree roots={roots} initiallyOpen={initiallyOpen} selected={selected} onSelect={select} version={version} />
      </div>
      <div class="node-pane">
        {selected ? <NodeView key={`${selected}#${version}`} uri={selected} me={me} onChanged={changed} /> : <Empty>Select a file or directory in the tree (arrow keys move, Enter opens).</Empty>}
      </div>
    </div>
  );
}
