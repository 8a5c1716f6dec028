/**
 * The Rust core's own unit tests (ctx-core: hashing, grep, embedder, text; ctx-vector: filters,
 * planner, HNSW, tombstones, background compaction, BM25, persistence; ctx-native: panics and
 * errors become coded JS errors) run with the suite, so CI exercises them too. Release profile: it reuses what `npm run setup` already compiled.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const crateDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../core-native');

it('cargo test passes for ctx-core, ctx-vector and ctx-native', () => {
  const env = { ...process.env, PATH: `${path.join(os.homedir(), '.cargo', 'bin')}:${process.env.PATH ?? ''}` };
  const r = spawnSync('cargo', ['test', '--release', '--locked', '-p', 'ctx-core', '-p', 'ctx-vector', '-p', 'ctx-native'], { cwd: crateDir, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const out = `${r.stdout}\n${r.stderr}`;
  expect(r.error, out).toBeUndefined();
  expect(r.status, out.slice(-4000)).toBe(0);
  const passed = [...out.matchAll(/test result: ok\. (\d+) passed/g)].reduce((n, m) => n + Number(m[1]), 0);
  expect(passed).toBeGreaterThan(20);
}, 900_000);
