/**
 * Compile (issue 13, items 1–2): `POST /api/v1/compile` runs a `compile` task that hands the job
 * to an execution backend and mirrors its state (spec Part 3 "Compile task", "Compile"). The
 * backend is the bundled one in this process (an agent loop over the configured LLM) unless
 * `CTX_EXECUTION_BACKEND_URL` names an external one (`http(s)://` → `/runtime/v1`, `grpc://` →
 * `proto/runtime.proto`). ctx also serves the bundled backend itself over `/runtime/v1` and, on
 * `CTX_GRPC_PORT`, over gRPC.
 */
import { randomUUID } from 'node:crypto';
import { CtxError, HOST_VERSION, Reply, definePlugin, invalidArgument, isCtxError, presentedKey, resultObject, s, spaceRootDepth, type Identity, type Llm, type PluginTaskContext, type ScopedVfs } from 'ctx/plugin';
import { BundledBackend, resolveSkill } from './bundled.js';
import { bundledClient, httpClient, type Caller, type ExecutionClient } from './clients.js';
// grpc.js (gRPC and protobuf: ~150 ms of start-up and ~10 MB) is imported only when gRPC is used:
// a grpc:// backend, or the gRPC port, which starts listening after the server is up.
import type { GrpcServerHandle } from './grpc.js';
import { TASK_TYPE, TERMINAL, checkPayload, checkSubmit, scrub, type CompilePayload, type RuntimeStatus } from './protocol.js';

interface Input {
  payload: CompilePayload;
  /** In-memory handle of the caller's key (the key itself is never persisted with the task). */
  cred: string;
}

/** What the compile plugin offers others (and tests): the bound gRPC port, when serving. */
export interface CompileService {
  grpcPort(): number | undefined;
  /** Settles once the gRPC port listens (its port) or failed to (undefined); it starts in the background after start-up. */
  grpcListening(): Promise<number | undefined>;
}

declare module 'ctx/plugin' {
  interface Services {
    compile: CompileService;
  }
}

const POLL_MS = 100;
const CANCEL_SETTLE_MS = 30_000;
/** A task runs right after it is created; a key unclaimed this long belongs to one that never will. */
const KEY_CLAIM_MS = 60_000;

const ownerOf = (id: Identity) => `${id.accountId}\0${id.userId}`;

const runtimeStatus = resultObject({
  status: s.enum(['pending', 'running', 'cancelling', 'completed', 'failed', 'cancelled'] as const),
  stage: s.string().nullable(),
  error: s.string().nullable(),
  meta: s.record(s.any()),
  result: s.record(s.any()).nullable(),
});

