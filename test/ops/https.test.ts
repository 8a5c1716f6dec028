/** HTTPS on the HTTP port through uWebSockets.js's SSLApp (CTX_TLS_CERT / CTX_TLS_KEY), over a real socket. */
import fs from 'node:fs';
import https from 'node:https';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadConfig } from '../../runtime/config.js';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { makePki, type Pki } from './certs.js';

let dir: string;
let pki: Pki;
let t: TestApp;
let port: number;
beforeAll(async () => {
  dir = tempDir('ctx-https-');
  pki = makePki(dir);
  t = await startTestApp({ config: { tls: { cert: pki.serverCert, key: pki.serverKey } } });
  port = (await t.app.listen(0, '127.0.0.1')).port;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function get(path: string, ca?: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, ca, agent: false, headers: t.root }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('a client trusting the CA gets the API over HTTPS', async () => {
  const r = await get('/api/v1/fs/ls?uri=ctx://resources', pki.read(pki.ca));
  expect(r.status).toBe(200);
  expect(JSON.parse(r.body).status).toBe('ok');
  const m = await get('/metrics', pki.read(pki.ca));
  expect(m.status).toBe(200);
});

test('a client that does not trust the certificate is refused in the handshake', async () => {
  await expect(get('/health')).rejects.toMatchObject({ code: expect.stringMatching(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY/) });
});

test('CTX_TLS_CERT and CTX_TLS_KEY go together: listen() refuses a half or missing setting', async () => {
  expect(loadConfig({ CTX_TLS_CERT: pki.serverCert, CTX_TLS_KEY: pki.serverKey }).tls).toEqual({ cert: pki.serverCert, key: pki.serverKey });
  for (const [tls, message] of [
    [{ cert: pki.serverCert }, /CTX_TLS_CERT and CTX_TLS_KEY go together/],
    [{ cert: pki.serverCert, key: '/nope/key.pem' }, /CTX_TLS_KEY names a file that does not exist/],
  ] as const) {
    const bad = await startTestApp({ config: { tls } });
    try {
      await expect(bad.app.listen(0, '127.0.0.1')).rejects.toThrow(message);
    } finally {
      await bad.close();
    }
  }
});
