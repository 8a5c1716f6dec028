/**
 * Packs set no entry-count limit (spec Part 2, "Limits"): archives of more than 65,535 entries carry
 * zip64 end records, which Info-ZIP and Python read, and the reader accepts zip64 archives written
 * by other tools, entry-level zip64 fields included.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZipWriter } from '../../plugins/packs/export.js';
import { readCentralDirectory, readEntry } from '../../plugins/packs/zip-read.js';
import { tempDir } from '../helpers/app.js';

let dir: string;
beforeAll(() => {
  dir = tempDir('ctx-zip64-');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('zip64', () => {
  it('writes more than 65,535 entries with zip64 end records that other tools read', async () => {
    const zip = new ZipWriter();
    const chunks: Uint8Array[] = [];
    const N = 65_600;
    for (let i = 0; i < N; i++) {
      zip.dir(`big/files/d${i}/`, Date.now());
      if (i % 5000 === 0) chunks.push(...zip.drain());
    }
    const data = Buffer.from('the one file\n');
    zip.file('big/files/one.txt', data, (await import('fflate')).deflateSync(data), Date.now());
    zip.end();
    chunks.push(...zip.drain());
    const file = path.join(dir, 'big.zip');
    fs.writeFileSync(file, Buffer.concat(chunks));
    expect(execFileSync('unzip', ['-t', file], { encoding: 'utf8', maxBuffer: 64 << 20 })).toContain('No errors detected');
    const py = execFileSync('python3', ['-c', 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(len(z.infolist()), z.read("big/files/one.txt").decode())', file], { encoding: 'utf8' });
    expect(py).toBe(`${N + 1} the one file\n\n`);
    const entries = await readCentralDirectory(file);
    expect(entries).toHaveLength(N + 1);
    const fh = await fs.promises.open(file, 'r');
    try {
      expect((await readEntry(fh, entries.find((e) => e.name === 'big/files/one.txt')!)).toString()).toBe('the one file\n');
    } finally {
      await fh.close();
    }
  });

  it('reads zip64 archives written by Python, with zip64 fields on every entry', async () => {
    const file = path.join(dir, 'py64.zip');
    execFileSync('python3', [
      '-c',
      [
        'import sys, zipfile',
        'with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:',
        '    for name, body in [("p/files/a.md", b"alpha" * 1000), ("p/files/b.bin", bytes(range(256)))]:',
        '        with z.open(name, "w", force_zip64=True) as f: f.write(body)',
      ].join('\n'),
      file,
    ]);
    const entries = await readCentralDirectory(file);
    expect(entries.map((e) => e.name)).toEqual(['p/files/a.md', 'p/files/b.bin']);
    const fh = await fs.promises.open(file, 'r');
    try {
      expect((await readEntry(fh, entries[0]!)).toString()).toBe('alpha'.repeat(1000));
      expect(await readEntry(fh, entries[1]!)).toEqual(Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
    } finally {
      await fh.close();
    }
  });
});
