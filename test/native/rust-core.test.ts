/**
 * The Rust core's own unit tests — every crate of the workspace: ctx-core (hashing, grep, embedder,
 * text), ctx-vector (filters, planner, HNSW, tombstones, background compaction, BM25, persistence),
 * ctx-embed-neural (the MiniLM embedder against reference vectors; needs the model `npm run setup`
 * installs), ctx-outline (tree-sitter outlines), ctx-native (panics and errors become coded JS
 * errors) — run with the suite, so CI exercises them too. Release profile: it reuses what
 * `npm run setup` already compiled.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const crateDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../core-native');

// The wasm pass (`npm run test:wasm`, CTX_CORE=wasm) runs the vector crate's tests without FAISS
// instead: the same index over the pure-Rust graph the wasm build has (the other crates' tests do
// not depend on the core's build and ran in the native pass).
const wasmPass = process.env.CTX_CORE === 'wasm';

it.skipIf(!wasmPass)('cargo test passes for the vector crate without FAISS (the wasm build\'s graph)', () => {
  const env = { ...process.env, PATH: `${path.join(os.homedir(), '.cargo', 'bin')}:${process.env.PATH ?? ''}` };
  const r = spawnSync('cargo', ['test', '--release', '--locked', '-p', 'ctx-vector', '--no-default-features'], { cwd: crateDir, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const out = `${r.stdout}\n${r.stderr}`;
  expect(r.error, out).toBeUndefined();
  expect(r.status, out.slice(-4000)).toBe(0);
  expect(out).toContain('hnsw_tests::a_graph_written_by_the_other_build_is_refused_and_flat_files_load ... ok');
  expect(out).not.toContain('small_graph_adds_build_the_same_quality_of_graph_as_faiss_add');
}, 900_000);

it.skipIf(wasmPass)('cargo test passes for every crate of the workspace', () => {
  const env = { ...process.env, PATH: `${path.join(os.homedir(), '.cargo', 'bin')}:${process.env.PATH ?? ''}` };
  const r = spawnSync('cargo', ['test', '--release', '--locked', '--workspace'], { cwd: crateDir, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const out = `${r.stdout}\n${r.stderr}`;
  expect(r.error, out).toBeUndefined();
  expect(r.status, out.slice(-4000)).toBe(0);
  const passed = [...out.matchAll(/test result: ok\. (\d+) passed/g)].reduce((n, m) => n + Number(m[1]), 0);
  expect(passed).toBeGreaterThan(20);
  // Each crate's test binary ran (a crate left out of the run would not print its name).
  for (const crate of ['ctx_core', 'ctx_vector', 'ctx_embed_neural', 'ctx_outline', 'ctx_native']) expect(out, crate).toContain(`deps/${crate}-`);
}, 900_000);
