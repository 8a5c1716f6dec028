/** Zips a local file or directory with fflate, for add-resource by temp upload. */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AsyncZippable } from 'fflate';

/** Directories never worth uploading (VCS metadata, dependency trees). */
export const DEFAULT_SKIP = ['.git', 'node_modules', '.hg', '.svn', '__pycache__', '.venv'];

export interface ZipOptions {
  /** Directory or file names skipped anywhere in the tree (default DEFAULT_SKIP). */
  skip?: string[];
  /** Called after each file is read. */
  onFile?: (relPath: string, bytes: number) => void;
}

export interface ZippedPath {
  data: Uint8Array;
  /** `name.zip` for a directory, the file's own name for a file (sent as is). */
  filename: string;
  files: number;
  bytes: number;
}

/** A directory becomes a zip whose entries are relative to it; a single file is sent unzipped. */
export async function zipPath(target: string, opts: ZipOptions = {}): Promise<ZippedPath> {
  const abs = path.resolve(target);
  const st = await fs.stat(abs);
  if (st.isFile()) {
    const data = new Uint8Array(await fs.readFile(abs));
    return { data, filename: path.basename(abs), files: 1, bytes: data.byteLength };
  }
  if (!st.isDirectory()) throw new Error(`not a file or directory: ${target}`);
  const skip = new Set(opts.skip ?? DEFAULT_SKIP);
  const tree: AsyncZippable = {};
  let files = 0;
  let bytes = 0;
  const walk = async (dir: string, rel: string): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (skip.has(e.name)) continue;
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) await walk(full, relPath);
      else if (e.isFile()) {
        const data = new Uint8Array(await fs.readFile(full));
        tree[relPath] = data;
        files++;
        bytes += data.byteLength;
        opts.onFile?.(relPath, data.byteLength);
      }
    }
  };
  await walk(abs, '');
  if (files === 0) throw new Error(`nothing to upload under ${target}`);
  // Loaded here: most commands never zip anything.
  const { zip } = await import('fflate');
  const data = await new Promise<Uint8Array>((resolve, reject) => zip(tree, { level: 6 }, (err, out) => (err ? reject(err) : resolve(out))));
  return { data, filename: `${path.basename(abs) || 'upload'}.zip`, files, bytes };
}
