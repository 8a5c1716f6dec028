/**
 * The only loader of core-native (the Rust addon built by `scripts/build-native.sh`). Everything
 * native goes through the typed surface declared here, so a missing or stale build fails at one
 * place with one message instead of `undefined is not a function` deep in a plugin.
 *
 * Areas are added next to each other (`hash`, then the vector index, grep, BM25 and the local
 * embedder); each declares the functions it uses from the addon in its own interface.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface FileDigest {
  /** Lower-case hex. */
  sha256: string;
  size: number;
}

/** Functions exported by the addon, exactly as napi-derive names them. */
export interface NativeAddon {
  sha256Many(buffers: Buffer[]): string[];
  sha256ManyAsync(buffers: Buffer[]): Promise<string[]>;
  sha256File(path: string): FileDigest;
  sha256FilesAsync(paths: string[], threads?: number): Promise<FileDigest[]>;
  [name: string]: unknown;
}

const ADDON_FILE = 'ctx-native.linux-x64-gnu.node';

/** Walks up from this file to the project root (works from `runtime/` and `dist/runtime/`). */
function findAddon(): string {
  const override = process.env.CTX_NATIVE_ADDON;
  if (override) return resolve(override);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, 'core-native', ADDON_FILE);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`core-native addon ${ADDON_FILE} not found: run \`npm run setup\` (or \`npm run build:native\`)`);
}

let cached: NativeAddon | undefined;

export function native(): NativeAddon {
  if (cached) return cached;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`core-native is built for linux-x64 only (this is ${process.platform}-${process.arch})`);
  }
  const path = findAddon();
  const require = createRequire(import.meta.url);
  const addon = require(path) as NativeAddon;
  for (const fn of ['sha256Many', 'sha256ManyAsync', 'sha256File', 'sha256FilesAsync']) {
    if (typeof addon[fn] !== 'function') {
      throw new Error(`core-native at ${path} lacks ${fn}(): it is stale, run \`npm run build:native\``);
    }
  }
  cached = addon;
  return addon;
}

/** Errors from the addon carry `CODE: message`; this splits them for callers that map codes. */
export function nativeErrorCode(err: unknown): { code: string; message: string } {
  const message = err instanceof Error ? err.message : String(err);
  const m = /^([A-Z][A-Z0-9_]+): ([\s\S]*)$/.exec(message);
  return m ? { code: m[1]!, message: m[2]! } : { code: 'NATIVE', message };
}

export const hash = {
  /** Hex SHA-256 of each buffer, on the calling thread (fast for small inputs). */
  sha256Many: (buffers: Buffer[]): string[] => native().sha256Many(buffers),
  /** Same, on the libuv pool; do not mutate the buffers until it settles. */
  sha256ManyAsync: (buffers: Buffer[]): Promise<string[]> => native().sha256ManyAsync(buffers),
  sha256File: (path: string): FileDigest => native().sha256File(path),
  /** Streams the files off the JS thread, several at once; order is preserved. */
  sha256Files: (paths: string[], threads?: number): Promise<FileDigest[]> =>
    threads === undefined ? native().sha256FilesAsync(paths) : native().sha256FilesAsync(paths, threads),
};
