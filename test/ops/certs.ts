/** Test certificates made with the openssl CLI: a CA, a server certificate for 127.0.0.1, client certificates. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { tempDir } from '../helpers/app.js';

const ssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

export interface Pki {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** Signed by another CA: a mutual-TLS server must refuse it. */
  rogueCert: string;
  rogueKey: string;
  read(file: string): Buffer;
}

function makeCa(dir: string, name: string): void {
  ssl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=${name}`]);
}

function issue(dir: string, ca: string, name: string, ext: string): void {
  ssl(dir, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  fs.writeFileSync(path.join(dir, `${name}.ext`), ext);
  ssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`]);
}

export function makePki(dir: string): Pki {
  makeCa(dir, 'ca');
  makeCa(dir, 'rogue-ca');
  issue(dir, 'ca', 'server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  issue(dir, 'ca', 'client', 'extendedKeyUsage=clientAuth\n');
  issue(dir, 'rogue-ca', 'rogue', 'extendedKeyUsage=clientAuth\n');
  const f = (n: string) => path.join(dir, n);
  return {
    dir,
    ca: f('ca.pem'),
    serverCert: f('server.pem'),
    serverKey: f('server.key'),
    clientCert: f('client.pem'),
    clientKey: f('client.key'),
    rogueCert: f('rogue.pem'),
    rogueKey: f('rogue.key'),
    read: (file) => fs.readFileSync(file),
  };
}

/**
 * A PKI for one test file: made before its tests in a temp dir of its own, removed after them. The
 * object is filled in by `beforeAll`, so tests read it as they would a `let`.
 */
export function pkiForFile(): Pki {
  const pki = {} as Pki;
  beforeAll(() => {
    Object.assign(pki, makePki(tempDir('ctx-pki-')));
  });
  afterAll(() => {
    if (pki.dir) fs.rmSync(pki.dir, { recursive: true, force: true });
  });
  return pki;
}
