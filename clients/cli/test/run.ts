/** Runs the built `ctx` as a child process (asynchronously: the server under test lives in this process). */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const CLI_DIR = path.resolve(import.meta.dirname, '..');
export const BIN = path.join(CLI_DIR, 'bin', 'ctx.js');
const REPO = path.resolve(CLI_DIR, '../..');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json(): any;
}

/** Builds ctx-client and ctx-cli when any source is newer than its dist (tests run what `npx ctx` runs). */
export function ensureBuilt(): void {
  const newest = (dir: string): number =>
    fs.existsSync(dir) ? Math.max(0, ...fs.readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => fs.statSync(path.join(e.parentPath, e.name)).mtimeMs)) : 0;
  for (const pkg of ['typescript', 'cli']) {
    const dir = path.join(REPO, 'clients', pkg);
    if (newest(path.join(dir, 'src')) > newest(path.join(dir, 'dist')) || !fs.existsSync(path.join(dir, 'dist'))) {
      execFileSync('npm', ['run', 'build', '-w', pkg === 'cli' ? 'ctx-cli' : 'ctx-client'], { cwd: REPO, stdio: 'ignore' });
    }
  }
}

/** An isolated HOME and config file, so no test reads the developer's profiles. */
export function isolatedEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-cli-home-'));
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), ...extra };
  return env;
}

export function ctx(args: string[], opts: { env: Record<string, string>; input?: string | Buffer; cwd?: string }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: opts.env, cwd: opts.cwd ?? REPO });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      resolve({ code: code ?? -1, stdout, stderr, json: () => JSON.parse(stdout) });
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

/** A loopback port nothing listens on (fetch refuses the "bad ports" such as 9, so not a fixed one). */
export async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
