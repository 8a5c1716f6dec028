/**
 * ctx-client/node: the client plus what needs Node (reading local paths, writing downloads to disk).
 * The browser entry (`ctx-client`) never imports this.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CtxClient as BaseClient } from '../client.js';
import type { Download } from '../groups/define.js';
import type { TaskRecord, WaitOptions } from '../tasks.js';
import type { BodyOf, ResultOf } from '../types.js';
import { zipPath, type ZipOptions } from './zip-path.js';

export * from '../index.js';
export { zipPath, DEFAULT_SKIP, type ZipOptions, type ZippedPath } from './zip-path.js';
export { httpFetch } from './http-fetch.js';

export type AddProgress =
  | { phase: 'zip'; files: number; bytes: number }
  | { phase: 'upload'; bytes: number }
  | { phase: 'task'; task: TaskRecord };

export interface AddResourceOptions extends Omit<BodyOf<'postResources'>, 'temp_file_id' | 'path'> {
  /** A local file or directory (zipped here), a URL or a git repository URL (fetched by the server). */
  path: string;
  /** Follow the task to its end (default true). */
  wait?: boolean;
  onProgress?: (p: AddProgress) => void;
  signal?: AbortSignal;
  zip?: Omit<ZipOptions, 'onFile'>;
  timeoutMs?: WaitOptions['timeoutMs'];
}

const REMOTE = /^(https?:\/\/|git@|ssh:\/\/|git:\/\/)/i;

export class CtxClient extends BaseClient {
  /**
   * Adds a resource from a local path (zipped and temp-uploaded), a URL or a git repository, then
   * follows the task. Resolves with the add result and, when waited for, the final task record.
   */
  async addResource(opts: AddResourceOptions): Promise<ResultOf<'postResources'> & { task?: TaskRecord }> {
    const { path: source, wait, onProgress, signal, zip, timeoutMs, ...body } = opts;
    const follow: WaitOptions & { wait?: boolean } = { wait, signal, timeoutMs, onProgress: (task) => onProgress?.({ phase: 'task', task }) };
    if (REMOTE.test(source)) {
      const added = await this.resources.add({ ...body, path: source }, { signal });
      if (wait === false || !added.task_id) return added;
      return { ...added, task: await this.tasks.wait(added.task_id, follow) };
    }
    let files = 0;
    let bytes = 0;
    const zipped = await zipPath(source, { ...zip, onFile: (_, n) => onProgress?.({ phase: 'zip', files: ++files, bytes: (bytes += n) }) });
    onProgress?.({ phase: 'upload', bytes: zipped.data.byteLength });
    const blob = new Blob([zipped.data as Uint8Array<ArrayBuffer>]);
    return this.addResourceFile(blob, zipped.filename, body, follow);
  }

  /** Uploads a local `.ctxpack` and imports it. */
  async importPack(file: string, body: Omit<BodyOf<'postPackImport'>, 'temp_file_id'>, opts: { signal?: AbortSignal } = {}) {
    const blob = await fs.openAsBlob(file);
    return this.packs.import(blob, body, opts);
  }
}

/** Streams a download to a file, calling `onProgress(written, total)` as bytes land. */
export async function saveDownload(dl: Download, file: string, onProgress?: (written: number, total: number | undefined) => void): Promise<number> {
  let written = 0;
  const source = Readable.fromWeb(dl.stream as import('node:stream/web').ReadableStream<Uint8Array>);
  source.on('data', (chunk: Buffer) => {
    written += chunk.length;
    onProgress?.(written, dl.size);
  });
  await pipeline(source, fs.createWriteStream(file));
  return written;
}
