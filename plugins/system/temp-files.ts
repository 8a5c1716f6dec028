/**
 * Temporary uploads (`POST /api/v1/resources/temp_upload`): multipart part `file`, stored under
 * `{dataDir}/temp/` with an expiry; later requests (pack import, skills) reference them by
 * `temp_file_id`. `local` uploads are visible to the uploading user, `shared` ones to the account.
 * On a single node both live in the same directory; `shared` exists for multi-node deployments.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { CtxError, invalidArgument, notFound } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import type { Kv } from 'ctx/plugin';
import { parseMultipart } from 'ctx/plugin';

export interface TempFile {
  temp_file_id: string;
  account_id: string;
  user_id: string;
  filename: string;
  size: number;
  content_type?: string;
  upload_mode: 'local' | 'shared';
  created_at: number;
  expires_at: number;
  file: string;
}

export interface TempFiles {
  /** The upload's metadata and on-disk path; NOT_FOUND when missing, expired or not visible to `who`. */
  resolve(who: Identity, tempFileId: string, field?: string): Promise<TempFile>;
  read(who: Identity, tempFileId: string, field?: string): Promise<Buffer>;
  remove(tempFileId: string): Promise<void>;
}

const ID = /^tmp_[0-9a-f]{32}$/;

export class TempFileStore implements TempFiles {
  private readonly dir: string;
  private timer?: NodeJS.Timeout;

  constructor(dataDir: string, private readonly kv: Kv, private readonly ttlMs: number) {
    this.dir = path.join(dataDir, 'temp');
    fs.mkdirSync(this.dir, { recursive: true });
  }

  start(): void {
    // Background work: a failure (e.g. the database closing under it at shutdown) must not become an unhandled rejection.
    void this.sweep().catch(() => {});
    this.timer = setInterval(() => void this.sweep().catch(() => {}), Math.min(60_000, Math.max(1000, this.ttlMs / 4)));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async save(who: Identity, body: Buffer, contentType: string, mode: 'local' | 'shared'): Promise<TempFile> {
    if (!/^multipart\/form-data/i.test(contentType))
      throw new CtxError('UNSUPPORTED_MEDIA_TYPE', `temp upload needs multipart/form-data with a part named "file"; got ${contentType || 'no content type'}`, { field: 'content-type' });
    const parts = parseMultipart(body, contentType);
    if (!parts) throw invalidArgument('malformed multipart body', { field: 'body' });
    const part = parts.find((p) => p.name === 'file');
    if (!part) throw invalidArgument('multipart body has no part named "file"', { field: 'file', parts: parts.map((p) => p.name) });
    const id = 'tmp_' + randomBytes(16).toString('hex');
    const file = path.join(this.dir, id);
    const data = Buffer.from(part.data);
    await fs.promises.writeFile(file, data);
    const now = Date.now();
    const rec: TempFile = {
      temp_file_id: id,
      account_id: who.accountId,
      user_id: who.userId,
      filename: path.basename(part.filename ?? 'upload').replace(/[\x00-\x1f]/g, '') || 'upload',
      size: data.length,
      content_type: part.type,
      upload_mode: mode,
      created_at: now,
      expires_at: now + this.ttlMs,
      file,
    };
    await this.kv.putJson(id, rec);
    return rec;
  }

  async resolve(who: Identity, tempFileId: string, field = 'temp_file_id'): Promise<TempFile> {
    if (typeof tempFileId !== 'string' || !ID.test(tempFileId)) throw invalidArgument(`${field} is not a temp file id`, { field });
    const rec = await this.kv.getJson<TempFile>(tempFileId);
    const visible = rec && rec.account_id === who.accountId && (rec.upload_mode === 'shared' || rec.user_id === who.userId);
    if (!rec || !visible || rec.expires_at < Date.now() || !fs.existsSync(rec.file))
      throw notFound(`temp file not found or expired: ${tempFileId}`, { field, temp_file_id: tempFileId });
    return rec;
  }

  async read(who: Identity, tempFileId: string, field?: string): Promise<Buffer> {
    return fs.promises.readFile((await this.resolve(who, tempFileId, field)).file);
  }

  async remove(tempFileId: string): Promise<void> {
    const rec = await this.kv.getJson<TempFile>(tempFileId);
    if (rec) await fs.promises.rm(rec.file, { force: true });
    await this.kv.del(tempFileId);
  }

  /** Deletes expired uploads and orphan files. */
  async sweep(): Promise<number> {
    const now = Date.now();
    let removed = 0;
    const known = new Set<string>();
    for await (const [id, v] of this.kv.iterate()) {
      const rec = JSON.parse(v.toString('utf8')) as TempFile;
      if (rec.expires_at < now) {
        await this.remove(id);
        removed++;
      } else known.add(id);
    }
    for (const name of await fs.promises.readdir(this.dir)) {
      if (!known.has(name)) {
        const st = await fs.promises.stat(path.join(this.dir, name)).catch(() => null);
        // Grace period: a file may be written just before its record.
        if (st && now - st.mtimeMs > 60_000) {
          await fs.promises.rm(path.join(this.dir, name), { force: true });
          removed++;
        }
      }
    }
    return removed;
  }
}
