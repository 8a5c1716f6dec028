/**
 * Shared by bench/retrieval.bench.ts and bench/find-http.ts: the service in a child process
 * (bench/servers/ctx-server.ts) and the find load both measure (16 autocannon clients, each query 4
 * consecutive words of a corpus document, documents visited in a fixed stride).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import autocannon from 'autocannon';

export async function startServer(env: Record<string, string> = {}, nodeFlags: string[] = []): Promise<{ child: ChildProcess; port: number; key: string }> {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', 'bench/servers/ctx-server.ts'], { env: { ...process.env, BENCH_LOG: '0', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, ...(JSON.parse(line) as { port: number; key: string }) };
}

/**
 * `find` at 16 clients for `duration` seconds; `words[i]` are document i's words. `oov`: append a
 * word no document has, so no record holds every query word and the fusion keeps a dense weight
 * (the dense search runs, as for a paraphrase or a typo).
 */
export function findLoad(base: string, key: string, words: (i: number) => string[], files: number, duration: number, oov = false) {
  let q = 0;
  return autocannon({
    url: base,
    connections: 16,
    duration,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/search/find',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        setupRequest: (req: Record<string, unknown>) => {
          const w = words((q++ * 7919) % files);
          const o = (q * 13) % Math.max(1, w.length - 4);
          const query = w.slice(o, o + 4).join(' ') + (oov ? ` qzxj${String.fromCharCode(97 + (q % 26))}` : '');
          return { ...req, body: JSON.stringify({ query, limit: 10 }) };
        },
      },
    ],
  });
}
