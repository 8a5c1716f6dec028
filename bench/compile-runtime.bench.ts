/**
 * Compile runtime protocol round trips (issue 13 performance): submit → status over gRPC (ctx's
 * Runtime service on a loopback port) against the same two calls over `/runtime/v1` HTTP (the real
 * uWS socket, keep-alive fetch), in the same run. The bundled backend runs without an LLM, so every
 * session ends at once (a no-op backend): the figures are the transports, auth, payload checks
 * (stat of the sources and the skill) and session bookkeeping. Target: gRPC p50 ≤ 1 ms.
 * Then the Watch stream's capacity: a server on the same service definition streams `--updates`
 * status messages (protobuf-es encode, grpc-js framing, flow control) to a client decoding each.
 * Target: 10,000 updates/s.
 *   npx tsx bench/compile-runtime.bench.ts [--n 2000] [--updates 100000]
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { create } from '@bufbuild/protobuf';
import { builtinPlugins } from '../plugins/index.js';
import { SessionRequestSchema, SubmitRequestSchema } from '../plugins/compile/gen/runtime_pb.js';
import { bindServer, runtimeClient, runtimeServiceDefinition, shutdown, statusToPb } from '../plugins/compile/grpc.js';
import { createApp } from '../runtime/app.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('n', 2000);
const UPDATES = arg('updates', 100_000);
const ROOT_KEY = 'bench-root-key-0123456789abcdef0123';
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const now = () => performance.now();

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-compile-bench-'));
  const grpcPort = await freePort();
  // No indexer (it would work on the seeded files meanwhile) and no LLM (sessions end at once).
  const plugins = builtinPlugins.filter((p) => p.name !== 'retrieval' && !(p.dependsOn ?? []).includes('retrieval'));
  const app = await createApp({ env: {}, plugins, config: { dataDir: dir, rootApiKey: ROOT_KEY, authMode: 'api_key', logLevel: 'silent', accessLog: false, grpcPort } });
  const server = await app.listen(0, '127.0.0.1');
  const client = runtimeClient(`127.0.0.1:${grpcPort}`);
  try {
    const acct = await app.inject({ method: 'POST', url: '/api/v1/admin/accounts', headers: { 'x-api-key': ROOT_KEY }, body: { account_id: 'bench', admin_user_id: 'admin' } });
    const key = acct.json().result.user_key as string;
    const headers = { 'x-api-key': key };
    await app.inject({ method: 'POST', url: '/api/v1/skills', headers, body: { data: { name: 'noop', description: 'bench', content: 'nothing' } } });
    await app.inject({ method: 'POST', url: '/api/v1/content/write', headers, body: { uri: 'ctx://~/resources/src/a.md', content: 'a' } });
    const payload = { from: ['ctx://~/resources/src'], to: 'ctx://~/resources/out', skill: 'ctx://~/skills/noop' };

    const md = new grpc.Metadata();
    md.set('x-api-key', key);
    const call = <T>(m: 'submit' | 'status', req: unknown) => new Promise<T>((res, rej) => client[m](req, md, {}, (e, r) => (e ? rej(e) : res(r as T))));
    const grpcRound = async () => {
      const { sessionId } = await call<{ sessionId: string }>('submit', create(SubmitRequestSchema, { taskType: 'compile', payload }));
      await call('status', create(SessionRequestSchema, { sessionId }));
    };
    const base = `http://127.0.0.1:${server.port}/runtime/v1`;
    const post = async (p: string, body: unknown) => {
      const r = await fetch(`${base}${p}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return (await r.json()) as Record<string, string>;
    };
    const httpRound = async () => {
      const { session_id } = await post('/tasks', { task_type: 'compile', payload });
      await post('/tasks/status', { session_id });
    };

    const measure = async (name: string, fn: () => Promise<void>) => {
      for (let i = 0; i < 200; i++) await fn();
      const xs: number[] = [];
      const t0 = now();
      for (let i = 0; i < N; i++) {
        const s = now();
        await fn();
        xs.push(now() - s);
      }
      const total = now() - t0;
      console.log(`${name.padEnd(34)} p50 ${pct(xs, 50).toFixed(3)} ms  p99 ${pct(xs, 99).toFixed(3)} ms  ${((N / total) * 1000).toFixed(0)} round trips/s`);
    };
    console.log(`compile runtime: submit → status, ${N} round trips each, sequential, loopback`);
    await measure('gRPC (grpc-js, protobuf-es)', grpcRound);
    await measure('/runtime/v1 HTTP (uWS, fetch)', httpRound);
    await measure('gRPC again (order effects)', grpcRound);
    await watchThroughput();
  } finally {
    client.close();
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function watchThroughput(): Promise<void> {
  const server = new grpc.Server();
  server.addService(runtimeServiceDefinition(), {
    watch: (call: grpc.ServerWritableStream<unknown, unknown>) => {
      let i = 0;
      const pump = () => {
        while (i < UPDATES) {
          const last = i === UPDATES - 1;
          const ok = call.write(statusToPb({ status: last ? 'completed' : 'running', stage: i % 2 ? 'agent' : 'writing', error: null, meta: { written: i }, result: last ? { written: [] } : null }));
          i++;
          if (!ok) return void call.once('drain', pump);
        }
        call.end();
      };
      pump();
    },
  } as grpc.UntypedServiceImplementation);
  const port = await bindServer(server, '127.0.0.1:0');
  const client = runtimeClient(`127.0.0.1:${port}`);
  try {
    const t0 = now();
    let n = 0;
    await new Promise<void>((resolve, reject) => {
      const s = client.watch(create(SessionRequestSchema, { sessionId: 'bench' }), new grpc.Metadata());
      s.on('data', () => void n++);
      s.on('end', resolve);
      s.on('error', reject);
    });
    const secs = (now() - t0) / 1000;
    console.log(`${'Watch stream (gRPC)'.padEnd(34)} ${n} updates in ${secs.toFixed(2)} s = ${(n / secs).toFixed(0)} updates/s`);
  } finally {
    client.close();
    await shutdown(server);
  }
}

await main();
