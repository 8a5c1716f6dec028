/**
 * Upload: files or a whole directory (dropped, or picked) become a resource. A directory is zipped in
 * the page (fflate) and sent as one temp upload; add-resource imports it as a tree. Progress: the
 * upload's bytes, then the import task's stage until it finishes.
 */
import { zipSync } from 'fflate';
import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorBox, errorText } from '../ui';
import { waitForTask } from '../tasks';

interface Picked {
  name: string;
  files: Array<{ path: string; file: File }>;
  isDir: boolean;
}

async function readEntry(entry: FileSystemEntry, prefix: string, out: Picked['files']): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((res, rej) => (entry as FileSystemFileEntry).file(res, rej));
    out.push({ path: prefix + entry.name, file });
    return;
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries answers in batches until it returns none.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
    if (batch.length === 0) break;
    for (const e of batch) await readEntry(e, `${prefix}${entry.name}/`, out);
  }
}

async function fromDrop(dt: DataTransfer): Promise<Picked[]> {
  const entries = [...dt.items].map((i) => i.webkitGetAsEntry?.()).filter((e): e is FileSystemEntry => !!e);
  const out: Picked[] = [];
  for (const e of entries) {
    const files: Picked['files'] = [];
    await readEntry(e, '', files);
    out.push({ name: e.name, files, isDir: e.isDirectory });
  }
  return out;
}

function fromInput(list: FileList): Picked[] {
  const files = [...list];
  const rel = (f: File) => (f as File & { webkitRelativePath?: string }).webkitRelativePath || '';
  if (files.length && rel(files[0]!)) {
    const name = rel(files[0]!).split('/')[0]!;
    return [{ name, isDir: true, files: files.map((f) => ({ path: rel(f), file: f })) }];
  }
  return files.map((f) => ({ name: f.name, isDir: false, files: [{ path: f.name, file: f }] }));
}

async function zip(p: Picked): Promise<Blob> {
  const tree: Record<string, Uint8Array> = {};
  for (const f of p.files) tree[f.path] = new Uint8Array(await f.file.arrayBuffer());
  return new Blob([zipSync(tree, { level: 6 })], { type: 'application/zip' });
}

export function Upload({ parent, onDone }: { parent: string; onDone: (rootUri: string) => void }) {
  const [over, setOver] = useState(false);
  const [progress, setProgress] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [url, setUrl] = useState('');
  const [every, setEvery] = useState('');

  const send = async (items: Picked[]) => {
    setBusy(true);
    setError(undefined);
    try {
      for (const p of items) {
        setProgress(`${p.name}: preparing…`);
        const blob = p.isDir ? await zip(p) : p.files[0]!.file;
        const name = p.isDir ? `${p.name}.zip` : p.name;
        const up = await api.upload(blob, name, (f) => setProgress(`${p.name}: uploading ${Math.round(f * 100)}%`));
        const started = await api.addResource({ temp_file_id: up.temp_file_id, parent, reason: 'uploaded from the console' });
        setProgress(`${p.name}: importing…`);
        await waitForTask(started.task_id, (t) => setProgress(`${p.name}: ${t.status}${t.stage ? ` (${t.stage})` : ''}`));
        setProgress(`${p.name}: done → ${started.root_uri}`);
        onDone(started.root_uri);
      }
    } catch (e) {
      setError(e);
      setProgress(undefined);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section
      class={`drop ${over ? 'over' : ''}`}
      aria-labelledby="upload-h"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={async (e) => {
        e.preventDefault();
        setOver(false);
        if (!busy && e.dataTransfer) send(await fromDrop(e.dataTransfer)).catch((err) => setError(new Error(errorText(err))));
      }}
    >
      <h3 id="upload-h">Add to {parent}</h3>
      <p class="muted">Drop files or a folder here, or pick them:</p>
      <div class="row">
        <label class="file-pick">
          Files
          <input type="file" multiple disabled={busy} onChange={(e) => e.currentTarget.files && send(fromInput(e.currentTarget.files))} />
        </label>
        <label class="file-pick">
          Folder
          <input type="file" data-testid="upload-dir" {...{ webkitdirectory: true }} disabled={busy} onChange={(e) => e.currentTarget.files && send(fromInput(e.currentTarget.files))} />
        </label>
      </div>
      <form
        class="row"
        onSubmit={async (e) => {
          e.preventDefault();
          if (busy || !url.trim()) return;
          setBusy(true);
          setError(undefined);
          try {
            const started = await api.addResource({ path: url.trim(), parent, reason: 'added from the console', watch_interval: every ? Number(every) : undefined });
            setProgress(`${url}: importing…`);
            await waitForTask(started.task_id, (t) => setProgress(`${url}: ${t.status}${t.stage ? ` (${t.stage})` : ''}`));
            setProgress(`${url}: done → ${started.root_uri}${every ? `, watched every ${every} min` : ''}`);
            setUrl('');
            onDone(started.root_uri);
          } catch (err) {
            setError(err);
            setProgress(undefined);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="add-url">Or from a URL (page, file or git repository)</label>
        <input id="add-url" type="url" class="wide" value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://…" />
        <label for="add-every">Watch every (minutes, optional)</label>
        <input id="add-every" type="number" min={1} value={every} onInput={(e) => setEvery(e.currentTarget.value)} />
        <button type="submit" disabled={busy || !url.trim()}>Add</button>
      </form>
      {progress && (
        <p role="status" aria-live="polite" class="progress" data-testid="upload-progress">
          {progress}
        </p>
      )}
      {error !== undefined && <ErrorBox error={error} />}
    </section>
  );
}
