/**
 * TLS and mutual TLS on ctx's gRPC Runtime service (CTX_GRPC_TLS_CERT / _KEY / _CLIENT_CA), with
 * certificates made by openssl in the test, over real sockets; and the service's call metrics.
 */
import * as grpc from '@grpc/grpc-js';
import { create } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SessionRequestSchema } from '../../plugins/compile/gen/runtime_pb.js';
import { runtimeClient } from '../../plugins/compile/grpc.js';
import { loadConfig, publicConfig, tlsProblem } from '../../runtime/config.js';
import type { CompileService } from '../../plugins/compile/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pkiForFile } from './certs.js';
import { parsePrometheus, value } from './prom-text.js';
import { freePort } from '../helpers/free-port.js';


type Client = ReturnType<typeof runtimeClient>;
/** `Status` of a session nobody has: NOT_FOUND proves the call crossed TLS and was handled. */
function status(c: Client, key: string): Promise<grpc.ServiceError | null> {
  const m = new grpc.Metadata();
  m.set('x-api-key', key);
  return new Promise((resolve) => c.status(create(SessionRequestSchema, { sessionId: 'no-such-session' }), m, { deadline: Date.now() + 5000 }, (err) => resolve(err)));
}

const pki = pkiForFile();

describe('gRPC with server TLS', () => {
  let t: TestApp;
  let port: number;
  let key: string;
  beforeAll(async () => {
    port = await freePort();
    t = await startTestApp({ config: { grpcPort: port, grpcTls: { cert: pki.serverCert, key: pki.serverKey } } });
    await t.app.service<CompileService>('compile').grpcListening();
    key = (await t.account('tls-co', ['alice'])).users.alice!['x-api-key']!;
  });
  afterAll(() => t.close());

  test('a client trusting the CA gets answers; metrics count the call by method and code', async () => {
    const c = runtimeClient(`127.0.0.1:${port}`, grpc.credentials.createSsl(pki.read(pki.ca)));
    try {
      expect((await status(c, key))?.code).toBe(grpc.status.NOT_FOUND);
      expect((await status(c, 'bad-key'))?.code).toBe(grpc.status.UNAUTHENTICATED);
    } finally {
      c.close();
    }
    const samples = parsePrometheus((await t.req({ url: '/metrics' })).text).samples;
    expect(value(samples, 'ctx_compile_grpc_server_handled_total', { method: 'Status', code: 'NOT_FOUND' })).toBe(1);
    expect(value(samples, 'ctx_compile_grpc_server_handled_total', { method: 'Status', code: 'UNAUTHENTICATED' })).toBe(1);
    expect(value(samples, 'ctx_compile_grpc_server_handling_seconds_count', { method: 'Status' })).toBe(2);
  });

  test('a plaintext client, or one that does not trust the CA, cannot talk to it', async () => {
    for (const creds of [grpc.credentials.createInsecure(), grpc.credentials.createSsl(pki.read(pki.rogueCert))]) {
      const c = runtimeClient(`127.0.0.1:${port}`, creds);
      try {
        expect((await status(c, key))?.code).toBe(grpc.status.UNAVAILABLE);
      } finally {
        c.close();
      }
    }
  });
});

describe('gRPC with mutual TLS', () => {
  let t: TestApp;
  let port: number;
  let key: string;
  beforeAll(async () => {
    port = await freePort();
    t = await startTestApp({ config: { grpcPort: port, grpcTls: { cert: pki.serverCert, key: pki.serverKey, clientCa: pki.ca } } });
    await t.app.service<CompileService>('compile').grpcListening();
    key = (await t.account('mtls-co', ['alice'])).users.alice!['x-api-key']!;
  });
  afterAll(() => t.close());

  test('only a client certificate signed by the client CA gets through', async () => {
    const ca = pki.read(pki.ca);
    const cases: Array<[grpc.ChannelCredentials, grpc.status]> = [
      [grpc.credentials.createSsl(ca, pki.read(pki.clientKey), pki.read(pki.clientCert)), grpc.status.NOT_FOUND],
      [grpc.credentials.createSsl(ca), grpc.status.UNAVAILABLE],
      [grpc.credentials.createSsl(ca, pki.read(pki.rogueKey), pki.read(pki.rogueCert)), grpc.status.UNAVAILABLE],
    ];
    for (const [creds, expected] of cases) {
      const c = runtimeClient(`127.0.0.1:${port}`, creds);
      try {
        expect((await status(c, key))?.code).toBe(expected);
      } finally {
        c.close();
      }
    }
  });
});

test('a bad TLS setting: no gRPC listener (never a plaintext one), said in the log; the key path stays out of host.config', async () => {
  expect(tlsProblem('CTX_GRPC_TLS', { cert: pki.serverCert })).toMatch(/CTX_GRPC_TLS_CERT and CTX_GRPC_TLS_KEY go together/);
  expect(tlsProblem('CTX_GRPC_TLS', { clientCa: pki.ca })).toMatch(/needs CTX_GRPC_TLS_CERT/);
  expect(tlsProblem('CTX_GRPC_TLS', { cert: '/nope/cert.pem', key: pki.serverKey })).toMatch(/does not exist: \/nope\/cert.pem/);
  const full = loadConfig({ CTX_GRPC_TLS_CERT: pki.serverCert, CTX_GRPC_TLS_KEY: pki.serverKey, CTX_GRPC_TLS_CLIENT_CA: pki.ca });
  expect(full.grpcTls).toEqual({ cert: pki.serverCert, key: pki.serverKey, clientCa: pki.ca });
  expect(publicConfig(full).grpcTls).toEqual({ cert: pki.serverCert, clientCa: pki.ca });
  const port = await freePort();
  const lines: string[] = [];
  const t = await startTestApp({ logSink: (l) => void lines.push(l), config: { logLevel: 'error', grpcPort: port, grpcTls: { cert: '/nope/cert.pem', key: pki.serverKey } } });
  await t.app.service<CompileService>('compile').grpcListening();
  try {
    expect(lines.join('')).toMatch(/gRPC runtime service not started.*CTX_GRPC_TLS_CERT names a file that does not exist/);
    const c = runtimeClient(`127.0.0.1:${port}`);
    try {
      expect((await status(c, 'any-key'))?.code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      c.close();
    }
  } finally {
    await t.close();
  }
});
