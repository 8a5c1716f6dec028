/**
 * An external execution backend over gRPC (`proto/runtime.proto`), on grpc-js with the protobuf-es
 * messages ctx generates at setup (plugins/compile/gen). Run:
 * `CTX_URL=http://127.0.0.1:1933 PORT=8091 npx tsx examples/compile-backend/grpc-server.ts`, then
 * start ctx with `CTX_EXECUTION_BACKEND_URL=grpc://127.0.0.1:8091`.
 */
import * as grpc from '@grpc/grpc-js';
import { create } from '@bufbuild/protobuf';
import { pathToFileURL } from 'node:url';
import { SubmitResponseSchema, type SubmitRequest, type TaskStatus } from '../../plugins/compile/gen/runtime_pb.js';
import { bindServer, runtimeServiceDefinition, shutdown, statusToPb } from '../../plugins/compile/grpc.js';
import { BadRequest, NotFound, Sessions, checkSubmit, isTerminal, type State } from './sessions.js';

const meta = (md: grpc.Metadata, name: string) => {
  const v = md.get(name)[0];
  return typeof v === 'string' && v ? v : undefined;
};
const fail = (err: unknown): Partial<grpc.ServiceError> => ({
  code: err instanceof BadRequest ? grpc.status.INVALID_ARGUMENT : err instanceof NotFound ? grpc.status.NOT_FOUND : grpc.status.INTERNAL,
  details: (err as Error).message,
});
const pb = (s: State) => statusToPb(s as Parameters<typeof statusToPb>[0]);

export async function startGrpcBackend(ctxUrl: string, port = 0): Promise<{ target: string; sessions: Sessions; close(): Promise<void> }> {
  const sessions = new Sessions(ctxUrl);
  const server = new grpc.Server();
  const unary =
    <Req>(fn: (call: grpc.ServerUnaryCall<Req, unknown>) => unknown): grpc.handleUnaryCall<Req, unknown> =>
    (call, cb) => {
      try {
        cb(null, fn(call));
      } catch (err) {
        cb(fail(err) as grpc.ServiceError);
      }
    };
  server.addService(runtimeServiceDefinition(), {
    submit: unary<SubmitRequest>((call) => {
      const p = call.request.payload;
      const body = { task_type: call.request.taskType, payload: p && { from: p.from, to: p.to, skill: p.skill, instruction: p.instruction, args: p.argsJson ? JSON.parse(p.argsJson) : undefined } };
      const sessionId = sessions.submit(meta(call.metadata, 'x-api-key'), meta(call.metadata, 'idempotency-key'), checkSubmit(body));
      return create(SubmitResponseSchema, { sessionId });
    }),
    status: unary<{ sessionId: string }>((call) => pb(sessions.status(meta(call.metadata, 'x-api-key'), call.request.sessionId))),
    cancel: unary<{ sessionId: string }>((call) => pb(sessions.cancel(meta(call.metadata, 'x-api-key'), call.request.sessionId))),
    watch: (call: grpc.ServerWritableStream<{ sessionId: string }, TaskStatus>) => {
      try {
        const stop = sessions.watch(meta(call.metadata, 'x-api-key'), call.request.sessionId, (s) => {
          call.write(pb(s));
          if (isTerminal(s.status)) queueMicrotask(() => call.end());
        });
        call.on('cancelled', stop);
      } catch (err) {
        call.emit('error', fail(err));
      }
    },
  } as grpc.UntypedServiceImplementation);
  const bound = await bindServer(server, `127.0.0.1:${port}`);
  return { target: `127.0.0.1:${bound}`, sessions, close: () => shutdown(server) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const b = await startGrpcBackend(process.env.CTX_URL ?? 'http://127.0.0.1:1933', Number(process.env.PORT ?? 8091));
  console.log(`compile backend (gRPC) at grpc://${b.target}`);
}