export async function pickClient(url: string | undefined, bundled: BundledBackend, gatewayToken?: string): Promise<ExecutionClient> {
  if (!url) return bundledClient(bundled);
  if (/^grpc:\/\//i.test(url)) return (await import('./grpc.js')).grpcClient(url.replace(/^grpc:\/\//i, '').replace(/\/+$/, ''), { gatewayToken });
  if (/^https?:\/\//i.test(url)) return httpClient(url, { gatewayToken });
  throw new CtxError('INVALID_ARGUMENT', `CTX_EXECUTION_BACKEND_URL must start with http://, https:// or grpc://, got ${JSON.stringify(url)}`);
}

export default definePlugin({
  name: 'compile',
  version: HOST_VERSION,
  dependsOn: ['system'],
  // Sent to the execution backend (CTX_EXECUTION_BACKEND_GATEWAY_TOKEN): this plugin's alone, never in host.config.
  // grpcTlsKey: the gRPC port's private key file (CTX_GRPC_TLS_KEY), kept out of host.config too.
  config: s.object({ gatewayToken: s.string().optional(), grpcTlsKey: s.string().optional() }),
  async setup(host) {
    let llm: Llm | null | undefined;
    const getLlm = () => (llm === undefined ? (llm = host.models.llm()) : llm);
    const bundled = new BundledBackend(getLlm, host.log);
    const client = await pickClient(host.config.executionBackendUrl, bundled, host.pluginConfig.gatewayToken);
    // Keys of callers whose compile tasks are about to run, claimed by the run; lost on restart, as
    // are the tasks (they fail). A task cancelled before it ran never claims its key: a timer drops it.
    const keys = new Map<string, { key: string | undefined; timer: NodeJS.Timeout }>();
    const claim = (cred: string) => {
      const k = keys.get(cred);
      if (!k) return undefined;
      clearTimeout(k.timer);
      keys.delete(cred);
      return k.key;
    };
    let grpcServer: GrpcServerHandle | undefined;
    let grpcStart: Promise<GrpcServerHandle | undefined> = Promise.resolve(undefined);
    host.provide('compile', { grpcPort: () => grpcServer?.port, grpcListening: () => grpcStart.then((srv) => srv?.port) } satisfies CompileService);

    host.taskType({
      type: TASK_TYPE,
      cancellable: true,
      async run(task, raw) {
        const input = raw as Input;
        const apiKey = claim(input.cred);
        return follow(task, input.payload, { owner: `${task.task.owner.account_id}\0${task.task.owner.user_id}`, apiKey, vfs: () => task.vfs() });
      },
    });

    async function follow(task: PluginTaskContext, payload: CompilePayload, caller: Caller): Promise<Record<string, unknown>> {
      const clean = <T>(v: T) => scrub(v, [caller.apiKey, host.pluginConfig.gatewayToken]);
      const sessionId = await client.submit(caller, task.task.task_id, payload, task.signal).catch((err) => {
        throw new CtxError(err instanceof CtxError ? err.code : 'UNAVAILABLE', clean((err as Error).message));
      });
      let last: RuntimeStatus | undefined;
      const seen = async (st: RuntimeStatus) => {
        last = st;
        if (st.status === 'running' && st.stage && st.stage !== task.task.stage) await task.setStage(clean(st.stage));
      };
      // Follow until terminal; a cancel of the task cancels the session and waits for it to settle.
      const until = async (signal: AbortSignal) => {
        // A stream that ends early (backend restart, proxy timeout) falls back to polling.
        if (client.watch) await client.watch(caller, sessionId, (st) => void seen(st).catch(() => {}), signal);
        while (!signal.aborted && !(last && TERMINAL.has(last.status))) {
          await seen(await client.status(caller, sessionId, signal));
          if (!TERMINAL.has(last!.status)) await new Promise((r) => setTimeout(r, POLL_MS));
        }
      };
      try {
        await until(task.signal);
      } catch (err) {
        if (!task.signal.aborted) throw new CtxError(err instanceof CtxError ? err.code : 'UNAVAILABLE', clean((err as Error).message));
      }
      if (task.signal.aborted) {
        // A user's cancel (a CtxError) waits for the session to settle: `cancelled` means stopped. A
        // shutdown only asks the backend to stop (no orphaned work) and lets the server go; the task
        // is failed as interrupted at the next start.
        if (!isCtxError(task.signal.reason)) {
          void client.cancel(caller, sessionId).catch(() => {});
          throw task.signal.reason;
        }
        last = await client.cancel(caller, sessionId).catch(() => last);
        const settle = AbortSignal.timeout(CANCEL_SETTLE_MS);
        if (!last || !TERMINAL.has(last.status)) await until(settle).catch(() => {});
        await task.setStage('cancelled');
        throw task.signal.reason;
      }
      const st = last!;
      // The stage it failed in, as the backend reports it.
      if (st.status === 'failed' && st.stage && st.stage !== task.task.stage) await task.setStage(clean(st.stage));
      if (st.status === 'failed') throw new CtxError('PROCESSING_ERROR', clean(st.error ?? 'the execution backend reported a failure'), { session_id: sessionId });
      if (st.status === 'cancelled') throw new CtxError('PROCESSING_ERROR', 'the execution backend cancelled the compile session', { session_id: sessionId });
      const stage = st.stage === 'salvaged' ? 'salvaged' : 'completed';
      await task.setStage(stage);
      return clean({ ...(st.result ?? {}), session_id: sessionId, backend: client.kind, outcome: stage, meta: st.meta });
    }

    /** Checks the request against the caller's view before a task exists: 400/403/404 now, not later. */
    async function checkTargets(vfs: ScopedVfs, p: CompilePayload): Promise<string> {
      for (const [i, f] of p.from.entries()) {
        const u = vfs.resolve(f, 'read', `from[${i}]`).uri;
        const st = await vfs.stat(u);
        if (!st) throw new CtxError('NOT_FOUND', `source directory not found: ${u}`, { field: `from[${i}]`, uri: u });
        if (st.kind !== 'dir') throw invalidArgument(`from must name directories, got a file: ${u}`, { field: `from[${i}]`, uri: u });
      }
      const to = vfs.resolve(p.to, 'write', 'to');
      // A directory inside a space, or the skills namespace itself (a skill compile adds skills there).
      const skillsNamespace = to.scope === 'user' && to.segments.length === 3 && to.segments[2] === 'skills';
      if (to.segments.length <= Math.max(1, spaceRootDepth(to)) && !skillsNamespace)
        throw invalidArgument(`to must be a directory inside a resources or memory space (or the skills namespace), not ${to.uri}`, { field: 'to' });
      const existing = await vfs.stat(to.uri);
      if (existing && existing.kind !== 'dir') throw invalidArgument(`to must be a directory, got a file: ${to.uri}`, { field: 'to' });
      await resolveSkill(vfs, p.skill);
      return to.uri;
    }

    host.route({
      method: 'POST',
      path: '/api/v1/compile',
      summary: 'compiles source directories into a target directory with a skill, as a compile task (202)',
      description:
        'The execution backend is the bundled one (an agent loop over the configured LLM; no args) or the one at CTX_EXECUTION_BACKEND_URL. ' +
        'Poll GET /api/v1/tasks/{task_id}; cancel with POST /api/v1/tasks/{task_id}/cancel.',
      successStatus: 202,
      body: s.object({
        from: s.array(s.uri(), { min: 1, max: 32 }).describe('source directory URIs'),
        to: s.uri().describe('target directory URI'),
        skill: s.uri().describe('skill directory or its SKILL.md URI'),
        instruction: s.string().optional(),
        args: s.record(s.any()).optional().describe('backend arguments (model_name...); the bundled backend takes none'),
      }),
      response: resultObject({ task_id: s.string(), task_type: s.string(), status: s.string(), stage: s.string(), resource_id: s.string() }),
      errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
      async handler(ctx) {
        const payload = checkPayload(ctx.body);
        const to = await checkTargets(ctx.vfs, payload);
        const cred = randomUUID();
        keys.set(cred, { key: presentedKey(ctx.req.headers), timer: setTimeout(() => keys.delete(cred), KEY_CLAIM_MS).unref() });
        const t = await host.tasks.create(TASK_TYPE, ctx.identity, { resourceId: to, stage: 'queued', input: { payload, cred } satisfies Input }).catch((err) => {
          claim(cred);
          throw err;
        });
        ctx.status(202);
        return { task_id: t.task_id, task_type: TASK_TYPE, status: t.status, stage: t.stage, resource_id: to };
      },
    });

    const retired = (method: 'GET' | 'POST', path: string, instead: string) =>
      host.route({
        method,
        path,
        auth: 'none',
        summary: `retired: use ${instead}`,
        reply: { contentType: 'application/json', description: '410 with migration guidance in the error envelope' },
        successStatus: 410,
        deprecated: true,
        handler: () =>
          Reply.json(
            {
              status: 'error',
              error: {
                code: 'NOT_FOUND',
                message: `${method} ${path} is retired; use ${instead}`,
                details: { migration: { compile: 'POST /api/v1/compile', status: 'GET /api/v1/tasks/{task_id}', cancel: 'POST /api/v1/tasks/{task_id}/cancel' } },
              },
            },
            410,
          ),
      });
    retired('POST', '/bot/v1/compile', 'POST /api/v1/compile (202 with a compile task)');
    retired('GET', '/bot/v1/compile/{task_id}', 'GET /api/v1/tasks/{task_id}');
    retired('POST', '/bot/v1/compile/{task_id}/cancel', 'POST /api/v1/tasks/{task_id}/cancel');

    // The runtime protocol, served by this process's bundled backend (spec "Runtime execution protocol").
    host.route({
      method: 'POST',
      path: '/runtime/v1/tasks',
      summary: 'starts a compile session on the bundled execution backend (202 {session_id}); Idempotency-Key reuses a session',
      body: s.object({ task_type: s.string().annotate({ enum: ['compile'] }), payload: s.any() }),
      reply: { contentType: 'application/json', schema: resultObject({ session_id: s.string() }) },
      async handler(ctx) {
        const payload = checkSubmit(ctx.body);
        const key = ctx.req.headers['idempotency-key'];
        if (key !== undefined && (key.length === 0 || key.length > 256)) throw invalidArgument('Idempotency-Key must be 1 to 256 characters', { field: 'Idempotency-Key' });
        await checkTargets(ctx.vfs, payload);
        const sessionId = bundled.submit({ owner: ownerOf(ctx.identity), idempotencyKey: key, payload, vfs: ctx.vfs });
        return Reply.json({ session_id: sessionId }, 202);
      },
    });
    for (const op of ['status', 'cancel'] as const)
      host.route({
        method: 'POST',
        path: `/runtime/v1/tasks/${op}`,
        summary: op === 'status' ? 'a compile session\'s {status, stage, error, meta, result} (the owner\'s only)' : 'cancels a compile session (cancelling until stopped; terminal sessions answer as they are)',
        body: s.object({ session_id: s.string({ min: 1 }) }),
        reply: { contentType: 'application/json', schema: runtimeStatus },
        errors: ['NOT_FOUND'],
        handler: (ctx) => Reply.json(op === 'status' ? bundled.status(ownerOf(ctx.identity), ctx.body.session_id) : bundled.cancel(ownerOf(ctx.identity), ctx.body.session_id)),
      });

    host.onReady(() => {
      if (host.config.grpcPort <= 0) return;
      // Not awaited: HTTP is the service and is healthy without it (bench/RESULTS.md, start-up). A
      // taken gRPC port costs the gRPC transport only, loudly, not the server.
      grpcStart = import('./grpc.js')
        .then(({ startGrpcServer }) => startGrpcServer({ host, bundled, port: host.config.grpcPort, checkTargets }))
        .then(
          (srv) => (grpcServer = srv),
          (err) => {
            host.log.error('gRPC runtime service not started', { error: (err as Error).message });
            return undefined;
          },
        );
    });
    host.onClose(async () => {
      for (const k of keys.values()) clearTimeout(k.timer);
      keys.clear();
      await grpcStart;
      await grpcServer?.close();
      await client.close?.();
      await bundled.close();
    });
  },
});
