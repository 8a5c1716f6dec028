/**
 * Builds the console's single-page app from `app/` into `dist/console/` with esbuild: one minified
 * ES module and one stylesheet with content-hashed names (served immutable), an `index.html` that
 * names them, and `manifest.json` (file -> size, gzipped size) the plugin and the bundle-size test read.
 * Idempotent: it writes to a fresh directory and swaps it in, so a running server or a parallel test
 * never sees half a build.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The repository root: the nearest ancestor with package.json (source: plugins/console; build: dist/plugins/console). */
export function repoRoot(from = HERE): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'package.json')) || path.basename(dir) === 'dist') {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${from}`);
    dir = up;
  }
  return dir;
}

export const defaultOutDir = () => path.join(repoRoot(), 'dist', 'console');

export interface ConsoleManifest {
  entry: string;
  stylesheet: string;
  files: Record<string, { bytes: number; gzip: number }>;
}

export async function buildConsole(outDir = defaultOutDir()): Promise<ConsoleManifest> {
  const root = repoRoot();
  const appDir = path.join(root, 'plugins', 'console', 'app');
  // esbuild is a dev dependency: the server itself never loads it.
  const esbuild = await import('esbuild');
  const tmp = `${outDir}.tmp-${process.pid}-${Date.now()}`;
  fs.mkdirSync(tmp, { recursive: true });
  const result = await esbuild.build({
    entryPoints: { app: path.join(appDir, 'main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    outdir: tmp,
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
    absWorkingDir: root,
  });
  const outputs = Object.keys(result.metafile.outputs).map((f) => path.basename(f));
  const entry = outputs.find((f) => f.endsWith('.js'));
  const stylesheet = outputs.find((f) => f.endsWith('.css'));
  if (!entry || !stylesheet) throw new Error(`console build produced ${outputs.join(', ')}: expected one .js and one .css`);
  const template = fs.readFileSync(path.join(appDir, 'index.html'), 'utf8');
  fs.writeFileSync(path.join(tmp, 'index.html'), template.replace('%STYLESHEET%', `/console/assets/${stylesheet}`).replace('%ENTRY%', `/console/assets/${entry}`));
  const files: ConsoleManifest['files'] = {};
  for (const f of [...outputs, 'index.html']) {
    const bytes = fs.readFileSync(path.join(tmp, f));
    const gz = gzipSync(bytes, { level: 9 });
    files[f] = { bytes: bytes.length, gzip: gz.length };
    // Served to browsers that accept gzip (the console across a network, not only on loopback).
    if (f !== 'index.html') fs.writeFileSync(path.join(tmp, `${f}.gz`), gz);
  }
  const manifest: ConsoleManifest = { entry, stylesheet, files };
  fs.writeFileSync(path.join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  const old = `${outDir}.old-${process.pid}-${Date.now()}`;
  if (fs.existsSync(outDir)) fs.renameSync(outDir, old);
  fs.renameSync(tmp, outDir);
  fs.rmSync(old, { recursive: true, force: true });
  return manifest;
}

/** Newest modification time of the app's sources (and this builder). */
function sourcesMtime(root: string): number {
  let newest = fs.statSync(fileURLToPath(import.meta.url)).mtimeMs;
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  walk(path.join(root, 'plugins', 'console', 'app'));
  return newest;
}

/**
 * Builds when dist/console is missing or older than a source, under a lock so parallel test files
 * build once; the tests call it so they always exercise the current sources.
 */
export async function ensureConsoleBuilt(outDir = defaultOutDir()): Promise<ConsoleManifest> {
  const manifestFile = path.join(outDir, 'manifest.json');
  const fresh = () => fs.existsSync(manifestFile) && fs.statSync(manifestFile).mtimeMs >= sourcesMtime(repoRoot());
  const lock = `${outDir}.lock`;
  fs.mkdirSync(path.dirname(outDir), { recursive: true });
  for (let waited = 0; !fresh(); waited += 100) {
    let fd: number | undefined;
    try {
      fd = fs.openSync(lock, 'wx');
    } catch {
      // Another process builds; a lock older than a minute was left by a crash.
      const held = fs.statSync(lock, { throwIfNoEntry: false });
      if (waited > 60_000 || (held && Date.now() - held.mtimeMs > 60_000)) fs.rmSync(lock, { force: true });
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    try {
      if (!fresh()) await buildConsole(outDir);
    } finally {
      fs.closeSync(fd);
      fs.rmSync(lock, { force: true });
    }
  }
  return JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as ConsoleManifest;
}
