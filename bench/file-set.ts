/**
 * The file set of the snapshot and pack benchmarks (bench/snapshots-packs.bench.ts,
 * bench/packs-memory.bench.ts): N text-like files under `resources/set` in 100 directories, written
 * through the VFS in batches of 500 and, byte for byte, under `<disk>/set` for the git/zip baselines.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Vfs } from '../runtime/vfs/vfs.js';

/** Text-like content: compressible like real documents, different per file. */
export function content(i: number, size: number): Buffer {
  const line = `line of file ${i}: the quick brown fox jumps over the lazy dog ${i * 7919}\n`;
  return Buffer.from(line.repeat(Math.ceil(size / line.length)).slice(0, size));
}

/** Six-digit zero-padded number, as the set's file names use. */
export const pad = (i: number) => String(i).padStart(6, '0');
/** Path of file i below the set's root. */
export const fileOf = (i: number) => `d${pad(i % 100)}/f${pad(i)}.md`;

export async function writeFileSet(vfs: Vfs, account: string, disk: string, files: number, size: number): Promise<void> {
  const lock = await vfs.locks.acquire(account, 'resources', 'tree');
  try {
    for (let i = 0; i < files; i += 500) {
      const batch = [];
      for (let j = i; j < Math.min(files, i + 500); j++) {
        const c = content(j, size);
        batch.push({ path: `resources/set/${fileOf(j)}`, content: c });
        fs.mkdirSync(path.join(disk, 'set', path.dirname(fileOf(j))), { recursive: true });
        fs.writeFileSync(path.join(disk, 'set', fileOf(j)), c);
      }
      await vfs.writeFiles(account, batch, { lock });
    }
  } finally {
    lock.release();
  }
}
