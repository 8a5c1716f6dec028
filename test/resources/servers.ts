/** Real servers on 127.0.0.1 for the import tests: static HTTP, and git smart HTTP through `git http-backend`. */
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';

export interface Served {
  body: string | Buffer;
  type?: string;
  status?: number;
  headers?: Record<string, string>;
  /** Milliseconds before answering. */
  delay?: number;
}

export interface TestServer {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

async function listen(server: http.Server, requests: string[]): Promise<TestServer> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export function startStatic(routes: Record<string, Served>): Promise<TestServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const r = routes[req.url ?? ''];
    const answer = () => {
      if (!r) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(r.status ?? 200, { 'content-type': r.type ?? 'text/plain; charset=utf-8', ...r.headers }).end(r.body);
    };
    if (r?.delay) setTimeout(answer, r.delay);
    else answer();
  });
  return listen(server, requests);
}

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' };

/** A bare repository `{root}/{name}.git` holding `files` in one commit (or a new commit on an existing one). */
export function makeRepo(root: string, name: string, files: Record<string, string>, opts: { symlinks?: Record<string, string> } = {}): string {
  const work = fs.mkdtempSync(path.join(root, 'work-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: work, env: { ...process.env, ...GIT_ENV }, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  for (const [p, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(work, p)), { recursive: true });
    fs.writeFileSync(path.join(work, p), text);
  }
  for (const [p, target] of Object.entries(opts.symlinks ?? {})) fs.symlinkSync(target, path.join(work, p));
  git('add', '-A');
  git('commit', '-q', '-m', 'import test');
  const bare = path.join(root, `${name}.git`);
  execFileSync('git', ['clone', '-q', '--bare', work, bare], { env: { ...process.env, ...GIT_ENV }, stdio: 'pipe' });
  fs.rmSync(work, { recursive: true, force: true });
  return bare;
}

/** `git http-backend` behind node:http (a small CGI bridge), optionally behind basic auth. */
export function startGitServer(root: string, auth?: { username: string; password: string }): Promise<TestServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (auth) {
      const expected = 'Basic ' + Buffer.from(`${auth.username}:${auth.password}`).toString('base64');
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
        return;
      }
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...process.env,
        ...GIT_ENV,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        HTTP_GIT_PROTOCOL: (req.headers['git-protocol'] as string | undefined) ?? '',
        REMOTE_USER: auth?.username ?? '',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on('data', (c: Buffer) => chunks.push(c));
    cgi.on('close', () => {
      const out = Buffer.concat(chunks);
      const split = out.indexOf('\r\n\r\n');
      const head = out.subarray(0, split).toString('latin1').split('\r\n');
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head) {
        const i = line.indexOf(':');
        const k = line.slice(0, i).trim();
        const v = line.slice(i + 1).trim();
        if (k.toLowerCase() === 'status') status = Number(v.split(' ')[0]);
        else headers[k] = v;
      }
      res.writeHead(status, headers).end(out.subarray(split + 4));
    });
  });
  return listen(server, requests);
}

/** A new commit on an existing bare repository: files written (or changed) and paths deleted. */
export function commitTo(bare: string, write: Record<string, string>, remove: string[] = []): void {
  const work = fs.mkdtempSync(path.join(path.dirname(bare), 'work-'));
  const env = { ...process.env, ...GIT_ENV };
  execFileSync('git', ['clone', '-q', bare, work], { env, stdio: 'pipe' });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: work, env, stdio: 'pipe' });
  for (const [p, text] of Object.entries(write)) {
    fs.mkdirSync(path.dirname(path.join(work, p)), { recursive: true });
    fs.writeFileSync(path.join(work, p), text);
  }
  if (remove.length) git('rm', '-q', ...remove);
  git('add', '-A');
  git('commit', '-q', '-m', 'update');
  git('push', '-q', 'origin', 'HEAD');
  fs.rmSync(work, { recursive: true, force: true });
}
