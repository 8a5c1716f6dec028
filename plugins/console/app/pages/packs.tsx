/** Packs: export a directory as a zip (downloaded), import one with upload progress. */
import { useState } from 'preact/hooks';
import { api } from '../api';
import type { PageProps } from '../main';
import { ErrorBox, href, useAction } from '../ui';

function Export() {
  const [uri, setUri] = useState('ctx://resources');
  const [done, setDone] = useState('');
  const act = useAction();
  return (
    <form
      class="row"
      aria-labelledby="export-h"
      onSubmit={async (e) => {
        e.preventDefault();
        setDone('');
        const blob = await act.run(() => api.exportPack(uri));
        if (!blob) return;
        const a = document.createElement('a');
        a.href = URL.createObjectURL(blob);
        a.download = `${uri.replace(/^ctx:\/\//, '').replace(/[^\w.-]+/g, '_') || 'ctx'}.ctxpack.zip`;
        a.click();
        setDone(`Exported ${(blob.size / 1024).toFixed(1)} KiB.`);
      }}
    >
      <h2 id="export-h">Export</h2>
      <label for="exp-uri">Directory</label>
      <input id="exp-uri" class="wide" value={uri} onInput={(e) => setUri(e.currentTarget.value)} />
      <button type="submit" class="primary" disabled={act.busy}>{act.busy ? 'Exporting…' : 'Export and download'}</button>
      {done && <span role="status">{done}</span>}
      {act.error !== undefined && <ErrorBox error={act.error} />}
    </form>
  );
}

function Import() {
  const [parent, setParent] = useState('ctx://resources');
  const [conflict, setConflict] = useState('fail');
  const [file, setFile] = useState<File>();
  const [progress, setProgress] = useState('');
  const [uri, setUri] = useState('');
  const act = useAction();
  return (
    <form
      class="row"
      aria-labelledby="import-h"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!file) return;
        setUri('');
        const r = await act.run(async () => {
          const up = await api.upload(file, file.name, (f) => setProgress(`uploading ${Math.round(f * 100)}%`));
          setProgress('importing…');
          return api.importPack(up.temp_file_id, parent, conflict);
        });
        setProgress('');
        if (r) setUri(r.uri);
      }}
    >
      <h2 id="import-h">Import</h2>
      <label for="imp-file">Pack (.zip)</label>
      <input id="imp-file" type="file" accept=".zip,application/zip" onChange={(e) => setFile(e.currentTarget.files?.[0])} />
      <label for="imp-parent">Below</label>
      <input id="imp-parent" value={parent} onInput={(e) => setParent(e.currentTarget.value)} />
      <label for="imp-conflict">On conflict</label>
      <select id="imp-conflict" value={conflict} onChange={(e) => setConflict(e.currentTarget.value)}>
        <option value="fail">fail</option>
        <option value="overwrite">overwrite</option>
        <option value="skip">skip</option>
      </select>
      <button type="submit" class="primary" disabled={act.busy || !file}>Import</button>
      {progress && <span role="status" class="progress">{progress}</span>}
      {uri && (
        <span role="status">
          Imported: <a href={href('browser', { uri, dir: '1' })}>{uri}</a>
        </span>
      )}
      {act.error !== undefined && <ErrorBox error={act.error} />}
    </form>
  );
}

export function PacksPage(_: PageProps) {
  return (
    <>
      <section class="card"><Export /></section>
      <section class="card"><Import /></section>
    </>
  );
}
