/**
 * The built console (dist/console/, see build.ts) as HTTP replies. Only names listed in the build's
 * manifest are served, so no request path ever reaches the file system. Hashed assets are immutable;
 * index.html is revalidated every time (it names the current hashes). Files are read per request:
 * they are small, and a rebuild under a running server is picked up without a restart.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { CtxError, Reply } from 'ctx/plugin';
import type { ConsoleManifest } from './build.js';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/**
 * Nothing but this origin: no inline script or style, no framing, no plugins. `img-src data:` is for
 * the favicon; `blob:` for downloads the console builds in the page (pack export, graph HTML).
 */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

export class ConsoleAssets {
  constructor(readonly dir: string) {}

  private async manifest(): Promise<ConsoleManifest> {
    try {
      return JSON.parse(await fs.readFile(path.join(this.dir, 'manifest.json'), 'utf8')) as ConsoleManifest;
    } catch {
      throw new CtxError('UNAVAILABLE', `the console is not built (${this.dir} is missing): run npm run setup or npm run build:console`);
    }
  }

  /**
   * The app page. Whether the server runs in dev mode (no keys, loopback only) is written into it, so
   * the app starts without a round trip; that one bit is all it says about the server.
   */
  async index(devMode: boolean): Promise<Reply> {
    await this.manifest();
    const html = Buffer.from((await fs.readFile(path.join(this.dir, 'index.html'), 'utf8')).replace('%DEV_MODE%', devMode ? 'true' : 'false'));
    return Reply.raw(html, { contentType: TYPES['.html'], size: html.length, headers: { ...SECURITY_HEADERS, 'cache-control': 'no-cache' } });
  }

  /** A hashed asset by its file name (gzipped when the client accepts it), or null when the build has no such file. */
  async asset(name: string, acceptEncoding = ''): Promise<Reply | null> {
    const m = await this.manifest();
    if (name === 'index.html' || name === 'manifest.json' || !Object.hasOwn(m.files, name)) return null;
    const type = TYPES[path.extname(name)];
    if (!type) return null;
    const headers: Record<string, string> = { ...SECURITY_HEADERS, 'cache-control': 'public, max-age=31536000, immutable', vary: 'accept-encoding' };
    let body: Buffer;
    if (/\bgzip\b/.test(acceptEncoding)) {
      body = await fs.readFile(path.join(this.dir, `${name}.gz`));
      headers['content-encoding'] = 'gzip';
    } else {
      body = await fs.readFile(path.join(this.dir, name));
    }
    return Reply.raw(body, { contentType: type, size: body.length, headers });
  }
}
