/**
 * Add resource (issue 11 target): a 2,000-file source repository cloned from a local git server
 * (`git http-backend` behind node:http) is findable end to end in <= 60 s; files/s per stage.
 * In-process server through the real pipeline (full built-in plugin set, local embedder); the
 * stages are timed from the task's own `stage_changed` events.
 *   npx tsx bench/resources-import.bench.ts [--files 2000]
 *
 * `--reingest N`: after the import, N files change in a new commit and the same source is added
 * again into the same root (what a watch run does); that re-ingest is timed the same way, with the
 * VFS change events it caused and the indexer's work (from the `indexing` service's stats).
 */
import fs from 'node:fs';
import { startTestApp, tempDir } from '../test/helpers/app.js';
import { commitTo, makeRepo, startGitServer } from '../test/resources/servers.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const count = arg('files', 2000);
const reingest = arg('reingest', 0);

interface TaskView {
  status: string;
  error: string | null;
  result: Record<string, unknown> & { files: number; execution_events: { items: Array<{ kind: string; stage: string | null; recorded_at: string }> } };
}

function sourceFile(i: number): [string, string] {
  const dir = `pkg${String(i % 40).padStart(2, '0')}/mod${i % 7}`;
  const name = `unit_${i}`;
  if (i % 3 === 0) return [`${dir}/${name}.py`, `"""Unit ${i}: handles ledger entry ${i}."""\n\n` + Array.from({ length: 30 }, (_, k) => `def step_${k}(x):\n    return x * ${k} + ${i}\n`).join('\n')];
  if (i % 3 === 1) return [`${dir}/${name}.md`, `# Unit ${i}\n\nNotes about reconciling ledger batch ${i} with the settlement report.\n\n` + 'Each batch is checked twice before it is posted. '.repeat(20) + '\n'];
  return [`${dir}/${name}.ts`, `/** Unit ${i}: ledger entry ${i}. */\n` + Array.from({ length: 30 }, (_, k) => `export function step${k}(x: number): number {\n  return x * ${k} + ${i};\n}\n`).join('\n')];
}

async function main() {
  const root = tempDir('ctx-bench-git-');
  const files: Record<string, string> = { 'README.md': '# Ledger service\n\nThe zanzibar reconciliation engine.\n' };
  for (let i = 0; i < count - 1; i++) {
    const [p, text] = sourceFile(i);
    files[p] = text;
  }
  const t0 = Date.now();
  makeRepo(root, 'ledger', files);
  const bytes = Object.values(files).reduce((n, s) => n + s.length, 0);
  console.log(`repository: ${count} files, ${(bytes / 1e6).toFixed(1)} MB (built in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  const git = await startGitServer(root);
  const t = await startTestApp({ config: { importAllowPrivate: true } });
  try {
    const run = async (): Promise<{ task: TaskView; start: number; done: number }> => {
      const start = Date.now();
      const res = await t.req({ method: 'POST', url: '/api/v1/resources', headers: t.root, body: { path: `${git.url}/ledger.git`, to: 'ctx://resources/ledger' } });
      if (res.status !== 200) throw new Error(res.text);
      const id = res.json().result.task_id as string;
      let task: TaskView;
      for (;;) {
        task = (await t.req({ method: 'GET', url: `/api/v1/tasks/${id}?include_events=true`, headers: t.root })).json().result;
        if (['completed', 'failed', 'cancelled'].includes(task.status)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      if (task.status !== 'completed') throw new Error(`import ${task.status}: ${task.error}`);
      return { task, start, done: Date.now() };
    };
    const stageTable = (task: TaskView, start: number, done: number, n: number) => {
      const events = task.result.execution_events.items.filter((e) => e.kind === 'stage_changed').map((e) => ({ stage: e.stage!, at: Date.parse(e.recorded_at) }));
      const stamps = [{ stage: 'queued', at: start }, ...events, { stage: 'end', at: done }];
      console.log('| stage | seconds | files/s |\n|---|---|---|');
      for (let i = 0; i + 1 < stamps.length; i++) {
        const s = (stamps[i + 1]!.at - stamps[i]!.at) / 1000;
        console.log(`| ${stamps[i]!.stage} | ${s.toFixed(2)} | ${s > 0 ? Math.round(n / s) : '-'} |`);
      }
    };
    const { task, start, done } = await run();
    const find = await t.req({ method: 'POST', url: '/api/v1/search/find', headers: t.root, body: { query: 'zanzibar reconciliation engine', target_uri: 'ctx://resources/ledger' } });
    const hits = find.json().result.resources as Array<{ uri: string }>;
    const findable = hits.some((h) => h.uri.startsWith('ctx://resources/ledger'));
    const n = task.result.files;
    console.log(`imported ${n} files; findable: ${findable}; end to end ${((done - start) / 1000).toFixed(1)} s (${Math.round(n / ((done - start) / 1000))} files/s)`);
    stageTable(task, start, done, n);
    if (reingest > 0) {
      const names = Object.keys(files).filter((p) => p !== 'README.md');
      const changed: Record<string, string> = {};
      for (let k = 0; k < reingest; k++) changed[names[Math.floor((k * names.length) / reingest)]!] = `# changed ${k}\n\nThe quetzal amendment ${k}.\n`;
      commitTo(`${root}/ledger.git`, changed);
      const indexing = t.app.service<{ stats(): Record<string, unknown> }>('indexing');
      const before = { ...indexing.stats() } as Record<string, number>;
      const changes: Record<string, number> = {};
      const listen = (ev: { type: string; path: string }) => {
        if (ev.path.startsWith('resources/ledger')) changes[ev.type] = (changes[ev.type] ?? 0) + 1;
      };
      t.app.vfs.on('change', listen);
      const again = await run();
      t.app.vfs.off('change', listen);
      const after = indexing.stats() as Record<string, number>;
      const delta = (k: string) => (after[k] ?? 0) - (before[k] ?? 0);
      const r = again.task.result;
      console.log(
        `re-ingest with ${reingest} of ${n} files changed: end to end ${((again.done - again.start) / 1000).toFixed(2)} s; result files ${r.files}, written ${r.written ?? '(not reported)'}, unchanged ${r.unchanged ?? '(not reported)'}, removed ${r.removed}`,
      );
      console.log(`VFS change events: ${JSON.stringify(changes)}; indexer: file messages ${delta('files')}, directory refreshes ${delta('dirRefreshes')}, records embedded ${delta('embedded')}, records skipped unchanged ${delta('skippedUnchanged')}`);
      stageTable(again.task, again.start, again.done, n);
      // The write and index stages, apart from the clone (the same work for any re-ingest).
      const stageSecs = (v: { task: TaskView; done: number }) => {
        const at = (st: string) => Date.parse(v.task.result.execution_events.items.find((e) => e.kind === 'stage_changed' && e.stage === st)?.recorded_at ?? '');
        return (v.done - at('finalizing')) / 1000;
      };
      const first = stageSecs({ task, done });
      const second = stageSecs(again);
      console.log(`ratio to the full import in this run: end to end ${((again.done - again.start) / (done - start)).toFixed(2)}x; finalizing + processing_queue ${second.toFixed(2)} s vs ${first.toFixed(2)} s = ${(second / first).toFixed(3)}x`);
    }
  } finally {
    await t.close();
    await git.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
