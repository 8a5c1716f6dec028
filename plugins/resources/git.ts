/**
 * A git repository over smart HTTP, cloned with isomorphic-git (shallow, one branch, no checkout)
 * into a private temp directory, and read from its tree: regular files only (symlinks and
 * submodules are skipped). Credentials go to isomorphic-git's `onAuth` and nowhere else; every
 * error message leaving here has them removed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { HttpClient } from 'isomorphic-git';
import { invalidArgument } from 'ctx/plugin';
import { checkRemote, publicUrl } from './fetch.js';
import type { InputFile } from './tree.js';

export interface GitAuth {
  username: string;
  password: string;
}

const KNOWN_HOSTS = new Set(['github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org', 'gitee.com']);

/** A repository URL: ending in `.git`, or `/{owner}/{repo}` on a known code host. */
export function isGitUrl(url: URL): boolean {
  const p = url.pathname.replace(/\/+$/, '');
  if (/\.git$/i.test(p)) return true;
  return KNOWN_HOSTS.has(url.hostname.toLowerCase()) && p.split('/').filter(Boolean).length === 2;
}

/** The resource name of a repository: its last path segment without `.git`. */
export function repoName(url: URL): string {
  const segs = url.pathname.replace(/\/+$/, '').split('/').filter(Boolean);
  return (segs[segs.length - 1] ?? url.hostname).replace(/\.git$/i, '') || url.hostname;
}

export function redact(message: string, auth: GitAuth | undefined): string {
  let out = message;
  for (const secret of [auth?.password, auth?.username && auth.username.length >= 6 ? auth.username : undefined]) if (secret) out = out.split(secret).join('***');
  return out.replace(/\/\/[^/@\s]+@/g, '//***@');
}

export interface Clone {
  files: InputFile[];
  commit: string;
  ref: string;
  skipped: Array<{ path: string; reason: string }>;
}

export async function cloneRepo(url: URL, opts: { tmpRoot: string; ref?: string; auth?: GitAuth; signal: AbortSignal; maxBytes: number; allowPrivate: boolean }): Promise<Clone> {
  // Imported here, not at start-up (bench/RESULTS.md, start-up): most servers never clone.
  const [{ default: git }, { default: http }] = await Promise.all([import('isomorphic-git'), import('isomorphic-git/http/node')]);
  // Every request the clone makes is checked like the first (its HTTP client still follows
  // redirects within one request on its own).
  const guarded: HttpClient = {
    async request(req) {
      if (opts.signal.aborted) throw new Error('cancelled');
      await checkRemote(new URL(req.url), opts.allowPrivate);
      return http.request(req);
    },
  };
  const dir = path.join(opts.tmpRoot, `git-${randomUUID()}`);
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  const abort = () => new Error('cancelled');
  try {
    try {
      await git.clone({
        fs,
        http: guarded,
        dir,
        url: publicUrl(url),
        ref: opts.ref,
        singleBranch: true,
        depth: 1,
        noCheckout: true,
        noTags: true,
        onAuth: opts.auth ? () => ({ username: opts.auth!.username, password: opts.auth!.password }) : undefined,
        // Without this, isomorphic-git asks onAuth again forever on a wrong password.
        onAuthFailure: () => ({ cancel: true }),
        onProgress: () => {
          if (opts.signal.aborted) throw abort();
        },
      });
    } catch (err) {
      if (opts.signal.aborted) throw err;
      const e = err as { code?: string; data?: { statusCode?: number }; message: string };
      const status = e.data?.statusCode;
      const why = status === 401 || status === 403 || e.code === 'UserCanceledError' ? `authentication failed${opts.auth ? '' : ' (the repository needs credentials: args.auth_config)'}` : redact(e.message, opts.auth);
      throw invalidArgument(`cloning ${publicUrl(url)} failed: ${why}`, { field: 'path', ...(status ? { http_status: status } : {}) });
    }
    const commit = await git.resolveRef({ fs, dir, ref: 'HEAD' });
    const ref = (await git.currentBranch({ fs, dir, fullname: false }).catch(() => undefined)) ?? opts.ref ?? 'HEAD';
    const files: InputFile[] = [];
    const skipped: Clone['skipped'] = [];
    let total = 0;
    await git.walk({
      fs,
      dir,
      trees: [git.TREE({ ref: commit })],
      map: async (filepath, [entry]) => {
        if (opts.signal.aborted) throw abort();
        if (!entry || filepath === '.') return true;
        const type = await entry.type();
        if (type === 'tree') return filepath.split('/').pop() !== '.git';
        if (type === 'commit') {
          skipped.push({ path: filepath, reason: 'a submodule' });
          return null;
        }
        const mode = await entry.mode();
        if ((mode & 0o170000) === 0o120000) {
          skipped.push({ path: filepath, reason: 'a symbolic link' });
          return null;
        }
        const content = await entry.content();
        if (!content) return null;
        total += content.length;
        if (total > opts.maxBytes) throw invalidArgument(`the repository's files add up to more than ${opts.maxBytes} bytes`, { field: 'path', max: opts.maxBytes });
        files.push({ rel: filepath, data: Buffer.from(content.buffer, content.byteOffset, content.length) });
        return null;
      },
    });
    return { files, commit, ref, skipped };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
